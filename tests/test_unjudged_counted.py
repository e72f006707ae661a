"""Answers without a verdict are counted, and verdicts without answers are named: a run whose verdict file has no
lines, or has a judge manifest but no verdict file, counts its answers `unjudged` (not correct, in every
denominator); a judged file whose raw file is gone is named in the notes of every table that reads it, in the
report's failures and on the terminal, never left as a silent empty cell."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.mira import T4_to_T10 as mira_T4
from analysis.run import build, main
from analysis.table import Context
from infer.layout import judged_path, raw_path, report_path, table_file
from tests.analysis_fixtures import make_run, write_data

MODEL = "gpt-4o-2024-11-20"
ITEMS = [("convex_hull/1", "Convex Hull", "EG"), ("convex_hull/2", "Convex Hull", "EG"),
         ("mirror_clock/1", "Mirror Clock", "PBR")]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """MIRA level D judged (2 of 3 right) and level T answered: its verdicts are what each test takes away."""
    data = write_data(tmp_path / "mira.jsonl", [{"id": i, "benchmark": "mira", "task": t, "domain": d}
                                                for i, t, d in ITEMS])
    res = tmp_path / "results"
    make_run(res, "mira", MODEL, "direct", "rules", data,
             [{"id": i, "correct": i != "convex_hull/2"} for i, _, _ in ITEMS])
    make_run(res, "mira", MODEL, "cot_general", "rules", data, [{"id": i, "correct": True} for i, _, _ in ITEMS])
    return res


def table4(results: Path):
    """Table 4 as analysis.run builds it: with what its readers could not count in its notes."""
    o = build("mira.T4", Context(results, results.parent / "fig"), {"mira.T4": mira_T4})
    assert o.state == "ok", o.message
    t = o.table
    acc = t.table.set_index("metric")
    failures = t.extra["Scored units and failures"].set_index(["task", "level"])
    return t, acc, failures


def assert_level_T_counted_unjudged(results: Path) -> None:
    t, acc, failures = table4(results)
    # not an empty cell: every answer of level T is there, none correct
    assert acc.loc["Acc careful", "Convex Hull T"] == 0 and acc.loc["Acc careful", "Mirror Clock T"] == 0
    assert tuple(failures.loc[("Convex Hull", "T"), ["judged", "scored", "unjudged"]]) == (2, 0, 2)
    assert acc.loc["Acc careful", "Convex Hull D"] == 50   # level D as it was


def test_answers_with_a_verdict_file_of_no_lines_are_counted_unjudged(results):
    judged_path(results, "mira", MODEL, "cot_general", "rules").write_text("")
    assert_level_T_counted_unjudged(results)


def test_answers_with_a_judge_manifest_but_no_verdict_file_are_counted_unjudged(results, capsys):
    judged = judged_path(results, "mira", MODEL, "cot_general", "rules")
    judged.unlink()   # a judge run stopped before its first verdict, or the file deleted: its manifest stays
    assert_level_T_counted_unjudged(results)
    t, _, _ = table4(results)
    assert any(line.startswith(f"{judged}") and "3 answers read" in line and "3 unjudged" in line
               for line in t.provenance.lines()), t.provenance.lines()
    assert main(["mira.T4", "--report", "--quiet", "--results", str(results), "--figures", str(results.parent)]) == 0
    md = report_path(results, "md").read_text(encoding="utf-8")
    assert f"judged/mira/{MODEL}/cot_general.rules.jsonl: 0 no response, 0 judge error(s), 3 unjudged of 3" in md


def test_a_judged_file_whose_raw_file_is_gone_is_named_not_left_empty(results, capsys):
    raw_path(results, "mira", MODEL, "cot_general").unlink()
    t, acc, failures = table4(results)
    assert pd.isna(acc.loc["Acc careful", "Convex Hull T"])   # no answers to count ...
    said = [n for n in t.notes if "cot_general.jsonl: missing" in n]   # ... and the notes say why
    assert len(said) == 1 and said[0].startswith(f"{raw_path(results, 'mira', MODEL, 'cot_general')}: missing, so "
                                                 "the 3 verdict line(s) of its judge(s) rules under ")
    assert main(["mira.T4", "--report", "--quiet", "--results", str(results), "--figures", str(results.parent)]) == 0
    out = capsys.readouterr().out
    gone = f"results/raw/mira/{MODEL}/cot_general.jsonl: missing, so the 3 verdict line(s)"
    assert f"mira.T4: note: {raw_path(results, 'mira', MODEL, 'cot_general')}: missing" in out   # on the terminal
    assert gone in table_file(results, "mira.T4", "md").read_text(encoding="utf-8")   # in the table's notes
    assert gone in report_path(results, "md").read_text(encoding="utf-8")   # and in the report's failures


def test_a_table_whose_only_run_lost_its_raw_file_is_missing_and_says_why(results, capsys):
    for setting in ("direct", "cot_general"):
        raw_path(results, "mira", MODEL, setting).unlink()
    assert main(["mira.T4", "--results", str(results), "--figures", str(results.parent)]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("mira.T4: missing: ")
    assert f"raw/mira/{MODEL}/direct.jsonl: missing, so the 3 verdict line(s)" in line
    assert f"raw/mira/{MODEL}/cot_general.jsonl: missing, so the 3 verdict line(s)" in line
