"""Undecided answers in the tables: the careful accuracy as a range, its lower end the number compared, the
undecided counted beside it; a range is two columns in the .csv and one cell in the .md and the HTML report."""
import pandas as pd
import pytest

from analysis import html, stats
from analysis.cells import as_text, range_text
from analysis.omibench.T2 import build
from analysis.table import Context, md_table
from tests.analysis_fixtures import make_run, write_data

ROWS = pd.DataFrame([("m", "ok", True), ("m", "ok", False), ("m", "undecided", None), ("m", "no_response", None),
                     ("n", "ok", True)], columns=["model", "status", "correct"])


def test_an_undecided_answer_is_the_span_between_the_two_ends_of_the_accuracy():
    m = stats.accuracy_table(ROWS, ["model"]).set_index("model").loc["m"]
    assert (m["acc"], m["acc_hi"]) == (25.0, 50.0)                     # 1 of 4; 2 of 4 with the undecided right
    assert (m["judged"], m["scored"], m["undecided"], m["no_response"]) == (4, 2, 1, 1)
    assert m["acc_scored"] == 50.0                                        # over the decided answers
    assert stats.accuracy(ROWS[ROWS["model"] == "m"])["acc_hi"] == 50.0
    assert "undecided" in stats.COUNTS and stats.BESIDE.index("acc_hi") < stats.BESIDE.index("judged")


def test_a_range_is_two_columns_in_the_csv_and_one_cell_in_the_md_and_html():
    t = pd.DataFrame({"model": ["m", "n"], "acc": [25.0, 100.0], "acc_hi": [50.0, 100.0], "undecided": [1, 0]})
    assert list(as_text(t).columns) == ["model", "acc", "undecided"]
    assert as_text(t)["acc"].tolist() == ["25.00–50.00", "100.00"]
    md = md_table(t)
    assert "25.00–50.00" in md and "acc_hi" not in md
    page = html.table(t)
    assert "25.00–50.00" in page and "acc_hi" not in page and "data-v='25.0'" in page
    assert range_text(1.0, float("nan")) is None and range_text(1.0, 1.0) is None


def test_rule_disagreement_counts_undecided_answers_apart_from_disagreements():
    key = {"model": "m", "setting": "s", "sample_idx": 0}
    c1 = pd.DataFrame([{**key, "id": i, "status": "ok", "correct": c} for i, c in enumerate([True, True, False])])
    careful = pd.DataFrame([{**key, "id": 0, "status": "undecided", "correct": None},
                            {**key, "id": 1, "status": "ok", "correct": False},
                            {**key, "id": 2, "status": "undecided", "correct": None}])
    g = stats.rule_disagreement(c1, careful, ["model"], ("c1", "careful")).iloc[0]
    assert (g["only_c1_correct"], g["only_careful_correct"], g["careful_undecided"], g["c1_undecided"]) == (1, 0, 2, 0)
    assert (g["acc_careful"], g["acc_careful_hi"]) == (0.0, pytest.approx(200 / 3))
    assert g["acc_c1"] == g["acc_c1_hi"] == pytest.approx(200 / 3)


def test_omibench_table_2_shows_acc_careful_as_a_range_with_the_undecided_beside_it(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(4)])
    res = tmp_path / "results"
    make_run(res, "omibench", "m", "cot_boxed", "omibench_c1", data,
             [{"id": f"q{i}", "correct": c} for i, c in enumerate([True, True, False, False])])
    make_run(res, "omibench", "m", "cot_boxed", "rules", data,
             [{"id": "q0", "correct": True}, {"id": "q1", "status": "undecided"}, {"id": "q2", "correct": False},
              {"id": "q3", "status": "undecided"}])
    t = build("omibench.T2", Context(res, tmp_path / "fig"))
    row = t.table.iloc[0]
    assert (row["ACC careful Total"], row["ACC careful Total hi"]) == (25.0, 75.0)
    assert "ACC Total hi" not in t.table                                  # C.1 decides everything
    assert "25.00–75.00" in md_table(t.table)
    fail = t.extra["Failures"].set_index("metric").loc["ACC careful"]
    assert (fail["undecided"], fail["acc_hi"]) == (2, 75.0)
    gap = t.extra[next(k for k in t.extra if k.startswith("ACC: published"))].iloc[0]
    assert (gap["careful_undecided"], gap["only_c1_correct"]) == (2, 0)  # q1 (C.1 correct) and q3: no disagreement
    vs = t.vs_paper
    assert vs.empty or {"ours_careful", "ours_careful_hi"} <= set(vs.columns)
