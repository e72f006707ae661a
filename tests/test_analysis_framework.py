"""The analysis framework: loading judged runs, accuracy with failures beside it, statistics, the paper's
numbers beside ours, the entry point and the report."""
import numpy as np
import pytest

from analysis import stats
from analysis.omibench_T2 import build
from analysis.run import main, registry
from analysis.table import Context, MissingInputs
from tests.analysis_fixtures import make_run, write_data


def test_omibench_T2_micro_average_and_failures(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": s}
                                             for i, s in enumerate(["Physics"] * 3 + ["Biology"])])
    res = tmp_path / "results"
    make_run(res, "omibench", "m", "cot_boxed", "rules", data,
             [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}, {"id": "q2", "status": "no_response"},
              {"id": "q3", "correct": True}])
    t = build("omibench.T2", Context(res, tmp_path / "fig"))
    row = t.table.iloc[0]
    assert row["ACC Physics"] == 50.0 and row["ACC Biology"] == 100.0
    assert row["ACC Total"] == pytest.approx(200 / 3)  # micro: 2 of 3 scored items; the failure is excluded
    fail = t.extra["Failures"].iloc[0]
    assert (fail["scored"], fail["no_response"]) == (3, 1)


def test_missing_inputs_are_said_not_raised(tmp_path, capsys):
    with pytest.raises(MissingInputs):
        build("omibench.T2", Context(tmp_path / "none", tmp_path))
    assert main(["--all", "--results", str(tmp_path / "none"), "--figures", str(tmp_path)]) == 0
    assert "omibench.T2: missing" in capsys.readouterr().out


def test_statistics():
    assert stats.micro_average([50.0, 100.0], [2, 1]) == pytest.approx(200 / 3)
    m = stats.mcnemar(np.array([1, 1, 1, 0, 1]), np.array([0, 0, 1, 0, 1]))
    assert (m["only_a"], m["only_b"]) == (2, 0) and m["p"] == pytest.approx(0.5)
    lo, hi = stats.bootstrap_ci(np.array([1] * 50 + [0] * 50))
    assert lo < 50 < hi and hi - lo < 25
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
    assert t.table.iloc[0]["ACC Total"] == 50.0 and "half-written" in caplog.text
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
