"""Judges that label a response instead of grading it: the papers' error taxonomies, and OMIBench's
rationale ratings (read by judge/ratings.py).

- `omibench_error` (OMIBench F.2): the primary cause of the first fatal error, one of five classes;
- `c2rbench_error` (C²RBench A.3): every error type of a response, with its subtypes (several per response);
- `think360_error` (Think360° Appendix C): width-centric, depth-centric or perception/calculation, and for a
  width-centric error which of the two the paper names, if either;
- `omibench_rationale_quality`, `omibench_rationale_alignment` (OMIBench B.2): 1–5 Likert ratings as JSON
  (judge/ratings.py).

Every answered response is labelled. The papers label failed answers, but which answers failed is the
verdict of each paper's correctness judge (GPTScore, C²RBench's GPT-4o judge, the Think360 cascade), which
an item does not carry; its verdict file names the same raw outcome (`outcome`), so the tables keep the
labels of the answers it failed, and a new correctness judge needs no new labels. The OMIBench and Think360
prompts may answer "none" (no error: F.2.1 drops the answers GPTScore misjudged); C²RBench's prompt presumes
errors and has no such answer.

A verdict carries `labels` (class slugs; [] = no error found), `subtypes` where the taxonomy has them, or
`score` (a dict of ratings), and `correct` stays None. A reply is read strictly against the paper's class
list: an unknown label, no label or two different answers is unreadable — a judge error, never a default
class. Human labels (data/external/<bench>/error_labels.csv, judge/human_labels.py) take precedence where present.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from infer.ask import Ask
from judge import rules
from judge.types import Calls, Item, Steps, failed


# --------------------------------------------------------------------------------------------------
# Taxonomies
# --------------------------------------------------------------------------------------------------
def _key(text: str) -> str:
    """Letters and digits only: case, spacing, hyphens and '&' / 'and' do not tell labels apart."""
    return re.sub(r"[^0-9a-z]", "", text.lower().replace("&", "and"))


# A class word the judge may write in the singular or plural, or leave out ("Visual Perception").
_SUFFIX = re.compile(r"(errors?|failures?|fallac(?:y|ies)|bias(?:es)?|mistakes?)$")
_NONE = {"none", "noerror", "noerrors"}


def _stem(key: str) -> str:
    return _SUFFIX.sub("", key) or key


@dataclass(frozen=True)
class Label:
    slug: str
    name: str                          # as the paper writes it
    aliases: tuple[str, ...] = ()
    parent: str | None = None          # a subtype's class


def _find(labels: tuple[Label, ...], text: str) -> str | None:
    k = _key(text)
    hits = {lab.slug for lab in labels for spelling in (lab.name, lab.slug, *lab.aliases)
            if k and (k == _key(spelling) or _stem(k) == _stem(_key(spelling)))}
    return hits.pop() if len(hits) == 1 else None


def _clean(text: str) -> str:
    """A label as written, without markdown, brackets or quotes around it."""
    return text.strip().strip("*_`'\"“”{}[]<> \t").rstrip(".。").strip("*_` ")


@dataclass(frozen=True)
class Taxonomy:
    bench: str
    classes: tuple[Label, ...]
    subtypes: tuple[Label, ...] = ()
    multi: bool = False  # several classes per response (C²RBench Table 5 sums past 100 %)

    def label(self, text: str) -> str | None:
        """A class slug; "" for none (no error); None when the text names no class, or names one by its
        number (the prompts number the classes 1…n) and another by its name."""
        text = _clean(text)
        if _key(text) in _NONE:
            return ""
        m = re.fullmatch(r"\(?(\d+)\s*[.):]?\s*(.*)", text, re.S)
        if not m:
            return _find(self.classes, text)
        n = int(m.group(1))
        if not 1 <= n <= len(self.classes):
            return None
        slug = self.classes[n - 1].slug
        return slug if not m.group(2).strip() or _find(self.classes, m.group(2)) == slug else None

    def subtype(self, text: str) -> str | None:
        """A subtype slug (its definition after a colon ignored), "" for none, else None."""
        text = _clean(text.split(":")[0])
        return "" if _key(text) in _NONE else _find(self.subtypes, text)

    def parent(self, subtype: str) -> str | None:
        return next(s.parent for s in self.subtypes if s.slug == subtype)

    def names(self) -> dict[str, str]:
        return {lab.slug: lab.name for lab in self.classes + self.subtypes}


OMIBENCH = Taxonomy("omibench", (  # Appendix F.2, Annotator Guidelines
    Label("visual_perception", "Visual Perception Failures"),
    Label("cross_image", "Cross-Image Association Failures"),
    Label("logical_reasoning", "Logical Reasoning Fallacies"),
    Label("instruction", "Instruction Comprehension Biases"),
    Label("other", "Other"),
))


def _sub(parent: str, *names: str) -> tuple[Label, ...]:
    """Subtypes of `parent`; a slug is the name in snake case (Planning & Omission Error: planning_omission_error)."""
    return tuple(Label(re.sub(r"\W+", "_", n.lower()).strip("_"), n, parent=parent) for n in names)


C2RBENCH = Taxonomy("c2rbench", (  # Appendix A.3; Table 5 writes the types without "Errors", type 3 as "Logic &"
    Label("perception_input", "Perception & Input Errors"),
    Label("knowledge_comprehension", "Knowledge & Comprehension Errors"),
    Label("logic_reasoning", "Logical & Reasoning Errors", ("Logic & Reasoning",)),
    Label("task_execution", "Task Execution Errors"),
    Label("refusal_inability", "Refusal & Inability Errors"),
    Label("generation_output", "Generation & Output Errors"),
), _sub("perception_input", "Perceptual Error", "Input Parsing Error")
   + _sub("knowledge_comprehension", "Lack of Knowledge", "Factual Error", "Misinterpretation of Question Intent")
   + _sub("logic_reasoning", "Logical Reasoning Error", "Inductive Reasoning Error", "Deductive Reasoning Error",
          "Long-range Dependency Error", "Hypothesis Generation Error", "Causal Reasoning Error",
          "Analytical Reasoning Error")
   + _sub("task_execution", "Arithmetic Error", "Constraint Violation Error", "Planning & Omission Error")
   + _sub("refusal_inability", "Overly Conservative Refusal", "Failure to Answer", "Model Breakdown")
   + _sub("generation_output", "Grammar & Syntax Error", "Disorganized Response", "Hallucination Error",
          "Redundancy & Repetition Error", "Ambiguous Response"), multi=True)

THINK360 = Taxonomy("think360", (  # Appendix C and Fig. S2
    Label("width", "Width-centric errors"),
    Label("depth", "Depth-centric errors"),
    Label("perception_calculation", "Perception/calculation errors",
          ("Perception or calculation", "Perception and calculation", "Basic perception or calculation mistakes")),
), _sub("width", "Incomplete Branch Expansion", "Ineffective Pruning"))

TAXONOMIES = {t.bench: t for t in (OMIBENCH, C2RBENCH, THINK360)}


# --------------------------------------------------------------------------------------------------
# Reading the judges' replies
# --------------------------------------------------------------------------------------------------
def _values(reply: str, field: str) -> list[str]:
    """The value of every line `FIELD: value` of the reply (list markers and markdown around it allowed)."""
    line = re.compile(rf"^[\s>*_#\-•]*{field}[\s*_]*[:：]\s*(.*?)\s*$", re.I | re.M)
    return [m.group(1) for m in line.finditer(reply)]


def _one(values: list[str], read: Callable[[str], str | None]) -> str | None:
    """The one answer all the values give; None if one is unreadable or two differ."""
    found = {read(v) for v in values}
    return found.pop() if len(found) == 1 and None not in found else None


def _single(tax: Taxonomy, reply: str) -> dict[str, Any] | None:
    """`CATEGORY: …` (else a last line that is a label and nothing else), and `SUBTYPE: …` where the
    taxonomy has subtypes. Every such line must agree."""
    lines = [ln for ln in reply.strip().splitlines() if ln.strip()]
    values = _values(reply, "category") or lines[-1:]
    label = _one(values, tax.label)
    if label is None:
        return None
    out: dict[str, Any] = {"labels": [label] if label else []}
    if tax.subtypes:
        subs = _values(reply, r"sub-?\s*type")
        sub = _one(subs, tax.subtype) if subs else ""
        if sub is None or (sub and tax.parent(sub) != label):
            return None
        out["subtypes"] = [sub] if sub else []
    return out


def omibench_error(reply: str) -> dict[str, Any] | None:
    """F.2: `CATEGORY: <number>. <name>` (one of five) or `CATEGORY: none`."""
    return _single(OMIBENCH, reply)


def think360_error(reply: str) -> dict[str, Any] | None:
    """Appendix C: `CATEGORY: …` (one of three, or none) and `SUBTYPE: …` (a width-centric error, or none)."""
    return _single(THINK360, reply)


def _many(value: str, read: Callable[[str], str | None]) -> list[str] | None:
    """Names separated by ';' as the prompt asks (else by ','), each a known label."""
    items = [read(p) for p in re.split(r"[;；]" if re.search(r"[;；]", value) else r"[,，]", value) if p.strip()]
    if not items or any(not i for i in items):  # unknown, or "none" where a label is due
        return None
    return list(dict.fromkeys(items))


def c2rbench_error(reply: str) -> dict[str, Any] | None:
    """A.3's format: one `Error Type` and one `Error Subtype` line, several names on each separated by ';'.
    Every subtype belongs to a named type and every named type has a subtype, or the reply is unreadable."""
    types, subs = _values(reply, r"error\s*type"), _values(reply, r"error\s*sub-?\s*type")
    if len(types) != 1 or len(subs) != 1:
        return None
    labels, subtypes = _many(types[0], C2RBENCH.label), _many(subs[0], C2RBENCH.subtype)
    if labels is None or subtypes is None or {C2RBENCH.parent(s) for s in subtypes} != set(labels):
        return None
    analysis = re.search(r"analysis[\s*_]*[:：]\s*(.*?)(?=^[\s*_\-•]*error\s*(?:sub-?\s*)?type)", reply,
                         re.I | re.S | re.M)
    return {"labels": labels, "subtypes": subtypes, "analysis": analysis.group(1).strip() if analysis else None}


# --------------------------------------------------------------------------------------------------
# The judges
# --------------------------------------------------------------------------------------------------
def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


@dataclass(frozen=True)
class LabelJudge:
    """One call to the judge model, which sees the question with its images, the reference (gold answer,
    solution, C²RBench's steps), the response and the final answer read from it; its reply, read by
    `parse`, is the verdict. `needs_solution`: nothing to compare without the reference rationale."""

    name: str
    parse: Callable[[str], dict[str, Any] | None]
    needs_solution: bool = False
    prompts: tuple[str, ...] = field(default=())
    scores: tuple[str, ...] = ()  # the fields of its verdicts' score (ratings); none for labels
    grammar: str | None = None    # its reply's form (judge/grammars.py), for judge models that are constrained

    def __post_init__(self) -> None:
        if not self.prompts:
            object.__setattr__(self, "prompts", (self.name,))

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        return Calls(whole=1, with_images=1)

    def steps(self, item: Item) -> Steps:
        rec = item.rec
        solution = _text(rec.get("solution")).strip()
        if self.needs_solution and not solution:
            return {"status": "judge_error", "stage": self.name, "error": "the record has no reference solution"}
        values = {"response": item.response, "solution": solution, "steps": _text(rec.get("steps")).strip(),
                  "model_answer": rules.final_answer(rec, item.response) or "(no final answer stated)"}
        (reply,) = yield [Ask(self.prompts[0], values, self.parse, mode="image", grammar=self.grammar)]
        if reply.parsed is None:
            return failed(reply, stage=self.name)
        return {"stage": self.name, "raw_judge_reply": reply.text, **reply.parsed}
