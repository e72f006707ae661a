"""Figures never draw an empty frame: a value not run is written at its place, a zero is drawn visibly, and a
panel with nothing to draw says so. The plot helpers on their own, then figures of real table builds on
hand-made results folders, read back from their matplotlib artists."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from analysis import background, c2rbench_accuracy, omibench_common, omibench_F4, omibench_F6a, plot, think360_S5, think360_S6
from analysis.table import ROOT, Context
from tests.analysis_fixtures import make_run, write_data


def axes():
    return plot.subplots(figsize=(4, 3))[1]


def texts(ax, word):
    return [t for t in ax.texts if word in t.get_text()]


def zeros(ax):
    return [t for t in ax.texts if t.get_text() == "0"]


def at_x(artists, x):
    """The texts placed at data x (an annotation's point, else the text's own position)."""
    return [t for t in artists if math.isclose(getattr(t, "xy", t.get_position())[0], x, abs_tol=1e-9)]


# --- the helpers ------------------------------------------------------------------------------------------

def test_a_missing_value_is_written_at_its_bar():
    ax = axes()
    plot.bars(ax, [0, 1, 2], [40.0, np.nan, 10.0], 0.5, label="a")
    assert [t.get_position()[0] for t in texts(ax, plot.NOT_RUN)] == [1.0]
    lo, hi = ax.get_xlim()
    assert lo < 0 and hi > 2  # the place without a bar stays inside the frame


def test_missing_texts_per_bar_and_none_when_empty():
    ax = axes()
    plot.bars(ax, [0, 1], [np.nan, np.nan], missing=["IO not run", ""])
    assert [t.get_text() for t in ax.texts] == ["IO not run"]


def test_a_zero_is_a_visible_mark_with_its_value():
    ax = axes()
    plot.bars(ax, [0, 1], [0.0, 5.0], 0.4)
    mark = [line for line in ax.lines if line.get_visible() and line.get_linewidth() >= 2]
    assert len(mark) == 1
    assert list(mark[0].get_xdata()) == pytest.approx([-0.2, 0.2]) and list(mark[0].get_ydata()) == [0, 0]
    assert [t.xy for t in zeros(ax)] == [(0.0, 0.0)] and not texts(ax, plot.NOT_RUN)


def test_horizontal_bars_mark_at_their_y():
    ax = axes()
    plot.bars(ax, [0, 1], [np.nan, 0.0], horizontal=True)
    (missing,) = texts(ax, plot.NOT_RUN)
    assert missing.get_position()[1] == 0
    assert list(ax.lines[0].get_xdata()) == [0, 0] and list(ax.lines[0].get_ydata()) == pytest.approx([0.6, 1.4])


def test_stacked_bars_mark_an_all_missing_stack_and_a_zero_stack():
    ax = axes()
    total = plot.stacked_bars(ax, [0, 1, 2], {"a": [np.nan, 0, 30], "b": [np.nan, 0, np.nan]}, missing="no items")
    assert list(total) == [0, 0, 30]
    assert [t.get_position()[0] for t in texts(ax, "no items")] == [0.0]
    assert len(ax.lines) == 1 and list(ax.lines[0].get_ydata()) == [0, 0]


def test_empty_panel_says_why_in_its_middle():
    ax = axes()
    t = plot.empty_panel(ax, "no system-2 model")
    assert t in ax.texts and t.get_position() == (0.5, 0.5) and t.get_transform() == ax.transAxes


def test_not_run_at_names_the_curves_without_a_point():
    gaps = plot.not_run_at({"a": {1: 10.0, 2: 20.0}, "b": {1: 5.0, 2: np.nan}}, [1, 2, 4])
    assert gaps == [(2.0, "not run: b"), (4.0, "not run")]


def test_line_figure_without_points_says_so(tmp_path, monkeypatch):
    figs = capture(monkeypatch, plot)
    plot.line_figure([([1, 2], [np.nan, np.nan], {"label": "a"})], tmp_path / "f.png", empty="no sample drawn",
                     missing=[(4, "not run")])
    ax = figs[0].axes[0]
    assert texts(ax, "no sample drawn") and at_x(texts(ax, "not run"), 4)


# --- figures of table builds ----------------------------------------------------------------------------

def capture(monkeypatch, module):
    """The Figures a module saves, kept for inspection (the PNG is still written)."""
    figs = []
    save = plot.save_figure

    def keep(fig, path, *args, **kwargs):
        figs.append(fig)
        return save(fig, path, *args, **kwargs)

    monkeypatch.setattr(module, "save_figure", keep)
    return figs


@pytest.fixture
def think360_data(tmp_path):
    return write_data(tmp_path / "think360.jsonl", [
        {"id": "q0", "benchmark": "think360", "question_type": ["Algebra"]},
        {"id": "q1", "benchmark": "think360", "question_type": ["Geometry"]}])


def test_think360_S5_says_which_inputs_were_not_run(tmp_path, think360_data, monkeypatch):
    res = tmp_path / "results"
    for setting, correct in (("direct+temp0.7", [True, False]), ("direct+temp0.7+caption", [False, False])):
        make_run(res, "think360", "m", setting, "rules", think360_data,
                 [{"id": f"q{i}", "correct": c} for i, c in enumerate(correct)])
    figs = capture(monkeypatch, think360_S5)
    t = think360_S5.build("think360.S5", Context(res, tmp_path / "fig"))
    ax = figs[0].axes[0]
    width = 0.8 / len(think360_S5.INPUTS)
    assert at_x(texts(ax, "IO not run"), -0.5 * width) and at_x(texts(ax, "ICQ not run"), 1.5 * width)
    assert at_x(zeros(ax), 0.5 * width)  # CQ scored 0%: a visible mark, not a missing bar
    assert "Not run: IO, ICQ for m." in t.notes
    assert "Undefined (a side not run): IO-IQ, ICQ-CQ for m." in t.notes


def test_think360_S6_type_without_items_and_empty_group(tmp_path, think360_data, monkeypatch):
    res = tmp_path / "results"
    make_run(res, "think360", "a", "direct+temp0.7", "rules", think360_data,
             [{"id": "q0", "correct": False}, {"id": "q1", "correct": True}])
    make_run(res, "think360", "b", "direct+temp0.7", "rules", think360_data, [{"id": "q1", "correct": True}])
    figs = capture(monkeypatch, think360_S6)
    t = think360_S6.build("think360.S6", Context(res, tmp_path / "fig"))
    one, two = figs[0].axes
    assert len(texts(one, "no items")) == 1    # b judged no Algebra item: not drawn as 0%
    assert zeros(one)                     # a's Algebra 0% is
    assert texts(two, "no system-2 model")
    assert any("b (Algebra)" in n for n in t.notes)


@pytest.fixture
def omibench_data(tmp_path):
    return write_data(tmp_path / "omibench.jsonl", [
        {"id": f"q{i}", "benchmark": "omibench", "subject": "Physics", "images": ["a.png", "b.png"]} for i in range(4)])


def test_omibench_F4a_bars_not_run_not_judged_and_zero(tmp_path, omibench_data, monkeypatch):
    res = tmp_path / "results"
    for setting in ("cot_boxed", "least_to_most"):
        make_run(res, "omibench", "m", setting, "rules", omibench_data,
                 [{"id": f"q{i}", "correct": setting != "cot_boxed"} for i in range(4)])
    make_run(res, "omibench", "m", "cot_boxed", "omibench_gptscore", omibench_data,
             [{"id": f"q{i}", "correct": True} for i in range(4)])
    figs = capture(monkeypatch, omibench_common)
    t = omibench_F4.build("omibench.F4a", Context(res, tmp_path / "fig"))
    acc, gpt = figs[0].axes
    width = 0.8 / 4
    assert at_x(texts(acc, "Plan-and-Solve not run"), 2 * width) and at_x(texts(acc, "VoT not run"), 3 * width)
    assert at_x(zeros(acc), 0.0)                                # Default CoT scored 0
    assert at_x(texts(gpt, "Least-to-Most not judged"), width)       # run, judged by the rules only
    assert "m: no vot run" in t.notes and "m: least_to_most not judged for GPTScore" in t.notes


def test_omibench_F6a_draws_every_condition(tmp_path, omibench_data, monkeypatch):
    res = tmp_path / "results"
    make_run(res, "omibench", "m", "icl+shots1+demos-none", "rules", omibench_data,
             [{"id": f"q{i}", "correct": False} for i in range(4)])
    figs = capture(monkeypatch, omibench_F6a)
    t = omibench_F6a.build("omibench.F6a", Context(res, tmp_path / "fig"))
    ax = figs[0].axes[0]
    for cond in ("Zero-shot", "Single-Image ICL", "Multi-Image ICL"):
        assert texts(ax, f"{cond} not run")
    assert zeros(ax)
    assert any(n.startswith("Not run: Zero-shot for m / 1 / ACC") for n in t.notes)


def test_c2rbench_zero_accuracy_is_drawn(tmp_path, monkeypatch):
    res = tmp_path / "results"
    data = write_data(tmp_path / "c2r.jsonl", [{"id": "t0", "benchmark": "c2rbench", "category": "Multimodal",
                                                "level": 1}])
    make_run(res, "c2rbench", "m", "zero_shot+temp0", "rules", data, [{"id": "t0", "correct": False}])
    figs = capture(monkeypatch, c2rbench_accuracy)
    c2rbench_accuracy.build("c2rbench.F9", Context(res, tmp_path / "fig"))
    ax = figs[0].axes[0]
    assert zeros(ax) and any(line.get_linewidth() >= 2 for line in ax.lines)


# --- figures written in the background (analysis.run) -------------------------------------------------------

@pytest.fixture
def forking(monkeypatch):
    """A process that may fork its figure writers: two cores, and no other thread (another test's server
    may still be winding down in this process; analysis.run itself starts none)."""
    if len(os.sched_getaffinity(0)) < 2:
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


def test_analysis_run_reports_a_figure_error_as_the_tables_error_and_writes_nothing(tmp_path, omibench_data,
                                                                                     monkeypatch, capsys, forking):
    from analysis.run import main

    res = tmp_path / "results"
    for judge in ("rules", "omibench_gptscore"):
        make_run(res, "omibench", "gpt-4o", "cot_boxed", judge, omibench_data,
                 [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    monkeypatch.setattr(plot, "_write_png", half_written)  # fails in a worker after starting the file
    assert main(["omibench.F4a", "omibench.T2", "--results", str(res), "--figures", str(tmp_path / "fig")]) == 1
    out = capsys.readouterr().out
    assert "omibench.F4a: error: figure omibench.F4a.png: ZeroDivisionError" in out
    assert "omibench.T2: ok" in out
    assert not (res / "tables" / "omibench.F4a.md").exists() and (res / "tables" / "omibench.T2.md").exists()
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


def test_analysis_run_leaves_matplotlib_to_the_workers(tmp_path, omibench_data, forking):
    """The table process never imports matplotlib: every figure is built and drawn by a worker."""
    res = tmp_path / "results"
    for judge in ("rules", "omibench_gptscore"):
        make_run(res, "omibench", "gpt-4o", "cot_boxed", judge, omibench_data,
                 [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}])
    script = ("import sys; from analysis.run import main; "
              f"status = main(['omibench.F4a', 'omibench.T2', '--results', {str(res)!r}, '--figures', {str(tmp_path / 'fig')!r}]); "
              "print('matplotlib' in sys.modules, status)")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "0"], out.stdout + out.stderr
    assert (tmp_path / "fig" / "omibench.F4a.png").stat().st_size > 0


def test_tables_that_draw_are_built_first_and_reported_in_order(tmp_path, monkeypatch, capsys, forking):
    from analysis import run

    built = []
    build = run.build
    monkeypatch.setattr(run, "build", lambda table_id, *args: built.append(table_id) or build(table_id, *args))
    run.main(["c2rbench.T3", "omibench.F4a", "omibench.T2", "--results", str(tmp_path / "results"),
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
