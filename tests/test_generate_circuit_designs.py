"""The two distractor designs of the circuit black boxes (data/generate/circuit_items.py): same_count, the
default, lists only netlists of the question's n terminals, so the count heuristic is no better than the
answer distribution lets it be; fig7 keeps Fig. 7's five different counts, where the count names the answer.
check() holds each item to its own design's rules, the design is recorded in every row and record, a design
that cannot be met fails loudly, and the committed measurement of the guesses is what its command writes."""
from __future__ import annotations

import csv
import random
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from data.convert import convert
from data.generate import circuits, fig7, heuristics, measure_heuristics, same_count
from data.generate.circuit_items import LETTERS, GenerationError, check, make_item
from data.generate.distractors import NRMS_MIN
from data.generate.circuits import item_random
from data.generate.common import SPLIT_CIRCUITS
from data.generate.heuristics import count_guess
from data.generate.netlist import netlist, random_circuit, terminals, with_terminals
from data.records import check_record

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (bash setup.sh)")
ROOT = Path(__file__).resolve().parents[1]
LEVELS = [1, 3, 6, 10]


def items_of(design: str | None) -> dict[int, list]:
    kw = {} if design is None else {"design": design}
    return {level: [make_item(item_random(0, level, i), level, **kw) for i in range(6)] for level in LEVELS}


@pytest.fixture(scope="module")
def same() -> dict[int, list]:
    return items_of(None)  # the default design


@pytest.fixture(scope="module")
def figure() -> dict[int, list]:
    return items_of("fig7")


def distractor(item) -> int:
    return next(k for k, x in enumerate(LETTERS[:5]) if x != item.answer)


def test_same_count_is_the_default_and_lists_only_netlists_of_the_questions_terminals(same):
    for level, items in same.items():
        for item in items:
            assert item.design == "same_count"
            texts = item.netlists()
            assert len(set(texts)) == 5
            truth_at = [x for x, text in zip(LETTERS, texts) if text == netlist(item.truth)]
            assert truth_at == ([] if item.answer == "F" else [item.answer])
            assert all(terminals(text) == list(range(1, level + 1)) for text in texts)
            assert all(d > NRMS_MIN for x, d in zip(LETTERS, item.nrms) if x != item.answer)
            check(item)


def test_the_count_heuristic_is_at_the_answers_rate_on_same_count_and_always_right_on_fig7(same, figure):
    # "the first option whose netlist joins n terminals, else F": under same_count every option has n,
    # so it always says A and is right exactly on the items whose answer is A
    items = [item for level_items in same.values() for item in level_items]
    guesses = [count_guess(item.level, item.netlists()) for item in items]
    assert set(guesses) == {"A"}
    right = sum(g == item.answer for g, item in zip(guesses, items))
    assert right == sum(item.answer == "A" for item in items) and right / len(items) < 0.5
    # under fig7 only the truth has n terminals: the count names the answer, F included
    fig = [item for level_items in figure.values() for item in level_items]
    assert all(count_guess(item.level, item.netlists()) == item.answer for item in fig)
    assert "F" in {item.answer for item in fig}


def test_item_i_of_both_designs_has_the_same_answer_inputs_and_truth(same, figure):
    for level in LEVELS:
        for a, b in zip(same[level], figure[level]):
            assert (a.answer, a.signals, a.truth) == (b.answer, b.signals, b.truth)
            assert a.netlists() != b.netlists()


def test_check_holds_a_same_count_item_to_its_design(same):
    item = same[3][0]
    k = distractor(item)
    other = random_circuit(random.Random(5), 3)
    assert netlist(other) not in item.netlists()
    check(replace(item, listed=[c if j != k else other for j, c in enumerate(item.listed)]))  # another 3-terminal one
    for count in (2, 4):
        moved = with_terminals(random.Random(0), item.listed[k], count)
        with pytest.raises(GenerationError, match=rf"same_count item: option {LETTERS[k]} joins terminals"):
            check(replace(item, listed=[c if j != k else moved for j, c in enumerate(item.listed)]))
    twin = next(j for j in range(5) if j != k and LETTERS[j] != item.answer)
    with pytest.raises(GenerationError, match="not five distinct netlists"):
        check(replace(item, listed=[c if j != twin else item.listed[k] for j, c in enumerate(item.listed)]))
    with pytest.raises(GenerationError, match="not above"):
        check(replace(item, nrms=[d if j != k else NRMS_MIN for j, d in enumerate(item.nrms)]))
    # under the figure's rules the same options are refused: one count for all five
    with pytest.raises(GenerationError, match=r"fig7 item: .*not 5 different counts.*the question's terminal count"):
        check(replace(item, design="fig7"))
    with pytest.raises(ValueError, match="unknown distractor design 'figure7'"):
        check(replace(item, design="figure7"))


def test_check_holds_a_fig7_item_to_its_design(figure):
    item = figure[3][0]
    check(item)
    with pytest.raises(GenerationError, match="same_count item: option . joins terminals"):
        check(replace(item, design="same_count"))


def test_a_design_that_cannot_be_met_fails_loudly_and_never_falls_back(monkeypatch):
    monkeypatch.setattr(same_count, "distractors", lambda *args: None)
    monkeypatch.setattr(fig7, "distractors", lambda *args: pytest.fail("fell back to the fig7 design"))
    with pytest.raises(GenerationError, match="level 1, design same_count: no circuit with 5 distinct distractors"):
        make_item(item_random(0, 1, 0), 1)
    with pytest.raises(ValueError, match="unknown distractor design"):
        make_item(item_random(0, 1, 0), 1, "figure7")


def test_level_1_gets_its_same_count_distractors_from_the_first_circuit(caplog):
    # one terminal leaves the fewest circuits to draw from: every item of a run finds its distractors
    # around the first true circuit, without drawing another
    caplog.set_level("DEBUG", logger="data.generate.circuit_items")
    for i in range(12):
        make_item(item_random(3, 1, i), 1)
    assert "drawing another circuit" not in caplog.text


def test_both_designs_are_recorded_side_by_side_and_converted(tmp_path):
    for design in ("same_count", "fig7"):
        for out in ("a", "b"):
            circuits.generate(tmp_path / out, n=2, level=2, seed=4, progress=False, design=design)
    folder = tmp_path / "a" / SPLIT_CIRCUITS
    assert sorted(p.name for p in folder.iterdir()) == ["L02-fig7-s4", "L02-fig7-s4.parquet", "L02-s4", "L02-s4.parquet"]
    for p in sorted(folder.rglob("*")):  # same arguments, same bytes, under either design
        if p.is_file():
            assert p.read_bytes() == (tmp_path / "b" / SPLIT_CIRCUITS / p.relative_to(folder)).read_bytes(), p
    for run, design in (("L02-s4", "same_count"), ("L02-fig7-s4", "fig7")):
        rows = pq.read_table(folder / f"{run}.parquet").to_pylist()
        assert [r["distractor_design"] for r in rows] == [design] * 2
    records = convert("morphobench", tmp_path / "a", tmp_path / "g.jsonl")
    assert sorted(r["distractor_design"] for r in records) == ["fig7"] * 2 + ["same_count"] * 2
    assert len({r["id"] for r in records}) == 4 and all(check_record(r) == [] for r in records)
    assert all("distractor_design" not in r["extra"] for r in records)


def read_measurement() -> list[dict[str, str]]:
    with open(heuristics.DEFAULT_OUT, newline="") as f:
        return list(csv.DictReader(f))


def test_the_committed_measurement_covers_both_designs_and_every_level():
    rows = read_measurement()
    assert list(rows[0]) == measure_heuristics.COLUMNS
    assert [(r["design"], int(r["level"])) for r in rows] == [(d, lv) for d in ("same_count", "fig7") for lv in range(1, 11)]
    assert len({(r["items"], r["seed"], r["commit"]) for r in rows}) == 1 and int(rows[0]["items"]) >= 30
    assert {r["dirty"] for r in rows} == {"0"}
    commit = rows[0]["commit"]
    known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    assert known.returncode == 0, f"{commit} is not a commit of this checkout"
    for r in rows:
        assert float(r["random_expected_pct"]) == 16.67
        if r["design"] == "fig7":
            assert float(r["count_pct"]) == 100.0
        else:  # the share of A answers among 30+ items: at chance, never near 100
            assert float(r["count_pct"]) < 45


@pytest.mark.parametrize("design", ["same_count", "fig7"])
def test_the_committed_measurement_is_what_its_command_measures(design):
    row = next(r for r in read_measurement() if r["design"] == design and r["level"] == "1")
    got = measure_heuristics.measure_level(design, 1, int(row["items"]), int(row["seed"]))
    assert {k: round(v, 2) for k, v in got.items()} == {k: float(row[f"{k}_pct"]) for k in got}
