"""What the report's numbers were made from, read from what ran rather than from how it was started: each run's
manifest (results/raw/…/<setting>.manifest.json: the data file and its sha256, the model config, the git
commit, when it was written) and the data files that data-only tables read.

The profile follows from the data: runs on the generated demo sets (data/demo/build/, wherever the checkout
was) are the demo profile, runs on converted releases the paper profile, both at once a mix. A demo run's model
is said as its config names it, text-only when its config says so, and embedded when the harness serves it
from a model file shipped inside a Python package (`{pkg:…}` in its server command)."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from analysis.data_location import named_data, shown_named
from analysis.inputs import DataFile, read_json, shown
from analysis.unreadable import Unreadable
from data.benchmarks import BENCHMARKS
from data.checkout import is_demo_data
from infer import layout
from infer.manifest import git_state, sha256_file

log = logging.getLogger(__name__)
@dataclass
class DataRead:
    """One data file some run or table read: where, whether it is a demo set, the runs on it, its sha256 (a
    file read in two versions by different runs has two)."""

    bench: str
    path: str
    demo: bool
    runs: int = 0
    checksums: set[str] = field(default_factory=set)

    @property
    def kind(self) -> str:
        return "demo" if self.demo else "release"

    def digest(self, digits: int = 64) -> str:
        return ", ".join(sorted(c[:digits] for c in self.checksums)) if self.checksums else "not recorded"


@dataclass
class Origin:
    """Profile, data per benchmark, models, commits and dates of everything the report read."""

    data: list[DataRead]
    models: dict[str, dict[str, Any]]      # config name → the model config of its demo-data runs
    commits: dict[str, int]                # "<commit>" (or "<commit> (uncommitted changes)") → runs
    written: tuple[str, str] | None        # the first and last run written
    report_commit: str
    made: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M"))

    @property
    def profile(self) -> str:
        kinds = {d.demo for d in self.data}
        if not kinds:
            return "none (no run and no data read)"
        if kinds == {True}:
            return "demo"
        if kinds == {False}:
            return "paper"
        demo = sorted({d.bench for d in self.data if d.demo})
        return f"mixed (demo data for {', '.join(demo)})"

    @property
    def demo(self) -> bool:
        return any(d.demo for d in self.data)

    def model_words(self) -> str:
        """The demo runs' models as the banner names them."""
        words = []
        for name, cfg in sorted(self.models.items()):
            kind = [w for w, yes in (("embedded", embedded(cfg)), ("text-only", cfg.get("modalities") == ["text"]))
                    if yes]
            served = cfg.get("model") or name
            words.append(" ".join([*kind, "model", served] + ([f"({name})"] if served != name else [])))
        return " and ".join(words) or "no model (data only)"

    def banner(self) -> str | None:
        if not self.demo:
            return None
        where = "the procedural demo sets" if self.profile == "demo" else \
            f"procedural demo sets for {', '.join(sorted({d.bench for d in self.data if d.demo}))}"
        return (f"Demo profile: the numbers come from the {self.model_words()} on {where} that the harness "
                "generates. They show that every stage runs; they are not comparable with the papers' numbers.")

    def rows(self) -> list[tuple[str, str]]:
        """The header as (what, value) lines; data files come apart (data_rows)."""
        first, last = self.written or ("—", "—")
        return [("profile", self.profile),
                ("runs made at commit", "; ".join(f"{c} ({n} run{'s' * (n != 1)})" for c, n in self.commits.items())
                 or "—"),
                ("runs written", first if first == last else f"{first} … {last}"),
                ("report made", f"{self.made} at commit {self.report_commit}")]


def embedded(cfg: dict[str, Any]) -> bool:
    """Whether the harness serves the model from a file shipped inside a Python package (the embedded default)."""
    command = (cfg.get("server") or {}).get("command") or []
    return any("{pkg:" in str(part) for part in command)


def _commit(git: dict[str, Any] | None) -> str:
    git = git or {}
    commit = (git.get("commit") or "unknown")[:12]
    return commit + (" (uncommitted changes)" if git.get("dirty") else "")


def origin(results: Path, tables_data: Iterable[tuple[str, DataFile]] = ()) -> Origin:
    """Read every run's manifest under `results`, and the data files data-only tables read (bench, DataFile)."""
    data: dict[str, DataRead] = {}
    models: dict[str, dict[str, Any]] = {}
    commits: dict[str, int] = {}
    written: list[str] = []
    for raw in layout.raw_files(results):
        try:
            m, unknown = read_json(layout.manifest_of(raw)), "unknown (no manifest)"
        except Unreadable as e:  # the tables that read the run say so; the report's top is still made
            log.warning("%s", e)
            m, unknown = {}, "unknown (a manifest cannot be read)"
        bench = layout.parse_raw(raw).bench
        named = named_data(m)
        path = shown_named(named) if named else unknown
        read = data.setdefault(f"{bench}\0{path}", DataRead(bench, path, is_demo_data(path)))
        read.runs += 1
        if named and named.sha256:
            read.checksums.add(named.sha256)
        cfg = m.get("model") or {}
        if read.demo and cfg.get("name"):
            models.setdefault(cfg["name"], cfg)
        commits[_commit(m.get("git"))] = commits.get(_commit(m.get("git")), 0) + 1
        if m.get("written"):
            written.append(m["written"])
    for bench, f in tables_data:  # a file the runs read already is listed once, by its checksum
        digest = sha256_file(f.path) if f.path.exists() else None
        if not any(r.bench == bench and digest in r.checksums for r in data.values()):  # (a version of its own)
            read = data.setdefault(f"{bench}\0{shown(f.path)}", DataRead(bench, shown(f.path), is_demo_data(f.path)))
            read.checksums.update({digest} - {None})
    order = {b: k for k, b in enumerate(BENCHMARKS)}
    # per benchmark, the files its runs read first, then those only data-only tables read
    rows = sorted(data.values(), key=lambda r: (order.get(r.bench, len(order)), r.bench, not r.runs, r.path))
    return Origin(rows, models, commits, (min(written), max(written)) if written else None,
                  _commit(git_state()))
