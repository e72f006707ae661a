"""OMIBench Table 10 and Figure 6(b)(c): external systems — tool frameworks on a base model (GPT-4o /
GPT-5 + SlowPerception, CogFlow, Visual Sketchpad) and internal thinking-with-images (Emu-3.5) — from
imported outputs in data/external/omibench/systems/<system>.jsonl (format: README-systems.md)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.external import EXAMPLE_NOTE
from analysis.inputs import read_records, shown
from analysis.omibench.metrics import (METRICS, RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import BENCH, EXTERNAL, SETTING, metric_verdicts
from analysis.omibench.subjects import pooled_per_subject, subject_wide_present
from analysis.plot import bars, ci_of, draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import with_difference_ci, with_interval_columns
from judge import omibench_c1, rules

IDS = ["omibench.F6bc", "omibench.T10"]
SYSTEMS = EXTERNAL / "systems"
COLS = ["model", "id", "sample_idx", "status", "correct", "subject"]
RULE_SCORERS = {"ACC": omibench_c1.score, "ACC careful": rules.score}   # ACC by C.1's rule, the careful beside it


def system_files(folder: Path) -> dict[str, Path]:
    """System name (file stem) → file. The shipped EXAMPLE file is read only when no real file exists,
    and the table then says its numbers are invented."""
    real = {p.stem: p for p in sorted(folder.glob("*.jsonl")) if "EXAMPLE" not in p.name}
    return real or {p.stem: p for p in sorted(folder.glob("*EXAMPLE*.jsonl"))}


def score_system(name: str, path: Path, recs: dict[str, dict]) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """ACC: C.1's rule (judge.omibench_c1.score) and ACC careful: the careful rule (judge.rules.score) on each
    `response`; GPTScore: the line's own `correct` where given (an external judge's verdict). A null or empty
    response is a failed request (no_response), counted and not correct, as for our runs. Returns the verdict
    frames per metric and the ids not in the data."""
    scored: dict[str, list] = {metric: [] for metric in RULE_SCORERS}
    given, unknown, problems = [], [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            rid, resp, cor = str(obj["id"]), obj.get("response"), obj.get("correct")
            if resp is not None and not isinstance(resp, str) or cor not in (None, True, False, 0, 1):
                raise ValueError("response must be a string or null, correct true/false/0/1 or absent")
        except (ValueError, KeyError, TypeError) as e:
            problems.append(f"{path}:{n}: {e!r}")
            continue
        if rid not in recs:
            unknown.append(rid)
            continue
        subject = recs[rid].get("subject")
        status = "ok" if resp and resp.strip() else "no_response"
        ok = status == "ok"
        for metric, score in RULE_SCORERS.items():
            v = score(recs[rid], resp) if ok else {"status": status, "correct": None}
            scored[metric].append([name, rid, 0, v.get("status", "ok"), v.get("correct"), subject])
        if cor is not None or not ok:
            given.append([name, rid, 0, status, bool(cor) if ok else None, subject])
    if problems:
        raise MissingInputs("malformed system file(s), see data/external/omibench/README-systems.md:\n"
                            + "\n".join(problems[:10]))
    frames = {metric: pd.DataFrame(rows, columns=COLS) for metric, rows in scored.items()}
    if any(r[3] == "ok" for r in given):
        frames["GPTScore"] = pd.DataFrame(given, columns=COLS)
    return frames, unknown


def base_of(system: str) -> str | None:
    """`<base>+<tool>` is a tool framework on our model <base>; a name without "+" is an internal system."""
    return system.split("+", 1)[0] if "+" in system else None


def collect(ctx: Context, folder: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, Provenance, list[str]]:
    """Per subject, every system's and base run's accuracy per metric; the two rules compared per model."""
    folder = folder or SYSTEMS
    files = system_files(folder)
    if not files:
        raise MissingInputs(f"no system outputs in {shown(folder)} (one <system>.jsonl per system with id, response and "
                            "optional correct: see data/external/omibench/README-systems.md and EXAMPLE.jsonl)")
    data = ctx.data_file(BENCH)
    path = data.path
    recs, long, notes, sources, verdicts = read_records(path), [], [], [], {}
    if any("EXAMPLE" in f.name for f in files.values()):
        notes.insert(0, EXAMPLE_NOTE.format(path=shown(folder / "EXAMPLE.jsonl"), real=shown(folder / "<system>.jsonl")))
    for name, f in files.items():
        frames, unknown = score_system(name, f, recs)
        if frames["ACC"].empty:
            notes.append(f"{name}: no line with an id of {path.name}; left out")
            continue
        if unknown:
            notes.append(f"{name}: {len(unknown)} id(s) not in the data file left out, e.g. {unknown[0]!r}")
        for metric, df in frames.items():
            verdicts.setdefault(metric, []).append(df)
            kind = "tool" if base_of(name) else "internal"
            long.append(pooled_per_subject(df, ["model"]).assign(metric=metric, kind=kind, base=base_of(name) or ""))
    if not long:
        raise MissingInputs(f"no system file in {shown(folder)} has an id of {shown(path)} (the outputs answer another data file?)")
    bases = {b for b in map(base_of, files) if b}
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        df = df[df["model"].isin(bases)]
        if not df.empty:
            verdicts.setdefault(metric, []).append(df)
            base_rows = pooled_per_subject(df, ["model"]).assign(metric=metric, kind="base run")
            long.append(base_rows.assign(base=base_rows["model"]))
            sources += [r for r in runs if r.model in bases]
    missing = sorted(bases - {m for d in long for m in d.loc[d["kind"] == "base run", "model"]})
    if missing:
        notes.append(f"no {SETTING} run of base model(s) {', '.join(missing)}: their base rows are missing")
    long_df = with_both_rules(pd.concat(long, ignore_index=True), ["model", "kind", "base", "subject"])
    gap = rule_gap({m: pd.concat(fs, ignore_index=True) for m, fs in verdicts.items()}, ["model"])
    return long_df, gap, Provenance(sources, data=data), notes + rule_gap_notes(gap, ["model"])


def figure(table: pd.DataFrame, path: Path) -> None:
    """Fig. 6(b)(c): total ACC and GPTScore of every base run and system (the rows of `table`)."""
    fig, ax = subplots(figsize=(9, 4))
    metrics = [m for m in METRICS if f"{m} Total" in table]
    for i, m in enumerate(metrics):
        # a system file without `correct` has no GPTScore; a base run may lack one judge
        bars(ax, np.arange(len(table)) + i * 0.27, table[f"{m} Total"], 0.27, label=m, missing=f"no {m}",
             ci=ci_of(table, f"{m} Total"))
    ax.set_xticks(np.arange(len(table)) + 0.135 * (len(metrics) - 1), table["model"], rotation=30, ha="right",
                  fontsize=7)
    ax.set_ylabel("total score (%)")
    ax.set_xlabel("base model / system")
    ax.set_title("OMIBench Fig. 6(b)(c) / Table 10: thinking with images and external tools")
    ax.set_ylim(0, 100)  # percentages: a fixed scale keeps bars comparable across runs
    ax.legend(fontsize=7)
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    long, gap, provenance, notes = collect(ctx)
    table = subject_wide_present(long, ["base", "kind", "model"])
    # each base model's run, then its tool frameworks; the internal systems last
    table["group"] = [b if b else "\uffff" for b in table["base"]]
    table["order"] = table["kind"].map({"base run": 0, "tool": 1, "internal": 2})
    table = table.sort_values(["group", "order", "model"]).drop(columns=["group", "order"]).reset_index(drop=True)
    base = long[(long["kind"] == "base run") & (long["subject"] == "Total")].set_index(["model", "metric"])
    for metric in METRICS:
        if f"{metric} Total" in table:
            # the base's total and its interval beside each row, then the difference with MOVER's interval (the
            # system's file may hold other items than the base run: the two are taken as independent)
            for column, ours in zip(("acc", "acc_ci_lo", "acc_ci_hi"), with_interval_columns([f"{metric} Total"])):
                table[f"_base {column}"] = [base[column].get((b, metric), np.nan) if column in base else np.nan
                                            for b in table["base"]]
                table[f"_{column}"] = table[ours] if ours in table else np.nan
            table = with_difference_ci(table, "_acc", "_base acc", f"Δ{metric} Total", ("_acc_ci_lo", "_acc_ci_hi"),
                                       ("_base acc_ci_lo", "_base acc_ci_hi"))
            table = table.drop(columns=[c for c in table.columns if c.startswith("_")])
    fails = long[long["subject"] == "Total"][["model", "metric", "acc", *BESIDE]]
    path = draw(figure, table, path=ctx.figure(table_id))
    caption = ("OMIBench Table 10 — ACC and Score (GPTScore) (%) per subject of external-tool frameworks on GPT-4o "
               "and GPT-5; base rows are our CoT-boxed runs" if table_id == "omibench.T10" else
               "OMIBench Figure 6(b)(c) — tool-based (e.g. GPT-4o + Visual Sketchpad) and internal (e.g. Emu-3.5) "
               "thinking with images against their base models")
    return Table(caption + "; Δ = system minus its base (Total).", table,
                 vs_paper=beside_paper_rules(long, "omibench.T10", ["metric", "subject"])
                 if table_id == "omibench.T10" else None,
                 extra={"Failures and accuracy over scored items": fails, RULE_GAP: gap}, figure=path,
                 provenance=provenance,
                 notes=notes + [ACC_NOTE, RULES_NOTE,
                                "System ACC: judge.omibench_c1.score (C.1) and ACC careful: judge.rules.score of each "
                                "imported response; system GPTScore: the verdicts imported in the file's `correct` "
                                "field (absent → no GPTScore).",
                                "Δ compares totals, which may cover different items when a system's file holds a "
                                "subset of the items (see `judged`); its 95 % interval is combined from the two "
                                "totals' Wilson intervals (MOVER), as for independent samples, and no test is made."])
