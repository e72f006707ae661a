"""MorphoBench tables from hand-made judged files: per-discipline accuracy on R(v0), split accuracies with
deltas to the family's v0 (and the paper's own deltas from its absolute numbers), the judge preference,
the additional models' Table 7, and the taxonomy diversity of the data."""
import math

import pandas as pd
import pytest

from analysis import morphobench_F9
from analysis.morphobench_accuracy import build
from analysis.morphobench_common import DELTAS, with_deltas
from analysis.reference import load_reference
from analysis.table import Context
from tests.analysis_fixtures import make_run, write_data

RECORDS = [("Morpho_R_v0-0", "Morpho_R_v0", "Mathematics"), ("Morpho_R_v0-1", "Morpho_R_v0", "Mathematics"),
           ("Morpho_R_v0-2", "Morpho_R_v0", "Engineering"), ("Morpho_R_v0-3", "Morpho_R_v0", "Other"),
           ("Morpho_R_Lite-0", "Morpho_R_Lite", "Mathematics"), ("Morpho_R_Complex-0", "Morpho_R_Complex", "Mathematics"),
           ("Morpho_P_v0-0", "Morpho_P_v0", "Other"), ("Morpho_P_v0-1", "Morpho_P_v0", "Other"),
           ("Morpho_P_Perturbed-0", "Morpho_P_Perturbed", "Other")]
ROWS = [{"id": "Morpho_R_v0-0", "correct": True}, {"id": "Morpho_R_v0-1", "correct": False},
        {"id": "Morpho_R_v0-2", "correct": True}, {"id": "Morpho_R_v0-3", "status": "judge_error"},
        {"id": "Morpho_R_Lite-0", "correct": True}, {"id": "Morpho_R_Complex-0", "correct": False},
        {"id": "Morpho_P_v0-0", "correct": True}, {"id": "Morpho_P_v0-1", "correct": True},
        {"id": "Morpho_P_Perturbed-0", "status": "no_response"}]


@pytest.fixture
def results(tmp_path):
    data = write_data(tmp_path / "m.jsonl", [{"id": i, "benchmark": "morphobench", "split": s, "discipline": d}
                                             for i, s, d in RECORDS])
    res = tmp_path / "results"
    make_run(res, "morphobench", "gpt-5.1", "with_hints", "morphobench_correctness", data, ROWS)
    # The rule judge disagrees everywhere; the LLM judge's run is preferred.
    make_run(res, "morphobench", "gpt-5.1", "with_hints", "rules", data,
             [{**r, "correct": not r.get("correct")} for r in ROWS])
    # o3: the LLM judge failed on every item -> its rule-judge run is used.
    make_run(res, "morphobench", "o3", "with_hints", "morphobench_correctness", data,
             [{"id": i, "status": "judge_error"} for i, _, _ in RECORDS])
    make_run(res, "morphobench", "o3", "with_hints", "rules", data, [{"id": i, "correct": True} for i, _, _ in RECORDS])
    # Claude-Opus-4.6: an additional model (Table 7), run on the same setting; never a row of Tables 1-2.
    make_run(res, "morphobench", "claude-opus-4.6", "with_hints", "morphobench_correctness", data,
             [{"id": i, "correct": s != "Morpho_R_Complex" and d != "Engineering"} for i, s, d in RECORDS])
    return res


def test_T1_per_discipline(results, tmp_path):
    t = build("morphobench.T1", Context(results, tmp_path / "fig"))
    row = t.table.set_index("model").loc["gpt-5.1"]
    assert (row["Mathematics"], row["Engineering"]) == (50.0, 100.0)
    assert row["Other"] == 0.0 and pd.isna(row["Social Sciences"])     # Other's only item: a judge error
    fail = t.extra["Scored and failures"].set_index(["model", "discipline"])
    assert tuple(fail.loc[("gpt-5.1", "Other"), ["judged", "scored", "judge_error"]]) == (1, 0, 1)
    assert pd.isna(fail.loc[("gpt-5.1", "Other"), "acc_scored"])
    assert fail.loc[("o3", "Other"), "judge"] == "rules" and t.table.set_index("model").loc["o3", "Other"] == 100.0
    total = t.extra["Total (share)"].set_index("discipline")
    assert total.loc["Mathematics", "questions"] == 2 and total.loc["Mathematics", "share (%)"] == 50.0
    paper = t.vs_paper.set_index(["model", "discipline"]).loc[("gpt-5.1", "Mathematics")]
    assert (paper["paper"], paper["diff"]) == (61.52, pytest.approx(50.0 - 61.52))


def test_T2_splits_and_deltas(results, tmp_path):
    t = build("morphobench.T2", Context(results, tmp_path / "fig"))
    row = t.table.set_index("model").loc["gpt-5.1"]
    # R(v0): 2 correct of 4 items, the judge error not correct (Eq. 18 over all N)
    assert (row["R(v0)"], row["R(Lite)"], row["R(Complex)"], row["P(v0)"]) == (50.0, 100.0, 0.0, 100.0)
    assert row["Δ R(Lite)"] == 50.0 and row["Δ R(Complex)"] == -50.0
    assert row["P(Perturbed)"] == 0.0 and row["Δ P(Perturbed)"] == -100.0   # only a failure there
    fail = t.extra["Scored and failures"].set_index(["model", "split"])
    assert fail.loc[("gpt-5.1", "P(Perturbed)"), "no_response"] == 1
    assert fail.loc[("gpt-5.1", "R(v0)"), "acc_scored"] == pytest.approx(200 / 3)
    assert t.vs_paper.set_index(["model", "split"]).loc[("gpt-5.1", "R(v0)"), "ours"] == 50.0
    vs = t.vs_paper.set_index(["model", "split"])
    assert vs.loc[("gpt-5.1", "Δ R(Lite)"), "paper"] == 4.51


def test_T7_the_additional_models_only(results, tmp_path):
    """Table 7 is Table 2 for Qwen3-VL-32B and Claude-Opus-4.6: each table reads its own experiment's models."""
    t7 = build("morphobench.T7", Context(results, tmp_path / "fig"))
    row = t7.table.set_index("model").loc["claude-opus-4.6"]
    # R(v0): 2 of 4 correct (the Engineering item wrong, the Other one right); Lite right, Complex wrong
    assert (row["R(v0)"], row["R(Lite)"], row["R(Complex)"]) == (75.0, 100.0, 0.0)
    assert (row["Δ R(Lite)"], row["Δ R(Complex)"], row["Δ P(Perturbed)"]) == (25.0, -75.0, 0.0)
    assert list(t7.table["model"]) == ["claude-opus-4.6"]
    vs = t7.vs_paper.set_index(["model", "split"])
    assert vs.loc[("claude-opus-4.6", "R(v0)"), "paper"] == 51.87
    assert vs.loc[("claude-opus-4.6", "Δ R(Lite)"), "diff"] == pytest.approx(25.0 - 3.97)
    assert t7.provenance.judges.used == {"claude-opus-4.6": "morphobench_correctness"}
    t2 = build("morphobench.T2", Context(results, tmp_path / "fig"))
    assert "claude-opus-4.6" not in set(t2.table["model"]) and "claude-opus-4.6" not in t2.provenance.judges.used
    assert all(r.model != "claude-opus-4.6" for r in t2.provenance.runs)


@pytest.mark.parametrize("table_id", ["morphobench.T2", "morphobench.T7"])
def test_paper_deltas_from_its_own_numbers(table_id):
    """The SAME code that makes our Δ columns gives the paper's printed Δs from its absolute numbers."""
    ref = load_reference(table_id)
    wide = ref.pivot_table(index="paper_model", columns="split", values="value")
    ours = with_deltas(wide)
    assert len(ours) == {"morphobench.T2": 7, "morphobench.T7": 2}[table_id]
    for col in DELTAS:
        assert (ours[col].round(2) - wide[col]).abs().max() < 1e-9, col


TAXO = [("Morpho_R_v0-0", "Morpho_R_v0", "PERC", "CLO", "COUNT"),
        ("Morpho_R_v0-1", "Morpho_R_v0", "Perception / Extraction", "closed", ["ARITH", "COUNT"]),
        ("Morpho_P_v0-0", "Morpho_P_v0", "RSYN", "HYB", "FLOW"),
        ("Morpho_P_v0-1", "Morpho_P_v0", "Reasoning / Synthesis", "Hybrid", "Flow / Conservation"),
        ("Morpho_R_Lite-0", "Morpho_R_Lite", "RETR", "OPE", "TIME"),     # a variant split: not in the base set
        ("Morpho_R_v0-2", "Morpho_R_v0", "RSYN", None, "GEOM")]           # no L2: left out


def test_F9_taxonomy_diversity(tmp_path):
    data = write_data(tmp_path / "m.jsonl", [
        {"id": i, "benchmark": "morphobench", "split": s,
         "extra": {"task_type": a, "knowledge": b, "sub_task_types": c}} for i, s, a, b, c in TAXO])
    ctx = Context(tmp_path / "results", tmp_path / "fig", data={"morphobench": data})
    t = morphobench_F9.build("morphobench.F9", ctx)
    d = t.table.set_index("level")
    # Base items: PERC-CLO-COUNT, PERC-CLO-ARITH, RSYN-HYB-FLOW ×2.
    assert d.loc["L1", "items"] == 4 and d.loc["L1", "observed"] == 2 and d.loc["L1", "entropy (bits)"] == 1.0
    assert d.loc["L1", "evenness J"] == 1.0 and d.loc["L1", "evenness vs taxonomy"] == pytest.approx(1 / math.log2(3))
    h_leaf = -(2 * 0.25 * math.log2(0.25) + 0.5 * math.log2(0.5))             # 1.5 bits over 3 leaves
    assert d.loc["leaf", "entropy (bits)"] == pytest.approx(h_leaf)
    assert d.loc["leaf", "evenness J"] == pytest.approx(h_leaf / math.log2(3))
    assert d.loc["leaf", "coverage (%)"] == pytest.approx(300 / 99) and d.loc["L3", "possible"] == 11
    assert t.figure.exists() and "1 item(s) without all three levels left out." in t.notes
    assert t.vs_paper.iloc[0]["paper"] == 60
