"""One official item being converted: its fields under the release's own key spellings, read with type
checks, its problems as ``file:line: field: problem``, and what has no stable name kept for ``extra``."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from data.converters.values import by_letter, is_caption_list
from data.jsonl import DataError, problem


class Item:
    """An array element, a JSONL line or a table row of a release.

    Fields are looked up by name through `norm` (each release spells its keys its own way), or through
    `aliases` (normalised key -> field name) when several keys mean one field; two keys for one field
    are listed in `conflicts`. Every key read, aliased or in `known` is used; `extra()` is the rest.

    A problem is reported with `fail` (the item is converted on, so one run lists all its problems, and
    `ok` turns false) or raised with `error`. Its field is prefixed by `field_prefix` and its message by
    `label` (which item it is, when the line alone does not say).
    """

    def __init__(self, data: Any, path: str | Path, line: int | None, *, norm: Callable[[str], str] = str,
                 aliases: dict[str, str] | None = None, known: Iterable[str] = (), field_prefix: str = "",
                 label: str = ""):
        self.data = data
        self.path, self.line = path, line
        self.field_prefix, self.label = field_prefix, label
        self.problems: list[str] = []
        self.ok = True
        self.used: set[str] = set(known)
        self.conflicts: list[tuple[str, str, str]] = []  # (first key, second key, field)
        self._norm, self._aliased = norm, aliases is not None
        self._keys: dict[str, str] = {}
        for key in data if isinstance(data, dict) else ():
            if aliases is None:
                self._keys[norm(key)] = key
                continue
            field = aliases.get(norm(key))
            if field is None:
                continue
            self.used.add(key)
            if field in self._keys:
                self.conflicts.append((self._keys[field], key, field))
            else:
                self._keys[field] = key

    # ---------------------------------------------------------------- finding fields

    def key(self, name: str) -> str | None:
        """The release's key for field `name`, or None when the item has none."""
        return self._keys.get(name if self._aliased else self._norm(name))

    def get(self, name: str) -> tuple[str | None, Any]:
        """(release key, value) of field `name`, or (None, None); the key is used, not extra."""
        key = self.key(name)
        if key is None:
            return None, None
        self.used.add(key)
        return key, self.data[key]

    def value(self, name: str) -> Any:
        return self.get(name)[1]

    def claim(self, key: str) -> Any:
        """The value of the key spelled exactly `key`, which then is used, not extra."""
        self.used.add(key)
        return self.data[key]

    def to_extra(self, key: str) -> None:
        """Keep a key that was read in `extra` as well."""
        self.used.discard(key)

    def missing(self, *names: str) -> list[str]:
        """The names among `names` whose field is absent or null."""
        return [n for n in names if self.key(n) is None or self.data[self.key(n)] is None]

    def extra(self) -> dict[str, Any]:
        """Every official field not used, verbatim, in the release's order."""
        return {k: v for k, v in self.data.items() if k not in self.used}

    # ---------------------------------------------------------------- problems

    def problem(self, field: str, message: str) -> str:
        return problem(self.path, self.line, self.field_prefix + field,
                       f"{self.label}: {message}" if self.label else message)

    def fail(self, field: str, message: str) -> None:
        self.ok = False
        self.problems.append(self.problem(field, message))

    def error(self, field: str, message: str) -> DataError:
        return DataError([self.problem(field, message)])

    # ---------------------------------------------------------------- typed fields (problems by `fail`)

    def string(self, name: str) -> str | None:
        """Field `name` as text; None when absent or null, or after reporting another type."""
        key, value = self.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {type(value).__name__}")
            return None
        return value

    def text(self, name: str) -> str | None:
        """Field `name` as text that says something (a question): as `string`, and an empty text is reported."""
        value = self.string(name)
        if value is not None and not value.strip():
            self.fail(self.get(name)[0] or name, "empty")
            return None
        return value

    def identifier(self, name: str, numbers: str = "integer") -> str:
        """Field `name` as a record id: a non-empty string or a number (`numbers`: 'integer' or 'number')."""
        key, value = self.get(name)
        kinds = (str, int) if numbers == "integer" else (str, int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not str(value).strip():
            self.fail(key or name, f"expected a non-empty string or {numbers}, got {value!r}")
        return str(value)

    def options(self, name: str) -> list[str]:
        """Options from a list or {letter: option}; numbers become text; [] when absent."""
        key, value = self.get(name)
        if value is None:
            return []
        value = by_letter(value)
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (str, int, float))
                                              for v in value):
            self.fail(key, "expected a list of options (or {letter: option})")
            return []
        return [str(v) for v in value]

    def captions(self, name: str, n_images: int, images: str = "image(s)") -> list[str | None] | None:
        """One caption per image, from a string (one image) or a list; None when absent or wrong.

        The count is checked only while the item has no other problem (a missing image is the one
        to report then).
        """
        key, value = self.get(name)
        if value is None:
            return None
        caps = [value] if isinstance(value, str) else value
        if not is_caption_list(caps):
            self.fail(key, "expected a string or a list of strings")
            return None
        if self.ok and len(caps) != n_images:
            self.fail(key, f"{len(caps)} caption(s) for {n_images} {images}")
            return None
        return caps

    def images(self, name: str, base: Path, find: Callable[[str], Path | None], *, required: bool = True,
               index_one: bool = True) -> list[Path]:
        """The image files named by a path or a list of paths, each located by `find`.

        A path not found is reported as ``base / path``, under the field when it holds one path and
        under ``field[i]`` when it holds a list (a list of one too, unless not `index_one`).
        """
        key, value = self.get(name)
        listed = [value] if isinstance(value, str) else value
        if (not isinstance(listed, list) or (required and not listed)
                or not all(isinstance(p, str) and p for p in listed)):
            self.fail(key, f"expected a path or a list of paths, got {value!r}")
            return []
        single = isinstance(value, str) or (not index_one and len(listed) == 1)
        found = []
        for i, rel in enumerate(listed):
            path = find(rel)
            if path is None:
                self.fail(key if single else f"{key}[{i}]", f"image not found: {base / rel}")
            else:
                found.append(path)
        return found


def with_extra(rec: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`rec` with the official fields that have no stable name under ``extra``, which is left out when empty."""
    if extra:
        rec["extra"] = extra
    return rec
