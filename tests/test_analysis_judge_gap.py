"""The tables behind GPTScore (OMIBench Table 2) and MIRA's Acc (Tables 1, 4-10) count where the published judge and
its careful variant disagree, as they count the published rule against the careful one, once the careful judge
has run; before, they show nothing new."""
import pytest

from analysis.judge_gap import title
from analysis.mira import T1 as mira_T1, T4_to_T10 as mira_T4_to_T10
from analysis.omibench import T2 as omibench_T2
from analysis.table import Context
from tests.analysis_fixtures import make_run, write_data

GPTSCORE = title("GPTScore", "omibench_gptscore")
MIRA_ACC = title("Acc", "mira_judge")


def omibench(tmp_path, careful: set[int] | None) -> Context:
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(4)])
    res = tmp_path / "results"
    for judge, right in (("rules", {0}), ("omibench_c1", {0}), ("omibench_gptscore", {0, 1, 2}),
                         ("omibench_gptscore_careful", careful)):
        if right is not None:
            make_run(res, "omibench", "gpt-4o", "cot_boxed", judge, data,
                     [{"id": f"q{i}", "correct": i in right} for i in range(4)])
    return Context(res, tmp_path / "fig")


def test_T2_counts_where_gptscore_and_its_careful_variant_disagree(tmp_path):
    t = omibench_T2.build("omibench.T2", omibench(tmp_path, careful={0, 3}))
    gap = t.extra[GPTSCORE].set_index("model").loc["gpt-4o"]
    assert (gap["acc_published"], gap["acc_careful"], gap["both_judged"]) == (75.0, 50.0, 4)
    assert (gap["only_published_correct"], gap["only_careful_correct"], gap["careful_missing"]) == (2, 1, 0)
    assert any("omibench_gptscore_careful" in n for n in t.notes)
    assert any("omibench_gptscore_careful" in line for line in t.provenance.lines())


def test_T2_without_the_careful_judge_shows_no_comparison(tmp_path):
    t = omibench_T2.build("omibench.T2", omibench(tmp_path, careful=None))
    assert GPTSCORE not in t.extra and not any("omibench_gptscore_careful" in n for n in t.notes)


@pytest.mark.parametrize("module,table_id", [(mira_T1, "mira.T1"), (mira_T4_to_T10, "mira.T4")])
def test_mira_tables_count_where_the_judge_and_its_careful_variant_disagree(tmp_path, module, table_id):
    items = [("convex_hull/1", "Convex Hull", "EG"), ("convex_hull/2", "Convex Hull", "EG"),
             ("billiards/1", "Billiards", "PBR")]
    data = write_data(tmp_path / "mira.jsonl", [{"id": i, "benchmark": "mira", "task": t, "domain": d,
                                                  "extra": {"uid": "1"}} for i, t, d in items])
    res = tmp_path / "results"
    for judge, right in (("rules", set()), ("mira_judge", {"convex_hull/1", "billiards/1"}),
                         ("mira_judge_careful", {"convex_hull/2"})):
        make_run(res, "mira", "gpt-4o-2024-11-20", "direct", judge, data,
                 [{"id": i, "correct": i in right} for i, _, _ in items])
    t = module.build(table_id, Context(res, tmp_path / "fig"))
    gap = t.extra[MIRA_ACC].set_index(["model", "level"]).loc[("gpt-4o-2024-11-20", "D")]
    if table_id == "mira.T1":  # every task
        assert (gap["both_judged"], gap["only_published_correct"], gap["only_careful_correct"]) == (3, 2, 1)
    else:  # Table 4 has Convex Hull, not Billiards
        assert (gap["both_judged"], gap["only_published_correct"], gap["only_careful_correct"]) == (2, 1, 1)
    assert any("mira_judge_careful" in n for n in t.notes)
