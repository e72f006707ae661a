"""The unit written after a value: read, so that the same quantity in another unit is the same answer and a
changed unit another answer.

OMIBench C.1 compares numbers "after removing units", so 9.8 m s⁻¹ would answer 9.8 m s⁻², and 2500 m would not
answer 2.5 km. A careful grader reads the unit: when both answers state a unit we can read, they must be of the
same dimension, and their values are compared in one unit (2.5 km = 2500 m; 3 GHz = 3×10⁹ Hz; 27 °C = 300.15 K,
the offset scales converted as such; 5 mm is not 5 cm). The conversion factors come from pint's registry, not from
a table of ours; this module reads the spellings pint does not (m·s⁻², \\mathrm{m\\,s^{-2}}, J/(mol K), µ and Ω,
℃, words such as "meters") into pint's unit names. A unit we cannot read ("apples", "元"), or a unit on one side
only, leaves the answer to its value, as C.1 does — unless the question asks for a unit ("in cm"), which a bare
gold is then given (`compare`).

`split` also separates a unit from a closed form ("50/\\sqrt{2} m", "\\pi/3 rad"), which C.1's number
parser cannot read, so the value can be compared on its own.
"""
from __future__ import annotations

import math
import re
from contextvars import ContextVar
from functools import lru_cache
from typing import Callable, NamedTuple

import pint

from judge.numbers import numbers_close

# Dimensions: pint's base dimensions, and three quantities SI counts as none but an answer does not: angle, and
# temperatures in °C and °F (45 °C is not 45 K; the two convert with their offsets, `_temperature`).
_DIMS = ("[length]", "[mass]", "[time]", "[current]", "[temperature]", "[substance]", "[luminosity]", "angle",
         "degC", "degF")
_UREG = pint.UnitRegistry()

# Our spellings → pint's unit names; the prefixable ones take the prefixes below.
_PREFIXABLE = {
    "m": "meter", "g": "gram", "s": "second", "A": "ampere", "K": "kelvin", "mol": "mole", "L": "liter",
    "l": "liter", "N": "newton", "J": "joule", "W": "watt", "Pa": "pascal", "Hz": "hertz", "C": "coulomb",
    "V": "volt", "Ω": "ohm", "F": "farad", "T": "tesla", "Wb": "weber", "H": "henry", "S": "siemens",
    "eV": "electron_volt", "M": "molar", "bar": "bar", "cal": "calorie", "Da": "dalton", "Bq": "becquerel",
    "cd": "candela",
}
_PREFIXES = {"G": "giga", "M": "mega", "k": "kilo", "h": "hecto", "d": "deci", "c": "centi", "m": "milli",
             "µ": "micro", "n": "nano", "p": "pico", "f": "femto"}
_PLAIN = {
    "min": "minute", "h": "hour", "hr": "hour", "yr": "year", "atm": "atmosphere", "Torr": "torr", "torr": "torr",
    "mmHg": "millimeter_Hg", "Å": "angstrom", "rad": "radian", "°": "degree", "deg": "degree", "°C": "degC",
    "°F": "degF", "%": "percent", "ppm": "ppm", "kWh": "kilowatt_hour", "Wh": "watt_hour", "ohm": "ohm",
    "amu": "unified_atomic_mass_unit",
}
_ANGLES = {"radian", "degree"}
_WORD_PREFIXES = {"": "", "kilo": "kilo", "centi": "centi", "milli": "milli", "micro": "micro", "nano": "nano",
                  "mega": "mega"}
_WORDS = {"meter": "m", "metre": "m", "gram": "g", "liter": "L", "litre": "L", "second": "s", "joule": "J",
          "watt": "W", "volt": "V", "ampere": "A", "amp": "A", "newton": "N", "pascal": "Pa", "mole": "mol",
          "coulomb": "C", "ohm": "Ω", "hertz": "Hz", "kelvin": "K"}
_OTHER_WORDS = {"sec": "s", "secs": "s", "minute": "min", "minutes": "min", "hour": "h", "hours": "h",
                "degree": "°", "degrees": "°", "radian": "rad", "radians": "rad", "year": "yr", "years": "yr",
                "percent": "%", "atmosphere": "atm", "atmospheres": "atm", "calorie": "cal", "calories": "cal",
                "kcal": "kcal", "kilocalorie": "kcal", "kilocalories": "kcal"}


def _names() -> dict[str, str]:
    """Every spelling we read → the pint unit it names."""
    out = dict(_PLAIN)
    for symbol, name in _PREFIXABLE.items():
        out.setdefault(symbol, name)
        for prefix, word in _PREFIXES.items():
            out.setdefault(prefix + symbol, word + name)
    for word, symbol in _WORDS.items():
        for prefix, pint_prefix in _WORD_PREFIXES.items():
            for form in (prefix + word, prefix + word + "s"):
                out.setdefault(form, pint_prefix + _PREFIXABLE[symbol])
    for word, symbol in _OTHER_WORDS.items():
        out.setdefault(word, out[symbol])
    out["μm"] = out["µm"]  # Greek mu (U+03BC) as well as the micro sign
    return out


_UNITS = _names()
QUESTION: ContextVar[str] = ContextVar("question", default="")  # the question of the answer judged (judge.rules)


@lru_cache(maxsize=None)
def _scale(symbol: str) -> tuple[float, tuple[int, ...]]:
    """A spelling's scale in SI base units and its dimension, from pint (read once per spelling)."""
    name = _UNITS[symbol]
    if name in ("degC", "degF"):
        return 1.0, tuple(int(d == name) for d in _DIMS)
    base = _UREG.Quantity(1, name).to_base_units()
    powers = {**{str(k): int(v) for k, v in base.dimensionality.items()}, "angle": int(name in _ANGLES)}
    return float(base.magnitude), tuple(powers.get(d, 0) for d in _DIMS)


# Two units written without a space between them: "N m" as "Nm", "m s⁻¹" as "ms⁻¹" (where it is also
# "per millisecond": both readings are kept, and either may agree with the other answer's unit).
_PAIRS = {a + b: (a, b) for a, b in (("m", "s"), ("N", "m"), ("N", "s"), ("J", "s"), ("kg", "m"), ("Pa", "s"),
                                     ("W", "s"), ("V", "s"), ("A", "s"))}
_SYMBOL = "|".join(re.escape(u) for u in sorted(set(_UNITS) | set(_PAIRS), key=len, reverse=True))
_EXPONENT = r"\^\s*(?:\{\s*[+-]?\d+\s*\}|[+-]?\d)"
# A factor: a unit symbol (°C, then any symbol not followed by a letter) and its exponent.
_FACTOR = re.compile(rf"\s*(°\s*[CF]|{_SYMBOL})(?![A-Za-z])\s*({_EXPONENT})?\s*[·.*]?")
# Where a unit may start: after a space, or glued to a digit, a brace or a bracket when the unit is
# not a single letter ("5cm" has a unit, "3x" a variable).
_START = re.compile(r"(?<=\s)\S|(?<=[\d})\]])(?:[A-Za-zµμΩÅ°%]{2,}|[°%])")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\degree\b|℃|℉")
_LATEX_UNIT = {"\\Omega": "Ω", "\\mu": "µ", "\\%": "%", "μ": "µ", "\\AA": "Å", "\\angstrom": "Å"}
_LATEX_UNIT_RE = re.compile(r"\\Omega\b|\\mu\s*|\\%|μ|\\AA\b|\\angstrom\b")
_FRAC = re.compile(r"\\[dtc]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


class Unit(NamedTuple):
    """A unit as its SI scale and dimension, for each way of reading it: equal units are the same unit
    however written. `temperature`: pint's name of a unit that is one temperature scale alone (°C, °F, K), whose
    values convert with an offset."""

    readings: frozenset[tuple[float, tuple[int, ...]]]
    temperature: str | None = None

    def same(self, other: Unit) -> bool:
        return any(d1 == d2 and math.isclose(s1, s2, rel_tol=1e-9)
                   for s1, d1 in self.readings for s2, d2 in other.readings)

    def percent(self) -> bool:
        return self.readings == _PERCENT


def _spelled(text: str) -> str:
    """Degrees, Ω and µ in one spelling."""
    text = _DEGREE.sub(lambda m: {"℃": "°C", "℉": "°F"}.get(m.group(), "°"), text)
    return _LATEX_UNIT_RE.sub(lambda m: _LATEX_UNIT[m.group().strip()], text)


def _product(text: str, sign: int, readings: set) -> set | None:
    """Multiply in the factors of "kg m^2 s^{-1}" (to the power `sign`); None if a piece is not a unit.
    An exponent belongs to the last unit of a glued pair: "ms^{-1}" read as m·s⁻¹ is m s^{-1}."""
    pos = 0
    while pos < len(text):
        m = _FACTOR.match(text, pos)
        if not m:
            return None
        power = sign * (int(re.sub(r"[\^{}\s]", "", m.group(2))) if m.group(2) else 1)
        symbol = re.sub(r"\s+", "", m.group(1))
        factors = []  # (scale, dim) of each reading of this factor
        if symbol in _UNITS:
            scale, dim = _scale(symbol)
            factors.append((scale ** power, tuple(power * d for d in dim)))
        if symbol in _PAIRS:  # the exponent is the second unit's: "ms^{-1}" read as m s^{-1}
            (sa, da), (sb, db) = (_scale(u) for u in _PAIRS[symbol])
            factors.append((sa ** sign * sb ** power, tuple(sign * a + power * b for a, b in zip(da, db))))
        readings = {(s * fs, tuple(a + b for a, b in zip(d, fd))) for s, d in readings for fs, fd in factors}
        pos = m.end()
    return readings


def _read(text: str) -> Unit | None:
    """The unit a whole text writes ("m/s^2", "J/(mol K)", "M^{-1} s^{-1}"), or None when it is not one
    we can read. Everything after the one "/" (or "per") is the denominator: "J/mol K" is J/(mol·K)."""
    if not text.strip():
        return None
    text = _FRAC.sub(r"(\1)/(\2)", text)  # \frac{J}{mol K}
    pieces = re.split(r"/|\bper\b", text.replace("(", " ").replace(")", " "))
    if len(pieces) > 2 or not pieces[0].strip() and len(pieces) > 1:
        return None
    numerator = pieces[0].strip()
    readings: set | None = {(1.0, (0,) * len(_DIMS))}
    if not (numerator == "1" and len(pieces) == 2):
        readings = _product(numerator, 1, readings)
    if readings is not None and len(pieces) == 2:
        readings = _product(pieces[1].strip(), -1, readings) if pieces[1].strip() else None
    if readings is None:
        return None
    alone = re.sub(r"\s+", "", text)
    temperature = _UNITS[alone] if alone in ("°C", "°F", "K") else None
    return Unit(frozenset(readings), "kelvin" if temperature == "kelvin" else temperature)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


class Quantity(NamedTuple):
    value: str          # the text before the unit
    unit: Unit | None   # None when no unit we can read follows the value


@lru_cache(maxsize=100_000)
def split(text: str) -> Quantity:
    """The value and the unit of an answer (canonical text, see judge.match.canonical): the longest
    readable unit that ends the text and follows a value."""
    spelled = _spelled(text).rstrip(" .")
    if not re.search(r"[A-Za-zµΩÅ°%]", spelled):
        return Quantity(text, None)
    for m in _START.finditer(spelled):
        value, rest = spelled[:m.start()].rstrip(), spelled[m.start():].strip()
        if not re.search(r"(?:[\d})\]π]|\\pi)$", value) or not _balanced(value) or not _balanced(rest):
            continue  # "(2\sqrt{3}, 30°)": the bracket closes the value, not a unit
        unit = _read(rest)
        if unit is not None:
            return Quantity(value, unit)
    return Quantity(text, None)


def agree(pred: str, gold: str) -> bool:
    """False only when both answers state a readable unit and the units differ."""
    p, g = split(pred).unit, split(gold).unit
    return p is None or g is None or p.same(g)


_PERCENT = frozenset({(0.01, (0,) * len(_DIMS))})
# A question asking for a share, which a fraction (0.25) or a percentage (25 %) answers alike; and one asking for
# a percentage, whose number (25) may be given without its sign.
_SHARE = re.compile(r"\b(?:fraction|proportion|share|percentage|percent|probability|ratio of|rate)\b|%", re.I)
_PERCENTAGE = re.compile(r"\bpercent(?:age)?\b|%", re.I)
# "in cm", "(in kJ/mol)", "in units of m/s^2": the unit a question asks its answer in
_ASKED = re.compile(r"\bin\s+(?:units\s+of\s+)?([^\s,;:?()]+(?:\s+[^\s,;:?()]+){0,2})")


@lru_cache(maxsize=10_000)
def asked_unit(question: str) -> Unit | None:
    """The unit the question asks for ("in cm", "(in kJ/mol)"), when it names one we read; else None."""
    for m in _ASKED.finditer(_spelled(question)):
        words = m.group(1).rstrip(".").split()
        for n in range(len(words), 0, -1):  # "in cm and" → cm
            unit = _read(" ".join(words[:n]))
            if unit is not None and not unit.percent():
                return unit
    return None


def compare(pred: str, gold: str, value: Callable[[str], float | None]) -> bool | None:
    """Whether two answers (canonical text) state the same quantity, read by their units; None when the units
    do not decide (neither states one, a value is not a number, a unit on one side only). A bare gold takes the
    unit the question asks for; a percentage meets a fraction where the question asks for a share."""
    p, g = split(pred), split(gold)
    if p.unit is not None and g.unit is None and (asked := asked_unit(QUESTION.get())) is not None:
        g = Quantity(gold, asked)
    if p.unit is None and g.unit is None:
        return None
    pv, gv = value(p.value), value(g.value)
    if pv is None or gv is None:
        return None
    if p.unit is None or g.unit is None:
        return _share(pv, p.unit, gv, g.unit)
    return same_quantity(pv, p.unit, gv, g.unit)


def same_quantity(pv: float, pu: Unit, gv: float, gu: Unit) -> bool:
    """The value pv in pu against gv in gu: of one dimension and equal once converted (°C, °F and K with their
    offsets, by pint); another dimension is another answer."""
    if pu.temperature and gu.temperature and pu.temperature != gu.temperature:
        converted = _UREG.Quantity(pv, pu.temperature).to(gu.temperature).magnitude
        return numbers_close(float(converted), gv)
    pairs = [(ps, gs) for ps, pd in pu.readings for gs, gd in gu.readings if pd == gd]
    return any(numbers_close(pv * ps, gv * gs) for ps, gs in pairs)


def _share(pv: float, pu: Unit | None, gv: float, gu: Unit | None) -> bool | None:
    """A percentage on one side and a bare number on the other, where the question asks for a share: 25 % is
    0.25, and where it asks for a percentage 25 is 25 % too; "0.25 %" does not answer 0.25. None elsewhere."""
    question = QUESTION.get()
    unit = pu or gu
    if not unit.percent() or not _SHARE.search(question):
        return None
    percent, bare = (pv, gv) if pu is not None else (gv, pv)
    as_fraction = numbers_close(percent / 100, bare) if pu is not None else numbers_close(bare, percent / 100)
    return as_fraction or bool(_PERCENTAGE.search(question)) and numbers_close(percent, bare)
