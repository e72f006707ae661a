"""What a rerun may skip: which requests of a raw file are finished, and the inputs each was made from.

Whether a request is done is decided by its key, the hash of the rendered messages (infer.request.request_key),
under the rule of every keyed log (infer.request.answers): a line of that key with no error answers it.
Rendering every record of a large run again (reading it, filling the template, reading its images) only to
find the key unchanged is most of a rerun's time. So a raw line also records `inputs`, a digest of everything
its request was made from, in parts:

    <context>:<record>[:<files>]

- context: the code that reads records, renders prompts and keys requests, the benchmark, the setting and its
  template(s), the model's system prompt (infer/system_prompt.py), the generation parameters and the model:
  what every request of the run shares;
- record: the record's line in the data file (data.dataset.line_digest);
- files: names and versions (size, mtime) of the images and attachments the record names, if it names any.

A record whose requests are all finished from the very same inputs is neither rendered nor, when it names
no files, even parsed: its line's digest is enough. Anything else is rendered and keyed as before, so the
key still decides what is sent: new inputs that render the same prompt send nothing.

Rendering is deterministic given these inputs, so "inputs I gave key K" stays true. When a rerun renders a
record and finds the key of its finished requests under other inputs (the code changed, a file was touched,
or the line predates `inputs`), the raw line cannot be rewritten; the fact is kept in `<setting>.inputs.json`
beside the raw file, so the next rerun skips the record too. That file is only a cache: without it a rerun
renders again; it never makes a request count as done unless the raw file holds a finished line of that key.

Going back to an earlier prompt (a template, or a model's system prompt, edited and then reverted) sends
nothing: a request whose key has a finished line that a later line of another key superseded gets that
line appended again, unchanged, as its current outcome (readers take the last line of each id and sample).
The raw file is read for those lines only when a record's key differs from its current line's.

All of this still reads the whole raw file and digests every data line: seconds at 10⁶ requests. A run that read
the whole data file therefore leaves beside the raw file where the next one starts (infer/resume_state.py): the
records it settled are not read again, nor their raw lines, while the data file starts with the same bytes.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator

from data.files import file_version
from data.jsonl import bulk_read, write_json_atomic
from data.checkout import ROOT
from infer.request import answers
from infer.config import ModelConfig
from infer.layout import inputs_cache_of
from infer.prompting import Prompter
from infer.resume_state import Outcome, State

log = logging.getLogger(__name__)
# The code a request depends on: every module of infer/ and the data modules that read and check records.
# Any change to them makes every record be rendered once more (and the cache above keeps that to one rerun).
CODE = (ROOT / "infer", ROOT / "data")
# Packages whose version can change what is sent: derived images (Pillow), attached files' text.
PACKAGES = ("pillow", "pypdf", "openpyxl")



def digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()[:16]


@lru_cache(maxsize=1)
def code_digest() -> str:
    h = hashlib.sha256()
    for folder in CODE:
        for path in sorted(folder.glob("*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in PACKAGES:
        try:
            h.update(f"{name}={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            pass
    return h.hexdigest()[:16]


def context_digest(bench: str, prompter: Prompter, cfg: ModelConfig, params: dict[str, Any], base: Path) -> str:
    """The part of every request's inputs that the whole run shares: in-context demonstrations too (every
    prompt shows some of them), so call it once they are drawn."""
    return digest(json.dumps({
        "code": code_digest(), "benchmark": bench, "setting": prompter.setting.name,
        "templates": sorted((Path(path).name, sha) for path, sha in {**prompter.shas(), **cfg.system_shas()}.items()),
        "params": params, "model": cfg.model, "max_image_pixels": cfg.max_image_pixels,
        "accepts_images": cfg.accepts_images,
        "demos": [[rec, files_digest(rec, base)] for rec in prompter.pool]}, sort_keys=True, ensure_ascii=False))


def files_digest(rec: dict[str, Any], base: Path) -> str | None:
    """Names and versions of the files a record's prompt reads (None when it names none): a touched image
    is rendered again, and its key (which holds the image's content hash) decides."""
    names = [*rec["images"], *(rec.get("cot_images") or []), *(rec.get("files") or [])]
    if not names:
        return None
    return digest(json.dumps([[str(base / name), file_version(base / name)] for name in names], ensure_ascii=False))


# A line as raw_line writes it for a finished request: the fields a rerun needs first, none with escapes, and
# a null error (`answers`, read without parsing the line). Any other line (an error, an older layout, escaped
# characters) is parsed whole.
_FINISHED = re.compile(rb'\{"id":"([^"\\]*)","sample_idx":(\d+),"request_key":"([^"\\]*)","inputs":"([^"\\]*)",'
                       rb'"error":null,')


def read_outcomes(path: Path, start: int = 0) -> dict[tuple[str, int], Outcome]:
    """The current (last) outcome of each (id, sample_idx) of a raw file, read from the start of each line (from
    byte `start` on: the lines appended since a resume state was written).

    A line not ending in a newline was cut short by a crash: it is left out (infer.store.AppendLog cuts it
    before writing). Any other line that does not parse is an error naming the line."""
    latest: dict[tuple[str, int], Outcome] = {}
    if not path.exists():
        return latest
    finished = _FINISHED.match
    with open(path, "rb") as f, bulk_read():
        f.seek(start)
        for lineno, raw in enumerate(f, start=1):
            if not raw.endswith(b"}\n"):
                if not raw.strip() or not raw.endswith(b"\n"):
                    continue
            elif m := finished(raw):
                rid, idx, key, inputs = m.groups()
                latest[(rid.decode(), int(idx))] = (key.decode(), None, inputs.decode())
                continue
            try:
                obj = json.loads(raw)
                latest[(obj["id"], obj["sample_idx"])] = (obj.get("request_key"), obj.get("error"), obj.get("inputs"))
            except (ValueError, KeyError, TypeError) as e:
                where = f"{lineno}" if start == 0 else f"{lineno} after byte {start}"
                raise ValueError(f"{path}:{where}: -: corrupt result line ({type(e).__name__}: {e})") from e
    return latest


def earlier_answers(path: Path, latest: dict[tuple[str, int], Outcome]) -> dict[tuple[str, str, int], int]:
    """Where (byte offset) the last finished line of each (id, request_key, sample_idx) starts, for the keys
    that are not their request's current one: answers to earlier prompts."""
    found: dict[tuple[str, str, int], int] = {}
    if not path.exists():
        return found
    offset = 0
    with open(path, "rb") as f, bulk_read():
        for raw in f:
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n") or not raw.strip():
                continue  # cut by a crash, or blank
            if m := _FINISHED.match(raw):
                rid, idx, key = m.group(1).decode(), int(m.group(2)), m.group(3).decode()
            else:
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue  # read_outcomes, which runs first, stops at a corrupt line
                if not answers(obj):
                    continue
                rid, idx, key = obj["id"], obj["sample_idx"], obj.get("request_key")
            current = latest.get((rid, idx))
            if key and current is not None and current[0] != key:
                found[(rid, key, idx)] = start
    return found


class Finished:
    """The finished requests of one raw file, what they were made from, and the inputs cache beside it."""

    def __init__(self, path: Path, context: str, n: int, state: State | None = None):
        """`state`: where the last run ended (infer/resume_state.py), if it holds: the raw file is then read only
        from where that run left it, and the state dropped if a line appended since is a settled record's."""
        self.path, self.context, self.n = path, context, n
        self.cache_path = inputs_cache_of(path)
        self.earlier: dict[tuple[str, str, int], int] | None = None  # read when first needed
        self.reused: list[int] = []  # offsets of the earlier lines this run makes current again
        if state is not None:
            appended = read_outcomes(path, start=state.raw_size)
            if any(rid in state.skip.first for rid, _ in appended):
                log.info("%s: a settled record was asked again since the resume state was written; reading it all",
                         path)
                state = None
            else:
                state.others.update(appended)
        self.state = state
        # the current outcome of every request; with a state, of every request but those of settled records
        self.latest = state.others if state is not None else read_outcomes(path)
        self.settled: dict[str, int] = state.skip.first if state is not None else {}
        self.settled_count = len(self.settled)
        self.cached = self._read_cache()  # (id, inputs) → key
        self.confirmed: dict[tuple[str, str], str] = {}
        # inputs → id of the records whose first sample is finished from them, to know a record by its line
        self.ready = {inputs: rid for (rid, i), (_, error, inputs) in self.latest.items()
                      if i == 0 and inputs and error is None}
        self.ready.update((inputs, rid) for (rid, inputs), key in self.cached.items() if self.has(rid, 0, key))

    def _read_cache(self) -> dict[tuple[str, str], str]:
        try:
            entries = json.loads(self.cache_path.read_text(encoding="utf-8"))["entries"]
            return {(rid, inputs): key for rid, inputs, key in entries if inputs.startswith(self.context + ":")}
        except FileNotFoundError:
            return {}
        except (ValueError, KeyError, TypeError) as e:  # a cache: unreadable, it is rebuilt
            log.warning("%s: unreadable (%s), ignored", self.cache_path, e)
            return {}

    def inputs(self, line: str, rec: dict[str, Any] | None = None, base: Path | None = None) -> str:
        """The inputs of a record's requests, from its line's digest (and, given the record, its files)."""
        files = files_digest(rec, base) if rec is not None else None
        return f"{self.context}:{line}" + (f":{files}" if files else "")

    def known(self, line: str) -> str | None:
        """The id of a data line whose requests are all finished from the same inputs, which names no files."""
        inputs = f"{self.context}:{line}"
        rid = self.ready.get(inputs)
        if rid is None or self.n == 1:  # `ready` holds the first sample's current line
            return rid
        return rid if self.done(rid, inputs) else None

    def done(self, rid: str, inputs: str) -> bool:
        """Whether every sample of the record is finished, made from `inputs` (or from inputs known to give
        the same key)."""
        for i in range(self.n):
            key, error, made_from = self.latest.get((rid, i)) or ("", "no line", None)
            if error is not None or (made_from != inputs and self.cached.get((rid, inputs)) != key):
                return False
        return True

    def has(self, rid: str, sample_idx: int, key: str) -> bool:
        """Whether this request (this key) is finished."""
        current = self.latest.get((rid, sample_idx))
        return current is not None and current[1] is None and current[0] == key

    def reuse(self, rid: str, sample_idx: int, key: str) -> bool:
        """Whether an earlier finished line of this request (its key), superseded since by a line of another
        key, can be made current again instead of sending it; if so it is noted for `reused_lines`."""
        current = self.latest.get((rid, sample_idx))
        if current is None or current[0] == key:  # never asked, or asked with this key: nothing earlier
            return False
        if self.earlier is None:
            self.earlier = earlier_answers(self.path, self.latest)
        offset = self.earlier.get((rid, key, sample_idx))
        if offset is None:
            return False
        self.reused.append(offset)
        return True

    def reused_lines(self) -> Iterator[dict[str, Any]]:
        """The lines noted by `reuse`, read again from the raw file, to be appended as they are."""
        if not self.reused:
            return
        with open(self.path, "rb") as f:
            for offset in self.reused:
                f.seek(offset)
                yield json.loads(f.readline())

    def finished_count(self, n: int) -> int:
        """How many requests of the run (samples 0…n−1) have a finished current line."""
        return self.settled_count * min(n, self.n) + sum(
            1 for (_, i), (_, error, _) in self.latest.items() if error is None and i < n)

    def failed_with(self, rid: str, sample_idx: int) -> str | None:
        """The error of the request's current line (None: no line, or finished)."""
        current = self.latest.get((rid, sample_idx))
        return current[1] if current is not None else None

    def confirm(self, rid: str, inputs: str, key: str) -> None:
        """A record was rendered from `inputs` to `key`: worth keeping when a request of that key is finished
        but its line says other inputs (so the raw file alone would not let the next rerun skip it)."""
        if any(self.has(rid, i, key) and self.latest[(rid, i)][2] != inputs for i in range(self.n)):
            self.confirmed[(rid, inputs)] = key

    def save(self) -> None:
        """Write the inputs cache if this run learnt something (call under the raw file's lock). Kept: the
        run's context only, and entries whose key is still that of a finished request."""
        if not self.confirmed:
            return
        entries = {**self.cached, **self.confirmed}
        keep = [[rid, inputs, key] for (rid, inputs), key in entries.items()
                if rid in self.settled or any(self.has(rid, i, key) for i in range(self.n))]
        write_json_atomic(self.cache_path, {"about": "infer/resume.py: inputs that give the key of finished requests",
                                            "entries": keep})
        log.info("%s: noted the inputs of %d finished requests' records", self.cache_path, len(self.confirmed))
