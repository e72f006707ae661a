"""Error taxonomies and rationale ratings (judge/taxonomy.py, judge/ratings.py): replies read strictly
against each paper's class list, several labels where C²RBench counts several, Likert JSON validated, the
judges end to end against a scripted judge model (a rerun repeats no call), the human-label reader, and
the quoted prompts checked against the papers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.jsonl import DataError
from infer.layout import judged_dir
from judge.judges import JUDGES
from judge.run import run
from judge.human_labels import human_labels
from judge.ratings import rationale_alignment, rationale_quality
from judge.taxonomy import C2RBENCH, OMIBENCH, THINK360, c2rbench_error, omibench_error, think360_error
from tests import test_prompts_match_papers as quoting
from tests.scripted_judge import quoted
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts


# --------------------------------------------------------------------------------------------------
# OMIBench F.2: one class, the first fatal error
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply, labels", [
    ("The second image is misread.\nCATEGORY: 1. Visual Perception Failures", ["visual_perception"]),
    ("CATEGORY: 2", ["cross_image"]),
    ("**CATEGORY:** 3. Logical Reasoning Fallacies", ["logical_reasoning"]),
    ("CATEGORY: Instruction Comprehension Bias", ["instruction"]),       # singular
    ("CATEGORY: cross-image association", ["cross_image"]),               # last word left out
    ("5. Other", ["other"]),                                              # a reply that is only the label
    ("CATEGORY: none", []),                                               # no error (F.2.1's false positives)
    ("CATEGORY: 3\nCATEGORY: 3. Logical Reasoning Fallacies", ["logical_reasoning"]),  # said twice, the same
])
def test_omibench_error_reads_the_five_classes(reply, labels):
    assert omibench_error(reply) == {"labels": labels}


@pytest.mark.parametrize("reply", [
    "CATEGORY: Hallucination",                                 # not one of the five
    "CATEGORY: 6",                                             # no sixth class
    "CATEGORY: 1. Logical Reasoning Fallacies",                # number and name disagree
    "CATEGORY: 1\nOn second thought:\nCATEGORY: 3",            # two answers
    "CATEGORY: <number>. <category name>",                     # the format quoted back
    "The model reasons badly.",                                # no label
    "",
])
def test_omibench_error_never_guesses(reply):
    assert omibench_error(reply) is None


# --------------------------------------------------------------------------------------------------
# Think360 Appendix C: width-centric / depth-centric / perception-calculation
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply, want", [
    ("CATEGORY: width-centric\nSUBTYPE: incomplete branch expansion", (["width"], ["incomplete_branch_expansion"])),
    ("CATEGORY: Width-centric error\nSUBTYPE: Ineffective Pruning", (["width"], ["ineffective_pruning"])),
    ("CATEGORY: width-centric\nSUBTYPE: none", (["width"], [])),
    ("CATEGORY: depth-centric\nSUBTYPE: none", (["depth"], [])),
    ("CATEGORY: perception/calculation", (["perception_calculation"], [])),
    ("CATEGORY: none", ([], [])),
])
def test_think360_error_reads_category_and_width_subtype(reply, want):
    assert think360_error(reply) == {"labels": want[0], "subtypes": want[1]}


@pytest.mark.parametrize("reply", [
    "CATEGORY: depth-centric\nSUBTYPE: ineffective pruning",   # a width subtype under another category
    "CATEGORY: width-centric\nSUBTYPE: tunnel vision",         # not a subtype the paper names
    "CATEGORY: width-centric\nCATEGORY: depth-centric",        # two answers
    "CATEGORY: reasoning error",
])
def test_think360_error_is_strict(reply):
    assert think360_error(reply) is None


# --------------------------------------------------------------------------------------------------
# C²RBench A.3: several types, each with its subtypes
# --------------------------------------------------------------------------------------------------
def test_c2rbench_error_reads_several_types_and_their_subtypes():
    reply = ("- Analysis: The model misreads the table, then\nskips a case.\n"
             "- Error Type: Perception & Input Errors; Logic & Reasoning\n"
             "- Error Subtype: Perceptual Error; Longrange Dependency Error; Deductive Reasoning Error")
    assert c2rbench_error(reply) == {
        "labels": ["perception_input", "logic_reasoning"],
        "subtypes": ["perceptual_error", "long_range_dependency_error", "deductive_reasoning_error"],
        "analysis": "The model misreads the table, then\nskips a case."}
    one = c2rbench_error("**Error Type:** {3. Logical & Reasoning Errors}\n"
                         "**Error Subtype:** Causal Reasoning Error: Misidentifies cause -effect relationships.")
    assert one["labels"] == ["logic_reasoning"] and one["subtypes"] == ["causal_reasoning_error"]


@pytest.mark.parametrize("reply", [
    "Error Type: Logical & Reasoning Errors\nError Subtype: Arithmetic Error",           # subtype of another type
    "Error Type: Logical & Reasoning Errors; Task Execution Errors\nError Subtype: Deductive Reasoning Error",
    "Error Type: Reasoning Errors\nError Subtype: Deductive Reasoning Error",             # unknown type
    "Error Type: Logical & Reasoning Errors\nError Subtype: Sloppiness",                 # unknown subtype
    "Error Type: none\nError Subtype: none",                                             # the prompt presumes errors
    "Error Type: Task Execution Errors\nError Subtype: Arithmetic Error\n"
    "Error Type: Logical & Reasoning Errors\nError Subtype: Deductive Reasoning Error",   # two answers
    "Error Type: Task Execution Errors",                                                 # no subtype line
])
def test_c2rbench_error_is_strict(reply):
    assert c2rbench_error(reply) is None


# --------------------------------------------------------------------------------------------------
# OMIBench B.2: Likert JSON
# --------------------------------------------------------------------------------------------------
QUALITY = {"correctness": 4, "faithfulness": 5, "information-usage": 3, "clarity": 4, "detail": 2, "overall": 4}


@pytest.mark.parametrize("reply", [
    json.dumps(QUALITY),
    "```json\n" + json.dumps(QUALITY, indent=2) + "\n```",
    json.dumps({**{k: str(v) for k, v in QUALITY.items()}}),                         # numbers as strings
    json.dumps({("information_usage" if k == "information-usage" else k.title()): v for k, v in QUALITY.items()}),
    "Ratings: " + json.dumps(QUALITY)[:-1] + ",}",                                       # a trailing comma, text before
    json.dumps(QUALITY) + "\n" + json.dumps(QUALITY),                                     # the same answer twice
])
def test_rationale_quality_reads_the_six_ratings(reply):
    assert rationale_quality(reply) == {"score": QUALITY}


@pytest.mark.parametrize("reply", [
    json.dumps({**QUALITY, "detail": 6}),                        # out of range
    json.dumps({**QUALITY, "clarity": 0}),
    json.dumps({**QUALITY, "overall": 3.5}),                     # not an integer
    json.dumps({**QUALITY, "overall": True}),
    json.dumps({k: v for k, v in QUALITY.items() if k != "faithfulness"}),   # a dimension missing
    json.dumps(QUALITY) + "\n" + json.dumps({**QUALITY, "overall": 2}),       # two answers
    json.dumps(QUALITY)[:-1] + ', "overall": 2}',                              # a key twice, two values
    "The rationale is good.",
])
def test_rationale_quality_refuses_what_is_not_six_ratings(reply):
    assert rationale_quality(reply) is None


def test_rationale_alignment():
    reply = '```json\n{\n  "justification":\n    "Same steps, but \\frac{1}{2} is not justified",\n  "score": 4\n}\n```'
    assert rationale_alignment(reply) == {"score": {"alignment": 4},
                                          "justification": "Same steps, but \\frac{1}{2} is not justified"}
    for bad in ('{"justification": "x", "score": 6}', '{"justification": "x"}', '{"score": 4} {"score": 2}',
                '{"score": "high"}'):
        assert rationale_alignment(bad) is None


# --------------------------------------------------------------------------------------------------
# The judges end to end
# --------------------------------------------------------------------------------------------------
def between(prompt):
    """The delimited response (the delimiters also appear, inline, in the sentence that names them)."""
    return quoted(prompt)[0]


REPLIES = {  # the judge's reply to each response, by a phrase of the judge's prompt and the response
    "five categories based on its primary cause": {
        "R1": "Step 2 misreads the first image.\nCATEGORY: 1. Visual Perception Failures",
        "R2": "CATEGORY: none", "R3": "CATEGORY: Hallucination", "R4": "CATEGORY: 2\nCATEGORY: 3"},
    "attribute them to their root causes": {
        "R1": "- Analysis: wrong rule, then a slip.\n- Error Type: Logical & Reasoning Errors; Task Execution Errors\n"
              "- Error Subtype: Deductive Reasoning Error; Arithmetic Error",
        "R2": "- Error Type: Refusal & Inability Errors\n- Error Subtype: Failure to Answer",
        "R3": "- Error Type: Mistakes\n- Error Subtype: Arithmetic Error", "R4": "No errors."},
    "width-centric problems": {
        "R1": "CATEGORY: width-centric\nSUBTYPE: incomplete branch expansion", "R2": "CATEGORY: depth-centric",
        "R3": "CATEGORY: width-centric\nCATEGORY: depth-centric", "R4": "CATEGORY: none"},
    '"information-usage"': {
        "R1": json.dumps(QUALITY), "R2": json.dumps({**QUALITY, "overall": 1}),
        "R3": json.dumps({**QUALITY, "detail": 7}), "R4": json.dumps({"overall": 3})},
    "aligns with a human-annotated reference rationale": {
        "R1": '{"justification": "same logic", "score": 5}', "R2": '{"justification": "different", "score": 2}',
        "R3": '{"score": 9}', "R4": '{"score": 3}'},
}


def script(body, attempt):
    prompt = body["messages"][0]["content"]
    judge = next(p for p in REPLIES if p in prompt)
    return Reply.ok(REPLIES[judge][between(prompt)])


def records(bench):
    return [{"id": i, "benchmark": bench, "question": f"Question {i}?", "images": [], "choices": [], "answer": ["7"],
             "answer_type": "numeric", "solution": f"Reference solution of {i}: 3 + 4 = 7.",
             "steps": "1.读题\n2.3+4=7"} for i in ("a", "b", "c", "d")]


def raws():
    return [{"id": i, "sample_idx": 0, "request_key": f"k{n}", "response": f"R{n}", "error": None}
            for n, i in enumerate("abcd", start=1)] + [
        {"id": "a", "sample_idx": 1, "request_key": "k9", "response": None, "error": "HTTPError: 503"}]


CASES = {  # judge: benchmark, the phrase of its prompt, the verdict fields of R1 … R4 (None: a judge error)
    "omibench_error": ("omibench", "five categories", [{"labels": ["visual_perception"]}, {"labels": []}, None, None]),
    "c2rbench_error": ("c2rbench", "root causes", [
        {"labels": ["logic_reasoning", "task_execution"], "subtypes": ["deductive_reasoning_error", "arithmetic_error"]},
        {"labels": ["refusal_inability"], "subtypes": ["failure_to_answer"]}, None, None]),
    "think360_error": ("think360", "width-centric problems", [
        {"labels": ["width"], "subtypes": ["incomplete_branch_expansion"]}, {"labels": ["depth"], "subtypes": []}, None,
        {"labels": [], "subtypes": []}]),
    "omibench_rationale_quality": ("omibench", "information-usage",
                                   [{"score": QUALITY}, {"score": {**QUALITY, "overall": 1}}, None, None]),
    "omibench_rationale_alignment": ("omibench", "human-annotated reference", [
        {"score": {"alignment": 5}}, {"score": {"alignment": 2}}, None, {"score": {"alignment": 3}}]),
}


@pytest.mark.parametrize("judge", list(CASES))
def test_each_judge_labels_scripted_replies_and_a_rerun_repeats_no_call(judge, tmp_path, scripted_server):
    bench, phrase, want = CASES[judge]
    replies = next(r for p, r in REPLIES.items() if phrase in p)
    srv = scripted_server(script=script)
    data, _ = setup(tmp_path, bench, raws(), records(bench))
    cfg = judge_config(tmp_path, srv.base_url)
    s = run(bench, data, "m", "s", judge, tmp_path / "results", cfg)
    v = {(x["id"], x["sample_idx"]): x for x in verdicts(tmp_path, judge, bench)}
    for n, (i, fields) in enumerate(zip("abcd", want), start=1):
        got = v[(i, 0)]
        if fields is None:  # an unreadable reply: a judge error, never a default label or score
            assert got["status"] == "judge_error" and got["raw_judge_reply"] == replies[f"R{n}"]
            assert "labels" not in got and "score" not in got
        else:
            assert got["status"] == "ok" and {k: got[k] for k in fields} == fields and got["correct"] is None
    assert v[("a", 1)]["status"] == "no_response"
    assert (s["judge_error"], s["no_response"]) == (sum(w is None for w in want), 1)
    assert srv.count == 4  # a deterministic judge is not asked again for a reply it would repeat
    # the judge sees the response between delimiters, the question and the reference
    prompt = next(r["messages"][0]["content"] for r in srv.requests if "R1" in between(r["messages"][0]["content"]))
    assert "Question a?" in prompt and quoted(prompt) == ["R1"]
    if judge == "omibench_rationale_quality":  # the answer read from the response, quoted as model text too
        assert quoted(prompt, "ANSWER") == ["R1"]
    else:
        assert {"c2rbench_error": "2.3+4=7"}.get(judge, "Reference solution of a") in prompt
    # a rerun, even into a fresh verdict file, repeats no call: the judge's log is its cache
    run(bench, data, "m", "s", judge, tmp_path / "results", cfg)
    judged_dir(tmp_path / "results").rename(tmp_path / "old")
    again = run(bench, data, "m", "s", judge, tmp_path / "results", cfg)
    assert srv.count == 4 and again["judge_error"] == s["judge_error"]


def test_an_unreadable_label_is_asked_again_by_a_sampling_judge(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.ok("CATEGORY: 7" if attempt == 1 else "CATEGORY: 5"))
    data, _ = setup(tmp_path, "omibench", raws()[:1], records("omibench")[:1])
    cfg = judge_config(tmp_path, srv.base_url)
    object.__setattr__(cfg, "temperature", 0.7)
    run("omibench", data, "m", "s", "omibench_error", tmp_path / "results", cfg)
    (v,) = verdicts(tmp_path, "omibench_error")
    assert v["labels"] == ["other"] and srv.count == 2


def test_alignment_without_a_reference_solution_is_a_judge_error_without_a_call(tmp_path, scripted_server):
    srv = scripted_server(script=script)
    recs = [{k: v for k, v in r.items() if k != "solution"} for r in records("omibench")]
    data, _ = setup(tmp_path, "omibench", raws()[:1], recs)
    run("omibench", data, "m", "s", "omibench_rationale_alignment", tmp_path / "results",
        judge_config(tmp_path, srv.base_url))
    (v,) = verdicts(tmp_path, "omibench_rationale_alignment")
    assert v["status"] == "judge_error" and "no reference solution" in v["error"] and srv.count == 0


def test_the_judges_are_registered_with_their_prompts():
    for name in CASES:
        assert JUDGES[name].prompts == (name,)


# --------------------------------------------------------------------------------------------------
# Human labels
# --------------------------------------------------------------------------------------------------
def write(tmp_path, bench, text):
    path = tmp_path / bench / "error_labels.csv"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_human_labels_are_read_per_response_and_annotator(tmp_path):
    path = write(tmp_path, "c2rbench", "model,setting,id,sample_idx,annotator,labels,subtypes,note\n"
                 "m,zero_shot,04001,0,A1,logic_reasoning; Task Execution Errors,deductive_reasoning_error,\n"
                 "m,zero_shot,04001,,A2,Logic & Reasoning,,\n"
                 "m,zero_shot,04002,0,A1,,,no error\n")
    got = human_labels(path)  # the benchmark is the folder's
    assert [(h.annotator, h.labels, h.subtypes) for h in got[("m", "zero_shot", "04001", 0)]] == [
        ("A1", ("logic_reasoning", "task_execution"), ("deductive_reasoning_error",)),
        ("A2", ("logic_reasoning",), ())]
    assert got[("m", "zero_shot", "04002", 0)][0].labels == () and got[("m", "zero_shot", "04002", 0)][0].note == "no error"
    single = write(tmp_path, "elsewhere", "model,setting,id,annotator,labels\nm,cot_boxed,q1,A1,3\n")
    assert human_labels(single, "omibench")[("m", "cot_boxed", "q1", 0)][0].labels == ("logical_reasoning",)


@pytest.mark.parametrize("bench, row, where", [
    ("omibench", "m,s,q1,0,A1,Hallucination,,", "3: labels: 'Hallucination' is not one of"),
    ("omibench", "m,s,q1,0,A1,visual_perception; other,,", "3: labels: omibench takes one label"),
    ("omibench", "m,s,q1,0,A1,none,,", "3: labels: 'none': leave the cell empty"),
    ("think360", "m,s,q1,0,A1,depth,ineffective_pruning,", "3: subtypes: 'ineffective_pruning' is a subtype of width"),
    ("c2rbench", "m,s,q1,0,A1,logic_reasoning,Sloppiness,", "3: subtypes: 'Sloppiness' is not a subtype"),
    ("c2rbench", "m,s,q1,x,A1,logic_reasoning,,", "3: sample_idx"),
    ("c2rbench", ",s,q1,0,A1,logic_reasoning,,", "3: model: empty"),
    ("c2rbench", "m,s,q0,0,A1,logic_reasoning,,", "3: annotator: 'A1' labels ('m', 's', 'q0', 0) twice"),
])
def test_bad_human_labels_name_file_line_and_column(tmp_path, bench, row, where):
    path = write(tmp_path, bench, "model,setting,id,sample_idx,annotator,labels,subtypes,note\n"
                 "m,s,q0,0,A1,,,\n" + row + "\n")
    with pytest.raises(DataError) as e:
        human_labels(path)
    assert f"{path}:{where}" in str(e.value)


def test_a_bad_header_or_benchmark_is_refused(tmp_path):
    with pytest.raises(DataError, match="missing column.*'annotator'.*unknown column.*'label'"):
        human_labels(write(tmp_path, "omibench", "model,setting,id,label,labels\n"))
    with pytest.raises(DataError, match="no error taxonomy for 'mira'"):
        human_labels(write(tmp_path, "mira", "model,setting,id,annotator,labels\n"))


@pytest.mark.parametrize("bench", ["omibench", "c2rbench", "think360"])
def test_the_shipped_examples_follow_the_format(bench):
    got = human_labels(Path("data/external") / bench / "error_labels.EXAMPLE.csv")
    assert got and all(h.note.startswith("EXAMPLE") for hs in got.values() for h in hs)


def test_the_taxonomies_are_the_papers():
    assert [c.name for c in OMIBENCH.classes] == ["Visual Perception Failures", "Cross-Image Association Failures",
                                                 "Logical Reasoning Fallacies", "Instruction Comprehension Biases",
                                                 "Other"]
    assert len(C2RBENCH.classes) == 6 and len(C2RBENCH.subtypes) == 23 and C2RBENCH.multi
    assert [c.slug for c in THINK360.classes] == ["width", "depth", "perception_calculation"]


# --------------------------------------------------------------------------------------------------
# The quoted prompts are checked against the papers
# --------------------------------------------------------------------------------------------------
QUOTED = {"judges/omibench_error.txt": "omibench", "judges/omibench_rationale_quality.txt": "omibench",
          "judges/omibench_rationale_alignment.txt": "omibench", "judges/c2rbench_error.txt": "c2rbench"}


def test_the_quoted_prompts_are_checked_and_ours_is_said_to_be_ours():
    checked = {p.id: p.values[1] for p in quoting.quoted_templates()}
    assert {k: checked.get(k) for k in QUOTED} == QUOTED
    assert "judges/think360_error.txt" in quoting.OURS


CHANGED = {  # one word of each quoted prompt, changed
    "judges/omibench_error.txt": ("classify it into exactly one", "sort it into exactly one"),
    "judges/omibench_rationale_quality.txt": ("Please read the rationale carefully", "Please read the answer carefully"),
    "judges/omibench_rationale_alignment.txt": ("specializing in natural language", "specializing in plain language"),
    "judges/c2rbench_error.txt": ("Misinterprets visual or structured", "Misreads visual or structured"),
}


@pytest.mark.skipif(not quoting.SEEDS.is_dir(), reason="the papers' texts are not beside the project")
@pytest.mark.parametrize("rel", list(QUOTED))
def test_the_quoted_prompts_match_and_a_changed_word_is_caught(rel, tmp_path):
    path = Path("prompts") / rel
    quoting.test_template_text_is_the_papers(path, QUOTED[rel])
    text = path.read_text(encoding="utf-8")
    old, new = CHANGED[rel]
    changed = text.replace(old, new)
    assert changed != text
    (tmp_path / "t.txt").write_text(changed, encoding="utf-8")
    with pytest.raises(AssertionError, match="not in the paper's text"):
        quoting.test_template_text_is_the_papers(tmp_path / "t.txt", QUOTED[rel])
