"""Human error labels: data/external/<bench>/error_labels.csv (the README there describes the format), one
row per response and annotator, read strictly against the benchmark's taxonomy (judge/taxonomy.py). They
take precedence over a labelling judge's where present (analysis/labels.py)."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from data.jsonl import DataError, problem
from judge.taxonomy import TAXONOMIES, Taxonomy


@dataclass(frozen=True)
class HumanLabel:
    annotator: str
    labels: tuple[str, ...]      # class slugs; () = the annotator found no error
    subtypes: tuple[str, ...] = ()
    note: str = ""


LabelKey = tuple[str, str, str, int]  # model, setting, id, sample_idx
REQUIRED = ("model", "setting", "id", "annotator", "labels")
COLUMNS = REQUIRED + ("sample_idx", "subtypes", "note")


def human_labels(path: Path, bench: str | None = None) -> dict[LabelKey, list[HumanLabel]]:
    """Every response's human labels, one entry per annotator, checked against the benchmark's taxonomy
    (`bench`, else the folder's name). Problems are a DataError naming file, line and column."""
    path = Path(path)
    bench = bench or path.parent.name
    if bench not in TAXONOMIES:
        raise DataError([problem(path, None, "benchmark", f"no error taxonomy for {bench!r} "
                                                          f"(known: {', '.join(TAXONOMIES)})")])
    tax = TAXONOMIES[bench]
    out: dict[LabelKey, list[HumanLabel]] = {}
    errors: list[str] = []
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.DictReader(f)
        header = rows.fieldnames or []
        missing = [c for c in REQUIRED if c not in header]
        unknown = [c for c in header if c not in COLUMNS]
        if missing or unknown:
            what = "; ".join(f"{name} column(s) {cols}" for name, cols in (("missing", missing), ("unknown", unknown))
                             if cols)
            raise DataError([problem(path, 1, "header", f"{what} (columns: {', '.join(COLUMNS)})")])
        for line, row in enumerate(rows, start=2):
            found = _human_row(tax, row, lambda col, msg, ln=line: errors.append(problem(path, ln, col, msg)))
            if found is None:
                continue
            key, label = found
            if any(h.annotator == label.annotator for h in out.get(key, [])):
                errors.append(problem(path, line, "annotator", f"{label.annotator!r} labels {key} twice"))
            out.setdefault(key, []).append(label)
    if errors:
        raise DataError(errors)
    return out


def _human_row(tax: Taxonomy, row: dict[str, str | None], err: Callable[[str, str], None]
               ) -> tuple[LabelKey, HumanLabel] | None:
    cell = {k: (row.get(k) or "").strip() for k in COLUMNS}
    ok = True
    for col in ("model", "setting", "id", "annotator"):
        if not cell[col]:
            err(col, "empty")
            ok = False
    idx = cell["sample_idx"] or "0"
    if not idx.isdigit():
        err("sample_idx", f"{idx!r} is not a sample index (0, 1, …)")
        ok = False
    pieces = [p.strip() for p in cell["labels"].split(";") if p.strip()]
    labels = [tax.label(p) for p in pieces]
    for p, slug in zip(pieces, labels):
        if slug == "":
            err("labels", f"{p!r}: leave the cell empty for a response with no error")
            ok = False
        elif slug is None:
            err("labels", f"{p!r} is not one of {', '.join(c.slug for c in tax.classes)}")
            ok = False
    if len(pieces) > 1 and not tax.multi:
        err("labels", f"{tax.bench} takes one label per response, got {len(pieces)}")
        ok = False
    subs = [p.strip() for p in cell["subtypes"].split(";") if p.strip()]
    slugs = [tax.subtype(p) for p in subs]
    for p, s in zip(subs, slugs):
        if not s:
            err("subtypes", f"{p!r} is not a subtype of {tax.bench}")
            ok = False
        elif tax.parent(s) not in labels:
            err("subtypes", f"{p!r} is a subtype of {tax.parent(s)}, which the row does not label")
            ok = False
    if not ok:
        return None
    key = (cell["model"], cell["setting"], cell["id"], int(idx))
    return key, HumanLabel(cell["annotator"], tuple(dict.fromkeys(labels)), tuple(dict.fromkeys(slugs)), cell["note"])
