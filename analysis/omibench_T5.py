"""OMIBench Table 5: stability of GPTScore and ACC over three independent sampling runs and two evaluator
models — mean and standard deviation of the per-run accuracy, per subject and total (Appendix J)."""
from __future__ import annotations

import pandas as pd

from analysis.omibench_b_util import BENCH, METRICS, SUBJECTS, evaluator_verdicts
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, repeat_mean_std
from analysis.table import Context, MissingInputs, Table

IDS = ["omibench.T5"]
SETTING = "cot_boxed+temp0.6"   # configs/experiments/omibench_repeats.yaml: n samples = the repeated runs
RUNS = 3                        # Table 5 uses three runs (sample_idx 0..2); the significance tests use all


def stability(v: pd.DataFrame, runs: int = RUNS) -> pd.DataFrame:
    """Mean and std (%) over runs 0..runs−1 per model, metric, evaluator and subject (+ Total) of the per-run
    accuracy (failures not correct) and of the per-run accuracy over scored verdicts, with the failures of
    those runs counted."""
    v = v[v["sample_idx"] < runs]
    by = ["model", "metric", "evaluator"]
    parts = [repeat_mean_std(v, [*by, "subject"]), repeat_mean_std(v, by).assign(subject="Total")]
    out = pd.concat(parts, ignore_index=True)
    fails = v.groupby(by).agg(no_response=("status", lambda s: int((s == "no_response").sum())),
                              judge_error=("status", lambda s: int((s == "judge_error").sum()))).reset_index()
    return out.merge(fails, on=by, how="left")


def build(table_id: str, ctx: Context) -> Table:
    frames, sources = [], []
    for metric, judge in METRICS.items():
        for run in ctx.runs(BENCH, [SETTING], judge):
            frames.append(evaluator_verdicts(run).assign(metric=metric))
            sources.append(run)
    if not frames:
        raise MissingInputs(f"no judged omibench {SETTING} runs (configs/experiments/omibench_repeats.yaml: n = 5 "
                            "samples; judge them with two LLM judge models, e.g. --judge-model gemini-2.5-flash and gpt-5-mini)")
    long = stability(pd.concat(frames, ignore_index=True))
    stats = long.melt(id_vars=["model", "metric", "evaluator", "subject"], value_vars=["mean", "std"],
                      var_name="stat", value_name="acc")
    table = stats.pivot_table(index=["model", "metric", "evaluator"], columns=["subject", "stat"], values="acc",
                              aggfunc="first")
    order = [s for s in [*SUBJECTS, "Total"] if s in table.columns.get_level_values(0)]
    table = table[[(s, st) for s in order for st in ("mean", "std") if (s, st) in table.columns]]
    table.columns = [f"{s} {st.capitalize()}" for s, st in table.columns]
    total = long[long["subject"] == "Total"].rename(columns={"mean_scored": "Total Mean scored",
                                                            "std_scored": "Total Std scored"})
    table = table.reset_index().merge(total[["model", "metric", "evaluator", "Total Mean scored", "Total Std scored",
                                             "repeats", "no_response", "judge_error"]],
                                      on=["model", "metric", "evaluator"])
    evaluators = sorted(set(long.loc[long["metric"] == "GPTScore", "evaluator"]))
    notes = [ACC_NOTE,
             f"Runs: sample_idx 0..{RUNS - 1} of the {SETTING} runs (T = 0.6); std is the sample standard deviation "
             "over runs of the per-run accuracy (analysis.stats.repeat_mean_std); `Total Mean scored` and "
             "`Total Std scored` are the same over each run's scored verdicts.",
             "Evaluator = the judge model recorded in each verdict line (one verdict file holds every judge model "
             "that judged the run); ACC is the rule judge, which has no evaluator model, so it appears once "
             "(the paper lists ACC under each evaluator).",
             f"GPTScore evaluators found: {', '.join(evaluators) or 'none'}"
             + ("" if len(evaluators) >= 2 else " — the paper compares two (Gemini-2.5-flash and GPT-5-mini); "
                "judge the runs with a second judge model to fill the table (the demo has one LLM judge, and "
                "judges only cot_boxed with it).")]
    return Table(table_id, "OMIBench Table 5 — stability of GPTScore and accuracy (%) across three independent runs "
                 "(mean and standard deviation), per evaluator.", table,
                 vs_paper=beside_paper(stats, table_id, ["metric", "evaluator", "subject", "stat"]),
                 notes=notes, sources=sources)
