"""infer/layout.py: every result path as README's "Where outputs go" spells it (the one test that pins the literal
layout: a change to it shows here), each path taken apart and made again, and which run stands for a setting."""
from dataclasses import dataclass
from pathlib import Path

import pytest

from infer import layout as L

RESULTS = Path("results")
# A setting with dots and plus signs, and judge names with digits and underscores.
SETTING = "cot_boxed+temp0.6+caption"


def test_every_path_is_where_the_readme_says():
    raw = L.raw_path(RESULTS, "omibench", "m", "cot_boxed")
    judged = L.judged_path(RESULTS, "omibench", "m", "cot_boxed", "rules")
    page = L.browse_page(RESULTS, "omibench", "m", "cot_boxed")
    assert {
        "raw": raw,
        "raw manifest": L.manifest_of(raw),
        "inputs cache": L.inputs_cache_of(raw),
        "resume state": L.resume_state_of(raw),
        "judged": judged,
        "judged manifest": L.manifest_of(judged),
        "judge cache": L.judge_cache_path(RESULTS, "gpt-4o"),
        "adaptation log": L.adaptation_log_path(RESULTS, "morphobench", "m", "reasoning"),
        "server log": L.server_log_path(L.server_log_dir(RESULTS), "m"),
        "second server log": L.server_log_path(L.server_log_dir(RESULTS), "m", 1),
        "browse page": page,
        "browse chunk": L.browse_chunk(page, 12),
        "browse stamp": L.browse_stamp(page),
        "browse media": L.browse_media_dir(RESULTS),
        "table csv": L.table_file(RESULTS, "omibench.T2", "csv"),
        "table md": L.table_file(RESULTS, "omibench.T2", "md"),
        "table provenance": L.table_file(RESULTS, "omibench.T2", "provenance.json"),
        "figure": L.figure_path(Path("figures"), "omibench.F4a"),
        "figure copy": L.figure_copy(RESULTS, Path("figures/omibench.F4a.png")),
        "report md": L.report_path(RESULTS, "md"),
        "report html": L.report_path(RESULTS, "html"),
        "derived": L.derived_dir(RESULTS),
    } == {k: Path(v) for k, v in {
        "raw": "results/raw/omibench/m/cot_boxed.jsonl",
        "raw manifest": "results/raw/omibench/m/cot_boxed.manifest.json",
        "inputs cache": "results/raw/omibench/m/cot_boxed.inputs.json",
        "resume state": "results/raw/omibench/m/cot_boxed.resume.json",
        "judged": "results/judged/omibench/m/cot_boxed.rules.jsonl",
        "judged manifest": "results/judged/omibench/m/cot_boxed.rules.manifest.json",
        "judge cache": "results/judge_cache/gpt-4o.jsonl",
        "adaptation log": "results/adapt/morphobench/m/reasoning.jsonl",
        "server log": "results/logs/server-m.log",
        "second server log": "results/logs/server-m-1.log",
        "browse page": "results/browse/omibench/m/cot_boxed.html",
        "browse chunk": "results/browse/omibench/m/cot_boxed.items-0012.js",
        "browse stamp": "results/browse/omibench/m/cot_boxed.stamp.json",
        "browse media": "results/browse/media",
        "table csv": "results/tables/omibench.T2.csv",
        "table md": "results/tables/omibench.T2.md",
        "table provenance": "results/tables/omibench.T2.provenance.json",
        "figure": "figures/omibench.F4a.png",
        "figure copy": "results/figures/omibench.F4a.png",
        "report md": "results/report.md",
        "report html": "results/report.html",
        "derived": "results/derived",
    }.items()}
    # the globs that count a sweep's calls, under a results folder
    assert (L.JUDGE_CACHES, L.ADAPTATION_LOGS) == ("judge_cache/*.jsonl", "adapt/*/*/*.jsonl")
    # what a browse page's script loads its chunks by: the prefix, then the 4-digit index and .js
    assert L.browse_chunk_prefix(page) == "cot_boxed.items-"


def test_a_setting_with_dots_and_plus_signs_keeps_them_in_every_file_name():
    raw = L.raw_path(RESULTS, "omibench", "m", SETTING)
    judged = L.judged_path(RESULTS, "omibench", "m", SETTING, "omibench_c1")
    page = L.browse_page(RESULTS, "omibench", "m", SETTING)
    assert raw.name == "cot_boxed+temp0.6+caption.jsonl"
    # only the last suffix (.jsonl) is replaced, not the ".6+caption" a naive suffix rule would take for one
    assert L.manifest_of(raw).name == "cot_boxed+temp0.6+caption.manifest.json"
    assert L.inputs_cache_of(raw).name == "cot_boxed+temp0.6+caption.inputs.json"
    assert judged.name == "cot_boxed+temp0.6+caption.omibench_c1.jsonl"
    assert L.manifest_of(judged).name == "cot_boxed+temp0.6+caption.omibench_c1.manifest.json"
    assert L.browse_chunk(page, 0).name == "cot_boxed+temp0.6+caption.items-0000.js"
    assert L.browse_stamp(page).name == "cot_boxed+temp0.6+caption.stamp.json"


@pytest.mark.parametrize("results", [Path("results"), Path("/abs/elsewhere/res"), Path(".")])
@pytest.mark.parametrize("setting", ["cot_boxed", SETTING, "direct+temp0.7+io", "caption"])
@pytest.mark.parametrize("judge", ["rules", "omibench_c1", "omibench_rationale_quality"])
def test_a_path_taken_apart_gives_the_same_path_again(results, setting, judge):
    judged = L.judged_path(results, "think360", "qwen3-vl-8b-instruct", setting, judge)
    parts = L.parse_judged(judged)
    assert parts == (results, "think360", "qwen3-vl-8b-instruct", setting, judge)
    assert L.judged_path(*parts) == judged
    raw = L.raw_path(results, "think360", "qwen3-vl-8b-instruct", setting)
    assert parts.raw == raw  # the raw file the verdicts judge
    assert L.parse_raw(raw) == (results, "think360", "qwen3-vl-8b-instruct", setting)
    assert L.raw_path(*L.parse_raw(raw)) == raw


@pytest.mark.parametrize("path", [
    "results/raw/omibench/m/cot_boxed.jsonl",                # a raw file is not a judged file
    "results/judged/omibench/m/cot_boxed.rules.manifest.json",
    "results/judged/omibench/cot_boxed.rules.jsonl",         # no model folder
    "results/judged/omibench/m/cot_boxed.jsonl",             # no judge in the name
    "elsewhere/a.rules.jsonl",
])
def test_a_path_outside_the_judged_layout_is_refused(path):
    with pytest.raises(ValueError, match="not a judged file"):
        L.parse_judged(Path(path))


def test_a_path_outside_the_raw_layout_is_refused():
    for path in ("results/judged/omibench/m/s.rules.jsonl", "results/raw/omibench/m/s.manifest.json", "s.jsonl"):
        with pytest.raises(ValueError, match="not a raw file"):
            L.parse_raw(Path(path))


def test_a_judge_name_with_a_dot_is_refused_as_it_could_not_be_read_back():
    # "s.a.b.jsonl" would read back as setting "s.a", judge "b"
    with pytest.raises(ValueError, match="judge name"):
        L.judged_path(RESULTS, "omibench", "m", "s", "a.b")


def test_the_files_found_are_those_the_paths_name(tmp_path):
    made = [L.raw_path(tmp_path, "mira", "m", SETTING), L.raw_path(tmp_path, "omibench", "n", "cot_boxed"),
            L.judged_path(tmp_path, "omibench", "n", "cot_boxed", "rules"),
            L.judged_path(tmp_path, "omibench", "n", SETTING, "omibench_c1")]
    beside = [L.manifest_of(made[0]), L.inputs_cache_of(made[0]), L.manifest_of(made[2]),
              made[2].with_name(made[2].name + ".lock")]  # a writer's lock file
    for p in made + beside:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    assert L.raw_files(tmp_path) == sorted(made[:2])
    assert L.judged_files(tmp_path, "omibench") == sorted(made[2:])
    assert L.judged_benchmarks(tmp_path) == ["omibench"]
    page = L.browse_page(tmp_path, "omibench", "n", SETTING)
    for k in (0, 1, 10):
        L.browse_chunk(page, k).parent.mkdir(parents=True, exist_ok=True)
        L.browse_chunk(page, k).write_text("")
    L.browse_chunk(L.browse_page(tmp_path, "omibench", "n", "cot_boxed"), 2).write_text("")  # another page's
    assert L.browse_chunks(page) == {k: L.browse_chunk(page, k) for k in (0, 1, 10)}


def test_links_between_results_files_are_relative():
    md = L.table_file(RESULTS, "omibench.F4a", "md")
    assert L.link(md, L.figure_copy(RESULTS, Path("figures/omibench.F4a.png"))) == "../figures/omibench.F4a.png"
    report = L.report_path(RESULTS, "md")
    assert L.link(report, L.figure_copy(RESULTS, Path("/x/omibench.F4a.png"))) == "figures/omibench.F4a.png"
    assert L.link(report, L.browse_page(RESULTS, "omibench", "m", SETTING)) == \
        "browse/omibench/m/cot_boxed+temp0.6+caption.html"


@dataclass
class Run:
    setting: str
    stands_for: str


def test_the_run_of_a_settings_own_name_stands_for_it_else_one_that_says_it_does():
    caption = Run("cot_boxed+caption", "cot_boxed")
    own = Run("cot_boxed", "cot_boxed")
    assert L.stand_in([caption], "cot_boxed") is caption
    assert L.stand_in([caption, own], "cot_boxed") is own  # its own run first, wherever it is in the list
    assert L.stand_in([caption, own], "cot_boxed+caption") is caption  # a run also stands for its own setting
    assert L.stand_in([caption], "cot_boxed+text") is None
    # a generator is read once: both passes see every run
    assert L.stand_in((r for r in [caption, own]), "cot_boxed") is own


def test_a_run_stands_for_what_its_manifests_record_else_its_own_setting():
    assert L.caption_stand_in("cot_boxed") == "cot_boxed+caption"
    assert L.caption_stand_in("direct+temp0.7") == "direct+temp0.7+caption"
    raw = {"stands_for": "cot_boxed"}
    assert L.stands_for("cot_boxed+caption", raw) == "cot_boxed"
    assert L.stands_for("cot_boxed+caption", {"stands_for": "other"}, raw) == "other"  # the judged manifest first
    assert L.stands_for("cot_boxed+caption", {}, raw) == "cot_boxed"                   # then the raw file's
    assert L.stands_for("cot_boxed+caption", None, {"stands_for": None}) == "cot_boxed+caption"
    assert L.stands_for("cot_boxed+caption") == "cot_boxed+caption"
