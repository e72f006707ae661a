"""OMIBench tables, part A (T2, F2, T4/F4c, F4a/F4b, F3a/F3d, F3b, F3c, T6): built from hand-made judged
files with hand-computed numbers, and the paper's own totals recomputed from its subject columns."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.cells import shown_columns
from analysis.omibench import (F2 as omibench_F2, F3a_F3d as omibench_F3a_F3d, F3b as omibench_F3b,
                               F3c as omibench_F3c, F4a_F4b as omibench_F4a_F4b, T2 as omibench_T2,
                               T4_F4c as omibench_T4_F4c)
from analysis.omibench import T6 as omibench_T6
from analysis.omibench.metrics import RULE_GAP
from analysis.omibench.subjects import SIZES, SUBJECTS, micro_total, per_subject
from analysis.reference import REFERENCE, load_reference
from analysis.stats import micro_average
from analysis.table import Context, MissingInputs, write
from analysis.uncertainty import wilson
from infer.layout import judged_path
from pipeline.experiments import EXPERIMENTS, load_experiment
from tests.analysis_fixtures import make_run, write_data

GPT = "omibench_gptscore"
# Eight items, two per subject; q{i} has IMAGES[i] images.
SUBJ = ["Biology", "Biology", "Chemistry", "Chemistry", "Mathematics", "Mathematics", "Physics", "Physics"]
IMAGES = [1, 2, 3, 4, 5, 6, 7, 2]


@pytest.fixture
def data(tmp_path):
    return write_data(tmp_path / "d.jsonl", [
        {"id": f"q{i}", "benchmark": "omibench", "subject": s, "images": [f"{i}.png"] * k}
        for i, (s, k) in enumerate(zip(SUBJ, IMAGES))])


def run(res, model, setting, data, correct, judge=None, failed=(), c1=None):
    """correct: the q-indices answered right; failed: q-indices with no response; items = len(IMAGES). Without
    `judge`, both rule judges: the careful one (rules) with `correct`, C.1's (omibench_c1) with `c1` if given."""
    judges = [(judge, correct)] if judge else [("rules", correct), ("omibench_c1", correct if c1 is None else c1)]
    for name, right in judges:
        rows = [{"id": f"q{i}", "status": "no_response"} if i in failed else {"id": f"q{i}", "correct": i in right}
                for i in range(len(IMAGES))]
        make_run(res, "omibench", model, setting, name, data, rows)


def ctx(tmp_path):
    return Context(tmp_path / "results", tmp_path / "fig")


# --- the paper's own arithmetic -------------------------------------------------------------------

# Totals of the paper's Table 2 that are NOT its subject columns weighted by 251/217/430/424.
T2_INCONSISTENT = {("GPT-4o", "ACC"): 29.29, ("InternVL3.5-1B", "ACC"): 20.99, ("OpenAI-o4-mini", "ACC"): 33.18}


def paper_totals(table_id):
    """(paper_model, metric) → (Total from the subjects by the code our tables use, the paper's Total)."""
    ref = load_reference(table_id)
    assert set(ref["subject"]) == {*SUBJECTS, "Total"}
    sizes = ref["subject"].map(SIZES)
    subj = ref[ref["subject"] != "Total"].assign(judged=sizes, scored=sizes, no_response=0, judge_error=0,
                                                 acc=lambda d: d["value"], acc_scored=lambda d: d["value"])
    ours = micro_total(subj, ["paper_model", "metric"]).set_index(["paper_model", "metric"])["acc"]
    paper = ref[ref["subject"] == "Total"].set_index(["paper_model", "metric"])["value"]
    return {k: (ours[k], paper[k]) for k in paper.index}


def test_paper_table2_totals_are_micro_averages_of_its_subjects():
    assert SUBJECTS == ["Biology", "Chemistry", "Mathematics", "Physics"]  # the paper's column order
    assert sum(SIZES.values()) == 1322
    totals = paper_totals("omibench.T2")
    assert len(totals) == 31 * 2
    for key, (ours, paper) in totals.items():
        if key in T2_INCONSISTENT:
            assert ours == pytest.approx(T2_INCONSISTENT[key], abs=0.005) and abs(ours - paper) > 0.01
        else:  # subject values and the total are each rounded to 0.01: at most 0.005 + 0.005 apart
            assert abs(ours - paper) <= 0.01 + 1e-9, key
    # GPT-5 by hand with the framework's micro_average: (68.13·251 + 23.96·217 + 39.30·430 + 20.52·424) / 1322
    assert micro_average([68.13, 23.96, 39.30, 20.52], [251, 217, 430, 424]) == pytest.approx(36.23, abs=0.005)


def test_paper_table4_totals_and_its_instruct_rows_repeat_table2():
    for key, (ours, paper) in paper_totals("omibench.T4").items():
        assert abs(ours - paper) <= 0.01 + 1e-9, key
    t2, t4 = (load_reference(i).set_index(["paper_model", "metric", "subject"])["value"] for i in
              ("omibench.T2", "omibench.T4"))
    shared = [k for k in t4.index if k in t2.index]
    assert len(shared) == 6 * 2 * 5 and all(t2[k] == t4[k] for k in shared)


def test_reference_files_map_to_configs():
    aliases = pd.read_csv(REFERENCE / "aliases_omibench.csv")
    configs = {p.stem for p in (REFERENCE.parents[1] / "configs" / "models" / "paper").glob("*.yaml")}
    assert set(aliases["model"]) <= configs


# --- our tables from hand-made runs ---------------------------------------------------------------

def test_T2_subject_order_micro_total_and_failures(tmp_path, data):
    res = tmp_path / "results"
    # C.1's rule also accepts q3 (a Chemistry answer the careful rule rejects)
    run(res, "gpt-4o", "cot_boxed", data, correct={0, 1, 2, 4}, c1={0, 1, 2, 3, 4}, failed={7})
    run(res, "gpt-4o", "cot_boxed", data, correct={0}, judge=GPT)
    t = omibench_T2.build("omibench.T2", ctx(tmp_path))
    paper = t.vs_paper.set_index(["metric", "subject"])
    assert paper.loc[("ACC", "Total"), "paper"] == 24.05 and paper.loc[("GPTScore", "Total"), "paper_model"] == "GPT-4o"
    assert list(shown_columns(t.table).columns) == ["model"] + [f"{m} {s}" for s in [*SUBJECTS, "Total"]
                                                                for m in ("ACC", "ACC careful", "GPTScore")]
    assert t.table.iloc[0]["ACC careful Total ci_lo"] == pytest.approx(wilson(4, 8)[0][0])  # 4 of 8, Wilson
    row = t.table.iloc[0]
    assert (row["ACC careful Biology"], row["ACC careful Chemistry"], row["ACC careful Physics"]) == (100.0, 50.0, 0.0)
    assert row["ACC careful Total"] == 50.0  # 4 correct of all 8 items; q7 failed: not correct, and counted below
    assert (row["ACC Chemistry"], row["ACC Total"]) == (100.0, 62.5)   # C.1: 5 of 8
    assert row["GPTScore Total"] == pytest.approx(100 / 8)
    fail = t.extra["Failures"].set_index("metric").loc["ACC careful"]
    assert (fail["judged"], fail["scored"], fail["no_response"]) == (8, 7, 1)
    assert fail["acc_scored"] == pytest.approx(400 / 7)
    # the paper's ACC is C.1's: ours by C.1 beside it, the careful rule's beside that
    total = t.vs_paper.set_index(["metric", "subject"]).loc[("ACC", "Total")]
    assert (total["ours"], total["ours_careful"], total["diff"]) == (62.5, 50.0, pytest.approx(62.5 - 24.05))
    assert np.isnan(t.vs_paper.set_index(["metric", "subject"]).loc[("GPTScore", "Total"), "ours_careful"])
    gap = t.extra[RULE_GAP].set_index("model").loc["gpt-4o"]
    assert (gap["acc_c1"], gap["acc_careful"], gap["both_judged"]) == (62.5, 50.0, 8)
    assert (gap["only_c1_correct"], gap["only_careful_correct"], gap["c1_missing"]) == (1, 0, 0)


def test_T2_says_which_runs_lack_the_published_rule_and_keeps_them(tmp_path, data):
    res = tmp_path / "results"
    run(res, "gpt-4o", "cot_boxed", data, correct={0, 1}, c1={0, 2, 3})     # q1: careful only; q2, q3: C.1 only
    run(res, "old", "cot_boxed", data, correct={0}, judge="rules")           # judged before C.1 was: no C.1 verdicts
    t = omibench_T2.build("omibench.T2", ctx(tmp_path))
    rows = t.table.set_index("model")
    assert set(rows.index) == {"gpt-4o", "old"} and np.isnan(rows.loc["old", "ACC Total"])
    assert rows.loc["old", "ACC careful Total"] == 12.5
    gap = t.extra[RULE_GAP].set_index("model")
    assert tuple(gap.loc["gpt-4o", ["only_c1_correct", "only_careful_correct", "c1_missing"]]) == (2, 1, 0)
    assert tuple(gap.loc["old", ["both_judged", "c1_missing"]]) == (0, 8) and np.isnan(gap.loc["old", "acc_c1"])
    assert any("no omibench_c1 verdict" in n and "old: 8" in n for n in t.notes)
    fails = t.extra["Failures"].set_index(["model", "metric"])
    assert fails.loc[("old", "ACC"), "judged"] == 0 and np.isnan(fails.loc[("old", "ACC"), "acc"])


def test_micro_total_weights_subjects_by_all_their_items():
    # Biology: 1 correct, 2 failed requests; Physics: 1 wrong. Weighting by scored items (1 and 1) would
    # give (33.3 + 0) / 2 = 16.7; the paper's Total over N is 1 correct of 4 items.
    df = pd.DataFrame([("m", "Biology", "ok", True), ("m", "Biology", "no_response", None),
                       ("m", "Biology", "no_response", None), ("m", "Physics", "ok", False)],
                      columns=["model", "subject", "status", "correct"])
    total = per_subject(df, "ACC").set_index("subject").loc["Total"]
    assert total["acc"] == pytest.approx(25.0) and total["acc_scored"] == pytest.approx(50.0)
    assert (total["judged"], total["scored"], total["no_response"]) == (4, 2, 2)


def test_F2_statistics(tmp_path):
    path = write_data(tmp_path / "d.jsonl", [
        {"id": "a", "benchmark": "omibench", "subject": "Biology", "images": ["x", "y"], "answer_type": "mcq",
         "question": "Which [IMAGE0] one [IMAGE1]", "solution": "one two three"},
        {"id": "b", "benchmark": "omibench", "subject": "Physics", "images": ["x", "y", "z", "w"],
         "answer_type": "open", "question": "a b c d e f", "solution": "s"},
        {"id": "c", "benchmark": "omibench", "subject": "Physics", "images": ["x", "y", "z"],
         "answer_type": "open", "question": "a b"}])
    t = omibench_F2.build("omibench.F2", Context(tmp_path / "results", tmp_path / "fig", data={"omibench": path}))
    stat = t.table.set_index("subject")
    assert list(stat.index) == ["Biology", "Physics", "All"]
    assert stat.loc["All", "items"] == 3 and stat.loc["Physics", "avg images"] == 3.5
    assert stat.loc["All", "avg images"] == 3.0 and stat.loc["All", "multiple-choice items"] == 1
    assert stat.loc["All", "with rationale (%)"] == pytest.approx(200 / 3)
    assert stat.loc["All", "avg question length"] == pytest.approx((2 + 6 + 2) / 3)  # tags are not words
    assert stat.loc["All", "avg rationale length"] == 2.0  # over items with a rationale
    paper = t.vs_paper.set_index(["subject", "statistic"])
    assert paper.loc[("All", "items"), "paper"] == 1322 and paper.loc[("Physics", "avg images"), "paper"] == 3.34
    assert t.figure.exists()


def test_T4_pairs_are_the_experiments_six_sizes():
    exp = load_experiment(EXPERIMENTS / "omibench_T4.yaml")
    assert omibench_T4_F4c.pairs_of(omibench_T4_F4c.EXPERIMENT) == [tuple(p) for p in exp.pairs]
    assert len(exp.pairs) == 6 and sorted(m for p in exp.pairs for m in p) == sorted(exp.models)
    assert all(think.endswith("-thinking") and not instruct.endswith("-thinking") for think, instruct in exp.pairs)


def test_T4_F4c_thinking_vs_instruct_every_size(tmp_path, data):
    res = tmp_path / "results"
    run(res, "qwen3-vl-32b", "cot_boxed", data, correct={0, 1})
    run(res, "qwen3-vl-32b-thinking", "cot_boxed", data, correct={0, 1, 2})
    run(res, "qwen3-vl-8b-instruct", "cot_boxed", data, correct={0})
    run(res, "qwen3-vl-8b-thinking", "cot_boxed", data, correct={0, 1, 2, 3}, failed={7})
    run(res, "qwen3-vl-2b", "cot_boxed", data, correct=set())          # its thinking side not run: no Δ
    run(res, "other", "cot_boxed", data, correct=set(range(8)))        # in no pair
    t = omibench_T4_F4c.build("omibench.T4", ctx(tmp_path))
    rows = t.table.set_index(["pair", "model"])
    d = omibench_T4_F4c.DELTA
    assert list(rows.index) == [  # the experiment's order of sizes: instruct, thinking, Δ
        ("qwen3-vl-2b-thinking vs qwen3-vl-2b", "qwen3-vl-2b"),
        *[(f"{think} vs {inst}", m) for think, inst in [("qwen3-vl-8b-thinking", "qwen3-vl-8b-instruct"),
                                                        ("qwen3-vl-32b-thinking", "qwen3-vl-32b")]
          for m in (inst, think, d)]]
    assert rows.loc[("qwen3-vl-8b-thinking vs qwen3-vl-8b-instruct", d), "ACC Total"] == pytest.approx(300 / 8)
    assert rows.loc[("qwen3-vl-32b-thinking vs qwen3-vl-32b", d), "ACC Total"] == pytest.approx(100 / 8)
    tests = t.extra["Paired test thinking vs instruct (McNemar, exact)"]
    assert set(tests["metric"]) == {"ACC", "ACC careful"}   # a test per rule (the same verdicts here)
    tests = tests[tests["metric"] == "ACC"].set_index("model")
    test = tests.loc["qwen3-vl-8b-thinking vs qwen3-vl-8b-instruct"]
    assert (test["paired"], test["only_setting"], test["only_baseline"]) == (8, 3, 0)  # q7: failed vs wrong
    assert test["p"] == pytest.approx(0.25)
    assert tests.loc["qwen3-vl-32b-thinking vs qwen3-vl-32b", "only_setting"] == 1
    assert len(tests) == 2 and "qwen3-vl-4b" in t.notes[-1] and "qwen3-vl-2b-thinking" in t.notes[-1]
    # The paper's rows map through OMIBench's aliases ("Qwen3-VL-8B-Instruct" is qwen3-vl-8b-instruct).
    paper = t.vs_paper.set_index(["model", "metric", "subject"])
    assert paper.loc[("qwen3-vl-8b-instruct", "ACC", "Total"), "paper"] == 26.85
    assert paper.loc[("qwen3-vl-8b-thinking", "ACC", "Total"), "paper"] == 35.84
    assert paper.loc[("qwen3-vl-32b-thinking", "ACC", "Total"), "paper"] == 47.34
    assert "other" not in set(t.table["model"]) | set(paper.index.get_level_values(0))
    f = omibench_T4_F4c.build("omibench.F4c", ctx(tmp_path))
    assert f.figure.exists() and set(f.vs_paper["subject"]) == {"Total"}
    assert f.table.set_index(["pair", "model"]).loc[("qwen3-vl-32b-thinking vs qwen3-vl-32b", d), "ACC"] == 12.5
    with pytest.raises(MissingInputs):
        omibench_T4_F4c.build("omibench.T4", Context(tmp_path / "none", tmp_path))


def test_F4a_F4b_strategies_against_default_cot(tmp_path, data):
    res = tmp_path / "results"
    run(res, "m", "cot_boxed", data, correct={0, 1})
    run(res, "m", "least_to_most", data, correct={0, 2, 3, 4, 5}, failed={6})
    run(res, "m", "plan_and_solve", data, correct={0, 1})
    run(res, "m", "vot", data, correct=set(), c1={7})   # C.1's rule accepts q7, the careful rule does not
    run(res, "m", "no_think", data, correct={1})
    t = omibench_F4a_F4b.build("omibench.F4a", ctx(tmp_path))
    row = t.table.iloc[0]
    assert (row["model"], row["metric"], row["VoT"]) == ("m", "ACC", 12.5)
    row = t.table.iloc[1]
    assert row["metric"] == "ACC careful"
    assert (row["Default CoT"], row["Least-to-Most"], row["VoT"]) == (25.0, 62.5, 0.0)  # q6 failed: 5 of 8
    gap = t.extra[RULE_GAP].set_index("setting")
    vot = gap.loc["vot"]
    assert tuple(vot[["acc_c1", "acc_careful", "only_c1_correct", "only_careful_correct"]]) == (12.5, 0, 1, 0)
    assert gap.loc["least_to_most", "only_c1_correct"] == 0 and gap.loc["least_to_most", "both_judged"] == 8
    assert row["Δ Least-to-Most"] == 37.5
    assert row["Δ Plan-and-Solve"] == 0.0 and row["p Plan-and-Solve"] == 1.0
    tests = t.extra["Paired tests against the default CoT (McNemar, exact)"]
    tests = tests[tests["metric"] == "ACC careful"].set_index("setting")
    assert tuple(tests.loc["least_to_most", ["paired", "only_setting", "only_baseline"]]) == (8, 4, 1)
    assert tests.loc["least_to_most", "p"] == pytest.approx(0.375)  # two-sided binomial, 4 of 5 discordant
    assert tests.loc["vot", "p"] == pytest.approx(0.5)
    b = omibench_F4a_F4b.build("omibench.F4b", ctx(tmp_path)).table.iloc[0]
    assert (b["No-Think"], b["Δ No-Think"]) == (12.5, -12.5)


def test_F4a_compares_the_items_every_setting_ran(tmp_path, data):
    res = tmp_path / "results"
    run(res, "m", "cot_boxed", data, correct={0, 7})
    for judge in ("rules", "omibench_c1"):
        make_run(res, "omibench", "m", "vot", judge, data,
                 [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    row = omibench_F4a_F4b.build("omibench.F4a", ctx(tmp_path)).table.iloc[0]
    assert (row["Default CoT"], row["VoT"]) == (50.0, 50.0)  # q0, q1 only


def test_F3b_accuracy_by_image_count(tmp_path, data):
    res = tmp_path / "results"
    run(res, "a", "cot_boxed", data, correct={0, 1, 5})       # images 1, 2, 6
    run(res, "b", "cot_boxed", data, correct={0, 6}, failed={7})  # images 1, 7
    t = omibench_F3b.build("omibench.F3b", ctx(tmp_path))
    assert list(shown_columns(t.table).columns) == ["metric", "model", "1", "2", "3", "4", "5", "≥6"]
    assert list(t.table["metric"]) == ["ACC"] * 3 + ["ACC careful"] * 3    # each rule's pooled row first
    rows = t.table[t.table["metric"] == "ACC"].set_index("model")
    assert list(rows.index)[0] == "all models"
    assert rows.loc["a", "2"] == 50.0 and rows.loc["b", "2"] == 0.0   # q1, q7 have 2 images; b's q7 failed
    assert rows.loc["all models", "2"] == 25.0                         # 1 of 4 predictions, the failure wrong
    per_bin = t.extra["Per bin with failures"].set_index(["metric", "model", "images"])
    assert per_bin.loc[("ACC", "all models", "2"), "acc_scored"] == pytest.approx(100 / 3)
    assert rows.loc["all models", "≥6"] == 50.0 and rows.loc["all models", "1"] == 100.0
    assert t.extra["Items per bin"].set_index("images").loc["≥6", "items"] == 2


def test_F3c_first_image_and_no_image(tmp_path, data):
    res = tmp_path / "results"
    run(res, "m", "cot_boxed", data, correct={0, 1, 2, 3})
    run(res, "m", "cot_boxed+first", data, correct={0})
    run(res, "m", "cot_boxed+text", data, correct=set())
    t = omibench_F3c.build("omibench.F3c", ctx(tmp_path)).table
    t = t[t["metric"] == "ACC"].set_index("items")
    assert t.loc["all", "First image only"] == 12.5 and t.loc["all", "Δ First image only"] == -37.5
    assert t.loc["K > 1", "Default CoT"] == pytest.approx(300 / 7) and t.loc["K > 1", "First image only"] == 0.0
    assert t.loc["all", "p No image"] == pytest.approx(0.125)  # 4 discordant, all one way


def test_T6_composite_vs_multi_image(tmp_path, data):
    res = tmp_path / "results"
    run(res, "gpt-4o", "cot_boxed", data, correct={0, 2})
    run(res, "gpt-4o", "cot_boxed+composite", data, correct={0, 1, 2, 4})
    run(res, "no-composite", "cot_boxed", data, correct={0})
    t = omibench_T6.build("omibench.T6", ctx(tmp_path))
    assert set(t.table["model"]) == {"gpt-4o"}
    rows = t.table.set_index("setting")
    assert list(rows.index) == ["cot_boxed", "cot_boxed+composite", "Δ single − multi"]
    assert rows.loc["Δ single − multi", "ACC Biology"] == 50.0 and rows.loc["Δ single − multi", "ACC Total"] == 25.0
    paper = t.vs_paper.set_index(["setting", "metric", "subject"])
    assert paper.loc[("cot_boxed+composite", "ACC", "Total"), "paper"] == 33.71
    _, md = write("omibench.T6", t, tmp_path)   # every part of it can be written
    assert "Paired test single vs multi" in md.read_text(encoding="utf-8")


def test_F3a_F3d_spearman_with_external_scores(tmp_path, data, monkeypatch):
    res = tmp_path / "results"
    for model, correct in {"a": {0}, "b": {0, 1}, "c": {0, 1, 2}, "d": {0, 1, 2, 3}}.items():
        run(res, model, "cot_boxed", data, correct=correct, judge=GPT)  # GPTScore totals 12.5 < 25 < 37.5 < 50
    ext = tmp_path / "other_benchmarks.csv"
    ext.write_text("model,benchmark,score\na,OlympiadBench,10\nb,OlympiadBench,30\nc,OlympiadBench,20\n"
                   "d,OlympiadBench,40\na,MMIU,60\nb,MMIU,50\nc,MMIU,40\nd,MMIU,30\nz,MMIU,99\n")
    monkeypatch.setattr(omibench_F3a_F3d, "EXTERNAL", ext)
    t = omibench_F3a_F3d.build("omibench.F3a", ctx(tmp_path))
    rho = t.table.set_index("pair")["rho"]
    assert rho["OMIBench vs OlympiadBench"] == pytest.approx(0.8)  # ranks 1234 vs 1324: 1 − 6·2/(4·15)
    assert rho["OMIBench vs MMIU"] == pytest.approx(-1.0)
    assert rho["OlympiadBench vs MMIU"] == pytest.approx(-0.8)
    paper = t.vs_paper.set_index("pair")
    assert paper.loc["OMIBench vs OlympiadBench", "paper"] == 0.614
    assert paper.loc["OMIBench vs MMIU", "diff"] == pytest.approx(-1.535)
    d = omibench_F3a_F3d.build("omibench.F3d", ctx(tmp_path))
    assert list(d.table["model"]) == ["d", "c", "b", "a"] and d.figure.exists()  # z has no OMIBench run
    # without the real file, the shipped EXAMPLE file is used and the table says so first
    ext.with_name("other_benchmarks.EXAMPLE.csv").write_text(ext.read_text())
    ext.unlink()
    example = omibench_F3a_F3d.build("omibench.F3a", ctx(tmp_path))
    assert example.notes[0].startswith("EXAMPLE DATA") and len(example.table) == len(t.table)


def test_F3a_with_runs_but_no_scored_verdict_says_what_they_hold(tmp_path, data):
    run(tmp_path / "results", "a", "cot_boxed", data, correct={0}, judge=GPT)
    judged_path(tmp_path / "results", "omibench", "a", "cot_boxed", GPT).write_text("")   # answers, no verdict yet
    with pytest.raises(MissingInputs, match=r"no scored verdict in the judged omibench cot_boxed runs "
                                            r"\(GPTScore: 8 unjudged\); make its runs with"):
        omibench_F3a_F3d.build("omibench.F3a", ctx(tmp_path))


def test_F3a_with_both_judges_draws_the_gptscore_rho(tmp_path, data, monkeypatch):
    """ACC and GPTScore each give an "OMIBench vs <benchmark>" ρ: the figure is titled with the one drawn."""
    res = tmp_path / "results"
    for model, correct in {"a": {0}, "b": {0, 1}, "c": {0, 1, 2}, "d": {0, 1, 2, 3}}.items():
        run(res, model, "cot_boxed", data, correct=correct, judge=GPT)
        run(res, model, "cot_boxed", data, correct={0})  # ACC by both rules: all equal, no ρ
    ext = tmp_path / "other_benchmarks.csv"
    ext.write_text("model,benchmark,score\na,OlympiadBench,10\nb,OlympiadBench,30\nc,OlympiadBench,20\n"
                   "d,OlympiadBench,40\na,MMIU,60\nb,MMIU,50\nc,MMIU,40\nd,MMIU,30\n")
    monkeypatch.setattr(omibench_F3a_F3d, "EXTERNAL", ext)
    t = omibench_F3a_F3d.build("omibench.F3a", ctx(tmp_path))
    by = t.table.set_index(["metric", "pair"])["rho"]
    assert by[("GPTScore", "OMIBench vs OlympiadBench")] == pytest.approx(0.8)
    assert np.isnan(by[("ACC", "OMIBench vs OlympiadBench")]) and np.isnan(by[("ACC careful", "OMIBench vs MMIU")])
    assert t.figure.exists()


def test_F3a_F3d_count_where_the_two_rules_disagree(tmp_path, data, monkeypatch):
    """Both figures show ACC by C.1 and by the careful rule: like every OMIBench accuracy table, they count the
    answers only one rule accepts, and the runs one rule has not judged."""
    res = tmp_path / "results"
    run(res, "a", "cot_boxed", data, correct={0}, c1={0, 1, 2})          # q1, q2: C.1 only
    run(res, "b", "cot_boxed", data, correct={0, 1, 3}, c1={0, 1})       # q3: careful only
    run(res, "c", "cot_boxed", data, correct={0, 1, 2}, judge="rules")   # judged before C.1 was
    ext = tmp_path / "other_benchmarks.csv"
    ext.write_text("model,benchmark,score\na,OlympiadBench,10\nb,OlympiadBench,30\nc,OlympiadBench,20\n")
    monkeypatch.setattr(omibench_F3a_F3d, "EXTERNAL", ext)
    for table_id in ("omibench.F3a", "omibench.F3d"):
        t = omibench_F3a_F3d.build(table_id, ctx(tmp_path))
        gap = t.extra[RULE_GAP].set_index("model")
        assert (gap.loc["a", "acc_c1"], gap.loc["a", "acc_careful"]) == (37.5, 12.5)
        assert tuple(gap.loc["a", ["only_c1_correct", "only_careful_correct", "both_judged"]]) == (2, 0, 8)
        assert tuple(gap.loc["b", ["only_c1_correct", "only_careful_correct"]]) == (0, 1)
        assert tuple(gap.loc["c", ["both_judged", "c1_missing"]]) == (0, 8)
        assert any("no omibench_c1 verdict" in n and "c: 8" in n for n in t.notes)
        assert any(n.startswith("ACC is OMIBench's published rule") for n in t.notes)


def test_example_external_file_has_the_documented_format():
    path = omibench_F3a_F3d.EXTERNAL.parent / "other_benchmarks.EXAMPLE.csv"
    df = pd.read_csv(path)
    assert list(df.columns) == ["model", "benchmark", "score", "source"]
    assert set(df["benchmark"]) <= set(omibench_F3a_F3d.BENCHMARKS) and df["source"].str.contains("EXAMPLE").all()
    assert len(omibench_F3a_F3d.external_scores(path)) == len(df)
