"""The unit written after a value: read, so that a changed unit makes another answer.

OMIBench C.1 compares numbers "after removing units", so 9.8 m s⁻¹ would answer 9.8 m s⁻². A careful
grader reads the unit too: when both answers state a unit we can read, they must be the same unit —
the same dimension and the same scale, however it is spelled (m·s⁻² = m/s² = m/s^2 = m s^-2 =
\\mathrm{m\\,s^{-2}}; mol/L = M; 2 moles = 2 mol; 5 cm is not 5 m). A unit we cannot read ("apples",
"元", "units"), or no unit on one side, leaves the answer to its value, as C.1 does. Values are never
converted: 50 cm and 0.5 m stay different numbers, as they are to C.1.

`split` also separates a unit from a closed form ("50/\\sqrt{2} m", "\\pi/3 rad"), which C.1's number
parser cannot read, so the value can be compared on its own.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import NamedTuple

# Dimensions: exponents of m, kg, s, A, K, mol, cd, and of three quantities SI counts as none but an
# answer does not: angle, and temperatures in °C and °F (45 °C is not 45 K).
_DIMS = ("m", "kg", "s", "A", "K", "mol", "cd", "rad", "degC", "degF")


def _dim(**powers: int) -> tuple[int, ...]:
    return tuple(powers.get(d, 0) for d in _DIMS)


# symbol → (scale in SI, dimension); the prefixable ones take the prefixes below
_PREFIXABLE = {
    "m": (1.0, _dim(m=1)), "g": (1e-3, _dim(kg=1)), "s": (1.0, _dim(s=1)), "A": (1.0, _dim(A=1)),
    "K": (1.0, _dim(K=1)), "mol": (1.0, _dim(mol=1)), "L": (1e-3, _dim(m=3)), "l": (1e-3, _dim(m=3)),
    "N": (1.0, _dim(kg=1, m=1, s=-2)), "J": (1.0, _dim(kg=1, m=2, s=-2)), "W": (1.0, _dim(kg=1, m=2, s=-3)),
    "Pa": (1.0, _dim(kg=1, m=-1, s=-2)), "Hz": (1.0, _dim(s=-1)), "C": (1.0, _dim(A=1, s=1)),
    "V": (1.0, _dim(kg=1, m=2, s=-3, A=-1)), "Ω": (1.0, _dim(kg=1, m=2, s=-3, A=-2)),
    "F": (1.0, _dim(kg=-1, m=-2, s=4, A=2)), "T": (1.0, _dim(kg=1, s=-2, A=-1)),
    "Wb": (1.0, _dim(kg=1, m=2, s=-2, A=-1)), "H": (1.0, _dim(kg=1, m=2, s=-2, A=-2)),
    "S": (1.0, _dim(kg=-1, m=-2, s=3, A=2)), "eV": (1.602176634e-19, _dim(kg=1, m=2, s=-2)),
    "M": (1e3, _dim(mol=1, m=-3)), "bar": (1e5, _dim(kg=1, m=-1, s=-2)), "cal": (4.184, _dim(kg=1, m=2, s=-2)),
    "Da": (1.66053906660e-27, _dim(kg=1)), "Bq": (1.0, _dim(s=-1)), "cd": (1.0, _dim(cd=1)),
}
_PREFIXES = {"G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2, "d": 1e-1, "c": 1e-2, "m": 1e-3, "µ": 1e-6, "n": 1e-9,
             "p": 1e-12, "f": 1e-15}
_PLAIN = {
    "min": (60.0, _dim(s=1)), "h": (3600.0, _dim(s=1)), "hr": (3600.0, _dim(s=1)), "yr": (3.15576e7, _dim(s=1)),
    "atm": (101325.0, _dim(kg=1, m=-1, s=-2)), "Torr": (133.322368, _dim(kg=1, m=-1, s=-2)),
    "torr": (133.322368, _dim(kg=1, m=-1, s=-2)), "mmHg": (133.322387, _dim(kg=1, m=-1, s=-2)),
    "Å": (1e-10, _dim(m=1)), "rad": (1.0, _dim(rad=1)), "°": (math.pi / 180, _dim(rad=1)),
    "deg": (math.pi / 180, _dim(rad=1)), "°C": (1.0, _dim(degC=1)), "°F": (1.0, _dim(degF=1)),
    "%": (1e-2, _dim()), "ppm": (1e-6, _dim()), "kWh": (3.6e6, _dim(kg=1, m=2, s=-2)),
    "Wh": (3600.0, _dim(kg=1, m=2, s=-2)), "ohm": (1.0, _PREFIXABLE["Ω"][1]), "amu": (1.66053906660e-27, _dim(kg=1)),
}
_WORD_PREFIXES = {"": 1.0, "kilo": 1e3, "centi": 1e-2, "milli": 1e-3, "micro": 1e-6, "nano": 1e-9, "mega": 1e6}
_WORDS = {"meter": "m", "metre": "m", "gram": "g", "liter": "L", "litre": "L", "second": "s", "joule": "J",
          "watt": "W", "volt": "V", "ampere": "A", "amp": "A", "newton": "N", "pascal": "Pa", "mole": "mol",
          "coulomb": "C", "ohm": "Ω", "hertz": "Hz", "kelvin": "K"}
_OTHER_WORDS = {"sec": "s", "secs": "s", "minute": "min", "minutes": "min", "hour": "h", "hours": "h",
                "degree": "°", "degrees": "°", "radian": "rad", "radians": "rad", "year": "yr", "years": "yr",
                "percent": "%", "atmosphere": "atm", "atmospheres": "atm", "calorie": "cal", "calories": "cal",
                "kcal": "kcal", "kilocalorie": "kcal", "kilocalories": "kcal"}


def _table() -> dict[str, tuple[float, tuple[int, ...]]]:
    out = dict(_PLAIN)
    for symbol, (scale, dim) in _PREFIXABLE.items():
        out.setdefault(symbol, (scale, dim))
        for prefix, factor in _PREFIXES.items():
            out.setdefault(prefix + symbol, (factor * scale, dim))
    for word, symbol in _WORDS.items():
        scale, dim = _PREFIXABLE[symbol]
        for prefix, factor in _WORD_PREFIXES.items():
            for form in (prefix + word, prefix + word + "s"):
                out.setdefault(form, (factor * scale, dim))
    for word, symbol in _OTHER_WORDS.items():
        out.setdefault(word, out[symbol])
    out["μ" + "m"] = out["µm"]  # Greek mu (U+03BC) as well as the micro sign
    return out


# Two units written without a space between them: "N m" as "Nm", "m s⁻¹" as "ms⁻¹" (where it is also
# "per millisecond": both readings are kept, and either may agree with the other answer's unit).
_UNITS = _table()
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
_LATEX_UNIT = {"\\Omega": "Ω", "\\mu": "µ", "\\%": "%", "μ": "µ"}
_LATEX_UNIT_RE = re.compile(r"\\Omega\b|\\mu\s*|\\%|μ")
_FRAC = re.compile(r"\\[dtc]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


class Unit(NamedTuple):
    """A unit as its SI scale and dimension, for each way of reading it: equal units are the same unit
    however written."""

    readings: frozenset[tuple[float, tuple[int, ...]]]

    def same(self, other: Unit) -> bool:
        return any(d1 == d2 and math.isclose(s1, s2, rel_tol=1e-9)
                   for s1, d1 in self.readings for s2, d2 in other.readings)


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
            scale, dim = _UNITS[symbol]
            factors.append((scale ** power, tuple(power * d for d in dim)))
        if symbol in _PAIRS:  # the exponent is the second unit's: "ms^{-1}" read as m s^{-1}
            (sa, da), (sb, db) = (_UNITS[u] for u in _PAIRS[symbol])
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
    return None if readings is None else Unit(frozenset(readings))


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
