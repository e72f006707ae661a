"""Every benchmark the harness runs, each described in one module: data/benchmarks/<name>.py.

A benchmark module defines BENCHMARK, a `Benchmark`: the paper it comes from, where its release is published, the
file the paper profile reads, the fields its records carry beyond the common ones, the judges that give its
published numbers, the experiment whose data file is the paper's, and where its converter, demo generator,
prompts and tables live (by default data/converters/<name>.py, data/demo/<name>.py, prompts/<name>/ and
analysis/<name>/). Its paper's facts that several stages read (task lists, skills, tiers) live beside it. Every
stage reads this registry instead of a list of its own, so a new paper is a module here plus its converter,
prompts and tables; `register` adds one from elsewhere (a test's toy benchmark).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

PAPER_ORDER = ("think360", "omibench", "mira", "c2rbench", "morphobench")  # the order tables and reports use;
# a module added to this package comes after them


@dataclass(frozen=True)
class Source:
    """Where a paper publishes its data: a Hub dataset (None when it has none) or a page to get it from."""

    repo: str | None
    page: str
    parts: tuple[tuple[str, ...], ...] = ((),)  # one download per entry, by allow_patterns; () = all
    pause_s: float = 0.0  # between parts that fetched something


def hub(repo: str) -> Source:
    """A release published as a Hugging Face dataset."""
    return Source(repo, f"https://huggingface.co/datasets/{repo}")


@dataclass(frozen=True)
class Benchmark:
    name: str
    paper: str                          # as the report names it
    source: Source
    default_judges: tuple[str, ...]     # `judge.run --judge default`: the rule judge and the paper's own
    paper_data: str | None = None       # the experiment (configs/experiments/) whose data file is the paper's
    release_file: str = "test.jsonl"    # the converted release the paper profile reads, under data/<name>/
    fields: dict[str, type | tuple[type, ...]] = field(default_factory=dict)  # beyond data/records.py's
    answer_tag: bool = False            # its prompts ask for <answer>…</answer>: the tag is read first
    adjudicator: str | None = None      # the judge prompt that settles what the careful rules leave undecided
    converter: str = ""                 # the module whose convert(src, media) reads its release
    demo: str = ""                      # the module whose generate(folder) writes its demo set
    tables: str = ""                    # the package of its table modules (each defines IDS)
    prompts: Path | None = None         # its prompt folders, one per setting

    def module_of(self, kind: str) -> str:
        """The module of its converter, demo generator or tables: its own, else the harness's for its name."""
        default = {"converter": f"data.converters.{self.name}", "demo": f"data.demo.{self.name}",
                   "tables": f"analysis.{self.name}"}[kind]
        return getattr(self, kind) or default

    def prompt_folder(self, prompts: Path) -> Path:
        """Its prompt folders: its own, else `prompts`/<name>/ (prompts/ of the checkout, or a folder given)."""
        return self.prompts or prompts / self.name


_REGISTRY: dict[str, Benchmark] = {}


def _load() -> dict[str, Benchmark]:
    if not _REGISTRY:
        found = [m.name for m in pkgutil.iter_modules(__path__)]
        for name in sorted(found, key=lambda n: (PAPER_ORDER.index(n) if n in PAPER_ORDER else len(PAPER_ORDER), n)):
            _REGISTRY[name] = importlib.import_module(f"data.benchmarks.{name}").BENCHMARK
    return _REGISTRY


def register(benchmark: Benchmark) -> None:
    """Add a benchmark described outside this package; every stage reads it from then on, in this process."""
    _load()[benchmark.name] = benchmark


def unregister(name: str) -> None:
    _load().pop(name, None)


def get(name: str) -> Benchmark:
    """The benchmark of that name (KeyError naming the known ones)."""
    try:
        return _load()[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r} (known: {', '.join(BENCHMARKS)})") from None


def paper_name(name: str) -> str:
    """The paper's name as the report writes it ("Think360°"); the name itself for a benchmark not registered."""
    return _load()[name].paper if name in _load() else name


class _Names(Sequence[str]):
    """The names of the registered benchmarks, in the papers' order: a live view, so that a command's choices
    and every `bench in BENCHMARKS` see a benchmark registered after import."""

    def __getitem__(self, i):  # type: ignore[override]
        return list(_load())[i]

    def __len__(self) -> int:
        return len(_load())

    def __iter__(self) -> Iterator[str]:
        return iter(list(_load()))

    def __contains__(self, name: object) -> bool:
        return name in _load()

    def __repr__(self) -> str:
        return repr(tuple(self))


BENCHMARKS: Sequence[str] = _Names()
