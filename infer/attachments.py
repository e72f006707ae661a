"""Attached files (C²RBench) as text the model can read: tables as CSV, PDFs as their text."""
from __future__ import annotations

import csv
import io
from functools import lru_cache
from pathlib import Path

from data.files import file_version

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"}


class AttachmentError(ValueError):
    pass


def _xlsx_text(path: Path) -> str:
    from openpyxl import load_workbook

    wb = load_workbook(path, read_only=True, data_only=True)
    parts = []
    for ws in wb.worksheets:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for row in ws.iter_rows(values_only=True):
            writer.writerow(["" if v is None else v for v in row])
        parts.append(f"Sheet {ws.title}:\n{buf.getvalue().rstrip()}")
    wb.close()
    return "\n".join(parts)


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join((page.extract_text() or "").strip() for page in PdfReader(path).pages)


def attachment_text(path: Path) -> str:
    """The readable text of one attached file, or AttachmentError saying why there is none."""
    return _attachment_text(path, file_version(path))


@lru_cache(maxsize=1024)
def _attachment_text(path: Path, version: tuple[int, int] | None) -> str:
    suffix = path.suffix.lower()
    if not path.is_file():
        raise AttachmentError(f"attached file not found: {path}")
    try:
        if suffix in (".xlsx", ".xlsm"):
            return _xlsx_text(path)
        if suffix == ".pdf":
            return _pdf_text(path)
        if suffix in (".csv", ".tsv", ".txt", ".md", ".json"):
            return path.read_text(encoding="utf-8-sig")
    except Exception as e:  # openpyxl / pypdf raise many types on corrupt files
        raise AttachmentError(f"cannot read attached file {path}: {type(e).__name__}: {e}") from e
    raise AttachmentError(f"unsupported attached file type {suffix!r}: {path}")


def files_block(paths: list[Path]) -> str:
    """Every non-image attachment as a titled block; image attachments are sent as images instead."""
    blocks = [f"[File: {p.name}]\n{attachment_text(p)}" for p in paths if p.suffix.lower() not in IMAGE_SUFFIXES]
    return "\n\n".join(blocks)
