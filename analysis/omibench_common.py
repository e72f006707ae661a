"""What the OMIBench tables share: the paper's subjects, metrics and setting; the runs and verdicts they
read (records of a run, runs by the setting they stand for, verdicts per evaluator model, the sampling
runs, parameter counts); the published rule's ACC beside the careful rule's, with the answers on which they
differ; accuracy per subject with its micro-averaged total and the wide layouts; and the comparison of
settings against a baseline with paired tests and its figure.

Not a table itself (no IDS): analysis.run registers only modules that define IDS.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from analysis.table_experiments import models_of
from analysis.inputs import Run, current_lines, data_file, find_runs, judges_asked, load_run, read_records, stand_in
from analysis.plot import NOT_RUN, bars, empty_panel, save_figure, subplots
from analysis.reference import beside_paper
from analysis.stats import accuracy_table, counted_correct, mcnemar, micro_average, rule_disagreement
from analysis.table import ROOT, Context, MissingInputs
from data.files import read_yaml

BENCH = "omibench"
SETTING = "cot_boxed"     # CoT prompt with \boxed{}: Table 2's runs, and the baseline of every comparison
SUBJECTS = ["Biology", "Chemistry", "Mathematics", "Physics"]  # the paper's column order (Table 2)
SIZES = {"Biology": 251, "Chemistry": 217, "Mathematics": 430, "Physics": 424}  # Figure 2
PUBLISHED, CAREFUL = "omibench_c1", "rules"
# The paper's ACC is its published rule (Appendix C.1), so "ACC" is that judge's and the number set beside the
# paper's; the careful rule judge's accuracy stands beside it, and RULE_GAP counts where the two differ.
METRICS = {"ACC": PUBLISHED, "ACC careful": CAREFUL, "GPTScore": "omibench_gptscore"}
RULE_METRICS = ("ACC", "ACC careful")
RULE_GAP = "ACC: published rule (C.1) vs careful rule, on the same answers"
RULES_NOTE = ("ACC is OMIBench's published rule (Appendix C.1: LCS ratio ≥ 0.75, numbers within 1e-4; judge "
              "omibench_c1), the quantity of the paper's ACC, so it is the one set beside the paper's; ACC careful "
              "is the careful rule judge (rules), which rejects what C.1 accepts by mistake (\"impossible\" for "
              "\"possible\"). Under '" + RULE_GAP + "': acc_c1 and acc_careful, the answers only one of them "
              "accepts (only_c1_correct, only_careful_correct) and the answers one of them has not judged "
              "(c1_missing, careful_missing).")
EXTERNAL = ROOT / "data" / "external" / "omibench"
LABELS = {"cot_boxed": "Default CoT", "least_to_most": "Least-to-Most", "plan_and_solve": "Plan-and-Solve",
          "vot": "VoT", "no_think": "No-Think", "cot_boxed+first": "First image only",
          "cot_boxed+text": "No image", "cot_boxed+composite": "Composite single image"}
# Figure 5(c)'s parallel-sampling runs: the paper's (T 0.6, L_max 16384), then the demo's without +max.
SAMPLING, SAMPLING_SETTINGS = "omibench_F5c", ["cot_boxed+temp0.6+max16384", "cot_boxed+temp0.6"]


# --- what the tables read ------------------------------------------------------------------------------

def run_records(run: Run) -> dict[str, dict]:
    """The records a run was judged against (its manifest's data file), else the benchmark's data file."""
    return read_records(run.data or data_file(BENCH).path)


def runs_named(ctx: Context, judge: str, pattern: re.Pattern) -> dict[tuple[str, str], Run]:
    """(model, setting) → run, for every setting of `judge`'s runs that matches the regex (a run counts under
    the setting it stands for; the run of that very name is preferred)."""
    found = find_runs(ctx.results, BENCH, judge)
    return {(r.model, r.stands_for): stand_in([x for x in found if x.model == r.model], r.stands_for)
            for r in found if pattern.fullmatch(r.stands_for)}


def evaluator_verdicts(run: Run) -> pd.DataFrame:
    """A verdict file's current verdicts per evaluator: one file holds every judge model that judged it, so each
    judge model asked for on it (inputs.judges_asked) gives its own current verdict of each current outcome
    (status `unjudged` where it has none); the rule judge's evaluator is "rules"."""
    columns = ["evaluator", "id", "sample_idx", "status", "correct", "extracted", "flagged"]
    frames = []
    for judge in judges_asked(run):
        ev = judge.get("model") or judge.get("name") or run.judge
        rows = [{"evaluator": ev, "id": i, "sample_idx": s, "status": v.get("status", "ok"),
                 "correct": v.get("correct"), "extracted": v.get("extracted"), "flagged": bool(v.get("flags"))}
                for (i, s), v in current_lines(run, judge).items()]
        frames.append(pd.DataFrame(rows, columns=columns))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    recs = run_records(run)
    df["subject"] = [recs.get(i, {}).get("subject") for i in df["id"]]
    df.insert(0, "model", run.model)
    return df


def metric_verdicts(ctx: Context, settings: list[str]) -> list[tuple[str, pd.DataFrame, list[Run]]]:
    """(metric, verdicts, runs read) of `settings` for each metric whose judge has runs of them."""
    out = []
    for metric, judge in METRICS.items():
        try:
            out.append((metric, ctx.verdicts(BENCH, settings, judge), ctx.runs(BENCH, settings, judge)))
        except MissingInputs:
            continue
    return out


# --- the published rule beside the careful one --------------------------------------------------------------

def rule_gap(frames: Mapping[str, pd.DataFrame], by: list[str]) -> pd.DataFrame:
    """The verdict frames of ACC (published rule) and ACC careful compared answer by answer, per group
    (analysis.stats.rule_disagreement): both accuracies, the disagreements each way, the answers one lacks."""
    published, careful = (f if f is not None and set(by) <= set(f.columns) else None  # no columns: nothing judged
                          for f in (frames.get("ACC"), frames.get("ACC careful")))
    if published is None and careful is None:
        return rule_disagreement(pd.DataFrame(columns=by), pd.DataFrame(columns=by), by, ("c1", "careful"))
    empty = (careful if published is None else published).iloc[0:0]
    return rule_disagreement(empty if published is None else published, empty if careful is None else careful,
                             by, ("c1", "careful"))


def rule_gap_notes(gap: pd.DataFrame, by: list[str]) -> list[str]:
    """The notes a table needs when one rule has not judged some answers: which groups and how many."""
    notes = []
    for column, judge, metric in (("c1_missing", PUBLISHED, "ACC"), ("careful_missing", CAREFUL, "ACC careful")):
        lacking = gap[gap[column] > 0]
        if len(lacking):
            groups = "; ".join(f"{' / '.join(str(r[c]) for c in by)}: {r[column]}" for _, r in lacking.iterrows())
            notes.append(f"Answers with no {judge} verdict ({metric} is missing there, or over fewer answers): "
                         f"{groups}. Judge them with python -m judge.run … --judge {judge} (or rerun the "
                         "experiment).")
    return notes


def with_both_rules(long: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """`long` (one row per metric and `keys`) with a row of each rule metric wherever either has one: a run
    that one rule has not judged keeps its row, acc empty and judged 0, so no column or model goes missing."""
    rules = long[long["metric"].isin(RULE_METRICS)]
    if rules.empty:
        return long
    present, added = rules[keys].drop_duplicates(), []
    counts = [c for c in ("judged", "scored", "no_response", "judge_error", "unjudged", "flagged") if c in long]
    for metric in RULE_METRICS:
        have = long.loc[long["metric"] == metric, keys].drop_duplicates()
        lacking = present.merge(have, on=keys, how="left", indicator=True)
        lacking = lacking[lacking["_merge"] == "left_only"].drop(columns="_merge")
        if len(lacking):
            added.append(lacking.assign(metric=metric, **{c: 0 for c in counts}))
    if not added:
        return long
    return pd.concat([long, *added], ignore_index=True)


def rule_gap_of_runs(runs: list[Run]) -> pd.DataFrame:
    """`rule_gap` over whole runs (every current verdict of each ACC and ACC careful run given), per model and
    the run's setting."""
    unique = {r.path: r for r in runs}.values()
    frames = {m: [load_run(r) for r in unique if r.judge == METRICS[m]] for m in RULE_METRICS}
    return rule_gap({m: pd.concat(f, ignore_index=True) for m, f in frames.items() if f}, ["model", "setting"])


def beside_paper_rules(long: pd.DataFrame, table_id: str, keys: list[str], **kw) -> pd.DataFrame:
    """analysis.reference.beside_paper (the paper's ACC beside ours by its own rule, C.1), with the careful
    rule's value on the same answers in `ours_careful` of each ACC row: a gap the careful rule closes or
    widens is the matcher's, not the model's."""
    out = beside_paper(long, table_id, keys, **kw)
    other = ["model", *(k for k in keys if k != "metric")]
    careful = long.loc[long["metric"] == "ACC careful", [*other, kw.get("value", "acc")]].drop_duplicates(other)
    out = out.merge(careful.rename(columns={kw.get("value", "acc"): "ours_careful"}), on=other, how="left")
    out["ours_careful"] = out["ours_careful"].where(out["metric"] == "ACC")
    return out


def sampling_runs(ctx: Context) -> dict[str, dict[str, Run]]:
    """metric → model → its parallel-sampling run (the first of SAMPLING_SETTINGS the model has), for the
    sampling experiment's models only: Table 5 and the significance runs sample cot_boxed+temp0.6 too, and
    Table 5's GPTScore file holds two judge models' verdicts, which a vote must not mix."""
    out: dict[str, dict[str, Run]] = {}
    for metric, judge in METRICS.items():
        for setting in SAMPLING_SETTINGS:
            for run in ctx.runs(BENCH, [setting], judge):
                if run.model in models_of(SAMPLING):
                    out.setdefault(metric, {}).setdefault(run.model, run)
    return out


def model_params(model: str, run: Run | None = None) -> tuple[float | None, float | None]:
    """(total, activated) parameters in billions: configs/models/paper/<model>.yaml, else the config
    recorded in the run's raw manifest (the demo's models are not paper configs)."""
    cfg_path = ROOT / "configs" / "models" / "paper" / f"{model}.yaml"
    cfg = read_yaml(cfg_path) if cfg_path.exists() else None
    if cfg is None and run is not None:
        cfg = run.raw_manifest.get("model")
    cfg = cfg or {}
    total = cfg.get("params_total_b")
    return total, cfg.get("params_active_b", total)


# --- accuracy per subject ------------------------------------------------------------------------------

def micro_total(by_subject: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Total per group: the subject accuracies weighted by the subject's size (§4.1 "micro-averaged").

    acc is weighted by the judged items (so the total is correct / all items, failures not correct, as
    the paper's Eq. 5 over N), acc_scored by the scored ones. Written as a weighted mean so that the same
    code reproduces the paper's totals from its subject columns (tests weight them by Figure 2's sizes).
    """
    counts = [c for c in ("judged", "scored", "no_response", "judge_error", "unjudged", "flagged") if c in by_subject]
    rows = []
    for key, g in by_subject.groupby(by, dropna=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(acc=_weighted(g, "acc", "judged"), acc_scored=_weighted(g, "acc_scored", "scored"),
                   **{c: int(g[c].sum()) for c in counts})
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, "acc", "acc_scored", *counts])


def _weighted(g: pd.DataFrame, acc: str, size: str) -> float:
    keep = (g[size] > 0) & g[acc].notna()
    return micro_average(g.loc[keep, acc], g.loc[keep, size]) if keep.any() else np.nan


def per_subject(df: pd.DataFrame, metric: str, by: list[str] | None = None) -> pd.DataFrame:
    """Accuracy per group (default: model) and subject, plus the micro-averaged "Total" (`micro_total`)."""
    by = by or ["model"]
    by_subject = accuracy_table(df, [*by, "subject"])
    total = micro_total(by_subject, by).assign(subject="Total")
    out = pd.concat([by_subject, total], ignore_index=True)
    out["metric"] = metric
    return out


def pooled_per_subject(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy per group and subject plus "Total" over all items pooled (the same micro-average, computed
    from the items rather than from the subjects); a frame without subjects has the Total only."""
    sub = accuracy_table(df, [*by, "subject"]) if "subject" in df else pd.DataFrame()
    total = accuracy_table(df, by).assign(subject="Total")
    return pd.concat([sub, total], ignore_index=True)


def subject_columns(present: list[str], metrics: list[str]) -> list[str]:
    """"<metric> <subject>" in the paper's order: subject by subject (ACC, then GPTScore), Total last."""
    subjects = [s for s in SUBJECTS if s in present] + sorted(set(present) - {*SUBJECTS, "Total"}) + ["Total"]
    return [f"{m} {s}" for s in subjects for m in metrics]


def subject_wide(long_df: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per every combination of the `index` values, columns `subject_columns`."""
    wide = long_df.pivot_table(index=index, columns=["metric", "subject"], values="acc", aggfunc="first",
                               dropna=False)
    wide.columns = [f"{m} {s}" for m, s in wide.columns]
    metrics = [m for m in METRICS if m in set(long_df["metric"])]
    cols = [c for c in subject_columns(list(long_df["subject"].dropna().unique()), metrics) if c in wide]
    return wide[cols].reset_index()


def subject_wide_present(long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per `index` combination present, columns "<metric> <subject>" (subjects, then Total)."""
    # unstack, not pivot_table(dropna=False): that would add every combination of the index levels
    t = long.drop_duplicates([*index, "metric", "subject"]).set_index([*index, "metric", "subject"])["acc"]
    t = t.unstack(["metric", "subject"])
    order = [s for s in [*SUBJECTS, "Total"] if s in set(long["subject"])]
    order += sorted(set(long["subject"]) - set(order))
    cols = [(m, s) for s in order for m in METRICS if (m, s) in t.columns]
    t = t[cols]
    t.columns = [f"{m} {s}" for m, s in cols]
    return t.reset_index()


# --- settings against a baseline (Fig. 3(c), Fig. 4, Table 4, Table 6) --------------------------------

def paired_tests(df: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Exact McNemar of every setting against the baseline, per model, on the (item, sample) pairs both
    ran; a failure is not correct, so the test is of the difference in the accuracies the tables show."""
    cols = ["model", "setting", "paired", "only_setting", "only_baseline", "p"]
    ran = df[["model", "setting", "id", "sample_idx"]].assign(correct=counted_correct(df))
    rows = []
    for (model, setting), g in ran.groupby(["model", "setting"]):
        base = ran[(ran["model"] == model) & (ran["setting"] == baseline)]
        if setting == baseline or base.empty:
            continue
        m = g.merge(base, on=["id", "sample_idx"], suffixes=("", "_base"))
        t = mcnemar(m["correct"].astype(bool).to_numpy(), m["correct_base"].astype(bool).to_numpy())
        rows.append([model, setting, len(m), t["only_a"], t["only_b"], t["p"]])
    return pd.DataFrame(rows, columns=cols)


def common_items(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, only the items every one of its settings ran (the demo runs some settings on a prefix),
    so that the settings' accuracies compare the same questions."""
    keep = []
    for _, g in df.groupby("model"):
        everywhere = g.groupby("id")["setting"].transform("nunique").eq(g["setting"].nunique())
        keep.append(g[everywhere])
    return pd.concat(keep, ignore_index=True) if keep else df


def compare(ctx: Context, settings: list[str], where: Callable[[pd.DataFrame], pd.DataFrame] | None = None
            ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, list[Run]]:
    """Accuracy per (metric, model, setting) on the model's common items, the paired tests against SETTING,
    for every judge that has runs, and the two rules compared per (model, setting) (`rule_gap`); `where`
    selects rows first (e.g. multi-image items only)."""
    long, tests, frames, sources = [], [], {}, []
    for metric, df, runs in metric_verdicts(ctx, settings):
        df = frames[metric] = common_items(where(df) if where is not None else df)
        long.append(accuracy_table(df, ["model", "setting"]).assign(metric=metric))
        tests.append(paired_tests(df, SETTING).assign(metric=metric))
        sources += runs
    if not long:
        raise MissingInputs(f"no judged omibench runs of {settings} ({', '.join(METRICS.values())}); "
                            f"run their experiment config (configs/experiments/omibench_*.yaml)")
    long_df = with_both_rules(pd.concat(long, ignore_index=True), ["model", "setting"])
    return long_df, pd.concat(tests, ignore_index=True), rule_gap(frames, ["model", "setting"]), sources


def settings_wide(long: pd.DataFrame, tests: pd.DataFrame, settings: list[str]) -> pd.DataFrame:
    """One row per (model, metric): accuracy per setting, then Δ and McNemar p of each against SETTING."""
    acc = long.pivot_table(index=["model", "metric"], columns="setting", values="acc", aggfunc="first", dropna=False)
    out = pd.DataFrame(index=acc.index)
    for s in settings:
        out[LABELS.get(s, s)] = acc[s] if s in acc else np.nan
    p = tests.set_index(["model", "metric", "setting"])["p"]
    for s in settings:
        if s != SETTING:
            out[f"Δ {LABELS.get(s, s)}"] = out[LABELS.get(s, s)] - out[LABELS[SETTING]]
            out[f"p {LABELS.get(s, s)}"] = [p.get((m, k, s), np.nan) for m, k in out.index]
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
        sub = long[long["metric"] == metric].set_index(["model", "setting"])["acc"]
        for i, s in enumerate(settings):
            bars(ax, np.arange(len(models)) + i * width, [sub.get((m, s), np.nan) for m in models], width,
                 label=LABELS.get(s, s), missing=[f"{LABELS.get(s, s)} {'not judged' if (m, s) in ran else NOT_RUN}"
                                                  for m in models])
        ax.set_xticks(np.arange(len(models)) + width * (len(settings) - 1) / 2, models, rotation=20, ha="right")
        ax.set_ylabel(f"{metric} (%)")
        ax.set_xlabel("model")
        top = sub.max() if sub.notna().any() else 0.0
        ax.set_ylim(0, max(5.0, 1.1 * top))  # a panel of zeros keeps a readable axis
        ax.set_title(metric)
        if not sub.notna().any():
            empty_panel(ax, f"no {metric} score: no judged run of {', '.join(LABELS.get(s, s) for s in settings)}")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    save_figure(fig, path)
