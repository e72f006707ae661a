"""OMIBench paired significance (Appendix J): Qwen3-VL-32B Thinking vs Instruct, Qwen3-VL-32B-Instruct
16 vs 1 samples (majority vote) and its 3-shot textual ICL vs zero-shot — exact McNemar on paired answers
and a paired permutation test on per-item accuracy, with p-values (paper: all p < 0.05 over five repeated
runs). Each test reads the runs of the experiment made for it (omibench_sig's pairs, omibench_F5c's and
omibench_F6a's models), not other experiments' runs of the same settings (Table 5 samples Gemini-3-Pro at
the same temperature)."""
from __future__ import annotations

import re

import pandas as pd

from analysis.inputs import Run, current_lines
from analysis.omibench.metrics import METRICS, RULE_GAP, RULES_NOTE, rule_gap_notes, rule_gap_of_runs
from analysis.omibench.runs import BENCH, SAMPLING, SETTING, run_records, runs_named, sampling_runs
from analysis.omibench.scaling import PAPER_KS, VOTES, failed_sample, maj_at_k
from analysis.omibench.votes import vote_key
from analysis.provenance import Provenance
from analysis.stats import counted_correct, mcnemar, paired_permutation
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import experiment, how_to_run, models_of, pairs_of
from analysis.uncertainty import CI_HI, CI_LO, bootstrap, paired_difference

IDS = ["omibench.sig"]
SIG, ICL = "omibench_sig", "omibench_F6a"   # the experiments of the pair and ICL tests (SAMPLING: F5c's)
TEXT_ICL = re.compile(r"icl\+shots(\d+)\+demos-none")


def correct_series(df: pd.DataFrame) -> pd.Series:
    """Correctness of every judged answer by (id, sample_idx), a failure not correct: the tests compare
    the accuracies the tables report."""
    return pd.Series(counted_correct(df).to_numpy(), index=pd.MultiIndex.from_arrays([df["id"], df["sample_idx"]]))


def paired(a: pd.Series, b: pd.Series) -> dict:
    """McNemar over answers paired by (id, sample_idx) — the i-th repeat of A with the i-th of B — and a
    permutation test over items of the per-item mean over those repeats (items are the independent units)."""
    common = a.index.intersection(b.index)
    a, b = a[common], b[common]
    mc = mcnemar(a.to_numpy(), b.to_numpy())
    ia, ib = a.groupby(level=0).mean(), b.groupby(level=0).mean()
    perm = paired_permutation(ia.to_numpy(), ib.to_numpy())
    d = paired_difference(ia.astype(float), ib.astype(float))
    ends = {f"{side}_ci_{e}": v for side, s in (("acc_a", ia), ("acc_b", ib))
            for e, v in zip(("lo", "hi"), _item_interval(s))}
    return {"items": len(ia), "pairs": len(common), "acc_a": 100 * a.mean() if len(a) else float("nan"),
            "acc_a_ci_lo": ends["acc_a_ci_lo"], "acc_a_ci_hi": ends["acc_a_ci_hi"],
            "acc_b": 100 * b.mean() if len(b) else float("nan"), "acc_b_ci_lo": ends["acc_b_ci_lo"],
            "acc_b_ci_hi": ends["acc_b_ci_hi"], "only_a": mc["only_a"], "only_b": mc["only_b"],
            "mcnemar_p": mc["p"], "diff": perm["diff"], "diff_ci_lo": d["diff_ci_lo"], "diff_ci_hi": d["diff_ci_hi"],
            "permutation_p": perm["p"]}


def _item_interval(per_item: pd.Series) -> tuple[float, float]:
    """The 95 % interval of an accuracy from each item's correctness over its repeats: the bootstrap over items
    (Wilson's over the items where every item scored the same)."""
    if per_item.empty:
        return float("nan"), float("nan")
    ci = bootstrap(pd.DataFrame(index=per_item.index), [], per_item.index.to_numpy(), per_item.to_numpy(dtype=float),
                   scale=100, proportion=True)
    return float(ci[CI_LO].iloc[0]), float(ci[CI_HI].iloc[0])


def majority(run: Run, answers: Run | None) -> tuple[pd.Series, pd.Series, int]:
    """Per item: maj@k correct for the largest paper k the run drew, and maj@1 (sample 0)."""
    recs = run_records(run)
    lines = current_lines(run)
    extracted = {key: v.get("extracted") for key, v in current_lines(answers or run).items()}
    samples: dict[str, list] = {}
    for (item, idx), v in sorted(lines.items()):
        ok = v.get("status", "ok") in VOTES  # an undecided sample is a vote, not counted correct
        samples.setdefault(item, []).append((idx, vote_key(extracted.get((item, idx)), recs[item]), v.get("correct"))
                                            if ok else failed_sample(idx))
    drawn = 1 + max((idx for _, idx in lines), default=0)
    k = max(x for x in PAPER_KS if x <= drawn)
    hi = {i: maj_at_k(s, k) for i, s in samples.items()}
    lo = {i: maj_at_k(s, 1) for i, s in samples.items()}
    keep = [i for i in samples if hi[i] is not None and lo[i] is not None]
    index = pd.MultiIndex.from_arrays([keep, [0] * len(keep)])
    return pd.Series([hi[i] for i in keep], index=index), pd.Series([lo[i] for i in keep], index=index), k


def thinking_vs_instruct(ctx: Context, metric: str, judge: str) -> tuple[list[dict], list[Run]]:
    """Each pair of the significance experiment on its repeated runs, else on Table 4's single run."""
    rows, sources = [], []
    settings = [*experiment(SIG).settings, *experiment("omibench_T4").settings]
    read: dict[str, pd.DataFrame | None] = {}  # each setting's verdicts read once for every pair
    for think, instruct in pairs_of(SIG):
        for setting in settings:
            if setting not in read:
                try:
                    read[setting] = ctx.verdicts(BENCH, [setting], judge)
                except MissingInputs:
                    read[setting] = None
            if (df := read[setting]) is None:
                continue
            if {think, instruct} <= set(df["model"].unique()):
                rows.append({"comparison": "thinking vs instruct", "metric": metric, "a": f"{think} {setting}",
                             "b": f"{instruct} {setting}", **paired(correct_series(df[df["model"] == think]),
                                                                     correct_series(df[df["model"] == instruct]))})
                sources += [r for r in ctx.runs(BENCH, [setting], judge) if r.model in (think, instruct)]
                break
    return rows, sources


def samples_vs_one(ctx: Context, metric: str, judge: str) -> tuple[list[dict], list[Run]]:
    """Majority vote over the largest paper k the sampling experiment's run drew, against its sample 0."""
    rows, sources = [], []
    by_metric = sampling_runs(ctx)
    for model, run in sorted(by_metric.get(metric, {}).items()):
        answers = by_metric.get("ACC careful", {}).get(model)  # votes are cast on the careful rule's answers
        if metric != "ACC careful" and (answers is None or answers.setting != run.setting):
            continue
        hi, lo, k = majority(run, answers)
        if k > 1:  # a single sample per item: nothing to vote
            rows.append({"comparison": f"{k} vs 1 samples", "metric": metric, "a": f"{model} maj@{k}",
                         "b": f"{model} maj@1", **paired(hi, lo)})
            sources.append(run)
    return rows, sources


def shots_vs_zero(ctx: Context, metric: str, judge: str) -> tuple[list[dict], list[Run]]:
    """The ICL experiment's largest-shot textual (demos-none) run against its zero-shot cot_boxed run, the
    demonstration items excluded from both."""
    rows, sources = [], []
    icl = {key: r for key, r in runs_named(ctx, judge, TEXT_ICL).items() if key[0] in models_of(ICL)}
    zero = {r.model: r for r in ctx.runs(BENCH, [SETTING], judge)}
    for model in sorted({m for m, _ in icl} & set(zero)):
        setting = max((s for m, s in icl if m == model), key=lambda s: int(TEXT_ICL.fullmatch(s).group(1)))
        df = ctx.verdicts(BENCH, [setting, SETTING], judge)
        df = df[(df["model"] == model) & ~df["id"].isin(icl[(model, setting)].raw_manifest.get("excluded_ids", []))]
        rows.append({"comparison": f"{TEXT_ICL.fullmatch(setting).group(1)}-shot vs 0-shot", "metric": metric,
                     "a": f"{model} {setting}", "b": f"{model} {SETTING}",
                     **paired(correct_series(df[df["setting"] == setting]),
                              correct_series(df[df["setting"] == SETTING]))})
        sources += [icl[(model, setting)], zero[model]]
    return rows, sources


def build(table_id: str, ctx: Context) -> Table:
    rows, sources = [], []
    for metric, judge in METRICS.items():
        for test in (thinking_vs_instruct, samples_vs_one, shots_vs_zero):
            found, used = test(ctx, metric, judge)
            rows, sources = rows + found, sources + used
    if not rows:
        raise MissingInputs("no runs for any paired comparison (the thinking/instruct pair, the sampling run, the "
                            f"icl+shots<K>+demos-none run with its cot_boxed baseline); {how_to_run(table_id)}")
    gap = rule_gap_of_runs(sources)
    return Table("OMIBench paired significance — A vs B on the same answers: accuracy (%), discordant pairs, "
                 "exact McNemar p, and paired permutation test (mean per-item difference, points) p.",
                 pd.DataFrame(rows), provenance=Provenance(sources), extra={RULE_GAP: gap},
                 notes=[RULES_NOTE + " The rule comparison is over every answer of the runs the tests read.",
                        *rule_gap_notes(gap, ["model", "setting"]),
                        "McNemar pairs the i-th sample of A with the i-th of B for each item (repeats as pairs); the "
                        "permutation test averages each item's repeats first (10,000 sign flips, seed 0).",
                        "Intervals (95 %): acc_a's and acc_b's the bootstrap over items of each item's repeats "
                        "averaged; diff's (A − B, points) the bootstrap over items of the per-item difference, repeats "
                        "averaged first (where no item differs, combined from the two sides' Wilson intervals).",
                        "Every answer both sides ran is paired, a failed request or judge error counting as not "
                        "correct (and never as a vote), so acc_a and acc_b are the paper-comparable accuracies "
                        "on the paired answers.",
                        "Paper: Qwen-VL-32B Thinking vs Instruct, 1 vs 16 samples, 0- vs 3-shot textual ICL over five "
                        "repeated runs, all p < 0.05 (no p-values printed: no reference file). Here: the pairs of "
                        f"configs/experiments/{SIG}.yaml on its repeated runs (else Table 4's single run), the largest "
                        f"drawn k of {SAMPLING}.yaml's sampling run, and the largest-shot demos-none run of {ICL}.yaml "
                        "against its cot_boxed runs; demonstration items are excluded from both sides."])
