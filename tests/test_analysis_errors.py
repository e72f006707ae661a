"""The error-taxonomy tables (OMIBench Fig. 7, C²RBench Table 5, Think360° Fig. S2) and OMIBench's rationale
ratings, built from hand-made verdict files: only the answers the correctness verdict failed are counted, each with
the label of the same raw outcome; several types per answer; human labels before the judge's; every state counted;
the paper's numbers beside ours; ratings on their 1–5 scale."""
import pandas as pd
import pytest

from analysis import labels
from analysis.c2rbench import T5 as c2rbench_T5
from analysis.omibench import F7 as omibench_F7, rationale as omibench_rationale
from analysis.think360 import S2err as think360_S2err
from analysis.reference import load_reference
from analysis.table import Context, MissingInputs
from judge.human_labels import HumanLabel
from tests.analysis_fixtures import make_run, write_data

GPTSCORE, ERROR = "omibench_gptscore", "omibench_error"
HEADER = "model,setting,id,sample_idx,annotator,labels,subtypes,note\n"


@pytest.fixture
def env(tmp_path, monkeypatch):
    """Results, a context, and an empty data/external (no human labels, no EXAMPLE file)."""
    monkeypatch.setattr(labels, "EXTERNAL", tmp_path / "external")
    return tmp_path / "results", Context(tmp_path / "results", tmp_path / "fig"), tmp_path / "external"


@pytest.fixture
def omi(env, tmp_path):
    """Model a: GPTScore passes q0, fails q1–q3, cannot read q4, q5 got no response; the rule judge (fails all)
    must be ignored. Model b: GPTScore fails q0–q2; q1's label is of an older outcome of the request."""
    res, ctx, ext = env
    data = write_data(tmp_path / "omi.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                               for i in range(6)])
    make_run(res, "omibench", "a", "cot_boxed", GPTSCORE, data,
             [{"id": "q0", "correct": True}, *({"id": f"q{i}", "correct": False} for i in (1, 2, 3)),
              {"id": "q4", "status": "judge_error"}, {"id": "q5", "status": "no_response"}])
    make_run(res, "omibench", "a", "cot_boxed", "rules", data, [{"id": f"q{i}", "correct": False} for i in range(6)])
    cost = {"judge_calls": 1, "judge_tokens": 100}
    make_run(res, "omibench", "a", "cot_boxed", ERROR, data, [
        {"id": "q0", "labels": ["visual_perception"], **cost},     # passed: not counted
        {"id": "q1", "labels": ["visual_perception"], **cost},
        {"id": "q2", "labels": [], **cost},                        # "none": no error found
        {"id": "q3", "status": "judge_error", "judge_calls": 3, "judge_tokens": 300},
        {"id": "q4", "labels": ["logical_reasoning"], **cost},     # correctness unknown: not counted
        {"id": "q5", "status": "no_response"}])
    make_run(res, "omibench", "b", "cot_boxed", GPTSCORE, data, [{"id": f"q{i}", "correct": False} for i in range(3)])
    make_run(res, "omibench", "b", "cot_boxed", ERROR, data, [
        {"id": "q0", "labels": ["cross_image"], **cost},
        {"id": "q1", "labels": ["visual_perception"], "outcome": "an older response", **cost},
        {"id": "q2", "labels": ["cross_image"], **cost}])
    return res, ctx, ext, data


def test_F7_counts_only_the_failed_answers_with_the_label_of_the_same_outcome(omi):
    res, ctx, ext, data = omi
    t = omibench_F7.build("omibench.F7", ctx)
    row = t.table.set_index("model")
    assert list(row.index) == ["a", "b", labels.ALL]
    a, b, pooled = row.loc["a"], row.loc["b"], row.loc[labels.ALL]
    assert (a["judged"], a["failed"], a["labelled"], a["no_error"], a["judge_error"], a["not_labelled"],
            a["unjudged"]) == (6, 3, 1, 1, 1, 0, 1)
    assert a["Visual Perception Failures"] == 100 and a["Logical Reasoning Fallacies"] == 0  # q0 and q4 left out
    assert (a["judge_calls"], a["judge_tokens"]) == (7, 700)   # the labelling of every answer read
    assert (b["failed"], b["labelled"], b["not_labelled"]) == (3, 2, 1)
    assert b["Cross-Image Association Failures"] == 100 and b["Visual Perception Failures"] == 0
    # b's label of q1's older outcome is not read: nor what it cost
    assert (pooled["failed"], pooled["labelled"], pooled["judge_calls"]) == (6, 3, 9)
    assert pooled["Visual Perception Failures"] == pytest.approx(100 / 3)
    assert pooled["Cross-Image Association Failures"] == pytest.approx(200 / 3)
    assert row.loc[:, list(omibench_F7.CLASSES.values())].sum(axis=1).round(6).eq(100).all()  # one class each
    paper = t.vs_paper.set_index(["class", "source"])
    assert paper.loc[("Visual Perception Failures", "App. F.2"), "paper"] == 35
    assert paper.loc[("Visual Perception Failures", "§5"), "paper"] == 13
    assert paper.loc[("Logical Reasoning Fallacies", "§5"), "ours"] == 0 and set(t.vs_paper["model"]) == {labels.ALL}
    assert t.figure.exists() and t.notes[0].startswith("Labels: the judge omibench_error's; no human labels")
    assert any("omibench_error" in line for line in t.provenance.lines())


def test_human_labels_take_precedence_and_every_state_is_counted(omi):
    res, ctx, ext, data = omi
    (ext / "omibench").mkdir(parents=True)
    (ext / "omibench" / "error_labels.csv").write_text(HEADER + "\n".join([
        "a,cot_boxed,q3,0,A1,cross_image,,",          # the judge could not read q3: people labelled it
        "a,cot_boxed,q3,0,A2,Cross-Image Association Failures,,",
        "a,cot_boxed,q1,0,A1,,,GPTScore misjudged",   # the judge said visual perception: people found no error
        "a,cot_boxed,q2,0,A1,instruction,,",          # two annotators, two classes: no majority
        "a,cot_boxed,q2,0,A2,other,,",
        "a,cot_boxed,q0,0,A1,other,,",              # a passed answer: left out, and said so
        "c,cot_boxed,q0,0,A1,other,,"]) + "\n")      # a model people labelled and the judge did not
    make_run(res, "omibench", "c", "cot_boxed", GPTSCORE, data, [{"id": "q0", "correct": False}])
    t = omibench_F7.build("omibench.F7", ctx)
    c = t.table.set_index("model").loc["c"]
    assert (c["failed"], c["labelled"], c["human"], c["judge_calls"], c["Other"]) == (1, 1, 1, 0, 100)
    a = t.table.set_index("model").loc["a"]
    assert (a["failed"], a["labelled"], a["no_error"], a["disagreed"], a["judge_error"], a["human"]) == (3, 1, 1, 1, 0, 3)
    assert a["Cross-Image Association Failures"] == 100 and a["Visual Perception Failures"] == 0
    assert t.notes[0].startswith("Labels: by people for 4 failed answer(s)") and "error_labels.csv" in t.notes[0]
    assert any("1 human-labelled response" in n for n in t.notes)


def test_the_example_file_stands_in_and_the_table_says_so_first(omi):
    res, ctx, ext, data = omi
    (ext / "omibench").mkdir(parents=True)
    (ext / "omibench" / "error_labels.EXAMPLE.csv").write_text(HEADER + "a,cot_boxed,q3,0,A1,other,,EXAMPLE\n"
                                                                "z,cot_boxed,q0,0,A1,other,,EXAMPLE\n")
    t = omibench_F7.build("omibench.F7", ctx)
    assert "z" not in set(t.table["model"])   # an example row never adds a model
    assert t.notes[0].startswith("EXAMPLE DATA") and t.notes[1].startswith("Labels: by people for 1 failed answer")
    assert t.table.set_index("model").loc["a", "Other"] == 50   # q1 by the judge, q3 by the example


def test_human_labels_alone_make_the_table(env, tmp_path):
    res, ctx, ext = env
    (ext / "omibench").mkdir(parents=True)
    (ext / "omibench" / "error_labels.csv").write_text(HEADER + "c,cot_boxed,q0,0,A1,other,,\n")
    data = write_data(tmp_path / "omi.jsonl", [{"id": "q0", "benchmark": "omibench"}])
    make_run(res, "omibench", "c", "cot_boxed", GPTSCORE, data, [{"id": "q0", "correct": False}])
    c = omibench_F7.build("omibench.F7", ctx).table.set_index("model").loc["c"]
    assert (c["failed"], c["human"], c["judge_calls"], c["Other"]) == (1, 1, 0, 100)


def test_consensus_is_the_majority_of_annotators():
    h = [HumanLabel("A1", ("logic_reasoning", "task_execution"), ("arithmetic_error",)),
         HumanLabel("A2", ("logic_reasoning",)), HumanLabel("A3", ("logic_reasoning", "task_execution"))]
    assert labels.consensus(h) == (["logic_reasoning", "task_execution"], [])
    assert labels.consensus(h[:2] + [HumanLabel("A3", ())]) == (["logic_reasoning"], [])
    assert labels.consensus([HumanLabel("A1", ()), HumanLabel("A2", ())]) == ([], [])
    assert labels.consensus([HumanLabel("A1", ("other",)), HumanLabel("A2", ())]) is None


def test_missing_labels_say_how_to_make_them(env, tmp_path):
    res, ctx, ext = env
    data = write_data(tmp_path / "omi.jsonl", [{"id": "q0", "benchmark": "omibench"}])
    make_run(res, "omibench", "a", "cot_boxed", GPTSCORE, data, [{"id": "q0", "correct": False}])
    with pytest.raises(MissingInputs, match="--only omibench.T2 omibench.F7"):
        omibench_F7.build("omibench.F7", ctx)


def test_T5_counts_several_types_per_answer_and_the_logical_subset_of_text_runs(env, tmp_path):
    res, ctx, ext = env
    tasks = [("01", "Logical"), ("02", "Logical"), ("03", "Math"), ("04", "Logical")]
    data = write_data(tmp_path / "c2r.jsonl", [{"id": i, "benchmark": "c2rbench", "category": c} for i, c in tasks])
    judge, main, text = "c2rbench_judge", "zero_shot+temp0", "zero_shot+temp0+text"
    make_run(res, "c2rbench", "gpt-4o", main, judge, data, [{"id": i, "correct": i == "04"} for i, _ in tasks])
    make_run(res, "c2rbench", "gpt-4o", main, "c2rbench_error", data, [
        {"id": "01", "labels": ["knowledge_comprehension", "logic_reasoning"],
         "subtypes": ["lack_of_knowledge", "deductive_reasoning_error"]},
        {"id": "02", "labels": ["logic_reasoning"], "subtypes": ["deductive_reasoning_error"]},
        {"id": "03", "labels": ["task_execution"], "subtypes": ["arithmetic_error"]},
        {"id": "04", "labels": ["logic_reasoning"], "subtypes": ["causal_reasoning_error"]}])   # passed
    make_run(res, "c2rbench", "deepseek-r1", text, judge, data, [{"id": i, "correct": False} for i, _ in tasks])
    make_run(res, "c2rbench", "deepseek-r1", text, "c2rbench_error", data,
             [{"id": i, "labels": ["logic_reasoning"] if c == "Logical" else ["task_execution"],
               "subtypes": [], "judge_calls": 1} for i, c in tasks])
    t = c2rbench_T5.build("c2rbench.T5", ctx)
    row = t.table.set_index(["model", "setting"])
    g = row.loc[("gpt-4o", main)]
    assert (g["failed"], g["labelled"]) == (3, 3)
    assert g["Logic & Reasoning"] == pytest.approx(200 / 3) and g["Knowledge & Comprehension"] == pytest.approx(100 / 3)
    assert g["Task Execution"] == pytest.approx(100 / 3)
    assert g[list(c2rbench_T5.TYPES.values())].sum() == pytest.approx(400 / 3)   # past 100 %: several per answer
    r1 = row.loc[("deepseek-r1", text)]
    assert (r1["failed"], r1["labelled"], r1["Logic & Reasoning"], r1["Task Execution"]) == (3, 3, 100, 0)
    assert r1["judge_calls"] == 3   # the Math task is not Table 5's for a text-only run
    sub = t.extra[next(iter(t.extra))].set_index(["model", "subtype"])
    assert sub.loc[("gpt-4o", "Deductive Reasoning Error"), "answers"] == 2
    assert sub.loc[("gpt-4o", "Deductive Reasoning Error"), "type"] == "Logic & Reasoning"
    paper = t.vs_paper.set_index(["model", "type"])
    assert paper.loc[("gpt-4o", "Logic & Reasoning"), "paper"] == pytest.approx(69.39)
    assert paper.loc[("deepseek-r1", "Logic & Reasoning"), "paper"] == pytest.approx(97.37)
    assert set(t.vs_paper["setting"]) == {main, text}


def test_S2err_shares_of_width_depth_and_perception_with_the_width_kinds(env, tmp_path):
    res, ctx, ext = env
    data = write_data(tmp_path / "t.jsonl", [{"id": f"q{i}", "benchmark": "think360"} for i in range(2)])
    model, setting = "claude-4-opus-thinking", "direct+temp0.7"
    answers = [("q0", 0), ("q0", 1), ("q0", 2), ("q1", 0), ("q1", 1), ("q1", 2)]
    make_run(res, "think360", model, setting, "think360_cascade", data,
             [{"id": i, "sample_idx": s, "correct": (i, s) == ("q1", 2)} for i, s in answers])
    found = [(["width"], ["incomplete_branch_expansion"]), (["width"], ["ineffective_pruning"]), (["width"], []),
             (["depth"], []), (["perception_calculation"], []), (["depth"], [])]   # the last one passed
    make_run(res, "think360", model, setting, "think360_error", data,
             [{"id": i, "sample_idx": s, "labels": lab, "subtypes": sub} for (i, s), (lab, sub) in zip(answers, found)])
    t = think360_S2err.build("think360.S2err", ctx)
    row = t.table.set_index("model").loc[model]
    assert (row["failed"], row["labelled"]) == (5, 5)
    assert (row["Width-centric errors"], row["Depth-centric errors"], row["Perception/calculation errors"]) == (60, 20, 20)
    assert (row["Incomplete Branch Expansion"], row["Ineffective Pruning"]) == (20, 20)
    paper = t.vs_paper.set_index("category")
    assert (paper.loc["Width-centric errors", "paper"], paper.loc["Width-centric errors", "diff"]) == (55, 5)
    assert paper.loc["Incomplete Branch Expansion", "paper"] == 30
    assert t.figure.exists()


def test_no_figure_when_nothing_is_labelled(env, tmp_path):
    res, ctx, ext = env
    data = write_data(tmp_path / "t.jsonl", [{"id": "q0", "benchmark": "think360"}])
    make_run(res, "think360", "m", "direct+temp0.7", "think360_cascade", data, [{"id": "q0", "correct": False}])
    make_run(res, "think360", "m", "direct+temp0.7", "think360_error", data, [{"id": "q0", "status": "judge_error"}])
    t = think360_S2err.build("think360.S2err", ctx)
    assert t.figure is None and t.table.loc[0, "judge_error"] == 1 and pd.isna(t.table.loc[0, "Width-centric errors"])


def test_rationale_means_stay_on_the_1_to_5_scale_with_failures_beside_them(env, tmp_path):
    res, ctx, ext = env
    data = write_data(tmp_path / "omi.jsonl", [{"id": f"q{i}", "benchmark": "omibench"} for i in range(3)])
    rating = dict.fromkeys(omibench_rationale.QUALITY, 4)
    make_run(res, "omibench", "a", "cot_boxed", "omibench_rationale_quality", data, [
        {"id": "q0", "score": rating, "judge_calls": 1, "judge_tokens": 10},
        {"id": "q1", "score": {**rating, "overall": 2}, "judge_calls": 1, "judge_tokens": 10},
        {"id": "q2", "status": "judge_error", "judge_calls": 3, "judge_tokens": 30}])
    make_run(res, "omibench", "a", "cot_boxed", "omibench_rationale_alignment", data, [
        {"id": "q0", "score": {"alignment": 5}}, {"id": "q1", "score": {"alignment": 2}},
        {"id": "q2", "status": "judge_error"}])
    t = omibench_rationale.build("omibench.rationale", ctx)
    row = t.table.set_index("model").loc["a"]
    assert (row["correctness"], row["overall"], row["alignment"]) == (4, 3, 3.5)
    assert (row["judged"], row["scored_quality"], row["judge_error_quality"], row["judge_calls_quality"]) == (3, 2, 1, 5)
    assert (row["scored_alignment"], row["judge_error_alignment"]) == (2, 1)


def test_the_typed_reference_names_are_the_tables_names():
    assert set(load_reference("omibench.F7")["class"]) <= set(omibench_F7.CLASSES.values())
    assert set(load_reference("c2rbench.T5")["type"]) == set(c2rbench_T5.TYPES.values())
    assert set(load_reference("think360.S2err")["category"]) <= {*think360_S2err.CATEGORIES.values(),
                                                               *think360_S2err.SUBTYPES.values()}
    t5 = load_reference("c2rbench.T5")
    assert len(t5) == 24 and set(t5["model"]) == {"deepseek-r1", "o1-preview", "gpt-4o", "qwen2-vl-72b"}
    assert set(load_reference("think360.S2err")["model"]) == {"doubao-1.5-thinking-vision-pro", "claude-4-opus-thinking"}
