"""Think360° (Beyond Depth: Evaluating the Width-centric Reasoning Capability of MLLMs): its release, judges and
the facts its stages share."""
from __future__ import annotations

from data.benchmarks import Benchmark, hub

# The difficulty tiers, the five skills and the six question types, named and ordered as the paper's tables.
TIERS = ["Easy", "Basic", "Medium", "Hard", "Olympiad"]
SKILLS = ["Perceive-and-Comprehend", "Trial-and-Error", "Divide-and-Conquer", "Branch-and-Bound",
          "Hypothesize-and-Test"]
QUESTION_TYPES = ["Algebra", "Number Theory", "Combinatorics", "Geometry", "Probability & Statistics",
                  "Logic"]

BENCHMARK = Benchmark(
    name="think360", paper="Think360°", source=hub("Walnutes/Think360"),
    default_judges=("rules", "think360_cascade"),
    adjudicator="think360_judge", paper_data="think360_T3",
    release_file="testmini.jsonl")  # the paper runs its testmini split
