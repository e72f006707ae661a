"""Figures never draw an empty frame: a value not run is written at its place, a zero is drawn visibly, and a
panel with nothing to draw says so. The plot helpers on their own, then figures of real table builds on
hand-made results folders, read back from their matplotlib artists."""
from __future__ import annotations

import math

import numpy as np
import pytest

from analysis import plot
from analysis.c2rbench import F7_to_F10 as c2rbench_F7_to_F10
from analysis.omibench import F4a_F4b as omibench_F4a_F4b, F6a as omibench_F6a, baseline as omibench_baseline
from analysis.think360 import S5 as think360_S5, S6 as think360_S6
from analysis.table import Context
from tests.analysis_fixtures import make_run, omibench_physics, write_data


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
    return omibench_physics(tmp_path / "omibench.jsonl")


def test_omibench_F4a_bars_not_run_not_judged_and_zero(tmp_path, omibench_data, monkeypatch):
    res = tmp_path / "results"
    for setting in ("cot_boxed", "least_to_most"):
        make_run(res, "omibench", "m", setting, "rules", omibench_data,
                 [{"id": f"q{i}", "correct": setting != "cot_boxed"} for i in range(4)])
    make_run(res, "omibench", "m", "cot_boxed", "omibench_gptscore", omibench_data,
             [{"id": f"q{i}", "correct": True} for i in range(4)])
    figs = capture(monkeypatch, omibench_baseline)
    t = omibench_F4a_F4b.build("omibench.F4a", Context(res, tmp_path / "fig"))
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
    figs = capture(monkeypatch, c2rbench_F7_to_F10)
    c2rbench_F7_to_F10.build("c2rbench.F9", Context(res, tmp_path / "fig"))
    ax = figs[0].axes[0]
    assert zeros(ax) and any(line.get_linewidth() >= 2 for line in ax.lines)
