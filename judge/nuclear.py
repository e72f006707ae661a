"""Nuclear equations, and the nuclides and particles in them: ¹⁴₆C → ¹⁴₇N + e⁻.

A nuclide is its mass number and its element, written ^{14}_{6}C, {}^{14}_{6}\\mathrm{C}, _{6}^{14}C,
^{14}C or C-14: the atomic number follows from the element, and one written must agree with it. A
particle has one meaning however it is written: α = ^{4}_{2}He; β⁻ = e⁻ = ^{0}_{-1}e = ^{0}_{-1}β; β⁺ =
e⁺ = ^{0}_{+1}e; n = ^{1}_{0}n; p = ^{1}_{1}p = ^{1}_{1}H; γ; ν (νₑ) and ν̄. The terms of each side come
in any order, coefficients count (2n), and a term the gold writes in brackets, "(+ νₑ)", may be left
out, as may a neutrino, which is often not written (but ν never answers ν̄, and one the answer adds must
keep the lepton number). Texts are canonical (judge.match.canonical: every arrow is "→"; judge.extract.clean has written
superscripts as ^{…} and subscript digits as digits).
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from judge.chem import SYMBOLS

Nuclide = tuple[int, int, str]  # mass number, charge number, what it is (an element, e, n, γ, ν, ν̄)

_PARTICLES = {"α": (4, 2, "He"), "\\alpha": (4, 2, "He"), "n": (1, 0, "n"), "p": (1, 1, "H"),
              "γ": (0, 0, "γ"), "\\gamma": (0, 0, "γ")}
_ELECTRON = re.compile(r"(?:e|β|\\beta)(?:\^\{?([+-])\}?|([+-]))?")
_NEUTRINO = re.compile(r"(\\bar\{?|\\overline\{|)(?:ν|\\nu)(?:\})?(\u0304)?(?:_?\{?e\}?)?")
# A mass number with an atomic number after it (^{14}_{6}, ^{14}6 from ¹⁴₆) or before it (_{6}^{14}).
_NUMBERS = re.compile(r"^(?:\{\})?(?:\^\{?(\d+)\}?(?:_\{?([+-]?\d+)\}?|(\d+)(?=\D))?|_\{?([+-]?\d+)\}?\^\{?(\d+)\}?)")
NUCLEAR = re.compile(r"[αβγν]|\\(?:alpha|beta|gamma|nu)\b|\^\{?\d+\}?(?:_\{?[+-]?\d+\}?|\d+)?\s*[A-Za-z]"
                     r"|_\{?[+-]?\d+\}?\s*\^|\b[A-Z][a-z]?-\d+\b")


def _particle(name: str) -> Nuclide | None:
    """What a symbol without numbers names, or None."""
    if name in _PARTICLES:
        return _PARTICLES[name]
    if m := _ELECTRON.fullmatch(name):
        sign = m.group(1) or m.group(2)
        return (0, -1 if sign == "-" else 1, "e") if sign else None  # e, β: the charge number says which
    if m := _NEUTRINO.fullmatch(name):
        return 0, 0, "ν̄" if (m.group(1) or m.group(2)) else "ν"
    if name in SYMBOLS:
        return 0, SYMBOLS.index(name) + 1, name  # its mass number is written before it
    return None


@lru_cache(maxsize=100_000)
def term(text: str) -> Nuclide | None:
    """The nuclide or particle a term names, or None. Numbers written that disagree with what the symbol
    is make a term of its own, which answers nothing else."""
    s = re.sub(r"\s+", "", text)
    if m := re.fullmatch(r"([A-Z][a-z]?)-(\d+)", s):  # C-14
        s = f"^{{{m.group(2)}}}{m.group(1)}"
    m = _NUMBERS.match(s)
    mass = m and (m.group(1) or m.group(5))
    charge = m and (m.group(2) or m.group(3) or m.group(4))
    name = s[m.end():] if m else s
    known = _particle(name)
    if known is None and name in ("e", "β", "\\beta"):  # ^{0}_{-1}e, ^{0}_{+1}β, β alone (β⁻)
        known = (0, int(charge), "e") if charge else (0, -1, "e") if name != "e" else None
    if known is None:
        return None
    if known[2] in SYMBOLS and known[0] == 0:  # an element: a nuclide needs its mass number
        if not mass:
            return None
        known = (int(mass), known[1], known[2])
    written = (int(mass) if mass else known[0], int(charge) if charge else known[1])
    return known if written == known[:2] else (*written, known[2] + "?")


def _terms(side: str) -> tuple[Counter, Counter] | None:
    """The terms of one side, (coefficient, nuclide) counted, and those the side puts in brackets."""
    optional = Counter()
    for extra in re.findall(r"\(\s*\+\s*([^()]+?)\s*\)", side):
        found = term(extra)
        if found is None:
            return None
        optional[(1, found)] += 1
    side = re.sub(r"\(\s*\+\s*[^()]+?\s*\)", "", side)
    side = re.sub(r"(?<=[eβ])([+-])(?=\s|$)|\^([+-])(?![}\d])", lambda m: "^{" + (m.group(1) or m.group(2)) + "}", side)
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(side):
        depth += 1 if ch in "{([" else -1 if ch in "})]" else 0
        if ch == "+" and depth == 0:
            terms.append(side[start:i])
            start = i + 1
    counted = Counter()
    for text in terms + [side[start:]]:
        m = re.match(r"\s*(\d+)\s*(?=[A-Za-z\\αβγν^{])", text)
        found = term(text[m.end():] if m else text)
        if found is None:
            return None
        counted[(int(m.group(1)) if m else 1, found)] += 1
    return counted, optional


@lru_cache(maxsize=100_000)
def equation(text: str) -> tuple[tuple[Counter, Counter], tuple[Counter, Counter]] | None:
    """Both sides of a nuclear equation (canonical text), each its terms and its optional terms; None
    when the text is not one (two sides, every term a nuclide or a particle)."""
    sides = text.split("→")
    if len(sides) != 2 or not NUCLEAR.search(text):
        return None
    read = [_terms(side) for side in sides]
    return None if None in read else (read[0], read[1])  # type: ignore[return-value]


def _neutrinos(terms: Counter) -> tuple[Counter, Counter]:
    """(the terms without neutrinos, the neutrinos)."""
    nu = Counter({t: n for t, n in terms.items() if t[1][2] in ("ν", "ν̄")})
    return terms - nu, nu


def _leptons(side: tuple[Counter, Counter]) -> int:
    """Electron lepton number of a side's terms: e⁻ and ν count 1, e⁺ and ν̄ −1."""
    value = {(0, -1, "e"): 1, (0, 1, "e"): -1, (0, 0, "ν"): 1, (0, 0, "ν̄"): -1}
    return sum(n * coefficient * value.get(t, 0) for (coefficient, t), n in side[0].items())


def _same_side(pred: tuple[Counter, Counter], gold: tuple[Counter, Counter]) -> bool:
    """The same terms, but for the gold's optional ones; a neutrino may be left out on either side (it is
    often not written), but one written on both sides must be the same."""
    (p, p_nu), (g, g_nu) = _neutrinos(pred[0]), _neutrinos(gold[0])
    optional, optional_nu = _neutrinos(gold[1] + pred[1])
    if p_nu and (g_nu + optional_nu) and p_nu != g_nu + optional_nu:
        return False
    return not (g - p) and not ((p - g) - optional)


def same(pred: str, gold: str) -> bool | None:
    """Whether two answers (canonical text) are the same nuclear equation or the same nuclide or particle;
    None when they are not both one."""
    if not (NUCLEAR.search(gold) or NUCLEAR.search(pred)):
        return None
    g, p = equation(gold), equation(pred)
    if g is not None and p is not None:
        if any(_neutrinos(side[0])[1] for side in p) and _leptons(p[0]) != _leptons(p[1]):
            return False  # a neutrino the answer adds must be the right one: β⁻ decay gives ν̄, β⁺ ν
        return _same_side(p[0], g[0]) and _same_side(p[1], g[1])
    if g is not None or p is not None:
        return None
    a, b = term(pred), term(gold)
    return None if a is None or b is None else a == b
