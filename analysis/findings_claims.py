"""What the findings checker (analysis/findings.py) speaks of: a finding as data/reference/findings/*.yaml holds
it, a number with its interval, the two sides a finding is checked on (ours, the paper's), and a check's result.

Each finding gets one verdict:
  holds          our numbers say what the paper says, beyond their 95 % intervals
  does not hold  our numbers say the opposite, beyond their intervals
  inconclusive   the intervals straddle the claim's bound (too few items or runs to tell), or a value has no interval
  not run        a table it rests on was not built, or lacks the models, settings or data the claim covers
  not checkable  a finding of kind `other`: no measure, or no table of ours measures it (said why)
with our numbers, the paper's (the same check on data/reference/<id>.csv, exact), the test used and the tables read.
The checks per kind are in analysis/findings_checks.py, the numbers they read in analysis/findings_cells.py.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from analysis.findings_cells import View, known_models, ours, paper
from analysis.reference import REFERENCE
from data.benchmarks import BENCHMARKS

FINDINGS = REFERENCE / "findings"
HOLDS, FAILS, INCONCLUSIVE, NOT_RUN, NOT_CHECKABLE = ("holds", "does not hold", "inconclusive", "not run",
                                                      "not checkable")
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE, NOT_RUN, NOT_CHECKABLE)
# Words of `over` that make a claim one about most of its models rather than every one.
MOST = ("most", "often", "generally", "typically", "tend to", "tends to", "frequently")


@dataclass(frozen=True)
class Finding:
    """One entry of data/reference/findings/<bench>.yaml (README.md there)."""

    id: str
    quote: str
    section: str
    tables: tuple[str, ...]
    kind: str
    claim: dict[str, Any]
    notes: str | None = None

    @property
    def bench(self) -> str:
        return self.id.split(".")[0]

    def metrics(self) -> list[str]:
        metric = self.claim.get("metric")
        return [] if metric is None else [metric] if isinstance(metric, str) else [str(m) for m in metric]

    @property
    def compare(self) -> list[str]:
        return [str(c) for c in self.claim.get("compare") or []]

    @property
    def direction(self) -> str | None:
        return self.claim.get("direction")

    @property
    def size(self) -> dict[str, Any]:
        return dict(self.claim.get("size") or {})

    @property
    def over(self) -> str:
        return str(self.claim.get("over") or "")

    @property
    def most(self) -> bool:
        """Whether the claim is about most of its models ('often', 'generally', …) rather than every one."""
        return any(re.search(rf"\b{w}\b", self.over.lower()) for w in MOST)


def papers() -> tuple[str, ...]:
    """The benchmarks whose paper's findings are on file, data/reference/findings/<bench>.yaml, in the registry's
    order (a benchmark added without one has none to check)."""
    return tuple(b for b in BENCHMARKS if (FINDINGS / f"{b}.yaml").is_file())


def load_findings(benches: Iterable[str] | None = None) -> list[Finding]:
    """Every finding of the papers named (all by default), in the files' order."""
    out = []
    for bench in papers() if benches is None else benches:
        text = (FINDINGS / f"{bench}.yaml").read_text(encoding="utf-8")
        for e in yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            out.append(Finding(e["id"], " ".join(e["quote"].split()), e["section"], tuple(e["tables"]), e["kind"],
                               dict(e["claim"]), e.get("notes")))
    return out


@dataclass(frozen=True)
class Est:
    """A number with its 95 % interval: `lo`/`hi` NaN when it has none, equal to the value when it is exact (the
    paper's numbers, a count of the data, a test's p-value)."""

    value: float
    lo: float
    hi: float
    what: str
    how: str = ""
    key: str = ""  # what tells it from the other values of the same thing (a split, a subject), when there are several

    @property
    def known(self) -> bool:
        return not (math.isnan(self.lo) or math.isnan(self.hi))

    def text(self) -> str:
        if not self.known:
            return f"{self.what} {num(self.value)} (no interval)"
        if self.lo == self.hi == self.value:
            return f"{self.what} {num(self.value)}"
        return f"{self.what} {num(self.value)} [{num(self.lo)}, {num(self.hi)}]"


def num(x: float) -> str:
    """A number as the checks write it: up to four significant digits, whole numbers whole."""
    if math.isnan(x):
        return "—"
    if float(x).is_integer() and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.0f}"


class Missing(Exception):
    """What a check needs and the table does not have: the finding is not run, and this says why."""


class Unclear(Exception):
    """A value the check cannot tell (several cells where one is meant): inconclusive, and this says why."""


@dataclass
class Side:
    """The tables of one side of a check — ours (results/tables/*.csv) or the paper's (data/reference/*.csv)."""

    name: str
    view_of: Callable[[str], View | None]
    exact: bool = False
    _seen: dict[str, View | None] = field(default_factory=dict)

    def view(self, table: str) -> View | None:
        if table not in self._seen:
            self._seen[table] = self.view_of(table)
        return self._seen[table]


def our_side(results: Path) -> Side:
    return Side("ours", lambda t: ours(results, t))


def paper_side() -> Side:
    return Side("paper", paper, exact=True)


@dataclass
class Check:
    """A finding's verdict with what it rests on: our numbers, the paper's, the test used, why (when not held or
    not failed), and the tables read."""

    finding: Finding
    verdict: str
    ours: str = ""
    paper: str = ""
    test: str = ""
    why: str = ""
    tables: list[str] = field(default_factory=list)
    paper_verdict: str = ""  # the same test on the paper's numbers
    effect: str = ""         # an improvement: our difference beside the paper's
    error: bool = False      # the checker itself failed on this finding (logged)


def tri(results: list[bool | None], most: bool = False) -> bool | None:
    """Sub-tests aggregated: every one (or, `most`, more than half) held → True; one failed (or, `most`, half of
    them failed or could not hold) → False; else None (inconclusive)."""
    if not results:
        return None
    yes, no = results.count(True), results.count(False)
    if most:
        return True if yes > len(results) / 2 else False if len(results) - no <= len(results) / 2 else None
    return False if no else True if yes == len(results) else None


def verdict_of(result: bool | None) -> str:
    return HOLDS if result is True else FAILS if result is False else INCONCLUSIVE


@lru_cache(maxsize=None)
def models_named(text: str) -> tuple[str, ...]:
    """The model config names a claim's words mention, longest first matched (so `o3` is not read in `o3-mini`)."""
    found: list[str] = []
    for name in sorted(known_models(), key=len, reverse=True):
        if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-]|\.\d)", text) and not any(name in f for f in found):
            found.append(name)
    return tuple(sorted(found, key=text.find))
