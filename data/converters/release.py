"""The records of one release being converted, and every problem found in it.

A converter reports all the problems of a release in one run, then fails once: each item is
converted, its problems collected, and one DataError lists them all at the end.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from data.converters.fields import Item
from data.jsonl import DataError, problem


class Release:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.problems: list[str] = []  # also handed to readers that collect unparseable lines
        self._first: dict[str, str] = {}  # record id -> where it was first seen

    def add(self, item: Item, where: str, convert: Callable[..., dict[str, Any] | None], *args: Any,
            id_field: str = "id") -> dict[str, Any] | None:
        """Convert `item` with ``convert(item, *args)`` and keep its record.

        The converter reports problems on the item, or raises DataError; either way they are
        collected and the item yields no record. So does an id seen before: `where` says where
        this one stands (``at record 3``) for the message a later repeat gets.
        """
        rec = None
        if not isinstance(item.data, dict):
            item.fail("-", f"expected an object, got {type(item.data).__name__}")
        else:
            try:
                rec = convert(item, *args)
            except DataError as e:
                self.problems += e.problems
        self.problems += item.problems
        if rec is None or not item.ok:
            return None
        if rec["id"] in self._first:
            self.problems.append(item.problem(id_field, f"duplicate id {rec['id']!r} (first {self._first[rec['id']]})"))
            return None
        self._first[rec["id"]] = where
        self.records.append(rec)
        return rec

    def finish(self, source: str | Path | None = None) -> list[dict[str, Any]]:
        """The records, or DataError with every problem; with `source`, an empty release is one too."""
        if self.problems:
            raise DataError(self.problems)
        if source is not None and not self.records:
            raise DataError([problem(source, None, "-", "no records")])
        return self.records
