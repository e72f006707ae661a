"""OMIBench's ACC as Appendix C.1 publishes it (judge `omibench_c1`): Eq. 6's LCS ratio ≥ 0.75 worked out by
hand, numbers within 1e-4 after units, the fall-back to normalised strings, multiple choice by letter and
by option text; where it differs from the careful rule judge; its command line and judge.run without a
judge model."""
from __future__ import annotations

import json

import pytest

from data.jsonl import write_jsonl_atomic
from infer.layout import judged_path, raw_path
from judge import omibench_c1 as c1
from judge import injection, rules
from judge import run as judge_run
from judge.judges import JUDGES, asks_model, default_judges


def rec(answer, answer_type="open", choices=(), **kw):
    return {"id": "t", "benchmark": "omibench", "question": "Q", "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type, **kw}


def c1_verdict(gold, response, **kw):
    return c1.score(rec(gold, **kw), response)


def careful(gold, response, **kw):
    return rules.score(rec(gold, **kw), response)["correct"]


# --- Eq. 6 by hand ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pred, gold, ratio", [
    ("cats", "cat", 3 / 4),                    # LCS "cat": 3 of 4
    ("impossible", "possible", 8 / 10),        # LCS "possible": 8 of 10
    ("decreases", "increases", 7 / 9),         # LCS "creases": 7 of 9
    ("tetragonal", "trigonal", 7 / 10),        # LCS "trgonal" (trigonal's i is not in tetragonal): 7 of 10
    ("abcdefghijk", "abcdefghijklmno", 11 / 15),
    ("The Polygon, can be tiled.", "the polygon can be tiled", 1.0),  # equal once normalised
])
def test_eq6_ratio_is_the_lcs_over_the_longer_normalised_string(pred, gold, ratio):
    assert c1.lcs_ratio(pred, gold) == pytest.approx(ratio)


def test_alpha_is_inclusive_and_what_is_just_below_it_is_rejected():
    at = c1_verdict(["cat"], "so \\boxed{cats}")
    assert (at["correct"], at["rule"], at["ratio"]) == (True, "lcs", 0.75)
    below = c1_verdict(["abcdefghijklmno"], "\\boxed{abcdefghijk}")   # 11/15 = 0.733
    assert below["correct"] is False and below["ratio"] == pytest.approx(0.7333, abs=1e-4)
    assert c1_verdict(["trigonal"], "\\boxed{tetragonal}")["correct"] is False   # 0.70


def test_normalisation_is_c1s_text():
    # lower case, one space, periods / commas / question marks stripped unless inside a token, colons and
    # semicolons only where they trail a word
    assert c1.normalize("  The Answer:  3.14, and 1,000 apples?  ") == "the answer 3.14 and 1,000 apples"
    assert c1.normalize("e.g. the ratio 3:2; done.") == "e.g the ratio 3:2 done"
    assert c1.normalize("$x^2$") == c1.normalize("x^2") == "x^2"   # both sides get the same clean-up


# --- the published rule against the careful one ---------------------------------------------------------

@pytest.mark.parametrize("gold, response", [
    ("possible", "\\boxed{impossible}"),                 # 0.8
    ("increases", "The pressure \\boxed{decreases}"),    # 7/9 = 0.78
    ("exothermic", "\\boxed{endothermic}"),              # LCS "eothermic": 9/11 = 0.82
    ("ABCD", "\\boxed{ABDC}"),                         # LCS "abc": 3 of 4
    ("1, 2, 3, 4, 5, 6", "\\boxed{1, 2, 3, 4, 6, 5}"),   # "1 2 3 4 " and one of 5 / 6: 9 of 11
    ("1.6e-19", "\\boxed{1.7e-19}"),                     # |Δ| = 1e-20 ≤ 1e-4
])
def test_c1_accepts_what_the_careful_rule_rejects(gold, response):
    assert c1_verdict([gold], response)["correct"] is True
    assert careful([gold], response) is False


@pytest.mark.parametrize("gold, response", [
    ("0.5", "\\boxed{\\frac{1}{2}}"),   # not a number to parse: normalised strings differ
    ("5", "\\boxed{x = 5}"),
])
def test_c1_rejects_equal_values_it_cannot_parse_as_numbers(gold, response):
    v = c1_verdict([gold], response)
    assert (v["correct"], v["rule"]) == (False, "string")
    assert careful([gold], response) is True


# --- numbers --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("gold, response, correct", [
    ("12.5 cm", "\\boxed{12.50005 cm}", True),      # |Δ| = 5e-5
    ("12.5 cm", "\\boxed{12.5}", True),            # the unit removed
    ("12.5 cm", "\\boxed{12.5002 cm}", False),     # |Δ| = 2e-4
    ("2", "\\boxed{2.0001}", True),                # |Δ| = ε exactly: Eq. 7 is ≤
    ("2", "\\boxed{2.00011}", False),
    ("5 m/s", "The speed is \\boxed{5.00009\\ \\mathrm{m/s}}", True),
])
def test_numbers_within_eps_after_units(gold, response, correct):
    v = c1_verdict([gold], response)
    assert (v["correct"], v["rule"]) == (correct, "number")


def test_unparseable_input_falls_back_to_normalised_string_matching():
    v = c1_verdict(["5"], "\\boxed{5?}")            # "5?" is no number; normalised it is "5"
    assert (v["correct"], v["rule"]) == (True, "string")
    v = c1_verdict(["5"], "\\boxed{about 5}")
    assert (v["correct"], v["rule"]) == (False, "string")


# --- multiple choice ------------------------------------------------------------------------------------

OPTIONS = ["decreases", "increases", "stays the same"]


def test_mcq_by_boxed_letter():
    assert c1_verdict(["B"], "so \\boxed{B}", answer_type="mcq", choices=OPTIONS) == \
        {"status": "ok", "extracted": "B", "correct": True, "rule": "letter"}
    wrong = c1_verdict(["B"], "\\boxed{A}", answer_type="mcq", choices=OPTIONS)
    assert (wrong["correct"], wrong["rule"]) == (False, "letter")   # a stated letter is never read as text
    assert c1_verdict(["A", "C"], "\\boxed{A, C}", answer_type="mcq", choices=OPTIONS)["correct"] is True
    assert c1_verdict(["A", "C"], "\\boxed{A}", answer_type="mcq", choices=OPTIONS)["correct"] is False
    inline = c1_verdict(["B"], "\\boxed{(B)}", has_inline_choices=True)   # options printed in the question
    assert inline["correct"] is True


def test_mcq_is_read_from_the_box_only():
    """C.1: "we extract predictions from model outputs via regex matching of boxed notation (e.g., \\boxed{A})":
    an unboxed letter states no prediction under C.1, while the careful rule judge still reads it."""
    for response in ("Thinking.\nAnswer: B", "The answer is (B).", "Thinking.\nB"):
        v = c1_verdict(["B"], response, answer_type="mcq", choices=OPTIONS)
        assert v == {"status": "ok", "extracted": None, "correct": False, "rule": "no boxed answer"}, response
        assert careful(["B"], response, answer_type="mcq", choices=OPTIONS) is True
    assert c1_verdict(["B"], "Answer: A, then \\boxed{B}", answer_type="mcq", choices=OPTIONS)["correct"] is True
    assert c1_verdict(["B"], "\\boxed{B} at first; \\boxed{A}", answer_type="mcq", choices=OPTIONS)["correct"] is False
    assert c1_verdict(["B"], "Answer: increases", answer_type="mcq", choices=OPTIONS)["correct"] is False
    assert c1_verdict(["B"], "Answer: (B)", has_inline_choices=True)["correct"] is False


def test_a_prediction_given_as_such_is_matched_without_reading_a_box():
    """A person's answer (Table 8) is the prediction itself: C.1 matches it as given."""
    assert c1.score_prediction(rec(["B"], "mcq", OPTIONS), "B")["correct"] is True
    assert c1.score_prediction(rec(["B"], "mcq", OPTIONS), "increases")["rule"] == "option text (lcs)"
    assert c1.score_prediction(rec(["7"]), "7 cm")["correct"] is True
    assert c1.score_prediction(rec(["7"]), " ")["correct"] is False


def test_mcq_by_option_text():
    v = c1_verdict(["B"], "\\boxed{Increases.}", answer_type="mcq", choices=OPTIONS)
    assert (v["correct"], v["rule"], v["ratio"]) == (True, "option text (lcs)", 1.0)
    # option A's text is 7/9 like option B's: C.1 accepts it, the careful judge maps it to A
    v = c1_verdict(["B"], "\\boxed{decreases}", answer_type="mcq", choices=OPTIONS)
    assert v["correct"] is True and v["ratio"] == pytest.approx(0.7778, abs=1e-4)
    assert careful(["B"], "\\boxed{decreases}", answer_type="mcq", choices=OPTIONS) is False
    assert c1_verdict(["C"], "\\boxed{same}", answer_type="mcq", choices=OPTIONS)["correct"] is False  # 4/14
    numbers = ["12", "15"]
    assert c1_verdict(["B"], "\\boxed{15.00004}", answer_type="mcq", choices=numbers)["rule"] == "option text (number)"


# --- what the prediction is; multi-part golds --------------------------------------------------------

def test_prediction_is_the_last_box_else_the_answer_line_else_the_last_line():
    assert c1_verdict(["possible"], "\\boxed{no} wait, \\boxed{possible}")["extracted"] == "possible"
    assert c1_verdict(["possible"], "Thinking.\nAnswer: possible\nDone")["correct"] is True
    last = c1_verdict(["possible"], "Thinking.\nIt is possible")   # the whole last line: 8/14
    assert (last["extracted"], last["correct"]) == ("It is possible", False)
    assert c1_verdict(["possible"], "") == {"status": "ok", "extracted": None, "correct": False, "rule": "no answer"}
    assert c1_verdict(["possible"], None)["correct"] is False


def test_a_multi_part_gold_is_compared_whole():
    # the parts joined by ", ": "24, 60" normalises to "24 60"
    assert c1_verdict(["24", "60"], "\\boxed{24}, \\boxed{60}")["correct"] is True   # the last boxes together
    assert c1_verdict(["24", "60"], "\\boxed{24; 60}")["correct"] is True
    only = c1_verdict(["24", "60"], "\\boxed{60}")                                   # 2 of 5 characters
    assert (only["correct"], only["ratio"]) == (False, 0.4)


# --- registration, command line, judge.run ------------------------------------------------------------

def test_registered_as_a_judge_that_asks_no_model():
    assert not asks_model("omibench_c1") and not asks_model("rules") and asks_model("omibench_gptscore")
    assert "omibench_c1" in default_judges("omibench") and JUDGES["omibench_c1"].version


def records_and_predictions(tmp_path):
    records = [rec(["possible"]) | {"id": "p"}, rec(["B"], "mcq", OPTIONS) | {"id": "m"},
               rec(["7"]) | {"id": "n"}]
    write_jsonl_atomic(tmp_path / "d.jsonl", records)
    preds = [{"id": "p", "response": "\\boxed{impossible}"}, {"id": "m", "response": "\\boxed{decreases}"},
             {"id": "n", "response": None}]
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    return tmp_path / "d.jsonl", tmp_path / "pred.jsonl"


def test_cli_scores_with_the_judge_named(tmp_path, capsys):
    data, pred = records_and_predictions(tmp_path)
    args = ["--data", str(data), "--pred", str(pred), "--out"]
    assert rules.main([*args, str(tmp_path / "c1.jsonl"), "--judge", "omibench_c1"]) == 0
    out = {v["id"]: v for v in map(json.loads, (tmp_path / "c1.jsonl").read_text().splitlines())}
    assert out["p"]["correct"] is True and out["m"]["correct"] is True and out["n"]["status"] == "no_response"
    assert out["p"]["status"] == "ok" and out["p"]["extracted"] == "impossible"
    assert "accuracy 66.67% (2/3 records" in capsys.readouterr().out
    assert rules.main([*args, str(tmp_path / "rules.jsonl")]) == 0   # default: the careful rule
    assert "accuracy 0.00% (0/3 records" in capsys.readouterr().out
    with pytest.raises(SystemExit):   # a judge that asks a model has no place here
        rules.main([*args, str(tmp_path / "x.jsonl"), "--judge", "omibench_gptscore"])


def test_judge_run_needs_no_judge_model(tmp_path, capsys):
    data, _ = records_and_predictions(tmp_path)
    raw = raw_path(tmp_path / "results", "omibench", "m", "s")
    raw.parent.mkdir(parents=True)
    raw.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "p", "sample_idx": 0, "request_key": "k1", "response": "\\boxed{impossible}", "error": None},
        {"id": "m", "sample_idx": 0, "request_key": "k2", "response": "\\boxed{B}", "error": None},
        {"id": "n", "sample_idx": 0, "request_key": "k3", "response": None, "error": "HTTP 503"}]))
    s = judge_run.run("omibench", data, "m", "s", "omibench_c1", tmp_path / "results")
    assert (s["correct"], s["scored"], s["no_response"]) == (2, 2, 1)
    line = json.loads(judged_path(tmp_path / "results", "omibench", "m", "s", "omibench_c1")
                      .read_text().splitlines()[0])
    assert line["judge"] == {"name": "omibench_c1", "model": None,
                             "prompt_sha": f"{JUDGES['omibench_c1'].version}+{injection.VERSION}"}
    base = ["--bench", "omibench", "--data", str(data), "--model", "m", "--setting", "s",
            "--results", str(tmp_path / "results")]
    assert judge_run.main([*base, "--judge", "omibench_c1"]) == 0
    # "default": the careful rule and C.1 run without a judge model; GPTScore says it needs one
    assert judge_run.main([*base, "--judge", "default"]) == 1
    printed = capsys.readouterr()
    assert "s.rules.jsonl: accuracy" in printed.out and "s.omibench_c1.jsonl: accuracy 66.67%" in printed.out
    assert "--judge omibench_gptscore is an LLM judge" in printed.err
