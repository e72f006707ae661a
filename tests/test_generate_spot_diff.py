"""Generated "spot the different one" grids: the similarity ranking, every image read back cell by
cell, the checks, byte-identical reruns, Chinese characters when a font has them, and the MorphoBench
converter and rule judge on the output."""
from __future__ import annotations

import base64
import io

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from data.convert import convert
from data.generate import glyphs, spot_diff
from data.generate.common import SPLIT_SPOT_DIFF
from data.generate.glyphs import CELL, D_MIN, TIERS, FontError, font_for, ranked_pairs
from data.generate.spot_diff import MARGIN, GridError, GridItem, check, draw
from judge.rules import score


def latin() -> tuple:
    return ranked_pairs("latin", font_for("latin"))


def test_pairs_are_ranked_by_ink_distance_into_fixed_tiers():
    pairs = latin()
    assert len(pairs) == 52 * 51 // 2  # no two DejaVu Sans letters are drawn alike
    assert [p.rank for p in pairs] == list(range(1, len(pairs) + 1))
    assert all(a.distance <= b.distance for a, b in zip(pairs, pairs[1:]))
    for p in pairs:
        lo, hi = TIERS[p.tier]
        assert lo <= p.distance < hi and p.distance >= D_MIN
    high = {frozenset((p.same, p.odd)) for p in pairs if p.tier == "high"}
    assert {frozenset("OQ"), frozenset("hn"), frozenset("bp"), frozenset("EF")} <= high
    assert frozenset("AW") not in high


def grid(png: bytes, rows: int, cols: int) -> list[list[bytes]]:
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    return [[pixels[MARGIN + r * CELL:MARGIN + (r + 1) * CELL, MARGIN + c * CELL:MARGIN + (c + 1) * CELL].tobytes()
             for c in range(cols)] for r in range(rows)]


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = tmp_path_factory.mktemp("spot")
    spot_diff.generate(out, n=6, rows=6, cols=11, seed=0, similarity="high", progress=False)
    spot_diff.generate(out, n=3, rows=3, cols=4, seed=1, similarity="low", progress=False)
    return out


def rows_of(release) -> list[dict]:
    return [r for p in sorted((release / SPLIT_SPOT_DIFF).glob("*.parquet")) for r in pq.read_table(p).to_pylist()]


def test_each_image_has_one_odd_cell_where_the_answer_says(release):
    for row in rows_of(release):
        png = base64.b64decode(row["image_base64"].split(",", 1)[1])
        cells = grid(png, row["rows"], row["cols"])
        flat = [c for line in cells for c in line]
        odd = [(r + 1, c + 1) for r, line in enumerate(cells) for c, cell in enumerate(line) if flat.count(cell) == 1]
        assert len(set(flat)) == 2 and len(odd) == 1
        assert row["answer"] == f"row={odd[0][0]}, col={odd[0][1]}"
        assert row["char_same"] != row["char_odd"]
        assert f"the character at row {odd[0][0]}, column {odd[0][1]} is “{row['char_odd']}”" in row["caption"]
        lo, hi = TIERS[row["similarity"]]
        assert lo <= row["pair_distance"] < hi


def test_questions_are_the_papers_prompt_with_the_grid_size(release):
    for row in rows_of(release):
        assert row["question"].startswith(f"You will be shown an image containing {row['rows']} rows and "
                                          f"{row['cols']} columns of similar characters.")
        assert row["question"].endswith("Please output your answer strictly in the following format:\nrow={row}, col={col}")
    assert {(r["rows"], r["cols"], r["similarity"]) for r in rows_of(release)} == {(6, 11, "high"), (3, 4, "low")}


def test_check_refuses_a_wrong_answer_and_look_alike_glyphs():
    font = font_for("latin")
    pair = latin()[0]
    item = GridItem(3, 4, pair, pair.same, pair.odd, 2, 3)
    png = draw(item, font)
    check(item, png)
    with pytest.raises(GridError, match="one odd cell"):
        check(GridItem(3, 4, pair, pair.same, pair.odd, 1, 1), png)
    same = GridItem(3, 4, pair, "O", "O", 2, 3)
    with pytest.raises(GridError):
        check(same, draw(same, font))


def test_same_seed_same_bytes_and_other_seeds_differ(tmp_path):
    for name in ("a", "b"):
        spot_diff.generate(tmp_path / name, n=4, rows=5, cols=7, seed=3, similarity="medium", progress=False)
    spot_diff.generate(tmp_path / "c", n=4, rows=5, cols=7, seed=4, similarity="medium", progress=False)
    rel = f"{SPLIT_SPOT_DIFF}/latin-5x7-medium-s3.parquet"
    assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    other = pq.read_table(tmp_path / "c" / SPLIT_SPOT_DIFF / "latin-5x7-medium-s4.parquet").to_pylist()
    assert [r["answer"] for r in other] != [r["answer"] for r in pq.read_table(tmp_path / "a" / rel).to_pylist()]


def test_the_converter_reads_the_split_and_the_rule_judge_scores_it(release, tmp_path):
    records = convert("morphobench", release, tmp_path / "s.jsonl")
    assert len(records) == 9 and {r["split"] for r in records} == {SPLIT_SPOT_DIFF}
    for rec, row in zip(records, rows_of(release)):
        assert rec["id"] == f"{SPLIT_SPOT_DIFF}-{row['index']}" and rec["task"] == "spot_diff"
        assert rec["answer_type"] == "structured" and rec["answer"] == [row["answer"]]
        assert score(rec, row["answer"])["correct"] is True
        r, c = (int(x) for x in row["answer"][4:].split(", col="))
        assert score(rec, f"row={r}, col={c % row['cols'] + 1}")["correct"] is False


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="at least 3 cells"):
        spot_diff.generate("unused", n=1, rows=1, cols=2, seed=0, progress=False)
    with pytest.raises(ValueError, match="similarity"):
        spot_diff.generate("unused", n=1, rows=3, cols=3, seed=0, similarity="extreme", progress=False)
    with pytest.raises(FontError, match="lacks glyphs for some cjk characters"):
        font_for("cjk", glyphs.latin_font())  # DejaVu Sans has no Chinese


def test_chinese_needs_a_font_and_says_how_to_get_one(monkeypatch):
    monkeypatch.setattr(glyphs.shutil, "which", lambda name: None)
    with pytest.raises(FontError, match="apt-get install fonts-wqy-microhei"):
        font_for("cjk")


def cjk_font_or_skip():
    try:
        return font_for("cjk")
    except FontError:
        pytest.skip("no font with the Chinese characters on this machine")


def test_chinese_grids_when_a_font_has_the_characters(tmp_path):
    font = cjk_font_or_skip()
    pairs = ranked_pairs("cjk", font)
    high = {frozenset((p.same, p.odd)) for p in pairs if p.tier == "high"}
    assert frozenset("未末") in high and frozenset("土士") in high
    path = spot_diff.generate(tmp_path, n=3, rows=4, cols=6, seed=0, script="cjk", progress=False)
    assert all(r["script"] == "cjk" for r in pq.read_table(path).to_pylist())



def test_generated_splits_keep_their_name_whatever_folder_holds_them():
    from data.converters.morphobench import canonical_split

    assert canonical_split("Morpho_G_circuits") == "Morpho_G_circuits"
    assert canonical_split("/tmp/lite/Morpho_G_spot_diff/latin.parquet") == "Morpho_G_spot_diff"
    assert canonical_split("/tmp/lite/x.parquet") == "Morpho_R_Lite"
