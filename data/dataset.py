"""Read a unified data file for a run: every record checked, ids unique, all of one benchmark."""
from __future__ import annotations

import hashlib
from hashlib import sha256
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from data.jsonl import DataError, bulk_read, parse_line, problem
from data.benchmarks import BENCHMARKS, get as benchmark
from data.checkout import is_demo_data
from data.records import check_record


def line_digest(line: bytes) -> str:
    """What identifies a record's exact content: a digest of its line (surrounding blanks left out)."""
    return hashlib.sha256(line.strip()).hexdigest()[:16]


@dataclass
class Records:
    """The records of a data file: those read and checked, each with the digest of its line, and the ids of
    lines the caller already knew by their digest (not read again)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)  # digests[i] is the line of records[i]
    known: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records) + len(self.known)


def missing_data(path: Path, bench: str | None = None) -> str:
    """The problem line for a data file that does not exist, with what makes it."""
    return problem(path, None, "-", f"file not found; {how_to_make(path, bench)}")


def how_to_make(path: Path, bench: str | None = None) -> str:
    """What makes a data file: the demo sets, or the official release fetched and converted (data/README.md)."""
    if is_demo_data(path):
        return "bash run_all.sh makes the demo sets"
    bench = bench or (Path(path).parent.name if Path(path).parent.name in BENCHMARKS else "<benchmark>")
    convert = f"python -m data.convert {bench} --src <release folder> --out {path}"
    if bench in BENCHMARKS and Path(path).name == benchmark(bench).release_file:  # where data.download writes it
        out = "" if Path(path).parent == Path("data", bench) else f" --out {Path(path).parent}"
        return (f"fetch and convert the official release first: python -m data.download {bench}{out} "
                f"(or, from a release you have: {convert})")
    return f"convert the official release first: {convert}"


def read_records(path: Path, bench: str, limit: int | None = None,
                 known: Callable[[str], str | None] | None = None) -> Records:
    """The records of `path` (the first `limit`), or a DataError listing every problem as file:line: field.

    `known(digest)` may return the id of a line whose exact content the caller has seen before (a line
    that was read and checked then): such a line is not parsed again, which is what makes a rerun over a
    large data file fast. Its id still counts for the duplicate check."""
    problems: list[str] = []
    out = Records()
    with bulk_read():
        for rec, rid, digest in scan_records(path, bench, problems, limit, known):
            if rec is None:
                out.known.append(rid)
            else:
                out.records.append(rec)
                out.digests.append(digest)
    if problems:
        raise DataError(problems)
    return out


@dataclass
class Skip:
    """The part of a data file a scan need not read again (a rerun's resume state, infer/resume_state.py): its
    first `start` bytes, `lines` lines, whose digest is `sha` (checked by the caller, and continued by the scan), hold
    the records `first` (id → line number), which need nothing, and the lines `revisit` ((offset, line number)),
    which are read again."""

    start: int
    lines: int
    sha: Any
    first: dict[str, int]
    revisit: list[tuple[int, int]]


class Scan:
    """How far a scan of a data file got, for the caller to remember it: the digest, bytes and lines of the
    complete lines read (a last line without its newline is left out), the line number of every record's id
    (a skipped part's too), and where lines start (`offsets_of`)."""

    def __init__(self, skip: Skip | None = None):
        self.skip = skip
        self.path: Path | None = None  # the file scanned (scan_records sets it)
        self.first: dict[str, int] = dict(skip.first) if skip else {}  # the caller keeps skip.first as it was
        self.sha = skip.sha if skip else hashlib.sha256()
        self.end = skip.start if skip else 0
        self.lines = skip.lines if skip else 0
        self.revisited = dict((lineno, offset) for offset, lineno in skip.revisit) if skip else {}
        self._start, self._after = self.end, self.lines

    def offsets_of(self, linenos: Iterable[int]) -> dict[int, int]:
        """Where each of these complete lines starts. A line read after the skipped part is found by reading the file
        again from there, once, rather than by an offset kept for every line through the run (8 MB at 10⁶ lines,
        for the few a next run revisits); the file is the one whose digest the caller keeps, so if it changed
        meanwhile, the next run finds it changed and reads it whole."""
        wanted = set(linenos)
        out = {n: self.revisited[n] for n in wanted if n <= self._after}
        later = sorted(n for n in wanted if n > self._after)
        if later and self.path is not None:
            with open(self.path, "rb") as f:
                f.seek(self._start)
                at, lineno, i = self._start, self._after, 0
                for raw in f:
                    lineno += 1
                    if lineno == later[i]:
                        out[lineno] = at
                        i += 1
                        if i == len(later):
                            break
                    at += len(raw)
        return out

    def _lines(self, f: Any) -> Iterator[tuple[int, bytes]]:
        """(line number, line) of what is read: the lines to revisit, then every line after the skipped part."""
        if self.skip is not None:
            for offset, lineno in self.skip.revisit:
                f.seek(offset)
                yield lineno, f.readline()
            f.seek(self.skip.start)
        for raw in f:
            if raw.endswith(b"\n"):
                self.end += len(raw)
                self.lines += 1
                self.sha.update(raw)
            yield self.lines + (not raw.endswith(b"\n")), raw


def scan_records(path: Path, bench: str, problems: list[str], limit: int | None = None,
                 known: Callable[[str], str | None] | None = None, scan: Scan | None = None
                 ) -> Iterator[tuple[dict[str, Any] | None, str, str]]:
    """`read_records` one line at a time, for a run that starts before the whole file is read: (record, id, line
    digest) of each of the first `limit` lines that are valid (record None: a line `known` knew), every line checked
    on to the end; each problem is appended to `problems` as it is found, for the caller to raise. `scan` (with no
    `limit`) may skip a part read before, and learns how far the file was read."""
    if not Path(path).is_file():
        raise DataError([missing_data(path, bench)])
    scan = scan or Scan()
    scan.path = Path(path)
    if scan.skip is not None and limit is not None:
        raise ValueError("a scan that skips part of the file reads it whole (no limit)")
    first = scan.first
    seen = len(first)
    with open(path, "rb") as f:
        for lineno, raw in scan._lines(f):
            line = raw.strip()
            if not line:
                continue
            seen += 1
            wanted = limit is None or seen <= limit  # every line is checked, the first `limit` are kept
            digest = sha256(line).hexdigest()[:16]  # line_digest, inlined: a large rerun digests every line
            rid = known(digest) if known is not None else None
            rec = None
            if rid is None:
                rec, err = parse_line(raw)
                if err is not None:
                    problems.append(problem(path, lineno, "-", err))
                    continue
                probs = check_record(rec)
                problems += [problem(path, lineno, f, m) for f, m in probs]
                if not probs and rec["benchmark"] != bench:
                    problems.append(problem(path, lineno, "benchmark", f"{rec['benchmark']!r}, but --bench is {bench!r}"))
                    continue
                if probs:
                    continue
                rid = rec["id"]
            if rid in first:
                problems.append(problem(path, lineno, "id", f"duplicate id {rid!r} (first on line {first[rid]})"))
                continue
            first[rid] = lineno
            if wanted:
                yield rec, rid, digest


def load_records(path: Path, bench: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The records of `path` (the first `limit`), or a DataError listing every problem as file:line: field."""
    return read_records(path, bench, limit).records
