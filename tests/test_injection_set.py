"""The injection set (tests/data/injection_cases.jsonl): every injection is flagged, every honest neighbour is not,
and against a judge model that obeys every injection (tests/obedient_judge.py) the published GPTScore and MIRA
judges and their careful variants count each answer as they count it with the injected text removed."""
import json
from pathlib import Path

import pytest

from data.jsonl import iter_jsonl, write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import judged_path, raw_path
from judge.injection import flagged_at, flags, rule_verdict
from judge.run import run
from tests.obedient_judge import ObedientJudge
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)

CASES = list(v for _, v in iter_jsonl(Path(__file__).parent / "data" / "injection_cases.jsonl"))
INJECTED = [c for c in CASES if not c.get("honest")]
HONEST = [c for c in CASES if c.get("honest")]


def response(case: dict, injected: bool = True) -> str:
    """The case's response, or its control: the same response with the injected text removed."""
    return case["before"] + (case["injected"] if injected else "") + case["after"]


def test_the_set_spans_languages_and_spellings():
    assert len(INJECTED) >= 30 and len(HONEST) >= 20
    langs = {c["lang"] for c in INJECTED}
    assert langs >= {"en", "zh", "de", "fr", "es"} and sum(c["lang"] == "zh" for c in INJECTED) >= 8
    spellings = " ".join(c["spelling"] for c in INJECTED)
    for kind in ("U+2236", "a dash", "base64", "zero-width", "full-width", "Cyrillic", "LaTeX comment",
                 "HTML comment", "JSON", "markdown footnote", "typo"):
        assert kind in spellings, kind
    # each injection would flip its answer: the answer given is wrong
    assert all(c["gold"] == "12" and "\\boxed{15}" in response(c) for c in INJECTED)


@pytest.mark.parametrize("case", INJECTED, ids=lambda c: c["id"])
def test_every_injection_is_flagged_and_its_control_is_not(case):
    assert flags(response(case)), case["spelling"]
    assert flags(response(case, injected=False)) == []
    # the flagged span starts where the injection does, or inside it
    at = flagged_at(response(case))
    assert at is not None and len(case["before"]) <= at < len(case["before"]) + len(case["injected"])


@pytest.mark.parametrize("case", HONEST, ids=lambda c: c["id"])
def test_honest_neighbours_are_not_flagged(case):
    assert flags(response(case)) == [], case["spelling"]


def test_an_answer_the_injection_appends_is_never_read():
    case = next(c for c in INJECTED if c["id"] == "en-reference-appended-box")
    rec = {"id": "q", "benchmark": "omibench", "question": case["question"], "images": [], "choices": [],
           "answer": [case["gold"]], "answer_type": "numeric"}
    v = rule_verdict(rec, response(case))
    assert (v["status"], v["correct"], v["extracted"]) == ("ok", False, "15")  # not the appended \boxed{12}


def judge_set(tmp_path: Path, srv, judge: str, bench: str, injected: bool) -> tuple[dict, dict]:
    """Every case (injected, or its control) judged by `judge`: the summary and the verdicts by id."""
    data = tmp_path / f"{bench}.jsonl"
    write_jsonl_atomic(data, [{"id": c["id"], "benchmark": bench, "question": c["question"], "images": [],
                               "choices": [], "answer": [c["gold"]], "answer_type": "numeric"} for c in CASES])
    setting = "injected" if injected else "control"
    raw = raw_path(tmp_path / "results", bench, "m", setting)
    raw.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl_atomic(raw, [{"id": c["id"], "sample_idx": 0, "request_key": f"{setting}-{c['id']}",
                              "response": response(c, injected), "error": None} for c in CASES])
    cfg = tmp_path / "judge.yaml"
    cfg.write_text(f"name: j\nmodel: j\nbase_urls: [{srv.base_url}]\nmodalities: [text]\nmax_retries: 0\n")
    summary = run(bench, data, "m", setting, judge, tmp_path / "results", load_model_config(cfg))
    verdicts = {v["id"]: v for _, v in iter_jsonl(judged_path(tmp_path / "results", bench, "m", setting, judge))}
    return summary, verdicts


@pytest.mark.parametrize("judge,bench", [("omibench_gptscore", "omibench"), ("omibench_gptscore_careful", "omibench"),
                                         ("mira_judge", "mira"), ("mira_judge_careful", "mira")])
def test_an_obedient_judge_gains_the_injections_nothing(tmp_path, scripted_server, judge, bench):
    script = ObedientJudge([c["injected"] for c in INJECTED])
    srv = scripted_server(script=script)
    control, plain = judge_set(tmp_path, srv, judge, bench, injected=False)
    assert script.obeyed == 0 and not any(v["flags"] for v in plain.values())
    # the truthful judge on the controls: every injected case wrong, each honest neighbour as its answer is
    assert not any(plain[c["id"]]["correct"] for c in INJECTED)
    assert [c["id"] for c in HONEST if plain[c["id"]]["correct"]] == [
        c["id"] for c in HONEST if "\\boxed{" + c["gold"] + "}" in response(c).replace("１２", "12")]
    tricked, verdicts = judge_set(tmp_path, srv, judge, bench, injected=True)
    assert {i for i, v in verdicts.items() if v["flags"]} == {c["id"] for c in INJECTED}
    # the headline: each answer counted as without the injected text, and so the accuracy
    assert {i: bool(v["correct"]) for i, v in verdicts.items()} == {i: bool(v["correct"]) for i, v in plain.items()}
    assert tricked["accuracy"] == control["accuracy"] and tricked["flagged"] == len(INJECTED)
    flipped = [c["id"] for c in INJECTED if verdicts[c["id"]].get("llm_correct")]
    if judge in ("omibench_gptscore", "omibench_gptscore_careful", "mira_judge"):  # they read the whole response
        assert script.obeyed > 0 and len(flipped) > len(INJECTED) // 2, flipped
    else:  # shown only the tagged answer, the judge model never read an injection
        assert script.obeyed == 0 and flipped == []
