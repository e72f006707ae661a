"""Fetch a benchmark's published release from the Hugging Face Hub, then convert and validate it.

    python -m data.download BENCHMARK [--out DIR] [--skip-download]

The release is downloaded into ``DIR/release/`` (DIR defaults to ``data/<benchmark>``) with
``huggingface_hub.snapshot_download``: an interrupted download resumes, ``HF_TOKEN`` and a mirror in
``HF_ENDPOINT`` are honoured. It is then converted into ``DIR/<split>.jsonl`` by the benchmark's
converter (``data.convert``: every record checked, every image opened; on a problem nothing is written).
Without the Hub, one line says what to download by hand and where to put it; ``--skip-download`` then
converts what is in ``DIR/release/``.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from data.convert import convert, print_problems
from data.jsonl import DataError
from data.benchmarks import BENCHMARKS, get as _benchmark

log = logging.getLogger(__name__)


class DownloadError(Exception):
    """The release could not be fetched; the message is the one line telling the user what to do."""


def _n_files(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def download(benchmark: str, release: Path, pause_s: float | None = None) -> Path:
    """Fetch the benchmark's Hub dataset into `release` (resuming what is there); return the folder."""
    from huggingface_hub import snapshot_download  # the download is the only use; keep `data` light

    source = _benchmark(benchmark).source
    then = f"then run: python -m data.download {benchmark} --out {release.parent} --skip-download"
    if source.repo is None:
        raise DownloadError(f"{benchmark}: no Hugging Face dataset is published; put the data files of "
                            f"{source.page} into {release}/, {then}")
    pause_s = source.pause_s if pause_s is None else pause_s
    release.mkdir(parents=True, exist_ok=True)
    for i, patterns in enumerate(source.parts):
        before = _n_files(release)
        try:
            folder = snapshot_download(repo_id=source.repo, repo_type="dataset", local_dir=release,
                                       allow_patterns=list(patterns) or None)
        except Exception as e:  # any failure of the Hub client ends in the same advice
            reason = (str(e).strip().splitlines() or [""])[0][:160]
            raise DownloadError(f"{benchmark}: cannot download {source.repo} ({type(e).__name__}: {reason}); "
                                f"download {source.page} by hand into {release}/ (hf download {source.repo} "
                                f"--repo-type dataset --local-dir {release}), {then}") from None
        release = Path(folder)
        if pause_s and i + 1 < len(source.parts) and _n_files(release) != before:
            log.info("%s: part %d/%d fetched; waiting %.0f s (Hub rate limits)", benchmark, i + 1,
                     len(source.parts), pause_s)
            time.sleep(pause_s)
    return release


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m data.download", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("benchmark", choices=BENCHMARKS)
    ap.add_argument("--out", type=Path, help="folder of the converted data (default: data/<benchmark>); "
                                             "the release goes to its release/ folder")
    ap.add_argument("--skip-download", action="store_true", help="convert what is already in OUT/release/")
    ap.add_argument("--pause", type=float, help="seconds between the parts of a download made in parts "
                                                "(MIRA: one per task, 60 as its official script waits)")
    args = ap.parse_args(argv)
    out_dir = args.out or Path("data") / args.benchmark
    release = out_dir / "release"
    try:
        if not args.skip_download:
            release = download(args.benchmark, release, args.pause)
        elif not any(release.iterdir() if release.is_dir() else ()):
            raise DownloadError(f"{args.benchmark}: {release}/ is empty or missing; put the release there "
                                f"(from {_benchmark(args.benchmark).source.page}) or run without --skip-download")
    except DownloadError as e:
        print(e, file=sys.stderr)
        return 2
    out = out_dir / _benchmark(args.benchmark).release_file
    try:
        records = convert(args.benchmark, release, out)
    except DataError as e:
        print_problems(e, out)
        return 1
    print(f"{out}: {len(records)} records from {release}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
