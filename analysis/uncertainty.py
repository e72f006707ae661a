"""95 % intervals of the tables' numbers, of the differences they report, and each number tested against the paper's.

One rule per kind of number, decided here and nowhere else (the README's *Uncertainty* says the same):

- a proportion over items (an accuracy with one answer per item, a share of labelled answers): the Wilson score
  interval (`wilson`), as `scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` gives it;
- a mean over items of per-item values (graded scores, ToT-Width/Depth, HAlign, ratings, latencies and token counts;
  an accuracy over repeated samples, each item's repeats averaged first; a ratio of two means): a percentile bootstrap
  over items (`bootstrap`), B = 2,000 resamples, seed SEED. Items are the units resampled, so an item's repeats move
  together (clustered by item); the statistic is Σ values / Σ counts of the items drawn, which is the plain mean when
  every item holds one value and the mean of the item means when every item holds as many. Where every item of
  an accuracy over repeats scored the same (all right, or all wrong), a bootstrap collapses to a point; there the
  interval is Wilson's over the items;
- a difference of two numbers on the same items (CoT ✗ / ✓, thinking vs instruct, one input setting against another):
  the bootstrap of the per-item difference (`paired_difference`; where no item differs, which the bootstrap cannot
  tell from a sure zero, MOVER's interval of the two sides' Wilson intervals); its test is the table's paired test,
  exact McNemar on paired answers or the sign-flip permutation test of per-item means (analysis.stats);
- a difference of two independent numbers (different items; ours against the paper's): the interval combined from
  the two intervals by MOVER (`difference`: Newcombe 1998, method 10, for proportions; Zou & Donner 2008 in general).

Against the paper (`against_paper`): the paper's own interval is made from its number and its n
(data/reference/paper_n.csv, the items the paper ran: `paper_n`) by the same rule — Wilson for a proportion, our
bootstrap's half-widths scaled by √(our n / its n) for a mean (the paper's spread per item is not printed, so ours
stands in), Fisher's z with Bonett & Wright's variance for a Spearman ρ; where the paper's n is unknown ours is used
and `paper_n_from` says so. The difference ours − paper gets the MOVER interval of the two, and the verdict at 95 %
is `consistent` when that interval covers 0, else `above` or `below`. A number with no sampling error (a dataset
statistic, a configured limit) is `consistent` only when it equals the paper's as the paper rounds it. A cell whose
interval cannot be made (no n, no interval of ours) is `untested` and left out of the count "k of m cells".

Why the intervals are computed here with numpy rather than one scipy call per cell: binomtest makes one interval per
call (25–370 µs each, after a second's import of scipy.stats), scipy.stats.bootstrap resamples item indices (n × B
draws per group); `analysis.run --all` must build every table of 10⁶ judged lines in 10 s. `wilson` is the closed
form scipy evaluates (tests/test_uncertainty.py checks it against binomtest's), and `bootstrap` draws how many times
each distinct item value is resampled (one multinomial draw per resample), which is the same bootstrap distribution
as resampling the items one by one, at a cost that grows with the distinct values rather than with the items.

Column names (fixed: other code reads them): a value column `acc` has its interval in `acc_ci_lo` and `acc_ci_hi`; a
column named in words ("ACC Total", "ToT-Width") in "ACC Total ci_lo" and "ACC Total ci_hi" (`ci_columns`).
analysis/cells.py writes the three as one cell, "42.80 [40.10, 45.50]".
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from statistics import NormalDist
from typing import Callable, Iterable

import numpy as np
import pandas as pd

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.959963984540054, scipy.special.ndtri(0.975)
RESAMPLES = 2000
SEED = 20240601  # every bootstrap draws from this seed: a table's intervals are the same on every rerun
CI_LO, CI_HI = "ci_lo", "ci_hi"
ENDS = {"_" + CI_LO: CI_LO, " " + CI_LO: CI_LO, "_" + CI_HI: CI_HI, " " + CI_HI: CI_HI}
CONSISTENT, ABOVE, BELOW, UNTESTED = "consistent", "above", "below", "untested"
PROPORTION, MEAN, RHO, EXACT = "proportion", "mean", "rho", "exact"  # the kinds of number (module doc)
KIND, UNITS = "ci_kind", "ci_n"  # optional columns of a frame set beside the paper's: a row's kind, its n of items
PAPER_N = Path(__file__).resolve().parent.parent / "data" / "reference" / "paper_n.csv"
METHOD_NOTE = ("95 % intervals in brackets: Wilson for an accuracy over items (one answer each), a percentile "
               f"bootstrap over items ({RESAMPLES:,} resamples, seed {SEED}; an item's repeats resampled together, "
               "averaged per item first) for means, repeat means and scores (analysis/uncertainty.py).")


def ci_columns(name: str) -> tuple[str, str]:
    """The interval columns of a value column: `acc` → (`acc_ci_lo`, `acc_ci_hi`), "ACC Total" → ("ACC Total ci_lo",
    "ACC Total ci_hi"): joined by `_` when the name is a lower-case identifier, by a space otherwise."""
    sep = "_" if re.fullmatch(r"[a-z0-9_%]+", str(name)) else " "
    return f"{name}{sep}{CI_LO}", f"{name}{sep}{CI_HI}"


def ci_end(name: object) -> tuple[str, str] | None:
    """(value column, "ci_lo" or "ci_hi") when `name` is an interval column, else None."""
    if not isinstance(name, str):
        return None
    for end, which in ENDS.items():
        if name.endswith(end) and len(name) > len(end):
            return name[:-len(end)], which
    return None


def is_interval(name: object) -> bool:
    """Whether a column holds an end of a 95 % interval (never a count, never a range's upper end)."""
    return ci_end(name) is not None


def intervals(columns: Iterable[object]) -> dict[str, tuple[str, str]]:
    """Each value column that has both interval columns among `columns` → (its ci_lo column, its ci_hi column)."""
    names = [c for c in columns if isinstance(c, str)]
    present = set(names)
    out: dict[str, tuple[str, str]] = {}
    for c in names:
        end = ci_end(c)
        if end is None or end[1] != CI_LO or end[0] not in present:
            continue
        hi = c[:-len(CI_LO)] + CI_HI
        if hi in present:
            out[end[0]] = (c, hi)
    return out


def wilson(k: np.ndarray | float, n: np.ndarray | float, scale: float = 100.0) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of k successes in n trials (k may be fractional: a paper's percentage × its n), times
    `scale` (100: in %); NaN where n is 0. scipy's binomtest(k, n).proportion_ci(method="wilson"), for arrays."""
    k, n = np.atleast_1d(np.asarray(k, dtype=float)), np.atleast_1d(np.asarray(n, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.clip(k / n, 0.0, 1.0)
        denom = 2 * (n + Z ** 2)
        center = (2 * n * p + Z ** 2) / denom
        delta = Z / denom * np.sqrt(4 * n * p * (1 - p) + Z ** 2)
        lo = np.where(k <= 0, 0.0, center - delta)
        hi = np.where(k >= n, 1.0, center + delta)
    bad = ~(n > 0)
    lo, hi = np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)
    return scale * lo, scale * hi


def _percentiles(sums: np.ndarray, counts: np.ndarray, times: np.ndarray, rng: np.random.Generator
                 ) -> tuple[float, float]:
    """The percentile interval of Σ sums / Σ counts over items drawn with replacement, `times[j]` items having
    (sums[j], counts[j])."""
    n = int(times.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = sums / counts
    if len(times) == 1 or np.ptp(ratios) == 0:  # every item the same: every resample gives the same number
        return float(ratios[0]), float(ratios[0])
    draws = rng.multinomial(n, times / n, size=RESAMPLES).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        stats = (draws @ sums) / (draws @ counts)
    stats = stats[np.isfinite(stats)]
    if not len(stats):
        return np.nan, np.nan
    lo, hi = np.percentile(stats, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2])
    return float(lo), float(hi)


def bootstrap(frame: pd.DataFrame, by: list[str], item: pd.Series | np.ndarray, value: pd.Series | np.ndarray,
              count: pd.Series | np.ndarray | None = None, scale: float = 1.0, proportion: bool = False,
              ratio: bool = False) -> pd.DataFrame:
    """Per group of `by`: the percentile bootstrap interval (× `scale`) of Σ value / Σ count, resampling the group's
    items (module doc). Rows are answers (or items): `item` names each row's item, `count` what each row adds to
    the denominator (1 when None; a row with count 0 adds to neither). Returns `by` + ci_lo, ci_hi.

    `proportion`: the values are right answers (0 or 1 each, over `count` answers). Where every item scored the
    same (all right, all wrong), every resample gives that number and the bootstrap says nothing about how far off
    it may be; there the interval is Wilson's over the items, as for one answer per item.

    `ratio`: `count` is another mean's per-item value (thinking / non-thinking tokens), so a row whose count is 0
    still adds its value: the statistic is the ratio of the two means over the items drawn."""
    group, keys = _codes(frame, by)
    item = _item_codes(np.asarray(item))
    value = np.asarray(value, dtype=float)
    count = np.ones(len(value)) if count is None else np.asarray(count, dtype=float)
    keep = (~np.isnan(count) & ~np.isnan(value)) if ratio else count > 0
    group, item, value, count = group[keep], item[keep], value[keep], count[keep]
    if not len(value):
        return pd.DataFrame(columns=[*by, CI_LO, CI_HI])
    owner, sums, counts = _per_item(group, item, value, count)
    out = []
    for g, s_, n_, times in _kinds(owner, sums, counts):
        rng = np.random.default_rng(SEED)  # per group, so that a group's interval does not depend on the others
        lo, hi = _percentiles(s_, n_, times, rng)
        if proportion and lo == hi and np.isfinite(lo):
            w_lo, w_hi = wilson(lo * times.sum(), times.sum(), scale=1.0)
            lo, hi = float(w_lo[0]), float(w_hi[0])
        out.append((*keys[g], scale * lo, scale * hi))
    return pd.DataFrame(out, columns=[*by, CI_LO, CI_HI])


def _item_codes(item: np.ndarray) -> np.ndarray:
    """Items as integer codes from 0: integers as they are (shifted), anything else factorized."""
    if np.issubdtype(item.dtype, np.integer) and len(item):
        return item.astype(np.int64) - int(item.min())
    return pd.factorize(item)[0].astype(np.int64)


def _per_item(group: np.ndarray, item: np.ndarray, value: np.ndarray, count: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (group, item) present: its group, the sum of its values and the sum of its counts. Counted in a dense
    array when groups × items is small enough (no hashing of a million keys), else over factorized keys."""
    width = int(item.max()) + 1
    key = group * width + item
    size = (int(group.max()) + 1) * width
    if size <= 20_000_000:
        present = np.bincount(key, minlength=size) > 0
        sums = np.bincount(key, weights=value, minlength=size)[present]
        counts = np.bincount(key, weights=count, minlength=size)[present]
        return np.flatnonzero(present) // width, sums, counts
    pair, first = pd.factorize(key)
    return first // width, np.bincount(pair, weights=value), np.bincount(pair, weights=count)


def _kinds(owner: np.ndarray, sums: np.ndarray, counts: np.ndarray
           ) -> Iterable[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Per group: its distinct kinds of item, (sum, count), and how many items are of each kind (sorted once: a
    groupby of the items is several times slower)."""
    order = np.lexsort((counts, sums, owner))
    g, s, n = owner[order], sums[order], counts[order]
    new = np.r_[True, (g[1:] != g[:-1]) | (s[1:] != s[:-1]) | (n[1:] != n[:-1])]
    starts = np.flatnonzero(new)
    times = np.diff(np.r_[starts, len(g)]).astype(float)
    g, s, n = g[starts], s[starts], n[starts]
    bounds = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    for a, b in zip(bounds, np.r_[bounds[1:], len(g)]):
        yield int(g[a]), s[a:b], n[a:b], times[a:b]


def _codes(frame: pd.DataFrame, by: list[str]) -> tuple[np.ndarray, list[tuple]]:
    """Each row's group of `by` as an integer code, and each code's values of `by` (a missing value is a group)."""
    if not by:
        return np.zeros(len(frame), dtype=np.int64), [()]
    codes, uniques = pd.MultiIndex.from_frame(frame[by]).factorize() if len(by) > 1 else \
        pd.factorize(frame[by[0]], use_na_sentinel=False)
    keys = list(uniques) if len(by) > 1 else [(u,) for u in uniques]
    return np.asarray(codes, dtype=np.int64), keys


def paired_difference(a: pd.Series, b: pd.Series, scale: float = 100.0, proportion: bool = True) -> dict[str, float]:
    """The difference of means a − b over the items both have (index: item; a value per item, e.g. its correctness
    averaged over its repeats) × `scale`, with its percentile bootstrap interval over those items: `diff`,
    `diff_ci_lo`, `diff_ci_hi`, `items`. `proportion`: the values are correctness; where no item differs the
    bootstrap is a point, and the interval is then MOVER's of the two sides' Wilson intervals (as if the sides were
    independent: wider than a paired interval, never narrower)."""
    both = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").dropna()
    if both.empty:
        return {"diff": np.nan, "diff_ci_lo": np.nan, "diff_ci_hi": np.nan, "items": 0}
    d = (both["a"] - both["b"]).astype(float)
    ci = bootstrap(pd.DataFrame(index=d.index), [], d.index.to_numpy(), d.to_numpy(), scale=scale)
    lo, hi = float(ci[CI_LO].iloc[0]), float(ci[CI_HI].iloc[0])
    if proportion and lo == hi:
        n = len(both)
        (a_lo,), (a_hi,) = wilson(both["a"].sum(), n, scale)
        (b_lo,), (b_hi,) = wilson(both["b"].sum(), n, scale)
        _, lo, hi = difference(scale * both["a"].mean(), a_lo, a_hi, scale * both["b"].mean(), b_lo, b_hi)
    return {"diff": scale * float(d.mean()), "diff_ci_lo": float(lo), "diff_ci_hi": float(hi), "items": len(d)}


def difference(x: np.ndarray, x_lo: np.ndarray, x_hi: np.ndarray, y: np.ndarray, y_lo: np.ndarray,
               y_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x − y of two independent estimates with their intervals, and its interval by MOVER (module doc)."""
    x, x_lo, x_hi, y, y_lo, y_hi = (np.asarray(v, dtype=float) for v in (x, x_lo, x_hi, y, y_lo, y_hi))
    d = x - y
    lo = d - np.sqrt((x - x_lo) ** 2 + (y_hi - y) ** 2)
    hi = d + np.sqrt((x_hi - x) ** 2 + (y - y_lo) ** 2)
    return d, lo, hi


def with_difference_ci(out: pd.DataFrame, a: str, b: str, name: str, a_ci: tuple[str, str] | None = None,
                       b_ci: tuple[str, str] | None = None) -> pd.DataFrame:
    """`out` with column `name` = a − b and its interval columns from a's and b's intervals (their interval columns,
    or `a_ci` / `b_ci`), taking a and b as independent (`difference`); without both intervals, the difference
    alone."""
    (a_lo, a_hi), (b_lo, b_hi) = a_ci or ci_columns(a), b_ci or ci_columns(b)
    lo, hi = ci_columns(name)
    if not {a_lo, a_hi, b_lo, b_hi} <= set(out.columns):
        out[name] = out[a] - out[b]
        return out
    out[name], out[lo], out[hi] = difference(out[a], out[a_lo], out[a_hi], out[b], out[b_lo], out[b_hi])
    return out


def rho_interval(rho: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A Spearman ρ's interval over n pairs: Fisher's z with Bonett & Wright's (2000) variance (1 + ρ²/2)/(n − 3)."""
    rho, n = np.asarray(rho, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.arctanh(np.clip(rho, -0.999999, 0.999999))
        se = np.sqrt((1 + rho ** 2 / 2) / (n - 3))
        ok = n > 3
        return np.where(ok, np.tanh(z - Z * se), np.nan), np.where(ok, np.tanh(z + Z * se), np.nan)


def verdicts(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per difference interval: consistent (it covers 0), above, below, or untested (no interval)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    return np.select([np.isnan(lo) | np.isnan(hi), lo > 0, hi < 0], [UNTESTED, ABOVE, BELOW], CONSISTENT).astype(object)


@lru_cache(maxsize=1)
def _paper_n_file(path: Path = PAPER_N) -> pd.DataFrame:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df["n"] = pd.to_numeric(df["n"])
    return df


def paper_n(table_id: str, rows: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Per row of a frame set beside the paper's: the paper's n (its items) and where it comes from, from
    data/reference/paper_n.csv: the line of `table_id` whose `key` column of the row holds its `match` (a line with
    several keys, "split;metric", matches them all), else the table's line with no key; NaN when there is none."""
    spec = _paper_n_file()
    spec = spec[spec["table"] == table_id]
    n = np.full(len(rows), np.nan)
    source = [""] * len(rows)
    for line in sorted(spec.itertuples(index=False), key=lambda r: -len(r.key.split(";")) if r.key else 0):
        keys, wanted = (line.key.split(";"), line.match.split(";")) if line.key else ([], [])
        if any(k not in rows.columns for k in keys):
            continue
        hit = np.ones(len(rows), dtype=bool)
        for k, w in zip(keys, wanted):
            hit &= rows[k].astype(str).to_numpy() == w
        hit &= np.isnan(n)
        n[hit] = line.n
        for i in np.flatnonzero(hit):
            source[i] = line.source
    return n, source


def _paper_interval(kind: np.ndarray, paper: np.ndarray, n_paper: np.ndarray, ours: np.ndarray, lo: np.ndarray,
                    hi: np.ndarray, n_ours: np.ndarray, tolerance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The paper's own interval per row, by the row's kind (module doc)."""
    p_lo, p_hi = wilson(paper / 100 * n_paper, n_paper)
    with np.errstate(invalid="ignore", divide="ignore"):
        shrink = np.sqrt(n_ours / n_paper)
    r_lo, r_hi = rho_interval(paper, n_paper)
    lo_ = np.select([kind == PROPORTION, kind == MEAN, kind == RHO, kind == EXACT],
                    [p_lo, paper - (ours - lo) * shrink, r_lo, paper - tolerance], np.nan)
    hi_ = np.select([kind == PROPORTION, kind == MEAN, kind == RHO, kind == EXACT],
                    [p_hi, paper + (hi - ours) * shrink, r_hi, paper + tolerance], np.nan)
    return lo_, hi_


def against_paper(rows: pd.DataFrame, table_id: str, kind: str) -> pd.DataFrame:
    """`rows` (ours, ours_ci_lo, ours_ci_hi, paper, paper_decimals, and optionally KIND and UNITS per row) with the
    paper's n, where it comes from, the difference ours − paper, its 95 % interval and the verdict (module doc)."""
    out = rows.copy()
    kinds = (out[KIND].fillna(kind) if KIND in out else pd.Series(kind, index=out.index)).to_numpy(dtype=object)
    ours, paper = out["ours"].to_numpy(dtype=float), out["paper"].to_numpy(dtype=float)
    lo = out.get("ours_ci_lo", pd.Series(np.nan, index=out.index)).to_numpy(dtype=float)
    hi = out.get("ours_ci_hi", pd.Series(np.nan, index=out.index)).to_numpy(dtype=float)
    n_ours = out.get(UNITS, pd.Series(np.nan, index=out.index)).to_numpy(dtype=float)
    n_paper, source = paper_n(table_id, out)
    unknown = np.isnan(n_paper) & (kinds != EXACT)
    n_paper = np.where(unknown, n_ours, n_paper)
    tolerance = 0.5 * 10.0 ** -out.get("paper_decimals", pd.Series(0, index=out.index)).to_numpy(dtype=float)
    exact = kinds == EXACT
    lo, hi = np.where(exact, ours, lo), np.where(exact, ours, hi)
    p_lo, p_hi = _paper_interval(kinds, paper, n_paper, ours, lo, hi, n_ours, tolerance)
    d, d_lo, d_hi = difference(ours, lo, hi, paper, p_lo, p_hi)
    out["paper_n"] = np.where(exact, np.nan, n_paper)
    out["paper_n_from"] = np.select([exact, unknown & ~np.isnan(n_ours), unknown], [
        "no sampling error", "ours (the paper's n unknown)", "unknown"], np.asarray(source, dtype=object))
    out["verdict"] = verdicts(d_lo, d_hi)
    # a number with no sampling error has no interval to show: its band is the paper's rounding, said in the verdict
    out["diff"], out["diff_ci_lo"], out["diff_ci_hi"] = d, np.where(exact, np.nan, d_lo), np.where(exact, np.nan, d_hi)
    return out


def consistency(vs_paper: pd.DataFrame | None) -> dict[str, int] | None:
    """How many of the cells set beside the paper's are consistent, above, below or untested; None when the table
    has no paper numbers."""
    if vs_paper is None:
        return None
    said = vs_paper["verdict"] if "verdict" in vs_paper else pd.Series([], dtype=object)
    counts = {v: int((said == v).sum()) for v in (CONSISTENT, ABOVE, BELOW, UNTESTED)}
    counts["tested"] = counts[CONSISTENT] + counts[ABOVE] + counts[BELOW]
    return counts


def consistency_text(counts: dict[str, int] | None) -> str:
    """The line every table starts with: "k of m cells consistent with the paper (95 %)", with how many lie above
    and below it and how many could not be tested."""
    if counts is None:
        return "No paper numbers for this table: nothing to test against."
    if not counts["tested"] and not counts[UNTESTED]:
        return "0 of 0 cells consistent with the paper: no model and setting in common with the paper's table."
    text = (f"{counts[CONSISTENT]} of {counts['tested']} cells consistent with the paper (95 %: the interval of "
            f"ours − paper covers 0); {counts[ABOVE]} above, {counts[BELOW]} below")
    return text + (f"; {counts[UNTESTED]} untested (no interval)." if counts[UNTESTED] else ".")


def sum_counts(many: Iterable[dict[str, int] | None]) -> dict[str, int] | None:
    """The counts of several tables added up (None when none has paper numbers)."""
    found = [c for c in many if c is not None]
    if not found:
        return None
    return {k: sum(c[k] for c in found) for k in found[0]}


def with_intervals(wide: pd.DataFrame, long: pd.DataFrame, index: list[str], columns: list[str],
                   name: Callable[..., str], value: str = "acc") -> pd.DataFrame:
    """`wide` (one row per `index`, a column `name(*key)` per combination `key` of `columns`, made from `long`'s
    `value`) with each such column's interval columns after it, pivoted the same way from `long`'s interval columns
    of `value` (unchanged when `long` has none)."""
    lo, hi = ci_columns(value)
    if lo not in long.columns or hi not in long.columns or long.empty:
        return wide
    keyed = long.drop_duplicates([*index, *columns]).set_index([*index, *columns])
    parts = []
    for end, column in enumerate((lo, hi)):
        t = keyed[column].unstack(columns) if columns else keyed[[column]]
        t.columns = [ci_columns(name(*(k if isinstance(k, tuple) else (k,))))[end] for k in t.columns]
        parts.append(t)
    ci = pd.concat(parts, axis=1)
    ci = ci.loc[:, ~ci.columns.duplicated()].reset_index()
    wanted = [c for c in wide.columns if isinstance(c, str) and ci_columns(c)[0] in ci.columns]
    ci = ci[[*index, *(x for c in wanted for x in ci_columns(c))]]
    out = wide.merge(ci, on=index, how="left") if index else wide.assign(**{c: ci[c].iloc[0] for c in ci.columns})
    order = [x for c in wide.columns for x in ([c, *ci_columns(c)] if c in wanted else [c])]
    return out[order]


def renamed(mapping: dict[str, str]) -> dict[str, str]:
    """A column renaming extended to the interval columns: {"tot_width": "ToT-Width"} also renames
    `tot_width_ci_lo` to "ToT-Width ci_lo" and `tot_width_ci_hi` to "ToT-Width ci_hi"."""
    out = dict(mapping)
    for old, new in mapping.items():
        out.update(dict(zip(ci_columns(old), ci_columns(new))))
    return out


def with_interval_columns(names: Iterable[str]) -> list[str]:
    """Each name followed by its two interval columns (for selecting a value with its interval)."""
    return [x for name in names for x in (name, *ci_columns(name))]


EXACT_NOTE = ("No intervals: these numbers describe the data set (or a configuration) itself, not a sample of answers, "
              "so they have no sampling error; beside the paper each is consistent only when it equals the paper's "
              "number at the paper's rounding.")
