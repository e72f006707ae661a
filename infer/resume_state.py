"""A raw file's resume state: what the last run learnt of its data file, so that the next starts where it ended.

A rerun finds what is done from the raw file (infer/resume.py): it reads every line of it and digests every line of
the data file, some seconds at 10⁶ requests before the first new one is sent. `<setting>.resume.json` beside the raw
file keeps, from the end of the last run that read the whole data file:

- that run's context (infer/resume.py: code, benchmark, setting, templates, parameters, model) and samples per record;
- the data file as it was read: the bytes and lines of its complete lines, and their sha256;
- the records of those lines that are settled: every sample finished, with the key the record's inputs give, and
  naming no files (a touched image is seen only by looking at it, so such records are read again every time);
- where every other record line starts, to read it again, and the current outcome of every request of the raw
  file that is not a settled record's;
- the raw file's size and its fingerprint up to that size (infer/file_print.py).

A run uses it only when all of that still holds: the same context and samples, a data file that starts with the
same bytes (hashed again: under half a second for 450 MB), and a raw file that is the same file up to where the
state ended, only appended to since: not one replaced by another file of the same size or longer, whose records
the state would skip as settled. Lines appended to the raw file since (by a run that stopped before writing its state, or one with --limit)
are read, and if one is a settled record's, the state is not used. Not used, or not there, the run reads everything,
as it would without it: the state is a cache that may be deleted at any time, and it never makes a request count
as done unless a run saw its finished line.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data.dataset import Scan, Skip
from data.jsonl import write_json_atomic
from infer.file_print import fingerprint
from infer.layout import resume_state_of

log = logging.getLogger(__name__)

VERSION = 2  # 2: the raw file's fingerprint (1 kept its last 64 bytes, blind to a file replaced by a longer one)
# Outcomes a run keeps for the state beyond those of settled records (failures, records naming files). Past this
# the state would be as large as the raw file and no quicker to read: none is written.
MAX_OTHERS = 100_000

# The current line of one (id, sample_idx): its request key, its error (None: finished, as infer.ask.answers says)
# and its inputs. A plain tuple: a rerun of 10⁶ requests makes one per line, and a named tuple costs as much again.
Outcome = tuple[str, "str | None", "str | None"]


@dataclass
class State:
    """A resume state that holds for this run and data file: the data lines to skip, the outcomes of the raw file's
    other requests, and the raw file's size then (infer/resume.py reads the lines appended since, and drops the
    state if one is a settled record's)."""

    skip: Skip
    others: dict[tuple[str, int], Outcome]
    raw_size: int


def _print(path: Path, size: int) -> str | None:
    """The raw file's fingerprint up to `size` (None: it is not there, or shorter)."""
    try:
        with open(path, "rb") as f:
            return fingerprint(f, size)
    except FileNotFoundError:
        return None


def _data_sha(path: Path, size: int) -> Any:
    """sha256 of the first `size` bytes (None: the file is shorter)."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        left = size
        while left:
            chunk = f.read(min(left, 1 << 22))
            if not chunk:
                return None
            sha.update(chunk)
            left -= len(chunk)
    return sha


def load(raw: Path, context: str, n: int, data: Path) -> State | None:
    """The state beside `raw`, if it holds for this run and data file (None: read everything)."""
    path = resume_state_of(raw)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        if state["version"] != VERSION or state["context"] != context or state["n"] != n:
            return None
        size = state["raw"]["size"]
        seen = _print(raw, size)
        if seen is None or seen != state["raw"]["print"]:  # gone, shorter or another file: all of it is read again
            return None
        sha = _data_sha(data, state["data"]["bytes"])
        if sha is None or sha.copy().hexdigest() != state["data"]["sha256"]:
            return None
        settled = dict(zip(state["settled"]["ids"], state["settled"]["lines"]))
        others = {(rid, i): (key, error, inputs) for rid, i, key, error, inputs in state["others"]}
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as e:  # a cache: unreadable, it is written again
        log.warning("%s: unreadable (%s), ignored", path, e)
        return None
    skip = Skip(state["data"]["bytes"], state["data"]["lines"], sha, settled,
                [tuple(x) for x in state["revisit"]])
    return State(skip, others, size)


@dataclass
class _Waiting:
    left: int  # requests sent and not yet answered
    outcomes: list[tuple[int, Outcome]]


class Settling:
    """Which records of the data file a run leaves settled, learnt as it plans and writes: a record is settled when
    it names no files and every sample is finished with the key it renders to now (finished before, made current
    again, or answered in this run). Kept as a flag per line (a run of 10⁶ records holds a megabyte for it), beside
    the records a resume state had settled already."""

    def __init__(self, scan: Scan):
        self.scan = scan
        self.before: dict[str, int] = scan.skip.first if scan.skip else {}  # id → line number, not read again
        self.flags = bytearray()  # flags[line number]: settled in this run
        self.waiting: dict[str, _Waiting] = {}
        self.others: dict[tuple[str, int], Outcome] = {}  # written in this run, not (yet) a settled record's
        self.too_many = False

    def settle(self, rid: str) -> None:
        lineno = self.scan.first[rid]
        if lineno <= self.scan.lines:  # a last line without its newline is read again next time: never settled
            if lineno >= len(self.flags):
                self.flags.extend(bytes(max(lineno + 1 - len(self.flags), len(self.flags))))
            self.flags[lineno] = 1

    def settled_now(self, lineno: int) -> bool:
        return lineno < len(self.flags) and self.flags[lineno] == 1

    def expect(self, rid: str, requests: int) -> None:
        """The record's other samples are finished with its key; `requests` more are being sent."""
        if self.scan.first[rid] <= self.scan.lines:
            self.waiting[rid] = _Waiting(requests, [])

    def wrote(self, line: dict[str, Any]) -> None:
        """A line appended to the raw file."""
        rid, i = line["id"], line["sample_idx"]
        outcome = (line.get("request_key"), line.get("error"), line.get("inputs"))
        waiting = self.waiting.get(rid)
        if waiting is not None:
            waiting.outcomes.append((i, outcome))
            if outcome[1] is None:
                waiting.left -= 1
                if waiting.left == 0:
                    del self.waiting[rid]
                    self.settle(rid)
                return
            del self.waiting[rid]  # a failure: not settled; its outcomes so far are the state's
            for j, earlier in waiting.outcomes:
                self._keep(rid, j, earlier)
            return
        self._keep(rid, i, outcome)

    def _keep(self, rid: str, i: int, outcome: Outcome) -> None:
        if len(self.others) >= MAX_OTHERS:
            self.too_many = True
            self.others.clear()
        if not self.too_many:
            self.others[(rid, i)] = outcome


def save(raw: Path, context: str, n: int, scan: Scan, settling: Settling,
         latest: dict[tuple[str, int], Outcome]) -> None:
    """Write the state at the end of a run that read the whole data file (under the raw file's lock, every line
    written), or remove it when none is worth keeping: no record settled, or too many outcomes of others.
    `latest`: the outcomes the run began from."""
    path = resume_state_of(raw)
    complete = scan.lines  # a last line without its newline is read again next time, whatever it is
    before, first = settling.before, scan.first
    # two flat lists, not another dict or a list of pairs: a fresh run of 10⁶ records writes 10⁶ of them
    ids, lines, again = list(before), list(before.values()), []
    for rid, lineno in first.items():
        if rid in before:
            continue
        if settling.settled_now(lineno):
            ids.append(rid)
            lines.append(lineno)
        elif lineno <= complete:
            again.append(lineno)

    def is_settled(rid: str) -> bool:
        return rid in before or settling.settled_now(first.get(rid, 0))

    revisit = [(offset, lineno) for lineno, offset in scan.offsets_of(again).items()]
    others = {k: v for k, v in latest.items() if not is_settled(k[0])}
    others.update((k, v) for k, v in settling.others.items() if not is_settled(k[0]))
    for rid, waiting in settling.waiting.items():  # not every request answered when sending ended: not settled
        others.update(((rid, i), outcome) for i, outcome in waiting.outcomes)
    if settling.too_many or len(others) > MAX_OTHERS or not ids:
        path.unlink(missing_ok=True)
        return
    size = raw.stat().st_size if raw.exists() else 0
    revisit.sort(key=lambda x: x[1])
    write_json_atomic(path, {
        "about": "infer/resume_state.py: where the next run of this raw file starts (a cache; may be deleted)",
        "version": VERSION, "context": context, "n": n,
        "raw": {"size": size, "print": _print(raw, size)},
        "data": {"bytes": scan.end, "lines": complete, "sha256": scan.sha.hexdigest()},
        "settled": {"ids": ids, "lines": lines},
        "revisit": revisit,
        "others": [[rid, i, *outcome] for (rid, i), outcome in others.items()]}, indent=None)
