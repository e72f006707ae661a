"""The numbers a finding is checked on: every value of a table as a cell, named by its column and the labels of its
row, with its 95 % interval — ours from results/tables/<id>.csv as written, the paper's from
data/reference/<id>.csv (analysis/reference.py).

A cell is found by names: a name matches a cell when it is the cell's column, one of its row's labels, or two of
them joined by a space ("ACC Total": the column "ACC Total" of a wide table, or the metric "ACC" and the subject
"Total" of the paper's long-form file), so one query reads both layouts. A table that writes a setting under a label
of its own ("Default CoT" for cot_boxed) has it in ALIASES, taken from the table module that writes it.

The interval of a value column `acc` is in `acc_ci_lo` / `acc_ci_hi`, of a column named in words ("ACC Total") in
"ACC Total ci_lo" / "ACC Total ci_hi" (the tables' convention: a lower-case identifier joined by `_`, words by a
space). Where a table has no interval columns, an accuracy or a share beside the count it is a proportion of is
given Wilson's interval (scipy); any other value has none, and a check on it says so.
"""
from __future__ import annotations

import logging
import math
import re
import json
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from pathlib import Path

import pandas as pd

from analysis.cells import counts_by_name
from analysis.labels import COUNTS as LABEL_COUNTS
from analysis.mira.common import LEVELS as MIRA_LEVELS
from analysis.omibench.F6a import CONDITIONS as ICL_CONDITIONS, ZERO
from analysis.omibench.baseline import LABELS as BASELINE_LABELS
from analysis.reference import REFERENCE, load_reference, paper_of
from analysis.table import ROOT
from analysis.think360.S5 import INPUTS as S5_INPUTS
from analysis.think360.T4_S2 import SETTINGS as COT_MARKS
from infer import layout

log = logging.getLogger(__name__)

CI_LO, CI_HI = "ci_lo", "ci_hi"
# Numeric columns that key rows rather than hold values (a budget, a sample count, a level).
NUMERIC_KEYS = {"k", "budget", "shots", "level", "round", "params_total_b", "params_active_b"}
# The columns a row's model is named in: `model`, or a human participant (OMIBench Table 8).
MODEL_COLUMNS = ("model", "participant")
# A proportion (%) and the count it is a share of, for Wilson's interval where the table writes no interval.
PROPORTION_OF = {"acc": "judged", "acc_hi": "judged", "acc_scored": "scored"}
# Tables whose class columns are shares (%) of their `labelled` answers (analysis/labels.py).
SHARES_OF_LABELLED = {"think360.S2err", "c2rbench.T5", "omibench.F7"}
# The settings a table writes under labels of its own, as the modules that write them name them.
_BASELINE_TABLES = ("omibench.F3c", "omibench.F4a", "omibench.F4b")
ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    **{t: {s: (label,) for s, label in BASELINE_LABELS.items()} for t in _BASELINE_TABLES},
    **{t: {**{setting: (mark,) for mark, setting in COT_MARKS.items()}, f"Δ {COT_MARKS['✓']}": ("Δ",)}
       for t in ("think360.T4", "think360.S2")},
    "think360.S5": {setting: (label,) for label, setting in S5_INPUTS.items()},
    "omibench.F6a": {ZERO: (ICL_CONDITIONS[ZERO],),
                     **{f"icl+shots{k}+demos-{d}": (label, str(k)) for k in range(1, 9)
                        for d, label in ICL_CONDITIONS.items() if d != ZERO}},
    "omibench.F5a": {f"cot_boxed+max{b}": (str(b),) for b in (2 ** i for i in range(5, 16))},
    "omibench.F5c": {f"k={k}": (str(k),) for k in range(1, 65)},
    "mira.Tspec": {"cot_general": ("T_gen",), "cot_specific": ("T_spec",), "Δ cot_specific": ("Δ",)},
    **{f"mira.T{i}": {s: (level,) for s, level in MIRA_LEVELS.items()} for i in (1, 4, 5, 6, 7, 8, 9, 10)},
}


@dataclass(frozen=True)
class Cell:
    """One value of a table: where it is (column and the labels of its row), its 95 % interval and how that
    interval was had ("" when it has none)."""

    table: str
    column: str
    labels: tuple[tuple[str, str], ...]
    value: float
    lo: float = math.nan
    hi: float = math.nan
    interval: str = ""

    @property
    def names(self) -> frozenset[str]:
        return frozenset([self.column, *(v for _, v in self.labels)])

    @property
    def model(self) -> str:
        """The model (or participant) the value is of, as its row names it ("" when the row names none)."""
        row = dict(self.labels)
        return next((row[c] for c in MODEL_COLUMNS if c in row), "")

    @property
    def has_interval(self) -> bool:
        return not (math.isnan(self.lo) or math.isnan(self.hi))

    def where(self) -> str:
        """The cell as a reader finds it in the table: its row's labels, then its column."""
        return ", ".join([*(v for _, v in self.labels), self.column])


@dataclass
class View:
    """A table's cells (ours or the paper's), looked up by names."""

    table: str
    cells: list[Cell]
    models: list[str] = field(default_factory=list)  # the models it holds, in its order
    notes: list[str] = field(default_factory=list)    # what its .md says about invented data, if anything
    data_only: bool = False  # counts a data file, read no model's answers: its numbers are exact
    demo: bool = False       # made from the demo sets (data/demo/build/), not a benchmark's release
    long: bool = False       # the paper's long form: one `value` per row, what it is in the row's labels
    _index: dict[str, set[int]] | None = field(default=None, repr=False)
    _known: dict[str, bool] = field(default_factory=dict, repr=False)

    def find(self, *names: str) -> list[Cell]:
        """The cells all of `names` match (module doc); a setting the table writes under its own label is looked
        up by that label."""
        found: set[int] = set()
        for combo in product(*(self.aliased(n) for n in names if n)):
            found |= self.matching([n for alt in combo for n in alt])
        return [self.cells[i] for i in sorted(found)]

    def matching(self, names: list[str]) -> set[int]:
        """The cells every one of `names` is the column or a label of, or two of these joined by a space ("ACC
        Total": metric ACC, subject Total), or is one of when joined with another of `names` ("Overall" and "V":
        the column "Overall V")."""
        index = self.index()
        hits = None
        for n in names:
            mine = set(index.get(n, ()))
            for m in names:
                if m != n:
                    mine |= index.get(f"{n} {m}", set()) | index.get(f"{m} {n}", set())
            hits = mine if hits is None else hits & mine
        return hits if hits is not None else set(range(len(self.cells)))

    def index(self) -> dict[str, set[int]]:
        """Each name (column, label, two of them joined) → the cells it names; made once."""
        if self._index is None:
            self._index = {}
            for i, c in enumerate(self.cells):
                names = c.names
                for n in names | {f"{a} {b}" for a in names for b in names if a != b}:
                    self._index.setdefault(n, set()).add(i)
        return self._index

    def aliased(self, name: str) -> list[tuple[str, ...]]:
        """The ways `name` may be written in this table: itself, or the labels its table writes it as."""
        aliases = ALIASES.get(self.table, {})
        alias = aliases.get(name)
        prefix, _, rest = name.partition(" ")
        if alias is None and prefix in ("Δ", "p") and len(aliases.get(rest, ())) == 1:
            alias = (f"{prefix} {aliases[rest][0]}",)  # a setting's paired difference and p: "Δ Least-to-Most"
        return [(name,), alias] if alias else [(name,)]

    def model_of(self, cell: Cell) -> str:
        """The model a cell is of: its row's, else its column where the table has a column per model."""
        return cell.model or (cell.column if cell.column in self.models else "")

    def knows(self, name: str) -> bool:
        """Whether `name` names anything in this table: a column, a label, two joined, or a part of a column's
        name that another name completes ("Overall" of MIRA's "Overall V")."""
        if name not in self._known:
            index = self.index()
            self._known[name] = any(self.matching(list(way)) for way in self.aliased(name)) or any(
                k.startswith(name + " ") or k.endswith(" " + name) for k in index)
        return self._known[name]


def ci_columns(name: str) -> tuple[str, str]:
    """The interval columns of a value column (module doc)."""
    sep = "_" if re.fullmatch(r"[a-z0-9_%]+", name) else " "
    return f"{name}{sep}{CI_LO}", f"{name}{sep}{CI_HI}"


def is_interval_column(name: str) -> bool:
    return name.endswith((f"_{CI_LO}", f"_{CI_HI}", f" {CI_LO}", f" {CI_HI}"))


def label_text(value: object) -> str:
    """A row label as text: whole numbers without their decimal point (a level 3 read back as 3.0 is "3")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def label_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if not is_interval_column(c)
            and (c in NUMERIC_KEYS or not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]))]


def wilson(share: float, count: float) -> tuple[float, float]:
    """Wilson's 95 % interval (%) of a share (%) of `count` items; NaN when there is nothing to count."""
    if not count or math.isnan(count) or math.isnan(share):
        return math.nan, math.nan
    from scipy.stats import binomtest  # imported when a test is made: scipy.stats takes a second to import

    k = round(share * count / 100)
    if not 0 <= k <= count:
        return math.nan, math.nan
    ci = binomtest(int(k), int(count)).proportion_ci(confidence_level=0.95, method="wilson")
    return 100 * ci.low, 100 * ci.high


def interval_of(table: str, row: pd.Series, column: str) -> tuple[float, float, str]:
    """A value's interval: the table's interval columns, else Wilson's from the count it is a share of, else none."""
    for sep in ("_", " "):  # the tables join a lower-case name with `_`, words with a space: either is read
        lo_col, hi_col = f"{column}{sep}{CI_LO}", f"{column}{sep}{CI_HI}"
        if lo_col in row.index and hi_col in row.index and pd.notna(row[lo_col]) and pd.notna(row[hi_col]):
            return float(row[lo_col]), float(row[hi_col]), "the table's 95 % interval"
    count = PROPORTION_OF.get(column) or ("labelled" if table in SHARES_OF_LABELLED and not counts_by_name(column)
                                          and column not in LABEL_COUNTS else None)
    if count and count in row.index and pd.notna(row[count]) and row[count] > 0 and 0 <= row[column] <= 100:
        lo, hi = wilson(float(row[column]), float(row[count]))
        return lo, hi, f"Wilson's 95 % interval over {count} = {int(row[count])}"
    return math.nan, math.nan, ""


def cells_of(table: str, df: pd.DataFrame) -> list[Cell]:
    """Every non-empty value of a table (wide or long-form), with its labels and interval."""
    keys = label_columns(df)
    values = [c for c in df.columns if c not in keys and not is_interval_column(c)
              and pd.api.types.is_numeric_dtype(df[c])]
    out = []
    for _, row in df.iterrows():
        labels = tuple((k, label_text(row[k])) for k in keys if pd.notna(row[k]))
        for column in values:
            if pd.isna(row[column]):
                continue
            lo, hi, how = interval_of(table, row, column)
            out.append(Cell(table, str(column), labels, float(row[column]), lo, hi, how))
    return out


@lru_cache(maxsize=1)
def known_models() -> frozenset[str]:
    """Every model config's name, and the participants the papers compare models with (humans: non_models.csv)."""
    configs = {p.stem for p in (ROOT / "configs" / "models").rglob("*.yaml")}
    people = pd.read_csv(REFERENCE / "non_models.csv", dtype=str)
    return frozenset(configs | set(people.loc[people["kind"] == "human", "paper_name"]))


def models_of(df: pd.DataFrame) -> list[str]:
    """The models a table holds: its model column's values, else its columns named by a model (a column per model:
    C²RBench Table 3, MorphoBench Table 5)."""
    column = next((c for c in MODEL_COLUMNS if c in df.columns), None)
    if column:
        return list(dict.fromkeys(df[column].dropna().astype(str)))
    return [str(c) for c in df.columns if str(c) in known_models()]


def example_notes(md: Path) -> list[str]:
    """The lines of a table's .md that say its numbers are invented example data (analysis/external.py)."""
    if not md.exists():
        return []
    return [line.lstrip("- ").strip() for line in md.read_text(encoding="utf-8").splitlines()
            if line.lstrip("- ").startswith("EXAMPLE DATA")]


def provenance_of(results: Path, table: str) -> dict:
    """The table's .provenance.json ({} when it has none or it cannot be read)."""
    path = layout.table_file(results, table, "provenance.json")
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, json.JSONDecodeError):
        return {}


def ours(results: Path, table: str) -> View | None:
    """Our table as written under `results`, or None when it was not built."""
    csv = layout.table_file(results, table, "csv")
    if not csv.exists():
        return None
    try:
        df = pd.read_csv(csv)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as e:
        log.warning("%s: not read (%s)", csv, e)
        return None
    prov = provenance_of(results, table)
    data, files = prov.get("data") or {}, prov.get("judged_files") or []
    demo = bool(data.get("demo")) if data else bool(files) and all(
        str(f.get("data", "")).startswith("data/demo/") for f in files)
    return View(table, cells_of(table, df), models_of(df), example_notes(layout.table_file(results, table, "md")),
                data_only=bool(data) and not files, demo=demo)


@lru_cache(maxsize=None)
def paper(table: str) -> View | None:
    """The paper's numbers of a table (data/reference/<id>.csv, model names mapped to ours), exact: no interval."""
    ref = load_reference(table)
    if ref is None or "value" not in ref.columns:
        return None
    ref = ref.assign(value=pd.to_numeric(ref["value"], errors="coerce"))
    keys = [c for c in ref.columns if c not in ("value", "paper_model", "printed")]
    cells = []
    for _, row in ref.iterrows():
        if pd.isna(row["value"]):
            continue
        labels = tuple((k, label_text(row[k])) for k in keys if pd.notna(row[k]) and str(row[k]) != "")
        cells.append(Cell(table, "value", labels, float(row["value"])))
    return View(table, cells, list(dict.fromkeys(ref["model"].astype(str))), long=True)


def bench_of(table: str) -> str:
    return paper_of(table)
