"""OMIBench tables part B (F5a–c, F6a, F6bc/T10, T5, T7, T8, T9, F16, sig): built from judged files made
by hand, with hand-computed numbers; and the paper's own derived numbers recomputed from the reference
CSVs by the same code."""
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import analysis.omibench.T7 as T7
import analysis.omibench.T8 as T8
import analysis.omibench.F6bc_T10 as T10
from analysis.omibench import (F5a as omibench_F5a, F5b as omibench_F5b, F5c as omibench_F5c, F6a as omibench_F6a,
                               F16 as omibench_F16, sig as omibench_sig)
from analysis.omibench import T5 as omibench_T5, T9 as omibench_T9
from analysis.omibench.metrics import RULE_GAP
from analysis.omibench.subjects import SIZES, SUBJECTS
from analysis.reference import REFERENCE, load_reference
from analysis.run import registry
from analysis.stats import micro_average
from analysis.table import Context, MissingInputs
from infer.layout import judged_path, manifest_of, raw_path, table_file
from tests.analysis_fixtures import make_run, write_data, judged_as

SUBJ = ["Biology", "Biology", "Physics", "Physics", "Mathematics", "Chemistry"]


@pytest.fixture
def env(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": s,
                                              "answer": [str(i + 1)], "question": f"question {i}"}
                                             for i, s in enumerate(SUBJ)])
    return tmp_path / "results", data, Context(tmp_path / "results", tmp_path / "fig")


def rows(*verdicts, idx=0):
    """("q0", True) → correct; ("q1", None) → no_response; ("q2", "err") → judge_error."""
    out = []
    for rid, v in verdicts:
        status = "no_response" if v is None else "judge_error" if v == "err" else "ok"
        out.append({"id": rid, "sample_idx": idx, "correct": v if status == "ok" else None, "status": status})
    return out


def rule_runs(results: Path, model: str, setting: str, data: Path, verdicts: list, c1: list | None = None):
    """Both rule judges' verdict files of one run: the careful rule's `verdicts`, C.1's `c1` (else the same)."""
    make_run(results, "omibench", model, setting, "rules", data, verdicts)
    make_run(results, "omibench", model, setting, "omibench_c1", data, verdicts if c1 is None else c1)


def judge_lines(results: Path, model: str, setting: str, data: Path, evaluator: str, verdicts: dict, idx=0,
                flagged=()):
    """Append omibench_gptscore verdicts of one judge model (several evaluators share one file); the ids in
    `flagged` addressed the judge."""
    path = judged_path(results, "omibench", model, setting, "omibench_gptscore")
    path.parent.mkdir(parents=True, exist_ok=True)
    about = judged_as(results, "omibench", model, setting, data)
    with open(path, "a") as f:
        for rid, v in verdicts.items():
            status = "judge_error" if v == "err" else "ok"
            f.write(json.dumps({"id": rid, "sample_idx": idx, **about[(rid, idx)], "status": status, "extracted": None,
                                "correct": v if status == "ok" else None, "flags": ["fake_verdict"] if rid in flagged else [],
                                "judge": {"name": "omibench_gptscore", "model": evaluator, "prompt_sha": "p"}}) + "\n")
    manifest_of(path).write_text(json.dumps({"data": str(data)}))


def ref(table_id: str) -> pd.DataFrame:
    return pd.read_csv(REFERENCE / f"{table_id}.csv")


def test_every_id_is_registered():
    ids = {"omibench.F5a", "omibench.F5b", "omibench.F5c", "omibench.F6a", "omibench.F6bc", "omibench.T10",
           "omibench.T5", "omibench.T7", "omibench.T8", "omibench.T9", "omibench.F16", "omibench.sig"}
    assert ids <= set(registry())


def test_F5a_sequential_scaling(env):
    res, data, ctx = env
    rule_runs(res, "m", "cot_boxed+max512", data, rows(("q0", True), ("q1", False), ("q2", None)))
    rule_runs(res, "m", "cot_boxed+max1024+caption", data,
              rows(("q0", True), ("q1", True), ("q2", False)))
    t = omibench_F5a.build("omibench.F5a", ctx)
    assert set(t.table["metric"]) == {"ACC", "ACC careful"}
    df = t.table[t.table["metric"] == "ACC"].set_index("budget")
    assert df.loc[512, "acc"] == pytest.approx(100 / 3) and df.loc[512, "no_response"] == 1  # failure: not correct
    assert df.loc[512, "acc_scored"] == 50.0
    assert df.loc[1024, "acc"] == pytest.approx(200 / 3)
    assert df.loc[1024, "gain"] == pytest.approx(100 / 3) and math.isnan(df.loc[512, "gain"])
    assert df.loc[512, "missing_budgets"] == "2048, 4096, 8192, 16384"
    assert t.figure.exists()
    with pytest.raises(MissingInputs):
        omibench_F5a.build("omibench.F5a", Context(res.parent / "none", res.parent))


def test_F5c_majority_vote_and_failures(env):
    res, data, ctx = env
    lines = []
    for i, (e, c) in enumerate([("1", True), ("3", False), ("3", False), ("1", True)]):  # q0, gold 1
        lines.append({"id": "q0", "sample_idx": i, "correct": c, "extracted": e})
    for i, (e, c) in enumerate([("2", True), ("2", True), (None, None), ("5", False)]):  # q1, gold 2
        lines.append({"id": "q1", "sample_idx": i, "correct": c, "extracted": e,
                      "status": "no_response" if e is None else "ok"})
    rule_runs(res, "qwen3-vl-32b", "cot_boxed+temp0.6", data, lines)   # the demo's setting
    for idx in range(3):  # Table 5's runs of the same setting are not F5c's experiment
        rule_runs(res, "gemini-3-pro", "cot_boxed+temp0.6", data, rows(("q0", True), idx=idx))
    t = omibench_F5c.build("omibench.F5c", ctx)
    assert set(t.table["model"]) == {"qwen3-vl-32b"}
    df = t.table[t.table["metric"] == "ACC"].set_index("k")
    # q0: maj@1 "1" ✓, maj@3 "3" ✗, maj@4 tie 1/3 → first seen "1" ✓; q1: ✓ at every k (sample 2 failed)
    assert list(df.loc[[1, 3, 4], "maj_at_k"]) == [100.0, 50.0, 100.0]
    assert df.loc[4, "no_response"] == 1 and df.loc[3, "short"] == 1
    assert df.loc[4, "avg_at_k"] == 50.0  # q1's failed sample is not correct: 2 of 4, as q0
    assert df.loc[4, "avg_at_k_scored"] == pytest.approx(100 * (0.5 + 2 / 3) / 2)
    assert math.isnan(df.loc[16, "maj_at_k"])  # 16 samples were not drawn
    # GPTScore: votes on the rule judge's extracted answers, the winner scored by its GPTScore verdict
    for idx in range(4):
        judge_lines(res, "qwen3-vl-32b", "cot_boxed+temp0.6", data, "e", {"q0": idx == 0, "q1": False}, idx=idx)
    g = omibench_F5c.build("omibench.F5c", ctx).table
    g = g[g["metric"] == "GPTScore"].set_index("k")
    assert (g.loc[1, "maj_at_k"], g.loc[4, "maj_at_k"]) == (50.0, 50.0)  # q0's "1" wins by first sight: ✓


def test_F5b_saturation_and_paper_arithmetic(env):
    res, data, ctx = env
    for model, correct in [("qwen2.5-vl-7b", 1), ("qwen2.5-vl-32b", 2), ("qwen2.5-vl-72b", 2), ("gpt-4o", 3)]:
        rule_runs(res, model, "cot_boxed", data,
                  rows(*[(f"q{i}", i < correct) for i in range(4)]))
    t = omibench_F5b.build("omibench.F5b", ctx)
    assert set(t.table["model"]) == {"qwen2.5-vl-7b", "qwen2.5-vl-32b", "qwen2.5-vl-72b"}  # gpt-4o: no params
    sat = t.extra["Saturation"]
    sat = sat[sat["metric"] == "ACC"].set_index(["family", "axis"])
    assert sat.loc[("qwen2.5-vl", "total"), "saturation_b"] == 32  # 25 → 50 → 50: no gain beyond 32B
    assert any("gpt-4o" in n for n in t.notes)
    # The paper's Table 2 GPTScores (typed in omibench.F5b.csv) through the same rule: InternVL3.5 saturates
    # at 38B (27.31, "around 25%"), Qwen3-VL at 32B (35.78, "around 35%"); against activated parameters
    # neither saturates ("a positive, near-linear trend").
    paper = ref("omibench.F5b").rename(columns={"paper_model": "model", "value": "acc"})
    s = omibench_F5b.saturation(paper[paper["metric"] == "GPTScore"]).set_index(["family", "axis"])
    assert s.loc[("internvl3.5", "total"), "saturation_b"] == 38
    assert s.loc[("qwen3-vl", "total"), "saturation_b"] == 32
    assert s.loc[("qwen3-vl", "total"), "score_at_saturation"] == pytest.approx(35.78)
    assert math.isnan(s.loc[("internvl3.5", "activated"), "saturation_b"])
    assert math.isnan(s.loc[("qwen3-vl", "activated"), "saturation_b"])
    assert math.isnan(s.loc[("qwen2.5-vl", "total"), "saturation_b"])  # keeps improving to 72B


def test_family_of():
    f = omibench_F5b.family_of
    assert f("qwen3-vl-32b") == f("qwen3-vl-8b-instruct") == f("qwen3-vl-235b-a22b") == "qwen3-vl"
    assert f("qwen3-vl-8b-thinking") == "qwen3-vl-thinking" and f("internvl3.5-8b") == "internvl3.5"
    assert f("gpt-4o") == "gpt-4o"


def icl_run(res, data, setting, verdicts, excluded, model="m"):
    rule_runs(res, model, setting, data, rows(*verdicts))
    manifest_of(raw_path(res, "omibench", model, setting)).write_text(json.dumps({"excluded_ids": excluded}))


def test_F6a_same_items_demos_excluded(env):
    res, data, ctx = env
    rule_runs(res, "m", "cot_boxed", data,
              rows(("q0", True), ("q1", True), ("q2", True), ("q3", False), ("q4", False), ("q5", None)))
    icl_run(res, data, "icl+shots3+demos-none", [("q2", True), ("q3", True), ("q4", True), ("q5", False)], ["q0", "q1"])
    icl_run(res, data, "icl+shots3+demos-first", [("q2", True), ("q3", False), ("q4", "err"), ("q5", False)], ["q0", "q1"])
    icl_run(res, data, "icl+shots3+demos-all", [("q2", True), ("q3", True), ("q4", False), ("q5", False)], ["q0", "q1"])
    t = omibench_F6a.build("omibench.F6a", ctx)
    row = t.table[t.table["metric"] == "ACC"].iloc[0]
    assert (row["items"], row["demo_items_excluded"]) == (4, 2)
    assert row["Zero-shot"] == 25.0  # q2..q5 only (q0, q1 are demos), q5 failed: 1 of 4
    assert (row["No-Image ICL"], row["Multi-Image ICL"]) == (75.0, 50.0)
    assert row["Single-Image ICL"] == 25.0  # the judge error is not correct
    fails = t.extra["Failures and accuracy over scored items"]
    fails = fails[fails["metric"] == "ACC"].set_index("condition")
    assert fails.loc["Single-Image ICL", "judge_error"] == 1 and fails.loc["Zero-shot", "no_response"] == 1
    assert fails.loc["Zero-shot", "acc_scored"] == pytest.approx(100 / 3)


def test_T10_systems_scored_by_both_rules(env, monkeypatch):
    res, data, ctx = env
    sysdir = res.parent / "systems"
    sysdir.mkdir()
    (sysdir / "gpt-4o+visual-sketchpad.jsonl").write_text("\n".join(json.dumps(x) for x in [
        # q1 (gold 2): "x = 2" is no number to C.1's parser and not the string "2"; the careful rule reads it
        {"id": "q0", "response": "so \\boxed{1}", "correct": True},
        {"id": "q1", "response": "\\boxed{x = 2}", "correct": True},
        {"id": "q2", "response": None}, {"id": "zz", "response": "\\boxed{1}"}]) + "\n")
    (sysdir / "EXAMPLE.jsonl").write_text('{"id": "q0", "response": "x"}\n')  # never read
    monkeypatch.setattr(T10, "SYSTEMS", sysdir)
    rule_runs(res, "gpt-4o", "cot_boxed", data,
              rows(("q0", True), ("q1", False), ("q2", True), ("q3", False)))
    ctx = Context(ctx.results, ctx.figures, data={"omibench": data})
    t = T10.build("omibench.T10", ctx)
    tab = t.table.set_index("model")
    assert list(tab.index) == ["gpt-4o", "gpt-4o+visual-sketchpad"]
    assert tab.loc["gpt-4o+visual-sketchpad", "ACC Total"] == pytest.approx(100 / 3)  # q0 ✓, q1 ✗, q2 failed
    assert tab.loc["gpt-4o+visual-sketchpad", "ACC careful Total"] == pytest.approx(200 / 3)  # q1 ✓
    gap = t.extra[RULE_GAP].set_index("model").loc["gpt-4o+visual-sketchpad"]
    assert (gap["only_c1_correct"], gap["only_careful_correct"], gap["both_judged"]) == (0, 1, 3)
    assert tab.loc["gpt-4o+visual-sketchpad", "GPTScore Total"] == pytest.approx(200 / 3)  # the imported verdicts
    assert tab.loc["gpt-4o+visual-sketchpad", "ΔACC Total"] == pytest.approx(100 / 3 - 50)  # base: 2 of 4
    fails = t.extra["Failures and accuracy over scored items"].set_index(["model", "metric"])
    assert fails.loc[("gpt-4o+visual-sketchpad", "ACC"), "no_response"] == 1
    assert fails.loc[("gpt-4o+visual-sketchpad", "ACC"), "acc_scored"] == 50.0
    assert any("'zz'" in n for n in t.notes)
    assert T10.build("omibench.F6bc", ctx).figure.exists()
    (sysdir / "bad.jsonl").write_text('{"response": "no id"}\n')
    with pytest.raises(MissingInputs, match="bad.jsonl:1"):
        T10.build("omibench.T10", ctx)


def paper_totals_check(table_id: str) -> dict[tuple, float]:
    """Paper Total minus the micro-average of the paper's subject values (sizes from Figure 2)."""
    out = {}
    for (m, metric), g in ref(table_id).groupby(["paper_model", "metric"]):
        v = g.set_index("subject")["value"]
        out[(m, metric)] = v["Total"] - micro_average([v[s] for s in SUBJECTS], [SIZES[s] for s in SUBJECTS])
    return out


def test_paper_totals_are_micro_averages():
    # Tables 9 and 10: every Total is the size-weighted mean of its subjects to within 0.06 points …
    for table_id in ("omibench.T9", "omibench.T10"):
        for (model, metric), diff in paper_totals_check(table_id).items():
            if model != "GPT-4o":
                assert abs(diff) < 0.07, (table_id, model, metric, diff)
    # … except GPT-4o (the same row as Tables 2 and 6): its subjects give ACC 29.14 and Score 24.66, the
    # paper prints 24.05 and 24.88.
    gpt4o = paper_totals_check("omibench.T10")
    assert gpt4o[("GPT-4o", "ACC")] == pytest.approx(24.05 - 29.14, abs=0.01)
    assert gpt4o[("GPT-4o", "GPTScore")] == pytest.approx(24.88 - 24.66, abs=0.01)


def test_T9_deltas_and_paper_names(env):
    res, data, ctx = env
    for model, n in [("qwen3-vl-8b-instruct", 2), ("qwen3-vl-8b-instruct-sft-cmmcot", 3), ("qwen3-vl-8b-instruct-sft-mmdu", 1)]:
        rule_runs(res, model, "cot_boxed", data, rows(*[(f"q{i}", i < n) for i in range(4)]))
    t = omibench_T9.build("omibench.T9", ctx)
    assert list(t.table["variant"]) == ["base", "+ cmmcot", "+ mmdu"]
    d = t.extra["Δ vs base"]
    total = d[(d["subject"] == "Total") & (d["metric"] == "ACC")].set_index("variant")["delta"]
    assert (total["+ cmmcot"], total["+ mmdu"]) == (25.0, -25.0)
    vs = t.vs_paper[(t.vs_paper["subject"] == "Total") & (t.vs_paper["metric"] == "ACC")].set_index("model")
    assert vs.loc["qwen3-vl-8b-instruct", "paper"] == 26.74  # Table 9's base, "Qwen3-VL-8B-Instruct"
    assert vs.loc["qwen3-vl-8b-instruct-sft-cmmcot", "paper"] == 28.86
    assert "No judged cot_boxed run of internvl3.5-8b, internvl3.5-8b-sft-cmmcot, internvl3.5-8b-sft-mmdu." in t.notes
    # The paper's text: "Total ACC 26.59 → 28.11 and 26.74 → 28.86"; MMDU "slight degradation (~0.5–1%)".
    p = ref("omibench.T9").rename(columns={"value": "acc"})
    p["model"] = p["paper_model"]
    p[["backbone", "variant"]] = [(m.split(" + ")[0], "+ " + m.split(" + ")[1] if " + " in m else "base") for m in p["model"]]
    pd_ = omibench_T9.deltas(p)
    acc = pd_[(pd_["metric"] == "ACC") & (pd_["subject"] == "Total")].set_index(["backbone", "variant"])["delta"]
    assert acc[("InternVL3.5-8B", "+ CMMCoT")] == pytest.approx(1.52)
    assert acc[("Qwen3-VL-8B-Instruct", "+ CMMCoT")] == pytest.approx(2.12)
    assert -1 <= acc[("Qwen3-VL-8B-Instruct", "+ MMDU")] <= -0.5 and -1 <= acc[("InternVL3.5-8B", "+ MMDU")] <= -0.5


def test_paper_table5_acc_is_not_table2s_while_gptscore_agrees():
    """The paper's Table 5 ACC (Gemini-3-Pro-Preview, per evaluator) is about 8 points below Table 2's C.1 ACC of
    the same model, while GPTScore agrees within 0.5: our T5 notes say so, with these numbers."""
    t2 = load_reference("omibench.T2").set_index(["paper_model", "metric", "subject"])["value"]
    t5 = load_reference("omibench.T5")
    t5 = t5[t5["stat"] == "mean"].set_index(["paper_model", "metric", "evaluator", "subject"])["value"]
    model = "Gemini-3-Pro-Preview"
    assert t2[(model, "ACC", "Total")] == 42.79 and t2[(model, "GPTScore", "Total")] == 50.53
    assert [t5[(model, "ACC", e, "Total")] for e in ("gemini-2.5-flash", "gpt-5-mini")] == [34.66, 34.75]
    assert [t5[(model, "GPTScore", e, "Total")] for e in ("gemini-2.5-flash", "gpt-5-mini")] == [50.98, 50.80]
    for e in ("gemini-2.5-flash", "gpt-5-mini"):
        assert t2[(model, "ACC", "Total")] - t5[(model, "ACC", e, "Total")] > 8
        assert abs(t2[(model, "GPTScore", "Total")] - t5[(model, "GPTScore", e, "Total")]) < 0.5
        # C.1 asks no evaluator, yet Table 5's ACC differs by evaluator in every subject
        assert all(t5[(model, "ACC", "gemini-2.5-flash", s)] != t5[(model, "ACC", "gpt-5-mini", s)]
                   for s in ("Biology", "Chemistry", "Mathematics", "Physics"))
    for number in ("34.66", "34.75", "42.79", "50.98", "50.80", "50.53"):
        assert number in omibench_T5.PAPER_ACC_NOTE


def test_T5_three_runs_two_evaluators_of_its_own_experiment(env):
    res, data, ctx = env
    s = "cot_boxed+temp0.6"
    ev_a, ev_b = "gemini-2.5-flash", "gpt-5-mini"   # configs/experiments/omibench_T5.yaml's judge models
    per_run = [[True, False, True], [True, True, True], [False, False, None], [True, True, True]]  # run 3 unused
    for idx, vs in enumerate(per_run):
        rule_runs(res, "gemini-3-pro", s, data, rows(*[(f"q{i}", v) for i, v in enumerate(vs)], idx=idx))
        # both evaluators' verdicts in one file, interleaved: told apart by the judge model of each line
        judge_lines(res, "gemini-3-pro", s, data, ev_a, {f"q{i}": True for i in range(3)}, idx=idx)
        judge_lines(res, "gemini-3-pro", s, data, ev_b, {"q0": idx == 0, "q1": False, "q2": "err" if idx == 1 else False}, idx=idx,
                    flagged={"q1"} if idx < 2 else ())  # q1 addressed the judge in runs 0 and 1
    for idx in range(5):  # the significance experiment's runs of the same setting are not Table 5's
        rule_runs(res, "qwen3-vl-32b", s, data, rows(("q0", True), idx=idx))
    t = omibench_T5.build("omibench.T5", ctx)
    assert set(t.table["model"]) == {"gemini-3-pro"}
    assert all("qwen3-vl-32b" not in str(r.path) for r in t.provenance.runs)
    tab = t.table.set_index(["metric", "evaluator"])
    accs = [200 / 3, 100.0, 0.0]  # run 2: q2 failed, 0 of 2
    for rule in (("ACC", "omibench_c1"), ("ACC careful", "rules")):   # the same verdicts here
        assert tab.loc[rule, "Total Mean"] == pytest.approx(np.mean(accs))
        assert tab.loc[rule, "Total Std"] == pytest.approx(np.std(accs, ddof=1))
        assert tab.loc[rule, "Biology Mean"] == pytest.approx(np.mean([50, 100, 0]))
        assert tab.loc[rule, "no_response"] == 1 and tab.loc[rule, "repeats"] == 3
    assert (tab.loc[("GPTScore", ev_a), "Total Mean"], tab.loc[("GPTScore", ev_a), "Total Std"]) == (100, 0)
    assert tab.loc[("GPTScore", ev_b), "Total Mean"] == pytest.approx(np.mean([100 / 3, 0, 0]))
    assert tab.loc[("GPTScore", ev_b), "judge_error"] == 1
    assert (tab.loc[("GPTScore", ev_b), "flagged"], tab.loc[("GPTScore", ev_a), "flagged"]) == (2, 0)  # in the table
    assert t.notes[-1] == f"GPTScore evaluators found: {ev_a}, {ev_b}."
    # the paper's ACC is printed under each evaluator: our one rule-judge ACC sits beside both
    vs = t.vs_paper[(t.vs_paper["subject"] == "Total") & (t.vs_paper["stat"] == "mean")].set_index(["metric", "evaluator"])
    assert list(vs.loc[("ACC", ev_a), ["ours", "paper"]]) == [pytest.approx(np.mean(accs)), 34.66]
    assert vs.loc[("ACC", ev_b), "paper"] == 34.75 and vs.loc[("GPTScore", ev_b), "paper"] == 50.80


def test_T5_says_which_judge_model_is_missing(env):
    res, data, ctx = env
    rule_runs(res, "gemini-3-pro", "cot_boxed+temp0.6", data, rows(("q0", True)))
    judge_lines(res, "gemini-3-pro", "cot_boxed+temp0.6", data, "gpt-5-mini", {"q0": True})
    assert "not yet judged by gemini-2.5-flash" in omibench_T5.build("omibench.T5", ctx).notes[-1]
    other = res.parent / "other"   # only the significance experiment's runs of the setting: nothing for Table 5
    rule_runs(other, "qwen3-vl-32b-thinking", "cot_boxed+temp0.6", data, rows(("q0", True)))
    with pytest.raises(MissingInputs, match="omibench.T5"):
        omibench_T5.build("omibench.T5", Context(other, res))


def test_T7_spearman_per_evaluator(env, monkeypatch):
    res, data, ctx = env
    rule_runs(res, "m", "cot_boxed", data, rows(("q0", True), ("q1", False), ("q2", True), ("q3", False)))
    judge_lines(res, "m", "cot_boxed", data, "e1", {"q0": True, "q1": False, "q2": True, "q3": False})
    judge_lines(res, "m", "cot_boxed", data, "e2", {"q0": False, "q1": True, "q2": False, "q3": "err"})
    csv = res.parent / "ratings.csv"
    csv.write_text("model,setting,id,rater,rating\n" + "".join(
        f"m,cot_boxed,{i},{r},{v}\n" for i, r, v in [("q0", "a", 5), ("q0", "b", 5), ("q1", "a", 1), ("q2", "a", 4), ("q3", "a", 2)]))
    monkeypatch.setattr(T7, "RATINGS", csv)
    t = T7.build("omibench.T7", ctx)
    tab = t.table.set_index("evaluator")
    assert tab.loc["e1", "rho"] == pytest.approx(2 / math.sqrt(5))  # ranks (4,1,3,2) vs (3.5,1.5,3.5,1.5)
    assert tab.loc["e2", "rho"] == pytest.approx(-1.5 / math.sqrt(3))  # q3's judge error left out
    assert (tab.loc["e2", "paired"], tab.loc["e2", "judge_error"]) == (3, 1)
    assert tab.loc["rules", "rho"] == pytest.approx(2 / math.sqrt(5))


def test_T8_humans_vs_best_full_coverage_model(env, monkeypatch):
    res, data, ctx = env
    csv = res.parent / "answers.csv"
    csv.write_text("participant,group,id,response,correct\n"
                   "E,expert,q0,1,\nE,expert,q1,2,\nE,expert,q2,3,\nE,expert,q3,wrong,1\n"
                   "N,non-expert,q0,1,\nN,non-expert,q1,,\nN,non-expert,q2,7,\nN,non-expert,q3,4,0\n")
    monkeypatch.setattr(T8, "ANSWERS", csv)
    rule_runs(res, "m1", "cot_boxed", data, rows(("q0", True), ("q1", True), ("q2", False), ("q3", None), ("q4", True)))
    rule_runs(res, "m2", "cot_boxed", data, rows(("q0", True), ("q1", True), ("q2", True)))
    t = T8.build("omibench.T8", Context(ctx.results, ctx.figures, data={"omibench": data}))
    tab = t.table[t.table["metric"] == "ACC"].set_index("participant")
    assert tab.loc["E", "acc"] == 100.0 and tab.loc["N", "acc"] == 25.0  # blank answer is wrong; grader's 0 wins
    assert tab.loc["m1", "acc"] == 50.0 and tab.loc["m1", "items"] == 4  # q3 failed: not correct
    assert tab.loc["E", "gap_to_best_model"] == 50.0  # m2 answered 3 of 4 items: not eligible as best
    models = t.extra["Every model on the subset"]
    assert models[models["metric"] == "ACC"].set_index("model").loc["m1", "acc_scored"] == pytest.approx(200 / 3)
    # Paper (Table 8, 52 items): experts 43 and 42, non-experts 30 and 32 correct; best model 25.
    ids = [f"x{i}" for i in range(52)]
    humans = pd.DataFrame([{"group": g, "participant": p, "id": i, "correct": k < c} for g, p, c in
                           [("expert", "Human Expert A", 43), ("expert", "Human Expert B", 42),
                            ("non-expert", "Human Non-expert A", 30), ("non-expert", "Human Non-expert B", 32)]
                           for k, i in enumerate(ids)])
    g = T8.gap_table(humans, 100 * 25 / 52).set_index("participant")
    paper = ref("omibench.T8").set_index("paper_model")["value"]
    for p in ["Human Expert A", "Human Expert B", "Human Non-expert A"]:
        assert g.loc[p, "acc"] == pytest.approx(paper[p], abs=0.005)
    assert g.loc["Human Non-expert B", "acc"] - paper["Human Non-expert B"] == pytest.approx(0.01, abs=0.005)  # 61.538 printed 61.53
    assert 100 * 25 / 52 == pytest.approx(paper["Gemini-3-Pro"], abs=0.005)
    assert g.loc["expert (mean)", "gap_to_best_model"] > 30  # "a gap of more than 30 points to experts"
    assert 10 <= g.loc["non-expert (mean)", "gap_to_best_model"] < 12  # "around 10 points even to non-experts"


def test_F16_quadrants_and_review_sheet(env):
    res, data, ctx = env
    # C.4 analyses the published rule (C.1): it accepts q2, which the careful rule rejects
    rule_runs(res, "m", "cot_boxed", data, rows(("q0", True), ("q1", True), ("q2", False), ("q3", False)),
              c1=rows(("q0", True), ("q1", True), ("q2", True), ("q3", False)))
    judge_lines(res, "m", "cot_boxed", data, "e1", {"q0": True, "q1": False, "q2": True, "q3": "err"})
    t = omibench_F16.build("omibench.F16", ctx)
    row = t.table.iloc[0]
    assert (row["both correct"], row["both incorrect"], row["model correct, rule incorrect"],
            row["model incorrect, rule correct"], row["items"], row["model_judge_failures"]) == (2, 0, 0, 1, 3, 1)
    assert row["agreement"] == pytest.approx(200 / 3)   # %, like the accuracies beside it: 2 of 3 items agree
    assert (row["rule_acc"], row["model_acc"]) == (75.0, 50.0)   # C.1: 3 of 4; the judge error is not correct
    assert row["model_acc_scored"] == pytest.approx(200 / 3)
    sample = t.extra["Disagreement sample for review"]
    assert list(sample["id"]) == ["q1"] and sample["gold"].iloc[0] == ["2"]
    assert table_file(res, "omibench.F16", "disagreements.jsonl").read_text().count("\n") == 1


def test_sig_runs_the_papers_three_tests_on_their_experiments(env):
    res, data, ctx = env
    s = "cot_boxed+temp0.6"
    think, inst = "qwen3-vl-32b-thinking", "qwen3-vl-32b"   # Appendix J's pair (configs/experiments/omibench_sig.yaml)
    for idx in range(2):
        rule_runs(res, think, s, data, rows(*[(f"q{i}", not (i == 3 and idx == 1)) for i in range(4)], idx=idx))
        rule_runs(res, inst, s, data, rows(*[(f"q{i}", False) for i in range(4)], idx=idx))
    for idx in range(3):   # Table 5's runs of the same setting: no test of the paper's
        rule_runs(res, "gemini-3-pro", s, data, rows(*[(f"q{i}", True) for i in range(4)], idx=idx))
    # F5c's 16-sample run of Qwen3-VL-32B-Instruct: q0, q1 always right; q2, q3 wrong only in sample 0
    rule_runs(res, inst, "cot_boxed+temp0.6+max16384", data, [
        {"id": f"q{i}", "sample_idx": j, "correct": not (i > 1 and j == 0), "extracted": "x" if i > 1 and j == 0 else str(i + 1)}
        for i in range(4) for j in range(16)])
    rule_runs(res, inst, "cot_boxed", data, rows(*[(f"q{i}", i == 0) for i in range(6)]))
    icl_run(res, data, "icl+shots3+demos-none", [(f"q{i}", i > 1) for i in range(1, 6)], ["q0", "q1"], model=inst)
    icl_run(res, data, "icl+shots3+demos-none", [(f"q{i}", True) for i in range(6)], [])   # not F6a's model
    rule_runs(res, "m", "cot_boxed", data, rows(*[(f"q{i}", False) for i in range(6)]))
    t = omibench_sig.build("omibench.sig", ctx)
    assert set(t.table["metric"]) == {"ACC", "ACC careful"}
    tab = t.table[t.table["metric"] == "ACC"].set_index("comparison")
    assert list(tab.index) == ["thinking vs instruct", "16 vs 1 samples", "3-shot vs 0-shot"]
    row = tab.loc["thinking vs instruct"]
    assert (row["a"], row["b"]) == (f"{think} {s}", f"{inst} {s}")
    assert (row["pairs"], row["only_a"], row["only_b"]) == (8, 7, 0)
    assert row["mcnemar_p"] == pytest.approx(2 * 0.5 ** 7)
    assert row["diff"] == pytest.approx(87.5)  # per-item means 1, 1, 1, 0.5 vs 0
    assert 0.08 < row["permutation_p"] < 0.18  # 2 of 16 sign patterns are as extreme
    maj = tab.loc["16 vs 1 samples"]
    assert (maj["a"], maj["items"], maj["acc_a"], maj["acc_b"], maj["only_a"], maj["only_b"]) == (
        f"{inst} maj@16", 4, 100.0, 50.0, 2, 0)
    icl = tab.loc["3-shot vs 0-shot"]  # q0, q1 are demonstrations: dropped, so q0's zero-shot win is gone
    assert icl["a"] == f"{inst} icl+shots3+demos-none"
    assert (icl["items"], icl["acc_a"], icl["acc_b"], icl["only_a"], icl["only_b"]) == (4, 100.0, 0.0, 4, 0)
    assert omibench_sig.pairs_of(omibench_sig.SIG) == [(think, inst)]


def test_sig_pairs_failed_answers_as_not_correct(env):
    res, data, ctx = env
    rule_runs(res, "qwen3-vl-32b-thinking", "cot_boxed", data,   # Table 4's single run
              rows(*[(f"q{i}", True) for i in range(4)]))
    rule_runs(res, "qwen3-vl-32b", "cot_boxed", data,
              rows(("q0", None), ("q1", "err"), ("q2", False), ("q3", True)))
    table = omibench_sig.build("omibench.sig", ctx).table
    think = table[table["metric"] == "ACC careful"].set_index("comparison").loc["thinking vs instruct"]
    # every answer both ran is a pair; the instruct model's failures are not correct
    assert (think["pairs"], think["only_a"], think["only_b"]) == (4, 3, 0)
    assert (think["acc_a"], think["acc_b"]) == (100.0, 25.0)
