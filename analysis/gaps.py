"""What a table asked for but cannot count, said in its notes rather than left as a silent empty cell.

A judged file whose raw file is gone judges answers that are no longer there: the current outcomes are the raw
file's (infer.store), so none of its verdicts is read, and the run has no row in any table. The readers of
analysis/inputs.py say such a run here (`check`) whenever a table reads it; analysis.run collects what one table's
build said (`collecting`) and adds it to that table's notes, or to its message when the table has nothing else to
read. A judged manifest whose verdict file is not there (a judge run stopped before its first verdict, a verdict
file deleted) is a run with no verdicts: `verdictless` finds them, so that their answers are counted `unjudged`."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterable, Iterator

from analysis.run_files import Run, shown
from infer import layout

_said: ContextVar[dict[Run, None] | None] = ContextVar("analysis_gaps", default=None)
MANIFEST = ".manifest.json"
GONE = ": missing, so the "  # what every line of `lines` says after the raw file's path


def said_in(notes: list[str]) -> list[str]:
    """The notes of a table that `lines` wrote: for the terminal, which shows the table without its notes."""
    return [n for n in notes if GONE in n]


@contextmanager
def collecting() -> Iterator[dict[Run, None]]:
    """The runs without a raw file that readers met while the block runs, each once, in the order met (the keys
    of the dict yielded; `lines` says them)."""
    said: dict[Run, None] = {}
    token = _said.set(said)
    try:
        yield said
    finally:
        _said.reset(token)


def check(run: Run) -> None:
    """Note that the run's raw file is gone, when it is and a table is being built."""
    said = _said.get()
    if said is not None and not run.raw.exists():
        said.setdefault(run)


def lines(runs: Iterable[Run]) -> list[str]:
    """One line per raw file gone: the verdicts of its judged files that are therefore not read."""
    by_raw: dict[Path, list[Run]] = {}
    for run in runs:
        by_raw.setdefault(run.raw, []).append(run)
    out = []
    for raw, judged in by_raw.items():
        n = sum(verdict_lines(r.path) for r in judged)
        out.append(f"{shown(raw)}{GONE}{n} verdict line(s) of its judge(s) "
                   f"{', '.join(r.judge for r in judged)} under {shown(judged[0].path.parent)}/ are not read: "
                   f"{judged[0].model}/{judged[0].setting} has no answers to count (rerun infer.run and judge.run to "
                   "make them, or remove its judged files)")
    return out


def verdict_lines(path: Path) -> int:
    """The non-blank lines of a verdict file (0 when it is not there), counted without parsing them."""
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip())


def verdictless(results: Path, bench: str) -> list[Path]:
    """The judged files of a benchmark that have a manifest but are not there themselves (their would-be path)."""
    found = []
    for manifest in sorted((layout.judged_dir(results) / bench).glob(f"*/*.*{MANIFEST}")):
        path = manifest.with_name(manifest.name.removesuffix(MANIFEST) + ".jsonl")
        if not path.exists():
            found.append(path)
    return found
