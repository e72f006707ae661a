"""Do two chemical names written in words name different species? Enough of the naming rules to tell.

A name built by the rules of nomenclature says what it names morpheme by morpheme: a stem (meth-, eth-,
nitr-, sulf-, chlor- …) and an ending (-ane, -ene, -ol, -al, -ate, -ite, -ide, -ic …), or an element's name.
Two answers written wholly as such names, word for word alike but for names that differ (ethane / ethene,
nitrate / nitrite, methanol / ethanol, sodium chloride / potassium chloride, carbon dioxide / carbon monoxide),
name different species. A name in another system (a trivial name: isopropanol for propan-2-ol, acetic acid for
ethanoic acid, table salt for sodium chloride) is not built from the same parts, so no rule here compares it:
only a reader can tell, and the careful judge leaves it undecided (judge/undecided.py).
"""
from __future__ import annotations

import re

from judge.text import fold, words

ELEMENT_NAMES = frozenset("""hydrogen helium lithium beryllium boron carbon nitrogen oxygen fluorine neon sodium
magnesium aluminum aluminium silicon phosphorus sulfur sulphur chlorine argon potassium calcium scandium titanium
vanadium chromium manganese iron cobalt nickel copper zinc gallium germanium arsenic selenium bromine krypton
rubidium strontium yttrium zirconium niobium molybdenum technetium ruthenium rhodium palladium silver cadmium
indium tin antimony tellurium iodine xenon cesium caesium barium lanthanum cerium platinum gold mercury thallium
lead bismuth polonium astatine radon francium radium actinium thorium uranium plutonium tungsten osmium iridium
deuterium tritium""".split())
# A systematic name: multiplying and other prefixes, a stem, anything, an ending (matched on the word as written).
_NAME = re.compile(
    r"^(?:mono|mon|di|tri|tetra|penta|hexa|per|hypo|bi|iso|neo|cyclo|hydro|thio)*"
    r"(?:meth|eth|prop|but|pent|hex|hept|oct|non|dec|benz|phen|nitr|sulf|sulph|chlor|brom|iod|fluor|carbon|carb"
    r"|phosph|ox|hydrox|cyan|mangan|chrom|silic|arsen|selen|amm|amin)"
    r"[a-z]*?(?:ane|an|ene|en|yne|yn|anol|ol|al|one|oic|oate|ate|ite|ide|amine|amide|yl|ium|ic|ous)$")
# Pieces of a name written apart ("propan-2-ol" is read as propan, 2, ol), and oxidation states: iron(III).
_PIECES = frozenset("ol al one ene yne yl amine amide oic ic ous".split())
_NUMERAL = re.compile(r"^(?:\d+|i|ii|iii|iv|v|vi|vii|viii)$")
# Words that say what kind of thing is named, compared by no rule here: "sulfuric acid", "sodium chloride solution".
CLASS_WORDS = frozenset("acid ion ions salt solution gas aqueous".split())


def _name_part(word: str) -> bool:
    return word in ELEMENT_NAMES or word in _PIECES or bool(_NUMERAL.match(word) or _NAME.match(word))


def _names(text: str) -> tuple[str, ...] | None:
    """The name words of a normalised text, folded, when every other word is a class word; None when the text
    says anything else."""
    found = []
    for w in words(text):
        if w in CLASS_WORDS:
            continue
        if not _name_part(w):
            return None
        found.append(fold(w))
    return tuple(found) or None


def different_species(pred: str, gold: str) -> str | None:
    """Why two normalised texts name different species (None when no rule here tells): both wholly names, word
    for word alike but for names that differ."""
    a, b = _names(pred), _names(gold)
    if a is None or b is None or len(a) != len(b) or a == b:
        return None
    return "names another species than the gold"
