"""C²RBench (A Chinese Complex Reasoning Benchmark for LLMs): its release and the judges of its published numbers."""
from __future__ import annotations

from data.benchmarks import Benchmark, Source

BENCHMARK = Benchmark(
    name="c2rbench", paper="C²RBench",
    # The paper (footnote 2) names only its GitHub repository; no Hub dataset is published.
    source=Source(None, "https://github.com/tjunlp-lab/C2Rbench"),
    default_judges=("rules", "c2rbench_judge"),
    adjudicator="c2rbench_judge", paper_data="c2rbench_main")
