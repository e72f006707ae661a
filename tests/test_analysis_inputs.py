"""The tables' one input layer: the run that stands for a setting (from its manifest), the current line
of a result file and a reader that sees a rewritten file, the one judge policy and its record in the
table's provenance, and the data file a table reads."""
import json

import pandas as pd
import pytest

from analysis.mira import T4_to_T10 as mira_T4_to_T10
from analysis.omibench import T2 as omibench_T2
from analysis.inputs import find_runs, load_run, stand_in
from analysis.table import Context, MissingInputs, Table, write
from infer.layout import manifest_of, table_file
from tests.analysis_fixtures import make_run, write_data


@pytest.fixture
def data(tmp_path):
    return write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(3)])


def set_stands_for(judged, value):
    manifest = manifest_of(judged)
    m = json.loads(manifest.read_text())
    if value is None:
        m.pop("stands_for")
    else:
        m["stands_for"] = value
    manifest.write_text(json.dumps(m))


def test_a_run_stands_for_the_setting_its_manifest_names_else_for_its_own(tmp_path, data):
    res = tmp_path / "results"
    odd = make_run(res, "omibench", "m", "cot_boxed+captioned-by-x", "rules", data, [{"id": "q0", "correct": True}])
    set_stands_for(odd, "cot_boxed")   # the name says nothing: the manifest does
    runs = find_runs(res, "omibench", "rules")
    assert stand_in(runs, "cot_boxed").setting == "cot_boxed+captioned-by-x"
    df = Context(res, tmp_path).verdicts("omibench", ["cot_boxed"])
    assert set(df["setting"]) == {"cot_boxed"} and set(df["run_setting"]) == {"cot_boxed+captioned-by-x"}
    # a run of the setting's own name is preferred to one that stands in for it
    make_run(res, "omibench", "m", "cot_boxed", "rules", data, [{"id": "q0", "correct": False}])
    assert stand_in(find_runs(res, "omibench", "rules"), "cot_boxed").setting == "cot_boxed"
    # without `stands_for` in its manifests a run stands only for its own setting
    caption = make_run(res, "omibench", "n", "cot_boxed+caption", "rules", data, [{"id": "q0", "correct": True}])
    set_stands_for(caption, None)
    assert stand_in([r for r in find_runs(res, "omibench") if r.model == "n"], "cot_boxed") is None


def test_a_rewritten_result_file_is_read_again(tmp_path, data):
    res = tmp_path / "results"
    judged = make_run(res, "omibench", "m", "cot_boxed", "rules", data, [{"id": "q0", "correct": True}])
    run = find_runs(res, "omibench")[0]
    assert list(load_run(run)["correct"]) == [True]
    with open(judged, "a") as f:   # re-judged: the last line of a key is its current verdict
        f.write(json.dumps({**json.loads(judged.read_text().splitlines()[0]), "correct": False}) + "\n")
    assert list(load_run(run)["correct"]) == [False]


def test_one_judge_policy_per_model_recorded_in_the_provenance(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": "convex_hull/1", "benchmark": "mira", "task": "Convex Hull",
                                              "domain": "EG"}])
    res = tmp_path / "results"
    levels = list(mira_T4_to_T10.LEVELS)
    for s in levels:
        make_run(res, "mira", "llm", s, "mira_judge", data, [{"id": "convex_hull/1", "correct": True}])
        make_run(res, "mira", "llm", s, "rules", data, [{"id": "convex_hull/1", "correct": False}])
        make_run(res, "mira", "failed", s, "mira_judge", data, [{"id": "convex_hull/1", "status": "judge_error"}])
        make_run(res, "mira", "failed", s, "rules", data, [{"id": "convex_hull/1", "correct": True}])
        make_run(res, "mira", "only-llm", s, "mira_judge", data, [{"id": "convex_hull/1", "status": "judge_error"}])
    t = mira_T4_to_T10.build("mira.T4", Context(res, tmp_path / "fig"))
    choice = t.provenance.judges
    assert choice.used == {"failed": "rules", "llm": "mira_judge", "only-llm": "mira_judge"}
    assert choice.llm_scored == {"failed": 0, "llm": 3, "only-llm": 0}
    table = t.table[t.table["metric"] == "Acc"].set_index("model")
    assert table.loc["llm", "Convex Hull D"] == 100.0 and table.loc["failed", "Convex Hull D"] == 100.0
    assert table.loc["only-llm", "Convex Hull D"] == 0.0          # its failures count, not correct
    assert {(r.model, r.judge) for r in t.provenance.runs} == {("llm", "mira_judge"), ("failed", "rules"),
                                                                ("only-llm", "mira_judge")}
    csv, md = write("mira.T4", t, tmp_path)
    side = json.loads(table_file(tmp_path, "mira.T4", "provenance.json").read_text())
    assert side["judge_choice"]["models"]["failed"] == {"judge": "rules", "llm_scored": 0, "not_judged": []}
    assert {f["judge"]["name"] for f in side["judged_files"]} == {"mira_judge", "rules"}
    assert len(side["judged_files"]) == 9 and side["judged_files"][0]["stands_for"] in levels
    assert "- Judge: per model, the paper's LLM judge (mira_judge)" in md.read_text()


def test_the_data_file_of_a_table(tmp_path, data):
    ctx = Context(tmp_path / "results", tmp_path, data={"omibench": data})
    assert ctx.data_file("omibench").path == data and not ctx.data_file("omibench").demo
    assert ctx.data_file("omibench").note() == f"{data} (the paper profile's data)"


def test_a_table_without_runs_still_writes_its_provenance(tmp_path):
    write("x.T1", Table("A caption.", pd.DataFrame({"a": [1]})), tmp_path)
    assert json.loads(table_file(tmp_path, "x.T1", "provenance.json").read_text()) == {
        "table": "x.T1", "judged_files": [], "judge_choice": None, "data": None}
    with pytest.raises(MissingInputs, match="omibench"):
        omibench_T2.build("omibench.T2", Context(tmp_path / "none", tmp_path))
