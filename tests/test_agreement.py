"""Judge agreement (quadrants, κ, ρ, disagreement sample) and repeat stability."""
import json

import pytest

from judge.agreement import cohen_kappa, compare, disagreements, main, repeat_stats, scored


def write(path, verdicts):
    path.write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    return path


def v(i, correct, status="ok"):
    return {"id": f"q{i}", "sample_idx": 0, "status": status, "correct": correct, "judge": {"name": "x"}}


def test_quadrants_kappa_and_excluded_failures(tmp_path):
    a = write(tmp_path / "a.jsonl", [v(0, True), v(1, True), v(2, False), v(3, False), v(4, None, "judge_error")])
    b = write(tmp_path / "b.jsonl", [v(0, True), v(1, False), v(2, False), v(3, True), v(4, True)])
    s = compare(scored(a), scored(b))
    assert (s["items"], s["both_correct"], s["both_incorrect"], s["a_correct_b_incorrect"], s["a_incorrect_b_correct"]) \
        == (4, 1, 1, 1, 1)
    assert s["only_in_b"] == 1 and s["agreement"] == 0.5 and s["cohen_kappa"] == pytest.approx(0.0)


def test_kappa_known_values():
    assert cohen_kappa([True, False] * 5, [True, False] * 5) == 1.0
    # 20 items: po = 0.7, pa = pb = 0.5 → κ = (0.7 - 0.5) / 0.5 = 0.4
    a = [True] * 10 + [False] * 10
    b = [True] * 7 + [False] * 3 + [True] * 3 + [False] * 7
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_disagreement_sample_is_seeded_and_carries_context(tmp_path):
    a = {("q%d" % i, 0): v(i, i % 2 == 0) for i in range(50)}
    b = {("q%d" % i, 0): v(i, i % 3 == 0) for i in range(50)}
    records = {f"q{i}": {"question": f"Q{i}", "answer": [str(i)]} for i in range(50)}
    s1 = disagreements(a, b, 5, seed=1, records=records, raw=None)
    assert s1 == disagreements(a, b, 5, seed=1, records=records, raw=None) and len(s1) == 5
    assert all(x["a"]["correct"] != x["b"]["correct"] and x["question"] == "Q" + x["id"][1:] for x in s1)


def test_repeats_mean_and_std(tmp_path):
    runs = [write(tmp_path / f"r{k}.jsonl", [v(i, i < k + 1) for i in range(4)]) for k in range(3)]
    s = repeat_stats(runs)
    assert s["accuracy"] == [0.25, 0.5, 0.75] and s["mean"] == pytest.approx(0.5) and s["std"] == pytest.approx(0.25)


def test_repeats_count_failures_as_not_correct_with_the_scored_accuracy_beside(tmp_path):
    run = write(tmp_path / "r.jsonl", [v(0, True), v(1, False), v(2, None, "judge_error"), v(3, None, "no_response")])
    s = repeat_stats([run, run])
    assert s["accuracy"] == [0.25, 0.25] and s["accuracy_scored"] == [0.5, 0.5] and s["std"] == 0.0


def test_cli_writes_summary_and_sample(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", [v(0, True), v(1, False)])
    b = write(tmp_path / "b.jsonl", [v(0, False), v(1, False)])
    assert main(["pair", str(a), str(b), "--out", str(tmp_path / "agree")]) == 0
    assert json.loads((tmp_path / "agree" / "agreement.json").read_text())["a_correct_b_incorrect"] == 1
    assert len((tmp_path / "agree" / "disagreements.jsonl").read_text().splitlines()) == 1


def test_only_the_verdict_of_the_current_outcome_counts(tmp_path):
    """A judged file read where judge.run wrote it: each raw line's current verdict (judge/current.py), so a
    verdict of an earlier outcome — a reply since replaced — is not compared, and a verdict an earlier line
    superseded counts again when its outcome comes back."""
    from infer.layout import judged_path, raw_path
    from judge.current import outcome_sha

    raw_file = raw_path(tmp_path, "omibench", "m", "s")
    judged = {name: judged_path(tmp_path, "omibench", "m", "s", name) for name in "abc"}
    raw_file.parent.mkdir(parents=True)
    judged["a"].parent.mkdir(parents=True)
    old = {"id": "q0", "sample_idx": 0, "request_key": "k0", "error": None, "response": "\\boxed{1}"}
    new = {**old, "request_key": "k1", "response": "\\boxed{2}"}
    q1 = {"id": "q1", "sample_idx": 0, "request_key": "k2", "error": None, "response": "\\boxed{3}"}
    write(raw_file, [old, q1, new])  # q0's current outcome is `new`

    def line(raw, name, correct):
        return {"id": raw["id"], "sample_idx": 0, "outcome": outcome_sha(raw), "status": "ok", "correct": correct,
                "judge": {"name": name, "model": None, "prompt_sha": "1"}}

    a = write(judged["a"], [line(old, "a", True), line(q1, "a", True), line(new, "a", False)])
    b = write(judged["b"], [line(new, "b", True), line(q1, "b", True), line(old, "b", False)])
    # b's last line of q0 judged the old outcome: its current verdict of q0 is the earlier line, of `new`
    assert {k: x["correct"] for k, x in scored(b).items()} == {("q0", 0): True, ("q1", 0): True}
    assert {k: x["correct"] for k, x in scored(a).items()} == {("q0", 0): False, ("q1", 0): True}
    write(judged["c"], [line(old, "c", True), line(q1, "c", False)])  # never judged `new`
    assert set(scored(judged["c"])) == {("q1", 0)}
    assert repeat_stats([judged["c"]])["accuracy"] == [0.0]  # q0 unjudged: not correct, counted
