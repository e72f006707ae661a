"""What a large run shows: a progress bar redrawn at a bounded pace, not on every result; and a table whose data
file is gone says it is missing, with the path, instead of failing on the fields it would have read."""
import pytest

from analysis.omibench.T2 import build
from analysis.run import main
from analysis.table import Context, MissingDataFile
from tests.analysis_fixtures import make_run, write_data
from tests.test_client import data_file, go, model_config
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)


def test_the_progress_bar_is_not_redrawn_for_every_result(tmp_path, scripted_server, capsys, monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    srv = scripted_server()
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url], concurrency=16), data_file(tmp_path, n=400))
    assert counts["ok"] == 400
    err = capsys.readouterr().err
    redraws = err.count("\r")
    # 400 results (a second or two here) would be 400 redraws if each one forced its own; twice a second, a handful
    assert 1 <= redraws <= 20, redraws
    assert "400/400" in err and "done=400" in err  # the last state is drawn, with its counts


def test_a_missing_data_file_makes_the_table_missing_with_its_path(tmp_path, capsys):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(2)])
    res = tmp_path / "results"
    for judge in ("rules", "omibench_c1"):
        make_run(res, "omibench", "m", "cot_boxed", judge, data, [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    assert build("omibench.T2", Context(res, tmp_path / "fig")).table.iloc[0]["ACC Total"] == 50.0
    data.unlink()
    with pytest.raises(MissingDataFile, match=r"the data file d.jsonl \(outside the checkout\) is gone"):
        build("omibench.T2", Context(res, tmp_path / "fig"))
    assert main(["omibench.T2", "--results", str(res), "--figures", str(tmp_path / "fig")]) == 1
    assert "omibench.T2: missing: the data file d.jsonl (outside the checkout) is gone" in capsys.readouterr().out
    # its runs are there: --all fails too, where a table never run would not
    assert main(["--all", "--results", str(res), "--figures", str(tmp_path / "fig")]) == 1
