"""MorphoBench Table 5 beside the text-only guesses (analysis/morphobench/circuit_guesses.py): computed on the
items the table reads, per distractor design and level; for a design none of them was made with, read from the
committed measurement (data/generate/circuit_heuristics.csv), whose origin the notes name. Hand-made records:
netlists drawn without simulation."""
from __future__ import annotations

import random
import zlib

import pytest

from analysis.morphobench import T5 as morphobench_T5, circuit_guesses
from analysis.table import Context
from data.generate.heuristics import closest_guess, count_guess, percent_right, random_guesses
from data.generate.heuristics import DEFAULT_OUT
from data.generate.netlist import netlist, random_circuit
from tests.analysis_fixtures import make_run, write_data

SETTING = "with_hints+items-morpho_g"


def netlists(counts: list[int], seed: int) -> list[str]:
    rng = random.Random(seed)
    return [netlist(random_circuit(rng, n)) for n in counts]


def circuit(rid: str, level: int, answer: str, design: str | None, counts: list[int]) -> dict:
    rec = {"id": rid, "benchmark": "morphobench", "split": "Morpho_G_circuits", "level": level, "answer": [answer],
           "answer_type": "mcq", "extra": {"netlists": netlists(counts, zlib.crc32(rid.encode()))}}
    return rec if design is None else {**rec, "distractor_design": design}


def build(tmp_path, records: list[dict]):
    data = write_data(tmp_path / "g.jsonl", records)
    make_run(tmp_path / "results", "morphobench", "o3", SETTING, "rules", data,
             [{"id": r["id"], "correct": True} for r in records])
    return morphobench_T5.build("morphobench.T5", Context(tmp_path / "results", tmp_path / "fig"))


SAME = [circuit("s-0", 2, "A", "same_count", [2] * 5), circuit("s-1", 2, "B", "same_count", [2] * 5),
        circuit("s-2", 2, "F", "same_count", [2] * 5)]
FIG7 = [circuit("f-0", 2, "C", "fig7", [1, 3, 2, 4, 5]), circuit("f-1", 2, "F", "fig7", [1, 3, 4, 5, 6])]


def test_the_guesses_are_computed_on_the_items_read_and_measured_for_the_other_design(tmp_path):
    t = build(tmp_path, SAME)
    g = t.extra["Text-only guesses per distractor design and level (% right)"]
    read = g[g["source"] == "the items read"].set_index(["design", "level"])
    g = g[g["source"] != "the items read"].set_index(["design", "level"])
    # every option joins 2 terminals: the count heuristic says A, right on the one item whose answer is A
    assert read.loc[("same_count", 2), "count_pct"] == pytest.approx(100 / 3)
    assert read.loc[("same_count", 2), "items"] == 3 and len(read) == 1
    assert read.loc[("same_count", 2), "random_expected_pct"] == pytest.approx(100 / 6)
    # both designs' ten levels come from the committed measurement too, on many more items than a run reads
    assert list(g.loc["same_count"].index) == list(range(1, 11)) and (g.loc["same_count", "items"] == 60).all()
    fig7 = g.loc["fig7"]
    assert list(fig7.index) == list(range(1, 11)) and (fig7["count_pct"] == 100.0).all()
    assert fig7["source"].str.startswith("data/generate/circuit_heuristics.csv (python -m data.generate "
                                         "circuit_heuristics: seed 0, 60 items per level, commit ").all()
    notes = "\n".join(t.notes)
    assert "Distractor designs of the items read: same_count (3 items)." in notes
    assert "same_count (on the 3 items read), % right per level: count L2 33.3;" in notes
    assert "fig7 (measured on 600 generated items), % right per level: count L1 100.0, L2 100.0" in notes
    assert "same_count (measured on 600 generated items), % right per level: count L1 13.3" in notes
    assert "The measured numbers of same_count, fig7 are read from data/generate/circuit_heuristics.csv" in notes
    assert "Per distractor design and level" not in t.extra


def test_items_of_both_designs_need_no_measurement_and_get_accuracy_per_design(tmp_path):
    t = build(tmp_path, SAME + FIG7)
    g = t.extra["Text-only guesses per distractor design and level (% right)"]
    g = g[g["source"] == "the items read"]
    assert sorted(zip(g["design"], g["level"], g["count_pct"])) == [("fig7", 2, 100.0), ("same_count", 2, pytest.approx(100 / 3))]
    per = t.extra["Per distractor design and level"].set_index(["distractor_design", "level"])
    assert per.loc[("fig7", 2), "judged"] == 2 and per.loc[("same_count", 2), "judged"] == 3


def test_items_converted_before_the_design_was_recorded_are_scored_and_both_designs_measured(tmp_path):
    t = build(tmp_path, [circuit("o-0", 2, "C", None, [1, 3, 2, 4, 5])])
    g = t.extra["Text-only guesses per distractor design and level (% right)"]
    assert set(g["design"]) == {"not recorded", "same_count", "fig7"}
    assert g.set_index("design").loc["not recorded", "count_pct"] == 100.0
    assert any(n.startswith("The measured numbers of same_count, fig7 are read from") for n in t.notes)


def test_a_missing_measurement_is_said_not_hidden(tmp_path):
    table, notes = circuit_guesses.measured(["fig7"], tmp_path / "none.csv")
    assert table.empty and "python -m data.generate circuit_heuristics --n 60 --seed 0" in notes[0]
    assert DEFAULT_OUT.exists()


def test_the_guesses_themselves():
    fig = netlists([2, 1, 5, 6, 3], 0)  # Fig. 7's options' terminal counts
    assert count_guess(3, fig) == "E" and count_guess(4, fig) == "F" and count_guess(2, netlists([2] * 5, 1)) == "A"
    base = netlists([3], 2)[0]
    others = netlists([3] * 4, 3)
    # the option sharing the most component lines with the others: three copies' worth of the same parts
    near = [base.replace("* candidate circuit", f"* option {k}") for k in range(3)]
    assert closest_guess(3, [others[0], near[0], others[1], near[1], near[2]]) == "B"
    assert random_guesses("k", 50) == random_guesses("k", 50) != random_guesses("j", 50)
    draws = random_guesses("uniform", 6000)
    assert all(abs(draws.count(x) / 6000 - 1 / 6) < 0.02 for x in "ABCDEF")
    items = [(3, fig, "E"), (4, fig, "F"), (3, fig, "A")]
    assert percent_right(items, "k")["count"] == pytest.approx(200 / 3)
    with pytest.raises(ValueError, match="no items"):
        percent_right([], "k")
