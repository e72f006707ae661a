"""The judges each paper uses, as small objects registered in one place.

A judge turns one model response into a verdict. Its `steps(item)` either returns the verdict at once
(the rule judge) or is a generator: it yields the judge requests (`Ask`) it needs, receives their
`Reply`s, possibly over several stages (Think360: extract, then judge), and returns the verdict
(judge/types.py). The runner (judge/run.py) sends each stage's requests of every item together through
the one way to ask a model (infer/ask.py), and knows no judge or benchmark by name. The judge *model* is
any model config (the papers used GPT-4o, GPT-4o-mini and o3-mini; the demo uses the embedded model).
Each judge gets the grammars of its replies here (judge/grammars.py), for judge models that are constrained.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from infer.ask import Ask
from data.benchmarks import get as benchmark
from judge import grammars, parse, ratings, rules, taxonomy, tot
from judge.careful_cascade import CarefulCascade
from judge.mira_acc import MiraPublished
from judge.reviewer import NO_TRACE, HintReview, ReasoningReview
from judge.rules import OMIBENCH_C1, RULE_JUDGES, RULES
from judge.types import Calls, Item, Steps, failed


@dataclass(frozen=True)
class SingleCallJudge:
    """One call to a judge model, its reply read by `parse`. `final_answer`: the judge compares the final
    answer read from the response ({{extracted}}) with the gold, as C²RBench (Fig. 6) and MorphoBench
    (Eq. 16) describe; a response stating none is wrong without asking. `shows_final`: the judge reads the whole
    response, as its protocol asks, and is shown the final answer read from it beside it."""

    name: str
    parse: Callable[[str], dict[str, Any] | None]
    sees_images: bool = False
    final_answer: bool = False
    shows_final: bool = False
    prompts: tuple[str, ...] = field(default=())
    grammar: str | None = None

    def __post_init__(self) -> None:
        if not self.prompts:
            object.__setattr__(self, "prompts", (self.name,))

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        return Calls(whole=1, with_images=int(self.sees_images))

    def steps(self, item: Item) -> Steps:
        shown = rules.final_answer(item.rec, item.response) if self.final_answer or self.shows_final else None
        if self.final_answer and shown is None:
            return {"correct": False, "stage": "no_final_answer"}
        (reply,) = yield [Ask(self.prompts[0], {"response": item.response, "extracted": shown or ""}, self.parse,
                              "image" if self.sees_images else "text", self.grammar)]
        if reply.parsed is None:
            return failed(reply, extracted=shown)
        return {"extracted": shown, "raw_judge_reply": reply.text, **reply.parsed}


@dataclass(frozen=True)
class Think360Cascade:
    """Think360 (§4.1, Metrics), in the paper's order: the LLM extracts the final answer of every
    response → an exact match of the extracted answer → the LLM judge for what the match did not settle.

    The exact match is the rule judge in strict mode (same words, same numbers, equivalent formulas; no
    similarity ratio), so it can only accept an answer the judge would; everything else goes to the judge.
    """

    name: str = "think360_cascade"
    prompts: tuple[str, ...] = ("think360_extract", "think360_judge")

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        """The extraction with the whole response, then the judge with the extracted answer only."""
        return Calls(whole=1, per_step=1)

    def steps(self, item: Item) -> Steps:
        (reply,) = yield [Ask("think360_extract", {"response": item.response}, parse.extracted_answer,
                              grammar=grammars.EXTRACTED_ANSWER)]
        if reply.parsed is None:
            return failed(reply, stage="llm_extract", error=f"extraction: {reply.error or 'unreadable reply'}")
        extracted = reply.parsed["extracted"]
        if extracted is None:  # the model gave no answer: wrong, and nothing to ask the judge
            return {"correct": False, "stage": "llm_extract", "raw_judge_reply": reply.text}
        if rules.score(item.rec, extracted, strict=True)["correct"]:
            return {"correct": True, "extracted": extracted, "stage": "rule_on_extracted"}
        (reply,) = yield [Ask("think360_judge", {"extracted": extracted}, parse.judgement_01,
                              grammar=grammars.JUDGEMENT_01)]
        if reply.parsed is None:
            return failed(reply, stage="llm_judge", extracted=extracted,
                          error=f"consistency: {reply.error or 'unreadable reply'}")
        return {"correct": reply.parsed["correct"], "extracted": extracted, "raw_judge_reply": reply.text,
                "stage": "llm_judge"}


@dataclass(frozen=True)
class ToTEval:
    """Think360 ToT-Eval (§4.1, Appendix G): the model's complete reasoning trajectory (never the reference
    solution) as a tree of verbatim steps, every node judged with the question, the reference answer, its
    ancestors and the image, and the tree scored by ToT-Depth and ToT-Width (judge/tot.py). A tree that
    cannot be read or repaired, or a node judgement that cannot be read, is a judge error: no partial score.
    A response whose trajectory the model kept hidden is not scored on its summary (§4.2): it costs no
    call and is counted as `no_trajectory`."""

    name: str = "think360_tot"
    prompts: tuple[str, ...] = ("think360_tot_extract", "think360_tot_judge")
    scores: tuple[str, ...] = ("tot_depth", "tot_width", "tot_width_with_roots")  # the fields of its verdicts' score

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        """The tree from the whole trajectory, then one judgement per node with its ancestors and the image; a
        chain of `steps` nodes is the most text (node t carries t steps)."""
        return Calls(whole=1, per_step=steps, step_texts=steps * (steps + 1) / 2, with_images=steps)

    def steps(self, item: Item) -> Steps:
        if item.trajectory_hidden:
            return {"stage": "no_trajectory", "score": None}
        if not item.trajectory:
            return dict(NO_TRACE)
        (reply,) = yield [Ask("think360_tot_extract", {"response": item.trajectory}, parse.reasoning_tree,
                              grammar=grammars.REASONING_TREE)]
        if reply.parsed is None:
            why = reply.error if reply.text is None else _tree_error(reply.text)
            return failed(reply, stage="tot_extract", error=f"tree extraction: {why}")
        nodes = reply.parsed["nodes"]
        replies = yield [Ask("think360_tot_judge", {"parents": _chain(tot.ancestors(nodes, n)), "step": n.text},
                             parse.true_false, mode="image", grammar=grammars.TRUE_FALSE) for n in nodes]
        unread = [r for r in replies if r.parsed is None]
        if unread:
            return failed(unread[0], stage="tot_judge",
                          error=f"{len(unread)} of {len(nodes)} node judgements failed: {unread[0].error}")
        tree = [{"id": n.id, "parent": n.parent, "type": n.type, "content": n.text, "correct": r.parsed["correct"]}
                for n, r in zip(nodes, replies)]
        return {"stage": "tot", "score": tot.score_tree(tree), "tree": tree, "raw_judge_reply": reply.text}


def _chain(parents: list[tot.Node]) -> str:
    return "\n".join(f"{p.id} ({p.type}): {p.text}" if p.type else f"{p.id}: {p.text}" for p in parents) \
        or "(none: this is a depth-1 step)"


def _tree_error(text: str) -> str:
    try:
        tot.parse_tree(text)
    except tot.TreeError as e:
        return str(e)
    return "unreadable reply"


CASCADE = "think360_cascade"
JUDGES = {j.name: j for j in (
    *RULE_JUDGES,  # the careful rule judge, and OMIBench's ACC as C.1 publishes it (judge/rules.py)
    SingleCallJudge("omibench_gptscore", parse.gptscore, grammar=grammars.GPTSCORE),
    # beside it, the careful variant: the response declared data, its instructions ignored, the final answer shown
    SingleCallJudge("omibench_gptscore_careful", parse.gptscore, shows_final=True, grammar=grammars.GPTSCORE),
    MiraPublished(),  # the authors' acc.py: its rule, then the paper's judge where the rule does not accept
    MiraPublished("mira_judge_careful", ("mira_judge_careful",), answer_only=True),  # ... shown the tagged answer only
    SingleCallJudge("c2rbench_judge", parse.correct_incorrect, final_answer=True,
                    grammar=grammars.CORRECT_INCORRECT_LOWER),
    SingleCallJudge("morphobench_correctness", parse.morpho_json, final_answer=True,
                    grammar=grammars.MORPHO_CORRECTNESS),
    Think360Cascade(),
    CarefulCascade(),  # the careful rules, and the protocol's judge model for what they leave undecided only
    ToTEval(),
    ReasoningReview(grammars=grammars.REVIEW),  # MorphoBench Completeness and Logical Coherence (B.4)
    HintReview(grammars=grammars.REVIEW, hint_check=grammars.hint_check),  # Hint Alignment, hint-bearing items (B.5)
    taxonomy.LabelJudge("omibench_error", taxonomy.omibench_error,  # F.2: the first fatal error, one of five
                        grammar=grammars.OMIBENCH_ERROR),
    taxonomy.LabelJudge("c2rbench_error", taxonomy.c2rbench_error,  # A.3: error types and subtypes, several
                        grammar=grammars.C2RBENCH_ERROR),
    taxonomy.LabelJudge("think360_error", taxonomy.think360_error,  # App. C: width / depth / perception-calculation
                        grammar=grammars.THINK360_ERROR),
    taxonomy.LabelJudge("omibench_rationale_quality", ratings.rationale_quality,  # B.2: Likert, 5 dims + overall
                        scores=ratings.QUALITY, grammar=grammars.RATIONALE_QUALITY),
    taxonomy.LabelJudge("omibench_rationale_alignment", ratings.rationale_alignment, needs_solution=True,  # B.2
                        scores=("alignment",), grammar=grammars.RATIONALE_ALIGNMENT),
)}


def asks_model(name: str) -> bool:
    """Whether a judge calls a judge model (and so needs --judge-model); a rule judge asks none."""
    return name in JUDGES and bool(JUDGES[name].prompts)


def default_judges(bench: str) -> list[str]:
    """What a benchmark is judged with (its module, data/benchmarks/): the rule judge, the paper's published rule
    where it has one, and the paper's LLM judge. The careful variants of GPTScore and MIRA's judge run where an
    experiment names them."""
    return list(benchmark(bench).default_judges)
