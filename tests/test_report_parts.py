"""What the report's top says, read from the runs' manifests, and a model's part of the tables."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analysis.by_model import models_read, parts_of
from analysis.inputs import Run
from analysis.origin import origin
from data.checkout import is_demo_data
from analysis.provenance import Provenance
from analysis.table import Table
from infer.layout import manifest_of, raw_path

EMBEDDED = {"name": "tiny", "model": "Tiny-1B", "modalities": ["text"],
            "server": {"command": ["{python}", "-m", "llama_cpp.server", "--model", "{pkg:tiny_pkg}/tiny.gguf"]}}
API = {"name": "big", "model": "big-2025", "modalities": ["text", "image"]}


def run(results: Path, bench: str, model: dict, data: str, sha: str, commit: str = "a" * 40) -> None:
    raw = raw_path(results, bench, model["name"], "cot")
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text("")
    manifest_of(raw).write_text(json.dumps({"data": {"path": data, "sha256": sha}, "model": model,
                                            "git": {"commit": commit, "dirty": False},
                                            "written": "2026-01-02T03:04:05+0000"}))


def test_demo_data_is_told_by_where_the_demo_sets_are_made_in_any_checkout():
    assert is_demo_data("/elsewhere/checkout/data/demo/build/mira.jsonl")
    assert not is_demo_data("/home/u/harness/data/mira/test.jsonl")
    assert not is_demo_data("/data/demo/mira.jsonl")


def test_the_demo_profile_and_its_banner_follow_from_the_runs(tmp_path):
    run(tmp_path, "mira", EMBEDDED, "/x/data/demo/build/mira.jsonl", "1" * 64)
    run(tmp_path, "omibench", EMBEDDED, "/x/data/demo/build/omibench.jsonl", "2" * 64)
    o = origin(tmp_path)
    assert o.profile == "demo"
    assert [(d.bench, d.kind, d.digest(), d.runs) for d in o.data] == [("omibench", "demo", "2" * 64, 1),
                                                                      ("mira", "demo", "1" * 64, 1)]
    assert o.banner().startswith("Demo profile: the numbers come from the embedded text-only model Tiny-1B (tiny) ")
    assert "not comparable with the papers" in o.banner()
    assert dict(o.rows())["runs made at commit"] == "aaaaaaaaaaaa (2 runs)"


def test_release_data_is_the_paper_profile_without_a_banner_and_a_mix_is_said(tmp_path):
    run(tmp_path, "mira", API, "/x/data/mira/test.jsonl", "3" * 64)
    o = origin(tmp_path)
    assert (o.profile, o.banner(), o.data[0].kind) == ("paper", None, "release")
    run(tmp_path, "omibench", EMBEDDED, "/x/data/demo/build/omibench.jsonl", "2" * 64, commit="b" * 40)
    o = origin(tmp_path)
    assert o.profile == "mixed (demo data for omibench)"
    assert "model Tiny-1B (tiny) on procedural demo sets for omibench" in o.banner()
    assert dict(o.rows())["runs made at commit"] == "aaaaaaaaaaaa (1 run); bbbbbbbbbbbb (1 run)"


def fake_run(model: str) -> Run:
    return Run("omibench", model, "cot", "rules", Path(f"/r/judged/omibench/{model}/cot.rules.jsonl"))


def test_a_models_part_is_its_rows_or_its_column_and_the_papers_numbers_for_it():
    by_row = Table("t", pd.DataFrame({"model": ["a", "b", "a"], "setting": ["x", "x", "y"], "acc": [1.0, 2.0, 3.0]}),
                   vs_paper=pd.DataFrame({"model": ["a", "b"], "ours": [1.0, 2.0], "paper": [1.5, 2.5],
                                          "diff": [-0.5, -0.5]}),
                   provenance=Provenance([fake_run("a"), fake_run("b")]))
    by_column = Table("t", pd.DataFrame({"level": [1, 2], "human": [5.0, 6.0], "a": [10.0, 20.0], "b": [30.0, 40.0]}),
                      provenance=Provenance([fake_run("a"), fake_run("b")]))
    not_b = Table("t", pd.DataFrame({"model": ["a", "b"], "acc": [7.0, 8.0]}), provenance=Provenance([fake_run("a")]))
    tables = {"omibench.T2": by_row, "omibench.F9": by_column, "omibench.F2": not_b}
    assert models_read(tables) == ["a", "b"]
    [row_part, column_part, _] = parts_of("a", tables)
    assert row_part.rows.to_dict("list") == {"model": ["a", "a"], "setting": ["x", "y"], "acc": [1.0, 3.0]}
    assert row_part.vs_paper.to_dict("list") == {"model": ["a"], "ours": [1.0], "paper": [1.5], "diff": [-0.5]}
    assert column_part.rows.to_dict("list") == {"level": [1, 2], "human": [5.0, 6.0], "a": [10.0, 20.0]}
    assert column_part.vs_paper is None
    # b's runs were not read by the third table (its row there is not b's numbers)
    assert [p.table_id for p in parts_of("b", tables)] == ["omibench.T2", "omibench.F9"]
