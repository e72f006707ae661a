"""Results travel with their checkout: a checkout (the project's code, a data file under data/, results made there
by the real commands against a scripted model and judge) is copied elsewhere and the original deleted; the tables
rebuilt in the copy are byte for byte those of the original, and nothing under its results/ names a path of the
machine. A data file moved within the copy is found by its checksum; one that is gone makes the tables that read
its runs fail, naming it."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

from data.jsonl import write_jsonl_atomic
from infer.layout import ROOT
from tests.scripted_server import Reply, ScriptedServer

DATA = Path("data/demo/build/omibench.jsonl")  # where the demo sets are made: the demo profile
LEFT_OUT = ("tests", "perf")  # not needed to make or read results


def script(body: dict, attempt: int) -> Reply:
    i = int(re.search(r"question (\d+)", json.dumps(body["messages"])).group(1))
    if body["model"] == "m":  # the evaluated model: right on two items of three
        return Reply.ok("So \\boxed{%d}." % (1 if i % 3 else 2))
    return Reply.ok("ANSWER: " + ("consistent" if i % 2 else "inconsistent"))  # the GPTScore judge


def copy_code(dest: Path) -> None:
    """The project's files as a clone has them (tracked and new, not ignored), without results or a venv."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        if name.split("/")[0] not in LEFT_OUT and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


def command(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    """A command of the checkout, run in it as a user runs it (its own code, paths relative to it)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(checkout.parent / "cache"), "MPLBACKEND": "Agg",
           "MPLCONFIGDIR": matplotlib.get_cachedir()}  # its font cache, not made again
    return subprocess.run([sys.executable, "-m", *args], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=300)


def config(checkout: Path, name: str, model: str, url: str) -> str:
    path = Path("configs/models") / f"{name}.yaml"
    fields = {"name": name, "model": model, "base_urls": [url], "modalities": ["text"], "max_tokens": 16,
              "max_retries": 1, "backoff_base": 0.01, "concurrency": 4}
    (checkout / path).write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return str(path)


def tables(results: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((results / "tables").iterdir()) if p.suffix in (".csv", ".md")}


def machine_paths(results: Path, *also: str) -> list[str]:
    """Files under `results` holding an absolute path of this machine (or one of `also`), with what they hold."""
    marks = [str(ROOT), str(results.parent), "/tmp/", "/home/", "/root/", *also]
    return [f"{p.relative_to(results)}: {m}" for p in sorted(results.rglob("*")) if p.is_file()
            for m in marks if m.encode() in p.read_bytes()]


@pytest.fixture(scope="module")
def travelled(tmp_path_factory) -> tuple[Path, dict[str, bytes], str]:
    """Checkout B, a copy of checkout A made after A's runs and tables, A deleted; A's tables; A's path."""
    tmp = tmp_path_factory.mktemp("travel")
    a, b = tmp / "checkout-a", tmp / "checkout-b"
    copy_code(a)
    recs = [{"id": f"q{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", "subject": ["Mathematics", "Physics"][i % 2],
             "solution": "One."} for i in range(8)]
    (a / DATA).parent.mkdir(parents=True)
    write_jsonl_atomic(a / DATA, recs)
    with ScriptedServer(script=script) as srv:
        model, judge = config(a, "scripted-model", "m", srv.base_url), config(a, "scripted-judge", "j", srv.base_url)
        done = command(a, "infer.run", "--bench", "omibench", "--data", str(DATA), "--model", model,
                       "--setting", "cot_boxed")
        assert done.returncode == 0, done.stderr
        done = command(a, "judge.run", "--bench", "omibench", "--data", str(DATA), "--model", "scripted-model",
                       "--setting", "cot_boxed", "--judge", "rules", "omibench_gptscore", "--judge-model", judge)
        assert done.returncode == 0, done.stderr
    done = command(a, "analysis.run", "--all", "--report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "report: results/report.md" in done.stdout  # printed relative to where it ran
    built = tables(a / "results")
    assert "omibench.T2.csv" in built
    shutil.copytree(a, b, symlinks=True)
    shutil.rmtree(a)
    for made in ("tables", "figures", "browse", "report.md", "report.html"):  # made again from the runs alone
        path = b / "results" / made
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    done = command(b, "analysis.run", "--all", "--report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert str(a) not in done.stdout + done.stderr and str(b) not in done.stdout
    return b, built, str(a)


def test_the_copy_rebuilds_the_same_tables_and_names_no_machine_path(travelled):
    b, built, a = travelled
    assert tables(b / "results") == built
    assert machine_paths(b / "results", a, "checkout-a") == []
    judged = json.loads((b / "results/judged/omibench/scripted-model/cot_boxed.rules.manifest.json").read_text())
    raw = json.loads((b / "results/raw/omibench/scripted-model/cot_boxed.manifest.json").read_text())
    assert judged["data"] == raw["data"] and raw["data"]["path"] == DATA.as_posix()  # with its checksum
    assert raw["model"]["path"] == "configs/models/scripted-model.yaml"


def test_a_moved_data_file_is_found_by_its_checksum_and_a_gone_one_fails(travelled):
    b, built, _ = travelled
    moved = b / "data" / "omibench" / "kept-elsewhere.jsonl"
    moved.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(b / DATA, moved)
    done = command(b, "analysis.run", "omibench.T2", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if "kept-elsewhere" in line]
    assert len(said) == 1 and DATA.as_posix() in said[0], done.stderr  # one line: which file it read for which
    assert (b / "results/tables/omibench.T2.csv").read_bytes() == built["omibench.T2.csv"]
    moved.unlink()
    done = command(b, "analysis.run", "--all", "--report")
    assert done.returncode == 1, done.stdout + done.stderr  # its runs are there: not a table never run
    line = next(x for x in done.stdout.splitlines() if x.startswith("omibench.T2:"))
    assert f"missing: the data file {DATA.as_posix()} is gone" in line and "pipeline.experiments" not in line
    assert "Traceback" not in done.stderr and "report: results/report.md" in done.stdout  # the report says it too
    assert f"the data file {DATA.as_posix()} is gone" in (b / "results" / "report.md").read_text()
