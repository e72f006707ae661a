"""What a sweep did, summed over its runs: the model requests its runs' manifests count, and the calls appended to
the judge and adaptation logs while it ran (each sent request appends one line). pipeline.experiments prints them
after a sweep; pipeline.demo sums its sweeps."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data.jsonl import parse_line
from infer import layout


@dataclass
class Totals:
    """What a sweep did, summed over its runs: model requests and judge calls."""

    runs: int = 0
    requests: int = 0
    sent: int = 0
    reused: int = 0       # answers to an earlier prompt made current again, not sent
    failed: int = 0       # after the retries, and items that could not be rendered
    to_send: int = 0      # --dry-run
    judge_calls: int = 0  # sent to a judge model (a reply from the judge's log is not a call)
    judge_failed: int = 0

    def add(self, other: "Totals") -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def lines(self, results: Path, dry_run: bool = False) -> list[str]:
        if dry_run:
            return [f"{self.runs} run(s): would send {self.to_send} request(s); nothing was written, started or judged"]
        return [f"{self.runs} run(s): {self.sent} request(s) sent, {self.reused} reused (answers to an earlier "
                f"prompt made current again), {self.failed} failed, "
                f"{self.requests - self.sent - self.reused} already done; {self.judge_calls} judge call(s) sent, "
                f"{self.judge_failed} failed",
                f"results: {layout.raw_dir(results)}/ (model outputs), {layout.judged_dir(results)}/ (verdicts); the "
                f"report: python -m analysis.run --all --report --results {results} "
                f"({layout.report_path(results, 'html')})"]


def log_sizes(results: Path, pattern: str) -> dict[Path, int]:
    """The size of every call log matching `pattern` under results, to count what is appended after."""
    return {p: p.stat().st_size for p in results.glob(pattern)}


def calls_since(results: Path, pattern: str, sizes: dict[Path, int]) -> tuple[int, int]:
    """Calls logged since `sizes` was taken (each sent request appends one line): (calls, failed)."""
    calls = failed = 0
    for path in sorted(results.glob(pattern)):
        with open(path, "rb") as f:
            f.seek(min(sizes.get(path, 0), path.stat().st_size))
            for raw in f:
                line, _ = parse_line(raw)
                if line is not None:
                    calls += 1
                    failed += line.get("error") is not None
    return calls, failed


def run_totals(counts: dict[str, Any]) -> Totals:
    """The model requests of one run as infer.run reported them for this call: never read back from the run's
    manifest, which keeps the counts of the call that wrote the answers when a rerun does nothing
    (infer/manifest.py)."""
    return Totals(requests=counts.get("requests", 0), sent=counts.get("sent", 0), reused=counts.get("reused", 0),
                  failed=counts.get("failed", 0) + counts.get("unrenderable", 0))
