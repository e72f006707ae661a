"""Captions made once by a captioning model and stored with the data; failures keep no caption."""
import json

from PIL import Image

from pipeline.caption import caption
from data.jsonl import read_jsonl, write_jsonl_atomic
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)


def test_captions_are_stored_and_failures_listed(tmp_path, scripted_server):
    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")
    recs = [{"id": f"q{i}", "benchmark": "think360", "question": f"Q{i}", "images": ["a.png"], "choices": [],
             "answer": ["1"], "answer_type": "numeric"} for i in range(3)]
    write_jsonl_atomic(tmp_path / "d.jsonl", recs)
    srv = scripted_server(script=[Reply.ok("A 4x4 black square."), Reply.error(400), Reply.ok("A black square.")])
    model = tmp_path / "cap.yaml"
    model.write_text(f"name: cap\nmodel: cap\nbase_urls: [{srv.base_url}]\nmax_retries: 0\nconcurrency: 1\n")
    counts = caption("think360", tmp_path / "d.jsonl", model, tmp_path / "d.cap.jsonl", tmp_path / "results")
    assert counts == {"records": 3, "captioned": 2, "missing": 1}
    out = read_jsonl(tmp_path / "d.cap.jsonl")
    assert out[0]["captions"] == ["A 4x4 black square."] and "captions" not in out[1]
    sent = srv.requests[0]["messages"][0]["content"]
    assert sent[0]["type"] == "image_url" and "Create an image caption" in json.dumps(sent)
