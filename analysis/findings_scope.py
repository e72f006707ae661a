"""One finding read on one side (ours or the paper's): the numbers it names, looked up in the tables it rests on,
each as an Est with its 95 % interval, and the models it covers. What a check needs and the tables lack raises
Missing (the finding is not run), a value the tables hold more than once raises Unclear (inconclusive)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from analysis.cells import counts_by_name
from analysis.findings_cells import Cell, View, known_models, paper
from analysis.findings_claims import Est, Finding, Missing, Side, Unclear, models_named

# Rows that sum up the others: where a claim names none, the summary is meant (html.SUMMARY_ROWS).
SUMMARY = {"Total", "Overall", "All", "ALL", "all"}
# The careful rules are ours; a claim is about the paper's rule, so its rows are read where both are there.
OURS_ONLY = ("careful", "cascade")
# What our tables call the one value of a long-form table (the paper's files call it `value`).
VALUE_NAMES = {"acc", "rho", "score", "value"}
# Columns that count (tasks of a sample, items), beside those analysis.cells reads as counts: exact.
COUNT_VALUES = {"tasks", "count"}
# A value that is a test's outcome, not an estimate: it has no interval and is compared as it is.
TEST_COLUMNS = ("p", "mcnemar_p", "permutation_p")


@dataclass
class Scope:
    finding: Finding
    side: Side

    @property
    def exact(self) -> bool:
        return self.side.exact

    def views(self) -> list[View]:
        return [v for t in self.finding.tables if (v := self.side.view(t)) is not None]

    def absent(self) -> list[str]:
        return [t for t in self.finding.tables if self.side.view(t) is None]

    def est(self, item: str | None = None, model: str | None = None, metric: str | None = None) -> Est:
        """The one value of `item` (a column, label or setting) of `model` in `metric` (ests), Unclear if several."""
        found = self.ests(item, model, metric)
        if len(found) > 1:
            raise Unclear(f"{len(found)} values of {what_of(model, item, metric)} "
                          f"({'; '.join(e.what for e in found[:4])})")
        return found[0]

    def ests(self, item: str | None = None, model: str | None = None, metric: str | None = None) -> list[Est]:
        """The values of `item` (a column, label or setting) of `model` in `metric`, from the first of the
        finding's tables that has them: one, unless the table holds it per something the claim does not name
        (per split, per evaluator), each then keyed by it. A metric said in words ("accuracy") that the table does
        not name is its only measure and is not looked up. None there: Missing."""
        for view in self.views():
            names = [n for n in (item,) if n]
            if metric and view.knows(metric):
                names.append(metric)
            elif metric and not ((item or model) and (descriptive(metric) or view.long and metric in VALUE_NAMES)):
                continue
            if not names and not model:
                continue
            cells = view.find(*names) if names else [c for c in view.cells if is_value(c)]
            if model:  # a model's value; where no cell is a model's, the table's value, whichever model is asked
                owned = any(view.model_of(c) for c in cells)
                cells = [c for c in cells if view.model_of(c) == model] if owned or not names else cells
            cells = of_section(narrowed(cells), self.finding.section)
            if len(cells) > 1:
                cells = as_paper(view, cells, model)
            if cells:
                keys = distinct(cells)
                return [self.as_est(view, c, what_of(model, item, metric) + (f" ({keys[i]})" if len(cells) > 1 else ""),
                                    keys[i] if len(cells) > 1 else "") for i, c in enumerate(cells)]
        raise Missing(self.lacking(what_of(model, item, metric)))

    def as_est(self, view: View, cell: Cell, what: str, key: str = "") -> Est:
        """A cell as a number with its interval: the paper's, a count of the data and a p-value are exact."""
        v = cell.value
        if self.exact:
            return Est(v, v, v, what, "the paper's number", key)
        if cell.has_interval:
            return Est(v, cell.lo, cell.hi, what, cell.interval, key)
        if view.data_only:
            return Est(v, v, v, what, "counted in the data: exact", key)
        if cell.column in TEST_COLUMNS or cell.column.startswith("p "):
            return Est(v, v, v, what, "a test's p-value", key)
        if counts_by_name(cell.column) or cell.column in COUNT_VALUES:
            return Est(v, v, v, what, "a count: exact", key)
        return Est(v, math.nan, math.nan, what, "", key)

    def lacking(self, what: str) -> str:
        """Why a value is not there: a table not built, or the tables built lack it."""
        absent, built = self.absent(), [v.table for v in self.views()]
        gone = "not built" if self.side.name == "ours" else "not in data/reference"
        if not built:
            return f"{', '.join(absent)} {gone}"
        return f"{', '.join(built)} has no {what}" + (f"; {', '.join(absent)} {gone}" if absent else "")

    def covered_or_none(self) -> list[str]:
        try:
            return self.covered()
        except Missing:
            return []

    def table_models(self) -> list[str]:
        return list(dict.fromkeys(m for v in self.views() for m in v.models))

    def covered(self) -> list[str]:
        """The models the claim is about, present on this side: those `over` names (a group of `groups`, a row it
        quotes: 'all models', or, 'the named models', the models of `values`), else the paper's models of its tables
        (data/reference), else every model of ours. None present: Missing."""
        f = self.finding
        groups = f.claim.get("groups") or {}
        named = [str(m) for g, members in groups.items() if g in f.over for m in members]
        named = named or list(models_named(f.over)) or [m for m in self.table_models() if f"'{m}'" in f.over]
        if not named and "named" in f.over:
            named = [str(k) for k in f.claim.get("values") or {} if str(k) in known_models()]
        if named:
            wanted, whose = named, "named"
        else:
            refs = [m for t in self.finding.tables if (v := paper(t)) is not None for m in v.models
                    if m in known_models()]
            wanted, whose = (list(dict.fromkeys(refs)), "the paper's") if refs else (self.table_models(), "our")
        have = set(self.table_models())
        present = [m for m in wanted if m in have]
        if not present:
            ours = ", ".join(sorted(have)) or "none"
            raise Missing(f"none of {whose} models ({short(wanted)}) is in {', '.join(v.table for v in self.views()) or self.lacking('')}"
                          f" (ours: {ours})")
        if whose == "named" and len(present) < len(wanted):
            raise Missing(f"{', '.join(m for m in wanted if m not in have)} not in "
                          f"{', '.join(v.table for v in self.views())}")
        return present

    def is_model(self, name: str) -> bool:
        """Whether `name` is a model a table's rows (or columns) are of, or one of ours no table here names
        otherwise (an evaluator model is a label of OMIBench Table 7's rows, not a row's model)."""
        return name in self.table_models() or name in known_models() and not any(v.knows(name) for v in self.views())

    def models_compared(self) -> bool:
        """Whether the claim compares models with one another (its `compare` names models or groups) rather than
        settings, columns or levels of each model."""
        groups = self.finding.claim.get("groups") or {}
        return bool(self.finding.compare) and all(self.is_model(c) or c.removeprefix("best ") in groups
                                                  for c in self.finding.compare)


def as_paper(view: View, cells: list[Cell], model: str | None = None) -> list[Cell]:
    """Of several cells, those whose labels the paper's table has too, for the same model where it has the model
    (C²RBench Tables 4 and 5 run two settings, the paper one per model), else the one value they all hold, else all
    of them."""
    ref = paper(view.table)
    if ref is not None:
        mine = [c for c in ref.cells if c.model == model] or ref.cells
        keys = {(k, v) for c in mine for k, v in c.labels if k != "model"}
        ref_keys = {k for k, _ in keys}
        kept = [c for c in cells if all((k, v) in keys for k, v in c.labels if k in ref_keys)]
        if 0 < len(kept) < len(cells):
            cells = kept
    return cells[:1] if len({c.value for c in cells}) == 1 else cells


def what_of(model: str | None, item: str | None, metric: str | None) -> str:
    return " ".join(x for x in (model, item, metric) if x)


def short(names: list[str], n: int = 4) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def narrowed(cells: list[Cell]) -> list[Cell]:
    """Of several cells, the one a claim means: the paper's rule rather than our careful one, a value rather than
    the count beside it (the paper's `n_tasks`), the summary row (Total, Overall) rather than its parts."""
    rules = (lambda c: not any(w in n for n in c.names for w in OURS_ONLY),
             lambda c: not any(n.startswith("n_") for n in c.names),
             lambda c: c.column in VALUE_NAMES,  # a row's accuracy, not the other columns beside it
             lambda c: bool(c.names & SUMMARY))
    for keep in rules:
        if len(cells) > 1:
            cells = [c for c in cells if keep(c)] or cells
    return cells


def is_value(cell: Cell) -> bool:
    """Whether a cell of a model's row is one of its values, not a difference or a count beside them."""
    return not any(n.startswith("Δ") for n in cell.names) and not counts_by_name(cell.column)


def of_section(cells: list[Cell], section: str) -> list[Cell]:
    """Of values the paper states twice (OMIBench Fig. 7's shares in §5 and in App. F.2), those of the finding's
    section."""
    if len(cells) < 2:
        return cells
    kept = [c for c in cells if any(v.replace("App.", "Appendix") in section for _, v in c.labels if len(v) > 1
                                     and v[0] in "§A")]
    return kept or cells


def descriptive(metric: str) -> bool:
    """A metric said in words rather than named as a column ("accuracy", "share of the labelled errors (%)"), or
    written as the arithmetic of the items compared ("1 − OMIBench GPTScore / OlympiadBench")."""
    return metric == "accuracy" or (" " in metric and metric == metric.lower()) or " − " in metric or " / " in metric


def distinct(cells: list[Cell]) -> list[str]:
    """Per cell, what tells it from the others: the labels (and column) in which they differ."""
    rows = [dict(c.labels) | {"": c.column} for c in cells]
    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if len({r.get(k) for r in rows}) > 1]
    return [", ".join(str(r.get(k, "")) for k in keys) for r in rows]
