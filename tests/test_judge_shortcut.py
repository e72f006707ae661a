"""The rule judge's fast paths give the verdicts of the math-verify path, on generated answers of every shape
(tests/answer_shapes.py): formulas read without math-verify (judge/formula.py), sentences it is not asked
to read (judge/prose.py), and long runs spread over processes (judge/parallel.py). Each test fails on any
disagreement; none is timed (speed is measured by perf/measure.py)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sympy

from infer.layout import judged_path, raw_path
from judge import formula, match, mathverify, parallel, prose
from judge.errors import MatchError
from judge.match import canonical, latex_form
from judge.numbers import Interval, close_for_all
from judge.rules import RuleJudge, score
from judge.run import run
from judge.types import Item
from tests.answer_shapes import constant, formula_pairs, polynomial, random_formulas, rec, scored_cases


def math_verify_reading(text: str):
    reading = mathverify.read(text)
    assert len(reading) == 2, (text, reading)
    return reading[0]


def as_sympy(poly: formula.Poly) -> sympy.Expr:
    return sum((c * sympy.Mul(*[sympy.Symbol(name) ** k for name, k in mono]) for mono, c in poly.items()),
               sympy.Integer(0))


def test_the_reader_reads_every_formula_as_math_verify_does():
    """A constant's interval holds math-verify's value; a polynomial is math-verify's, expanded."""
    rng = random.Random(7)
    texts = random_formulas(1200) + [constant(rng) for _ in range(300)] + [polynomial(rng) for _ in range(300)]
    wrong, counts = [], {"constant": 0, "polynomial": 0}
    for text in dict.fromkeys(texts):
        read = formula.read(text)
        if read is None or (read.letters and read.poly is None):
            continue
        reading = math_verify_reading(text)
        if read.letters:
            plain = reading.xreplace({s: sympy.Symbol(s.name) for s in reading.free_symbols})
            counts["polynomial"] += 1
            if sympy.expand(plain - as_sympy(read.poly)) != 0:
                wrong.append((text, str(reading), read.poly))
        else:
            counts["constant"] += 1
            value = mathverify.value(reading)
            if value is None or not read.value.lo <= value <= read.value.hi:
                wrong.append((text, str(reading), value, read.value))
    assert wrong == []
    assert counts["constant"] > 600 and counts["polynomial"] > 150, counts


def test_the_grammar_leaves_out_what_math_verify_reads_its_own_way():
    for text in ["2 3", "2\\frac{1}{2}", "2(7)", "\\pi(2)", "x(x+1)", "xy", "x y", "2m", "5t", "e^2", "i+1", "2X",
                 "x^23", "\\sqrt 3", "1/2/3", "6/2\\times 3", "\\sqrt{\\sqrt{24}\\times 9.22}", "1,000", "1 000",
                 "50\\%", "45^\\circ", "\\frac{1}{0}", "\\sqrt{-2}", "\\sqrt{3-3}", "٣", "+3", "3--2"]:
        assert formula.read(text) is None, text


def test_intervals_decide_only_away_from_the_tolerance_edge():
    exact = lambda v: Interval(v, v)  # noqa: E731
    assert close_for_all(exact(1.00005), exact(1.0)) is True
    assert close_for_all(exact(1.0002), exact(1.0)) is False
    assert close_for_all(Interval(1.0001 - 1e-12, 1.0001 + 1e-12), exact(1.0)) is None  # on the edge
    assert close_for_all(exact(0.0), Interval(-1e-100, 1e-100)) is None                  # zero or not
    assert close_for_all(exact(5e-5), exact(0.0)) is True
    assert close_for_all(exact(1.6e-19), exact(1.7e-19)) is False
    assert close_for_all(exact(0.0100001), Interval(0.01 - 1e-18, 0.01 + 1e-18)) is None  # gold at 1e-2


def test_fast_verdicts_are_math_verify_verdicts():
    """Every pair the fast paths decide gets the same truth value from math-verify (whose None is False),
    and never a pair on which math-verify raises."""
    decided, wrong = {"formula": 0, "prose": 0}, []
    for pred, gold in formula_pairs(1500):
        p, g = latex_form(canonical(pred)), latex_form(canonical(gold))
        fast, kind = formula.math_verdict(p, g), "formula"
        if fast is None and prose.is_prose(p) and mathverify.prose_cannot_equal(p, g):
            fast, kind = False, "prose"
        if fast is None:
            continue
        decided[kind] += 1
        try:
            slow = bool(mathverify.verdict(p, g))
        except MatchError as e:
            slow = f"raises {e}"
        if slow != fast:
            wrong.append((kind, pred, gold, fast, slow))
    assert wrong == []
    assert decided["formula"] > 300 and decided["prose"] > 180, decided  # the fast paths do decide


@pytest.fixture
def math_verify_only(monkeypatch):
    """A context in which judge.match asks math-verify everything, as before the fast paths."""
    def switch():
        monkeypatch.setattr(formula, "math_verdict", lambda pred, gold: None)
        monkeypatch.setattr(prose, "is_prose", lambda text: False)
        match.math_equal.cache_clear()
    yield switch
    match.math_equal.cache_clear()


def test_scores_of_every_answer_type_are_those_of_the_math_verify_path(math_verify_only):
    cases = scored_cases(700)
    fast = [score(r, response) for r, response in cases]
    math_verify_only()
    slow = [score(r, response) for r, response in cases]
    different = [(r["answer"], response, f, s) for (r, response), f, s in zip(cases, fast, slow) if f != s]
    assert different == []
    assert {r["answer_type"] for r, _ in cases} == {"mcq", "numeric", "expression", "text", "multi-part"}


def test_a_long_run_in_processes_gives_the_same_verdicts_in_the_same_order():
    items = [Item(r, response) for r, response in scored_cases(300, seed=3)]
    in_process = [RuleJudge().steps(item) for item in items]
    assert parallel.map_ordered(RuleJudge().steps, items, min_items=1, chunk=40, processes=2) == in_process


def test_with_another_thread_running_workers_come_from_the_fork_server():
    """A thread of the caller (an inference client's) may hold a lock: its state is never forked."""
    items = [Item(r, response) for r, response in scored_cases(60, seed=4)]
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pooled = parallel.map_ordered(RuleJudge().steps, items, min_items=1, chunk=15, processes=2)
    finally:
        stop.set()
        other.join()
    assert pooled == [RuleJudge().steps(item) for item in items]


def test_math_verify_time_limit_works_in_a_worker():
    """math-verify times out with signal.alarm, which needs the main thread: workers run chunks there."""
    slow = Item(rec(["10^{10^{10^{10}}}"], "expression"), "\\boxed{10^{10^{10^{11}}}}")
    quick = Item(rec(["5"], "numeric"), "\\boxed{5}")
    out = parallel.map_ordered(RuleJudge().steps, [quick, slow], min_items=1, chunk=1, processes=2)
    assert out[0]["correct"] is True
    assert out[1]["status"] == "judge_error" and out[1]["correct"] is None


def test_judge_run_writes_the_same_verdict_file_in_processes(tmp_path, monkeypatch):
    cases = scored_cases(120, seed=5)
    records = [{**r, "id": f"q{i}"} for i, (r, _) in enumerate(cases)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    for results in (tmp_path / "one", tmp_path / "pool"):
        raw = raw_path(results, "omibench", "m", "s")
        raw.parent.mkdir(parents=True)
        raw.write_text("".join(json.dumps({"id": f"q{i}", "sample_idx": 0, "request_key": f"k{i}",
                                           "response": response, "error": None}) + "\n"
                               for i, (_, response) in enumerate(cases)))
    run("omibench", data, "m", "s", "rules", tmp_path / "one")
    monkeypatch.setattr(parallel, "POOL_MIN", 10)
    monkeypatch.setattr(parallel, "CHUNK", 25)
    monkeypatch.setattr(parallel, "idle_cores", lambda: 2.0)  # as on an idle machine, whatever else runs
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    run("omibench", data, "m", "s", "rules", tmp_path / "pool")
    pool, one = (judged_path(tmp_path / r, "omibench", "m", "s", "rules") for r in ("pool", "one"))
    assert pool.read_bytes() == one.read_bytes()


def test_math_verify_is_imported_once_before_the_workers_start_not_in_each():
    """judge.match imports math-verify on first need (half a second): a pool's workers must inherit it."""
    code = ("import sys\n"
            "from judge import parallel\n"
            "def loaded(_):\n"
            "    return 'math_verify' in sys.modules\n"
            "assert 'math_verify' not in sys.modules\n"
            "print(parallel.map_ordered(loaded, list(range(4)), min_items=1, chunk=1, processes=2))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "[True, True, True, True]"
