"""Does one text answer contradict another by its words? The rules a careful grader applies without reading.

Two answers in words that are not the same phrase (judge/text.py) may still say the same thing ("stays the same"
for "unchanged"), which only a reader can tell. Some differences are contradictions whatever else the words say,
and these decide the answer wrong:
- a negation of the same phrase: "not", "never", "cannot", a negating prefix (possible / impossible, polar /
  nonpolar, clockwise / counterclockwise, changed / unchanged), counted so that "does not change" is no
  contradiction of "unchanged";
- words of classes that exclude each other (`GROUPS`): directions (increases / decreases / stays the same),
  antonyms (exothermic / endothermic, oxidised / reduced), quantifiers (all / some / only), frequencies, yes and
  no, colours, sides — when each answer uses the group and they share no class, or when one such word takes the
  other's place;
- a qualifier added or dropped ("only", "more", "not");
- the same words in another order (an assignment or a sequence changed), unless the question asks for a set.
Word forms are compared folded (judge.text.fold), so "increases", "increased" and "increasing" are one word.
"""
from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache

from judge.text import FILLERS, fold, folded

# Words that negate what follows, and prefixes that negate the word they start (checked only against the same
# word on the other side: "important" is not "portant" negated).
NEGATORS = frozenset(fold(w) for w in "not no never none nor neither without non counter anti 不 没 无 非 未 否".split())
NEGATING_PREFIXES = ("counter", "anti", "non", "dis", "un", "in", "im", "il", "ir")
AUXILIARIES = frozenset(fold(w) for w in "do does did will would shall should can could may might must has have had "
                                       "been being".split())

# Each group: classes of words that exclude each other (one line per class, words as written; folded below).
_GROUPS = {
    "direction": ["increase increasing rise rising grow raise gain expand higher high greater larger large bigger "
                  "big more up upward ascend elevate strengthen accelerate 增 升 高 大 多 上",
                  "decrease decreasing fall falling drop decline reduce lower low less fewer smaller small "
                  "shrink diminish weaken lessen decelerate down downward descend lose 减 降 低 小 少 下",
                  "unchanged same constant steady unaffected unaltered"],
    "sameness": ["same identical equal", "different distinct unequal"],
    "yes / no": ["yes true correct 是 对 正确", "no false incorrect 否 错 错误"],
    "quantity": ["all every each both entire whole", "none neither nothing", "some several partial partly",
                 "only solely exclusively", "most majority"],
    "frequency": ["always", "never", "sometimes occasionally", "usually often"],
    "heat": ["exothermic exergonic", "endothermic endergonic"],
    "water": ["hydrophilic polar", "hydrophobic lipophilic"],
    "redox": ["oxidation oxidized oxidize oxidizing oxidant oxidised oxidise oxidising",
              "reduction reduced reducing reductant"],
    "acidity": ["acid acidic", "base basic alkaline", "neutral"],
    "sign": ["positive", "negative"],
    "extremum": ["maximum max maximal", "minimum min minimal"],
    "force": ["attract attraction attractive", "repel repulsion repulsive"],
    "side": ["left 左", "right 右"],
    "vertical": ["above top upper", "below bottom beneath"],
    "place": ["inside inner interior internal within", "outside outer exterior external"],
    "time": ["before earlier prior", "after later"],
    "rank": ["first", "second", "third", "last"],
    "orientation": ["horizontal", "vertical"],
    "connection": ["series", "parallel"],
    "geometry": ["parallel", "perpendicular"],
    "curvature": ["convex", "concave"],
    "parity": ["odd", "even"],
    "heredity": ["dominant", "recessive"],
    "zygosity": ["homozygous", "heterozygous"],
    "respiration": ["aerobic", "anaerobic"],
    "isomer": ["cis", "trans"],
    "electrode": ["anode", "cathode"],
    "ion": ["cation", "anion"],
    "state": ["solid", "liquid", "gas gaseous"],
    "compass": ["north northern", "south southern", "east eastern", "west western"],
    "shape": ["circle circular", "sphere spherical", "square", "cube cubic", "rectangle rectangular",
              "triangle triangular", "tetrahedron tetrahedral", "octahedron octahedral", "pyramid", "prism",
              "cylinder cylindrical", "cone conical", "pentagon pentagonal", "hexagon hexagonal", "ellipse",
              "rhombus", "trapezoid trapezium"],
    "colour": ["red", "orange", "yellow", "green", "blue", "purple violet", "black", "white", "pink", "brown",
               "gray grey"],
    "energy": ["absorb absorbs absorption absorbed", "release emit emission released"],
    "regulation": ["activate activation activator excitatory", "inhibit inhibition inhibitor inhibitory"],
}
GROUPS: dict[str, list[frozenset[str]]] = {
    name: [frozenset(fold(w) for w in line.split()) for line in lines] for name, lines in _GROUPS.items()}
_CLASSES = {w: frozenset((g, i) for g, cs in GROUPS.items() for i, c in enumerate(cs) if w in c)
            for cs in GROUPS.values() for c in cs for w in c}
QUALIFIERS = frozenset(w for g in ("direction", "quantity", "frequency") for c in GROUPS[g] for w in c) | NEGATORS


@lru_cache(maxsize=100_000)
def contradiction(pred: str, gold: str, unordered: bool = False) -> str | None:
    """What contradicts the gold in a predicted answer, both normalised texts (judge.match.normalize_text); None
    when no rule finds a contradiction. `unordered`: the question asks for a set, so order says nothing."""
    a, b = _content(folded(pred)), _content(folded(gold))
    return (_negated(a, b) or _excluding_classes(a, b) or _qualifier_changed(a, b)
            or (None if unordered else _reordered(a, b)))


def _content(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in FILLERS)


def _without_negations(side: tuple[str, ...], other: frozenset[str]) -> tuple[int, tuple[str, ...]]:
    """How many negations a text makes, and its words without them (nor auxiliaries): a negating prefix counts
    where the word without it is a word of the other text."""
    count, core = 0, []
    for w in side:
        if w in NEGATORS:
            count += 1
            continue
        if w in AUXILIARIES:
            continue
        base = next((w[len(p):] for p in NEGATING_PREFIXES if w.startswith(p) and len(w) - len(p) >= 4
                     and w not in other and w[len(p):] in other), None)
        count += base is not None
        core.append(base or w)
    return count, tuple(core)


def _negated(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    (na, ca), (nb, cb) = _without_negations(a, frozenset(b)), _without_negations(b, frozenset(a))
    if ca == cb and na % 2 != nb % 2:
        return "a negation of the gold"
    return None


def _classes(words: tuple[str, ...], group: str) -> set[int]:
    return {i for w in words for g, i in _CLASSES.get(w, ()) if g == group}


def _excluding_classes(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """Words of one group in both answers, of classes they do not share; or one such word in the place of
    another of another class."""
    for group in GROUPS:
        ca, cb = _classes(a, group), _classes(b, group)
        if ca and cb and not ca & cb:
            return f"{group} words that exclude the gold's"
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1:
            for x, y in zip(a[i1:i2], b[j1:j2]):
                if x in _CLASSES and y in _CLASSES and not _CLASSES[x] & _CLASSES[y]:
                    return f"{x!r} in the place of the gold's {y!r}"
    return None


def _qualifier_changed(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """The same words but for qualifiers added or dropped ("only", "more", "never")."""
    ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops or any(op[0] == "replace" for op in ops):
        return None
    changed = {w for _, i1, i2, j1, j2 in ops for w in a[i1:i2] + b[j1:j2]}
    return "a qualifier added to or dropped from the gold" if changed & QUALIFIERS else None


def _reordered(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    if len(a) > 1 and a != b and sorted(a) == sorted(b):
        return "the gold's words in another order"
    return None
