"""MorphoBench's process judges (Appendix B.4–B.5): replies read and validated, the evidence aggregated
from the step reviews (hand-computed statistics), and both judges end to end against a scripted judge
model — the whole trace reviewed, the breakdown asked once for both judges, hint items apart from items
without hints, every failure a judge error without a score, and a rerun that repeats no call."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from infer.config import load_model_config
from infer.layout import judge_cache_path, judged_dir
from infer.templates import strip_comments
from judge.judges import JUDGES
from judge.reviewer import (BREAKDOWN, ReviewError, check_breakdown, check_hint, check_hint_summary,
                            check_reasoning_summary, check_step, hint_evidence, reasoning_evidence)
from judge.run import run
from tests.scripted_judge import quoted
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts
from tests.test_prompts_match_papers import SEEDS, normalise


def step_reply(rating=2, sound=1, gap=0, contradiction=0, missing=0, issues=(), comment="fine"):
    return json.dumps({"is_sound": sound, "has_logical_gap": gap, "has_contradiction": contradiction,
                       "missing_justification": missing, "rating": rating, "issues": list(issues), "comment": comment})


def hint_reply(alignment="neutral", relevant=(), justified=None, quality=None, comment="c"):
    return json.dumps({"alignment": alignment, "relevant_hints": list(relevant), "deviation_justified": justified,
                       "justification_quality": quality, "comment": comment})


# --------------------------------------------------------------------------------------------------
# Reading the replies
# --------------------------------------------------------------------------------------------------
def test_replies_are_read_leniently():
    assert check_breakdown('```json\n{"steps": ["Let $x = \\frac{1}{2}$", {"step": "so 2x = 1"},]}\n```') == {
        "steps": ["Let $x = \\frac{1}{2}$", "so 2x = 1"]}
    assert check_step(step_reply(1, sound=True, gap=False, issues=["skips a step"])) == {
        "is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, "missing_justification": 0, "rating": 1,
        "issues": ["skips a step"], "comment": "fine"}
    assert check_reasoning_summary('My scores:\n{"completeness": 62.5, "logical_coherence": 75, "comment": "ok"}') == {
        "completeness": 62.5, "coherence": 75, "comment": "ok"}
    assert check_hint(hint_reply("Deviated", [2, 1, 2], True, "strong"), hints=2) == {
        "alignment": "deviated", "relevant_hints": [1, 2], "deviation_justified": True,
        "justification_quality": "strong", "comment": "c"}
    assert check_hint(hint_reply(quality="null"), hints=1)["justification_quality"] is None  # the paper's "null"
    assert check_hint_summary('{"hint_alignment": 0, "comment": ""}') == {"halign": 0, "comment": ""}


@pytest.mark.parametrize("check, reply, why", [
    (check_breakdown, "I cannot split this.", "not a JSON object"),
    (check_breakdown, '{"steps": []}', "non-empty list"),
    (check_breakdown, '{"steps": ["a", ""]}', "step 2"),
    (check_breakdown, '["a", "b"]', "not a JSON object"),
    (check_step, step_reply(rating=3), "rating must be 0, 1 or 2"),
    (check_step, step_reply(rating=True), "rating must be 0, 1 or 2"),
    (check_step, step_reply(sound=2), "is_sound must be 0 or 1"),
    (check_step, step_reply(gap="no"), "has_logical_gap must be 0 or 1"),
    (check_step, step_reply().replace('"issues": []', '"issues": "none"'), "issues must be a list"),
    (check_step, '{"is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, "rating": 2, "issues": [], '
                 '"comment": ""}', "no 'missing_justification'"),
    (check_reasoning_summary, '{"completeness": 120, "logical_coherence": 50, "comment": ""}', "outside [0, 100]"),
    (check_reasoning_summary, '{"completeness": 20, "logical_coherence": -1, "comment": ""}', "outside [0, 100]"),
    (check_reasoning_summary, '{"completeness": "high", "logical_coherence": 50, "comment": ""}', "must be a number"),
    (check_reasoning_summary, '{"completeness": 50, "comment": ""}', "no 'logical_coherence'"),
    (check_hint_summary, '{"hint_alignment": 100.5, "comment": ""}', "outside [0, 100]"),
    (check_hint_summary, '{"hint_alignment": NaN, "comment": ""}', "must be a number"),
])
def test_a_reply_that_is_not_the_review_says_why(check, reply, why):
    with pytest.raises(ReviewError, match=re.escape(why)):
        check(reply)


@pytest.mark.parametrize("reply, why", [
    (hint_reply("followed"), "alignment must be one of"),
    (hint_reply("aligned", [3]), "hint numbers from 1 to 2"),
    (hint_reply("aligned", [0]), "hint numbers from 1 to 2"),
    (hint_reply("aligned", ["1"]), "hint numbers from 1 to 2"),
    (hint_reply("deviated", [1], justified=1), "deviation_justified must be true, false or null"),
    (hint_reply("deviated", [1], justified=True, quality="excellent"), "justification_quality must be"),
])
def test_a_hint_review_is_checked_against_the_items_hints(reply, why):
    with pytest.raises(ReviewError, match=re.escape(why)):
        check_hint(reply, hints=2)


# --------------------------------------------------------------------------------------------------
# Evidence (F_R, F_H)
# --------------------------------------------------------------------------------------------------
def review(prev, rating, sound, gap=0, contradiction=0, missing=0, issues=()):
    return {"steps": [prev, prev + 1], "is_sound": sound, "has_logical_gap": gap, "has_contradiction": contradiction,
            "missing_justification": missing, "rating": rating, "issues": list(issues), "comment": f"c{prev}"}


def test_reasoning_evidence_counts_the_pair_reviews():
    steps = ["read the waveform", "four components", "impedance of D", "check the data", "answer D"]
    reviews = [review(1, 0, 0, gap=1, missing=1, issues=["no derivation"]), review(2, 2, 1),
               review(3, 2, 1), review(4, 0, 0, gap=1, issues=["leap to the answer", "no bridge"])]
    text = reasoning_evidence(steps, reviews)
    assert "Step 5: answer D" in text
    assert ("Steps 4 → 5: rating 0/2; is_sound 0, has_logical_gap 1, has_contradiction 0, missing_justification 0"
            in text)
    assert "  issues: leap to the answer; no bridge" in text
    stats = text.split("[Statistics]\n")[1].splitlines()
    assert stats == ["steps: 5; adjacent pairs reviewed: 4", "is_sound: 2 of 4 pairs", "has_logical_gap: 2 of 4 pairs",
                     "has_contradiction: 0 of 4 pairs", "missing_justification: 1 of 4 pairs",
                     "ratings: 0/2 × 2, 1/2 × 0, 2/2 × 2; mean 1.00/2", "issues: 3 in all"]


def test_a_single_step_trace_has_no_pairs():
    text = reasoning_evidence(["The answer is 4."], [])
    assert "no adjacent pair" in text and text.endswith("steps: 1; adjacent pairs reviewed: 0")


def test_hint_evidence_counts_alignment_and_justification():
    hints = ["Colour the board.", "Compare the two colours.", "Use induction."]
    reviews = [{"alignment": "aligned", "relevant_hints": [1], "deviation_justified": None,
                "justification_quality": None, "comment": "x"},
               {"alignment": "deviated", "relevant_hints": [2], "deviation_justified": True,
                "justification_quality": "strong", "comment": "x"},
               {"alignment": "deviated", "relevant_hints": [2], "deviation_justified": False,
                "justification_quality": "none", "comment": "x"},
               {"alignment": "neutral", "relevant_hints": [], "deviation_justified": None,
                "justification_quality": None, "comment": "x"}]
    text = hint_evidence(hints, ["s1", "s2", "s3", "s4"], reviews)
    assert "Hint 3: Use induction." in text
    assert "  alignment: deviated; relevant hints: 2; deviation justified: true; justification quality: strong" in text
    assert text.split("[Statistics]\n")[1].splitlines() == [
        "steps: 4; aligned: 1; deviated: 2; neutral: 1",
        "deviations justified: 1 of 2; their justification quality: strong 1, weak 0, none 1, null 0",
        "hints followed by some step: 1; deviated from: 2; borne on by no step: 3"]


# --------------------------------------------------------------------------------------------------
# The judges end to end, against a scripted judge model
# --------------------------------------------------------------------------------------------------
HINTS = ["Colour the board like a chessboard.", "Compare the numbers of black and white squares."]
TRACES = {  # trace → its steps
    "Colour it. Count 8 black, 6 white. Black minus white is 2. A domino covers one of each. So no tiling.":
        ["Colour it.", "Count 8 black, 6 white.", "Black minus white is 2.", "A domino covers one of each.",
         "So no tiling."],
    "No": ["No"],
}
PAIRS = {  # the later step of a pair → its review
    "Count 8 black, 6 white.": step_reply(2),
    "Black minus white is 2.": step_reply(1, gap=1, issues=["the count is not shown"]),
    "A domino covers one of each.": step_reply(2),
    "So no tiling.": step_reply(0, sound=0, missing=1, issues=["no bridge to the answer"]),
}
HINT_STEPS = {  # step → its hint review
    "Colour it.": hint_reply("aligned", [1]),
    "Count 8 black, 6 white.": hint_reply("aligned", [2]),
    "Black minus white is 2.": hint_reply("aligned", [2]),
    "A domino covers one of each.": hint_reply("deviated", [1], True, "strong"),
    "So no tiling.": hint_reply(),
}


def inside(prompt):
    return quoted(prompt)[-1]


def stat(prompt, pattern):
    return float(re.search(pattern, inside(prompt)).group(1))


def judge_model(body, attempt):
    """A judge that follows the templates. Its summary scores are read off the evidence, so a verdict's
    score shows what the evidence carried: completeness = 50 × mean rating, coherence = 100 × the share of
    sound pairs; HAlign = 100 × aligned / (aligned + deviated)."""
    prompt = body["messages"][0]["content"]
    if "step-breakdown tool" in prompt:
        steps = TRACES.get(inside(prompt))
        return Reply.ok(json.dumps({"steps": steps}) if steps else "There is nothing to decompose.")
    if "step-checking tool" in prompt:
        return Reply.ok(PAIRS[inside(prompt).split("]\n")[-1]])
    if "hint-checking tool" in prompt:
        return Reply.ok(HINT_STEPS[inside(prompt).split("the step to review]\n")[1]])
    if "reasoning judge" in prompt:
        if "adjacent pairs reviewed: 0" in prompt:
            return Reply.ok('{"completeness": 20, "logical_coherence": 90, "comment": "one step"}')
        pairs = stat(prompt, r"adjacent pairs reviewed: (\d+)")
        return Reply.ok(json.dumps({"completeness": 50 * stat(prompt, r"mean ([\d.]+)/2"),
                                    "logical_coherence": 100 * stat(prompt, r"is_sound: (\d+) of") / pairs,
                                    "comment": "from the evidence"}))
    if "hint judge" in prompt:
        aligned, deviated = stat(prompt, r"aligned: (\d+);"), stat(prompt, r"deviated: (\d+);")
        return Reply.ok(json.dumps({"hint_alignment": 100 * aligned / (aligned + deviated), "comment": "c"}))
    raise AssertionError(f"unexpected judge request: {prompt[:80]}")


def records(hints=True):
    recs = [{"id": i, "benchmark": "morphobench", "question": f"Can board {i} be tiled by dominoes?", "images": [],
             "choices": [], "answer": ["No"], "answer_type": "text"} for i in "abc"]
    if hints:
        recs[0]["hints"] = HINTS
    return recs


def raws(*lines):
    return [{"id": i, "sample_idx": 0, "request_key": f"k{i}", "error": None, "response": response,
             "reasoning": reasoning} for i, response, reasoning in lines]


LONG = next(iter(TRACES))
# A thinking model's output: its reasoning apart, its final response. The trajectory reviewed is both, in order.
REASONED = ("Colour it. Count 8 black, 6 white. Black minus white is 2. A domino covers one of each.", "So no tiling.")
TRACES["\n\n".join(REASONED)] = TRACES[LONG]


def judge(tmp_path, srv, name, cfg=None):
    return run("morphobench", tmp_path / "d.jsonl", "m", "s", name, tmp_path / "results",
               cfg or judge_config(tmp_path, srv.base_url))


def prompts_of(srv, marker):
    return [r["messages"][0]["content"] for r in srv.requests if marker in r["messages"][0]["content"]]


def test_reasoning_quality_from_the_evidence(tmp_path, scripted_server):
    srv = scripted_server(script=judge_model)
    # a: the trajectory is the separate reasoning, then the final response; b: the response alone, one step
    setup(tmp_path, "morphobench", raws(("a", REASONED[1], REASONED[0]), ("b", "No", None)), records())
    s = judge(tmp_path, srv, "morphobench_reasoning")
    v = {x["id"]: x for x in verdicts(tmp_path, "morphobench_reasoning", "morphobench")}
    # a: ratings 2, 1, 2, 0 → mean 1.25 → completeness 62.5; sound 3 of 4 → coherence 75
    assert v["a"]["status"] == "ok" and v["a"]["score"] == {"completeness": 62.5, "coherence": 75}
    assert v["a"]["steps"] == TRACES[LONG]
    assert [(r["steps"], r["rating"], r["is_sound"]) for r in v["a"]["reviews"]] == [
        ([1, 2], 2, 1), ([2, 3], 1, 1), ([3, 4], 2, 1), ([4, 5], 0, 0)]
    assert v["b"]["score"] == {"completeness": 20, "coherence": 90} and v["b"]["reviews"] == []
    assert (s["scored"], s["judge_error"]) == (2, 0)
    # calls: a = breakdown + 4 pair checks + summary, b = breakdown + summary
    assert srv.count == 6 + 2
    # each pair check sees the two steps and the problem; the summary sees the evidence
    check = next(p for p in prompts_of(srv, "step-checking tool") if "[Step 4: the later step]" in p)
    assert "[Step 3: the earlier step]\nBlack minus white is 2.\n\n[Step 4: the later step]\nA domino covers one of each." in inside(check)
    assert "Can board a be tiled by dominoes?" in check
    breakdown = next(p for p in prompts_of(srv, "step-breakdown tool") if "Colour it." in p)
    assert inside(breakdown) == f"{REASONED[0]}\n\n{REASONED[1]}"
    summary = next(p for p in prompts_of(srv, "reasoning judge") if "Colour it." in p)
    assert "has_logical_gap: 1 of 4 pairs" in summary and "issues: no bridge to the answer" in summary


def test_the_whole_trace_is_reviewed(tmp_path, scripted_server):
    trace = " ".join(f"Line {i}: the count of black squares stays even." for i in range(5000)) + " LAST"
    trajectory = trace + "\n\nThe final answer is No."
    TRACES[trajectory] = ["Count.", "Black minus white is 2."]
    try:
        srv = scripted_server(script=judge_model)
        setup(tmp_path, "morphobench", raws(("a", "The final answer is No.", trace)), records()[:1])
        judge(tmp_path, srv, "morphobench_reasoning")
    finally:
        del TRACES[trajectory]
    (breakdown,) = prompts_of(srv, "step-breakdown tool")
    # every character of the reasoning, up to "LAST", then the final response
    assert len(trace) > 200_000 and inside(breakdown) == trajectory
    (v,) = verdicts(tmp_path, "morphobench_reasoning", "morphobench")
    assert v["score"] == {"completeness": 50 * 1.0, "coherence": 100.0}


def test_hint_alignment_on_hint_items_only_and_one_breakdown_for_both_judges(tmp_path, scripted_server):
    srv = scripted_server(script=judge_model)
    # b has no hints; its response is a's reasoning and response: the same trajectory
    setup(tmp_path, "morphobench", raws(("a", REASONED[1], REASONED[0]), ("b", "\n\n".join(REASONED), None)), records())
    judge(tmp_path, srv, "morphobench_reasoning")
    # stage by stage: one breakdown for the shared trace, then the pair checks of both items at once
    log = [json.loads(x)["setting"] for x in judge_cache_path(tmp_path / "results", "j").read_text().splitlines()]
    assert log == ["judge:morphobench_breakdown"] + ["judge:morphobench_step_check"] * 8 + [
        "judge:morphobench_reasoning_summary"] * 2
    before = srv.count
    s = judge(tmp_path, srv, "morphobench_hint")
    v = {x["id"]: x for x in verdicts(tmp_path, "morphobench_hint", "morphobench")}
    # a: aligned 3, deviated 1 (justified, strong), neutral 1 → 100 × 3 / 4
    assert v["a"]["status"] == "ok" and v["a"]["score"] == {"halign": 75}
    assert [r["alignment"] for r in v["a"]["reviews"]] == ["aligned", "aligned", "aligned", "deviated", "neutral"]
    assert v["b"]["status"] == "ok" and v["b"]["score"] == {"halign": None} and v["b"]["stage"] == "no_hints"
    assert s["judge_error"] == 0
    # the breakdown was logged by the reasoning judge: the hint judge pays 5 hint checks and its summary
    assert srv.count - before == 5 + 1
    assert len(prompts_of(srv, "step-breakdown tool")) == 1  # a and b have the same trace: one request
    # each hint check sees the question, the numbered hints and the earlier steps (Eq. 26)
    fourth = next(p for p in prompts_of(srv, "hint-checking tool") if "[Step 4: the step to review]" in p)
    assert "[Hints]\n1. Colour the board like a chessboard.\n2. Compare the numbers" in fourth
    assert "[Earlier steps]\nStep 1: Colour it.\nStep 2: Count 8 black, 6 white.\nStep 3: Black minus white is 2." \
        in inside(fourth)
    first = next(p for p in prompts_of(srv, "hint-checking tool") if "[Step 1: the step to review]" in p)
    assert "(none: this is the first step)" in first
    summary = prompts_of(srv, "hint judge")[0]
    assert "deviations justified: 1 of 1; their justification quality: strong 1" in summary


def test_an_empty_trace_is_no_response_and_costs_no_call(tmp_path, scripted_server):
    srv = scripted_server(script=judge_model)
    setup(tmp_path, "morphobench", raws(("a", "  ", None)), records()[:1])
    for name in ("morphobench_reasoning", "morphobench_hint"):
        s = judge(tmp_path, srv, name)
        (v,) = verdicts(tmp_path, name, "morphobench")
        assert v["status"] == "no_response" and "empty reply" in v["error"] and "score" not in v
        assert s["no_response"] == 1
    assert srv.count == 0


def failing(where, reply):
    """The scripted judge, except that requests containing `where` in the text it reviews get `reply`."""
    def script(body, attempt):
        prompt = body["messages"][0]["content"]
        return reply if where(prompt) else judge_model(body, attempt)
    return script


@pytest.mark.parametrize("name, where, reply, stage, why", [
    ("morphobench_reasoning", lambda p: "step-breakdown tool" in p, Reply.ok("Here are the steps: first, colour."),
     "breakdown", "step breakdown: the reply is not a JSON object"),
    ("morphobench_reasoning", lambda p: "step-checking tool" in p and "Black minus white is 2.\n<<<RESPONSE_END" in p,
     Reply.ok("Sound."), "step_check", "1 of 4 step checks failed; steps 2 → 3: the reply is not a JSON object"),
    ("morphobench_reasoning", lambda p: "step-checking tool" in p and "[Step 5: the later step]" in p, Reply.ok(step_reply(rating=5)),
     "step_check", "1 of 4 step checks failed; steps 4 → 5: rating must be 0, 1 or 2, not 5"),
    ("morphobench_reasoning", lambda p: "reasoning judge" in p, Reply.ok("Completeness is high."),
     "summary", "summary: the reply is not a JSON object"),
    ("morphobench_reasoning", lambda p: "reasoning judge" in p,
     Reply.ok('{"completeness": 140, "logical_coherence": 80, "comment": ""}'), "summary",
     "summary: completeness 140 is outside [0, 100]"),
    ("morphobench_reasoning", lambda p: "reasoning judge" in p, Reply.error(500), "summary", "summary: "),
    ("morphobench_hint", lambda p: "step-breakdown tool" in p, Reply.ok('{"steps": []}'),
     "breakdown", "step breakdown: steps must be a non-empty list"),
    ("morphobench_hint", lambda p: "hint-checking tool" in p and "review]\nSo no tiling." in p,
     Reply.ok(hint_reply("aligned", [3])), "hint_check",
     "1 of 5 hint checks failed; step 5: relevant_hints must be a list of hint numbers from 1 to 2, not [3]"),
    ("morphobench_hint", lambda p: "hint judge" in p, Reply.ok('{"hint_alignment": -5, "comment": ""}'),
     "summary", "summary: hint_alignment -5 is outside [0, 100]"),
])
def test_every_failure_is_a_judge_error_without_a_score(tmp_path, scripted_server, name, where, reply, stage, why):
    srv = scripted_server(script=failing(where, reply))
    setup(tmp_path, "morphobench", raws(("a", REASONED[1], REASONED[0])), records()[:1])
    s = judge(tmp_path, srv, name)
    (v,) = verdicts(tmp_path, name, "morphobench")
    assert v["status"] == "judge_error" and v["stage"] == stage and v["error"].startswith(why)
    assert "score" not in v and v["correct"] is None
    assert (s["scored"], s["judge_error"]) == (0, 1)
    if stage != "breakdown":
        assert v["steps"] == TRACES[LONG]  # kept to show where the review stopped


def test_a_rerun_repeats_no_call(tmp_path, scripted_server):
    srv = scripted_server(script=failing(lambda p: "reasoning judge" in p and "adjacent pairs reviewed: 0" in p,
                                         Reply.ok("unreadable")))
    setup(tmp_path, "morphobench", raws(("a", REASONED[1], REASONED[0]), ("b", "No", None), ("c", "No", None)), records())
    first = {name: judge(tmp_path, srv, name) for name in ("morphobench_reasoning", "morphobench_hint")}
    assert first["morphobench_reasoning"]["judge_error"] == 2  # b and c: their summaries are unreadable
    calls = srv.count
    # the same run again: judge errors are tried again, but the judge's log answers every request
    for name in first:
        assert judge(tmp_path, srv, name)["judge_error"] == first[name]["judge_error"]
    assert srv.count == calls
    # a new verdict file (e.g. results moved) costs no call either: the judge's log is the cache
    judged_dir(tmp_path / "results").rename(tmp_path / "old")
    for name in first:
        judge(tmp_path, srv, name)
    assert srv.count == calls


def test_the_judge_sends_no_parameter_its_config_marks_unsupported(tmp_path, scripted_server):
    srv = scripted_server(script=judge_model)
    setup(tmp_path, "morphobench", raws(("a", REASONED[1], REASONED[0])), records()[:1])
    path = tmp_path / "o3.yaml"
    path.write_text(f"name: o3-like\nmodel: judge\nbase_urls: [{srv.base_url}]\nmodalities: [text]\nmax_retries: 1\n"
                    "max_tokens: 1000\ntoken_limit_field: max_completion_tokens\nunsupported_params: [temperature]\n")
    for name in ("morphobench_reasoning", "morphobench_hint"):
        assert judge(tmp_path, srv, name, load_model_config(path))["scored"] == 1
    assert srv.requests and all("temperature" not in r and "max_tokens" not in r and r["max_completion_tokens"] == 1000
                                for r in srv.requests)
    o3 = load_model_config(Path("configs/models/paper/o3-mini.yaml"))  # the paper's judge (Appendix B)
    assert "temperature" in o3.unsupported_params and "temperature" not in o3.generation_params()


def test_the_judges_are_registered_and_share_the_breakdown_prompt():
    reasoning, hint = JUDGES["morphobench_reasoning"], JUDGES["morphobench_hint"]
    assert reasoning.prompts[0] == hint.prompts[0] == BREAKDOWN
    for p in {*reasoning.prompts, *hint.prompts}:
        assert (Path("prompts/judges") / f"{p}.txt").is_file()


# the paper's words in the templates (the paper prints no prompt for these tools: the rest is ours)
PAPER_WORDS = {
    "morphobench_step_check": ["is_sound", "has_logical_gap", "has_contradiction", "missing_justification",
                               "Sound", "Minor Issue", "Gap", "Contradiction", "Logical Leap"],
    "morphobench_reasoning_summary": [
        "Completeness measures whether essential intermediate steps are covered, while Logical Coherence measures "
        "whether the chain is internally consistent throughout.",
        "covers key steps required for solving the problem",
        "logical self-consistency, supported by evidence such as contradiction detection, logical-gap statistics, "
        "and aggregated issue summaries"],
    "morphobench_hint_check": [
        "evaluates alignment with the provided hints rather than the factual correctness or helpfulness of the hints",
        "aligned", "deviated", "neutral", "strong", "weak"],
    "morphobench_hint_summary": [
        "evaluates whether the model's reasoning behavior follows the provided hints",
        "evaluates alignment with the provided hints rather than the factual correctness or helpfulness of the hints"],
}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the papers' texts are not beside the project")
@pytest.mark.parametrize("prompt", list(PAPER_WORDS))
def test_the_papers_words_are_quoted_exactly(prompt):
    (path,) = SEEDS.glob("004_*.txt")
    paper = normalise(path.read_text(encoding="utf-8").replace("*", ""))
    template = strip_comments((Path("prompts/judges") / f"{prompt}.txt").read_text(encoding="utf-8"))
    for words in PAPER_WORDS[prompt]:
        assert words in template, words
        assert normalise(words) in paper, words
