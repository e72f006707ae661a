"""OMIBench Fig. 3(b): accuracy by number of images per item (1, 2, 3, 4, 5, ≥6), CoT prompt with
\\boxed{}; per model and pooled over every model's predictions (Appendix E.2, Eq. 10: the rule match — ACC by
C.1's published rule, and by the careful rule beside it)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.omibench.metrics import (METRICS, RULE_GAP, RULE_METRICS, RULES_NOTE, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import BENCH, SETTING
from analysis.plot import bars, draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table, counted_correct
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import CI_HI, CI_LO, bootstrap, ci_columns, with_intervals
from judge.status import UNDECIDED

IDS = ["omibench.F3b"]
BINS = ["1", "2", "3", "4", "5", "≥6"]
POOLED = "all models"


def image_bin(k: int) -> str:
    # k = 0 cannot occur in OMIBench (every item has images); kept visible rather than folded into "1".
    return "≥6" if k >= 6 else str(int(k))


def image_bins(n_images: pd.Series) -> pd.Series:
    """`image_bin` of each count, worked out once per distinct count rather than once per row."""
    return n_images.map({k: image_bin(k) for k in n_images.dropna().unique()})


def by_images(df: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (model, bin) and pooled over models: Acc(k) = mean match over B_k (Eq. 10), where
    every model's prediction of an item is one element of the bin."""
    df = df.assign(images=image_bins(df["n_images"]))
    per_model = accuracy_table(df, ["model", "images"])
    pooled = accuracy_table(df, ["images"]).assign(model=POOLED)
    # every model's answer to an item is one element of the bin, but the models' answers to one item are not
    # independent draws: the pooled interval is the bootstrap over items, an item's answers resampled together
    right, ok, undecided = counted_correct(df), df["status"].eq("ok"), df["status"].eq(UNDECIDED)
    # integer codes of the bins (from the image counts: no strings) and of the items, made once for the three
    # intervals (a million answers at paper scale)
    codes = pd.DataFrame({"images": np.minimum(df["n_images"].to_numpy(dtype=np.int64), 6)})
    items = pd.factorize(df["id"])[0]
    found = {}
    for rate, hits, among, same in (("acc", right, None, None), ("acc_hi", right | undecided, None, "acc"),
                                    ("acc_scored", right, ok, "acc")):
        if same and not (undecided if rate == "acc_hi" else ~ok).any():
            found[rate] = found[same]  # no undecided answer (no failure): the same answers, the same interval
        else:
            ci = bootstrap(codes, ["images"], items, hits, among, scale=100, proportion=True)
            found[rate] = ci.set_index(ci["images"].map(image_bin))
        for end, column in zip((CI_LO, CI_HI), ci_columns(rate)):
            pooled[column] = pooled["images"].map(found[rate][end])
    items = df.groupby("images")["id"].nunique().rename("items").reset_index()
    return pd.concat([per_model, pooled], ignore_index=True).merge(items, on="images")


def figure(long: pd.DataFrame, bins: list[str], path: Path) -> None:
    """Per bin of `by_images`, one panel per rule: the pooled accuracy as bars, each model's as a line."""
    metrics = [m for m in RULE_METRICS if m in set(long["metric"])]
    fig, axes = subplots(1, len(metrics), figsize=(7 * len(metrics), 4), squeeze=False)
    x = np.arange(len(bins))
    for ax, metric in zip(axes[0], metrics):
        frame = long[long["metric"] == metric].set_index(["model", "images"])
        val = frame["acc"]
        # a bin without any item (the release has no one-image item) says so instead of showing no bar
        judged = metric in set(long.loc[long["judged"] > 0, "metric"])
        ends = tuple([frame[c].get((POOLED, b), np.nan) if c in frame else np.nan for b in bins]
                     for c in ("acc_ci_lo", "acc_ci_hi"))
        bars(ax, x, [val.get((POOLED, b), np.nan) for b in bins], color="lightgray", label=POOLED,
             missing="no items" if judged else f"no {METRICS[metric]} verdicts", ci=ends)
        for model in sorted(set(long["model"]) - {POOLED}):
            # unclipped, so a point at 0% shows whole on the axis
            ax.plot(x, [val.get((model, b), np.nan) for b in bins], marker="o", label=model, clip_on=False)
        ax.set(xticks=x, xticklabels=bins, xlabel="images per item", ylabel=f"{metric} (%)", title=metric,
               ylim=(0, 100))
        ax.legend(fontsize=8)
    fig.suptitle("OMIBench Fig. 3(b): accuracy by number of images")
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    frames, runs = {}, []
    for metric in RULE_METRICS:
        try:
            frames[metric] = ctx.verdicts(BENCH, [SETTING], METRICS[metric])
        except MissingInputs:
            continue
        runs += ctx.runs(BENCH, [SETTING], METRICS[metric])
    if not frames:
        raise MissingInputs(f"no judged omibench {SETTING} runs ({' or '.join(METRICS[m] for m in RULE_METRICS)}); "
                            f"{how_to_run(table_id)}")
    if any("n_images" not in df or df["n_images"].isna().all() for df in frames.values()):
        raise MissingInputs("the cot_boxed verdict files' manifests name no readable data file, so image counts "
                            "are unknown (rerun the judge, which writes the manifest)")
    long = pd.concat([by_images(df[df["n_images"].notna()]).assign(metric=metric) for metric, df in frames.items()],
                     ignore_index=True)
    long = with_both_rules(long, ["model", "images"])
    gap = rule_gap(frames, ["model"])
    bins = [b for b in ["0"] if b in set(long["images"])] + BINS  # the paper's six bins, empty ones too
    wide = long.pivot_table(index=["metric", "model"], columns="images", values="acc", aggfunc="first", dropna=False)
    wide = wide.reindex(columns=bins).reset_index().rename_axis(columns=None)
    wide = with_intervals(wide, long, ["metric", "model"], ["images"], str)
    wide["order"] = wide["metric"].map(RULE_METRICS.index) * 2 + (wide["model"] != POOLED)
    wide = wide.sort_values(["order", "model"]).drop(columns="order").reset_index(drop=True)
    answered = pd.concat([df[["id", "n_images"]] for df in frames.values()]).drop_duplicates("id").dropna()
    items = image_bins(answered["n_images"]).value_counts().rename("items").rename_axis("images")
    items = items.reindex(bins, fill_value=0)
    return Table(
        "OMIBench Fig. 3(b) — ACC (%) by number of images per item (1, 2, 3, 4, 5, ≥6), by C.1's rule (ACC) and "
        "the careful rule (ACC careful); CoT prompt with \\boxed{}; each rule's first row pooled over every "
        "model's predictions.",
        wide,
        extra={"Items per bin": items.reset_index(),
               "Per bin with failures": long[["metric", "model", "images", "acc", *BESIDE]], RULE_GAP: gap},
        figure=draw(figure, long, bins, path=ctx.figure(table_id)),
        provenance=Provenance(runs),
        notes=[ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
               "Intervals (95 %): a model's Wilson's over the bin's items; the pooled row's the bootstrap over the "
               "bin's items, every model's answer to an item resampled with it (the models' answers to one item are "
               "not independent); the figure's error bars are the pooled row's.",
               "Images per item = entries of the item's `images`. The paper states only that single-image "
               "accuracy reaches 40% and falls below 15% at ≥6 images (no table), so there is no reference file.",
               "The official release's items have 2–11 images (data/converters/omibench.py), so bin 1 may be "
               "empty here although the paper reports one."]
        + ([f"No item in bin(s) {', '.join(b for b in bins if items[b] == 0)}: their cells are empty."]
           if (items == 0).any() else []),
    )
