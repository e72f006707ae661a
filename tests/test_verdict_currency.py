"""A verdict counts only for the outcome it judged, against the record it judged, by the judge asked for
(judge/current.py), and every reader takes the current one: judge.run's summary, the tables, their provenance,
the report and the item browser. End to end through infer.run, judge.run and the table builders, with scripted
servers as the evaluated model and as the judge model.

The model answers OMIBench's CoT prompt (prompts/omibench/cot_boxed.txt, which ends "Let's think step-by-step!")
with the gold, 7, and any other prompt with 3; the judge model says "consistent" of a response boxing 7."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from analysis import browse
from analysis.omibench import T2 as omibench_T2
from analysis.inputs import find_runs, load_run
from analysis.table import Context
from data.jsonl import write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import browse_chunk, judged_path, manifest_of, raw_path
from infer.run import run as infer
from infer.templates import PROMPTS
from judge.judges import JUDGES as JUDGES_BY_NAME
from judge.run import run as judge
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

BENCH, SETTING, GOLD = "omibench", "cot_boxed", "7"
SUBJECTS = {"b0": "Biology", "b1": "Biology", "p0": "Physics", "p1": "Physics"}
JUDGES = ("rules", "omibench_c1", "omibench_gptscore")


def model_reply(body: dict, attempt: int) -> Reply:
    asked = json.dumps(body["messages"])
    if "empty" in asked:
        return Reply.ok("")
    return Reply.ok("Reasoning. The answer is \\boxed{7}." if "step-by-step" in asked else "So \\boxed{3}.")


def judge_reply(body: dict, attempt: int) -> Reply:
    return Reply.ok("ANSWER: consistent" if "\\boxed{7}" in json.dumps(body["messages"]) else "ANSWER: inconsistent")


def config(path: Path, name: str, url: str):
    path.write_text(f"name: {name}\nmodel: {name}\nbase_urls: [{url}]\nmodalities: [text]\nmax_tokens: 64\n"
                    "max_retries: 0\nbackoff_base: 0.01\n")
    return load_model_config(path)


class Study:
    """One OMIBench cot_boxed run of model `m` on four items (two Biology, two Physics), its verdicts by the
    careful rule, C.1's rule and GPTScore, the prompts folder it uses (a copy of the project's) and the tables."""

    def __init__(self, tmp: Path, model_srv, judge_srv):
        self.tmp, self.model_srv, self.judge_srv = tmp, model_srv, judge_srv
        self.prompts = tmp / "prompts"
        shutil.copytree(PROMPTS, self.prompts)
        self.template = self.prompts / BENCH / f"{SETTING}.txt"
        self.judge_template = self.prompts / "judges" / "omibench_gptscore.txt"
        self.data, self.results = tmp / "d.jsonl", tmp / "results"
        self.write_data()
        self.model = config(tmp / "m.yaml", "m", model_srv.base_url)
        self.judge_cfg = config(tmp / "j1.yaml", "j1", judge_srv.base_url)

    def write_data(self, gold: dict[str, str] | None = None, ids: list[str] | None = None) -> None:
        write_jsonl_atomic(self.data, [
            {"id": rid, "benchmark": BENCH, "question": f"What is item {rid}?", "images": [], "choices": [],
             "answer": [(gold or {}).get(rid, GOLD)], "answer_type": "numeric", "subject": subject}
            for rid, subject in SUBJECTS.items() if ids is None or rid in ids])

    def infer(self) -> dict:
        return infer(BENCH, self.data, self.model, SETTING, self.results, prompts=self.prompts)

    def judge(self, name: str = "rules", cfg=None) -> dict:
        cfg = cfg or (self.judge_cfg if name == "omibench_gptscore" else None)
        return judge(BENCH, self.data, "m", SETTING, name, self.results, cfg, prompts=self.prompts)

    def judge_all(self) -> dict[str, dict]:
        return {name: self.judge(name) for name in JUDGES}

    def verdict_lines(self, name: str) -> int:
        return len(judged_path(self.results, BENCH, "m", SETTING, name).read_text().splitlines())

    def table(self):
        return omibench_T2.build("omibench.T2", Context(self.results, self.tmp / "figures"))

    def row(self) -> dict:
        """Table 2's row of the model: "<metric> <subject>" → acc (%)."""
        return self.table().table.set_index("model").loc["m"].to_dict()

    def failures(self) -> dict:
        """Table 2's failure counts of the model per metric (Total)."""
        return self.table().extra["Failures"].set_index("metric").to_dict("index")

    def frame(self, name: str = "rules"):
        (run,) = [r for r in find_runs(self.results, BENCH, name) if r.model == "m"]
        return load_run(run).set_index("id")


@pytest.fixture
def study(tmp_path, scripted_server):
    return Study(tmp_path, scripted_server(script=model_reply), scripted_server(script=judge_reply))


def accuracies(summaries: dict[str, dict]) -> dict[str, float]:
    return {name: s["accuracy"] for name, s in summaries.items()}


def test_a_prompt_edited_then_reverted_gives_the_first_verdicts_again_at_no_cost(study):
    study.infer()
    assert accuracies(study.judge_all()) == {name: 1.0 for name in JUDGES}
    assert study.row()["ACC careful Total"] == 100 and study.row()["GPTScore Total"] == 100
    lines, judged = {name: study.verdict_lines(name) for name in JUDGES}, study.judge_srv.count

    study.template.write_text(study.template.read_text().replace("Let's think step-by-step!", "Answer at once."))
    assert study.infer()["sent"] == 4
    assert accuracies(study.judge_all()) == {name: 0.0 for name in JUDGES}
    assert study.row()["ACC careful Total"] == 0 and study.row()["GPTScore Total"] == 0
    assert study.judge_srv.count == judged + 4  # GPTScore judged the four new answers

    study.template.write_text(study.template.read_text().replace("Answer at once.", "Let's think step-by-step!"))
    sent, judged = study.model_srv.count, study.judge_srv.count
    counts = study.infer()
    assert (counts["sent"], counts["reused"]) == (0, 4)  # the first answers are current again, nothing is sent
    summaries = study.judge_all()
    assert accuracies(summaries) == {name: 1.0 for name in JUDGES}  # their verdicts are current again: no new call
    assert all(s["judged_now"] == 0 for s in summaries.values()) and study.judge_srv.count == judged
    assert study.model_srv.count == sent
    assert {name: study.verdict_lines(name) for name in JUDGES} == {name: 2 * n for name, n in lines.items()}
    row = study.row()  # and the table reads them: every metric, every subject
    assert all(row[f"{metric} {s}"] == 100 for metric in ("ACC", "ACC careful", "GPTScore")
               for s in ("Biology", "Physics", "Total"))
    assert all(f["unjudged"] == 0 for f in study.failures().values())


def test_a_judge_template_edited_then_reverted(study):
    study.infer()
    first = study.judge("omibench_gptscore")
    lines, calls = study.verdict_lines("omibench_gptscore"), study.judge_srv.count
    original = study.judge_template.read_text()
    study.judge_template.write_text(original.replace("Please follow these rules:", "Follow these rules:"))
    edited = study.judge("omibench_gptscore")
    assert edited["judged_now"] == 4 and study.judge_srv.count == calls + 4  # a new prompt: asked anew
    assert study.verdict_lines("omibench_gptscore") == 2 * lines
    study.judge_template.write_text(original)
    back = study.judge("omibench_gptscore")
    assert back["judged_now"] == 0 and study.judge_srv.count == calls + 4
    assert study.verdict_lines("omibench_gptscore") == 2 * lines  # no new line
    assert back["accuracy"] == first["accuracy"] == 1.0
    assert study.row()["GPTScore Total"] == 100
    judged = judged_path(study.results, BENCH, "m", SETTING, "omibench_gptscore")
    manifest = json.loads(manifest_of(judged).read_text())
    verdicts = [json.loads(x) for x in judged.read_text().splitlines()]
    assert manifest["judges"] == [manifest["judge"]] and manifest["judge"] == verdicts[0]["judge"]  # asked for


def test_a_judge_model_changed_and_changed_back(study, scripted_server):
    study.infer()
    assert study.judge("omibench_gptscore")["accuracy"] == 1.0
    harsh = scripted_server(script=lambda body, attempt: Reply.ok("ANSWER: inconsistent"))
    other = config(study.tmp / "j2.yaml", "j2", harsh.base_url)
    assert study.judge("omibench_gptscore", other)["accuracy"] == 0.0 and harsh.count == 4
    assert study.row()["GPTScore Total"] == 0  # the judge model last asked for
    lines, calls = study.verdict_lines("omibench_gptscore"), study.judge_srv.count
    back = study.judge("omibench_gptscore")
    assert (back["accuracy"], back["judged_now"]) == (1.0, 0)
    assert study.judge_srv.count == calls and harsh.count == 4 and study.verdict_lines("omibench_gptscore") == lines
    assert study.row()["GPTScore Total"] == 100


def test_a_gold_changed_in_the_data_file_is_judged_anew_and_changed_back_is_current_again(study):
    study.infer()
    study.judge_all()
    lines = study.verdict_lines("rules")
    study.write_data(gold={"b0": "3"})  # re-converted: b0's gold is now 3, and the model said 7
    frame = study.frame()
    assert frame.loc["b0", "status"] == "unjudged" and (frame["status"] == "ok").sum() == 3  # not read before
    assert study.row()["ACC careful Biology"] == 50  # b0 unjudged: not correct
    [page] = browse.write_browsers(study.results)  # the item browser says why
    chunk = browse_chunk(page.path, 0).read_text(encoding="utf-8")
    b0 = next(i for i in json.loads(chunk[chunk.index(",") + 1:-3]) if i["id"] == "b0")
    rules = next(v for v in b0["verdicts"] if v["judge"] == "rules")
    assert rules["status"] == "unjudged" and "another version of the record" in rules["stale"]
    s = study.judge("rules")
    assert (s["judged_now"], s["correct"], s["unjudged"]) == (1, 3, 0)
    assert study.frame().loc["b0", "correct"] == False  # noqa: E712  (a numpy bool)
    study.write_data()  # converted again as before: the verdict against the first gold is current again
    assert study.frame().loc["b0", "correct"] == True  # noqa: E712
    s = study.judge("rules")
    assert (s["judged_now"], s["correct"]) == (0, 4) and study.verdict_lines("rules") == lines + 1


def test_an_outcome_without_a_verdict_is_unjudged_and_not_correct(study):
    study.write_data(ids=["b0", "p0"])
    study.infer()
    study.judge_all()
    study.write_data()  # two more items, answered but not judged yet
    study.infer()
    frame = study.frame()
    assert sorted(frame.index[frame["status"] == "unjudged"]) == ["b1", "p1"]
    row, failures = study.row(), study.failures()
    assert row["ACC careful Total"] == 50 and row["ACC careful Biology"] == 50  # 2 correct of 4
    careful = failures["ACC careful"]
    assert (careful["judged"], careful["scored"], careful["unjudged"], careful["acc_scored"]) == (4, 2, 2, 100)
    table = study.table()
    provenance = table.provenance.as_json("omibench.T2")["judged_files"]
    assert {(f["judge"]["name"], f["items"], f["unjudged"]) for f in provenance} == {
        (name, 4, 2) for name in JUDGES}  # counted in what the table read, not in the judge's manifest
    [page] = browse.write_browsers(study.results)
    assert (page.items, page.correct, page.unjudged) == (4, 2, 2)
    assert accuracies(study.judge_all()) == {name: 1.0 for name in JUDGES}
    assert all(f["unjudged"] == 0 for f in study.failures().values())


def test_a_subject_whose_verdicts_are_missing_keeps_its_column_unjudged(study):
    """Judging cut short after the Physics items (as a killed judge.run leaves its file): Biology keeps its
    columns, not correct, its answers counted as unjudged."""
    study.infer()
    study.judge_all()
    for name in JUDGES:
        path = judged_path(study.results, BENCH, "m", SETTING, name)
        path.write_text("".join(x + "\n" for x in path.read_text().splitlines() if json.loads(x)["id"][0] == "p"))
    row = study.row()
    for metric in ("ACC", "ACC careful", "GPTScore"):
        assert (row[f"{metric} Biology"], row[f"{metric} Physics"], row[f"{metric} Total"]) == (0, 100, 50)
    assert {m: (f["unjudged"], f["scored"]) for m, f in study.failures().items()} == {
        m: (2, 2) for m in ("ACC", "ACC careful", "GPTScore")}


def test_a_changed_reply_under_the_same_key_is_judged_anew(study):
    """The outcome a verdict judged includes the reply: a request answered again under the same key (its raw
    file lost and run again, the model sampling otherwise) is another outcome, not judged yet."""
    study.infer()
    study.judge("rules")
    raw = raw_path(study.results, BENCH, "m", SETTING)
    lines = [json.loads(x) for x in raw.read_text().splitlines()]
    lines[0] = {**lines[0], "response": "So \\boxed{3}."}  # same request key, another reply
    raw.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert study.frame().loc[lines[0]["id"], "status"] == "unjudged"
    s = study.judge("rules")
    assert (s["judged_now"], s["correct"], s["items"]) == (1, 3, 4)
    assert study.frame().loc[lines[0]["id"], "correct"] == False  # noqa: E712


def test_an_empty_reply_is_no_response_never_a_wrong_answer(study):
    study.template.write_text(study.template.read_text() + "\nempty")
    study.infer()
    raw = [json.loads(x) for x in raw_path(study.results, BENCH, "m", SETTING).read_text().splitlines()]
    assert {(x["response"], x["error"]) for x in raw} == {("", None)}  # answered, with no text
    calls = study.judge_srv.count
    for name, s in study.judge_all().items():
        assert (s["no_response"], s["scored"], s["correct"], s["accuracy"]) == (4, 0, 0, 0.0), name
    assert study.judge_srv.count == calls  # nothing to ask the judge model
    frame = study.frame()
    assert set(frame["status"]) == {"no_response"} and frame["correct"].isna().all()


def test_a_rule_judge_version_is_its_prompt_hash(study, monkeypatch):
    """A rule judge asks no model: its `version` stands for the prompt hash in the verdict identity. Bumped
    (its scoring changed meaning), every answer is judged anew; set back, the earlier verdicts are current
    again."""
    study.infer()
    assert study.judge("rules")["judged_now"] == 4
    lines = study.verdict_lines("rules")
    first = JUDGES_BY_NAME["rules"]
    monkeypatch.setitem(JUDGES_BY_NAME, "rules", dataclasses.replace(first, version=first.version + "-next"))
    assert study.judge("rules")["judged_now"] == 4 and study.verdict_lines("rules") == 2 * lines
    assert set(study.frame()["status"]) == {"ok"}  # read as the version last asked for
    monkeypatch.setitem(JUDGES_BY_NAME, "rules", first)
    s = study.judge("rules")
    assert (s["judged_now"], s["correct"]) == (0, 4) and study.verdict_lines("rules") == 2 * lines
