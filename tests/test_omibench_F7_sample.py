"""OMIBench Fig. 7 counts a seeded random sample of 100 failed answers, as App. F.2 labels ("we randomly sampled
100 instances"), or every failed answer when the experiment says `size: all`: the sample's rule, its stability,
its size, the population the table states, and the experiment key."""
import hashlib
from types import SimpleNamespace

import pytest

from analysis import labels
from analysis.omibench import F7 as omibench_F7
from analysis.table import Context
from infer.config import ConfigError
from infer.experiment_spec import EXPERIMENTS, Sample, load_experiment
from tests.analysis_fixtures import make_run, write_data

GPTSCORE, ERROR = "omibench_gptscore", "omibench_error"
FAILS = {"a": 90, "b": 70}  # of 120 items each, model a fails q0-q89, model b q0-q69: 160 failed answers
VISUAL, CROSS = "Visual Perception Failures", "Cross-Image Association Failures"


def write_runs(results, data, models=("a", "b"), broken=()):
    """GPTScore verdicts, and labels of every answered response: visual perception for even items, cross-image for
    odd ones; `broken` ids get an unreadable label reply instead."""
    for m in models:
        make_run(results, "omibench", m, "cot_boxed", GPTSCORE, data,
                 [{"id": f"q{i}", "correct": i >= FAILS[m]} for i in range(120)])
        make_run(results, "omibench", m, "cot_boxed", ERROR, data,
                 [{"id": f"q{i}", "status": "judge_error", "judge_calls": 1} if f"q{i}" in broken else
                  {"id": f"q{i}", "labels": ["visual_perception" if i % 2 == 0 else "cross_image"], "judge_calls": 1}
                  for i in range(120)])


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setattr(labels, "EXTERNAL", tmp_path / "external")
    data = write_data(tmp_path / "omi.jsonl", [{"id": f"q{i}", "benchmark": "omibench"} for i in range(120)])
    return tmp_path, data


def use_sample(monkeypatch, sample):
    monkeypatch.setattr(omibench_F7, "experiment", lambda name: SimpleNamespace(sample=sample))


def expected_sample(seed, size=100):
    """The documented rule, computed here: the failed answers with the smallest SHA-256 of
    seed, model, setting, id and sample index joined by the unit separator."""
    keys = [(m, f"q{i}") for m, n in FAILS.items() for i in range(n)]
    rank = {k: hashlib.sha256(f"{seed}\x1f{k[0]}\x1fcot_boxed\x1f{k[1]}\x1f0".encode()).hexdigest() for k in keys}
    return set(sorted(keys, key=rank.get)[:size])


def test_the_config_samples_100_failed_answers_with_a_seed():
    assert load_experiment(EXPERIMENTS / "omibench_F7.yaml").sample == Sample(100, 0)


def test_the_table_counts_the_seeded_sample_of_100(env, monkeypatch):
    tmp, data = env
    write_runs(tmp / "results", data)
    use_sample(monkeypatch, Sample(100, 0))
    t = omibench_F7.build("omibench.F7", Context(tmp / "results", tmp / "fig"))
    row = t.table.set_index("model")
    pooled = row.loc[labels.ALL]
    assert (pooled["failed"], pooled["failed_total"], pooled["labelled"]) == (100, 160, 100)
    assert (row.loc["a", "failed_total"], row.loc["b", "failed_total"]) == (90, 70)
    picked = expected_sample(0)
    assert row.loc["a", "failed"] == sum(m == "a" for m, _ in picked)
    assert row.loc["a", "failed"] + row.loc["b", "failed"] == 100
    evens = sum(int(i[1:]) % 2 == 0 for _, i in picked)
    assert pooled[VISUAL] == pytest.approx(evens) and pooled[CROSS] == pytest.approx(100 - evens)
    assert pooled["judge_calls"] == 240  # the judge labelled every answered response, passed ones too
    assert "a random sample of 100 of the 160 failed answers" in t.caption and "(seed 0)" in t.caption
    assert any(n.startswith("Population: a random sample of 100 of the 160") for n in t.notes)
    assert any("took 100 of those calls" in n for n in t.notes)


def test_the_sample_is_the_same_on_every_rerun_and_in_any_order(env, monkeypatch, tmp_path):
    tmp, data = env
    write_runs(tmp / "r1", data)
    write_runs(tmp / "r2", data, models=("b", "a"))  # written in another order
    use_sample(monkeypatch, Sample(100, 0))
    first = omibench_F7.build("omibench.F7", Context(tmp / "r1", tmp / "fig")).table
    again = omibench_F7.build("omibench.F7", Context(tmp / "r1", tmp / "fig")).table
    other_order = omibench_F7.build("omibench.F7", Context(tmp / "r2", tmp / "fig")).table
    assert first.equals(again) and first.equals(other_order)
    use_sample(monkeypatch, Sample(100, 1))
    reseeded = omibench_F7.build("omibench.F7", Context(tmp / "r1", tmp / "fig")).table.set_index("model")
    assert expected_sample(1) != expected_sample(0)
    assert reseeded.loc[labels.ALL, VISUAL] == sum(int(i[1:]) % 2 == 0 for _, i in expected_sample(1))


def test_the_sample_does_not_depend_on_the_labels(env, monkeypatch):
    # unreadable label replies for two sampled answers: the same answers are counted, two now as judge errors
    tmp, data = env
    sampled_a = sorted(i for m, i in expected_sample(0) if m == "a")[:2]
    write_runs(tmp / "results", data, broken=sampled_a)
    use_sample(monkeypatch, Sample(100, 0))
    a = omibench_F7.build("omibench.F7", Context(tmp / "results", tmp / "fig")).table.set_index("model").loc["a"]
    assert a["failed"] == sum(m == "a" for m, _ in expected_sample(0))
    assert (a["judge_error"], a["labelled"]) == (2, a["failed"] - 2)


def test_sample_of_keeps_every_answer_when_there_are_no_more():
    answers = labels.pd.DataFrame({"model": ["a"] * 3, "run_setting": ["s"] * 3, "id": ["q0", "q1", "q2"],
                                   "sample_idx": [0, 0, 0]})
    assert labels.sample_of(answers, 100, 0).equals(answers)
    assert labels.sample_of(answers, None, 0).equals(answers)
    two = labels.sample_of(answers, 2, 0)
    assert len(two) == 2 and two.equals(labels.sample_of(answers.iloc[::-1], 2, 0).sort_index())


def test_all_answers_on_request(env, monkeypatch):
    tmp, data = env
    write_runs(tmp / "results", data)
    use_sample(monkeypatch, Sample(None, 0))
    t = omibench_F7.build("omibench.F7", Context(tmp / "results", tmp / "fig"))
    pooled = t.table.set_index("model").loc[labels.ALL]
    assert (pooled["failed"], pooled["failed_total"], pooled[VISUAL]) == (160, 160, 50)  # 45 + 35 even items
    assert "all 160 failed answers" in t.caption
    assert any("took 160 of those calls" in n for n in t.notes)


def test_fewer_failed_answers_than_the_sample_are_all_counted_and_the_table_says_so(env, monkeypatch):
    tmp, data = env
    make_run(tmp / "results", "omibench", "a", "cot_boxed", GPTSCORE, data,
             [{"id": f"q{i}", "correct": i >= 3} for i in range(5)])
    make_run(tmp / "results", "omibench", "a", "cot_boxed", ERROR, data,
             [{"id": f"q{i}", "labels": ["other"]} for i in range(5)])
    use_sample(monkeypatch, Sample(100, 0))
    t = omibench_F7.build("omibench.F7", Context(tmp / "results", tmp / "fig"))
    assert t.table.set_index("model").loc[labels.ALL, "failed"] == 3
    assert "all 3 failed answers (fewer than the sample size 100)" in t.caption


def test_human_labels_outside_the_sample_are_left_out_and_said_so(env, monkeypatch):
    tmp, data = env
    write_runs(tmp / "results", data)
    outside = next(i for i in (f"q{k}" for k in range(90)) if ("a", i) not in expected_sample(0))
    inside = next(i for m, i in sorted(expected_sample(0)) if m == "a")
    (tmp / "external" / "omibench").mkdir(parents=True)
    (tmp / "external" / "omibench" / "error_labels.csv").write_text(
        "model,setting,id,sample_idx,annotator,labels,subtypes,note\n"
        f"a,cot_boxed,{outside},0,A1,other,,\na,cot_boxed,{inside},0,A1,other,,\n")
    use_sample(monkeypatch, Sample(100, 0))
    t = omibench_F7.build("omibench.F7", Context(tmp / "results", tmp / "fig"))
    assert t.table.set_index("model").loc["a", "human"] == 1
    assert t.notes[0].startswith("Labels: by people for 1 failed answer(s)")
    assert "1 human-labelled failed answer(s) are outside the sample: left out." in t.notes


@pytest.mark.parametrize("value", ["100", {"size": 0, "seed": 0}, {"size": 100}, {"size": "some", "seed": 0},
                                   {"size": 100, "seed": 0.5}, {"size": True, "seed": 0}])
def test_a_bad_sample_key_is_refused(tmp_path, value):
    text = (EXPERIMENTS / "omibench_F7.yaml").read_text().replace("sample: {size: 100, seed: 0}", f"sample: {value!r}")
    (tmp_path / "x.yaml").write_text(text)
    with pytest.raises(ConfigError, match="sample: expected"):
        load_experiment(tmp_path / "x.yaml")


def test_size_all_reads_as_every_answer(tmp_path):
    text = (EXPERIMENTS / "omibench_F7.yaml").read_text().replace("size: 100, seed: 0", "size: all, seed: 3")
    (tmp_path / "x.yaml").write_text(text)
    assert load_experiment(tmp_path / "x.yaml").sample == Sample(None, 3)
