"""Generated circuit black-box items: every option re-simulated from the files written beside it,
distractors distinct by the stated measure, the supply line as in Fig. 7 and, under the fig7 design, the
options' terminal counts as in Fig. 7, "None of the above" items, the checks themselves, byte-identical
reruns, and the MorphoBench converter and rule judge on the output. The two designs side by side:
tests/test_generate_circuit_designs.py."""
from __future__ import annotations

import csv
import random
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from data.convert import convert
from data.generate import circuit_items, circuits
from data.generate.circuit_items import LETTERS, GenerationError, check, make_item
from data.generate.distractors import NRMS_MIN, nrms
from data.generate.common import SPLIT_CIRCUITS, item_rng
from data.generate.fig7 import distractor_counts
from data.generate.mutate import mutate
from data.generate.netlist import netlist, random_circuit, valid, with_terminals
from data.generate.spice import simulate_deck
from judge.rules import score

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (bash setup.sh)")


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("morpho_g")
    circuits.generate(out, n=3, level=2, seed=0, progress=False)
    return out


def terminal_count(text: str) -> int:
    """The numbered nodes that resistors, capacitors and inductors join (node 0 is ground)."""
    return len({node for line in text.splitlines() if line[0] in "RLC"
                for node in line.split()[1:3] if node.isdigit() and node != "0"})


def rows(release: Path) -> list[dict]:
    return pq.read_table(release / SPLIT_CIRCUITS / "L02-s0.parquet").to_pylist()


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_option_resimulates_from_its_deck(release, tmp_path):
    for row in rows(release):
        folder = release / SPLIT_CIRCUITS / row["data_dir"]
        wave = read_csv(folder / "waveform.csv")
        t = np.array([float(r["time_s"]) for r in wave])
        truth = np.array([float(r["voltage_v"]) for r in wave])
        assert len(t) == 5001 and t[-1] == pytest.approx(0.02)
        got_t, v = simulate_deck((folder / "truth.cir").read_text())
        assert np.allclose(got_t, t) and nrms(v, truth) < 1e-7
        checks = {r["option"]: r for r in read_csv(folder / "check.csv")}
        assert [k for k, r in checks.items() if r["is_answer"] == "1"] == [row["answer"]]
        for letter in LETTERS[:5]:
            text = (folder / f"{letter}.cir").read_text()
            assert "V1 1 0 DC 5" in text.splitlines()
            assert int(checks[letter]["terminals"]) == terminal_count(row["netlists"][LETTERS.index(letter)])
            _, v = simulate_deck(text)
            d = nrms(v, truth)
            assert d == pytest.approx(float(checks[letter]["nrms"]), rel=1e-5, abs=1e-5)  # 6 digits written
            if letter == row["answer"]:
                assert d < 1e-7
            else:
                assert d > NRMS_MIN, f"{row['index']} option {letter}: nrms {d}"


def test_rows_hold_the_question_and_the_data_to_check_it(release):
    for row in rows(release):
        q = row["question"]
        assert q.startswith("You are presented with a sealed black-box electronic circuit.")
        assert "1. The black box has 2 input terminals" in q and q.endswith("- (F) None of the above")
        for k, text in enumerate(row["netlists"]):
            assert f"- ({LETTERS[k]})\n```\n{text.rstrip()}\n```" in q
        assert len(set(row["netlists"])) == 5
        assert all(text.splitlines()[1] == "V1 1 0 DC 5" for text in row["netlists"])
        assert row["option_terminals"] == [terminal_count(text) for text in row["netlists"]]
        signals = row["signals"]
        assert [s["terminal"] for s in signals] == [1, 2]
        assert len({s["amplitude"] for s in signals}) == 2 and len({s["frequency"] for s in signals}) == 2
        for s in signals:
            assert f"\n{s['terminal']}\t{s['amplitude']:g}\t{s['frequency']:g}\n" in q
        assert row["answer"] in LETTERS and row["split"] == SPLIT_CIRCUITS and row["level"] == 2
        if row["answer"] != "F":
            assert row["netlists"][LETTERS.index(row["answer"])] == row["true_netlist"]
        assert row["image_base64"].startswith("data:image/png;base64,")
        assert "DC plus sinusoids" in row["caption"]


@pytest.mark.parametrize("level", [1, 2, 5, 10])
def test_fig7_options_differ_in_their_terminal_counts(level):
    # Fig. 7's options join 2, 1, 5, 6 and 3 terminals: ours have five different counts, the truth
    # the level's, the distractors others, some fewer and some more than the level when it has fewer
    for i in range(3):
        item = make_item(item_rng("circuits", 7, f"L{level}", i), level, "fig7")
        counts = [terminal_count(text) for text in item.netlists()]
        assert len(set(counts)) == 5
        others = [c for letter, c in zip(LETTERS, counts) if letter != item.answer]
        assert level not in others and terminal_count(netlist(item.truth)) == level
        assert all(abs(c - level) <= 6 for c in others)
        if level == 1:
            assert min(others) > 1
        else:
            assert min(others) < level < max(others)
        if item.answer != "F":
            assert counts[LETTERS.index(item.answer)] == level


def test_distractor_counts_are_the_six_nearest_the_level():
    rng = random.Random(0)
    seen = {level: set() for level in (1, 2, 4, 10)}
    for _ in range(200):
        for level in seen:
            for k in (4, 5):
                counts = distractor_counts(rng, level, k)
                assert len(set(counts)) == k and level not in counts
                assert level == 1 or min(counts) < level < max(counts)
                seen[level] |= set(counts)
    assert seen == {1: {2, 3, 4, 5, 6, 7}, 2: {1, 3, 4, 5, 6, 7}, 4: {1, 2, 3, 5, 6, 7}, 10: {7, 8, 9, 11, 12, 13}}


@pytest.mark.parametrize("design", ["same_count", "fig7"])
def test_none_of_the_above_items_list_five_distractors(design):
    # the answer is the first draw of an item's generator: find an item whose answer is F
    i = next(i for i in range(500) if item_rng("circuits", 0, "L1", i).choice(LETTERS) == "F")
    item = make_item(item_rng("circuits", 0, "L1", i), 1, design)
    assert item.answer == "F" and netlist(item.truth) not in item.netlists()
    assert len(item.listed) == 5 and all(d > NRMS_MIN for d in item.nrms)


def test_answers_are_uniform_over_six_letters():
    draws = [item_rng("circuits", 0, "L3", i).choice(LETTERS) for i in range(6000)]
    for letter in LETTERS:
        assert abs(draws.count(letter) / 6000 - 1 / 6) < 0.02


@pytest.mark.parametrize("design", ["same_count", "fig7"])
def test_check_refuses_a_close_distractor_or_a_misplaced_truth(design):
    item = make_item(item_rng("circuits", 1, "L1", 0), 1, design)
    check(item)
    wrong = next(k for k, x in enumerate(LETTERS[:5]) if x != item.answer)
    close = replace(item, nrms=[d if k != wrong else NRMS_MIN / 2 for k, d in enumerate(item.nrms)])
    with pytest.raises(GenerationError, match="not above"):
        check(close)
    with pytest.raises(GenerationError, match="the truth"):
        check(replace(item, answer=LETTERS[wrong]))
    # just above the threshold is kept
    check(replace(item, nrms=[d if k != wrong else NRMS_MIN * 1.0001 for k, d in enumerate(item.nrms)]))


def test_fig7_check_refuses_a_distractor_of_the_questions_terminal_count():
    item = make_item(item_rng("circuits", 1, "L1", 0), 1, "fig7")
    wrong = next(k for k, x in enumerate(LETTERS[:5]) if x != item.answer)
    same_count = random_circuit(random.Random(0), item.level)
    listed = [c if k != wrong else same_count for k, c in enumerate(item.listed)]
    with pytest.raises(GenerationError, match=r"the question's terminal count \(1\)"):
        check(replace(item, listed=listed))


def test_random_circuits_and_mutations_keep_the_rules():
    rng = random.Random(3)
    for _ in range(300):
        c = random_circuit(rng, rng.randint(1, 10))
        assert valid(c)
        m = mutate(rng, c)
        assert m is None or (valid(m) and m != c and m.n == c.n)
        k = rng.randint(1, 13)
        resized = with_terminals(rng, c, k)
        assert valid(resized) and resized.n == k and resized.ground == c.ground
        assert resized.branches[:min(k, c.n)] == c.branches[:min(k, c.n)]


def test_same_seed_same_bytes_and_item_i_does_not_depend_on_n(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    circuits.generate(a, n=2, level=1, seed=5, progress=False)
    circuits.generate(b, n=2, level=1, seed=5, progress=False)
    circuits.generate(c, n=1, level=1, seed=5, progress=False)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert len(files) == 1 + 2 * 9  # the parquet file; per item the PNG, CSVs and six decks
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    for p in (c / SPLIT_CIRCUITS / "L01-s5/0000").iterdir():
        assert p.read_bytes() == (a / SPLIT_CIRCUITS / "L01-s5/0000" / p.name).read_bytes()
    assert item_rng("circuits", 5, "L1", 0).random() != item_rng("circuits", 6, "L1", 0).random()


def test_the_converter_reads_the_split_and_the_rule_judge_scores_it(release, tmp_path):
    records = convert("morphobench", release, tmp_path / "g.jsonl")
    assert [r["id"] for r in records] == [f"{SPLIT_CIRCUITS}-L02-s0-{i:04d}" for i in range(3)]
    for rec, row in zip(records, rows(release)):
        assert rec["split"] == SPLIT_CIRCUITS and rec["level"] == 2 and rec["task"] == "circuit_blackbox"
        assert rec["answer_type"] == "mcq" and rec["has_inline_choices"] and rec["answer"] == [row["answer"]]
        assert len(rec["images"]) == 1 and (tmp_path / rec["images"][0]).is_file()
        assert rec["captions"] == [row["caption"]]
        assert rec["extra"]["true_netlist"] == row["true_netlist"]
        assert score(rec, f"The output matches.\nAnswer: {row['answer']}")["correct"] is True
        other = next(x for x in LETTERS if x != row["answer"])
        assert score(rec, f"Answer: {other}")["correct"] is False


def test_a_failed_run_leaves_the_previous_output_and_no_partial_one(tmp_path, monkeypatch):
    circuits.generate(tmp_path, n=1, level=1, seed=0, progress=False)
    before = (tmp_path / SPLIT_CIRCUITS / "L01-s0.parquet").read_bytes()
    real = circuit_items.make_item

    def fails_on_the_second(rng, level, design):
        fails_on_the_second.calls += 1
        if fails_on_the_second.calls == 2:
            raise GenerationError("simulated failure")
        return real(rng, level, design)
    fails_on_the_second.calls = 0
    monkeypatch.setattr(circuits, "make_item", fails_on_the_second)
    with pytest.raises(GenerationError):
        circuits.generate(tmp_path, n=2, level=1, seed=0, progress=False)
    assert (tmp_path / SPLIT_CIRCUITS / "L01-s0.parquet").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / SPLIT_CIRCUITS).iterdir()) == ["L01-s0", "L01-s0.parquet"]
