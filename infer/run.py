"""Run one (benchmark, data, model, setting): records × template × model config → raw outputs.

    python -m infer.run --bench omibench --data data/omibench/test.jsonl \
        --model configs/models/paper/qwen3-vl-8b-instruct.yaml --setting cot_boxed [--limit N] [--n K] [--max-tokens T]

Writes results/raw/<bench>/<model>/<setting>.jsonl (append-only, one line per request outcome) and
<setting>.manifest.json. A rerun sends only what is not done yet: new or changed prompts, new
samples, and requests that failed before. Requests go out while the data file is read, each record held only by
its requests in flight: a run of 10⁶ requests starts at once and keeps a bounded memory (`plan`, `checked`). The
next run starts where this one ended (<setting>.resume.json, infer/resume_state.py).
"""
from __future__ import annotations

import argparse
import itertools
import logging
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from data.jsonl import DataError, write_json_atomic
from data.dataset import Scan, read_records, scan_records
from data.benchmarks import BENCHMARKS
from infer.calls import checked_endpoints, send, servers
from infer.client import GaveUp
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.manifest import base_manifest, sha256_file, write_manifest
from infer.icl import DEFAULT_SHOTS, SEED as ICL_SEED
from infer.interrupt import exits_cleanly
from infer.launch import GPU_MEMORY_GB, Node, visible_gpus
from infer.layout import RESULTS, derived_dir, manifest_of, printed, raw_path, recorded
from infer.prompting import LaterMessages, Prompter
from infer.render import RenderError, has_images
from infer.request import Request, describe_causes, failure, raw_line, request_key
from infer.settings import merged_overrides, parse_setting, with_flags
from infer import resume_state
from infer.resume import Finished, context_digest
from infer.resume_state import Settling
from infer.store import AppendLog, LockedError
from infer.templates import PROMPTS, TemplateError

log = logging.getLogger(__name__)


@dataclass
class Tally:
    """What a run's plan has found so far (it is learnt as the data file is read, while the first requests are
    already sent): records read, requests of the run, and the (id, sample_idx, reason) of records that cannot be
    rendered."""

    records: int = 0
    total: int = 0
    failures: list[tuple[str, int, str]] = field(default_factory=list)


def plan(records: Iterable[tuple[dict[str, Any] | None, str, str]], base: Path, prompter: Prompter, cfg: ModelConfig,
         params: dict[str, Any], n: int, finished: Finished, tally: Tally, settling: Settling | None = None
         ) -> Iterator[Request]:
    """The requests still to send, one record at a time (data.dataset.scan_records: (record, id, line digest),
    record None for a line whose requests are all finished), counted into `tally`. A record whose requests are all
    finished from the same inputs (infer/resume.py) is not rendered; the others are rendered here for their keys,
    and the messages dropped: they are rendered again when sent. A request whose key has an earlier answer (a
    prompt edited and reverted) is not sent: `finished` notes that answer, to be made current again. `settling`
    learns which records need nothing more, for the next run (infer/resume_state.py)."""
    excluded = prompter.excluded_ids
    for rec, rid, line in records:
        tally.records += 1
        if rec is None:
            tally.total += n
            if settling:
                settling.settle(rid)
            continue
        if rid in excluded:
            continue
        inputs = finished.inputs(line, rec, base)
        settles = settling is not None and inputs == finished.inputs(line)  # it names no files (resume_state.py)
        if finished.done(rid, inputs):
            tally.total += n
            if settles:
                settling.settle(rid)
            continue
        try:
            messages = prompter.messages(rec, base)
            if has_images(messages) and not cfg.accepts_images:
                name = prompter.setting.template
                raise ConfigError(
                    f"{cfg.path}: model {cfg.name} is text-only (modalities: {cfg.modalities}) but setting "
                    f"{prompter.setting.name!r} sends images (record {rid}); use {name}+caption or {name}+text")
            # the resize policy changes what an image request sends, so it is part of the key; keying places
            # the images for the config's image placeholder, which refuses a text holding it (a RenderError)
            key = request_key(messages, {**params, "_max_image_pixels": cfg.max_image_pixels} if has_images(messages)
                              else params, cfg.model)
        except (RenderError, TemplateError) as e:
            tally.failures += [(rid, i, f"{type(e).__name__}: {e}") for i in range(n)]
            continue
        tally.total += n
        finished.confirm(rid, inputs, key)
        render = LaterMessages(prompter, rec, base)  # rendered again when sent
        to_send = [i for i in range(n) if not finished.has(rid, i, key) and not finished.reuse(rid, i, key)]
        if settles and to_send:
            settling.expect(rid, len(to_send))
        elif settles:
            settling.settle(rid)
        for i in to_send:
            yield Request(rid, i, key, render, prompter.setting.name, inputs=inputs)


def expected_requests(data: Path, limit: int | None, n: int, finished: Finished) -> int:
    """About how many requests a run will send, for its progress bar before the plan is through the data file:
    n per line of the file (blank lines counted too), less the requests already finished."""
    with open(data, "rb") as f:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 22), b""))
    lines = min(lines, limit) if limit is not None else lines
    return max(0, n * lines - finished.finished_count(n))


# Lines of the data file checked before the plan reaches them: a file this long or shorter is checked whole before
# the first request is sent (a bad line is refused with nothing written); a longer one is checked this far ahead of
# the plan, which keeps the first send quick and holds no more than this many records.
AHEAD = 20_000


def checked(records: Iterator[tuple[dict[str, Any] | None, str, str]], problems: list[str]
            ) -> Iterator[tuple[dict[str, Any] | None, str, str]]:
    """The records of a scan (data.dataset.scan_records), each given once the scan has checked AHEAD lines past it
    (or the whole file). Once a problem is found nothing more is given: the rest of the file is checked and every
    problem raised together (a DataError). In a file longer than AHEAD, a problem further on stops a run that has
    begun sending: the lines it wrote are whole answers to valid records, kept for the rerun once the file is
    mended."""
    ahead: deque[tuple[dict[str, Any] | None, str, str]] = deque()
    for item in records:
        if problems:
            break
        if item[0] is None:  # a line known finished: nothing to send, so nothing to hold back
            yield item
            continue
        ahead.append(item)
        if len(ahead) > AHEAD:
            yield ahead.popleft()
    for _ in records:
        pass
    if problems:
        raise DataError(problems)
    while ahead:
        yield ahead.popleft()


@dataclass
class RunPlan:
    """What one run is: its records, template, model and generation parameters, and its raw file."""

    bench: str
    data: Path
    cfg: ModelConfig
    setting: str
    results: Path
    limit: int | None
    n: int
    prompter: Prompter
    params: dict[str, Any]
    path: Path
    stands_for: str

    def version(self) -> tuple[int, int] | None:
        """The raw file's size and mtime; None while it holds nothing (AppendLog creates it empty)."""
        st = self.path.stat() if self.path.exists() else None
        return (st.st_size, st.st_mtime_ns) if st and st.st_size else None


@dataclass
class Planned:
    """The requests still to send, as a stream over the data file (`stream`, its first request taken out as
    `first`), what is finished, and what the plan learns as it reads: `tally`, and the scan and settling that
    save where the next run starts."""

    finished: Finished
    stream: Iterator[Request]
    tally: Tally
    scan: Scan | None = None
    settling: Settling | None = None
    first: Request | None = None


@dataclass
class DryRun:
    """What a run would do, nothing written or started: its requests, those it would send (`pending`, which a
    cost estimate samples), and the servers it would start (their commands)."""

    records: int
    requests: int
    to_send: int
    to_reuse: int
    unrenderable: int
    engine: str
    servers: list[str]
    pending: list[Request]
    params: dict[str, Any]


def plan_run(bench: str, data: Path, cfg: ModelConfig, setting: str, results: Path = RESULTS, *,
             limit: int | None = None, n: int = 1, overrides: dict[str, Any] | None = None,
             prompts: Path = PROMPTS, stands_for: str | None = None) -> RunPlan:
    """A run of `setting` (`stands_for`: the setting of the paper it stands for, recorded for the tables; a
    text-only model runs X+caption for the image setting X, infer/layout.py)."""
    if bench not in BENCHMARKS:
        raise ConfigError(f"--bench: unknown benchmark {bench!r} (known: {', '.join(BENCHMARKS)})")
    spec = parse_setting(setting)
    prompter = Prompter(bench, spec, prompts=prompts, derived=derived_dir(results))
    params = cfg.generation_params(spec.thinking, **merged_overrides(spec, overrides))
    return RunPlan(bench, data, cfg, setting, results, limit, n, prompter, params,
                   raw_path(results, bench, cfg.name, setting), stands_for or setting)


def prepare(p: RunPlan) -> Planned:
    """The finished requests, and the plan: a stream over the data file, each record read when the plan reaches
    it and held only by the requests that render it, so the first request goes out at once. A run that reads the
    whole data file starts where the last one ended (infer/resume_state.py), and learns where the next will
    start."""
    tally = Tally()
    if p.prompter.demo_template:  # demonstrations are drawn from every record: all are read, then known
        records = read_records(p.data, p.bench, p.limit)
        p.prompter.draw_demos(records.records)  # before the context digest, which holds the demonstrations
        finished = Finished(p.path, context_digest(p.bench, p.prompter, p.cfg, p.params, p.data.parent), p.n)
        lines: Iterator[tuple[dict[str, Any] | None, str, str]] = (
            (rec, rec["id"], d) for rec, d in zip(records.records, records.digests))
        return Planned(finished, plan(lines, p.data.parent, p.prompter, p.cfg, p.params, p.n, finished, tally), tally)
    context = context_digest(p.bench, p.prompter, p.cfg, p.params, p.data.parent)
    state = resume_state.load(p.path, context, p.n, p.data) if p.limit is None else None
    finished = Finished(p.path, context, p.n, state)
    scan = Scan(finished.state.skip if finished.state else None) if p.limit is None else None
    settling = Settling(scan) if scan else None
    if finished.state:
        tally.records = tally.total = finished.settled_count  # the settled records, not read again
        tally.total *= p.n
    problems: list[str] = []
    lines = checked(scan_records(p.data, p.bench, problems, p.limit, finished.known, scan), problems)
    stream = plan(lines, p.data.parent, p.prompter, p.cfg, p.params, p.n, finished, tally, settling)
    return Planned(finished, stream, tally, scan, settling)


def preview(p: RunPlan, node: Node | None = None) -> DryRun:
    """What the run would send and the servers it would start (`node`: the GPUs they may use)."""
    planned = prepare(p)
    pending = list(planned.stream)  # the cost estimate samples them; the servers to start depend on the prompts
    return DryRun(planned.tally.records, planned.tally.total, len(pending), len(planned.finished.reused),
                  len(planned.tally.failures), p.cfg.engine, [x.describe() for x in servers(pending, p.cfg, p.params,
                                                                                             node)],
                  pending, p.params)


def execute(p: RunPlan, node: Node | None = None) -> tuple[Planned, dict[str, Any]]:
    """Send what is not done and write one raw line per outcome; the plan as it ended and the send's counts.

    Planned up to the first request to send before taking the lock, so a refused setting (or a data file that is
    not there) leaves no file behind, and a run with nothing to send checks no endpoint; planned again under the
    lock only if the file changed in between (another run wrote to it, or a cut last line was removed)."""
    seen, planned = p.version(), prepare(p)
    planned.first = next(planned.stream, None)
    urls = None  # an unset key and endpoints that do not answer are said before any file is made
    if planned.first is not None and p.cfg.engine == "http":
        p.cfg.api_key()
        urls = checked_endpoints(p.cfg)
    with AppendLog(p.path) as out:
        if p.version() != seen:
            planned = None  # dropped before planning again
            planned = prepare(p)
            planned.first = next(planned.stream, None)
        settling = planned.settling

        def write(line: dict[str, Any]) -> None:
            out.write(line)
            if settling:
                settling.wrote(line)

        pending = itertools.chain([planned.first], planned.stream) if planned.first is not None else iter(())
        stats = send(pending, p.cfg, p.params, write, p.results, f"{p.cfg.name}/{p.setting}", node, urls,
                     total=lambda: expected_requests(p.data, p.limit, p.n, planned.finished))
        _settle(p, planned, write)
    return planned, stats


def _settle(p: RunPlan, planned: Planned, write: Callable[[dict[str, Any]], None]) -> None:
    """After sending: what the plan knows is saved, unrenderable records recorded once, earlier answers made
    current again, and where the next run starts."""
    finished = planned.finished
    finished.save()
    for rid, i, reason in planned.tally.failures:  # recorded once, not again on every rerun
        if finished.failed_with(rid, i) != reason:
            write(raw_line(rid, i, "", p.cfg, p.setting, p.params, failure(reason)))
    for line in finished.reused_lines():  # earlier answers of these very requests, current again
        write(line)
    if planned.scan and planned.settling:
        resume_state.save(p.path, finished.context, p.n, planned.scan, planned.settling, finished.latest)


def report(p: RunPlan, planned: Planned, stats: dict[str, Any]) -> dict[str, Any]:
    """The run's counts, logged and written to its manifest with everything its answers depend on."""
    tally, finished, sent = planned.tally, planned.finished, stats["ok"] + stats["failed"]
    log.info("%s/%s/%s: %d requests, %d already done (%d of them answers to an earlier prompt), %d sent, "
             "%d unrenderable", p.bench, p.cfg.name, p.setting, tally.total, tally.total - sent, len(finished.reused),
             sent, len(tally.failures))
    counts = {"records": tally.records, "requests": tally.total, "sent": sent, "reused": len(finished.reused),
              "ok": stats["ok"], "failed": stats["failed"], "failed_by_cause": stats["causes"],
              "unrenderable": len(tally.failures), "excluded": len(p.prompter.excluded_ids)}
    prompter, cfg, spec = p.prompter, p.cfg, p.prompter.setting
    idle = not sent and not finished.reused  # nothing sent, no earlier answer made current again
    write_manifest(manifest_of(p.path), idle=idle, volatile=("written", "counts"), manifest=base_manifest(
        benchmark=p.bench, setting=p.setting, stands_for=p.stands_for,
        data={"path": recorded(p.data), "sha256": data_sha256(p.data, planned.scan)},
        templates={**prompter.shas(), **cfg.system_shas()}, model=cfg.public_dict(),
        reasoning=cfg.reasoning_of(spec.thinking), params=p.params, n=p.n, limit=p.limit, counts=counts,
        image_policy={"max_pixels": cfg.max_image_pixels, "larger": "scaled down (aspect kept), sent as PNG"},
        excluded_ids=sorted(prompter.excluded_ids), raw=recorded(p.path),
        icl={"seed": ICL_SEED, "pool_size": len(prompter.pool), "shots": spec.shots or DEFAULT_SHOTS,
             "demo_images": spec.demo_images or "all"} if prompter.pool else None))
    return counts


def run(bench: str, data: Path, cfg: ModelConfig, setting: str, results: Path = RESULTS, *,
        limit: int | None = None, n: int = 1, overrides: dict[str, Any] | None = None,
        prompts: Path = PROMPTS, stands_for: str | None = None, node: Node | None = None) -> dict[str, Any]:
    """Do what is not done yet; return the run's counts (also written to the manifest). `node`: the GPUs the
    model's own servers may use. See `plan_run` for `stands_for`; `preview` says what a run would do."""
    p = plan_run(bench, data, cfg, setting, results, limit=limit, n=n, overrides=overrides, prompts=prompts,
                 stands_for=stands_for)
    planned, stats = execute(p, node)
    return report(p, planned, stats)


def data_sha256(data: Path, scan: Scan | None) -> str:
    """The data file's sha256: the scan's, when it read the file whole (a second read of 10⁶ lines is a second)."""
    if scan is not None and scan.end == data.stat().st_size:
        return scan.sha.hexdigest()
    return sha256_file(data)


def nothing_succeeded(counts: dict[str, Any]) -> bool:
    """Whether the run has no answer at all: it sent requests, every one failed, and none of its requests was
    answered before (its command then exits non-zero). A rerun retrying a few requests that keep failing beside
    earlier answers is not a failed run: its failures are recorded, counted by cause and in the tables."""
    answered_before = counts["requests"] - counts["sent"] - counts["unrenderable"]
    return counts["sent"] > 0 and counts["ok"] == 0 and answered_before <= 0


def describe_sent(counts: dict[str, Any]) -> str:
    """"sent 3 (1 ok, 2 failed: 2 × HTTP 500 after 7 attempts)"."""
    causes = f": {describe_causes(counts['failed_by_cause'])}" if counts["failed"] else ""
    return f"sent {counts['sent']} ({counts['ok']} ok, {counts['failed']} failed{causes})"


def print_preview(dry: DryRun, path: Path) -> int:
    print(f"{printed(path)}: would send {dry.to_send} of {dry.requests} requests ({dry.unrenderable} unrenderable) "
          f"with engine {dry.engine}")
    print(f"servers to start: {len(dry.servers)}" + "".join(f"\n  {c}" for c in dry.servers))
    return 0


def add_node_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--gpus", help="GPUs for the model's own servers, e.g. 0-7: split into tensor-parallel "
                    "groups, one server each (default: CUDA_VISIBLE_DEVICES)")
    ap.add_argument("--gpu-memory-gb", type=float, default=GPU_MEMORY_GB,
                    help="memory of one GPU, for the tensor-parallel size (default: %(default)s, the papers' A800)")


def node_from(args: argparse.Namespace) -> Node:
    return Node(tuple(visible_gpus(args.gpus)), args.gpu_memory_gb)


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m infer.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, choices=BENCHMARKS)
    ap.add_argument("--data", required=True, type=Path, help="unified JSONL (data/README.md)")
    ap.add_argument("--model", required=True, type=Path, help="configs/models/<name>.yaml")
    ap.add_argument("--setting", required=True, help="prompt name and modifiers, e.g. cot_boxed+caption (infer/settings.py)")
    ap.add_argument("--limit", type=int, help="only the first N records")
    ap.add_argument("--n", type=int, default=1, help="samples per record")
    ap.add_argument("--max-tokens", type=int, help="the token budget, written into the setting as +max<N>")
    ap.add_argument("--temperature", type=float, help="the temperature, written into the setting as +temp<X>")
    ap.add_argument("--results", type=Path, default=RESULTS)
    add_node_args(ap)
    ap.add_argument("--dry-run", action="store_true", help="print what would be sent and the servers that would "
                    "be started (their commands), then stop: nothing is written or started")
    args = ap.parse_args(argv)
    try:
        cfg = load_model_config(args.model)
        setting = with_flags(args.setting, args.max_tokens, args.temperature)
        if setting != args.setting:
            log.info("setting %s: --max-tokens / --temperature are written into its name, as %s", args.setting,
                     setting)
        p = plan_run(args.bench, args.data, cfg, setting, args.results, limit=args.limit, n=args.n)
        if args.dry_run:
            return print_preview(preview(p, node_from(args)), p.path)
        counts = report(p, *execute(p, node_from(args)))
    except (DataError, ConfigError, TemplateError, LockedError, ValueError, GaveUp) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    path = printed(p.path)
    print(f"{path}: {describe_sent(counts)}, "
          f"{counts['unrenderable']} unrenderable, {counts['requests'] - counts['sent']} already done "
          f"({counts['reused']} answers to an earlier prompt made current again)")
    if nothing_succeeded(counts):
        print(f"error: none of the {counts['sent']} requests sent succeeded", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
