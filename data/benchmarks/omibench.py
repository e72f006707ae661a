"""OMIBench (Benchmarking Olympiad-Level Multi-Image Reasoning in LVLMs): its release and the judges of its
published numbers."""
from __future__ import annotations

from data.benchmarks import Benchmark, hub

BENCHMARK = Benchmark(
    name="omibench", paper="OMIBench", source=hub("LightChen2333/OMIBench"),
    default_judges=("rules", "omibench_c1", "omibench_gptscore"),
    adjudicator="omibench_gptscore", paper_data="omibench_T2")
