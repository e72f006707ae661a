"""Whether `analysis.run --all --report` would write what is already there: then it says so and writes nothing.

A rerun of run_all.sh that sent nothing spent most of its time rebuilding a report identical to the last one. The
report is a function of what it reads — every file under results/ but its own outputs, the data files the runs'
manifests name, and the checkout's code, prompts, configs and the papers' numbers — and of the command's options.
After a build, a stamp records all of that (the files under results/ by size and mtime, the data files and the
checkout by content — the demo sets are written again, unchanged, on every run_all.sh, and another checkout with
other code never passes for this one) together with what the build wrote (its outputs, by size and
mtime) and the line it printed last. The next build whose stamp is the same, and whose outputs are still as written,
prints the stored summary instead. Anything else, a table deleted by hand included, builds everything again.

The stamp (results/.report_stamp.json) names files relative to results/ or to the checkout only, so it travels
with the folder; a folder copied without its mtimes simply builds once more.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable

from analysis.data_location import named_data
from data.jsonl import write_text_atomic
from infer.file_print import fingerprint
from infer.layout import ROOT, from_record

STAMP = ".report_stamp.json"
OUTPUTS = ("tables", "figures", "browse", "report.md", "report.html")  # what a report build writes under results/
# the sidecars readers update and the caches a rerun of infer.run writes again (infer/layout.py): the report reads none
CACHES = (".index", ".lock", ".inputs.json", ".resume.json")
# read by the tables, the Findings part or the benchmarks' registry: a change to any builds the report again
CODE = ("analysis", "judge", "infer", "data/benchmarks", "data/reference", "data/external", "data/records.py",
        "data/dataset.py", "configs", "prompts")


def _stats(root: Path, paths: Iterable[Path]) -> dict[str, list[int]]:
    """(size, mtime_ns) of each file, named relative to `root`."""
    return {p.relative_to(root).as_posix(): stat for p in paths if (stat := _stat(p)) is not None}


def _files(folder: Path) -> list[Path]:
    return [Path(d) / f for d, _, files in os.walk(folder) for f in files]


def _inputs(results: Path) -> dict[str, list[int] | str | None]:
    """The files under results/ the report reads: manifests by content (a run shared by experiments of other
    limits is written again by each, and ends as it was), the rest by size and mtime."""
    top = [p for p in results.iterdir() if p.name not in OUTPUTS and p.name != STAMP] if results.is_dir() else []
    files = [f for p in top for f in (_files(p) if p.is_dir() else [p]) if not f.name.endswith(CACHES)]
    small = [f for f in files if f.name.endswith(".json")]
    return {**_stats(results, [f for f in files if not f.name.endswith(".json")]),
            **{f.relative_to(results).as_posix(): _content(f) for f in small}}


def _data_files(results: Path) -> dict[str, list[int]]:
    """The data files the runs' manifests name (a table whose data file changed or went is built again)."""
    named = set()
    for manifest in results.glob("*/*/*/*.manifest.json"):
        try:
            found = named_data(json.loads(manifest.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue  # an unreadable manifest is an input like any other file: its stat is in the stamp
        if found is not None:
            named.add(found.path)
    # named by a digest: a data file outside the checkout is recorded by its absolute path, not kept here
    return {hashlib.sha256(path.encode()).hexdigest()[:16]: _content(from_record(path)) for path in sorted(named)}


def _content(path: Path) -> str | None:
    """A data file by its bytes (size and a sampled digest, infer/file_print.py): the demo sets are written again,
    unchanged, by every run_all.sh."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            return f"{size}:{fingerprint(f, size)}"
    except OSError:
        return None


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None  # gone: the tables that read it say so, built again
    return [st.st_size, st.st_mtime_ns]


def _code() -> str:
    """The checkout's code and protocol files, by content."""
    digest = hashlib.sha256()
    for top in CODE:
        place = ROOT / top
        for f in sorted(_files(place) if place.is_dir() else [place] if place.is_file() else []):
            if f.suffix in (".py", ".txt", ".yaml", ".yml", ".csv", ".json", ".md") and "__pycache__" not in f.parts:
                digest.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


def stamp(results: Path, options: list[str]) -> dict[str, Any]:
    """What a report build made now would read."""
    return {"options": options, "code": _code(), "inputs": _inputs(results), "data": _data_files(results)}


def _outputs(results: Path) -> dict[str, list[int]]:
    return _stats(results, [f for name in OUTPUTS for f in ((_files(results / name)) if (results / name).is_dir()
                                                             else [results / name])])


def unchanged(results: Path, now: dict[str, Any]) -> dict[str, Any] | None:
    """The last build's record when it read exactly `now` and its outputs are still as it wrote them, else None."""
    try:
        last = json.loads((results / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(last, dict) or "line" not in last or last.get("read") != now or \
            last.get("wrote") != _outputs(results):
        return None
    return last


def record(results: Path, now: dict[str, Any], line: str, status: int) -> None:
    """Keep what this build read, wrote and printed last, and its exit status, for the next one."""
    write_text_atomic(results / STAMP, json.dumps({"read": now, "wrote": _outputs(results), "line": line,
                                                   "status": status}))


def forget(results: Path) -> None:
    """A build that failed or was stopped leaves no stamp: the next one builds."""
    (results / STAMP).unlink(missing_ok=True)
