"""C²RBench Figures 7–10: zero-shot accuracy (T = 0) per subset (Fig. 7) and per level (Fig. 8), MLLMs on
the Multimodal subset (Fig. 9), and text-only LLMs on the Logical, Graph Analysis and Reading subsets
(Fig. 10)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd

from analysis.c2rbench import common as c2r
from analysis.plot import bars as draw_bars, draw, save_figure, subplots
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import ci_columns, with_intervals

IDS = ["c2rbench.F7", "c2rbench.F8", "c2rbench.F9", "c2rbench.F10"]
F10_SUBSETS = ["Logical", "Graph Analysis", "Reading"]
CAPTIONS = {
    "c2rbench.F7": "C²RBench Fig. 7 — MLLMs' accuracy (%) across the eight subsets and overall; zero-shot, T = 0.",
    "c2rbench.F8": "C²RBench Fig. 8 — MLLMs' accuracy (%) across difficulty levels 1–3 and overall; "
                   "zero-shot, T = 0.",
    "c2rbench.F9": "C²RBench Fig. 9 — accuracy (%) of MLLMs on the Multimodal subset; zero-shot, T = 0.",
    "c2rbench.F10": "C²RBench Fig. 10 — text-only LLMs on the Logical, Graph Analysis and Reading subsets (%), "
                    "question and attached files as text, no images; zero-shot, T = 0.",
}


def by_key(df: pd.DataFrame, column: str, names: list, label=str) -> pd.DataFrame:
    """Accuracy per model and value of `column` (in `names` order, labelled), then Overall over `df`."""
    parts = [accuracy_table(df[df[column] == v], ["model"]).assign(key=label(v)) for v in names
             if (df[column] == v).any()]
    parts.append(accuracy_table(df, ["model"]).assign(key="Overall"))
    return pd.concat(parts, ignore_index=True)


def wide(long: pd.DataFrame, df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Models as rows (best Overall first), keys as columns, with the judge and setting each ran."""
    t = long.pivot_table(index="model", columns="key", values="acc", aggfunc="first", dropna=False)
    t = t[[k for k in keys if k in t.columns]]
    t = t.sort_values("Overall" if "Overall" in t else t.columns[0], ascending=False, kind="stable")  # ties by name
    info = df.groupby("model")[["judge", "run_setting"]].first()
    return with_intervals(info.join(t, how="right").reset_index(), long, ["model"], ["key"], str)


def bars(t: pd.DataFrame, keys: list[str], title: str, path: Path, xlabel: str) -> None:
    """Grouped bars, keys on x; a key without any task of a model (or of the data) is written "no tasks"."""
    t = t.reindex(columns=[*t.columns, *(k for k in keys if k not in t.columns)])
    fig, ax = subplots(figsize=(max(7, len(keys) * (0.6 + 0.25 * len(t))), 4.5))
    width = 0.8 / max(1, len(t))
    for i, (_, row) in enumerate(t.iterrows()):
        ends = tuple([row.get(ci_columns(k)[end], float("nan")) for k in keys] for end in (0, 1))
        draw_bars(ax, [k + i * width for k in range(len(keys))], row[keys], width, label=row["model"],
                  missing="no tasks", ci=ends)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(keys))], keys, rotation=20, ha="right")
    ax.set_ylabel("accuracy (%)")
    ax.set_xlabel(xlabel)
    ax.set_ylim(0, 100)
    # the captions are longer than the panel is wide; "T = 0" stays on one line
    ax.set_title(textwrap.fill(title.replace(" = ", "\u00a0=\u00a0"), 60, break_on_hyphens=False))
    ax.legend(fontsize=8)
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    setting = c2r.TEXT if table_id == "c2rbench.F10" else c2r.MAIN
    df, provenance, notes = c2r.judged(ctx, table_id, [setting])
    subsets = c2r.subset_order(df["category"].dropna()) if "category" in df else []
    extra: dict[str, pd.DataFrame] = {}
    if table_id == "c2rbench.F7":
        long, keys, ref_key, xlabel = by_key(df, "category", subsets), [*subsets, "Overall"], "subset", "subset"
    elif table_id == "c2rbench.F8":
        long, keys, ref_key, xlabel = (by_key(df, "level", c2r.LEVELS, c2r.level_name),
                                       [*map(c2r.level_name, c2r.LEVELS), "Overall"], "level", "difficulty level")
    elif table_id == "c2rbench.F9":
        mm = df[df["category"] == "Multimodal"]
        if mm.empty:
            raise MissingInputs(f"no Multimodal-subset task in the judged {setting} runs")
        long = accuracy_table(mm, ["model"]).assign(key="Multimodal")
        keys, ref_key, xlabel = ["Multimodal"], "subset", "subset"
        kinds = {r.model: "image" in c2r.modalities(r) for r in provenance.runs}
        notes.append("Fig. 9 shows MLLMs; column `MLLM` says whether the model's config takes images "
                     "(a text-only model appears only through a +caption demo run).")
    else:
        pool = df[df["category"].isin(F10_SUBSETS)]
        if pool.empty:
            raise MissingInputs(f"no Logical / Graph Analysis / Reading task in the judged {setting} runs")
        long = pd.concat([by_key(pool, "category", F10_SUBSETS),
                          by_key(pool, "level", c2r.LEVELS, c2r.level_name).query("key != 'Overall'")])
        keys = [*F10_SUBSETS, "Overall", *map(c2r.level_name, c2r.LEVELS)]
        ref_key, xlabel = "subset", "subset / level (over the three subsets)"
        other = by_key(df, "category", subsets)
        every = wide(other, df, [*subsets, "Overall"])
        extra["Every subset (the text cites Fig. 10 for General Knowledge too)"] = every
        notes.append("`Overall` and the levels pool the three subsets' tasks (micro-average); §4.4 says Fig. 10 "
                     "also shows the drop with level.")
    table = wide(long, df, keys)
    gaps = table.set_index("model").reindex(columns=keys).isna()
    if gaps.any().any():
        notes.append("No task read (empty or absent cells; 'no tasks' in the figure): " + "; ".join(
            f"{k} for {', '.join(gaps.index[gaps[k]])}" for k in keys if gaps[k].any()) + ".")
    if table_id == "c2rbench.F9":
        table.insert(1, "MLLM", table["model"].map(kinds))
    fail = long[long["key"] == "Overall"] if "Overall" in set(long["key"]) else long
    extra = {"Failures and accuracy over scored tasks": fail[["model", "acc", *BESIDE]], **extra}
    fig = draw(bars, table, keys, CAPTIONS[table_id].split(" — ")[1], path=ctx.figure(table_id),
               xlabel=xlabel)
    return Table(CAPTIONS[table_id] + " Failures (no response, judge error) count as not correct.",
                 table, vs_paper=beside_paper(long.rename(columns={"key": ref_key}), table_id, [ref_key]),
                 extra=extra, figure=fig, notes=[ACC_NOTE, *notes], provenance=provenance)
