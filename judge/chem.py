"""Chemistry written in Unicode, in LaTeX or in mhchem: species, equations and electron configurations.

The same species is written H₂O, H_2O, H_{2}O, \\mathrm{H_2O} and \\ce{H2O}; SO₄²⁻, SO_4^{2-}, SO_4^{-2}
and \\ce{SO4^2-}; ·OH, •OH, OH^{•} and \\cdot OH (the radical dot). An equation's arrow may be →,
\\rightarrow, ⟶, ->, =, ⇌ or <=>, and its terms may come in any order on each side, but every species
and every coefficient must be the same, and the two sides stay apart. A species is compared as written
(C₂H₅OH is not CH₃OCH₃) except that the order of its atoms does not matter when it has one atom other
than hydrogen (HO• = •OH, NH₃ = H₃N), which cannot make an isomer, and that a small molecule written
atom by atom is the chain of its bonds read either way (NCO⁻ = OCN⁻, ClO⁻ = OCl⁻, HClO = HOCl), so
that another chain of the same atoms is an isomer (HNC is not HCN, fulminate CNO⁻ is not cyanate OCN⁻). Element symbols are checked where
"=" could also be an equation of mathematics.

An electron configuration is a count of electrons per subshell: [Ar] 3d⁶ 4s² = 1s² 2s² 2p⁶ 3s² 3p⁶ 4s²
3d⁶, subshells in any order, exponents as superscripts, ^, or plain digits.
"""
from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache

# The elements by atomic number (SYMBOLS[Z - 1]), and deuterium's own symbol.
SYMBOLS = tuple("""H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge
As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er
Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf
Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og""".split())
ELEMENTS = frozenset(SYMBOLS) | {"D"}

_ARROWS = r"→|⟶|⇌|⇄|⟷|↔|<=>|<->|->|\\rightleftharpoons|\\longrightarrow|\\rightarrow|\\to\b"
_ARROW = re.compile(rf"\s*(?:{_ARROWS}|(?<![=<>!])=(?![=>]))\s*")  # an equation's arrow, or "=" between sides
_STRICT_ARROW = re.compile(_ARROWS)
_DOT = "•·⋅∙"
_RADICAL = re.compile(rf"\\bullet|\\cdot|[{_DOT}]")
_STATE = re.compile(r"\((?:aq|s|l|g)\)$")
_CHARGE = re.compile(r"^(?:(\d*)([+\-])|([+\-])(\d*)|([+\-])+)$")
# A formula starts with an element or a bracket (a mass number before it): "2H2O" is a coefficient and
# a formula, never a formula.
_BODY = re.compile(r"(?:\^\{?\d+\}?)?(?:[A-Z][a-z]?|[(\[])(?:[A-Z][a-z]?|\d+|[()\[\]]|·\d*)*")
_OXIDATION_STATE = re.compile(r"\((?:I|II|III|IV|V|VI|VII|VIII|0)\)")
_TOKEN = re.compile(r"[A-Z][a-z]?|\d+|[()\[\]·]")
_COEFFICIENT = re.compile(r"^(\d+(?:\.\d+)?|\d+/\d+|\\[dt]?frac\{\d+\}\{\d+\})?\s*(.+)$")


def _charge(sup: str) -> tuple[int, bool] | None:
    """(charge, radical) of a superscript: "2-", "-2", "+", "•-", "-\\bullet", "."."""
    radical = bool(_RADICAL.search(sup) or "." in sup)
    sup = re.sub(rf"\\bullet|\\cdot|[{_DOT}.\s]", "", sup).replace("−", "-")
    if not sup:
        return (0, True) if radical else None
    m = _CHARGE.match(sup)
    if not m:
        return None
    if m.group(5):  # "++", "--"
        sign, size = m.group(5), len(sup)
    else:
        sign = m.group(2) or m.group(3)
        size = int(m.group(1) or m.group(4) or 1)
    return (size if sign == "+" else -size), radical


@lru_cache(maxsize=100_000)
def species(text: str) -> tuple[str, int, bool] | None:
    """A chemical species: its formula (subscripts as digits, mass numbers kept), charge and radical dot;
    None when the text is not one."""
    s = re.sub(r"\s+", "", text)
    s = re.sub(r"_\{?(\d+)\}?", r"\1", s).replace("−", "-")
    s = _STATE.sub("", s)
    charge, radical = 0, False
    m = re.search(r"\^\s*(\{[^{}]*\}|[0-9]*[+\-]|[+\-]|[.•·])$", s) or re.search(r"(?<=[A-Za-z)\]])([+\-])$", s)
    if m:
        read = _charge(m.group(1).strip("{}"))
        if read is None:
            return None
        charge, radical = read
        s = s[:m.start()]
    if s and s[0] in _DOT:
        radical, s = True, s[1:]
    elif s.startswith("\\cdot") or s.startswith("\\bullet"):
        radical, s = True, re.sub(r"^\\(?:cdot|bullet)", "", s)
    if s and s[-1] in _DOT:
        radical, s = True, s[:-1]
    s = re.sub(rf"[{_DOT}]", "·", s)
    if s == "e" and charge == -1:
        return "e", -1, False
    if not _BODY.fullmatch(s) or _OXIDATION_STATE.search(s):
        return None  # Fe(III) names an oxidation state, not iron and three iodine atoms
    return s, charge, radical


def _composition(formula: str) -> Counter | None:
    """Atoms per element of a formula as written: (CH3)2CO, [Fe(CN)6], CuSO4·5H2O; None if unreadable."""
    formula = re.sub(r"^\^\{?\d+\}?", "", formula)  # a mass number does not change the atoms
    total: Counter = Counter()
    for piece in formula.split("·"):  # a hydrate: each piece may start with its multiplier, "5H2O"
        m = re.match(r"(\d*)(.*)$", piece)
        tokens = _TOKEN.findall(m.group(2))
        stack: list[Counter] = [Counter()]
        for i, tok in enumerate(tokens):
            if tok.isdigit():
                continue  # read with the token before it
            count = int(tokens[i + 1]) if i + 1 < len(tokens) and tokens[i + 1].isdigit() else 1
            if tok in "([":
                stack.append(Counter())
            elif tok in ")]":
                if len(stack) == 1:
                    return None
                group = stack.pop()
                for element, n in group.items():
                    stack[-1][element] += n * count
            else:
                stack[-1][tok] += count
        if len(stack) != 1 or (m.group(2) and not tokens):
            return None
        for element, n in stack[0].items():
            total[element] += n * int(m.group(1) or 1)
    return total


def _key(sp: tuple[str, int, bool]) -> tuple:
    """What makes two written species the same: the formula as written, or its atoms when it has one
    atom other than hydrogen (no isomers)."""
    formula, charge, radical = sp
    atoms = _composition(formula)
    if atoms is not None and sum(n for el, n in atoms.items() if el not in ("H", "D")) <= 1:
        return tuple(sorted(atoms.items())), charge, radical
    return formula, charge, radical


def _terms(side: str) -> Counter | None:
    """The terms of one side of an equation, (coefficient, species key) counted."""
    side = re.sub(r"\^\s*([0-9]*[+\-])(?![}\w])", r"^{\1}", side)             # H^+ → H^{+}
    side = re.sub(r"(?<=[A-Za-z)\]])([+\-])(?=\s|$)", r"^{\1}", side)       # mhchem's H+ → H^{+}
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(side):
        depth += {"{": 1, "}": -1, "(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        if ch == "+" and depth == 0:
            terms.append(side[start:i])
            start = i + 1
    terms.append(side[start:])
    out: Counter = Counter()
    for term in terms:
        m = _COEFFICIENT.match(term.strip())
        if not m:
            return None
        sp = species(m.group(2))
        if sp is None:
            return None
        coefficient = m.group(1) or "1"
        if coefficient.startswith("\\"):  # \frac{1}{2}
            coefficient = "/".join(re.findall(r"\d+", coefficient))
        out[(Fraction(coefficient), _key(sp))] += 1  # 1/2 = 0.5
    return out


@lru_cache(maxsize=100_000)
def equation(text: str) -> tuple[Counter, Counter] | None:
    """The two sides of a chemical equation (canonical text, \\ce{} unwrapped), or None. Every symbol
    must be an element, so a sequence of steps "A → B" is not a reaction, and an equation written with
    "=" must write a sum or a number, so y = 2x + 1 and P = VI are left to mathematics."""
    sides = _ARROW.split(text)
    if len(sides) != 2 or not all(s.strip() for s in sides):
        return None
    left, right = _terms(sides[0]), _terms(sides[1])
    if left is None or right is None:
        return None
    if not set(re.findall(r"[A-Z][a-z]?", text)) <= ELEMENTS:
        return None  # "A → B" is a sequence of steps, not a reaction
    if not _STRICT_ARROW.search(text) and not re.search(r"[\d+]", text):
        return None  # "P = VI" is mathematics
    return left, right


# --------------------------------------------------------------------------------------------------
# Electron configurations
# --------------------------------------------------------------------------------------------------
_NOBLE = {"He": "1s2", "Ne": "[He] 2s2 2p6", "Ar": "[Ne] 3s2 3p6", "Kr": "[Ar] 3d10 4s2 4p6",
          "Xe": "[Kr] 4d10 5s2 5p6", "Rn": "[Xe] 4f14 5d10 6s2 6p6"}
_SUBSHELL = re.compile(r"(\d)([spdfg])(?:\^\s*\{?\s*(\d+)\s*\}?|(\d+))")
_CONFIG = re.compile(r"^(?:\[(He|Ne|Ar|Kr|Xe|Rn)\])?((?:[\s,·]*\d[spdfg](?:\^\s*\{?\s*\d+\s*\}?|\d+))*)\s*$")


@lru_cache(maxsize=10_000)
def configuration(text: str) -> frozenset | None:
    """Electrons per subshell of an electron configuration, or None when the text is not one."""
    m = _CONFIG.match(text.strip())
    if not m or not (m.group(1) or m.group(2).strip()):
        return None
    body = m.group(2)
    if re.search(r"\d[spdfg]\d+\d[spdfg]", re.sub(r"\s", "", body)) and not re.search(r"[\s,·^]", body):
        return None  # "1s22s2": plain digits need a space between subshells
    counts: Counter = Counter()
    if m.group(1):
        core = configuration(_NOBLE[m.group(1)])
        counts.update(dict(core))
    for n, l, caret, plain in _SUBSHELL.findall(body):
        counts[n + l] += int(caret or plain)
    return frozenset((k, v) for k, v in counts.items() if v)


def _elements_only(sp: tuple[str, int, bool]) -> bool:
    return sp[0] == "e" or set(re.findall(r"[A-Z][a-z]?", sp[0])) <= ELEMENTS


def _chemical(text: str) -> bool:
    """Written as chemistry, not as a word: a digit, a charge, a dot or two element symbols."""
    return bool(re.search(rf"\d|[+\-^{_DOT}]|\\cdot|\\bullet|[A-Z][a-z]?[A-Z]", text))


def same(pred: str, gold: str) -> bool | None:
    """Whether two answers (canonical text) are the same electron configuration, equation or species;
    None when they are not both one of these, or when only a chemist could tell (the same atoms in
    another order, with more than one atom other than hydrogen)."""
    if re.search(r"\d[spdf]", gold):
        a, b = configuration(pred), configuration(gold)
        if a is not None and b is not None:
            return a == b
    p_eq, g_eq = equation(pred), equation(gold)
    if p_eq is not None and g_eq is not None:
        return p_eq == g_eq
    if p_eq is not None or g_eq is not None:
        return None
    p, g = species(pred), species(gold)
    if p is None or g is None or not (_elements_only(p) and _elements_only(g)):
        return None
    if not (_chemical(pred) or _chemical(gold)):
        return None  # "Co" and "CO" are told apart only where the text is written as chemistry
    if _key(p) == _key(g):
        return True
    if p[1:] != g[1:] or _composition(p[0]) != _composition(g[0]):
        return False
    return _same_chain(p[0], g[0])


_HYPOHALOUS = re.compile(r"H(F|Cl|Br|I)O")  # HClO, written in the order of the oxyacids, is HOCl


def _chain(formula: str) -> tuple[str, ...] | None:
    """The atoms of a small molecule written one by one in the order they are bonded (2 to 4 atoms, no
    counts: HCN, OCN, HOCl), or None."""
    atoms = tuple(re.findall(r"[A-Z][a-z]?", _HYPOHALOUS.sub(r"HO\1", formula)))
    return atoms if 2 <= len(atoms) <= 4 and "".join(atoms) == _HYPOHALOUS.sub(r"HO\1", formula) else None


def _same_chain(pred: str, gold: str) -> bool | None:
    """The same atoms in another order: the same species when both are chains read in opposite directions
    (NCO⁻ = OCN⁻, OCl⁻ = ClO⁻), another one when they are chains bonded otherwise (HNC is not HCN, CNO⁻
    not OCN⁻); None for larger formulas, where only a chemist can tell."""
    a, b = _chain(pred), _chain(gold)
    if a is None or b is None:
        return None
    return a == b or a == b[::-1]
