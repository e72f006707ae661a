"""Test-time scaling analyses: parallel (maj@k, avg@k, pass@k), sequential and parameter scaling.

OMIBench Appendix H:

* H.1 (sequential): the maximum number of new tokens L_max is swept over {512, 1,024, 2,048, 4,096,
  8,192, 16,384}, everything else fixed, the full test set re-evaluated per budget → `sequential_scaling`.
* H.2 (parameters): "We mark the saturation region as the smallest parameter size beyond which all
  larger models yield less than 0.5 absolute GPTScore improvement." → `saturation_point`.
  Section 6.2 also plots score against *activated* parameters (MoE models): pass activated parameter
  counts as sizes for that curve.
* H.3 (parallel): k ∈ {1, 3, 4, 8, 16} samples at T = 0.6, L_max = 16,384; "apply the common
  post-processing pipeline to extract and normalize the final answer from each of the k samples and
  then take the majority-voted answer"; the mean score over the test set of the majority-voted
  predictions → `vote_key` (analysis/omibench/votes.py), `majority_vote`, `maj_at_k`, `parallel_scaling`. avg@k
  and the unbiased pass@k (Chen et al. 2021) are reported beside it; they are not in the paper.

Samples for smaller k are the first k of the largest run (sample_idx 0..k−1), not new draws: the curve
is nested, so maj@k differences between ks are not blurred by independent sampling noise.

Verdicts are the current verdicts of a judge.run verdict file by (id, sample_idx), as
analysis.inputs.current_lines reads them (`id`, `sample_idx`, `extracted`, `correct`, `status`). A request
failure (`no_response`), a judge failure (`judge_error`) or a sample with no current verdict (`unjudged`) has
no answer read, so it is never a vote; like every failure in the papers' accuracies it is not correct
(`failed_sample`). The `*_scored` columns leave failed samples out instead, and both kinds
are counted in their own columns. A sample the careful rule judge left `undecided` has its answer read: it is a
vote, and not counted correct (the lower end of the careful accuracy, as everywhere).
"""
from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Any, Iterable, Mapping

import pandas as pd

from analysis.omibench.votes import vote_key
from judge.current import UNJUDGED
from judge.status import UNDECIDED

PAPER_KS = (1, 3, 4, 8, 16)                                  # OMIBench Eq. (12)
PAPER_BUDGETS = (512, 1024, 2048, 4096, 8192, 16384)         # OMIBench Eq. (11)
SATURATION_THRESHOLD = 0.5                                   # OMIBench H.2, absolute GPTScore points
STATUSES = ("ok", UNDECIDED, "no_response", "judge_error", UNJUDGED)
VOTES = ("ok", UNDECIDED)  # an undecided sample has an answer read: a vote, its correct null (never counted correct)

Sample = tuple[int, str | None, bool | None]             # (sample_idx, vote key, correct)


def failed_sample(idx: int) -> Sample:
    """A failed sample as the item-level functions take it: an abstention (no answer, no vote) that is
    not correct."""
    return (idx, None, False)


# --------------------------------------------------------------------------------------------------
# One item: majority vote, maj@k, avg@k, pass@k
# --------------------------------------------------------------------------------------------------

def majority_vote(samples: Iterable[Sample]) -> tuple[str | None, bool | None]:
    """The majority-voted answer of one item and whether it is correct (self-consistency, OMIBench H.3).

    `samples` are (sample_idx, vote key, correct); a failed sample comes as `failed_sample` (key None)
    or is left out by the caller, so it is never a vote either way.

    * Votes: every sample whose key is not None counts once; a None key is an abstention (the model
      stated no answer) and is not a vote.
    * Winner: the most frequent key. Ties are broken by the earliest first appearance: among the tied
      keys, the one whose lowest sample_idx is smallest wins (so for k = 4 with A, B, B, A the answer
      is A). The rule depends only on sample order, never on the answers' text or on correctness.
    * Correctness: `correct` of the winner's earliest sample whose `correct` is not None. Samples with
      the same key normally agree; an LLM judge may not, and parallel_scaling counts such items.
    * No votes at all (empty input, or every sample abstained) → (None, None). majority_vote cannot
      tell why, so it does not decide; `maj_at_k` counts an item whose usable samples all abstained as
      wrong (a model that never answers is wrong), while an item with no sample at all is excluded.
    """
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    correct_of: dict[str, bool | None] = {}
    for idx, key, correct in sorted(samples, key=lambda s: s[0]):
        if key is None:
            continue
        counts[key] += 1
        first_seen.setdefault(key, idx)
        if correct_of.get(key) is None:
            correct_of[key] = correct
    if not counts:
        return None, None
    winner = min(counts, key=lambda k: (-counts[k], first_seen[k]))
    return winner, correct_of[winner]


def _window(samples: Iterable[Sample], k: int) -> list[Sample]:
    """The first k samples: sample_idx 0..k−1 of the largest run, reused for every smaller k (H.3)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return [s for s in samples if 0 <= s[0] < k]


def maj_at_k(samples: Iterable[Sample], k: int) -> bool | None:
    """maj@k of one item: is the majority vote over samples 0..k−1 correct? (OMIBench H.3)

    None when no sample falls in the window (the item is excluded for this k). An item whose samples
    all abstained or failed is wrong (False). Failed samples are not votes, so the vote is over the
    answered samples of the window, fewer than k (parallel_scaling reports how many items).
    """
    window = _window(samples, k)
    if not window:
        return None
    key, correct = majority_vote(window)
    return key is not None and correct is True


def avg_at_k(samples: Iterable[Sample], k: int) -> float | None:
    """avg@k of one item: the mean correctness of its samples 0..k−1 (None if there are none).

    An abstaining sample counts as its verdict says (wrong, under the rule judge); a `failed_sample` as
    not correct.
    """
    window = _window(samples, k)
    if not window:
        return None
    return sum(c is True for _, _, c in window) / len(window)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c are correct: 1 − C(n−c, k) / C(n, k) (Chen et al. 2021).

    Computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms the binomial coefficients (no
    overflow, no cancellation of huge integers). Requires 0 ≤ c ≤ n and 1 ≤ k ≤ n.
    """
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:  # every k-subset contains a correct sample
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


# --------------------------------------------------------------------------------------------------
# A whole run
# --------------------------------------------------------------------------------------------------

def _checked(verdicts: Mapping[tuple[str, int], dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The verdicts by (id as text, sample_idx as int), each of a known status."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for (rid, idx), v in verdicts.items():
        status = v.get("status", "ok")
        if status not in STATUSES:
            raise ValueError(f"verdict {rid!r}/{idx}: unknown status {status!r}")
        out[(str(rid), int(idx))] = v
    return out


def parallel_scaling(verdicts: Mapping[tuple[str, int], dict[str, Any]], records: dict[str, dict[str, Any]],
                     ks: Iterable[int] = PAPER_KS, *,
                     answers: Mapping[tuple[str, int], dict[str, Any]] | None = None) -> pd.DataFrame:
    """maj@k, avg@k and pass@k for each k over one run's verdicts (OMIBench H.3, Figure 5(c)).

    `verdicts`: the current verdict of each (id, sample_idx) of one model/setting/judge, k samples per
    item (sample_idx 0..n−1). `records`: the unified records by id (to key
    answers). `answers`: verdicts whose `extracted` to vote on, joined by (id, sample_idx) — needed
    when `verdicts` come from an LLM judge that extracts nothing (omibench_gptscore): the paper votes
    on answers from "the common post-processing pipeline" (the rule judge's `extracted`) and scores
    the voted prediction with GPTScore; here its correctness is that sample's GPTScore verdict.

    Per item and k, the window is samples 0..k−1 (reused from the largest run). A failed sample
    (`no_response`, `judge_error`, `unjudged`) is no vote and not correct (`failed_sample`), as the papers
    count a failure; the `*_scored` columns instead use only the scored (`ok`) samples, as if failures were
    never drawn.

    Columns, per k:
      maj_at_k   mean over `items` of maj@k (an item whose samples all abstained or failed is wrong).
      avg_at_k   mean over `items` of the item's mean correctness over its samples 0..k−1.
      pass_at_k  mean over `pass_items` of the unbiased pass@k from *all* the item's samples, c the
                 correct ones (n may exceed k: that is what the estimator is for).
      maj_at_k_scored, avg_at_k_scored  the same over `scored_items`, from their scored samples only.
      items      items with ≥ 1 sample (verdict line) in the window: the denominator of maj@k and avg@k.
      scored_items  of those, items with ≥ 1 scored sample in the window.
      short      of those, items with fewer than k scored samples in the window: they are voted over
                 what they have (reported, not excluded).
      pass_items items with ≥ k samples overall; the others are left out of pass@k only.
      abstained  scored items whose every scored sample in the window abstained (counted wrong).
      vote_conflicts  scored items whose winning key's samples disagree on `correct`.
      no_response, judge_error, unjudged  failed samples in the window.
      truncated  samples in the window cut at the token limit with no final answer (whatever their status).
      missing    sample slots in the window with no line at all (never drawn, or never judged where the
                 verdicts given leave out the unjudged).
    A k for which no item has all k samples drawn (verdict lines for 0..k−1, whatever their status)
    was not run: its accuracy columns are NaN rather than a copy of a smaller k.

    Accuracies are fractions in [0, 1] (multiply by 100 for points, e.g. for `saturation_point`).
    """
    ks = sorted(set(int(k) for k in ks))
    if not ks or ks[0] < 1:
        raise ValueError(f"ks must be positive integers, got {ks}")
    current = _checked(verdicts)
    unknown = sorted({i for i, _ in current} - records.keys())
    if unknown:
        raise ValueError(f"{len(unknown)} verdict id(s) not in records, e.g. {unknown[0]!r}")
    by_item: dict[str, dict[int, dict[str, Any]]] = {}
    for (item, idx), v in current.items():
        by_item.setdefault(item, {})[idx] = v
    drawn, usable = _samples(by_item, records, _extracted(current, answers))
    return pd.DataFrame([_at_k(k, by_item, drawn, usable) for k in ks])


def _extracted(current: dict[tuple[str, int], dict[str, Any]],
               answers: Mapping[tuple[str, int], dict[str, Any]] | None) -> dict[tuple[str, int], str | None]:
    """The answer each sample votes with: its own verdict's `extracted`, or `answers`' where a judge extracts none."""
    if answers is not None:
        return {key: v.get("extracted") for key, v in _checked(answers).items()}
    silent = [key for key, v in current.items()
              if v.get("status", "ok") == "ok" and v.get("correct") is True and v.get("extracted") is None]
    if silent:
        raise ValueError(f"{len(silent)} correct verdict(s) without an extracted answer, e.g. {silent[0]}: "
                         "this judge does not extract answers; pass answers=<the rule judge's verdicts>")
    return {key: v.get("extracted") for key, v in current.items()}


def _samples(by_item: dict[str, dict[int, dict[str, Any]]], records: dict[str, dict[str, Any]],
             extracted_of: dict[tuple[str, int], str | None]
             ) -> tuple[dict[str, list[Sample]], dict[str, list[Sample]]]:
    """Per item: every sample drawn (a failed one as failed_sample), and the scored ones."""
    drawn: dict[str, list[Sample]] = {}
    usable: dict[str, list[Sample]] = {}
    for item, lines in by_item.items():
        rec, drawn[item], usable[item] = records[item], [], []
        for idx, v in sorted(lines.items()):
            if v.get("status", "ok") in VOTES:
                usable[item].append((idx, vote_key(extracted_of.get((item, idx)), rec), v.get("correct")))
                drawn[item].append(usable[item][-1])
            else:
                drawn[item].append(failed_sample(idx))
    return drawn, usable


def _at_k(k: int, by_item: dict[str, dict[int, dict[str, Any]]], drawn: dict[str, list[Sample]],
          usable: dict[str, list[Sample]]) -> dict[str, Any]:
    """One row of parallel_scaling: the accuracies and counts at k (its docstring)."""
    row: dict[str, Any] = {"k": k, "maj_at_k": math.nan, "avg_at_k": math.nan, "pass_at_k": math.nan,
                           "maj_at_k_scored": math.nan, "avg_at_k_scored": math.nan, "items": 0,
                           "scored_items": 0, "short": 0, "pass_items": 0, "abstained": 0,
                           "vote_conflicts": 0, "no_response": 0, "judge_error": 0, "unjudged": 0,
                           "truncated": 0, "missing": 0}
    maj, avg, maj_s, avg_s, pas, complete = [], [], [], [], [], 0
    for item, lines in by_item.items():
        in_window = [v for idx, v in lines.items() if 0 <= idx < k]
        row["no_response"] += sum(v.get("status") == "no_response" for v in in_window)
        row["judge_error"] += sum(v.get("status") == "judge_error" for v in in_window)
        row["unjudged"] += sum(v.get("status") == UNJUDGED for v in in_window)
        row["truncated"] += sum(bool(v.get("truncated")) for v in in_window)
        row["missing"] += k - len(in_window)
        complete += len(in_window) == k
        if in_window:
            maj.append(maj_at_k(drawn[item], k))
            avg.append(avg_at_k(drawn[item], k))
        window = _window(usable[item], k)
        if window:
            key, _ = majority_vote(window)
            maj_s.append(maj_at_k(usable[item], k))
            avg_s.append(avg_at_k(usable[item], k))
            row["short"] += len(window) < k
            row["abstained"] += key is None
            verdicts_of_key = {c for _, kk, c in window if kk == key and c is not None}
            row["vote_conflicts"] += key is not None and len(verdicts_of_key) > 1
        if len(drawn[item]) >= k:
            pas.append(pass_at_k(len(drawn[item]), sum(c is True for _, _, c in drawn[item]), k))
    row["items"], row["scored_items"], row["pass_items"] = len(maj), len(maj_s), len(pas)
    if complete:
        for col, values in (("maj_at_k", maj), ("avg_at_k", avg), ("pass_at_k", pas),
                            ("maj_at_k_scored", maj_s), ("avg_at_k_scored", avg_s)):
            if values:
                row[col] = sum(values) / len(values)
    return row


# --------------------------------------------------------------------------------------------------
# Parameter and sequential scaling
# --------------------------------------------------------------------------------------------------

def saturation_point(sizes_and_scores: list[tuple[float, float]], threshold: float = SATURATION_THRESHOLD,
                     relative_to: str = "previous") -> float | None:
    """OMIBench H.2: "the smallest parameter size beyond which all larger models yield less than 0.5
    absolute GPTScore improvement".

    Models are sorted by size. The paper does not say what the improvement is measured against:
      relative_to="previous" (default): the smallest size s such that every larger model gains less
          than `threshold` over the next smaller model (each step's gain < threshold; a loss counts
          as a gain below the threshold).
      relative_to="point": the smallest size s such that every larger model scores less than
          score(s) + threshold (nothing larger improves on s itself by the threshold). Stricter: a
          slow creep of small steps is not a plateau.
    The largest model satisfies either rule vacuously; when only it does, nothing saturated within the
    range ("QwenVL continues to improve up to its largest public variant") and the result is None.
    Also None with fewer than two models. The comparison is strict: a gain of exactly `threshold` is
    an improvement.

    Scores must be in the units of `threshold`: GPTScore *points* (0–100), not fractions. Sizes are
    parameter counts (total, or activated for MoE models — Section 6.2 plots both).
    """
    if relative_to not in ("previous", "point"):
        raise ValueError(f"relative_to must be 'previous' or 'point', got {relative_to!r}")
    points = sorted((float(s), float(v)) for s, v in sizes_and_scores)
    sizes = [s for s, _ in points]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"duplicate model sizes: {sorted(s for s in set(sizes) if sizes.count(s) > 1)}")
    if len(points) < 2:
        return None
    scores = [v for _, v in points]
    if threshold < 1 and all(0 <= v <= 1 for v in scores):
        warnings.warn("saturation_point: every score is in [0, 1]; the threshold is in points (0–100) — "
                      "multiply fractions by 100", stacklevel=2)
    for j in range(len(points) - 1):  # the last model is excluded: vacuous saturation means none
        if relative_to == "previous":
            ok = all(scores[i] - scores[i - 1] < threshold for i in range(j + 1, len(points)))
        else:
            ok = all(scores[i] - scores[j] < threshold for i in range(j + 1, len(points)))
        if ok:
            return sizes[j]
    return None


def sequential_scaling(results: dict[int, float]) -> pd.DataFrame:
    """Accuracy by maximum new-token budget L_max, in order, with the gain over the previous budget.

    OMIBench H.1 sweeps L_max ∈ {512, 1,024, 2,048, 4,096, 8,192, 16,384} (Eq. 11), re-evaluating the
    full test set per budget. Columns: `budget`, `score`, `gain` (score minus the previous budget's;
    NaN for the first), `monotonic` (gain ≥ 0 so far). `attrs["missing_budgets"]` lists the paper's
    budgets absent from `results`; `attrs["extra_budgets"]` those not in the paper's grid.
    """
    if any(int(b) != b or b < 1 for b in results):
        raise ValueError(f"budgets must be positive integers, got {sorted(results)}")
    budgets = sorted(int(b) for b in results)
    scores = [float(results[b]) for b in budgets]
    gains = [math.nan] + [b - a for a, b in zip(scores, scores[1:])]
    monotonic, ok = [], True
    for g in gains:
        ok = ok and (math.isnan(g) or g >= 0)
        monotonic.append(ok)
    df = pd.DataFrame({"budget": budgets, "score": scores, "gain": gains, "monotonic": monotonic})
    df.attrs["missing_budgets"] = [b for b in PAPER_BUDGETS if b not in results]
    df.attrs["extra_budgets"] = [b for b in budgets if b not in PAPER_BUDGETS]
    return df
