"""What every section shares: the figures it reports, the quick/full sizes, and a cProfile summary."""
from __future__ import annotations

import cProfile
import io
import pstats
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


@dataclass
class Figure:
    """One line of the final table: the median of `values`, checked against `target` with `op`."""

    section: str
    name: str
    values: list[float]
    unit: str = ""
    target: float | None = None
    op: str = ">="  # ">=" or "<="
    note: str = ""
    base: list[float] | None = None  # the same figure of the base commit (--base), same rounds

    @property
    def measured(self) -> float:
        return statistics.median(self.values)

    @property
    def met(self) -> bool | None:
        if self.target is None:
            return None
        return self.measured >= self.target if self.op == ">=" else self.measured <= self.target

    @property
    def shortfall(self) -> str:
        """How far from the target, as a share of the target ("" when met or without a target)."""
        if self.met is not False:
            return ""
        gap = abs(self.measured - self.target) / self.target
        return f"{gap:.1%} {'below' if self.op == '>=' else 'above'} target" if gap < 0.1 else \
            f"{gap:.0%} {'below' if self.op == '>=' else 'above'} target"

    def as_dict(self) -> dict[str, Any]:
        return {"section": self.section, "figure": self.name, "measured": self.measured, "values": self.values,
                "unit": self.unit, "target": self.target, "op": self.op, "met": self.met, "note": self.note,
                "base": self.base}


@dataclass
class Mode:
    """Sizes of a run: `quick` finishes in about a minute, `full` in a few minutes."""

    name: str
    runs: int                      # repeats of the cheap measurements (medians are quoted)
    const_seconds: tuple[float, float]  # length of a constant-latency run: c = 1/16/64, c = 256
    const_runs: int
    skew_seconds: float            # length of one skewed-mix scheduling run
    skew_concurrency: list[int]
    overhead_requests: int         # per raw / ChatClient run
    openai_requests: int           # per openai run (it is ~8x slower)
    overhead_rounds: int
    memory_requests: int
    judge_responses: int
    analysis_lines: int
    analysis_runs: int
    scale: int | None = None          # --scale N: the size of the scale section's runs and the analysis tree
    base_tree: Path | None = None     # --base: the base commit's tree, measured in the same rounds (scale, analysis)
    details: dict[str, Any] = field(default_factory=dict)


QUICK = Mode("quick", runs=2, const_seconds=(5, 10), const_runs=1, skew_seconds=25, skew_concurrency=[256],
             overhead_requests=2000, openai_requests=400, overhead_rounds=4, memory_requests=20_000,
             judge_responses=20_000, analysis_lines=20_000, analysis_runs=1)
FULL = Mode("full", runs=3, const_seconds=(12, 20), const_runs=1, skew_seconds=30, skew_concurrency=[1, 16, 64, 256],
            overhead_requests=4000, openai_requests=1500, overhead_rounds=9, memory_requests=100_000,
            judge_responses=100_000, analysis_lines=100_000, analysis_runs=3)


def median(xs: list[float]) -> float:
    return statistics.median(xs)


GROUPS = (("tenacity", "/tenacity/"), ("aiohttp", "/aiohttp/"), ("multidict/yarl", "/multidict/"),
          ("multidict/yarl", "/yarl/"), ("openai", "/openai/"), ("httpx", "/httpx"), ("pydantic", "/pydantic"),
          ("math_verify", "/math_verify/"), ("latex2sympy", "/latex2sympy2"), ("sympy", "/sympy/"),
          ("antlr4 (LaTeX parser)", "/antlr4/"), ("json", "/json/"), ("inspect", "/inspect.py"), ("asyncio", "/asyncio/"), ("re", "/re/"),
          ("infer", "/infer/"), ("judge", "/judge/"), ("data", "/data/"), ("tqdm", "/tqdm/"),
          ("pandas", "/pandas/"), ("numpy", "/numpy/"), ("pyarrow", "/pyarrow/"), ("matplotlib", "/matplotlib/"),
          ("analysis", "/analysis/"), ("imports", "<frozen importlib"))


def _group(filename: str, func: str) -> str:
    for name, needle in GROUPS:
        if needle in filename:
            return name
    if filename == "~":  # built-ins: socket send/recv, json C code, regex C code ...
        return "builtins: " + func.split(" of ")[0].strip("<>{}").replace("method ", "").replace("built-in ", "")
    return "other"


def profile(fn: Callable[[], Any], top: int = 12, cumulative: list[str] = ()) -> dict[str, Any]:
    """Run fn under cProfile; return its top functions (own time), own time per package, and the
    cumulative share of each function named "path/part|function" in `cumulative`."""
    prof = cProfile.Profile()
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO())
    total = stats.total_tt or 1e-9
    rows = [(tt, ct, nc, f"{fn_[0].split('site-packages/')[-1].split('/work/main/')[-1]}:{fn_[1]}({fn_[2]})", fn_)
            for fn_, (cc, nc, tt, ct, callers) in stats.stats.items()]
    by_group: dict[str, float] = {}
    for tt, _, _, _, (filename, _, func) in rows:
        g = _group(filename, func)
        by_group[g] = by_group.get(g, 0.0) + tt
    rows.sort(reverse=True)
    shares = {}
    for want in cumulative:
        path, func = want.split("|")
        spent = [ct for _, ct, _, _, (filename, _, name) in rows if path in filename and name == func]
        shares[want] = round(max(spent, default=0.0) / total, 3)
    return {
        "total_s": total,
        "top_own_time": [{"share": round(tt / total, 3), "cum_share": round(ct / total, 3), "calls": nc, "function": name}
                         for tt, ct, nc, name, _ in rows[:top]],
        "by_package": {g: round(t / total, 3) for g, t in sorted(by_group.items(), key=lambda kv: -kv[1])[:top]},
        "cumulative": shares,
    }
