"""The unit written after a value: read, and converted by pint, so that 2.5 km answers 2500 m.

OMIBench C.1 compares numbers "after removing units", so 9.8 m s⁻¹ would answer 9.8 m s⁻². A careful
grader reads the unit too: when both answers state a unit we can read, they must state the same
quantity — the same dimension, and the same value once written in one unit (2.5 km = 2500 m, 27 °C =
300.15 K, 90° = π/2 rad), however the unit is spelled (m·s⁻² = m/s² = m/s^2 = m s^-2 =
\\mathrm{m\\,s^{-2}}; mol/L = M; 2 moles = 2 mol). A unit we cannot read ("apples", "元", "units"), or
no unit on one side, leaves the answer to its value, as C.1 does (judge/quantities.py adds what the
question says: the unit it asks for, and percent for a proportion).

The spellings answers use (LaTeX, Unicode exponents, µ and μ, Ω, ℃, words such as "meters", units
glued together: "Nm", "ms⁻¹") are read here into pint's names; pint supplies every scale, offset and
dimension. pint counts angles as no dimension; here an angle is one, so 45° is not 45 % nor 45.

`split` also separates a unit from a closed form ("50/\\sqrt{2} m", "\\pi/3 rad"), which C.1's number
parser cannot read, so the value can be compared on its own.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import NamedTuple

import pint

UREG = pint.UnitRegistry()  # built once (a tenth of a second): forked judge workers inherit it

# The symbols written after a value, as pint names them. The prefixable ones take the prefixes below
# ("km", "µmol", "GHz"); a plain symbol wins over a prefixed reading of the same letters ("h" is an hour,
# not a prefix; "min" is not milli-inch).
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
    "min": "minute", "h": "hour", "hr": "hour", "yr": "year", "atm": "atmosphere", "Torr": "torr",
    "torr": "torr", "mmHg": "millimeter_Hg", "Å": "angstrom", "rad": "radian", "°": "degree", "deg": "degree",
    "°C": "degC", "°F": "degF", "%": "percent", "ppm": "ppm", "kWh": "kilowatt_hour", "Wh": "watt_hour",
    "ohm": "ohm", "amu": "amu",
}
_WORD_PREFIXES = ("", "kilo", "centi", "milli", "micro", "nano", "mega")
_WORDS = {"meter": "meter", "metre": "meter", "gram": "gram", "liter": "liter", "litre": "liter",
          "second": "second", "joule": "joule", "watt": "watt", "volt": "volt", "ampere": "ampere",
          "amp": "ampere", "newton": "newton", "pascal": "pascal", "mole": "mole", "coulomb": "coulomb",
          "ohm": "ohm", "hertz": "hertz", "kelvin": "kelvin"}
_OTHER_WORDS = {"sec": "s", "secs": "s", "minute": "min", "minutes": "min", "hour": "h", "hours": "h",
                "degree": "°", "degrees": "°", "radian": "rad", "radians": "rad", "year": "yr", "years": "yr",
                "percent": "%", "atmosphere": "atm", "atmospheres": "atm", "calorie": "cal", "calories": "cal",
                "kcal": "kcal", "kilocalorie": "kcal", "kilocalories": "kcal"}
_ANGLES = frozenset({"radian", "degree"})
_OFFSET = {"degC": "delta_degC", "degF": "delta_degF"}  # inside a product a degree is a difference: J/(g °C)


def _table() -> dict[str, str]:
    """Every spelling read as a unit → pint's name for it."""
    out = dict(_PLAIN)
    for symbol, name in _PREFIXABLE.items():
        out.setdefault(symbol, name)
        for prefix, prefix_name in _PREFIXES.items():
            out.setdefault(prefix + symbol, prefix_name + name)
    for word, name in _WORDS.items():
        for prefix in _WORD_PREFIXES:
            for form in (prefix + word, prefix + word + "s"):
                out.setdefault(form, prefix + name)
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
# "degrees Celsius", "Celsius", "deg F": the temperature scales written as words
_SCALE_WORD = re.compile(r"(?:°\s*|\bdeg(?:ree)?s?\s+)?\b(Celsius|Fahrenheit)\b|\bdeg(?:ree)?s?\s+([CF])\b", re.I)
_LATEX_UNIT = {"\\Omega": "Ω", "\\mu": "µ", "\\%": "%", "μ": "µ", "\\AA": "Å", "\\angstrom": "Å"}
_LATEX_UNIT_RE = re.compile(r"\\Omega\b|\\mu\s*|\\%|μ|\\AA\b|\\angstrom\b")
_FRAC = re.compile(r"\\[dtc]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")

Factors = tuple[tuple[str, int], ...]  # (pint name, power) of each unit a reading multiplies


class Reading(NamedTuple):
    """One way of reading a written unit, as pint gives it."""

    expr: str               # pint's spelling: "kilometer ** 1 * second ** -2"
    scale: float            # its size in SI base units (°C and °F: of one degree)
    offset: float           # the SI value of its zero: 273.15 K for °C, else 0
    dims: tuple             # pint's dimensionality, and the power of angle (which pint counts as none)


@lru_cache(maxsize=4096)
def _pint_unit(expr: str) -> pint.Unit:
    return UREG.parse_units(expr)


@lru_cache(maxsize=4096)
def _reading(factors: Factors) -> Reading | None:
    """What pint makes of a product of units; None if it cannot read it. A lone °C or °F keeps its
    offset (27 °C is 300.15 K); inside a product it is a difference of temperature, as K is."""
    if len(factors) != 1 or factors[0][1] != 1:
        factors = tuple((_OFFSET.get(name, name), power) for name, power in factors)
    expr = " * ".join(f"{name} ** {power}" for name, power in factors)
    try:
        unit = _pint_unit(expr)
        zero = UREG.Quantity(0.0, unit).to_base_units()
        one = UREG.Quantity(1.0, unit).to_base_units()
    except (pint.PintError, ValueError, KeyError, AttributeError):
        return None
    angle = sum(power for name, power in factors if name in _ANGLES)
    dims = (tuple(sorted((d, float(p)) for d, p in one.dimensionality.items() if p)), angle)
    return Reading(expr, one.magnitude - zero.magnitude, zero.magnitude, dims)


class Unit(NamedTuple):
    """A unit, once for each way of reading it (pint's scale, offset and dimension): equal units are the
    same unit however written."""

    readings: frozenset[Reading]

    def same(self, other: Unit) -> bool:
        """The same unit: the same dimension, scale and zero."""
        return any(a.dims == b.dims and math.isclose(a.scale, b.scale, rel_tol=1e-9)
                   and math.isclose(a.offset, b.offset, rel_tol=1e-9, abs_tol=1e-12)
                   for a in self.readings for b in other.readings)

    def percent(self) -> bool:
        """The unit is "%" (and nothing else)."""
        return any(r.expr == "percent ** 1" for r in self.readings)


def in_unit(value: float, unit: Unit, target: Unit) -> list[float]:
    """`value` (written in `unit`) written in `target`, converted by pint (offsets included: 27 °C is
    300.15 K), once for each pair of readings of the same dimension; [] when there is none."""
    out = []
    for a in unit.readings:
        for b in target.readings:
            if a.dims != b.dims:
                continue
            if a.expr == b.expr:
                out.append(value)
                continue
            try:
                out.append(UREG.Quantity(value, _pint_unit(a.expr)).to(_pint_unit(b.expr)).magnitude)
            except pint.PintError:
                continue
    return out


def spelled(text: str) -> str:
    """Degrees, temperature scales, Ω and µ in one spelling."""
    text = _DEGREE.sub(lambda m: {"℃": "°C", "℉": "°F"}.get(m.group(), "°"), text)
    text = _SCALE_WORD.sub(lambda m: "°" + (m.group(1) or m.group(2))[0].upper(), text)
    return _LATEX_UNIT_RE.sub(lambda m: _LATEX_UNIT[m.group().strip()], text)


def _product(text: str, sign: int, readings: set[Factors]) -> set[Factors] | None:
    """Multiply in the factors of "kg m^2 s^{-1}" (to the power `sign`); None if a piece is not a unit.
    An exponent belongs to the last unit of a glued pair: "ms^{-1}" read as m·s⁻¹ is m s^{-1}."""
    pos = 0
    while pos < len(text):
        m = _FACTOR.match(text, pos)
        if not m:
            return None
        power = sign * (int(re.sub(r"[\^{}\s]", "", m.group(2))) if m.group(2) else 1)
        symbol = re.sub(r"\s+", "", m.group(1))
        factors: list[Factors] = []  # each reading of this factor
        if symbol in _UNITS:
            factors.append(((_UNITS[symbol], power),))
        if symbol in _PAIRS:  # the exponent is the second unit's: "ms^{-1}" read as m s^{-1}
            first, second = _PAIRS[symbol]
            factors.append(((_UNITS[first], sign), (_UNITS[second], power)))
        readings = {reading + factor for reading in readings for factor in factors}
        pos = m.end()
    return readings


def read(text: str) -> Unit | None:
    """The unit a whole text writes ("m/s^2", "J/(mol K)", "M^{-1} s^{-1}"), or None when it is not one
    we can read. Everything after the one "/" (or "per") is the denominator: "J/mol K" is J/(mol·K)."""
    if not text.strip():
        return None
    text = _FRAC.sub(r"(\1)/(\2)", text)  # \frac{J}{mol K}
    pieces = re.split(r"/|\bper\b", text.replace("(", " ").replace(")", " "))
    if len(pieces) > 2 or not pieces[0].strip() and len(pieces) > 1:
        return None
    numerator = pieces[0].strip()
    readings: set[Factors] | None = {()}
    if not (numerator == "1" and len(pieces) == 2):
        readings = _product(numerator, 1, readings)
    if readings is not None and len(pieces) == 2:
        readings = _product(pieces[1].strip(), -1, readings) if pieces[1].strip() else None
    if not readings:
        return None
    read_by_pint = frozenset(r for r in map(_reading, readings) if r is not None)
    return Unit(read_by_pint) if read_by_pint else None


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
    text_spelled = spelled(text).rstrip(" .")
    if not re.search(r"[A-Za-zµΩÅ°%]", text_spelled):
        return Quantity(text, None)
    for m in _START.finditer(text_spelled):
        value, rest = text_spelled[:m.start()].rstrip(), text_spelled[m.start():].strip()
        if not re.search(r"(?:[\d})\]π]|\\pi)$", value) or not _balanced(value) or not _balanced(rest):
            continue  # "(2\sqrt{3}, 30°)": the bracket closes the value, not a unit
        unit = read(rest)
        if unit is not None:
            return Quantity(value, unit)
    return Quantity(text, None)
