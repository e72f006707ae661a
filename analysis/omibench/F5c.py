"""OMIBench Figure 5(c): parallel test-time scaling — majority vote over k ∈ {1,3,4,8,16} samples at
T = 0.6 (Appendix H.3); maj@k against log2 k, with avg@k and pass@k beside it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.inputs import Run, current_lines
from analysis.omibench.metrics import RULE_GAP, RULES_NOTE, rule_gap_notes, rule_gap_of_runs, with_both_rules
from analysis.omibench.runs import SAMPLING_SETTINGS, run_records, sampling_runs
from analysis.omibench.scaling import PAPER_KS, parallel_scaling
from analysis.plot import draw, line_figure, not_run_at
from analysis.provenance import Provenance
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import ci_columns, wilson, with_interval_columns

IDS = ["omibench.F5c"]
SCORES = ["maj_at_k", "avg_at_k", "pass_at_k", "maj_at_k_scored", "avg_at_k_scored"]


def scaling_of(run: Run, answers: Run | None) -> pd.DataFrame:
    """maj@k, avg@k, pass@k (%) of one run. Votes are cast on the careful rule judge's extracted answers of the
    same samples (the paper's "common post-processing pipeline"): an LLM judge extracts nothing, and C.1's
    reading is the raw final text; the run's own verdicts say whether the winner is correct."""
    ans = current_lines(answers) if answers is not None and answers.path != run.path else None
    df = parallel_scaling(current_lines(run), run_records(run), PAPER_KS, answers=ans)
    for c in ("maj_at_k", "avg_at_k", "pass_at_k", "maj_at_k_scored", "avg_at_k_scored"):
        df[c] = 100 * df[c]
    for c in SCORES:  # each a mean over the items of a value in [0, 1] per item (module doc of F5c's notes)
        n = df["scored_items" if c.endswith("_scored") else "items"].astype(float)
        df[ci_columns(c)[0]], df[ci_columns(c)[1]] = wilson(df[c] / 100 * n, n)
    return df


def build(table_id: str, ctx: Context) -> Table:
    runs = sampling_runs(ctx)
    if not runs:
        raise MissingInputs(f"no judged omibench {' or '.join(SAMPLING_SETTINGS)} runs (16 samples; the demo's 4); "
                            f"{how_to_run(table_id)}")
    frames, sources, notes = [], [], []
    careful = runs.get("ACC careful", {})
    for metric, by_model in runs.items():
        for model, run in sorted(by_model.items()):
            if metric != "ACC careful" and (model not in careful or careful[model].setting != run.setting):
                notes.append(f"{model}: no careful rule-judge run of {run.setting} to take vote answers from; "
                             f"{metric} skipped")
                continue
            df = scaling_of(run, careful.get(model))
            frames.append(df.assign(model=model, metric=metric, setting=run.setting))
            sources.append(run)
    df = with_both_rules(pd.concat(frames, ignore_index=True), ["model", "setting", "k"])
    gap = rule_gap_of_runs(sources)
    df = df[["model", "metric", "setting", "k", *with_interval_columns(SCORES), "items", "scored_items", "short", "abstained", "vote_conflicts", "no_response",
             "judge_error", "unjudged", "truncated", "missing"]]
    ran = df.dropna(subset=["maj_at_k"])
    scaled = df[df["items"].notna()]  # a rule's rows kept for a run it has not judged are no k left undrawn
    not_run = [f"{model} {metric}: k = {', '.join(map(str, g.loc[g['maj_at_k'].isna(), 'k']))}"
               for (model, metric), g in scaled.groupby(["model", "metric"]) if g["maj_at_k"].isna().any()]
    if not_run:
        notes.append(f"Not run (k beyond the samples the run drew; NaN rows): {'; '.join(not_run)}.")

    # one colour per model and metric: maj@k solid with markers, avg@k dashed, pass@k dotted
    curves = [(np.log2(g["k"]), g[col], {"color": f"C{i}", "label": f"{model} {metric} {name}", **style})
              for i, ((model, metric), g) in enumerate(ran.groupby(["model", "metric"]))
              for col, name, style in (("maj_at_k", "maj@k", {"marker": "o"}), ("avg_at_k", "avg@k", {"ls": "--"}),
                                       ("pass_at_k", "pass@k", {"ls": ":"}))]
    # k beyond the samples a run drew is written "not run" at its place
    gaps = not_run_at({f"{model} {metric}": dict(zip(np.log2(g["k"]), g["maj_at_k"]))
                       for (model, metric), g in scaled.groupby(["model", "metric"])})
    path = draw(line_figure, curves, path=ctx.figure(table_id), legend_size=6,
                xlabel="log2 k (number of samples)", ylabel="score (%)",
                title="OMIBench Fig. 5(c): parallel scaling (majority vote)", missing=gaps,
                empty="no run drew a sample to vote on")
    return Table(
        "OMIBench Figure 5(c) — parallel scaling: score (%) of the majority-voted answer over k samples at T = 0.6 "
        "(maj@k, the paper's curve), with the mean per-sample score avg@k and unbiased pass@k (not in the paper).",
        df, figure=path, provenance=Provenance(sources), extra={RULE_GAP: gap},
        notes=notes + [RULES_NOTE + " The rule comparison is over every sample of the runs.",
                       *rule_gap_notes(gap, ["model", "setting"]),
            "k reuses the first k samples (sample_idx 0..k−1) of one run (analysis.omibench.scaling.parallel_scaling). "
            "A failed sample (no_response, judge_error, unjudged) is never a vote and is not correct: maj@k, avg@k and "
            "pass@k are over every item and sample run, as the papers count failures; the *_scored columns "
            "leave failed samples out (over `scored_items`). `short` items had fewer than k scored samples and "
            "were voted over what they had.",
            "Intervals (95 %): Wilson over the items (`items`, `scored_items` for the *_scored columns): maj@k is one "
            "right or wrong answer per item; avg@k and pass@k are each item's fraction, whose spread is at most a "
            "proportion's, so Wilson's interval is, if anything, wide for them.",
            "The paper's run is cot_boxed+temp0.6+max16384 with 16 samples; the demo's cot_boxed+temp0.6 has 4, "
            "so only k ∈ {1, 3, 4} are drawn there.",
            "The paper prints no numbers for Figure 5(c): no reference file."])
