"""The findings checker (analysis/findings.py) on tables written by hand: a finding that holds, one that does not and
one left inconclusive for each kind of claim, a finding not run, and every finding of the papers checked without an
error, on no tables and on the papers' own numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.findings import VERDICTS, papers, check, check_all, counts, load_findings, terminal
from analysis.findings_claims import (FAILS, HOLDS, INCONCLUSIVE, NOT_CHECKABLE, NOT_RUN, Finding, Side, our_side,
                                      paper_side)
from analysis.findings_cells import paper, wilson
from analysis.findings_report import html_part, md_part
from analysis.run import main as run_main, registry
from infer.layout import table_file


def write(results: Path, table: str, df: pd.DataFrame, data: dict | None = None) -> None:
    """A table as analysis.run writes it: its .csv and, beside it, a .provenance.json (the data file of a table
    of the data, else one judged file of a release's data)."""
    csv = table_file(results, table, "csv")
    csv.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(csv, index=False)
    prov = {"table": table, "judged_files": [] if data else [{"data": "data/omibench/test.jsonl"}], "data": data}
    table_file(results, table, "provenance.json").write_text(json.dumps(prov))


def finding(kind: str, tables: list[str], **claim) -> Finding:
    claim = {"metric": None, "size": None, "over": "the models", **claim}
    return Finding(f"{tables[0].split('.')[0] if tables else 'x'}.test-{kind}", "a quote", "§1", tuple(tables), kind,
                   claim)


def verdict(results: Path, f: Finding) -> str:
    return check(f, our_side(results), paper_side()).verdict


def total(rows: dict[str, tuple[float, float, float]]) -> pd.DataFrame:
    """OMIBench Table 2 with ACC Total and its interval per model."""
    return pd.DataFrame([{"model": m, "ACC Total": v, "ACC Total ci_lo": lo, "ACC Total ci_hi": hi}
                         for m, (v, lo, hi) in rows.items()])


# --- threshold -----------------------------------------------------------------------------------------------------

BELOW_51 = finding("threshold", ["omibench.T2"], metric="ACC Total", compare=["gpt-4o", "gpt-5"], direction="below",
                   size={"below": 51, "unit": "%"})


@pytest.mark.parametrize("gpt5, expected", [((40, 35, 45), HOLDS), ((60, 55, 65), FAILS), ((50, 45, 55), INCONCLUSIVE)])
def test_threshold_by_the_whole_interval(tmp_path, gpt5, expected):
    write(tmp_path, "omibench.T2", total({"gpt-4o": (24, 20, 28), "gpt-5": gpt5}))
    c = check(BELOW_51, our_side(tmp_path), paper_side())
    assert c.verdict == expected
    assert "gpt-5 ACC Total" in c.ours and "[" in c.ours
    assert c.paper.startswith("holds on them: gpt-4o ACC Total 24.05")  # the same check on the paper's Table 2


def test_a_value_without_an_interval_is_inconclusive(tmp_path):
    write(tmp_path, "omibench.T2", pd.DataFrame({"model": ["gpt-4o", "gpt-5"], "ACC Total": [24.0, 30.0]}))
    c = check(BELOW_51, our_side(tmp_path), paper_side())
    assert c.verdict == INCONCLUSIVE and c.why.startswith("no interval")


def test_an_accuracy_beside_its_count_gets_wilsons_interval(tmp_path):
    lo, hi = wilson(90.0, 100)
    assert 82 < lo < 84 and 94 < hi < 96
    write(tmp_path, "omibench.T8", pd.DataFrame({"group": ["expert", "expert"], "participant": ["Human Expert A",
                                                 "Human Expert B"], "metric": ["ACC", "ACC"], "acc": [95.0, 90.0],
                                                 "judged": [400, 100]}))
    f = finding("threshold", ["omibench.T8"], metric="acc", compare=["Human Expert A", "Human Expert B"],
                direction="above", size={"above": 80, "unit": "%"})
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == HOLDS and "Wilson's 95 % interval over judged = 400" in c.test
    f = finding("threshold", ["omibench.T8"], metric="acc", compare=["Human Expert B"], direction="above",
                size={"above": 85, "unit": "%"})  # 90 of 100: [82.6, 94.5] straddles 85
    assert verdict(tmp_path, f) == INCONCLUSIVE


# --- order ---------------------------------------------------------------------------------------------------------

HIGHER = finding("order", ["omibench.T2"], metric="ACC Total", compare=["gpt-5", "gpt-4o"], direction="higher",
                 over="the two models")


@pytest.mark.parametrize("gpt5, expected", [((40, 35, 45), HOLDS), ((10, 5, 15), FAILS), ((26, 22, 30), INCONCLUSIVE)])
def test_order_by_separated_intervals(tmp_path, gpt5, expected):
    write(tmp_path, "omibench.T2", total({"gpt-4o": (24, 20, 28), "gpt-5": gpt5}))
    assert verdict(tmp_path, HIGHER) == expected


@pytest.mark.parametrize("best, expected", [((60, 55, 65), HOLDS), ((20, 15, 25), FAILS), ((38, 33, 43), INCONCLUSIVE)])
def test_highest_of_the_papers_models_present(tmp_path, best, expected):
    """Table 2's paper models present in ours are the field; gemini-3-pro must be above each."""
    f = finding("order", ["omibench.T2"], metric="ACC Total", compare=["gemini-3-pro"], direction="highest",
                over="every model of Table 2")
    write(tmp_path, "omibench.T2", total({"gpt-4o": (24, 20, 28), "gpt-5": (35, 31, 39), "gemini-3-pro": best}))
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == expected
    assert c.paper_verdict == HOLDS  # the paper's own numbers: Gemini-3-Pro's 42.79 tops its Table 2


# --- improvement ---------------------------------------------------------------------------------------------------

COT = finding("improvement", ["think360.T4"], metric="ALL Acc", compare=["cot+temp0.7", "direct+temp0.7"],
              direction="higher", over="gpt-4o")


def cot_table(direct: tuple[float, float, float], cot: tuple[float, float, float]) -> pd.DataFrame:
    return pd.DataFrame([{"model": "gpt-4o", "judge": "rules", "cot": mark, "ALL Acc": v, "ALL Acc ci_lo": lo,
                          "ALL Acc ci_hi": hi} for mark, (v, lo, hi) in (("✗", direct), ("✓", cot))])


@pytest.mark.parametrize("cot, expected", [((30, 26, 34), HOLDS), ((5, 2, 8), FAILS), ((18, 14, 22), INCONCLUSIVE)])
def test_improvement_by_the_unpaired_interval_with_the_papers_effect(tmp_path, cot, expected):
    write(tmp_path, "think360.T4", cot_table((16, 13, 19), cot))
    c = check(COT, our_side(tmp_path), paper_side())
    assert c.verdict == expected
    assert "unpaired" in c.test  # no paired row in the table: the conservative interval from both sides'
    ref = paper("think360.T4")
    theirs = [x.value for x in ref.find("gpt-4o", "ALL Acc", "✓")][0] - [x.value for x in ref.find("gpt-4o", "ALL Acc", "✗")][0]
    assert f"the paper's {theirs:.4g}" in c.effect and "×" in c.effect


@pytest.mark.parametrize("delta, expected", [((5, 2, 8), HOLDS), ((-5, -8, -2), FAILS), ((1, -2, 4), INCONCLUSIVE)])
def test_improvement_reads_the_tables_paired_difference(tmp_path, delta, expected):
    """OMIBench Fig. 4(a) writes each strategy's paired difference to Default CoT: that interval decides, though the
    two accuracies' intervals overlap."""
    d, lo, hi = delta
    write(tmp_path, "omibench.F4a", pd.DataFrame([{
        "model": "gpt-4o", "metric": "ACC", "Default CoT": 30.0, "Default CoT ci_lo": 25.0, "Default CoT ci_hi": 35.0,
        "Least-to-Most": 30.0 + d, "Least-to-Most ci_lo": 25.0 + d, "Least-to-Most ci_hi": 35.0 + d,
        "Δ Least-to-Most": d, "Δ Least-to-Most ci_lo": lo, "Δ Least-to-Most ci_hi": hi, "p Least-to-Most": 0.01}]))
    f = finding("improvement", ["omibench.F4a"], metric="ACC", compare=["least_to_most", "cot_boxed"],
                direction="higher", over="gpt-4o")
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == expected
    assert "unpaired" not in c.test


# --- correlation ---------------------------------------------------------------------------------------------------

RHO = finding("correlation", ["think360.T5"], metric="Spearman ρ", compare=["ToT-Width", "Acc"],
              direction="positive", size={"equals": 0.9218, "unit": "rho"}, over="the models of Table 5")
MODELS = ["gpt-4o", "gpt-4.1", "o3", "o4-mini", "gemini-2.5-pro", "gemini-2.0-flash", "claude-4-sonnet",
          "qwen2.5-vl-7b", "qwen2.5-vl-32b", "llama-3.2-11b-vision"]


@pytest.mark.parametrize("acc, expected", [(list(range(10)), HOLDS), (list(range(10, 0, -1)), FAILS),
                                           ([3, 7, 1, 9, 5, 2, 8, 0, 6, 4], INCONCLUSIVE)])
def test_correlation_by_a_bootstrap_interval_over_the_models(tmp_path, acc, expected):
    width = [10.0 * i for i in range(10)]
    write(tmp_path, "think360.T5", pd.DataFrame({"model": MODELS, "ToT-Width": width, "Acc": acc}))
    c = check(RHO, our_side(tmp_path), paper_side())
    assert c.verdict == expected
    assert "Spearman" in c.ours and "the paper's ρ = 0.9218" in c.test


@pytest.mark.parametrize("rho, p, expected", [(0.8, 0.01, HOLDS), (-0.8, 0.01, FAILS), (0.3, 0.4, INCONCLUSIVE)])
def test_correlation_stated_by_the_table(tmp_path, rho, p, expected):
    write(tmp_path, "omibench.F3a", pd.DataFrame({"model": ["all models"], "metric": ["GPTScore"],
                                                  "pair": ["OMIBench vs MMIU"], "rho": [rho], "p": [p], "n": [12]}))
    f = finding("correlation", ["omibench.F3a"], metric="rho", compare=["OMIBench", "MMIU"], direction="positive")
    assert verdict(tmp_path, f) == expected


# --- not run, not checkable ----------------------------------------------------------------------------------------

def test_not_run_when_the_table_is_missing_or_lacks_the_models(tmp_path):
    c = check(HIGHER, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_RUN and "omibench.T2 not built" in c.why
    write(tmp_path, "omibench.T2", total({"smollm2-135m": (1, 0, 5)}))
    c = check(HIGHER, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_RUN and "gpt-5" in c.why
    f = finding("threshold", ["omibench.T2"], metric="ACC Total", compare=["every model"], direction="below",
                size={"below": 51, "unit": "%"}, over="every model of Table 2")
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_RUN and "none of the paper's models" in c.why and "smollm2-135m" in c.why


def test_not_run_on_the_demo_set_or_invented_data(tmp_path):
    write(tmp_path, "c2rbench.F3-5", pd.DataFrame({"subset": ["Total"], "tasks": [12], "mean_steps": [6.3]}),
          data={"path": "data/demo/build/c2rbench.jsonl", "demo": True})
    f = finding("range", ["c2rbench.F3-5"], metric="mean_steps", compare=["Total"], direction="about",
                size={"about": 8.44, "unit": "steps"}, over="every task of the data file")
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_RUN and "demo set" in c.why
    write(tmp_path, "c2rbench.F3-5", pd.DataFrame({"subset": ["Total"], "tasks": [1115], "mean_steps": [8.44]}),
          data={"path": "data/c2rbench/test.jsonl", "demo": False})
    assert verdict(tmp_path, f) == HOLDS  # a count of the release's data is exact
    write(tmp_path, "omibench.T2", total({"gpt-4o": (24, 20, 28), "gpt-5": (40, 35, 45)}))
    table_file(tmp_path, "omibench.T2", "md").write_text("# omibench.T2\n\n- EXAMPLE DATA: built from x; invented.\n")
    c = check(HIGHER, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_RUN and "invented example data" in c.why


def test_other_is_not_checkable_and_says_why(tmp_path):
    f = finding("other", [], metric=None, compare=["a"], direction=None)
    c = check(f, our_side(tmp_path), paper_side())
    assert c.verdict == NOT_CHECKABLE and c.why == "no table of ours measures it"


# --- every finding ----------------------------------------------------------------------------------------------------

FINDINGS = load_findings()


def test_every_finding_names_tables_that_exist():
    tables = set(registry())
    assert len(FINDINGS) >= 150
    assert {t for f in FINDINGS for t in f.tables} <= tables


def test_every_finding_gets_a_verdict_with_no_tables(tmp_path):
    checks = check_all(tmp_path)
    assert len(checks) == len(FINDINGS)
    assert all(c.verdict in VERDICTS and not c.error for c in checks), [c.finding.id for c in checks if c.error]
    assert {c.verdict for c in checks} == {NOT_RUN, NOT_CHECKABLE}
    assert all(c.why for c in checks)


def test_every_finding_checked_on_the_papers_own_numbers():
    """With the paper's numbers standing for ours (exact), every kind's check runs on real tables' shapes, and most
    findings hold on the numbers they were written from."""
    exact = Side("ours", paper_side().view_of, exact=True)
    checks = [check(f, exact, paper_side()) for f in FINDINGS]
    assert all(c.verdict in VERDICTS and not c.error for c in checks)
    by_kind = {k: [c.verdict for c in checks if c.finding.kind == k] for k in {f.kind for f in FINDINGS}}
    for kind, verdicts in by_kind.items():
        if kind != "other":
            assert HOLDS in verdicts, kind  # no kind left unhandled
    assert counts(checks)[HOLDS] > len(checks) / 2


# --- where it is shown ----------------------------------------------------------------------------------------------

def test_the_report_part_and_the_command(tmp_path, capsys):
    write(tmp_path, "omibench.T2", total({"gpt-4o": (24, 20, 28), "gpt-5": (35, 31, 39)}))
    checks = check_all(tmp_path, ("omibench",))
    page = html_part("omibench", checks, {"omibench.T2"})
    assert page.count("<tr class='finding'") == len(checks)
    assert "href='#omibench.T2'" in page and "omibench.F3d (not built)" in page
    md = "\n".join(md_part("omibench", checks, {"omibench.T2"}, lambda t: t.replace(".", "")))
    assert "[omibench.T2](#omibenchT2)" in md and md.count("| **omibench.") == len(checks)
    assert "OMIBench: " in terminal(checks)
    assert run_main(["findings", "omibench", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "omibench.all-below-51" in out and out.strip().splitlines()[-1].startswith("findings: ")
    assert run_main(["findings", "nope", "--results", str(tmp_path)]) == 2
    assert set(papers()) == {f.bench for f in FINDINGS}
