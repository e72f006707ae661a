"""One check per kind of finding (data/reference/findings/README.md): threshold, order, difference, improvement,
range and ratio here, trend and correlation in analysis/findings_series.py. Each reads its numbers through a Scope
(ours or the paper's) and returns a Result: True / False / None (holds / does not hold / inconclusive), the numbers
it read and the test in words. A claim over several models holds when it holds for every one (for most of them when
`over` says 'most', 'often', 'generally' …), fails when it fails for one (for half of them)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from analysis.findings_claims import Est, Missing, Unclear, num, tri
from analysis.findings_scope import SUMMARY, Scope
from analysis.findings_compare import absolute, all_of, beyond, diff, equal, greater, mean_of, ratio, size_test

BOUNDS = ("above", "below", "at_least", "at_most", "about", "equals", "between")
# Tables whose compared counts are discordant pairs of the same items (OMIBench Fig. 16: the rule and the LLM judge).
DISCORDANT = {"omibench.F16"}
CONDITION = re.compile(r"models with (.+?) (≥|>=|>|≤|<=|<) ?([\d.]+)")


@dataclass
class Result:
    result: bool | None
    values: list[Est] = field(default_factory=list)
    test: str = ""
    effect: str = ""
    why: str = ""  # what kept it open, when the values alone do not say


@dataclass
class Tally:
    """Sub-tests of one claim (one per model, pair, metric …) and the numbers they read."""

    results: list[bool | None] = field(default_factory=list)
    values: list[Est] = field(default_factory=list)

    def add(self, result: bool | None, *values: Est) -> None:
        self.results.append(result)
        self.values += [v for v in values if v not in self.values]

    def done(self, s: Scope, test: str, effect: str = "") -> Result:
        most = s.finding.most
        quantifier = (f"; most of {len(self.results)}" if most and len(self.results) > 1
                      else f"; each of {len(self.results)}" if len(self.results) > 1 else "")
        why = "" if self.results else "nothing to compare it with in the tables read"
        return Result(tri(self.results, most), self.values, test + quantifier, effect, why)


# --- what a claim reads ------------------------------------------------------------------------------------------

def metrics_of(s: Scope) -> list[str | None]:
    """The claim's metrics, a pattern (`<subject> Std`) read as every column it matches; [None] when it has none
    or when they are the very items compared (mean vs median words)."""
    out: list[str | None] = []
    named = [m for m in s.finding.metrics() if " − " not in m and " / " not in m]  # arithmetic of the items
    if not named or set(named) == set(s.finding.compare):
        return [None]
    for m in named:
        if "<" in m:
            pattern = re.compile(re.sub(r"<[^>]+>", ".+", re.escape(m).replace(r"\<", "<").replace(r"\>", ">")) + "$")
            out += list(dict.fromkeys(c.column for v in s.views() for c in v.cells
                                      if pattern.match(c.column) and c.column not in named))
        else:
            out.append(m)
    return out or [None]


def is_model(s: Scope, name: str) -> bool:
    return s.is_model(name)


def group(s: Scope, name: str) -> list[str] | None:
    """A group of models the claim defines (`groups`), by its name or as 'best <name>'."""
    groups = s.finding.claim.get("groups") or {}
    key = name.removeprefix("best ").strip()
    return [str(m) for m in groups[key]] if key in groups else None


def every(s: Scope, phrase: str) -> list[str]:
    """'every model' (but the ones it names), 'models with Acc ≥ 20': the covered models it means."""
    if not s.table_models():
        raise Missing(f"{', '.join(v.table for v in s.views()) or s.lacking('')} has no value per "
                      f"{phrase.removeprefix('every ')}")
    models = [m for m in s.covered() if m not in phrase]
    if m := CONDITION.search(phrase):
        metric, op, bound = m[1], m[2], float(m[3])
        keep = {"≥": "at_least", ">=": "at_least", ">": "above", "≤": "at_most", "<=": "at_most", "<": "below"}[op]
        models = [x for x in models if beyond(exact(s.est(None, x, metric)), keep, bound)]
        if not models:
            raise Missing(f"no model with {metric} {op} {num(bound)}")
    return models


def exact(e: Est) -> Est:
    """The number as it is (a condition that selects models reads the point value)."""
    return Est(e.value, e.value, e.value, e.what, e.how)


def value(s: Scope, name: str, model: str | None, metric: str | None) -> Est:
    """One side of a comparison: a model's value (`name` a model), a group's ('best <group>': its best model; a
    group: the mean of its models' values), or `name` (a setting, column or level) of `model`. A metric `|X|` is
    X's size; 'fall of … with level' the first level's value less the last's (`levels`)."""
    if (members := group(s, name)) is not None:
        return group_value(s, name, members, metric)
    if name == "best model":
        best = max((s.est(None, m, metric) for m in s.covered()), key=lambda e: e.value)
        return Est(best.value, best.lo, best.hi, f"best model ({best.what})", best.how)
    if metric and metric.startswith("|") and metric.endswith("|"):
        return absolute(value(s, name, model, metric[1:-1]))
    if metric and metric.startswith("fall of") and s.finding.claim.get("levels"):
        levels = [str(x) for x in s.finding.claim["levels"]]
        first, last = value(s, levels[0], name, None), value(s, levels[-1], name, None)
        return diff(first, last, f"{name}: level {levels[0]} − level {levels[-1]}")
    if is_model(s, name):
        return s.est(None, name, metric)
    return s.est(name, model, metric)


def group_value(s: Scope, name: str, members: list[str], metric: str | None) -> Est:
    present = [m for m in members if m in s.table_models()]
    if not present:
        raise Missing(f"no model of {name} ({', '.join(members)}) in {', '.join(v.table for v in s.views())}")
    if name.startswith("best "):
        best = max((s.est(None, m, metric) for m in present), key=lambda e: e.value)
        return Est(best.value, best.lo, best.hi, f"{name} ({best.what})", best.how)
    size = bool(metric and metric.startswith("|"))
    ests = [absolute(e) if size else e for m in present
            for e in s.ests(None, m, metric.strip("|") if metric else metric)]
    return mean_of(ests, f"{name} (mean of {len(ests)} values of {len(present)} models)")


def read(s: Scope, item: str | None, model: str | None, metric: str | None) -> list[Est]:
    """The values a piece of a claim reads: 'best model' the covered models' best, else the cells it names."""
    if item == "best model":
        return [value(s, item, None, metric)]
    return s.ests(item, model, metric)


def per_model(s: Scope) -> list[str | None]:
    """The models a claim about settings or columns is checked on: those it covers; [None] for a table of the
    data (no model)."""
    return s.covered() if s.table_models() else [None]


# --- threshold ---------------------------------------------------------------------------------------------------

def threshold(s: Scope) -> Result:
    f = s.finding
    if f.size.get("unit") == "% of models":
        return share_of_models(s)
    if f.direction in ("lower", "higher") and len(f.compare) == 2:
        return gap(s)
    if f.direction == "equal":
        return stated(s)
    t, said, hows = Tally(), "", set()
    bounds = f.claim.get("values") or {}
    for metric in metrics_of(s):
        size = bounds.get(metric) or bounds.get(pattern_of(f, metric)) or f.size
        for model, item in pieces(s):
            for e in read(s, item, model, metric):
                result, said = size_test(e, size)
                t.add(result, e)
                hows.add(e.how or "no interval")
    return t.done(s, f"each value {said}, its 95 % interval wholly on that side ({'; '.join(sorted(hows))})")


def pattern_of(f: Any, metric: str | None) -> str | None:
    """The claim's metric pattern (`<subject> Std`) a column was read as, for the bound given under it."""
    for m in f.metrics():
        if "<" in m and metric and re.fullmatch(re.sub(r"<[^>]+>", ".+", re.escape(m).replace(r"\<", "<")
                                                       .replace(r"\>", ">")), metric):
            return m
    return None


def pieces(s: Scope) -> list[tuple[str | None, str | None]]:
    """(model, item) pairs a claim reads one value of each: its models, or its items (settings, columns) of each
    model it covers."""
    out: list[tuple[str | None, str | None]] = []
    for name in s.finding.compare:
        if name.startswith(("every", "models with")):
            out += [(m, None) for m in every(s, name)]
        elif name.startswith("each "):
            out += [(None, row) for row in rows_of(s)]
        elif name == "best model":
            out.append((None, name))
        elif is_model(s, name):
            out.append((name, None))
        else:
            out += [(m, name) for m in per_model(s)]
    return out


def rows_of(s: Scope) -> list[str]:
    """'each subset': the rows of the claim's metric in its table, its summary rows (Total) left out."""
    metric = metrics_of(s)[0]
    for view in s.views():
        if metric and view.knows(metric) and not view.long:
            keys = [c.labels[0][1] for c in view.find(metric) if c.labels]
            rows = [k for k in dict.fromkeys(keys) if k not in SUMMARY]
            if rows:
                return rows
    raise Missing(s.lacking(f"rows of {metric}"))


def gap(s: Scope) -> Result:
    """compare[0] lower (higher) than compare[1] by the claim's size, per model (a difference threshold)."""
    f = s.finding
    a, b = f.compare
    t, said = Tally(), ""
    for metric in metrics_of(s):
        for model in per_model(s) if not is_model(s, a) else [None]:
            d = difference(s, a, b, model, metric)
            d = d if f.direction == "higher" else flip(d)
            result, said = size_test(d, f.size) if f.size else (greater_than_zero(d), "above 0")
            t.add(result, d)
    word = "above" if f.direction == "higher" else "below"
    return t.done(s, f"{a} {word} {b} by a difference {said} ({t.values[0].how if t.values else ''})")


def flip(d: Est) -> Est:
    """−d: the difference the other way round (b − a), as a claim that a is below b by so much reads it."""
    left, sep, right = d.what.rpartition(": ")
    a, _, b = right.partition(" − ")
    named = f"{left}{sep}{b.split(' ', 1)[0]} − {a}{(' ' + b.split(' ', 1)[1]) if ' ' in b else ''}" if b else f"−({d.what})"
    return Est(-d.value, -d.hi, -d.lo, named, d.how, d.key)


def greater_than_zero(d: Est) -> bool | None:
    return beyond(d, "above", 0.0)


def stated(s: Scope) -> Result:
    """A value equal to a stated one (coverage 100 %)."""
    t, said = Tally(), ""
    for metric in metrics_of(s):
        for model, item in pieces(s):
            e = read(s, item, model, metric)[0]
            result, said = size_test(e, s.finding.size)
            t.add(result, e)
    return t.done(s, f"the value {said}")


def share_of_models(s: Scope) -> Result:
    """The share of models for which compare[0] is below (above) compare[1], against the stated share."""
    f = s.finding
    a, b = f.compare
    results = []
    for model in s.covered():
        d = difference(s, a, b, model, None)
        results.append(greater_than_zero(d if f.direction == "higher" else flip(d)))
    n = len(results)
    lo, hi = 100 * results.count(True) / n, 100 * (n - results.count(False)) / n
    share = Est(100 * results.count(True) / n, lo, hi, f"share of {n} models with {a} {f.direction} than {b} (%)",
                "from the models whose difference is decided (lower end) or not excluded (upper end)")
    result, said = size_test(share, f.size)
    return Result(result, [share], f"the share {said}")


# --- differences between two sides ------------------------------------------------------------------------------

def difference(s: Scope, a: str, b: str, model: str | None, metric: str | None) -> Est:
    """a − b of a model (or of two models): the claim's metric where it is itself a difference column (`Δ
    Completeness` of a split, `CQ-IQ`), the table's paired difference of a against its baseline (`Δ <a>`, with its
    interval), else the two sides' values with the conservative unpaired interval."""
    name = f"{what(model)}{a} − {b}{' ' + metric if metric else ''}"
    if metric and is_difference(metric) and any(v.knows(metric) for v in s.views()):
        for item in (a, None):
            try:
                d = s.est(item, model, metric)
            except Missing:
                continue
            return Est(d.value, d.lo, d.hi, name, d.how or "", d.key)
    paired = None
    try:  # a setting's paired difference to the baseline (two models are never paired so)
        d = None if is_model(s, a) else s.est(f"Δ {a}", model, metric)
        paired = d and Est(d.value, d.lo, d.hi, name, d.how and f"the table's paired difference: {d.how}", d.key)
    except Missing:
        pass
    if paired is not None and paired.known:
        return paired
    left, right = value(s, a, model, metric), value(s, b, model, metric)
    if any(v.table in DISCORDANT for v in s.views()) and not s.exact:
        return discordant(left, right, name)
    unpaired = diff(left, right, name)
    return unpaired if paired is None or unpaired.known else paired


def discordant(a: Est, b: Est, name: str) -> Est:
    """a − b of two discordant counts of the same items (one judge right where the other is wrong, and the
    reverse): the exact binomial (McNemar) test of a against a + b; its interval stands on the side of the
    difference's sign when p < 0.05, across 0 otherwise."""
    from scipy.stats import binomtest  # imported when a test is made: scipy.stats takes a second to import

    n = int(a.value + b.value)
    if n == 0:
        return Est(0.0, -1.0, 1.0, name, "exact McNemar test: no discordant item")
    p = binomtest(int(a.value), n).pvalue
    d = a.value - b.value
    lo, hi = (min(d, 0.5), d) if d > 0 else (d, max(d, -0.5))
    return Est(d, *((lo, hi) if p < 0.05 else (-abs(d) - 1, abs(d) + 1)), f"{name} (p = {num(p)})",
               "exact McNemar test of the discordant counts")


def is_difference(metric: str) -> bool:
    """A column that is itself a difference: `Δ HAlign`, Think360 Fig. S5's `CQ-IQ`."""
    return metric.startswith("Δ") or bool(re.fullmatch(r"[A-Z]+-[A-Z]+", metric))


def what(model: str | None) -> str:
    return f"{model}: " if model else ""


def paired_p(s: Scope, a: str, model: str | None, metric: str | None) -> Est | None:
    """The p-value of the table's paired test of `a` against the baseline (`p <a>`), if it has one."""
    try:
        return s.est(f"p {a}", model, metric)
    except Missing:
        return None


def compared(d: Est, direction: str) -> bool | None:
    if direction in ("higher", "above"):
        return greater_than_zero(d)
    if direction in ("lower", "below"):
        return beyond(d, "below", 0.0)
    if direction == "equal":
        return equal(d)
    if direction == "not-higher":
        up = greater_than_zero(d)
        return None if up is None and d.known and d.hi > 0 else (False if up else True if d.known else None)
    raise ValueError(direction)


def sides(s: Scope) -> list[tuple[str, str, str | None]]:
    """(a, b, model) of a two-sided claim: per pair (`pairs`), compare[0] and each of compare[1:] (or each of
    compare against `against`) per model, or two models."""
    f = s.finding
    if pairs := f.claim.get("pairs"):
        return [(str(a), str(b), None) for a, b in pairs]
    against = f.claim.get("against")
    if against and isinstance(against, str):
        items = [(c, against) for c in f.compare]
    else:
        items = [(f.compare[0], c) for c in f.compare[1:]]
    if all(is_model(s, x) or group(s, x) is not None for pair in items for x in pair):
        return [(a, b, None) for a, b in items]
    return [(a, b, m) for m in per_model(s) for a, b in items]


def two_sided(s: Scope) -> Result:
    """difference (and order's higher / lower / not-higher): compare[0] against the rest, per pair or model, in
    each metric; with a size, the difference against it; `equal` with a p-value size: the paired tests' p."""
    f = s.finding
    t, tests = Tally(), set()
    for metric in metrics_of(s):
        for a, b, model in sides(s):
            if f.direction == "equal" and f.size.get("unit") == "p":
                p = paired_p(s, a, model, metric)
                if p is not None:
                    t.add(beyond(p, "at_least", float(f.size.get("at_least", 0.05))), p)
                    tests.add("the table's paired test: p ≥ 0.05")
                    continue
            for d in differences(s, a, b, model, metric):
                add_difference(t, tests, f, d)
    return t.done(s, f"{f.direction}: the difference's 95 % interval "
                     f"{'within ±5 points' if f.direction == 'equal' else 'excludes 0'} ({'; '.join(sorted(tests))})")


def add_difference(t: Tally, tests: set[str], f: Any, d: Est) -> None:
    """One difference tested in the claim's direction, and against its size when it states one."""
    result = compared(d, f.direction)
    if f.size and f.direction in ("higher", "lower", "above", "below") and f.size.get("unit") != "p":
        sized, said = size_test(d if f.direction in ("higher", "above") else flip(d), f.size)
        result = all_of([result, sized])
        tests.add(f"by {said}")
    t.add(result, d)
    tests.add(d.how or "no interval")


def differences(s: Scope, a: str, b: str, model: str | None, metric: str | None) -> list[Est]:
    """a − b, or, where two models have one value per split (MorphoBench Tables 2 and 7), a − b per split both
    have."""
    try:
        return [difference(s, a, b, model, metric)]
    except Unclear:
        if model is not None or not (is_model(s, a) and is_model(s, b)):
            raise
    left, right = s.ests(None, a, metric), s.ests(None, b, metric)
    theirs = {e.key: e for e in right}
    out = [diff(e, theirs[e.key], f"{a} − {b} ({e.key})") for e in left if e.key in theirs]
    if not out:
        raise Missing(f"no split that both {a} and {b} have")
    return out


# --- order ------------------------------------------------------------------------------------------------------

def order(s: Scope) -> Result:
    """order: compare[0] the highest (lowest) of the models `over` covers or of the items against it (`against`, or
    compare[1:]); compare in order (descending, top); per split where a model has one value per split."""
    f = s.finding
    if f.direction in ("higher", "lower", "not-higher"):
        return two_sided(s)
    if f.direction == "among-top":
        return among_top(s)
    t = Tally()
    metrics = metrics_of(s)
    if s.models_compared():
        pairs = list(zip(metrics, f.compare)) if len(metrics) == len(f.compare) > 1 else \
            [(m, f.compare[0]) for m in metrics]
        field = list(dict.fromkeys([*f.compare, *field_of(s)]))
        for metric, first in pairs:
            for values in by_key({m: values_of(s, m, metric) for m in field}).values():
                ranked(s, t, values, first)
    else:
        for metric in metrics:
            for model in per_model(s):
                ranked(s, t, {c: value(s, c, model, metric) for c in [*f.compare, *against_of(s)]}, f.compare[0])
    return t.done(s, f"{f.direction}: intervals separated in that order")


def against_of(s: Scope) -> list[str]:
    against = s.finding.claim.get("against")
    return [str(a) for a in against] if isinstance(against, list) else []


def values_of(s: Scope, name: str, metric: str | None) -> list[Est]:
    """A model's values of a metric (one per split where the table has several), or a group's one value."""
    if group(s, name) is None and is_model(s, name):
        return s.ests(None, name, metric)
    return [value(s, name, None, metric)]


def by_key(values: dict[str, list[Est]]) -> dict[str, dict[str, Est]]:
    """Per split (Est.key), each model's value; a model with one value stands in every split."""
    keys = list(dict.fromkeys(e.key for es in values.values() for e in es if e.key)) or [""]
    out: dict[str, dict[str, Est]] = {}
    for key in keys:
        out[key] = {m: next((e for e in es if e.key == key), es[0]) for m, es in values.items()
                    if es and (len(es) == 1 or any(e.key == key for e in es))}
    return out


def names_the_field(s: Scope) -> bool:
    """Whether `over` names the field (the two or three models compared) rather than a table's models."""
    return bool(re.search(r"\b(the (two|three|four) models|the pair|the three leading|these)\b", s.finding.over))


def field_of(s: Scope) -> list[str]:
    """The models a ranking is over: those compared when `over` says so, else every model the claim covers."""
    if names_the_field(s):
        return []
    try:
        return s.covered()
    except Missing:
        return []


def ranked(s: Scope, t: Tally, values: dict[str, Est], first: str) -> None:
    """Tests of one ranking: compare[0] (each of compare, with `against`) highest (lowest) of all the others, or
    compare in order (descending, top: then the last of them above every other)."""
    f = s.finding
    if f.direction in ("highest", "lowest"):
        tops = [c for c in f.compare if c in values] if against_of(s) else [first]
        for top in tops:
            for name, e in values.items():
                if name not in tops:
                    a, b = (values[top], e) if f.direction == "highest" else (e, values[top])
                    t.add(greater(a, b), values[top], e)
        return
    chain = [c for c in f.compare if c in values]
    for a, b in zip(chain, chain[1:]):
        t.add(greater(values[a], values[b]), values[a], values[b])
    if f.direction == "top":
        for name, e in values.items():
            if name not in chain:
                t.add(greater(values[chain[-1]], e), values[chain[-1]], e)


def among_top(s: Scope) -> Result:
    """Each of compare among the table's highest 2 × len(compare) values (a word cloud's biggest words)."""
    f = s.finding
    metric = metrics_of(s)[0] or ""
    view = next((v for v in s.views() if any(c.column == metric for c in v.cells)), None)
    if view is None:
        raise Missing(s.lacking(metric))
    column = [c for c in view.cells if c.column == metric]
    top = sorted(column, key=lambda c: -c.value)[:2 * len(f.compare)]
    t = Tally()
    names = {n for c in top for n in c.names}
    for item in f.compare:
        t.add(item in names, *([s.est(item, None, metric)] if any(item in c.names for c in column) else []))
    return t.done(s, f"each among the {len(top)} highest {metric} of {view.table}")


# --- improvement --------------------------------------------------------------------------------------------------

def improvement(s: Scope, paper: Scope | None = None) -> Result:
    """compare[0] (improved) above compare[1] (baseline), per pair or model (their mean, when `over` says 'on
    average'), in each metric: our difference, its interval (the table's paired test where it has one, else the
    conservative unpaired one), the claim's size if it states one, and our difference over the paper's."""
    f = s.finding
    t, tests, effects = Tally(), set(), []
    for metric in metrics_of(s):
        for d, theirs in gains(s, paper, metric):
            result = greater_than_zero(d)
            if set(f.size) & set(BOUNDS):
                sized, said = size_test(d, f.size)
                result = all_of([result, sized])
                tests.add(f"the gain {said}")
            t.add(result, d)
            tests.add(d.how or "no interval")
            if theirs is not None and theirs.value:
                effects.append(f"{d.what}: {num(d.value)} vs the paper's {num(theirs.value)} "
                               f"(×{num(d.value / theirs.value)})")
    return t.done(s, "improved − baseline > 0, its 95 % interval above 0 (" + "; ".join(sorted(tests)) + ")",
                  "; ".join(effects))


def gains(s: Scope, paper: Scope | None, metric: str | None) -> list[tuple[Est, Est | None]]:
    """Per pair or model, our difference and the paper's; one mean of each when the claim is 'on average'."""
    out = [(difference(s, a, b, model, metric), paper_difference(paper, a, b, model, metric))
           for a, b, model in sides(s)]
    if "on average" not in s.finding.over or len(out) < 2:
        return out
    theirs = [p for _, p in out if p is not None]
    name = f"mean over {len(out)}: {s.finding.compare[0]} − {s.finding.compare[1]}{' ' + metric if metric else ''}"
    return [(mean_of([d for d, _ in out], name),
             mean_of(theirs, "the paper's mean") if len(theirs) == len(out) else None)]


def paper_difference(paper: Scope | None, a: str, b: str, model: str | None, metric: str | None) -> Est | None:
    """The paper's difference for the same sides: from data/reference, else the claim's `values` for the model."""
    if paper is None:
        return None
    try:
        return difference(paper, a, b, model, metric)
    except (Missing, Unclear):  # the paper's table does not have both sides: its stated value, if any
        stated_value = (paper.finding.claim.get("values") or {}).get(model or "")
        return Est(float(stated_value), float(stated_value), float(stated_value), "the paper's")\
            if isinstance(stated_value, (int, float)) else None


# --- range and ratio ----------------------------------------------------------------------------------------------

def stated_values(s: Scope) -> Iterable[tuple[str | None, str | None, str | None, dict[str, Any]]]:
    """(model, item, metric, bounds) of every value a range claim states: `values` keyed by item, metric or model
    (a number is `about` it), else the claim's `size` for each of compare."""
    f = s.finding
    values = f.claim.get("values") or {}
    metrics = metrics_of(s)
    if not values:
        for model, item in pieces(s):
            for metric in metrics:
                yield model, item if item not in metrics else None, metric if item != metric else item, f.size
        return
    for key, v in values.items():
        if isinstance(v, dict) and not set(v) & set(BOUNDS):  # model → {metric: value}
            for metric, x in v.items():
                yield str(key), None, str(metric), bounds(x, f.size)
            continue
        key = str(key)
        if is_model(s, key) or key in s.covered_or_none():
            yield key, None, metrics[0], bounds(v, f.size)
        elif key in f.metrics():
            for model in per_model_or_pairs(s):
                yield model, None, key, bounds(v, f.size)
        else:
            for model in per_model(s):
                yield model, key, metrics[0] if metrics[0] != key else None, bounds(v, f.size)


def per_model_or_pairs(s: Scope) -> list[str | None]:
    """The models a stated value of each metric is read for: the improved side of each pair, or of the two models
    compared (a ratio's row is named by its thinking model: Think360 Fig. S4), else the models named or covered."""
    pairs = s.finding.claim.get("pairs")
    if pairs:
        return [str(a) for a, _ in pairs]
    named = [c for c in s.finding.compare if is_model(s, c)]
    if len(named) == 2 and any(m and m.endswith("_ratio") for m in s.finding.metrics()):
        return named[:1]
    return named or per_model(s)


def bounds(v: Any, size: dict[str, Any]) -> dict[str, Any]:
    return dict(v) if isinstance(v, dict) else {"about": v} if "equals" not in size else {"equals": v}


def value_range(s: Scope) -> Result:
    """range: each stated value (about, equals, between, above …) against ours; `lower` with a size: the
    difference compare[1] − compare[0] within it."""
    f = s.finding
    if f.direction in ("lower", "higher") and len(f.compare) == 2:
        return gap(s)
    t, said = Tally(), set()
    for model, item, metric, size in stated_values(s):
        for e in read(s, item, model, metric):
            result, text = size_test(e, size)
            t.add(result, e)
            said.add(text)
    return t.done(s, "each value " + "; ".join(sorted(said)) + " (its 95 % interval inside the band: holds; outside: "
                     "does not hold)")


def value_ratio(s: Scope) -> Result:
    """ratio: stated ratios (a table's ratio columns) against ours, or compare[0] / each of compare[1:] about the
    claim's size (× or, unit %, the relative change)."""
    f = s.finding
    if f.claim.get("values") and not f.size:
        return value_range(s)
    t, said = Tally(), ""
    for metric in metrics_of(s):
        for a, b, model in sides(s):
            r = ratio(value(s, a, model, metric), value(s, b, model, metric))
            if f.size.get("unit") == "%":
                r = Est(100 * (1 - r.value), 100 * (1 - r.hi), 100 * (1 - r.lo), f"1 − {r.what} (%)", r.how)
            result, said = size_test(r, f.size)
            t.add(result, r)
    return t.done(s, f"the ratio {said}")
