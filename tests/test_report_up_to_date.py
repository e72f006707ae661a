"""`analysis.run --all --report` rebuilds only when something it reads changed (analysis/up_to_date.py): a rerun
with nothing new says the report is up to date and writes nothing; a changed run file, a deleted output, other
code or other options build everything again; the stamp names no path of this machine."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis import run as analysis_run, up_to_date
from data.jsonl import write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import ROOT, raw_path
from infer.run import run as infer_run
from judge.run import run as judge_run
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

UP_TO_DATE = "up to date: nothing it reads changed since it was built"


def make_runs(tmp_path: Path, url: str) -> Path:
    """One OMIBench run of a scripted model and its rule verdicts (again: what is done is not redone)."""
    data = tmp_path / "omibench.jsonl"
    cfg_path = tmp_path / "m.yaml"
    cfg_path.write_text(f"name: m\nmodel: m\nbase_urls: [{json.dumps(url)}]\nmodalities: [text]\nmax_tokens: 16\n")
    out = tmp_path / "results"
    infer_run("omibench", data, load_model_config(cfg_path), "cot_boxed", out)
    judge_run("omibench", data, "m", "cot_boxed", "rules", out, None)
    return out


@pytest.fixture
def results(tmp_path: Path, scripted_server) -> Path:
    """A results folder with one judged OMIBench run of a scripted model."""
    srv = scripted_server(script=lambda body, attempt: Reply.ok("So \\boxed{1}."))
    write_jsonl_atomic(tmp_path / "omibench.jsonl", [
        {"id": f"q{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
         "answer": [str(i % 2)], "answer_type": "numeric", "subject": "Mathematics"} for i in range(4)])
    tmp_path.joinpath("url").write_text(srv.base_url)
    return make_runs(tmp_path, srv.base_url)


def build(results: Path, capsys, *more: str) -> tuple[int, str]:
    status = analysis_run.main(["--all", "--report", "--results", str(results), *more])
    return status, capsys.readouterr().out.strip().splitlines()[-1]


def outputs(results: Path) -> dict[str, int]:
    return {p.relative_to(results).as_posix(): p.stat().st_mtime_ns for p in results.rglob("*")
            if p.is_file() and p.relative_to(results).parts[0] in up_to_date.OUTPUTS}


def test_a_rebuild_with_nothing_changed_writes_nothing_and_says_so(results, capsys):
    status, line = build(results, capsys)
    assert UP_TO_DATE not in line and line.startswith("report: ")
    before = outputs(results)
    again, said = build(results, capsys)
    assert again == status and said == f"{line}; {UP_TO_DATE}"
    assert outputs(results) == before  # not one file written again


def test_a_changed_run_a_deleted_table_other_code_or_options_build_again(results, capsys, monkeypatch):
    build(results, capsys)
    raw = raw_path(results, "omibench", "m", "cot_boxed")
    raw.write_bytes(raw.read_bytes())  # written again: another mtime
    assert UP_TO_DATE not in build(results, capsys)[1]
    assert UP_TO_DATE in build(results, capsys)[1]

    table = results / "tables" / "omibench.T2.md"
    table.unlink()
    assert UP_TO_DATE not in build(results, capsys)[1] and table.exists()

    monkeypatch.setattr(up_to_date, "_code", lambda: "another checkout's code")
    assert UP_TO_DATE not in build(results, capsys)[1]
    assert UP_TO_DATE not in build(results, capsys, "--figures", str(results / "elsewhere"))[1]


def test_a_gone_data_file_builds_again_and_a_failed_build_leaves_no_stamp(results, capsys, tmp_path):
    build(results, capsys)
    (tmp_path / "omibench.jsonl").unlink()
    status, line = build(results, capsys)
    assert status == 1 and UP_TO_DATE not in line  # its tables say the data file is gone
    (results / "report.md").unlink()
    (results / "report.md").mkdir()  # the report cannot be written
    status, line = build(results, capsys)
    assert status == 1 and "not built" in line and not (results / up_to_date.STAMP).exists()


def test_the_stamp_names_no_path_of_this_machine(results, capsys, tmp_path):
    build(results, capsys)
    text = (results / up_to_date.STAMP).read_text()
    assert str(tmp_path) not in text and str(ROOT) not in text


def test_a_rerun_that_sends_and_judges_nothing_leaves_the_report_up_to_date(results, capsys, tmp_path):
    build(results, capsys)
    manifests = {p: p.read_bytes() for p in results.rglob("*.manifest.json")}
    make_runs(tmp_path, tmp_path.joinpath("url").read_text())  # nothing to send, nothing to judge
    assert {p: p.read_bytes() for p in results.rglob("*.manifest.json")} == manifests  # not written again
    assert UP_TO_DATE in build(results, capsys)[1]


def test_an_idle_run_keeps_when_its_answers_were_written_even_where_its_manifest_changes(tmp_path):
    from infer.manifest import write_manifest
    path = tmp_path / "m.manifest.json"
    write_manifest(path, {"limit": 7, "written": "t1", "counts": {"sent": 5}}, idle=False, volatile=("written", "counts"))
    before = path.stat().st_mtime_ns
    write_manifest(path, {"limit": 7, "written": "t2", "counts": {"sent": 0}}, idle=True, volatile=("written", "counts"))
    assert path.stat().st_mtime_ns == before  # nothing but the volatile fields: not written
    write_manifest(path, {"limit": 3, "written": "t3", "counts": {"sent": 0}}, idle=True, volatile=("written", "counts"))
    assert json.loads(path.read_text()) == {"limit": 3, "written": "t1", "counts": {"sent": 5}}  # a shared run's other limit
    write_manifest(path, {"limit": 3, "written": "t4", "counts": {"sent": 2}}, idle=False, volatile=("written", "counts"))
    assert json.loads(path.read_text())["written"] == "t4"  # a run that sent something is written now


@pytest.mark.parametrize("path", ["data/benchmarks/omibench.py", "data/reference/findings/mira.yaml",
                                  "data/external/think360/scores.EXAMPLE.csv", "prompts/omibench/cot.txt",
                                  "analysis/omibench/T2.py"])
def test_every_file_a_table_reads_from_the_checkout_is_in_the_stamp(path, tmp_path, monkeypatch):
    """A benchmark's module, a paper's findings and the example data are read by tables and the Findings part:
    changing one builds the report again."""
    monkeypatch.setattr(up_to_date, "ROOT", tmp_path)
    target = tmp_path / path
    target.parent.mkdir(parents=True)
    target.write_text("one")
    before = up_to_date._code()
    target.write_text("two")
    assert up_to_date._code() != before
