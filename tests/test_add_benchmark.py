"""A sixth benchmark added without touching the stages: tests/toy_bench/ holds its module, converter, release,
prompt and table; registered, it goes through convert → infer (a scripted server) → judge → its table → the
report, and every stage finds it through data/benchmarks/ alone."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis import run as analysis_run
from analysis.table import Context
from data import benchmarks
from data.convert import convert
from infer.config import load_model_config
from infer.run import run as infer_run
from judge.run import run as judge_run
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.toy_bench import BENCHMARK
from tests.toy_bench.converter import RELEASE


@pytest.fixture
def toy():
    benchmarks.register(BENCHMARK)
    yield BENCHMARK
    benchmarks.unregister(BENCHMARK.name)


def answer(body: dict, attempt: int) -> Reply:
    """Right on the sums, wrong on the products."""
    a, op, b = re.search(r"What is (\d+) (\+|times) (\d+)", json.dumps(body["messages"])).groups()
    return Reply.ok("So \\boxed{%d}." % (int(a) + int(b) if op == "+" else int(a) * int(b) + 1))


def test_a_toy_benchmark_goes_through_every_stage_from_its_own_folder(toy, tmp_path, scripted_server, capsys):
    data = tmp_path / "toybench.jsonl"
    records = convert("toybench", RELEASE, data)
    assert [r["topic"] for r in records] == ["sums", "sums", "products", "products"]

    srv = scripted_server(script=answer)
    cfg = tmp_path / "m.yaml"
    cfg.write_text(f"name: m\nmodel: m\nbase_urls: [{json.dumps(srv.base_url)}]\nmodalities: [text]\nmax_tokens: 16\n")
    results = tmp_path / "results"
    counts = infer_run("toybench", data, load_model_config(cfg), "direct", results)
    assert (counts["sent"], counts["ok"]) == (4, 4)
    assert "put the final answer in \\\\boxed{}" in json.dumps(srv.requests[0]["messages"])  # its own prompt
    summary = judge_run("toybench", data, "m", "direct", "rules", results, None)
    assert summary["correct"] == 2

    assert "toybench.T1" in analysis_run.registry()
    status = analysis_run.main(["toybench.T1", "--results", str(results), "--quiet"])
    assert status == 0, capsys.readouterr()
    table = (results / "tables" / "toybench.T1.csv").read_text()
    assert table.splitlines()[1].startswith("m,50.0")  # right on the two sums of four
    status = analysis_run.main(["--all", "--report", "--results", str(results)])
    report = (results / "report.md").read_text()
    assert "ToyBench" in report and "ToyBench Table 1" in report


def test_the_benchmark_module_is_the_only_place_it_is_named(toy):
    assert "toybench" in benchmarks.BENCHMARKS and benchmarks.paper_name("toybench") == "ToyBench"
    from judge.judges import default_judges
    from infer.templates import load_template
    assert default_judges("toybench") == ["rules"]
    assert load_template("toybench", "direct").path == BENCHMARK.prompts / "direct.txt"
    outside = [p for p in Path(__file__).resolve().parent.parent.rglob("*.py")
               if "toybench" in p.read_text(encoding="utf-8") and "tests" not in p.relative_to(
                   Path(__file__).resolve().parent.parent).parts[:1]]
    assert outside == []  # no stage names it


def test_a_benchmark_without_a_judge_model_leaves_an_undecided_answer_undecided_in_the_careful_cascade(toy):
    from judge.careful_cascade import CarefulCascade
    from judge.types import Item
    rec = {"id": "toy-9", "benchmark": "toybench", "question": "How does the reading change?", "images": [],
           "choices": [], "answer": ["It stays the same"], "answer_type": "text"}
    steps = CarefulCascade().steps(Item(rec, "So the final answer is \\boxed{unchanged}"))
    with pytest.raises(StopIteration) as done:
        next(steps)  # no ask: its module names no adjudicator
    assert done.value.value["status"] == "undecided" and done.value.value["stage"] == "rules"
