"""The analysis framework: loading judged runs, accuracy with failures beside it, statistics, the paper's
numbers beside ours, the entry point and the report."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import stats
from analysis.omibench.T2 import build
from analysis.run import main, registry
from analysis.table import Context, MissingInputs
from infer.layout import report_path, table_file
from tests.analysis_fixtures import make_run, write_data


def test_omibench_T2_micro_average_and_failures(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": s}
                                             for i, s in enumerate(["Physics"] * 3 + ["Biology"])])
    res = tmp_path / "results"
    for judge in ("rules", "omibench_c1"):   # OMIBench's ACC is C.1's rule; the careful rule beside it
        make_run(res, "omibench", "m", "cot_boxed", judge, data,
                 [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}, {"id": "q2", "status": "no_response"},
                  {"id": "q3", "correct": True}])
    t = build("omibench.T2", Context(res, tmp_path / "fig"))
    row = t.table.iloc[0]
    assert row["ACC Physics"] == pytest.approx(100 / 3) and row["ACC Biology"] == 100.0  # q2's failure: not correct
    assert row["ACC Total"] == 50.0  # micro: 2 correct of all 4 items
    fail = t.extra["Failures"].iloc[0]
    assert (fail["judged"], fail["scored"], fail["no_response"]) == (4, 3, 1)
    assert fail["acc_scored"] == pytest.approx(200 / 3)  # 2 of the 3 scored, beside it


# Two models; m: 2 correct, 1 wrong, 1 failed request, 1 judge error, over two repeats.
VERDICTS = pd.DataFrame([("m", 0, "ok", True), ("m", 0, "ok", False), ("m", 0, "no_response", None),
                         ("m", 1, "ok", True), ("m", 1, "judge_error", None), ("n", 0, "ok", True)],
                        columns=["model", "sample_idx", "status", "correct"])


def test_accuracy_counts_failures_as_not_correct_and_gives_the_scored_accuracy_beside_it():
    t = stats.accuracy_table(VERDICTS.assign(flagged=[False, True, False, False, False, False]), ["model"])
    m = t.set_index("model").loc["m"]
    assert m["acc"] == pytest.approx(100 * 2 / 5)          # correct / every judged row
    assert m["acc_scored"] == pytest.approx(100 * 2 / 3)   # correct / scored rows
    assert tuple(m[["judged", "scored", "no_response", "judge_error", "flagged"]]) == (5, 3, 1, 1, 1)
    assert list(t.columns) == ["model", "acc", *stats.BESIDE] and "flagged" in stats.BESIDE  # shown beside acc
    assert stats.accuracy_table(VERDICTS, ["model"]).set_index("model").loc["m", "flagged"] == 0  # rows that do not say
    only_failed = stats.accuracy(VERDICTS[VERDICTS["status"] != "ok"])
    assert only_failed["acc"] == 0.0 and np.isnan(only_failed["acc_scored"])   # failures are wrong, not absent


def test_repeat_mean_std_counts_failures_as_not_correct():
    r = stats.repeat_mean_std(VERDICTS, ["model"]).set_index("model").loc["m"]
    assert r["mean"] == pytest.approx((100 / 3 + 50) / 2) and r["std"] == pytest.approx(np.std([100 / 3, 50], ddof=1))
    assert r["mean_scored"] == pytest.approx((50 + 100) / 2) and r["repeats"] == 2


def test_beside_paper_compares_the_paper_comparable_accuracy(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(4)])
    res = tmp_path / "results"
    make_run(res, "omibench", "gpt-4o", "cot_boxed", "omibench_c1", data,   # the paper's ACC is C.1's rule
             [{"id": "q0", "correct": True}, {"id": "q1", "correct": True}, {"id": "q2", "status": "no_response"},
              {"id": "q3", "status": "judge_error"}])
    v = build("omibench.T2", Context(res, tmp_path / "fig")).vs_paper.set_index(["metric", "subject"])
    total = v.loc[("ACC", "Total")]
    assert (total["ours"], total["paper"]) == (50.0, 24.05)   # 2 of 4, not 2 of 2
    assert total["diff"] == pytest.approx(50.0 - 24.05)


def md_row(md: str, *cells: str) -> bool:
    """Whether a markdown table row holds these cells next to each other, in this order."""
    return re.search(r"\|\s*" + r"\s*\|\s*".join(map(re.escape, cells)) + r"\s*\|", md) is not None


def test_analysis_run_writes_the_paper_comparable_accuracy(tmp_path):
    """End to end through `python -m analysis.run`: judged files in, table files out."""
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(4)])
    res = tmp_path / "results"
    make_run(res, "omibench", "gpt-4o", "cot_boxed", "omibench_c1", data,   # the paper's ACC is C.1's rule
             [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}, {"id": "q2", "status": "no_response"},
              {"id": "q3", "status": "judge_error"}])
    assert main(["omibench.T2", "--report", "--results", str(res), "--figures", str(tmp_path / "fig")]) == 0
    assert pd.read_csv(table_file(res, "omibench.T2", "csv")).loc[0, "ACC Total"] == 25.0   # 1 of 4
    md = table_file(res, "omibench.T2", "md").read_text(encoding="utf-8")
    # ours with its Wilson interval (1 of 4), the paper's number and n (OMIBench's 1,322 items), the difference with
    # its interval counting both sides' sampling error, the verdict
    assert md_row(md, "ACC", "Total", "GPT-4o", "25.00 [4.56, 69.94]", "24.05", "1322",
                  "OMIBench test split, Fig. 2 (subject sizes)", "0.95 [-19.63, 45.94]", "consistent")
    assert md_row(md, "gpt-4o", "ACC", "25.00 [4.56, 69.94]", "50.00 [9.45, 90.55]", "4", "2", "0", "1", "1")
    assert stats.ACC_NOTE in md
    assert "Failures (not correct in every acc" in report_path(res, "md").read_text(encoding="utf-8")


def test_missing_inputs_are_said_not_raised(tmp_path, capsys):
    with pytest.raises(MissingInputs):
        build("omibench.T2", Context(tmp_path / "none", tmp_path))
    assert main(["--all", "--results", str(tmp_path / "none"), "--figures", str(tmp_path)]) == 0
    assert "omibench.T2: missing" in capsys.readouterr().out


def test_statistics():
    assert stats.micro_average([50.0, 100.0], [2, 1]) == pytest.approx(200 / 3)
    m = stats.mcnemar(np.array([1, 1, 1, 0, 1]), np.array([0, 0, 1, 0, 1]))
    assert (m["only_a"], m["only_b"]) == (2, 0) and m["p"] == pytest.approx(0.5)
    p = stats.paired_permutation(np.ones(30), np.zeros(30))
    assert p["diff"] == 100 and p["p"] < 0.001
    assert stats.spearman([1, 2, 3, 4], [2, 4, 6, 9])["rho"] == pytest.approx(1.0)


def test_registry_knows_every_table_module():
    assert "omibench.T2" in registry()


def test_half_written_last_line_is_left_out_and_a_corrupt_middle_line_is_an_error(tmp_path, caplog):
    data = write_data(tmp_path / "d.jsonl", [{"id": "q0", "benchmark": "omibench", "subject": "Physics"},
                                             {"id": "q1", "benchmark": "omibench", "subject": "Physics"}])
    res = tmp_path / "results"
    judged = make_run(res, "omibench", "m", "cot_boxed", "rules", data,
                      [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    with open(judged, "a") as f:
        f.write('{"id": "q1", "sample_idx": 0, "stat')
    t = build("omibench.T2", Context(res, tmp_path / "fig"))
    assert t.table.iloc[0]["ACC careful Total"] == 50.0 and "half-written" in caplog.text
    text = judged.read_text().splitlines()
    judged.write_text("\n".join([text[0], "{broken", *text[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"rules.jsonl:2: -: corrupt result line"):
        build("omibench.T2", Context(res, tmp_path / "fig"))


def test_responses_flagged_as_addressing_the_judge_are_counted(tmp_path):
    import json
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(3)])
    res = tmp_path / "results"
    judged = make_run(res, "omibench", "m", "cot_boxed", "rules", data,
                      [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}, {"id": "q2", "correct": False}])
    lines = [json.loads(x) for x in judged.read_text().splitlines()]
    lines[1]["flags"] = ["fake_verdict"]
    judged.write_text("".join(json.dumps(x) + "\n" for x in lines))
    t = build("omibench.T2", Context(res, tmp_path / "fig"))
    assert t.extra["Failures"].iloc[0]["flagged"] == 1


def test_markdown_writes_an_undefined_cell_as_the_html_report_does():
    import numpy as np
    import pandas as pd
    from analysis.table import EMPTY_CELL, md_table
    text = md_table(pd.DataFrame({"model": ["a", "b"], "acc": [12.345, np.nan], "n": [9, 0]}))
    assert "nan" not in text and EMPTY_CELL in text.splitlines()[-1] and "12.35" in text


def test_finding_the_tables_imports_neither_scipy_nor_matplotlib_nor_the_browser():
    """Each takes up to a second to import: a table that tests or draws imports them, the report the browser."""
    code = ("import sys; from analysis.run import registry; registry(); "
            "print(sorted(m for m in ('scipy.stats', 'matplotlib', 'analysis.browse') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "[]"
