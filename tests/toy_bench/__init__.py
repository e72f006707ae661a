"""A sixth benchmark made entirely in this folder: its module (here), a converter, a release of a few items, a
prompt and one table. tests/test_add_benchmark.py registers it and runs it through every stage."""
from __future__ import annotations

from pathlib import Path

from data.benchmarks import Benchmark, Source

HERE = Path(__file__).resolve().parent

BENCHMARK = Benchmark(
    name="toybench", paper="ToyBench", source=Source(None, "https://example.org/toybench"),
    default_judges=("rules",), fields={"topic": str},
    converter="tests.toy_bench.converter", demo="tests.toy_bench.converter", tables="tests.toy_bench.tables",
    prompts=HERE / "prompts")
