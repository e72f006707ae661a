"""judge.rules scores predictions made elsewhere against a converted official OMIBench release."""
import json

from data.convert import convert
from data.demo import omibench as demo
from judge.rules import main


def test_rules_cli_on_a_converted_omibench_release(tmp_path, capsys):
    src = demo.generate(tmp_path / "official")
    records = convert("omibench", src, tmp_path / "omibench.jsonl")
    preds = []
    for i, rec in enumerate(records[:-1]):  # the last record gets no prediction
        gold = "".join(rec["answer"]) if rec["answer_type"] == "mcq" else ", ".join(rec["answer"])
        text = f"Reasoning...\nThe final answer is \\boxed{{{gold}}}" if i % 2 == 0 else "I do not know."
        preds.append({"id": rec["id"], "prediction" if i % 3 == 0 else "response": text})
    preds.append({"id": "not-in-data", "response": "\\boxed{1}"})
    preds.append({"id": records[0]["id"] + "-x", "response": None})
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))

    assert main(["--data", str(tmp_path / "omibench.jsonl"), "--pred", str(tmp_path / "pred.jsonl"),
                 "--out", str(tmp_path / "out.jsonl")]) == 0
    out = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    n = len(records) - 1
    correct = sum(1 for x in out if x["correct"])
    assert len(out) == n and correct == (n + 1) // 2
    assert all(x["correct"] == (i % 2 == 0) for i, x in enumerate(out))
    printed = capsys.readouterr().out
    # the paper-comparable accuracy divides by every record (the one without a prediction counts as
    # wrong); the accuracy over scored predictions stands beside it
    assert f"({correct}/{n + 1} records;" in printed and f"over scored predictions" in printed
    assert f"({correct}/{n})" in printed
    assert "1 record(s) without a prediction" in printed and "2 prediction(s) matching no record" in printed
