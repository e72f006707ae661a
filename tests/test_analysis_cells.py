"""Counts are written as whole numbers in every .csv, .md and HTML table, other numbers with two decimals."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from analysis import html as H
from analysis.table import Context, Table, md_table, write
from analysis.think360 import T1 as think360_T1
from tests.analysis_fixtures import write_data


def md_rows(md: str) -> list[list[str]]:
    return [[c.strip() for c in x.strip().strip("|").split("|")] for x in md.splitlines() if x.startswith("|")]


def cells_of(md: str, row: str, *more: str) -> list[str]:
    """The cells of the first Markdown table row that holds `row` (and `more`) as cells."""
    return next(r for r in md_rows(md) if row in r and all(m in r for m in more))


def html_row(page: str, row: str) -> list[str]:
    tr = next(t for t in re.findall(r"<tr[^>]*>(.*?)</tr>", page) if f">{row}<" in t)
    return re.findall(r"<td[^>]*>(.*?)</td>", tr)


def test_think360_T1_counts_are_whole_in_its_csv_md_and_html(tmp_path):
    """T1 pivots counts beside percents and lengths: the missing cells make its count column float."""
    data = write_data(tmp_path / "think360.jsonl", [
        {"id": f"q{i}", "benchmark": "think360", "skills": ["Trial-and-Error"], "question_type": ["Algebra"],
         "difficulty": "Easy", "question": "one two three", "answer": ["4"]} for i in range(14)])
    t = think360_T1.build("think360.T1", Context(tmp_path / "r", tmp_path / "fig", data={"think360": data}))
    csv, md = write("think360.T1", t, tmp_path / "r")
    assert "Total,Total questions,14,100.0," in csv.read_text().splitlines()
    text = md.read_text()
    assert cells_of(text, "Total questions") == ["Total", "Total questions", "14", "100.00", "—"]
    assert cells_of(text, "Average length")[2:] == ["—", "—", "3.00"]  # a length, not a count
    # beside the paper, a count row's numbers are whole, a percent row's keep their decimals
    # (ours, paper, paper_n, paper_n_from, diff, verdict: a dataset statistic has no sampling error)
    assert cells_of(text, "Total questions", "count")[-6:] == ["14", "1225", "—", "no sampling error", "-1211", "below"]
    assert cells_of(text, "Total questions", "percent")[-6:] == ["100.00", "100.00", "—", "no sampling error", "0.00",
                                                                  "consistent"]
    assert html_row(H.table(t.table), "Total questions")[2:4] == ["14", "100.00"]


def test_a_count_column_made_float_by_a_missing_value_is_whole_everywhere(tmp_path):
    df = pd.DataFrame({"model": ["a", "b", "c"], "items": [12.0, np.nan, 3.0], "acc": [50.0, 12.345, np.nan],
                       "n": [4, 5, 6], "mean tokens": [10.5, 3.0, 2.0]})
    assert cells_of(md_table(df), "a") == ["a", "12", "50.00", "4", "10.50"]
    assert cells_of(md_table(df), "b") == ["b", "—", "12.35", "5", "3.00"]
    assert html_row(H.table(df), "a") == ["a", "12", "50.00", "4", "10.50"]
    csv, _ = write("x.T1", Table("x", df), tmp_path)
    assert csv.read_text().splitlines()[1:3] == ["a,12,50.0,4,10.5", "b,,12.345,5,3.0"]


def test_a_number_a_count_is_named_for_keeps_its_decimals_when_it_is_not_whole_or_is_a_rate():
    df = pd.DataFrame({"model": ["a"], "items": [2.5], "acc_scored": [100.0], "judge_acc_%": [50.0]})
    assert cells_of(md_table(df), "a") == ["a", "2.50", "100.00", "50.00"]


def test_a_name_that_only_contains_a_count_word_holds_no_count():
    """MIRA's "Cubes Count D" is an accuracy on a task named for counting, OMIBench T5's "Total Std scored" a
    standard deviation: whole values there are written as the numbers they are, not as counts."""
    df = pd.DataFrame({"model": ["a"], "Cubes Count D": [0.0], "Total Std scored": [0.0], "judge_calls": [3.0],
                       "tot_width_n": [6.0], "Cubes Count": [2.0]})
    assert cells_of(md_table(df), "a") == ["a", "0.00", "0.00", "3", "6", "2"]
