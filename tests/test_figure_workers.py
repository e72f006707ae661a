"""Figures drawn by worker processes while analysis.run builds tables (analysis/background.py, analysis.plot.draw):
the same files as drawn in place, a figure's failure as its table's error, what happens when a worker dies or a
call cannot be sent, and analysis.run's use of them."""
from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from analysis import background, plot
from analysis.table import ROOT, Context
from infer.layout import table_file
from tests.analysis_fixtures import make_run, omibench_physics


@pytest.fixture
def judged_results(tmp_path):
    """A results folder with one omibench cot_boxed run of two items, judged by both judges."""
    data = omibench_physics(tmp_path / "omibench.jsonl")
    res = tmp_path / "results"
    for judge in ("rules", "omibench_gptscore"):
        make_run(res, "omibench", "gpt-4o", "cot_boxed", judge, data,
                 [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    return res


@pytest.fixture
def forking(monkeypatch):
    """A process that may fork its figure writers: two cores, and no other thread (another test's server
    may still be winding down in this process; analysis.run itself starts none)."""
    if background.cores() < 2:
        pytest.skip("figures are written in the background only with a second core")
    monkeypatch.setattr(background.threading, "active_count", lambda: 1)


def _bar_figure(title):
    fig, ax = plot.subplots(figsize=(3, 2))
    plot.bars(ax, [0, 1], [40.0, 0.0], 0.5)
    ax.set_title(title)
    return fig


# Figure functions for analysis.plot.draw: module-level, so that a worker can be sent them (pickled by name).
def bar_png(title, path):
    """Note which process drew the figure (in the file $FIGURE_WRITERS), then draw and save it."""
    with open(os.environ["FIGURE_WRITERS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    plot.save_figure(_bar_figure(title), path)


def dying_png(title, path):
    """End the process drawing a figure titled "die" (as a crash inside a C library would)."""
    if title == "die":
        os._exit(3)
    bar_png(title, path)


def half_written(fig, path, dpi):
    """A writer (for analysis.plot._write_png) that starts the file, then fails."""
    path.write_bytes(b"\x89PNG")
    return 1 / 0


def drawn_by(log):
    return log.read_text().split() if log.exists() else []


@pytest.fixture
def writers_log(tmp_path, monkeypatch):
    log = tmp_path / "writers"
    monkeypatch.setenv("FIGURE_WRITERS", str(log))
    return log


def test_a_figure_drawn_in_the_background_is_the_same_file_drawn_here(tmp_path, writers_log, forking):
    plot.draw(bar_png, "a", path=tmp_path / "inline.png")
    assert drawn_by(writers_log) == [str(os.getpid())]  # outside the block: drawn at once, here
    with background.figures_in_background() as figures:
        assert figures is not None
        figures.owner = "t1"
        assert plot.draw(bar_png, "a", path=tmp_path / "background.png") == tmp_path / "background.png"
        plot.draw(bar_png, "b", path=tmp_path / "second.png")
        plot.draw(bar_png, "c", path=tmp_path / "third.png")
    assert figures.errors == {}
    assert (tmp_path / "background.png").read_bytes() == (tmp_path / "inline.png").read_bytes()
    workers = drawn_by(writers_log)[1:]
    assert len(workers) == 3 and str(os.getpid()) not in workers
    assert len(set(workers)) <= 2  # the block's workers (one per core), not a process per figure
    assert background.current() is None  # draw runs at once again after the block
    assert all(not worker.is_alive() for worker in figures._workers)  # the workers are gone with the block


def test_a_figure_that_cannot_be_drawn_is_its_tables_error_and_leaves_no_file(tmp_path, writers_log, forking):
    stale = tmp_path / "broken.png"
    stale.write_bytes(b"a figure of an earlier run")
    with background.figures_in_background(jobs=1) as figures:
        figures.owner = "omibench.F2"
        plot.draw(bar_png, r"$\frac{$", path=stale)  # mathtext that cannot be parsed: raises when drawn
        figures.owner = "omibench.F3a"
        plot.draw(bar_png, "fine", path=tmp_path / "fine.png")
        assert figures.finish("omibench.F3a") is None
        assert figures.finish("omibench.F2").startswith("figure broken.png: ValueError")
    assert list(figures.errors) == ["omibench.F2"]
    assert not stale.exists() and (tmp_path / "fine.png").exists()


def test_a_worker_that_dies_fails_its_figure_and_the_next_figures_are_still_drawn(tmp_path, writers_log, forking):
    with background.figures_in_background(jobs=1) as figures:
        figures.owner = "omibench.F2"
        plot.draw(dying_png, "die", path=tmp_path / "dies.png")
        figures.owner = "omibench.F3a"
        plot.draw(dying_png, "after", path=tmp_path / "after.png")  # no worker left: drawn here
    assert figures.errors == {"omibench.F2": "figure dies.png: the process drawing it ended without writing it"}
    assert not (tmp_path / "dies.png").exists() and (tmp_path / "after.png").exists()
    assert drawn_by(writers_log) == [str(os.getpid())]


def test_a_figure_that_cannot_be_sent_to_a_worker_is_drawn_here(tmp_path, writers_log, forking):
    def local_figure(path):  # a local function cannot be pickled
        bar_png("kept", path)

    with background.figures_in_background(jobs=1) as figures:
        figures.owner = "t1"
        plot.draw(local_figure, path=tmp_path / "here.png")
        assert (tmp_path / "here.png").exists()  # written before draw returned
    assert figures.errors == {} and drawn_by(writers_log) == [str(os.getpid())]


def test_analysis_run_reports_a_figure_error_as_the_tables_error_and_writes_nothing(tmp_path, judged_results,
                                                                                     monkeypatch, capsys, forking):
    from analysis.run import main

    res = judged_results
    monkeypatch.setattr(plot, "_write_png", half_written)  # fails in a worker after starting the file
    assert main(["omibench.F4a", "omibench.T2", "--results", str(res), "--figures", str(tmp_path / "fig")]) == 1
    out = capsys.readouterr().out
    assert "omibench.F4a: error: figure omibench.F4a.png: ZeroDivisionError" in out
    assert "omibench.T2: ok" in out
    assert not table_file(res, "omibench.F4a", "md").exists() and table_file(res, "omibench.T2", "md").exists()
    assert not list((tmp_path / "fig").glob("omibench.F4a*"))


def test_with_another_thread_running_figures_are_drawn_in_place(tmp_path, writers_log):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with background.figures_in_background() as figures:
            assert figures is None
            plot.draw(bar_png, "a", path=tmp_path / "a.png")
            assert (tmp_path / "a.png").exists()  # written before draw returned
    finally:
        stop.set()
        other.join()


def test_a_table_that_failed_keeps_its_own_error_beside_a_figure_error(tmp_path):
    from analysis.report import Outcome
    from analysis.run import written

    ctx = Context(tmp_path / "results", tmp_path / "fig")
    failed = Outcome("error", "KeyError: 'subject'")
    assert written("omibench.F2", ctx, failed, "figure omibench.F2.png: ValueError") is failed
    missing = Outcome("missing", "no runs")
    assert written("omibench.F2", ctx, missing, None) is missing
    assert not (tmp_path / "results").exists()


def test_analysis_run_leaves_matplotlib_to_the_workers(tmp_path, judged_results, forking):
    """The table process never imports matplotlib: every figure is built and drawn by a worker."""
    args = ["omibench.F4a", "omibench.T2", "--results", str(judged_results), "--figures", str(tmp_path / "fig")]
    script = f"import sys; from analysis.run import main; status = main({args!r}); print('matplotlib' in sys.modules, status)"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "0"], out.stdout + out.stderr
    assert (tmp_path / "fig" / "omibench.F4a.png").stat().st_size > 0


def test_tables_that_draw_are_built_first_and_reported_in_order(tmp_path, monkeypatch, capsys, forking):
    from analysis import run

    built = []
    build = run.build
    monkeypatch.setattr(run, "build", lambda table_id, *args: built.append(table_id) or build(table_id, *args))
    run.main(["c2rbench.T3", "omibench.F4a", "omibench.T2", "--quiet", "--results", str(tmp_path / "results"),
              "--figures", str(tmp_path / "fig")])
    assert built == ["omibench.F4a", "c2rbench.T3", "omibench.T2"]  # its figure is drawn while the others build
    printed = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]
    assert printed == ["c2rbench.T3", "omibench.F4a", "omibench.T2"]
    assert run.draws_figures(run.registry()["omibench.F7"])  # through analysis.labels


def test_the_workers_are_one_per_core_at_most_four(monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn by workers on Linux only")
    monkeypatch.setattr(background.threading, "active_count", lambda: 1)
    for cores, workers in ((2, 2), (3, 3), (64, 4)):
        monkeypatch.setattr(background, "cores", lambda n=cores: n)
        with background.figures_in_background() as figures:
            assert len(figures._workers) == workers
