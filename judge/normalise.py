"""Model text as a judge model reads it, for the injection flags (judge/injection.py).

A judge model reads through spelling: full-width and mathematical letters, accents, zero-width and bidi
characters, letters of other scripts that look Latin, a dash or a ratio sign where a colon was, text in
invisible Unicode tag characters, base64 or hex. `fold` gives the text with all of that read through (NFKD,
combining marks and invisible characters removed, look-alikes made Latin, tag characters made the ASCII they
encode), so that the flags match words, not code points; `fold_offsets` gives the same text with the place of
every character in the original, for the rare response whose flagged span must be found; `decoded` gives the
texts hidden in base64, hex and HTML character references. Accents go: the word lists are written without
them ("prufer", "evaluateur").
"""
from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from functools import lru_cache

# What a reader takes for a Latin letter (NFKD already maps full-width, mathematical and enclosed forms):
# Greek capitals, Cyrillic and Armenian look-alikes, Latin small capitals and the dotless i.
LETTER_AS = {**dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX")),
             **dict(zip("АВСЕНІЈКМОРЅТХУԚԜасеһіјорѕхуԁԛԝ", "ABCEHIJKMOPSTXYQWacehijopsxydqw")),
             **dict(zip("ՕՍօսհոզ", "OUouhnq")),
             **dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢı", "abcdefghijklmnoprstuvwyzi"))}
LETTERS = str.maketrans(LETTER_AS)
# ... and, in running text, Greek small letters, dashes, colons, equals signs, brackets, arrows and quotes of other
# blocks.
_SWAP = {**LETTER_AS, **dict(zip("αεικνορτυχ", "aeikvoptux")),
         **dict.fromkeys("‐‑‒–—―−⁃﹘﹣－⸺⸻➖", "-"), **dict.fromkeys("∶ː꞉︓﹕：׃܃܄᠄⁚˸⦂", ":"),
         **dict.fromkeys("꞊⩵＝≔", "="), **dict.fromkeys("«‹〈⟨《〈˂ᐸ❮⟪≪＜", "<"),
         **dict.fromkeys("»›〉⟩》〉˃ᐳ❯⟫≫＞→⟶⇒➔➜", ">"), **dict.fromkeys("“”„‟″〝〞＂", '"'),
         **dict.fromkeys("‘’‚‛′＇´", "'")}
_SWAP_RE = re.compile("[" + re.escape("".join(_SWAP)) + "]")
# Removed: combining marks (accents, after NFKD), variation selectors, zero-width and bidi controls, soft hyphen,
# Hangul fillers and the other format characters a model reads past.
_DROP = re.compile("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
                   "\ufe00-\ufe0f\U000e0100-\U000e01ef\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
                   "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0001\U000e007f]")
# Unicode tag characters spell ASCII invisibly (U+E0041 is an invisible "A"): read as the ASCII they encode.
_TAGS = re.compile("[\U000e0020-\U000e007e]+")


def _untag(m: re.Match) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in m.group())


def _fold(text: str) -> str:
    if text.isascii():
        return text
    text = _TAGS.sub(_untag, text)
    text = _DROP.sub("", unicodedata.normalize("NFKD", text))
    return _SWAP_RE.sub(lambda m: _SWAP[m.group()], text)


@lru_cache(maxsize=4096)  # each judge of a response folds it once, and three judges read most responses
def fold(text: str) -> str:
    """The text as a reader sees it, case kept (module doc). ASCII text is returned as it is."""
    return _fold(text)


_fold_char = lru_cache(maxsize=65_536)(_fold)


def fold_offsets(text: str) -> tuple[str, list[int]]:
    """`fold`, character by character, with the index in `text` of every character of the folded text (slow:
    for the few responses whose flagged span is looked for)."""
    pieces, where = [], []
    for i, c in enumerate(text):
        piece = c if c.isascii() else _fold_char(c)
        pieces.append(piece)
        where.extend([i] * len(piece))
    return "".join(pieces), where


# Runs that may hold an encoded text: base64 (standard or URL-safe) of 16 characters or more, hex of 8 bytes or
# more (plain or as \x escapes), HTML character references.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])|(?:\\x[0-9A-Fa-f]{2}){6,}")
_ENTITY = re.compile(r"&#?\w{1,8};")
_RUN = re.compile(r"[A-Za-z0-9+/_=-]{16}")


def decoded(text: str) -> list[tuple[int, str]]:
    """(place in `text`, decoded text) of every run that decodes to readable text: base64, hex, HTML character
    references. Readable: valid UTF-8, at least 90 % printable, with four letters or more; random runs (a long
    word, a hash, a number) almost never are."""
    out: list[tuple[int, str]] = []
    if not (_RUN.search(text) or "\\x" in text or "&" in text):  # none of them could be there
        return out
    for m in _BASE64.finditer(text):
        run = m.group().rstrip("=")
        if len(run) % 4 == 1:
            run = run[:-1]
        try:
            raw = base64.urlsafe_b64decode(run.replace("+", "-").replace("/", "_") + "=" * (-len(run) % 4))
        except (binascii.Error, ValueError):
            continue
        if (found := _readable(raw)) is not None:
            out.append((m.start(), found))
    for m in _HEX.finditer(text):
        if (found := _readable(bytes.fromhex(m.group().replace("\\x", "")))) is not None:
            out.append((m.start(), found))
    if "&" in text and (m := _ENTITY.search(text)):
        unescaped = html.unescape(text)
        if unescaped != text:
            out.append((m.start(), unescaped))
    return out


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\t\r" for c in text)
    letters = sum(c.isalpha() for c in text)
    return text if text and printable >= 0.9 * len(text) and letters >= 4 else None
