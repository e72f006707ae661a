"""OMIBench Appendix B.2: the quality of the rationales of Table 2's answers — correctness, faithfulness,
information usage, clarity, detail and overall (1–5) — and their alignment with the reference rationale (1–5),
the mean per model."""
from __future__ import annotations

from analysis.inputs import load
from analysis.omibench.runs import BENCH, SETTING
from analysis.provenance import Provenance
from analysis.stats import score_table
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import with_interval_columns
from judge.ratings import QUALITY

IDS = ["omibench.rationale"]
RATINGS = {"omibench_rationale_quality": list(QUALITY), "omibench_rationale_alignment": ["alignment"]}
# Beside the means: how many answers were judged and failed as requests, and per judge (suffixed _quality,
# _alignment) how many it rated, could not read, and what it spent.
COUNTS = ["judged", "no_response", "truncated"] + [f"{c}_{j}" for j in ("quality", "alignment")
                                      for c in ("scored", "judge_error", "unjudged", "judge_calls", "judge_tokens")]


def build(table_id: str, ctx: Context) -> Table:
    verdicts = {judge: load(ctx.results, BENCH, [SETTING], judge) for judge in RATINGS}
    if all(df.empty for df in verdicts.values()):
        raise MissingInputs(f"no rationale ratings of {BENCH} {SETTING} ({', '.join(RATINGS)}) under "
                            f"{ctx.results}/judged; {how_to_run(table_id)}")
    quality, alignment = (score_table(verdicts[j], ["model"], fields, scale=1) for j, fields in RATINGS.items())
    table = quality.merge(alignment, on="model", how="outer", suffixes=("_quality", "_alignment"))
    for c in ("judged", "no_response", "truncated"):  # both judges read the same answers
        table[c] = table[f"{c}_quality"].fillna(table[f"{c}_alignment"])
    table[COUNTS] = table[COUNTS].fillna(0).astype(int)
    return Table(
        "OMIBench B.2 — rationale quality (1–5: correctness, faithfulness, information usage, clarity, detail, "
        "overall) and alignment with the reference rationale (1–5), the mean per model over the answers rated.",
        table[["model", *with_interval_columns([*QUALITY, "alignment"]), *COUNTS]],
        notes=["Every answered response of Table 2's runs is rated, passed and failed alike; a rating that could not "
               "be read is a judge error, left out of the means and counted (judge_error_quality, "
               "judge_error_alignment); no_response: failed requests, not rated; truncated: responses cut at "
               "max_tokens with no final answer (rated as they are); unjudged_quality, "
               "unjudged_alignment: answers with no current rating of that judge (rerun it). judge_calls and "
               "judge_tokens: what each judge spent. Each mean's 95 % interval: the bootstrap over items of the "
               "ratings (analysis.stats.score_table).",
               "The prompts are B.2's (quoted; GPT-4o in the paper and the paper profile). The paper prints no "
               "ratings, so nothing is set beside ours."],
        provenance=Provenance([r for j in RATINGS for r in ctx.runs(BENCH, [SETTING], j)]),
    )
