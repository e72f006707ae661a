"""The generated questions are the MorphoBench figures' prompts: filled in with the paper's own
values they read as the paper prints them, and a changed word is caught."""
from __future__ import annotations

import pytest

from data.generate.common import PROMPTS, fill_template
from tests import test_prompts_match_papers as quoting

needs_paper = pytest.mark.skipif(not quoting.SEEDS.is_dir(), reason="the papers' texts are not beside the project")


@needs_paper
def test_spot_diff_filled_with_the_papers_grid_is_the_papers_prompt():
    text = fill_template("morpho_g_spot_diff", {"rows": "6", "cols": "11"})
    assert quoting.normalise(text) in quoting.seed_text("morphobench")


@needs_paper
def test_circuit_question_up_to_the_options_is_the_papers_prompt():
    # Fig. 7's own example: n input terminals (printed as the symbol n), terminal 1 at 0.3 V, 2000 Hz
    text = fill_template("morpho_g_circuit", {"n": "n", "signal_rows": "1\t0.3\t2000", "options": "<options>"})
    head, tail = text.split("<options>")
    paper = quoting.seed_text("morphobench")
    assert quoting.normalise(head) in paper
    assert quoting.normalise(tail) in paper


@needs_paper
@pytest.mark.parametrize("name, old, new", [
    ("morpho_g_circuit", "resistors (1Ω)", "resistors (2Ω)"),
    ("morpho_g_circuit", "inductors (10μH)", "inductors (10mH)"),
    ("morpho_g_circuit", "single option best satisfies", "single option best matches"),
    ("morpho_g_spot_diff", "the top row is row 1", "the top row is row 0"),
])
def test_a_changed_word_is_caught(name, old, new, tmp_path):
    text = (PROMPTS / f"{name}.txt").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "t.txt").write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(AssertionError, match="not in the paper's text"):
        quoting.test_template_text_is_the_papers(tmp_path / "t.txt", "morphobench")


def test_every_placeholder_must_be_filled():
    with pytest.raises(ValueError, match="placeholders"):
        fill_template("morpho_g_spot_diff", {"rows": "6"})
