"""How a table's values are written, alike in its .csv, its .md, the terminal and the HTML report: a count as a
whole number, any other number with two decimals, an undefined cell as EMPTY_CELL.

A count column often reaches a table as floats: a pivot or a merge that meets a missing value turns a whole
column of ints into float64 (think360.T1's `count` beside its `percent`). A column is read as counts when it
has an integer dtype, or when its name ends with what it counts (COUNT_WORDS) and every value it holds is whole. A
long-form table (a `measure` column naming what each row holds) has count rows instead: there the whole
numbers of a row whose measure is a count are counts.

A range is two columns in the .csv, its lower end `<name>` and its upper end `<name>_hi` (or `<name> hi` in a
table whose columns are words: "ACC careful Total hi"), and one cell in the .md, the terminal and the HTML report,
"42.80–45.10" where the ends differ, else the one number (the careful accuracy with undecided answers,
analysis/stats.py).

A 95 % interval is two columns in the .csv, `<name>_ci_lo` and `<name>_ci_hi` (or "<name> ci_lo" and "<name> ci_hi"
for a column named in words: analysis/uncertainty.py), and in the .md, the terminal and the HTML report it is written
in brackets after its number, with the number's decimals: "42.80 [40.10, 45.50]". A range's cell holds one interval
for both ends, from the lower end's lower bound to the upper end's upper bound: "42.80–45.10 [40.10, 48.20]". An
interval column is never a count, nor a range's end; a number whose interval is missing (undefined, or no item) is
written alone."""
from __future__ import annotations

import numbers
import re
from typing import Any

import pandas as pd

from analysis.uncertainty import intervals, is_interval

EMPTY_CELL = "—"  # NaN: a setting not run, or a quantity undefined for the row (the table's notes say which)
COUNT_WORDS = ("count", "items", "judged", "scored", "no_response", "judge_error", "flagged", "calls", "tokens",
               "requests", "trees", "answers", "files", "unjudged")
COUNT_NAMES = ("n", "k")
# A name that also says it is a rate, a mean or another statistic is not a count (acc_scored, judge_acc_%, mean
# tokens, Total Std scored).
RATE_WORDS = ("acc", "accuracy", "rate", "ratio", "share", "percent", "pct", "%", "mean", "avg", "average", "per",
              "std", "sd", "stdev", "var", "variance", "median", "rho", "diff", "delta", "δ")
MEASURE = "measure"  # the column of a long-form table that names what a row's numbers are


def counts_by_name(name: Any) -> bool:
    """Whether a column or measure name says it holds counts: it ends with what it counts (`judged`, `tot_width_n`,
    `judge_tokens`); a word inside a name is not enough ("Cubes Count D" holds MIRA's accuracy on a task named for
    counting cubes)."""
    if is_interval(name):
        return False
    text = str(name).lower()
    if set(re.split(r"[^a-z0-9%δ]+", text)) & set(RATE_WORDS):
        return False
    return text in COUNT_NAMES or text.endswith("_n") or any(text.endswith(w) for w in COUNT_WORDS)


def _whole(values: pd.Series) -> pd.Series:
    """Per value: a number with no fraction (NaN and non-numbers are not)."""
    numeric = pd.to_numeric(values, errors="coerce")
    return numeric.notna() & numeric.eq(numeric.round()) & ~values.map(lambda v: isinstance(v, bool))


def _count_positions(df: pd.DataFrame) -> list[int]:
    out = []
    estimated = set(intervals(df.columns))  # a number with a 95 % interval is an estimate, never a count
    for k, name in enumerate(df.columns):
        col = df.iloc[:, k]
        if pd.api.types.is_bool_dtype(col) or name in estimated:
            continue
        if pd.api.types.is_integer_dtype(col):
            out.append(k)
        elif counts_by_name(name) and pd.api.types.is_float_dtype(col) and col.notna().any() \
                and bool(_whole(col[col.notna()]).all()):
            out.append(k)
    return out


def count_columns(df: pd.DataFrame) -> list[str]:
    """The columns that hold counts (module doc)."""
    return [df.columns[k] for k in _count_positions(df)]


def count_mask(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell, whether it is a count: a count column's values, and the whole numbers of a long-form table's
    count rows."""
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    for k in _count_positions(df):
        mask.iloc[:, k] = df.iloc[:, k].notna()
    if MEASURE in df.columns:
        rows = df[MEASURE].astype(str).map(counts_by_name)
        for k, numeric in enumerate(numeric_columns(df)):
            if numeric:
                mask.iloc[:, k] = mask.iloc[:, k] | (rows & _whole(df.iloc[:, k]))
    return mask


def with_whole_counts(df: pd.DataFrame) -> pd.DataFrame:
    """The table with its count columns as integers (a missing value stays missing), for its .csv."""
    positions = _count_positions(df)
    if not positions:
        return df
    out = df.copy()
    for k in positions:
        out.isetitem(k, out.iloc[:, k].round().astype("Int64"))
    return out


def cell_text(value: Any, count: bool = False) -> str:
    """One value as the tables write it."""
    if value is None or (not isinstance(value, (list, tuple, dict, set)) and pd.isna(value) is True):
        return EMPTY_CELL
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        return f"{value:.0f}" if count else f"{value:.2f}"
    return str(value)


def numeric_columns(df: pd.DataFrame) -> list[bool]:
    """Per column, whether it holds numbers (right-aligned, sorted as numbers)."""
    return [pd.api.types.is_numeric_dtype(df.iloc[:, k]) and not pd.api.types.is_bool_dtype(df.iloc[:, k])
            for k in range(df.shape[1])]


def as_text(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell as the tables write it (cell_text), counts whole, a range's two columns as one (`ranges`), a number
    with its 95 % interval in brackets after it (module doc)."""
    upper, bounds = ranges(df), intervals(df.columns)
    shown = shown_columns(df)
    mask = count_mask(df)[list(shown.columns)]  # of the whole table: a column with an interval is not a count
    out = pd.DataFrame(index=shown.index, columns=shown.columns, dtype=object)
    for k in range(shown.shape[1]):
        out.iloc[:, k] = [cell_text(v, bool(c)) for v, c in zip(shown.iloc[:, k].astype(object), mask.iloc[:, k])]
    for lower, hi in upper.items():
        k = list(shown.columns).index(lower)
        out.iloc[:, k] = [range_text(lo, h) or text for lo, h, text in zip(df[lower], df[hi], out.iloc[:, k])]
    for name, (lo, hi) in bounds.items():
        if name not in shown.columns:
            continue
        top = bounds.get(upper[name], (lo, hi))[1] if name in upper else hi
        k = list(shown.columns).index(name)
        out.iloc[:, k] = [with_interval(text, a, b) for text, a, b in zip(out.iloc[:, k], df[lo], df[top])]
    return out


HI = ("_hi", " hi")  # the endings of a range's upper-end column


def ranges(df: pd.DataFrame) -> dict[str, str]:
    """Each range's lower-end column → its upper-end column (module doc); interval columns are neither."""
    names = {c for c in df.columns if isinstance(c, str) and not is_interval(c)}
    return {c[:-len(e)]: c for c in names for e in HI if c.endswith(e) and c[:-len(e)] in names}


def shown_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The table as its .md and HTML show it: without the upper ends of its ranges (their lower ends show both) and
    without its interval columns (their numbers show them)."""
    hidden = set(ranges(df).values()) | {c for c in df.columns if is_interval(c)}
    return df.drop(columns=[c for c in df.columns if c in hidden])


def range_text(lo: Any, hi: Any) -> str | None:
    """"lo–hi" when both ends are numbers written differently; None when they make one number (or none)."""
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and not pd.isna(v) for v in (lo, hi)):
        return None
    a, b = cell_text(lo), cell_text(hi)
    return f"{a}–{b}" if a != b else None


def with_interval(text: str, lo: Any, hi: Any) -> str:
    """A number's text with its 95 % interval after it, "42.80 [40.10, 45.50]"; the text alone when the number or an
    end of its interval is missing."""
    if text == EMPTY_CELL or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and not pd.isna(v)
                                     for v in (lo, hi)):
        return text
    return f"{text} [{cell_text(lo)}, {cell_text(hi)}]"
