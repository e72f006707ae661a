"""Official values that several releases write the same way: key spellings, answers, options, letters."""
from __future__ import annotations

import re
from typing import Any

from data.records import letters

# Between option letters in a gold such as "A, C", "(B)", "A/C".
LETTER_SEPARATORS = re.compile(r"[\s,;/()\[\]]+")


def spellings(fields: dict[str, list[str]]) -> dict[str, str]:
    """{field: [its key spellings]} turned round: each spelling -> the field it names."""
    return {key: field for field, keys in fields.items() for key in keys}


def norm_key(key: str) -> str:
    """A key as lower-case words joined by underscores: 'Answer Type' == 'answer_type'."""
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")


def squash(text: str) -> str:
    """Lower-case letters and digits only: 'Trial and error' == 'trial-and-error'."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def scalar_strings(value: Any) -> list[str] | None:
    """Answer values as strings: a string, a number, or a non-empty list of those; None otherwise."""
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in items):
        return None
    return [str(v) for v in items]


def by_letter(value: Any) -> Any:
    """Options given as {letter: option} become a list in letter order; anything else is returned as is."""
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return value


def is_caption_list(value: Any) -> bool:
    """A list holding a caption (text) or null for each image."""
    return isinstance(value, list) and all(c is None or isinstance(c, str) for c in value)


def is_letter_token(token: str) -> bool:
    """One letter (any case) or a run of distinct capitals ("AC"); not a word such as "square"."""
    if not (token.isascii() and token.isalpha()):
        return False
    return len(token) == 1 or (token.isupper() and len(set(token)) == len(token))


def split_letters(values: list[str], separators: re.Pattern[str] = LETTER_SEPARATORS) -> list[str] | None:
    """Option letters from MCQ golds, sorted and unique (["D", "C"] and ["CD"] both give ["C", "D"]).

    None when some gold is not made of option letters.
    """
    found: set[str] = set()
    for value in values:
        tokens = [t for t in separators.split(value.strip()) if t]
        if not tokens or not all(is_letter_token(t) for t in tokens):
            return None
        for token in tokens:
            found.update(token.upper())
    return sorted(found) or None


def beyond(picked: list[str], n_choices: int) -> bool:
    """Whether some picked letter names an option past the last of `n_choices`."""
    return any(p not in letters(n_choices) for p in picked)
