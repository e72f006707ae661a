"""Where every result lives, and what a result's path says: the layout of results/ (and figures/), spelled once.

    results/raw/<bench>/<model>/<setting>.jsonl                raw_path: one line per request outcome
            raw/<bench>/<model>/<setting>.manifest.json        manifest_of(the raw file): what the run was made from
            raw/<bench>/<model>/<setting>.inputs.json          inputs_cache_of(the raw file): a rerun's cache
            raw/<bench>/<model>/<setting>.resume.json          resume_state_of(the raw file): where a rerun starts
            judged/<bench>/<model>/<setting>.<judge>.jsonl     judged_path: one verdict per raw outcome and judge
            judged/<bench>/<model>/<setting>.<judge>.manifest.json   manifest_of(the judged file)
            judge_cache/<judge model>.jsonl                    judge_cache_path: every judge call
            judge_cache/<judge model>.jsonl.index              index_of(the log): where each key's last line starts
            adapt/<bench>/<model>/<family>.jsonl               adaptation_log_path: every adaptation call
            logs/server-<model>[-<i>].log                      server_log_path: a started model server's output
            derived/                                           derived_dir: images a setting derives (io, composite)
            browse/<bench>/<model>/<setting>.html              browse_page, with browse_chunk and browse_stamp beside
            browse/media/                                      browse_media_dir: the pages' images
            tables/<id>.csv, .md, .provenance.json             table_file
            figures/<id>.png                                   figure_copy: the figures the tables' .md files link
            report.md, report.html                             report_path
    figures/<id>.png                                           figure_path: where a table's figure is drawn
    ~/.cache/mmr-harness/frames/<run>/<setting>.<judge>.pickle  frame_cache_path: a judged run as the tables read it

`parse_raw` and `parse_judged` take a raw or judged path apart again. A setting may hold dots
(`cot_boxed+temp0.6`) and plus signs, a judge name neither, so a judged file's judge is what follows the last
dot of its name before `.jsonl`: `judged_path` refuses a judge name that would make that ambiguous.

Paths that files under results/ record (a run's data file, its templates, its model config) are relative to the
checkout when they lie inside it (`recorded`; read back by `from_record`), so that a results folder travels with
its checkout or to another; `printed` is how commands print a path.

A run stands for a setting (`stands_for`): a text-only model cannot be sent images, so the demo runs X+caption
(each image replaced by its caption) in place of the image setting X. The raw manifest records the setting a
run stands for (its own when it stands for no other), judge.run copies it into the judged manifest, and a
reader asking for setting X takes the run named X, else one that stands for X (`stand_in`).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple, Protocol, TypeVar

from data.checkout import ROOT

RESULTS = ROOT / "results"  # the checkout's results: the table scripts' default (commands take --results)
FIGURES = ROOT / "figures"  # where the table scripts draw their figures by default (analysis.run --figures)
STANDS_FOR = "stands_for"   # the manifest field naming the setting a run stands for


# --- model outputs and verdicts ----------------------------------------------------------------------

def raw_dir(results: Path) -> Path:
    return results / "raw"


def raw_path(results: Path, bench: str, model: str, setting: str) -> Path:
    """A run's raw file: one line per request outcome, append-only (infer.run)."""
    return raw_dir(results) / bench / model / f"{setting}.jsonl"


def raw_files(results: Path) -> list[Path]:
    """Every raw file under `results`, in path order."""
    return sorted(raw_dir(results).glob("*/*/*.jsonl"))


def judged_dir(results: Path) -> Path:
    return results / "judged"


def judged_path(results: Path, bench: str, model: str, setting: str, judge: str) -> Path:
    """The verdicts of one judge on a run's raw file, append-only (judge.run)."""
    if "." in judge or "/" in judge:  # the judge is read back as what follows the name's last dot
        raise ValueError(f"judge name {judge!r}: a judge name holds no '.' or '/'")
    return judged_dir(results) / bench / model / f"{setting}.{judge}.jsonl"


def judged_files(results: Path, bench: str) -> list[Path]:
    """Every judged file of a benchmark under `results`, in path order."""
    return sorted((judged_dir(results) / bench).glob("*/*.*.jsonl"))


def judged_benchmarks(results: Path) -> list[str]:
    """The benchmarks that have a folder of judged files under `results`, by name."""
    return sorted(p.name for p in judged_dir(results).glob("*") if p.is_dir())


def manifest_of(result_file: Path) -> Path:
    """The manifest beside a raw or judged file (its `.jsonl` replaced): what made it, its counts."""
    return result_file.with_suffix(".manifest.json")


def index_of(log: Path) -> Path:
    """The index beside a keyed log (infer/log_index.py): safe to delete."""
    return log.with_name(log.name + ".index")


def inputs_cache_of(raw_file: Path) -> Path:
    """The inputs cache beside a raw file (infer/resume.py): safe to delete."""
    return raw_file.with_suffix(".inputs.json")


def resume_state_of(raw_file: Path) -> Path:
    """Where the next run of a raw file starts (infer/resume_state.py): safe to delete."""
    return raw_file.with_suffix(".resume.json")


class RawParts(NamedTuple):
    """What a raw path says: raw_path(*parts) is the path again."""

    results: Path
    bench: str
    model: str
    setting: str


class JudgedParts(NamedTuple):
    """What a judged path says: judged_path(*parts) is the path again."""

    results: Path
    bench: str
    model: str
    setting: str
    judge: str

    @property
    def raw(self) -> Path:
        """The raw file whose outcomes these verdicts judge."""
        return raw_path(self.results, self.bench, self.model, self.setting)


def _parts(path: Path, folder: str) -> tuple[Path, str, str, str]:
    """(results, bench, model, file name without .jsonl) of a path <results>/<folder>/<bench>/<model>/<name>.jsonl."""
    path = Path(path)
    if len(path.parts) < 4 or path.parts[-4] != folder or path.suffix != ".jsonl":
        raise ValueError(f"{path}: not a {folder} file (<results>/{folder}/<bench>/<model>/<name>.jsonl)")
    return path.parents[3], path.parts[-3], path.parts[-2], path.name[:-len(".jsonl")]


def parse_raw(path: Path) -> RawParts:
    """bench, model and setting of a raw file (and the results folder it lies in); ValueError if it is not one."""
    return RawParts(*_parts(path, "raw"))


def parse_judged(path: Path) -> JudgedParts:
    """bench, model, setting and judge of a judged file (and the results folder); ValueError if it is not one."""
    results, bench, model, name = _parts(path, "judged")
    setting, dot, judge = name.rpartition(".")
    if not dot or not setting:
        raise ValueError(f"{path}: not a judged file (its name is not <setting>.<judge>.jsonl)")
    return JudgedParts(results, bench, model, setting, judge)


# --- call logs ---------------------------------------------------------------------------------------

def judge_cache_path(results: Path, judge_model: str) -> Path:
    """Every call to one judge model, keyed by request: the judges' cache (judge/llm.py)."""
    return results / "judge_cache" / f"{judge_model}.jsonl"


def adaptation_log_path(results: Path, bench: str, model: str, family: str) -> Path:
    """Every call of one adaptation family by one model, keyed by request: its cache (pipeline/morphobench_adapt)."""
    return results / "adapt" / bench / model / f"{family}.jsonl"


# The call logs of all judge models and of all adaptations, as globs under a results folder (to count the calls
# a sweep appended): made from the paths above, so that they follow them.
JUDGE_CACHES = judge_cache_path(Path(), "*").as_posix()
ADAPTATION_LOGS = adaptation_log_path(Path(), "*", "*", "*").as_posix()


def server_log_dir(results: Path) -> Path:
    return results / "logs"


def server_log_path(log_dir: Path, model: str, index: int | None = None) -> Path:
    """The output of a model server the harness started; `index` tells apart the servers of one model started
    together (one per group of GPUs)."""
    return log_dir / f"server-{model}{'' if index is None else f'-{index}'}.log"


def frame_cache_path(judged_file: Path) -> Path:
    """Where analysis keeps a judged run's frame, read back while its files are unchanged (analysis/frame_cache.py):
    in this user's cache ($XDG_CACHE_HOME, else ~/.cache), not in results/, so that a results folder someone
    shares never carries a pickle for analysis to load. Keyed by the judged file's absolute path; safe to delete."""
    _, bench, model, setting, judge = parse_judged(judged_file)
    run = hashlib.sha256(str(Path(judged_file).resolve()).encode()).hexdigest()[:16]
    return frame_cache_folder() / f"{bench}-{run}" / f"{setting}.{judge}.pickle"


def frame_cache_folder() -> Path:
    """The folder of every kept frame (frame_cache_path)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mmr-harness" / "frames"


def derived_dir(results: Path) -> Path:
    """Images a setting derives from a record's (io text-on-image, composites), named by content hash."""
    return results / "derived"


# --- what analysis writes ----------------------------------------------------------------------------

def browse_dir(results: Path) -> Path:
    return results / "browse"


def browse_page(results: Path, bench: str, model: str, setting: str) -> Path:
    """The item browser of a run."""
    return browse_dir(results) / bench / model / f"{setting}.html"


def browse_compare(results: Path, bench: str) -> Path:
    """The page showing one item's answers of every run of a benchmark side by side."""
    return browse_dir(results) / bench / "compare.html"


def browse_chunk_prefix(page: Path) -> str:
    """What the names of a page's chunk files begin with; the page's script adds the 4-digit index and `.js`."""
    return f"{page.name[:-len('.html')]}.items-"


def browse_chunk(page: Path, index: int) -> Path:
    """A chunk file beside a page: the details of a slice of its items."""
    return page.with_name(f"{browse_chunk_prefix(page)}{index:04d}.js")


def browse_chunks(page: Path) -> dict[int, Path]:
    """The chunk files beside a page, by index (a setting name holds no glob character: * ? [)."""
    found = page.parent.glob(f"{browse_chunk_prefix(page)}[0-9][0-9][0-9][0-9].js")
    return {int(p.name[-len("0000.js"):-len(".js")]): p for p in found}


def browse_stamp(page: Path) -> Path:
    """What a page was written from: a page whose inputs did not change is not written again."""
    return page.with_name(f"{page.name[:-len('.html')]}.stamp.json")


def browse_media_dir(results: Path) -> Path:
    """The pages' images, copied by content hash."""
    return browse_dir(results) / "media"


def tables_dir(results: Path) -> Path:
    return results / "tables"


def table_file(results: Path, table_id: str, kind: str) -> Path:
    """A file of a table: kind `csv`, `md`, `provenance.json`, or a table's own extra (`disagreements.jsonl`)."""
    return tables_dir(results) / f"{table_id}.{kind}"


def figure_path(figures: Path, table_id: str) -> Path:
    """Where a table's figure is drawn (figures/ of the checkout, or analysis.run --figures)."""
    return figures / f"{table_id}.png"


def figure_copy(results: Path, figure: Path) -> Path:
    """The copy of a figure under results/, which the tables' .md files link, so that results/ travels alone."""
    return results / "figures" / figure.name


def report_path(results: Path, kind: str) -> Path:
    """The report: kind `md` or `html`."""
    return results / f"report.{kind}"


# --- paths as results record them ----------------------------------------------------------------------

def recorded(path: Path | str) -> str:
    """A path as a file under results/ records it: relative to the checkout (with /) when it lies inside, so that
    results travel between machines and checkouts; else absolute. A symbolic link inside the checkout counts as
    inside (the path is made absolute before it is resolved)."""
    path = Path(os.path.abspath(path))
    for candidate in (path, path.resolve()):
        if candidate.is_relative_to(ROOT):
            return candidate.relative_to(ROOT).as_posix()
    return path.as_posix()


def from_record(text: str) -> Path:
    """A path a file under results/ records, as a path here: a relative one is taken from this checkout."""
    return Path(text) if Path(text).is_absolute() else ROOT / text


def printed(path: Path | str) -> str:
    """A path as a command prints it: relative to the current folder when under it, else to the checkout when
    inside it (recorded), else as it is."""
    path = Path(os.path.abspath(path))
    here = Path.cwd()
    return path.relative_to(here).as_posix() if path.is_relative_to(here) else recorded(path)


def link(page: Path, target: Path) -> str:
    """How a file written under results/ links another: relative to its own folder, so that results/ can be moved."""
    return Path(os.path.relpath(target, page.parent)).as_posix()


# --- the setting a run stands for --------------------------------------------------------------------

def caption_stand_in(setting: str) -> str:
    """The setting a text-only model runs in place of an image setting: each image replaced by its caption."""
    return f"{setting}+caption"


def stands_for(setting: str, *manifests: Mapping[str, Any] | None) -> str:
    """The setting a run of `setting` stands for: the first of its manifests that records one (a judged file's
    manifest, which copies its raw file's, then the raw file's), else its own."""
    return next((m[STANDS_FOR] for m in manifests if m and m.get(STANDS_FOR)), setting)


class StandingRun(Protocol):
    setting: str
    stands_for: str


R = TypeVar("R", bound=StandingRun)


def stand_in(runs: Iterable[R], setting: str) -> R | None:
    """Of one model's runs (under one judge), the run that stands for `setting`: the run of that very name,
    else the first that stands for it; None when none does."""
    runs = list(runs)
    return (next((r for r in runs if r.setting == setting), None)
            or next((r for r in runs if r.stands_for == setting), None))
