"""C²RBench Table 5 (§4.5, Appendix A.3): the error types of the failed answers per model — several per answer,
so a model's shares add up past 100 % — with their subtypes; DeepSeek-R1 and o1-preview on the Logical subset
(text-only runs), GPT-4o and Qwen2-VL-72B on all of C²RBench."""
from __future__ import annotations

import pandas as pd

from analysis import labels
from analysis.c2rbench import common as c2r
from analysis.reference import beside_paper
from analysis.table import Context, Table
from judge.taxonomy import C2RBENCH

IDS = ["c2rbench.T5"]
JUDGE = "c2rbench_error"
# Table 5's names of A.3's six error types, in its order
TYPES = {"perception_input": "Perception & Input", "knowledge_comprehension": "Knowledge & Comprehension",
         "logic_reasoning": "Logic & Reasoning", "task_execution": "Task Execution",
         "refusal_inability": "Refusal & Inability", "generation_output": "Generation & Output"}
SUBTYPES = {s.slug: s.name for s in C2RBENCH.subtypes}
BY = ["model", "setting"]


def table5_tasks(df: pd.DataFrame) -> pd.Series:
    """Every task of a multimodal run; the Logical subset of a text-only run, as the paper analysed DeepSeek-R1
    and o1-preview."""
    return df["setting"].ne(c2r.TEXT) | df.get("category", pd.Series(None, index=df.index)).eq("Logical")


def build(table_id: str, ctx: Context) -> Table:
    failed = labels.failed_answers(ctx, table_id, c2r.BENCH, [c2r.MAIN, c2r.TEXT], JUDGE, where=table5_tasks)
    table, long = labels.summarize(failed, BY, TYPES, key="type")
    subtypes = labels.shares(failed.answers, BY, SUBTYPES, ("subtypes",), "subtype")
    parent = {s.name: TYPES[s.parent] for s in C2RBENCH.subtypes}
    subtypes.insert(2, "type", subtypes["subtype"].map(parent))
    return Table(
        "C²RBench Table 5 — error type distribution (%, of the failed answers labelled; one answer may have several "
        "types, so a model's shares add up past 100 %), per model, with the counts of every state.",
        table,
        vs_paper=beside_paper(long, table_id, ["setting", "type"], value="share"),
        extra={"Error subtypes (Appendix A.3; Table 5 prints the types only): labelled answers with each, and % of "
               "the labelled": subtypes[subtypes["answers"] > 0].reset_index(drop=True)},
        notes=[*failed.notes,
               f"Runs: {c2r.MAIN} (all subsets) and, for text-only models, {c2r.TEXT} on the Logical subset only, as "
               "the paper analysed DeepSeek-R1 and o1-preview; judge_calls and judge_tokens are over the same tasks.",
               "c2rbench_error asks A.3's error-analysis prompt (quoted; GPT-4o in the paper and the paper profile); "
               "it presumes an error, so no_error comes from human labels only. The paper's labels came from a "
               "multistage annotation process."],
        provenance=failed.provenance,
    )
