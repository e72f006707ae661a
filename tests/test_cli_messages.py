"""What the commands say: a mistyped name is one line with the nearest names and runs nothing; a missing
prerequisite is one line naming what to run first; a sweep ends with its totals; a table is printed; help
texts name only paths that exist."""
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from data.files import read_yaml
from data.jsonl import write_jsonl_atomic
from data.benchmarks import BENCHMARKS
from infer.experiment_spec import EXPERIMENTS, PAPER_MODELS
from infer.layout import adaptation_log_path, judged_dir, manifest_of, raw_dir, raw_path, report_path
from pipeline import demo, experiments, sweep_advice, sweep_totals
from tests.analysis_fixtures import make_run, write_data
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent


def clean_env() -> dict[str, str]:
    """The environment of a machine with no endpoint or key configured."""
    return {k: v for k, v in os.environ.items() if not re.search(r"(_API_KEY|_URL|APIPassword)$", k)}


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=clean_env(), capture_output=True, text=True,
                          timeout=300)


def error_lines(p: subprocess.CompletedProcess) -> list[str]:
    """stderr without the progress bar and log lines."""
    return [x for x in p.stderr.splitlines() if x.strip() and not re.match(r"(INFO|WARNING) |.*runs: ", x)]


# --- --only and analysis.run ids ------------------------------------------------------------------------

@pytest.mark.parametrize("name, nearest", [("omibench.t2", "omibench.T2"), ("morphobench.T1T2", "morphobench.T1-T2"),
                                           ("think360.t5", "think360.T5")])
def test_a_mistyped_only_is_one_line_with_the_nearest_ids_and_runs_nothing(tmp_path, name, nearest):
    results = tmp_path / "results"
    p = cli("pipeline.experiments", "--only", name, "--results", str(results))
    assert p.returncode == 2
    assert error_lines(p) == [p.stderr.strip()], "one line, nothing else"
    line = p.stderr.strip()
    assert line.startswith(f"error: --only {name}: no such experiment or table id; did you mean {nearest}")
    assert p.stdout == "" and not results.exists()


def test_only_names_that_select_nothing_stop_before_anything_runs(tmp_path):
    results = tmp_path / "results"
    p = cli("pipeline.experiments", "--only", "omibench.T2", "think360.T1", "nonsense", "--results", str(results))
    assert p.returncode == 2 and p.stdout == "" and not results.exists()
    assert error_lines(p) == [
        "error: --only think360.T1: the table think360.T1 reads no model run (it is made from the data, the model "
        "configs or external files); python -m analysis.run think360.T1 makes it",
        "error: --only nonsense: no such experiment or table id (experiment ids: the `id` of "
        "configs/experiments/*.yaml; table ids: python -m analysis.run --list)"]


def test_a_table_id_selects_the_experiments_whose_runs_it_reads():
    ids = {read_yaml(f)["id"] for f in EXPERIMENTS.glob("*.yaml")}
    # Figure 16 compares two judges on Table 2's runs; Fig. 3(c) reads the first-image and the no-image runs;
    # an experiment id is that experiment alone, and the note says what else its table reads
    assert experiments.resolve_only(["omibench.F16"], ids) == (
        {"omibench.T2"}, ["--only omibench.F16: the table omibench.F16 reads the runs of omibench.T2"], [])
    assert experiments.resolve_only(["omibench.F3c"], ids)[0] == {"omibench.F3c"}
    selected, notes, _ = experiments.resolve_only(["omibench.F7", "mira.T7"], ids)
    assert selected == {"omibench.F7", "mira.T4-T10"}
    assert notes[0] == ("--only omibench.F7: the experiment omibench.F7; the table omibench.F7 also reads the runs "
                        "of omibench.T2 (add them to --only)")
    # case-sensitively exact: a table id in other case is not taken for it
    assert experiments.resolve_only(["OMIBENCH.T2"], ids)[0] == set()


def test_the_table_map_covers_every_table_and_names_only_experiments_that_exist():
    from analysis.table_experiments import RUNS_OF
    from analysis.run import registry

    modules = registry()
    ids = {read_yaml(f)["id"] for f in EXPERIMENTS.glob("*.yaml")}
    stems = {f.stem: read_yaml(f)["id"] for f in EXPERIMENTS.glob("*.yaml")}
    assert set(RUNS_OF) == set(modules)
    assert {e for reads in RUNS_OF.values() for e in reads} <= ids
    assert ids <= {e for reads in RUNS_OF.values() for e in reads}, "every experiment is read by some table"
    # where a table module names the experiments it reads (file stems or ids), the map has them
    for table_id, module in modules.items():
        named = []
        for attr in ("EXPERIMENT", "EXPERIMENTS"):
            value = getattr(module, attr, None)
            value = value.get(table_id) if isinstance(value, dict) else value
            named += [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
        assert {stems.get(n, n) for n in named} <= set(RUNS_OF[table_id]), table_id


def test_an_unknown_table_id_suggests_the_nearest_and_writes_nothing(tmp_path):
    results = tmp_path / "results"
    p = cli("analysis.run", "omibench.t2", "--results", str(results))
    assert p.returncode == 2 and p.stdout == ""
    assert error_lines(p) == ["error: unknown table id 'omibench.t2'; did you mean omibench.T2? "
                              "(python -m analysis.run --list)"]
    p = cli("analysis.run", "morphobench.T1-T2", "--results", str(results))
    assert p.returncode == 2 and error_lines(p) == [
        "error: unknown table id 'morphobench.T1-T2'; morphobench.T1-T2 is an experiment, whose runs the tables "
        "morphobench.T1, morphobench.T2 read (python -m analysis.run --list)"]
    assert not results.exists()


def test_a_table_without_its_runs_says_which_command_makes_them(tmp_path):
    p = cli("analysis.run", "omibench.F16", "--results", str(tmp_path / "results"), "--figures", str(tmp_path))
    assert p.returncode == 1
    (line,) = p.stdout.splitlines()
    assert line.startswith("omibench.F16: missing: ")
    # Figure 16 compares two judges on Table 2's runs: the command names that experiment
    assert "; make its runs with python -m pipeline.experiments [--profile paper] --only omibench.T2 (" in line


# Every "make its runs" hint: `--profile paper` where the demo runs one of the experiments not at all
HINT = re.compile(r"python -m pipeline\.experiments (?:\[--profile paper\] |--profile paper )--only ([^\s(;)]+(?: [^\s(;)]+)*)")


def missing_lines(tmp_path) -> dict[str, str]:
    """Every table that reads runs, built with none there: what analysis.run prints after `<id>: missing: `."""
    from analysis import run as analysis_run
    from analysis.table import Context
    from analysis.table_experiments import RUNS_OF

    modules, ctx = analysis_run.registry(), Context(tmp_path / "results", tmp_path / "figures")
    out = {}
    for table_id in (t for t in modules if RUNS_OF[t]):
        o = analysis_run.build(table_id, ctx, modules)
        if o.state == "ok":  # built from the data and external files alone (the checkout's demo sets, once made)
            assert not o.table.provenance.runs, (table_id, "built from runs that are not there")
            continue
        assert o.state == "missing", (table_id, o.state, o.message)
        out[table_id] = o.message + analysis_run.how_to_make(table_id, o)
    return out


def test_every_table_missing_its_runs_names_exactly_the_experiments_it_reads(tmp_path):
    """A table's hint comes from RUNS_OF (analysis.table_experiments.how_to_run): every `--only` it prints names
    exactly the experiments whose runs the table reads, in RUNS_OF's order, and pipeline.experiments takes them."""
    from analysis.table_experiments import RUNS_OF, in_demo

    ids = {read_yaml(f)["id"] for f in EXPERIMENTS.glob("*.yaml")}
    lines = missing_lines(tmp_path)
    for table_id, line in lines.items():
        hints = HINT.findall(line)
        assert hints, f"{table_id} does not say which command makes its runs: {line}"
        for named in hints:
            assert named.split() == list(RUNS_OF[table_id]), (table_id, line)
            assert experiments.resolve_only(named.split(), ids) == (set(RUNS_OF[table_id]), [], [])
        paper_only = [e for e in RUNS_OF[table_id] if not in_demo(e)]
        assert ("[--profile paper]" in line) == (not paper_only), (table_id, line)
    # Table 6's runs are its composite-image experiment's, which the demo does not run
    line = lines["omibench.T6"]
    assert "python -m pipeline.experiments --profile paper --only omibench.T6 (the demo does not run omibench.T6)" \
        in line and "omibench.F3c" not in line


def planned_settings(experiment_ids: tuple[str, ...]) -> set[str]:
    """The settings `pipeline.experiments --only <ids>` plans runs of, in either profile (a demo run stands for
    the experiment's setting it replaces)."""
    chosen = [experiments.load_experiment(f) for f in sorted(EXPERIMENTS.glob("*.yaml"))]
    return {job.stands_for for exp in chosen if exp.id in experiment_ids
            for profile in ("paper", "demo") for job in experiments.plan_jobs(exp, profile)}


def test_the_experiments_a_hint_names_plan_runs_of_the_settings_the_table_reads(tmp_path, monkeypatch):
    """Every setting a table asks for (by Context.runs / verdicts / judged, with no runs there) is planned by the
    experiments its hint names: running them makes what the table reads."""
    import analysis.inputs
    import analysis.table
    from analysis.table_experiments import RUNS_OF

    asked: list[tuple[str, ...]] = []
    real = analysis.inputs.chosen_runs

    def recording(results, bench, settings, judge):
        asked.append(tuple(settings))
        return real(results, bench, settings, judge)

    monkeypatch.setattr(analysis.inputs, "chosen_runs", recording)
    monkeypatch.setattr(analysis.table, "chosen_runs", recording)
    from analysis import run as analysis_run
    from analysis.table import Context

    modules, ctx = analysis_run.registry(), Context(tmp_path / "results", tmp_path / "figures")
    checked = 0
    for table_id in (t for t in modules if RUNS_OF[t]):
        asked.clear()
        analysis_run.build(table_id, ctx, modules)
        wanted = {s for settings in asked for s in settings}
        assert wanted <= planned_settings(RUNS_OF[table_id]), (table_id, wanted - planned_settings(RUNS_OF[table_id]))
        checked += bool(wanted)
    assert checked >= 40  # most tables ask by setting; the others find their runs by pattern or by external files


# --- analysis.run prints the table ---------------------------------------------------------------------

def test_one_table_is_printed_with_the_paper_beside_it_quiet_keeps_the_path_line(tmp_path):
    results = tmp_path / "results"
    data = write_data(tmp_path / "think360.jsonl", [
        {"id": f"q{i}", "benchmark": "think360", "skills": ["Perceive-and-Comprehend"], "question_type": ["Algebra"],
         "difficulty": "Easy"} for i in range(4)])
    # Think360 Table 3 (a model of its experiment, GPT-4.1, which the paper has too): 3 of 4 correct = 75.00
    make_run(results, "think360", "gpt-4.1", "direct+temp0.7", "rules", data,
             [{"id": f"q{i}", "correct": i < 3} for i in range(4)])
    p = cli("analysis.run", "think360.T3", "--results", str(results), "--figures", str(tmp_path / "figures"))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert re.fullmatch(r"think360\.T3: ok: .*think360\.T3\.md \(\d+\.\d\ds\)", lines[0])
    assert lines[2].startswith("1 of 6 cells consistent with the paper")  # the first line: the verdicts counted
    assert lines[3].startswith("Think360° Table 3")  # the caption
    beside = lines.index("Beside the paper:")
    row = next(x for x in lines[:beside] if x.startswith("gpt-4.1"))
    assert "75.00" in row.split()
    assert any(x.startswith("gpt-4.1") and "24.80" in x.split() for x in lines[beside:]), "ours beside the paper's"
    quiet = cli("analysis.run", "think360.T3", "--quiet", "--results", str(results), "--figures", str(tmp_path / "f"))
    assert quiet.returncode == 0 and quiet.stdout.splitlines() == [quiet.stdout.splitlines()[0]]
    assert quiet.stdout.startswith("think360.T3: ok: ")


def test_all_keeps_one_line_per_table(tmp_path):
    p = cli("analysis.run", "--all", "--results", str(tmp_path / "results"), "--figures", str(tmp_path))
    listed = cli("analysis.run", "--list").stdout.split()
    assert [x.split(":")[0] for x in p.stdout.splitlines()] == listed


# --- missing prerequisites: one line, what to run first ---------------------------------------------------

CONVERT = ("file not found; fetch and convert the official release first: python -m data.download omibench (or, "
           "from a release you have: python -m data.convert omibench --src <release folder> --out "
           "data/omibench/test.jsonl)")


def test_the_gpu_example_before_any_data_is_converted_is_one_line(tmp_path):
    # README, GPU nodes: the dry run before data.convert
    results = tmp_path / "results"
    p = cli("infer.run", "--bench", "omibench", "--data", "data/omibench/test.jsonl", "--model",
            "configs/models/paper/qwen2.5-vl-7b.yaml", "--setting", "cot_boxed", "--gpus", "0-7", "--dry-run",
            "--results", str(results))
    assert p.returncode == 1 and "Traceback" not in p.stderr and p.stdout == ""
    assert error_lines(p) == [f"error: data/omibench/test.jsonl: -: {CONVERT}"]
    assert not results.exists()


@pytest.mark.parametrize("args", [
    ("data.validate", "data/omibench/test.jsonl"),
    ("judge.rules", "--data", "data/omibench/test.jsonl", "--pred", "p.jsonl", "--out", "{tmp}/v.jsonl"),
])
def test_readme_commands_on_data_not_converted_say_to_convert_it(tmp_path, args):
    p = cli(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert error_lines(p)[0].endswith(f"data/omibench/test.jsonl: -: {CONVERT}")
    assert list(tmp_path.iterdir()) == []


def test_adapting_before_the_data_is_converted_is_one_line(tmp_path):
    p = cli("pipeline.morphobench_adapt", "recognition", "--data", "data/morphobench/test.jsonl", "--model",
            "configs/models/paper/o3.yaml", "--out", str(tmp_path / "adapted"), "--results", str(tmp_path / "r"))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert error_lines(p) == ["error: data/morphobench/test.jsonl: -: file not found; fetch and convert the official "
                              "release first: python -m data.download morphobench (or, from a release you have: "
                              "python -m data.convert morphobench --src <release folder> --out "
                              "data/morphobench/test.jsonl)"]
    assert list(tmp_path.iterdir()) == []


def test_agreement_of_files_that_do_not_exist_is_an_error_not_an_empty_comparison(tmp_path):
    p = cli("judge.agreement", "pair", "A.rules.jsonl", "A.omibench_gptscore.jsonl", "--out", str(tmp_path / "agr"))
    assert p.returncode == 1 and p.stdout == ""
    assert error_lines(p) == ["error: no such file: A.rules.jsonl, A.omibench_gptscore.jsonl (verdict files come "
                              "from python -m judge.run: results/judged/<bench>/<model>/<setting>.<judge>.jsonl)"]
    assert not (tmp_path / "agr").exists()


def test_the_demo_profile_without_the_demo_sets_says_to_make_them(tmp_path, monkeypatch, capsys):
    for module in (experiments, sweep_advice):  # a checkout where run_all.sh has not made them yet
        monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(experiments, "DEMO_BUILD", tmp_path / "data" / "demo" / "build")
    results = tmp_path / "results"
    totals = sweep_totals.Totals()  # as pipeline.demo calls it, through the command's Ctrl-C guard
    assert experiments.main(["--only", "omibench.T2", "--results", str(results)], totals=totals) == 1
    out, err = capsys.readouterr()
    assert "data/demo/build/omibench.jsonl: no such file (1 run(s) of omibench.T2); bash run_all.sh makes it" \
           in out.splitlines()
    assert err.splitlines()[-1] == "error: nothing ran: bash run_all.sh makes the demo data first"
    assert not results.exists()


# --- the paper profile with no keys ---------------------------------------------------------------------

def test_the_paper_profile_with_no_keys_lists_each_variable_once_and_runs_nothing(tmp_path):
    results = tmp_path / "results"
    p = cli("pipeline.experiments", "--profile", "paper", "--results", str(results))
    assert p.returncode == 1 and not results.exists()
    out = p.stdout.splitlines()
    assert not any("not configured (" in x for x in out), "no line per run"
    assert "beyond the papers" not in p.stdout, "nothing ran: nothing to mark"
    head = next(i for i, x in enumerate(out) if x.startswith("== not configured: "))
    listed = [x for x in out[head + 1:] if not x.startswith("(")]
    variables = [x.split(": ")[0] for x in listed]
    assert len(variables) == len(set(variables))
    # every OpenAI model any experiment runs or judges with, under the one OPENAI_API_KEY line
    used = {m for f in EXPERIMENTS.glob("*.yaml") for m in experiments.load_experiment(f).all_models
            + experiments.load_experiment(f).judge_models}
    openai = {m for m in used if read_yaml(PAPER_MODELS / f"{m}.yaml").get("api_key_env") == "OPENAI_API_KEY"}
    (line,) = [x for x in listed if x.startswith("OPENAI_API_KEY: ")]
    assert set(line.removeprefix("OPENAI_API_KEY: ").split(", ")) == openai
    assert "QWEN25_VL_7B_URL: qwen2.5-vl-7b" in listed
    # with no release converted here, the data is said first, then the keys: a newcomer needs both
    assert error_lines(p)[-1] == ("error: nothing ran: get the data above first; the models not configured need "
                                  "the environment variables above")
    assert "python -m data.download omibench" in p.stdout


def run_all_paper_with_a_sweep_exiting(tmp_path, status: int) -> subprocess.CompletedProcess:
    """run_all.sh's own control flow, with stand-ins for setup.sh and the Python commands: the sweep exits with
    `status`, every other command with 0; each call is listed in calls.txt."""
    (tmp_path / "run_all.sh").write_text((ROOT / "run_all.sh").read_text())
    (tmp_path / "setup.sh").write_text("exit 0\n")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "$*" >> calls.txt\n[ "$2" = pipeline.experiments ] && exit {status}\nexit 0\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return subprocess.run(["bash", "run_all.sh", "--profile", "paper"], cwd=tmp_path, capture_output=True, text=True)


def test_run_all_paper_does_not_rebuild_the_report_when_its_sweep_ran_nothing(tmp_path):
    p = run_all_paper_with_a_sweep_exiting(tmp_path, 1)
    assert p.returncode == 1
    assert (tmp_path / "calls.txt").read_text().splitlines() == [
        "-m pipeline.experiments --profile paper --results results"], "analysis.run is not called"
    assert p.stderr.strip() == "run_all.sh: the paper profile's sweep exited with 1 (above); the report was not rebuilt"


# --- a sweep's totals -----------------------------------------------------------------------------------

def test_a_sweep_ends_with_requests_sent_reused_failed_and_judge_calls(tmp_path, scripted_server, monkeypatch, capsys):
    """Three passes over four MIRA items with GPT-4o-mini behind a scripted endpoint: temperature 0.5, then
    0.9, then 0.5 again, whose answers are made current again without a request. One item always fails (400)."""
    def script(body, attempt):
        text = json.dumps(body)
        if "FAIL" in text and "judge" not in text.lower():
            return Reply.error(400)
        # in MIRA's answer tag, not its gold's very text: the published judge asks its model (judge/mira_acc.py)
        return Reply.ok(f"The answer is <answer>1 ({body.get('temperature')})</answer>")

    srv = scripted_server(script=script)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    data = tmp_path / "mira.jsonl"
    write_jsonl_atomic(data, [{"id": f"r{i}", "benchmark": "mira", "question": "FAIL" if i == 3 else f"q{i}",
                               "images": [], "choices": [], "answer": ["1"], "answer_type": "numeric",
                               "task": "Convex Hull"} for i in range(4)])
    exp, results = tmp_path / "e.yaml", tmp_path / "results"

    def sweep(temperature):
        exp.write_text(json.dumps({"id": "e", "caption": "c", "benchmark": "mira", "settings": ["direct"],
                                   "data": str(data), "added_models": {"gpt-4o-mini": "a test"},
                                   "params": {"temperature": temperature}, "judges": ["rules", "mira_judge"],
                                   "judge_model": "gpt-4o-mini"}))
        assert experiments.main([str(exp), "--profile", "paper", "--results", str(results)]) == 0
        out = capsys.readouterr().out.splitlines()
        return out[out.index("== paper profile, in all ==") + 1:]

    where = (f"results: {raw_dir(results)}/ (model outputs), {judged_dir(results)}/ (verdicts); the report: python -m "
             f"analysis.run --all --report --results {results} ({report_path(results, 'html')})")
    # 4 sent, the failed one among them; the judge model is asked about the 3 answers
    assert sweep(0.5) == ["1 run(s): 4 request(s) sent, 0 reused (answers to an earlier prompt made current again), "
                          "1 failed, 0 already done; 3 judge call(s) sent, 0 failed", where]
    # new parameters, new answers, new judge calls; the failed request is tried again
    assert sweep(0.9)[0] == ("1 run(s): 4 request(s) sent, 0 reused (answers to an earlier prompt made current "
                             "again), 1 failed, 0 already done; 3 judge call(s) sent, 0 failed")
    # back to 0.5: the 3 answers are reused and their verdicts' judge replies are in the judge's log; the failed
    # request is sent again
    assert sweep(0.5)[0] == ("1 run(s): 1 request(s) sent, 3 reused (answers to an earlier prompt made current "
                             "again), 1 failed, 0 already done; 0 judge call(s) sent, 0 failed")


def test_a_rerun_that_sends_nothing_counts_nothing_sent_even_where_its_manifest_is_written_again(
        tmp_path, scripted_server, monkeypatch, capsys):
    """A run answered by a first sweep, then read by an experiment of a smaller limit: nothing is sent, yet the
    manifest is written again (its limit differs) with the counts of the call that wrote the answers. The
    totals are this call's."""
    srv = scripted_server(script=lambda body, attempt: Reply.ok("The answer is <answer>1</answer>"))
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    data = tmp_path / "mira.jsonl"
    write_jsonl_atomic(data, [{"id": f"r{i}", "benchmark": "mira", "question": f"q{i}", "images": [], "choices": [],
                               "answer": ["1"], "answer_type": "numeric", "task": "Convex Hull"} for i in range(4)])
    exp, results = tmp_path / "e.yaml", tmp_path / "results"

    def sweep(**more):
        exp.write_text(json.dumps({"id": "e", "caption": "c", "benchmark": "mira", "settings": ["direct"],
                                   "data": str(data), "added_models": {"gpt-4o-mini": "a test"},
                                   "judges": ["rules"], **more}))
        assert experiments.main([str(exp), "--profile", "paper", "--results", str(results)]) == 0
        out = capsys.readouterr().out.splitlines()
        return out[out.index("== paper profile, in all ==") + 1]

    assert sweep().startswith("1 run(s): 4 request(s) sent, 0 reused")
    manifest = manifest_of(raw_path(results, "mira", "gpt-4o-mini", "direct"))
    before = manifest.read_text()
    assert sweep(limit=2).startswith("1 run(s): 0 request(s) sent, 0 reused (answers to an earlier prompt made "
                                     "current again), 0 failed, 2 already done")
    assert manifest.read_text() != before and srv.count == 4  # written again, nothing sent


def test_the_demo_sums_both_sweeps_and_counts_the_adaptation_calls(tmp_path, monkeypatch, capsys):
    results = tmp_path / "results"
    sweeps = iter([sweep_totals.Totals(runs=40, requests=140, sent=131, failed=2, judge_calls=183),
                   sweep_totals.Totals(runs=1, requests=4, sent=3, reused=1, judge_calls=6, judge_failed=1)])

    def sweep(args, totals=None):
        totals.add(next(sweeps))
        return 0

    def adapt(args):
        log = adaptation_log_path(results, "morphobench", "m", args[0])
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as f:
            f.write(json.dumps({"request_key": "k", "error": None}) + "\n"
                    + json.dumps({"request_key": "k2", "error": "HTTP 500"}) + "\n")
        return 0

    monkeypatch.setattr(experiments, "main", sweep)
    monkeypatch.setattr(demo, "MAINS", {"pipeline.experiments": sweep, "pipeline.morphobench_adapt": adapt,
                                        "data.convert": lambda args: 0})
    assert demo.main(["--results", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[out.index("== the demo, in all ==") + 1] == (
        "41 run(s): 134 request(s) sent, 1 reused (answers to an earlier prompt made current again), 2 failed, "
        "9 already done; 189 judge call(s) sent, 1 failed; 4 adaptation call(s) sent, 2 failed")
    assert out[-1].startswith(f"results: {raw_dir(results)}/ (model outputs)")


# --- judge.rules names what it could not match ----------------------------------------------------------

def test_judge_rules_names_the_ids_it_could_not_match(tmp_path):
    data, pred = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    write_jsonl_atomic(data, [{"id": f"r{i}", "benchmark": "mira", "question": "q", "images": [], "choices": [],
                               "answer": ["1"], "answer_type": "numeric"} for i in range(3)])
    write_jsonl_atomic(pred, [{"id": "r0", "response": "\\boxed{1}"}]
                       + [{"id": f"x{i}", "response": "1"} for i in range(7)])
    p = cli("judge.rules", "--data", str(data), "--pred", str(pred), "--out", str(tmp_path / "v.jsonl"))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert "7 prediction(s) matching no record" in lines[0]
    assert lines[1:] == [f"predictions matching no record of {data}: 'x0', 'x1', 'x2', 'x3', 'x4', … (7 in all)",
                         f"records without a prediction in {pred}: 'r1', 'r2' (2)",
                         f"verdicts: {tmp_path / 'v.jsonl'}"]


# --- help texts name only paths that exist ----------------------------------------------------------------

def entry_points() -> list[str]:
    found = []
    for package in ("data", "infer", "judge", "analysis", "pipeline", "perf"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            if path.name == "__main__.py":
                found.append(".".join(rel.parent.parts))
            elif path.name != "__init__.py" and 'if __name__ == "__main__"' in path.read_text(encoding="utf-8"):
                found.append(".".join(rel.parts))
    return found


def help_texts(module: str) -> str:
    top = cli(module, "--help")
    assert top.returncode == 0, top.stderr
    texts = [top.stdout]
    if m := re.search(r"\{([\w,]+)\} \.\.\.", top.stdout.split("\n\n")[0]):  # subcommands: their help too
        texts += [cli(module, sub, "--help").stdout for sub in m[1].split(",")]
    return "\n".join(texts)


def tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def ignored(path: str) -> bool:
    """Whether git ignores the path, as a file or as a folder (which need not exist)."""
    return any(subprocess.run(["git", "check-ignore", "-q", "--no-index", p], cwd=ROOT).returncode == 0
               for p in (path, path.rstrip("/") + "/"))


PATH = re.compile(r"[\w.<>{}*-]+(?:/[\w.<>{}*-]*)+")
PLACEHOLDER = re.compile(r"<[^>/]*>|\{[^}/]*\}|\*")


def named_paths(text: str, files: list[str]) -> list[str]:
    """Paths in the repository a text names: those starting at one of its top-level folders (outputs the
    repository ignores, and data/<benchmark>/, where releases are converted, left out), and documents and
    scripts named alone (*.md, *.sh)."""
    tops = {f.split("/")[0] for f in files if "/" in f}
    paths = [p.rstrip(".,:;") for p in PATH.findall(text)]
    out = [p for p in paths if p.split("/")[0] in tops and not ignored(p)
           and not (p.split("/")[0] == "data" and p.split("/")[1] in BENCHMARKS)]
    out += [w for w in re.findall(r"(?<![\w/.<{*-])[\w.-]+\.(?:md|sh)\b", text) if not PLACEHOLDER.search(w)]
    return out


def exists(path: str, files: list[str]) -> bool:
    if PLACEHOLDER.search(path):  # a pattern: something in the repository must match it
        pattern = re.escape(PLACEHOLDER.sub("\0", path.rstrip("/"))).replace("\0", "[^/]*")
        return any(re.fullmatch(pattern + "(/.*)?", f) for f in files)
    if "/" not in path:
        return any(f.split("/")[-1] == path for f in files)
    return any(f == path.rstrip("/") or f.startswith(path.rstrip("/") + "/") for f in files)


def test_the_path_finder_sees_what_a_help_text_names():
    files = tracked()
    text = ("reads configs/experiments/*.yaml and configs/models/paper/, writes results/raw/<bench>/x.jsonl, "
            "data/omibench/test.jsonl; see TABLES.md, README.md, analysis/<benchmark>/<table>.py and prompts/nope.txt.")
    named = named_paths(text, files)
    assert named == ["configs/experiments/*.yaml", "configs/models/paper/", "analysis/<benchmark>/<table>.py",
                     "prompts/nope.txt", "TABLES.md", "README.md"]
    assert [p for p in named if not exists(p, files)] == ["prompts/nope.txt", "TABLES.md"]


@pytest.mark.parametrize("module", entry_points())
def test_help_names_only_paths_that_exist(module):
    files = tracked()
    missing = sorted({p for p in named_paths(help_texts(module), files) if not exists(p, files)})
    assert missing == [], f"python -m {module} --help names {missing}"


def test_judge_run_with_every_default_judge_says_a_missing_input_once(tmp_path, capsys):
    """Every judge of `--judge default` needs the data file and the raw file: what is missing is one line, not
    one per judge, and nothing is written."""
    from judge import run as judge_run

    args = ["--bench", "omibench", "--model", "m", "--setting", "cot_boxed", "--judge", "default",
            "--results", str(tmp_path / "results")]
    assert judge_run.main(["--data", str(tmp_path / "none.jsonl"), *args]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "none.jsonl" in line and "python -m data.convert omibench" in line
    data = write_data(tmp_path / "omibench.jsonl", [{"id": "q0", "benchmark": "omibench", "answer": ["1"]}])
    assert judge_run.main(["--data", str(data), *args]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"{raw_path(tmp_path / 'results', 'omibench', 'm', 'cot_boxed')}: no raw outputs" in line
    assert "python -m infer.run first" in line and not judged_dir(tmp_path / "results").exists()


def test_a_data_file_elsewhere_is_made_by_data_convert_alone(tmp_path):
    """data.download writes data/<bench>/<its file>, or --out DIR/<its file>: another name is data.convert's."""
    p = cli("data.validate", str(tmp_path / "omibench" / "subset.jsonl"))
    assert p.returncode == 1
    assert error_lines(p)[0].endswith(f"file not found; convert the official release first: python -m data.convert "
                                      f"omibench --src <release folder> --out {tmp_path}/omibench/subset.jsonl")
    p = cli("data.validate", str(tmp_path / "think360" / "testmini.jsonl"))
    assert f"python -m data.download think360 --out {tmp_path}/think360 (or" in error_lines(p)[0]


@pytest.mark.parametrize("module", ["infer.run", "judge.run", "analysis.run", "pipeline.experiments", "data.convert",
                                    "data.demo", "data.generate", "judge.rules", "judge.tot"])
def test_help_names_the_command_to_type(module):
    p = cli(module, "--help")
    assert p.returncode == 0 and p.stdout.startswith(f"usage: python -m {module} ")
