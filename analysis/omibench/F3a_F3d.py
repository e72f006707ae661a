"""OMIBench Fig. 3(a) and 3(d): our OMIBench totals against published OlympiadBench and MMIU scores — the
Spearman rank correlations across models (paper: 0.614 with OlympiadBench, 0.535 with MMIU; Appendix D,
E.1, F.1) and the per-model comparison. The other benchmarks' scores come from an external file,
data/external/omibench/other_benchmarks.csv (format in data/external/omibench/README.md). Like every OMIBench
accuracy table, both show ACC by the published rule and by the careful one, and the answers they disagree on."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from analysis.external import external_file
from analysis.inputs import Run, shown
from analysis.omibench.metrics import METRICS, RULE_GAP, RULES_NOTE, rule_gap, rule_gap_notes
from analysis.omibench.runs import SETTING, metric_verdicts
from analysis.omibench.subjects import per_subject
from analysis.plot import bars as draw_bars, ci_of, corner_note, draw, empty_panel, save_figure, subplots
from analysis.provenance import Provenance
from analysis.reference import aliases, beside_paper
from analysis.stats import spearman
from analysis.table import Context, MissingInputs, ROOT, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import RHO, UNITS, renamed, rho_interval, with_interval_columns, with_intervals

IDS = ["omibench.F3a", "omibench.F3d"]
EXTERNAL = ROOT / "data" / "external" / "omibench" / "other_benchmarks.csv"
BENCHMARKS = ["OlympiadBench", "MMIU"]
ALL = "all models"  # the model column of the correlation rows (and of the reference file)


def external_scores(path: Path) -> pd.DataFrame:
    """model (our config name; the paper's names are mapped through the aliases), benchmark, score (%)."""
    df = pd.read_csv(path, dtype={"model": str, "benchmark": str})
    if missing := {"model", "benchmark", "score"} - set(df.columns):
        raise ValueError(f"{path}: missing column(s) {sorted(missing)}")
    if bad := set(df["benchmark"]) - set(BENCHMARKS):
        raise ValueError(f"{path}: unknown benchmark(s) {sorted(bad)} (known: {BENCHMARKS})")
    names = aliases("omibench")
    df["model"] = df["model"].map(lambda m: names.get(m, m))
    if df.duplicated(["model", "benchmark"]).any():
        raise ValueError(f"{path}: more than one score for {df[df.duplicated(['model', 'benchmark'])].values.tolist()}")
    return df[["model", "benchmark", "score"]]


class Scores(NamedTuple):
    table: pd.DataFrame  # one row per model: OMIBench total per metric (as Table 2) and the external scores
    omi: list[str]       # its OMIBench columns
    sources: list[Run]   # the runs read
    gap: pd.DataFrame    # the two rules' ACC answer by answer per model (metrics.rule_gap)
    notes: list[str]     # on the inputs: an example file, answers one rule has not judged


def scores(ctx: Context, table_id: str) -> Scores:
    """The OMIBench totals of Table 2's runs beside the external scores (`Scores`); missing, the runs are named
    by `table_id`'s experiments (how_to_run)."""
    ours, sources, frames = [], [], {}
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        frames[metric] = df
        if not df["status"].eq("ok").any():  # a judge that failed on every item ranks nothing
            continue
        total = per_subject(df, metric).query("subject == 'Total'")
        ours.append(total.assign(benchmark=f"OMIBench {metric}")[["model", "benchmark", *with_interval_columns(["acc"])]]
                    .rename(columns=renamed({"acc": "score"})))
        if total["acc_hi"].ne(total["acc"]).any():  # undecided answers: the range's upper end, shown with it
            ours.append(total.assign(benchmark=f"OMIBench {metric} hi")[["model", "benchmark", "acc_hi"]]
                        .rename(columns={"acc_hi": "score"}))
        sources += runs
    if not ours and frames:  # runs there, with answers, and no scored verdict: said as what they hold
        held = "; ".join(f"{metric}: " + ", ".join(f"{n} {status}" for status, n in df["status"].value_counts().items())
                         for metric, df in frames.items())
        raise MissingInputs(f"no scored verdict in the judged omibench {SETTING} runs ({held}); "
                            f"{how_to_run(table_id)}, which judges what is not judged")
    if not ours:
        raise MissingInputs(f"no judged omibench {SETTING} runs ({', '.join(METRICS.values())}); "
                            f"{how_to_run(table_id)}")
    path, example_note = external_file(EXTERNAL)
    ext = external_scores(path)
    table = pd.concat([*ours, ext]).pivot_table(index="model", columns="benchmark", values="score", aggfunc="first")
    omi = [c for c in (f"OMIBench {m}" for m in METRICS) if c in table and table[c].notna().any()]
    table = table.dropna(subset=omi, how="all")
    if table.reindex(columns=BENCHMARKS).notna().any(axis=1).sum() == 0:
        raise MissingInputs(f"no model with an OMIBench {SETTING} run has a score in {path}")
    gap = rule_gap(frames, ["model"])
    notes = ([example_note] if example_note else []) + rule_gap_notes(gap, ["model"])
    ends = [x for c in omi for x in (c, f"{c} hi") if x in table]
    table = table.reindex(columns=[*ends, *BENCHMARKS]).reset_index().rename_axis(columns=None)
    table = with_intervals(table, pd.concat(ours), ["model"], ["benchmark"], str, value="score")
    return Scores(table, omi, sources, gap, notes)


def correlations(table: pd.DataFrame, omi: list[str]) -> pd.DataFrame:
    """Spearman ρ over the models that have both scores, for each pair (and the two external benchmarks)."""
    pairs = [(o, b) for o in omi for b in BENCHMARKS] + [(BENCHMARKS[0], BENCHMARKS[1])]
    rows = []
    for x, y in pairs:
        both = table.dropna(subset=[x, y])
        r = spearman(both[x].tolist(), both[y].tolist())
        rows.append({"model": ALL, "metric": x.removeprefix("OMIBench ") if x.startswith("OMIBench") else "external",
                     "pair": f"{x.split()[0]} vs {y}", "rho": r["rho"], "p": r["p"], "n": r["n"],
                     "models": ", ".join(both["model"])})
    out = pd.DataFrame(rows)
    lo, hi = rho_interval(out["rho"], out["n"])
    out.insert(out.columns.get_loc("rho") + 1, "rho_ci_lo", lo)
    out.insert(out.columns.get_loc("rho") + 2, "rho_ci_hi", hi)
    return out


def scatter(table: pd.DataFrame, corr: pd.DataFrame, x: str, path: Path) -> None:
    """Fig. 3(a): column `x` of `scores` against each external benchmark, titled with its ρ in `corr`."""
    fig, axes = subplots(1, 2, figsize=(10, 4))
    for ax, bench in zip(axes, BENCHMARKS):
        both = table.dropna(subset=[x, bench])
        ax.scatter(both[bench], both[x])
        for _, r in both.iterrows():
            ax.annotate(r["model"], (r[bench], r[x]), fontsize=7)
        # the ρ of the metric drawn (ACC and GPTScore each have an "OMIBench vs <bench>" row)
        mine = corr[(corr["pair"] == f"OMIBench vs {bench}") & (corr["metric"] == x.removeprefix("OMIBench "))]
        rho = mine["rho"].iloc[0] if len(mine) else np.nan
        shown_rho = f"{rho:.3f}" if pd.notna(rho) else f"undefined ({len(both)} model{'s' * (len(both) != 1)})"
        ax.set(xlabel=f"{bench} score (%)", ylabel=f"{x} (%)", title=f"{bench}: Spearman ρ = {shown_rho}")
        if both.empty:
            empty_panel(ax, f"no model has both a {x} and a {bench} score")
        left = [m for m in table["model"] if m not in set(both["model"])]
        if left:
            corner_note(ax, [", ".join(left) if len(left) <= 4 else f"{len(left)} models"], "without both scores:")
    fig.suptitle("OMIBench Fig. 3(a): ranking consistency with OlympiadBench and MMIU")
    save_figure(fig, path)


def bars(table: pd.DataFrame, x: str, path: Path) -> None:
    """Fig. 3(d): per model (ordered by column `x`), its `x` score beside its external scores."""
    cols = [x, *BENCHMARKS]
    t = table.sort_values(x)
    fig, ax = subplots(figsize=(max(6, 1.2 * len(t) + 2), 4))
    for i, c in enumerate(cols):
        # NaN: the external file has no score of the model, or the metric's judge did not judge its run
        draw_bars(ax, np.arange(len(t)) + 0.27 * i, t[c], 0.27, label=c, missing=f"no {c}", ci=ci_of(t, c))
    ax.set_xticks(np.arange(len(t)) + 0.27, t["model"], rotation=20, ha="right")
    ax.set(xlabel="model", ylabel="score (%)", title="OMIBench Fig. 3(d): OMIBench vs MMIU and OlympiadBench", ylim=(0, 100))
    ax.legend(fontsize=8)
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    table, omi, sources, gap, input_notes = scores(ctx, table_id)
    corr = correlations(table, omi)
    # GPTScore when judged (the paper's headline: Gemini-3-Pro 75.67 → 50.53), else ACC (C.1's), else the careful
    x = next(c for c in (f"OMIBench {m}" for m in ("GPTScore", "ACC", "ACC careful")) if c in omi)
    notes = [f"External scores: {shown(EXTERNAL)}. OMIBench = total of Table 2's {SETTING} runs.",
             "The paper's ρ are set beside our GPTScore-based ρ: its example (OlympiadBench 75.67% → OMIBench "
             "50.53%) is Gemini-3-Pro's total GPTScore. The paper does not list its models or their scores.",
             "Intervals (95 %): our OMIBench totals Wilson's over the items; ρ's Fisher's z with Bonett and Wright's "
             "variance over the n models; the paper's ρ the same over its number of models, which it does not print, "
             "so ours stands in (paper_n_from)."]
    notes = [*input_notes, *notes, RULES_NOTE]
    if table_id == "omibench.F3a":
        return Table("OMIBench Fig. 3(a) — Spearman rank correlation across models of OMIBench with "
                     "OlympiadBench and with MMIU, and of OlympiadBench with MMIU.", corr,
                     vs_paper=beside_paper(corr.assign(**{UNITS: corr["n"]}), table_id, ["metric", "pair"],
                                           value="rho", kind=RHO),
                     extra={"Scores (%)": table, RULE_GAP: gap},
                     figure=draw(scatter, table, corr, x, path=ctx.figure(table_id)), notes=notes,
                     provenance=Provenance(sources))
    return Table("OMIBench Fig. 3(d) — per-model scores (%) on OMIBench, MMIU and OlympiadBench.",
                 table.sort_values(x, ascending=False, na_position="last").reset_index(drop=True),
                 extra={"Spearman ρ": corr, RULE_GAP: gap}, figure=draw(bars, table, x, path=ctx.figure(table_id)),
                 notes=notes + ["The paper prints no numbers for Fig. 3(d) (MMIU: even the weakest models "
                                "above 40%; OMIBench: the best around 40%), so there is no reference file."],
                 provenance=Provenance(sources))
