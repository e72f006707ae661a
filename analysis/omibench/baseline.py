"""OMIBench's settings compared with the baseline (Default CoT, Table 2's setting) on the items both ran:
accuracy per setting, Δ and exact McNemar tests, the empty cells' reasons and the grouped-bar figure
(Fig. 3(c), Fig. 4, Table 4, Table 6).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from analysis.inputs import Run
from analysis.omibench.metrics import METRICS, rule_gap, with_both_rules
from analysis.omibench.runs import SETTING, metric_verdicts
from analysis.plot import NOT_RUN, bars, empty_panel, save_figure, subplots
from analysis.stats import accuracy_table, counted_correct, mcnemar
from analysis.table import Context, MissingInputs
from analysis.table_experiments import how_to_run
from analysis.uncertainty import ci_columns, ci_end, paired_difference, with_intervals

LABELS = {"cot_boxed": "Default CoT", "least_to_most": "Least-to-Most", "plan_and_solve": "Plan-and-Solve",
          "vot": "VoT", "no_think": "No-Think", "cot_boxed+first": "First image only",
          "cot_boxed+text": "No image", "cot_boxed+composite": "Composite single image"}


PAIRED_NOTE = ("Δ = setting − baseline on the same items, with its 95 % interval: the bootstrap over items of the "
               "per-item difference (each item's samples averaged first; where no item differs, the interval combined "
               "from the two sides' Wilson intervals); its test is the exact McNemar test on the paired answers (p).")


def paired_tests(df: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Exact McNemar of every setting against the baseline, per model, on the (item, sample) pairs both
    ran; a failure is not correct, so the test is of the difference in the accuracies the tables show. Beside it,
    the difference setting − baseline (points) over the items both ran, with its paired bootstrap interval
    (analysis.uncertainty.paired_difference)."""
    cols = ["model", "setting", "paired", "only_setting", "only_baseline", "p", "diff", "diff_ci_lo", "diff_ci_hi"]
    ran = df[["model", "setting", "id", "sample_idx"]].assign(correct=counted_correct(df))
    rows, runs = [], dict(list(ran.groupby(["model", "setting"])))
    for (model, setting), g in runs.items():
        base = runs.get((model, baseline))
        if setting == baseline or base is None:
            continue
        m = g.merge(base, on=["id", "sample_idx"], suffixes=("", "_base"))
        t = mcnemar(m["correct"].astype(bool).to_numpy(), m["correct_base"].astype(bool).to_numpy())
        d = paired_difference(m.groupby("id")["correct"].mean(), m.groupby("id")["correct_base"].mean())
        rows.append([model, setting, len(m), t["only_a"], t["only_b"], t["p"], d["diff"], d["diff_ci_lo"],
                     d["diff_ci_hi"]])
    return pd.DataFrame(rows, columns=cols)


def common_items(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, only the items every one of its settings ran (the demo runs some settings on a prefix),
    so that the settings' accuracies compare the same questions."""
    keep = []
    for _, g in df.groupby("model"):
        settings = g["setting"].nunique()
        if settings > 1:  # with one setting, every item it ran is common
            g = g[g.groupby("id")["setting"].transform("nunique").eq(settings)]
        keep.append(g)
    return pd.concat(keep, ignore_index=True) if keep else df


def compare(ctx: Context, table_id: str, settings: list[str],
            where: Callable[[pd.DataFrame], pd.DataFrame] | None = None
            ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, list[Run]]:
    """Accuracy per (metric, model, setting) on the model's common items, the paired tests against SETTING,
    for every judge that has runs, and the two rules compared per (model, setting) (`rule_gap`); `where`
    selects rows first (e.g. multi-image items only). Missing, the runs are named by `table_id`'s experiments."""
    long, tests, frames, sources = [], [], {}, []
    for metric, df, runs in metric_verdicts(ctx, settings):
        df = frames[metric] = common_items(where(df) if where is not None else df)
        long.append(accuracy_table(df, ["model", "setting"]).assign(metric=metric))
        tests.append(paired_tests(df, SETTING).assign(metric=metric))
        sources += runs
    if not long:
        raise MissingInputs(f"no judged omibench runs of {settings} ({', '.join(METRICS.values())}); "
                            f"{how_to_run(table_id)}")
    long_df = with_both_rules(pd.concat(long, ignore_index=True), ["model", "setting"])
    return long_df, pd.concat(tests, ignore_index=True), rule_gap(frames, ["model", "setting"]), sources


def settings_wide(long: pd.DataFrame, tests: pd.DataFrame, settings: list[str]) -> pd.DataFrame:
    """One row per (model, metric): accuracy per setting with its interval, then Δ (with its paired interval) and
    McNemar p of each against SETTING."""
    acc = long.pivot_table(index=["model", "metric"], columns="setting", values="acc", aggfunc="first", dropna=False)
    out = pd.DataFrame(index=acc.index)
    for s in settings:
        out[LABELS.get(s, s)] = acc[s] if s in acc else np.nan
    out = with_intervals(out.reset_index(), long, ["model", "metric"], ["setting"], lambda s: LABELS.get(s, s))
    out = out.set_index(["model", "metric"])
    tested = tests.set_index(["model", "metric", "setting"])
    for s in settings:
        if s != SETTING:
            name = f"Δ {LABELS.get(s, s)}"
            out[name] = out[LABELS.get(s, s)] - out[LABELS[SETTING]]
            for end, column in zip(ci_columns(name), ("diff_ci_lo", "diff_ci_hi")):
                out[end] = [tested[column].get((m, k, s), np.nan) for m, k in out.index]
            out[f"p {LABELS.get(s, s)}"] = [tested["p"].get((m, k, s), np.nan) for m, k in out.index]
    return out.reset_index()


def missing_runs(long: pd.DataFrame, settings: list[str]) -> list[str]:
    """The empty cells' reasons: a setting a model did not run, or a run one metric's judge did not judge."""
    have = set(zip(long["model"], long["setting"]))
    models, metrics = sorted(set(long["model"])), list(dict.fromkeys(long["metric"]))
    done = long[long["judged"] > 0]  # a rule's row kept for a run it has not judged (with_both_rules) is empty
    judged = set(zip(done["model"], done["setting"], done["metric"]))
    return ([f"{m}: no {s} run" for m in models for s in settings if (m, s) not in have]
            + [f"{m}: {s} not judged for {k}" for m in models for s in settings for k in metrics
               if (m, s) in have and (m, s, k) not in judged])


def bar_figure(long: pd.DataFrame, settings: list[str], path: Path, title: str) -> None:
    """Grouped bars: models on x, one bar per setting, one panel per metric. A setting a model did not run is
    written at its bar's place ("not run"; "not judged" when another metric's judge has that run)."""
    # A metric without any score (e.g. GPTScore with an unconfigured judge model) gets no empty panel.
    metrics = [m for m in METRICS if long.loc[long["metric"] == m, "acc"].notna().any()] or [long["metric"].iloc[0]]
    models = sorted(set(long["model"]))
    ran = set(zip(long["model"], long["setting"]))
    fig, axes = subplots(1, len(metrics), figsize=(max(5, 1.6 * len(models) * len(metrics) + 2), 4), squeeze=False)
    width = 0.8 / len(settings)
    for ax, metric in zip(axes[0], metrics):
        frame = long[long["metric"] == metric].set_index(["model", "setting"])
        sub = frame["acc"]
        for i, s in enumerate(settings):
            ends = tuple([frame[c].get((m, s), np.nan) if c in frame else np.nan for m in models]
                         for c in ci_columns("acc"))
            bars(ax, np.arange(len(models)) + i * width, [sub.get((m, s), np.nan) for m in models], width,
                 label=LABELS.get(s, s), missing=[f"{LABELS.get(s, s)} {'not judged' if (m, s) in ran else NOT_RUN}"
                                                  for m in models], ci=ends)
        ax.set_xticks(np.arange(len(models)) + width * (len(settings) - 1) / 2, models, rotation=20, ha="right")
        ax.set_ylabel(f"{metric} (%)")
        ax.set_xlabel("model")
        highs = frame["acc_ci_hi"] if "acc_ci_hi" in frame else sub  # the error bars stay inside the frame
        top = max(sub.max(), highs.max()) if sub.notna().any() else 0.0
        ax.set_ylim(0, max(5.0, min(100.0, 1.1 * top)))  # a panel of zeros keeps a readable axis
        ax.set_title(metric)
        if not sub.notna().any():
            empty_panel(ax, f"no {metric} score: no judged run of {', '.join(LABELS.get(s, s) for s in settings)}")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    save_figure(fig, path)


def subject_deltas(frames: dict[str, pd.DataFrame], a: Callable[[pd.DataFrame], pd.Series],
                   b: Callable[[pd.DataFrame], pd.Series]) -> dict[str, tuple[float, float]]:
    """Per column "<metric> <subject>" (and "<metric> Total") of a subject table: the 95 % interval of the
    difference a − b (points) on the items both sides ran, `a` and `b` choosing each side's rows of a metric's
    verdicts (analysis.uncertainty.paired_difference over the per-item correctness, samples averaged)."""
    out: dict[str, tuple[float, float]] = {}
    for metric, df in frames.items():
        if df.empty:
            continue
        sides = [df[pick(df)] for pick in (a, b)]
        means = [counted_correct(s).groupby([s["subject"].fillna(""), s["id"]]).mean() for s in sides]
        totals = [counted_correct(s).groupby(s["id"]).mean() for s in sides]
        for subject in sorted(set(means[0].index.get_level_values(0)) & set(means[1].index.get_level_values(0))):
            d = paired_difference(means[0].xs(subject), means[1].xs(subject))
            out[f"{metric} {subject}"] = (d["diff_ci_lo"], d["diff_ci_hi"])
        d = paired_difference(totals[0], totals[1])
        out[f"{metric} Total"] = (d["diff_ci_lo"], d["diff_ci_hi"])
    return out


def delta_row(a: pd.Series, b: pd.Series, intervals: dict[str, tuple[float, float]]) -> pd.Series:
    """The row a − b of a wide table: every number subtracted, except the interval columns, which are the paired
    intervals of the differences (`subject_deltas`; empty for a column without one)."""
    out = pd.Series(np.nan, index=a.index, dtype=object)
    for c in a.index:
        end = ci_end(c)
        if end is None:
            out[c] = a[c] - b[c]
        else:
            out[c] = intervals.get(end[0], (np.nan, np.nan))[0 if end[1] == "ci_lo" else 1]
    return out
