"""MorphoBench (A Benchmark with Difficulty Adaptive to Model Reasoning): its release and the judges of its
published numbers."""
from __future__ import annotations

from data.benchmarks import Benchmark, hub

BENCHMARK = Benchmark(
    name="morphobench", paper="MorphoBench", source=hub("OpenDCAI/MorphoBench"),
    default_judges=("rules", "morphobench_correctness"),
    adjudicator="morphobench_correctness", paper_data="morphobench_main")
