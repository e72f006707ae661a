"""Each cell beside the paper's tested at 95 % (analysis/uncertainty.py, analysis/reference.py): the difference, its
interval counting the paper's own sampling error from its n (data/reference/paper_n.csv), and the verdict; the line
every table starts with, and the report's row per paper. Built from constructed runs of a model the paper reports
(OMIBench's GPT-4o, Table 2: ACC Physics 17.10 over the paper's 424 Physics items)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import html
from analysis.omibench import T2 as omibench_T2
from analysis.reference import beside_paper, load_reference
from analysis.report import Outcome, beside_papers, write_report
from analysis.table import Context, Table, markdown, terminal
from analysis.uncertainty import (ABOVE, BELOW, CONSISTENT, EXACT, UNTESTED, _paper_n_file, consistency, difference,
                                  paper_n, wilson)
from tests.analysis_fixtures import make_run, write_data

N = 100  # our Physics items
PAPER = 17.10  # GPT-4o's ACC on Physics in the paper's Table 2
PAPER_N = 424  # the paper's Physics items (OMIBench Fig. 2)


def build_t2(tmp_path, right: int) -> Table:
    """OMIBench Table 2 of gpt-4o (the paper's GPT-4o) with `right` of N Physics items right by C.1's rule."""
    data = write_data(tmp_path / "omi.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                              for i in range(N)])
    rows = [{"id": f"q{i}", "correct": i < right} for i in range(N)]
    make_run(tmp_path / "results", "omibench", "gpt-4o", "cot_boxed", "omibench_c1", data, rows)
    return omibench_T2.build("omibench.T2", Context(tmp_path / "results", tmp_path / "fig",
                                                    data={"omibench": data}))


def cell(t: Table, subject: str = "Physics") -> pd.Series:
    vs = t.vs_paper
    return vs[(vs["metric"] == "ACC") & (vs["subject"] == subject)].iloc[0]


def expected(right: int) -> tuple[float, float, float]:
    """The difference ours − paper and its interval by hand: Newcombe's hybrid score interval (MOVER) of the two
    Wilson intervals, ours over N items, the paper's over its 424."""
    ours, paper = wilson(right, N, 1), wilson(PAPER / 100 * PAPER_N, PAPER_N, 1)
    p1, p2 = right / N, PAPER / 100
    lo = p1 - p2 - math.sqrt((p1 - ours[0][0]) ** 2 + (paper[1][0] - p2) ** 2)
    hi = p1 - p2 + math.sqrt((ours[1][0] - p1) ** 2 + (p2 - paper[0][0]) ** 2)
    return 100 * (p1 - p2), 100 * lo, 100 * hi


@pytest.mark.parametrize("right,verdict", [(17, CONSISTENT), (24, CONSISTENT), (45, ABOVE), (5, BELOW)])
def test_a_cell_is_consistent_above_or_below_the_papers_at_95_percent(tmp_path, right, verdict):
    row = cell(build_t2(tmp_path, right))
    d, lo, hi = expected(right)
    assert row["ours"] == pytest.approx(100 * right / N)
    assert (row["ours_ci_lo"], row["ours_ci_hi"]) == pytest.approx(tuple(100 * x[0] for x in wilson(right, N, 1)))
    assert row["paper"] == PAPER and row["paper_n"] == PAPER_N
    assert row["paper_n_from"].startswith("OMIBench test split")
    assert (row["diff"], row["diff_ci_lo"], row["diff_ci_hi"]) == pytest.approx((d, lo, hi))
    assert row["verdict"] == verdict


def test_the_papers_sampling_error_widens_the_interval(tmp_path):
    """The difference's interval counts the paper's sampling error too: it is wider than our interval alone, by the
    paper's own Wilson interval over its 424 items."""
    row = cell(build_t2(tmp_path, 24))
    assert row["diff_ci_hi"] - row["diff_ci_lo"] > row["ours_ci_hi"] - row["ours_ci_lo"]


def test_every_table_starts_with_k_of_m_cells_consistent(tmp_path):
    t = build_t2(tmp_path, 45)
    counts = t.consistency()
    assert counts is not None and counts["tested"] >= 2  # Physics and the Total
    line = t.first_line()
    assert line.startswith(f"{counts[CONSISTENT]} of {counts['tested']} cells consistent with the paper")
    md = markdown("omibench.T2", t, None)
    assert md.splitlines()[2] == f"_{line}_"  # the first line under the table's heading
    assert terminal(t).splitlines()[0] == line
    assert "45.00 [35.61, 54.76]" in md  # ours with its Wilson interval
    assert "above" in md


def test_a_table_without_paper_numbers_or_without_a_common_model_says_so():
    assert Table("x", pd.DataFrame()).first_line() == "No paper numbers for this table: nothing to test against."
    empty = Table("x", pd.DataFrame(), vs_paper=pd.DataFrame(columns=["model", "verdict"]))
    assert empty.first_line().startswith("0 of 0 cells consistent with the paper: no model and setting in common")


def test_the_report_opens_with_a_row_per_paper(tmp_path):
    t = build_t2(tmp_path, 45)
    outcomes = {"omibench.T2": Outcome("ok", "written", t), "mira.T4": Outcome("missing", "no runs")}
    rows = beside_papers(outcomes).set_index("paper")
    c = t.consistency()
    assert rows.loc["OMIBench", "cells tested"] == c["tested"]
    assert rows.loc["OMIBench", CONSISTENT] == c[CONSISTENT] and rows.loc["OMIBench", ABOVE] == c[ABOVE]
    assert rows.loc["MIRA", "in words"] == "No table of this paper with paper numbers was built."
    page = html.table(beside_papers(outcomes))
    assert "cells consistent with the paper" in page


def test_the_paper_n_comes_from_the_data_file_and_an_unknown_one_is_said():
    spec = _paper_n_file()
    assert {"table", "key", "match", "n", "source"} <= set(spec.columns)
    rows = pd.DataFrame({"subject": ["Physics", "Total", "Unknown"]})
    n, source = paper_n("omibench.T2", rows)
    assert n[:2].tolist() == [424, 1322] and np.isnan(n[2]) and source[2] == ""
    # MIRA prints no n per task: ours stands in, and the row says so
    ours = pd.DataFrame({"model": ["gpt-5"], "task": ["Convex Hull"], "level": ["D"], "acc_published": [10.0],
                         "acc_published_ci_lo": [2.0], "acc_published_ci_hi": [30.0], "ci_n": [30]})
    vs = beside_paper(ours, "mira.T4", ["task", "level"], value="acc_published")
    assert vs["paper_n_from"].tolist() == ["ours (the paper's n unknown)"] and vs["paper_n"].tolist() == [30]
    assert vs["verdict"].iloc[0] in (CONSISTENT, ABOVE, BELOW)


def test_a_mean_takes_its_paper_interval_from_our_spread_scaled_to_the_papers_n():
    """A score (a mean of per-item values) beside the paper: the paper's spread per item is not printed, so ours
    stands in, scaled by √(our n / its n); the difference's interval is MOVER's of the two."""
    ref = load_reference("morphobench.T3")
    first = ref.iloc[0]
    ours = pd.DataFrame({"model": [first["model"]], "split": [first["split"]], "metric": [first["metric"]],
                         "score": [50.0], "score_ci_lo": [40.0], "score_ci_hi": [58.0], "ci_n": [100]})
    row = beside_paper(ours, "morphobench.T3", ["split", "metric"], value="score").iloc[0]
    shrink = math.sqrt(100 / row["paper_n"])
    y = float(first["value"])
    d, lo, hi = difference(50.0, 40.0, 58.0, y, y - 10 * shrink, y + 8 * shrink)
    assert (row["diff"], row["diff_ci_lo"], row["diff_ci_hi"]) == pytest.approx((d, lo, hi))


def test_a_number_without_sampling_error_is_consistent_only_at_the_papers_rounding():
    ours = pd.DataFrame({"model": ["Think360°"] * 3, "section": ["Total", "Total", "Answer Type"],
                         "item": ["Total questions", "Total questions", "Multiple-choice questions"],
                         "measure": ["count", "percent", "percent"], "score": [1225.0, 100.004, 16.96]})
    vs = beside_paper(ours, "think360.T1", ["section", "item", "measure"], value="score", kind=EXACT)
    assert vs["verdict"].tolist() == [CONSISTENT, CONSISTENT, ABOVE]  # 16.96 is not 16.9 at one decimal
    assert vs["paper_n_from"].unique().tolist() == ["no sampling error"] and vs["diff_ci_lo"].isna().all()


def test_a_cell_with_no_interval_of_ours_is_untested():
    ref = load_reference("think360.T5").iloc[0]
    ours = pd.DataFrame({"model": [ref["model"]], "metric": [ref["metric"]], "score": [40.0]})
    vs = beside_paper(ours, "think360.T5", ["metric"], value="score")
    assert vs["verdict"].tolist() == [UNTESTED]
    assert consistency(vs)[UNTESTED] == 1 and consistency(vs)["tested"] == 0


def test_the_written_report_shows_intervals_and_the_consistency_lines(tmp_path):
    t = build_t2(tmp_path, 5)
    ctx = Context(tmp_path / "results", tmp_path / "fig")
    import analysis.omibench.T2 as module

    md = write_report(ctx, {"omibench.T2": Outcome("ok", "written", t)}, {"omibench.T2": module})
    text = md.read_text()
    assert "## Beside the papers" in text and t.first_line() in text
    assert "5.00 [2.15, 11.18]" in text  # our Physics ACC with its Wilson interval
    page = md.with_suffix(".html").read_text()
    assert f"<p class='consistency'>{html.esc(t.first_line())}</p>" in page
    assert "5.00 [2.15, 11.18]" in page and "<td class='far'>below</td>" in page
