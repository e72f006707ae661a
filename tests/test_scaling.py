"""Test-time scaling analyses (OMIBench H.1–H.3): vote keys, majority vote, maj@k / avg@k / pass@k,
parallel scaling over verdicts, saturation point and sequential budgets. Expected values by hand."""
import itertools
import json
import math
from fractions import Fraction

import pytest

from analysis.inputs import latest
from analysis.omibench.scaling import (avg_at_k, failed_sample, maj_at_k, majority_vote, parallel_scaling, pass_at_k,
                                       saturation_point, sequential_scaling)
from analysis.omibench.votes import vote_key

NUM = {"id": "n", "benchmark": "omibench", "answer": ["1/2"], "answer_type": "numeric", "choices": []}
MCQ = {"id": "m", "benchmark": "omibench", "answer": ["C"], "answer_type": "mcq", "choices": ["dog", "cat", "cow", "ox"]}
TEXT = {"id": "t", "benchmark": "omibench", "answer": ["the cat"], "answer_type": "text", "choices": []}
PARTS = {"id": "p", "benchmark": "omibench", "answer": ["1/2", "3"], "answer_type": "multi-part", "choices": []}


# ---------------------------------------------------------------- pass@k

def brute_pass_at_k(n, c, k):
    """Fraction of the k-subsets of n samples (c correct) that contain a correct one."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(n, c, k), abs=1e-12), (n, c, k)


def test_pass_at_k_known_values_and_large_n():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)        # pass@1 is c / n
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)         # 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 3, 3) == 1.0
    exact = 1 - Fraction(math.comb(1000 - 7, 100), math.comb(1000, 100))  # C(1000,100) ≈ 6e139
    assert pass_at_k(1000, 7, 100) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("n,c,k", [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_pass_at_k_rejects_impossible_arguments(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


# ---------------------------------------------------------------- vote keys

def test_half_written_three_ways_is_one_vote():
    keys = {vote_key(s, NUM) for s in ["0.50", "1/2", r"\frac{1}{2}", r"$\dfrac{1}{2}$", r"5\times10^{-1}", "x = 0.5"]}
    assert keys == {"0.5"}


def test_vote_keys_by_answer_kind():
    assert vote_key(None, NUM) is None and vote_key("", NUM) is None and vote_key("  ", NUM) is None
    assert vote_key("12345", NUM) != vote_key("12346", NUM)            # distinct integers stay distinct
    assert vote_key("1,000", NUM) == vote_key("1000", NUM) == "1000"
    assert vote_key("0.1+0.2", NUM) == vote_key("0.3", NUM)           # float noise removed
    assert vote_key("0.3333", NUM) != vote_key("1/3", NUM)            # precision is not rounded away
    assert vote_key("x+1", NUM) == vote_key("1 + x", NUM)
    assert vote_key("b+B", NUM) != vote_key("b+b", NUM)               # case kept when b and B both occur
    assert vote_key("The Cat.", TEXT) == vote_key("the  cat", TEXT) == "the cat"
    assert vote_key("1/2; 3", PARTS) == vote_key("0.5, 3.0", PARTS) == "0.5; 3"


def test_mcq_vote_keys_are_sorted_letters():
    assert vote_key("C", MCQ) == vote_key("(C)", MCQ) == vote_key("Option C", MCQ) == vote_key("cow", MCQ) == "C"
    assert vote_key("C, A", MCQ) == vote_key("A and C", MCQ) == "AC"
    assert vote_key("none of them", MCQ) == "none of them"            # still an answer (a wrong one)


# ---------------------------------------------------------------- majority vote

def test_majority_vote_plain_winner_and_correctness_of_its_sample():
    assert majority_vote([(0, "A", False), (1, "B", True), (2, "B", True)]) == ("B", True)
    # correctness is the winner's earliest known verdict
    assert majority_vote([(0, "A", None), (1, "A", True), (2, "A", False)]) == ("A", True)


def test_majority_vote_ties_go_to_the_earliest_first_appearance():
    assert majority_vote([(0, "A", True), (1, "B", False), (2, "B", False), (3, "A", True)]) == ("A", True)
    # input order does not matter, only sample_idx
    assert majority_vote([(3, "A", True), (2, "B", False), (1, "B", False), (0, "A", True)]) == ("A", True)
    assert majority_vote([(0, "B", False), (1, "C", True), (2, "A", False)]) == ("B", False)


def test_majority_vote_abstentions_are_not_votes():
    assert majority_vote([(0, None, False), (1, None, False), (2, "A", True)]) == ("A", True)
    assert majority_vote([(0, None, False), (1, None, False)]) == (None, None)
    assert majority_vote([]) == (None, None)
    # an item whose samples all abstained is wrong; an item with none is excluded
    assert maj_at_k([(0, None, False), (1, None, False)], 3) is False
    assert maj_at_k([], 3) is None and avg_at_k([], 3) is None


def test_one_item_voting_together_across_spellings():
    answers = ["0.75", "0.50", "1/2", "3/4", r"\frac{1}{2}"]
    samples = [(i, vote_key(a, NUM), a not in ("0.75", "3/4")) for i, a in enumerate(answers)]
    assert majority_vote(samples) == ("0.5", True)                    # 3 votes for ½ against 2 for ¾


def test_maj_at_k_reuses_the_first_k_samples():
    s = [(0, "A", True), (1, "B", False), (2, "B", False), (3, "A", True), (4, "A", True)]
    assert [maj_at_k(s, k) for k in (1, 3, 4, 5)] == [True, False, True, True]   # k=4: A,B,B,A tie → A
    assert [avg_at_k(s, k) for k in (1, 3, 4, 5)] == pytest.approx([1, 1 / 3, 0.5, 0.6])


# ---------------------------------------------------------------- parallel scaling over verdicts

def v(item, idx, extracted=None, correct=None, status="ok"):
    return {"id": item, "sample_idx": idx, "extracted": extracted, "correct": correct, "status": status}


def keyed(lines):
    """Verdicts by (id, sample_idx), as parallel_scaling takes them (each key once in these lines)."""
    return {(x["id"], x["sample_idx"]): x for x in lines}


RECORDS = {q: {**NUM, "id": q} for q in ("q1", "q2", "q3", "q4", "q5")}
VERDICTS = [
    v("q1", 0, "0.5", True), v("q1", 1, "1/2", True), v("q1", 2, "0.75", False), v("q1", 3, "3/4", False),
    v("q2", 0, status="no_response"), v("q2", 1, "0.75", False), v("q2", 2, status="judge_error"),
    v("q2", 3, r"\frac{1}{2}", True),
    *[v("q3", i, status="no_response") for i in range(4)],
    v("q4", 0, "0.5", True),                                            # only one sample drawn
    *[v("q5", i, None, False) for i in range(4)],                      # never states an answer
]


def test_parallel_scaling_counts_failed_samples_as_not_correct():
    df = parallel_scaling(keyed(VERDICTS), RECORDS, ks=(1, 3, 4, 16)).set_index("k")
    # k=1: q1 ✓, q4 ✓, q5 ✗ (abstained); q2 (sample 0 failed) and q3 (all failed) are wrong, not dropped
    r = df.loc[1]
    assert (r["items"], r.scored_items, r.short, r.abstained, r.no_response, r.judge_error, r.missing) == \
        (5, 3, 0, 1, 2, 0, 0)
    assert r.maj_at_k == pytest.approx(2 / 5) and r.avg_at_k == pytest.approx(2 / 5)
    assert r.maj_at_k_scored == pytest.approx(2 / 3) and r.avg_at_k_scored == pytest.approx(2 / 3)
    # pass@1 over every sample drawn, a failed one not correct: q1 2/4, q2 1/4, q3 0/4, q4 1/1, q5 0/4
    assert r.pass_items == 5 and r.pass_at_k == pytest.approx(1.75 / 5)
    # k=3: q1 ½,½,¾ ✓; q2 only sample 1 (¾) answered ✗; q3 ✗; q4 ✓ (one sample); q5 ✗
    r = df.loc[3]
    assert (r["items"], r.scored_items, r.short, r.no_response, r.judge_error, r.missing) == (5, 4, 2, 4, 1, 2)
    assert r.maj_at_k == pytest.approx(2 / 5) and r.maj_at_k_scored == pytest.approx(0.5)
    assert r.avg_at_k == pytest.approx((2 / 3 + 0 + 0 + 1 + 0) / 5)
    assert r.avg_at_k_scored == pytest.approx((2 / 3 + 0 + 1 + 0) / 4)
    # q1: 1 - C(2,3)/C(4,3) = 1; q2 (1 correct of 4 drawn): 1 - C(3,3)/C(4,3) = 3/4; q3, q5: 0; q4 too few
    assert r.pass_items == 4 and r.pass_at_k == pytest.approx((1 + 0.75) / 4)
    # k=4: q1 ½,½,¾,¾ tie → ½ (sample 0) ✓; q2 ¾ (sample 1) vs ½ (sample 3) tie → ¾ ✗
    r = df.loc[4]
    assert (r["items"], r.scored_items, r.short, r.no_response, r.judge_error, r.missing) == (5, 4, 2, 5, 1, 3)
    assert r.maj_at_k == pytest.approx(2 / 5) and r.maj_at_k_scored == pytest.approx(0.5)
    assert r.avg_at_k == pytest.approx((0.5 + 0.25 + 0 + 1 + 0) / 5)
    assert r.avg_at_k_scored == pytest.approx((0.5 + 0.5 + 1 + 0) / 4)
    # k=16 was never drawn: no accuracy, not a copy of k=4
    r = df.loc[16]
    assert math.isnan(r.maj_at_k) and math.isnan(r.avg_at_k) and math.isnan(r.pass_at_k)
    assert r.missing == 16 * 5 - len(VERDICTS)


def test_failed_samples_are_wrong_in_pass_at_k_and_maj_at_k():
    """Two of four samples failed: pass@2 is over all four drawn (C(3,2)/C(4,2) of the pairs miss the one
    correct answer), not over the two answered; an item whose every sample failed is wrong at every k."""
    lines = [v("q1", 0, "0.5", True), v("q1", 1, status="no_response"), v("q1", 2, "0.75", False),
             v("q1", 3, status="judge_error"), *[v("q2", i, status="no_response") for i in range(4)]]
    r = parallel_scaling(keyed(lines), RECORDS, ks=(2, 4)).set_index("k")
    assert r.loc[2, "pass_at_k"] == pytest.approx((1 - 3 / 6 + 0) / 2)  # q1's two answers alone would give 1
    assert r.loc[4, "maj_at_k"] == pytest.approx(0.5) and r.loc[4, "maj_at_k_scored"] == pytest.approx(1.0)
    assert r.loc[4, "avg_at_k"] == pytest.approx((1 / 4 + 0) / 2) and r.loc[4, "avg_at_k_scored"] == 0.5
    assert majority_vote([failed_sample(0), (1, "A", False), failed_sample(2)]) == ("A", False)
    assert maj_at_k([failed_sample(0), failed_sample(1)], 2) is False


def test_parallel_scaling_reuses_samples_and_reads_the_current_verdict_of_a_file(tmp_path):
    base = [v("q1", i, a, a == "0.5") for i, a in enumerate(["0.5", "0.75", "0.75", "0.5", "0.5", "0.5", "0.5", "0.5"])]
    changed = base[:4] + [v("q1", i, "0.75", False) for i in range(4, 8)]
    a = parallel_scaling(keyed(base), RECORDS, ks=(1, 3, 4, 8)).set_index("k")
    b = parallel_scaling(keyed(changed), RECORDS, ks=(1, 3, 4, 8)).set_index("k")
    assert list(a.maj_at_k) == [1.0, 0.0, 1.0, 1.0] and list(b.maj_at_k) == [1.0, 0.0, 1.0, 0.0]
    cols = ["maj_at_k", "avg_at_k", "items", "short"]
    assert a.loc[[1, 3, 4], cols].equals(b.loc[[1, 3, 4], cols])     # samples 4..7 never touch k ≤ 4
    # pass@k, by design, estimates from all 8 samples (5 correct, then 2): 1 - C(3,4)/C(8,4) = 1 vs 1 - C(6,4)/C(8,4)
    assert a.loc[4, "pass_at_k"] == 1.0 and b.loc[4, "pass_at_k"] == pytest.approx(1 - 15 / 70)
    # an append-only file: a judge error later re-judged; the file's current verdict is the last line
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [v("q1", 0, status="judge_error"), *base[:1]]))
    r = parallel_scaling(latest(path), RECORDS, ks=(1,)).iloc[0]
    assert r.judge_error == 0 and r["items"] == 1 and r.maj_at_k == 1.0


def test_llm_judge_verdicts_need_extracted_answers_from_the_rule_judge():
    gpt = [v("q1", 0, None, True), v("q1", 1, None, False), v("q1", 2, None, True)]
    with pytest.raises(ValueError, match="answers="):
        parallel_scaling(keyed(gpt), RECORDS, ks=(3,))
    rules = [v("q1", 0, "1/2", True), v("q1", 1, "2", False), v("q1", 2, "0.5", True)]
    r = parallel_scaling(keyed(gpt), RECORDS, ks=(3,), answers=keyed(rules)).iloc[0]
    assert r.maj_at_k == 1.0 and r.vote_conflicts == 0
    # correctness comes from `verdicts`; same key judged both ways is reported
    gpt_split = [v("q1", 0, None, True), v("q1", 1, None, False), v("q1", 2, None, False)]
    r = parallel_scaling(keyed(gpt_split), RECORDS, ks=(3,), answers=keyed(rules)).iloc[0]
    assert r.maj_at_k == 1.0 and r.vote_conflicts == 1


def test_parallel_scaling_rejects_unknown_items_and_statuses():
    with pytest.raises(ValueError, match="not in records"):
        parallel_scaling(keyed([v("zz", 0, "1", True)]), RECORDS)
    with pytest.raises(ValueError, match="unknown status"):
        parallel_scaling(keyed([v("q1", 0, "1", True, status="weird")]), RECORDS)


# ---------------------------------------------------------------- saturation (H.2)

CURVE = [(1, 10.0), (2, 15.0), (4, 20.0), (8, 24.0), (26, 24.3), (38, 24.6), (78, 24.2)]


def test_saturation_point_on_a_hand_made_curve():
    # steps: +5, +5, +4, +0.3, +0.3, -0.4 → every step after 8B is below 0.5
    assert saturation_point(CURVE) == 8
    # against the saturating model itself: 38B (24.6) is 0.6 above 8B, but nothing beats 26B (24.3) by 0.5
    assert saturation_point(CURVE, relative_to="point") == 26
    assert saturation_point(list(reversed(CURVE))) == 8                # order of input does not matter


def test_saturation_point_edge_cases():
    assert saturation_point([(1, 10), (2, 20), (4, 30)]) is None        # still improving at the largest
    assert saturation_point([(1, 10), (2, 10.5), (4, 10.9)]) == 2       # a gain of exactly 0.5 counts
    assert saturation_point([(1, 10)]) is None and saturation_point([]) is None
    with pytest.raises(ValueError):
        saturation_point([(1, 10), (1, 12), (2, 13)])
    with pytest.warns(UserWarning, match="points"):
        saturation_point([(1, 0.10), (2, 0.20)])


# ---------------------------------------------------------------- sequential (H.1)

def test_sequential_scaling_orders_budgets_and_reports_gains():
    df = sequential_scaling({4096: 30.0, 512: 20.0, 1024: 24.0, 2048: 23.0})
    assert list(df.budget) == [512, 1024, 2048, 4096]
    assert math.isnan(df.gain[0]) and list(df.gain[1:]) == pytest.approx([4.0, -1.0, 7.0])
    assert list(df.monotonic) == [True, True, False, False]
    assert df.attrs["missing_budgets"] == [8192, 16384] and df.attrs["extra_budgets"] == []
