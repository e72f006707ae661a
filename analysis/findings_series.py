"""The checks of findings about a series (trend: a shape over ordered levels) and about correlations.

A trend reads one value per level (`levels`, or compare when it lists them) per model, or, for a family of models
(OMIBench Fig. 5(b)), one value per model ordered by its parameters. increasing / decreasing compare the first and
last levels' intervals; monotonic ones every step; the shapes (saturates, unimodal, linear, no-trend) are said in
`trend`'s doc. A correlation is the table's ρ and p where it has them (OMIBench Fig. 3(a)), else Spearman's ρ over
the models computed here, its 95 % interval a seeded percentile bootstrap over the models (scipy)."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np

from analysis.findings_checks import Result, Tally, greater, metrics_of, per_model, value
from analysis.findings_claims import Est, Missing, num
from analysis.findings_scope import Scope
from analysis.findings_compare import EQUAL_MARGIN, beyond, diff, equal

# Fewer models than this and a correlation is not estimated (a bootstrap over 3 points says nothing).
MIN_MODELS = 4
RESAMPLES = 2000
SEED = 0


def levels_of(s: Scope) -> list[str]:
    f = s.finding
    levels = f.claim.get("levels") or (f.compare if len(f.compare) > 1 else f.metrics())
    return [str(x) for x in levels]


def family_series(s: Scope, name: str, metric: str | None) -> list[Est]:
    """A family's models (rows labelled `family` = name) ordered by total parameters: one value each."""
    rows = []
    for view in s.views():
        for c in view.find(name, *( [metric] if metric and view.knows(metric) else [])):
            labels = dict(c.labels)
            if labels.get("family") == name and c.column in ("acc", "value"):
                rows.append((float(labels.get("params_total_b", "nan")), s.as_est(view, c, labels.get("model", ""))))
        if rows:
            break
    if len(rows) < 2:
        raise Missing(f"fewer than two {name} models in {', '.join(s.finding.tables)}")
    return [e for _, e in sorted(rows, key=lambda r: r[0])]


def series(s: Scope, model: str | None, metric: str | None) -> list[Est]:
    """One value per level of a model (or of the table, for the data's own statistics)."""
    return [value(s, level, model, metric if metric not in levels_of(s) else None) for level in levels_of(s)]


def shaped(values: list[Est], direction: str, x: list[float] | None = None) -> tuple[bool | None, str]:
    """Whether a series has the claim's shape, and the test in words."""
    first, last = values[0], values[-1]
    steps = list(zip(values, values[1:]))
    if direction in ("increasing", "decreasing"):
        up = greater(last, first) if direction == "increasing" else greater(first, last)
        return up, "the last level's interval beyond the first's"
    if direction.startswith("monotonic"):
        results = [greater(b, a) if direction.endswith("increasing") else greater(a, b) for a, b in steps]
        return all_steps(results), "every step's intervals separated in that direction"
    if direction == "near-monotonic-increasing":
        overall = greater(last, first)
        reversed_step = any(greater(a, b) is True for a, b in steps)
        return (False if overall is False else None if reversed_step or overall is None else True,
                "the last level above the first and no step significantly down")
    if direction == "saturates":
        return saturates(values)
    if direction == "unimodal":
        return unimodal(values)
    return points(values, direction, x)


def all_steps(results: list[bool | None]) -> bool | None:
    return False if False in results else True if all(r is True for r in results) else None


def saturates(values: list[Est]) -> tuple[bool | None, str]:
    """A rise, then a plateau: the middle level above the first, and the last within ±5 points of the middle
    (fails when the last is more than 5 points above the middle)."""
    if len(values) < 3:
        return None, "fewer than three levels"
    mid = values[len(values) // 2]
    rise, late = greater(mid, values[0]), diff(values[-1], mid)
    said = "the middle level above the first, the last within ±5 points of the middle"
    if beyond(late, "above", EQUAL_MARGIN) is True:
        return False, said
    return (True if rise is True and equal(late) is True else None), said


def unimodal(values: list[Est]) -> tuple[bool | None, str]:
    """One peak inside: the highest level above both ends; an end above every other level fails it."""
    peak = max(range(len(values)), key=lambda i: values[i].value)
    said = "the highest level inside, above both ends"
    if peak in (0, len(values) - 1):
        others = [greater(values[peak], v) for i, v in enumerate(values) if i != peak]
        return (False if all(r is True for r in others) else None), said
    ends = [greater(values[peak], values[0]), greater(values[peak], values[-1])]
    return all_steps(ends), said


def points(values: list[Est], direction: str, x: list[float] | None = None) -> tuple[bool | None, str]:
    """linear: a straight line over the levels (`x`: their log2 for sample counts) explains ≥ 90 % of the
    variance, with a slope p < 0.05 (fails below 50 %); no-trend: Spearman's p ≥ 0.05 and |ρ| < 0.5 (fails at
    p < 0.05). On the point values: the test's p is the uncertainty of a shape over a few levels."""
    from scipy import stats  # imported when a test is made: scipy.stats takes a second to import

    y = np.array([v.value for v in values])
    x = np.array(x if x is not None else range(len(y)), dtype=float)
    if len(y) < 3 or np.ptp(y) == 0:
        return None, f"{direction}: too few levels or a flat series"
    if direction == "linear":
        fit = stats.linregress(x, y)
        r2 = fit.rvalue ** 2
        return (True if r2 >= 0.9 and fit.pvalue < 0.05 else False if r2 < 0.5 else None,
                f"a straight line: R² = {num(r2)}, slope p = {num(fit.pvalue)} (holds at R² ≥ 0.9 and p < 0.05)")
    rho, p = stats.spearmanr(x, y)
    return (False if p < 0.05 else True if abs(rho) < 0.5 else None,
            f"no trend: Spearman ρ = {num(rho)}, p = {num(p)} (holds at p ≥ 0.05 and |ρ| < 0.5)")


def trend(s: Scope) -> Result:
    """trend: the series of each model the claim covers (or of each family it names) has the claim's shape."""
    f = s.finding
    t, said = Tally(), ""
    if "params_active_b" in f.compare or "ordered by" in " ".join(f.compare):
        return ordered_by(s)
    metric = next(iter(m for m in metrics_of(s) if m not in levels_of(s)), None)
    families = [c for c in f.compare if any(c == dict(x.labels).get("family") for v in s.views() for x in v.cells)]
    runs = ([family_series(s, name, metric) for name in families] if families else
            [series(s, m, metric) for m in series_models(s)])
    for values in runs:
        result, said = shaped(values, f.direction, level_positions(s))
        t.add(result, *values)
    return t.done(s, f"{f.direction}: {said}")


def level_positions(s: Scope) -> list[float] | None:
    """Where the levels lie: their log2 when the claim says so (sample counts), their numbers, else None."""
    try:
        x = [float(v) for v in levels_of(s)]
    except ValueError:
        return None
    return list(np.log2(x)) if any("log2" in c for c in s.finding.compare) else x


def series_models(s: Scope) -> list[str | None]:
    """The models whose series a trend is about: those compare names, else those it covers."""
    named = [c for c in s.finding.compare if c in s.table_models()]
    if named:
        return named
    quoted = [m for m in s.table_models() if f"'{m}'" in s.finding.over]
    return quoted or per_model(s)


def ordered_by(s: Scope) -> Result:
    """A trend over models ordered by a quantity (active parameters; GPTScore Total): Spearman's ρ between the
    quantity and the value, with its bootstrap interval."""
    f = s.finding
    metric = (f.metrics() or [""])[0]
    if "params_active_b" in f.compare:
        key, val = "params_active_b", metric
    else:  # "ACC Total − GPTScore Total" over models ordered by GPTScore Total
        key, val = "GPTScore Total", metric
    xs, ys = [], []
    for m in s.covered():
        try:
            x = label_or_value(s, m, key)
            y = expression(s, m, val)
        except Missing:
            continue
        xs.append(x)
        ys.append(y)
    rho = spearman(xs, ys, f"Spearman ρ of {val} with {key}", s.exact)
    sign = rho_sign(rho, positive=f.direction == "increasing")
    return Result(sign, [rho], f"{f.direction}: Spearman's ρ over {len(xs)} models "
                               f"{'above' if f.direction == 'increasing' else 'below'} 0 (95 % bootstrap interval)")


def label_or_value(s: Scope, model: str, key: str) -> float:
    for view in s.views():
        for c in view.cells:
            if view.model_of(c) == model and key in dict(c.labels):
                return float(dict(c.labels)[key])
    return s.est(None, model, key).value


def expression(s: Scope, model: str, metric: str) -> float:
    """A value, or the difference of two columns the metric writes as `A − B`."""
    if " − " in metric:
        a, b = metric.split(" − ", 1)
        return s.est(None, model, a).value - s.est(None, model, b).value
    return s.est(None, model, metric).value


def spearman(x: list[float], y: list[float], what: str, exact: bool) -> Est:
    """Spearman's ρ with its 95 % percentile bootstrap interval over the pairs (exact: none, the paper's points)."""
    from scipy import stats  # imported when a test is made: scipy.stats takes a second to import

    n = len(x)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Est(math.nan, math.nan, math.nan, f"{what} (n = {n})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = float(stats.spearmanr(x, y).statistic)
        if exact:
            return Est(rho, rho, rho, f"{what} (n = {n})", "the paper's points")
        if n < MIN_MODELS:
            return Est(rho, math.nan, math.nan, f"{what} (n = {n}, too few to bootstrap)")
        ci = stats.bootstrap((np.array(x), np.array(y)), lambda a, b: stats.spearmanr(a, b).statistic,
                             paired=True, vectorized=False, n_resamples=RESAMPLES, method="percentile",
                             random_state=SEED).confidence_interval
    return Est(rho, float(ci.low), float(ci.high), f"{what} (n = {n})", "percentile bootstrap over the models")


def rho_sign(rho: Est, positive: bool = True) -> bool | None:
    if math.isnan(rho.value) or not rho.known or math.isnan(rho.lo):
        return None
    lo, hi = (rho.lo, rho.hi) if positive else (-rho.hi, -rho.lo)
    return True if lo > 0 or (rho.lo == rho.hi and lo > 0) else False if hi < 0 or (rho.lo == rho.hi and hi <= 0) \
        else None


# --- correlation --------------------------------------------------------------------------------------------------

def table_rho(s: Scope, pair: str) -> Est | None:
    """A correlation the table states (`rho`, `p` of the pair): the sign judged by p < 0.05."""
    try:
        rho = s.est(pair, None, "rho")
    except Missing:
        return None
    if s.exact:
        return rho
    p = s.est(pair, None, "p")
    if math.isnan(rho.value) or math.isnan(p.value):
        return Est(rho.value, math.nan, math.nan, rho.what, "no ρ: too few models")
    # p < 0.05 puts ρ's sign beyond chance; the interval is read as on the side of its sign
    side = (min(rho.value, 1e-9), rho.value) if rho.value > 0 else (rho.value, max(rho.value, -1e-9))
    return Est(rho.value, *side, f"{rho.what} (p = {num(p.value)})", "the table's test") if p.value < 0.05 else \
        Est(rho.value, -1.0, 1.0, f"{rho.what} (p = {num(p.value)})", "the table's test: p ≥ 0.05")


def model_rho(s: Scope, x: str, y: str, metric: str | None) -> Est:
    """Spearman's ρ of two columns (or of one column's two items) over the models the claim covers."""
    xs, ys = [], []
    for m in s.covered():
        try:
            a, b = value(s, x, m, metric), value(s, y, m, metric)
        except Missing:
            continue
        xs.append(a.value)
        ys.append(b.value)
    if not xs:
        raise Missing(s.lacking(f"{x} and {y}"))
    return spearman(xs, ys, f"Spearman ρ of {x} and {y}", s.exact)


def rho_of(s: Scope, x: str, y: str | None = None) -> Est:
    metric = next(iter(m for m in metrics_of(s) if m and not re.search(r"ρ|rho", m)), None)
    pair = x if y is None else f"{x} vs {y}"
    found = table_rho(s, pair)
    if found is not None:
        return found
    if y is None:
        x, y = pair.split(" vs ", 1)
    return model_rho(s, x, y, metric)


def correlation(s: Scope) -> Result:
    """positive: ρ's interval above 0 (the table's ρ with p < 0.05, or the bootstrap); consistent: every item's ρ
    with the first positive; higher: each ρ above `against`'s."""
    f = s.finding
    t = Tally()
    if f.direction == "consistent":
        for other in f.compare[1:]:
            rho = rho_of(s, f.compare[0], other)
            t.add(rho_sign(rho), rho)
        return t.done(s, "each ranking's Spearman ρ with the first above 0 (95 % interval)")
    if f.direction == "higher":
        base = rho_of(s, str(f.claim["against"]))
        for pair in f.compare:
            rho = rho_of(s, pair)
            t.add(greater(rho, base), rho, base)
        return t.done(s, f"each ρ above {f.claim['against']}'s, intervals separated")
    rho = rho_of(s, *f.compare[:2])
    t.add(rho_sign(rho), rho)
    stated = f.size.get("equals")
    return t.done(s, "ρ above 0 (the table's p < 0.05, or a 95 % bootstrap interval over the models)"
                  + (f"; the paper's ρ = {num(float(stated))}" if stated is not None else ""))


def compare_rhos(s: Scope) -> Result:
    """An order of correlations (ToT-Width's ρ with Acc above ToT-Depth's): the points, intervals separated."""
    f = s.finding
    target = re.sub(r".*with\s+", "", f.metrics()[0]) if f.metrics() else "Acc"
    rhos = [rho_of(s, c, target) for c in f.compare]
    t = Tally()
    t.add(greater(rhos[0], rhos[1]) if f.direction == "higher" else greater(rhos[1], rhos[0]), *rhos)
    return t.done(s, f"{f.direction}: Spearman ρ with {target}, 95 % bootstrap intervals separated")
