"""Asking a model (infer/ask.py): the log answers before the model does, a failure is recorded and final for the
run, an unreadable reply is asked again as the policy says, the judge log's earlier lines still answer, and the
driver sends each stage's asks of all items together."""
import json

from infer.ask import Ask, Cost, Log, Reask, Reply, answer, drive, upgrade
from infer.config import load_model_config
from infer.render import RenderError
from tests.scripted_server import Reply as Scripted, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config

PARAMS = {"temperature": 0, "max_tokens": 16}


def render(rec, ask):
    if rec.get("broken"):
        raise RenderError(f"{rec['id']}: image missing")
    return [{"role": "user", "content": f"{ask.prompt}: {rec['question']}"}]


def rec(i, question):
    return {"id": i, "question": question}


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_key_with_a_logged_reply_is_never_sent_again(tmp_path, scripted_server):
    srv = scripted_server()  # echoes the user message: "ECHO: <message>"
    cfg, path = judge_config(tmp_path, srv.base_url), tmp_path / "log.jsonl"
    asks = [(rec("a", "2+2"), Ask("p", {})), (rec("b", "3+3"), Ask("p", {})), (rec("c", "2+2"), Ask("p", {}))]
    replies = answer(asks, render, cfg, PARAMS, Log(path, "judge", tmp_path))
    # a and c render the same messages: one request, one reply for both
    assert [r.text for r in replies] == ["ECHO: p: 2+2", "ECHO: p: 3+3", "ECHO: p: 2+2"]
    assert srv.count == 2 and [x["setting"] for x in lines(path)] == ["judge:p", "judge:p"]
    assert all(r.error is None and r.parsed is None and r.tokens > 0 for r in replies)
    # a later run (a new Log) asks again with one new question: only that one is sent
    replies = answer([*asks, (rec("d", "4+4"), Ask("p", {}))], render, cfg, PARAMS, Log(path, "judge", tmp_path))
    assert [r.text for r in replies] == ["ECHO: p: 2+2", "ECHO: p: 3+3", "ECHO: p: 2+2", "ECHO: p: 4+4"]
    assert srv.count == 3 and len(lines(path)) == 3


def test_a_failed_request_is_recorded_final_for_its_run_and_sent_again_by_the_next(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Scripted.error(500) if "bad" in json.dumps(body) else None)
    cfg, path = judge_config(tmp_path, srv.base_url), tmp_path / "log.jsonl"  # max_retries 1: two attempts
    asks = [(rec("a", "bad"), Ask("p", {})), (rec("b", "fine"), Ask("p", {}))]
    run = Log(path, "adapt", tmp_path)
    failed, ok = answer(asks, render, cfg, PARAMS, run)
    assert failed.text is None and failed.parsed is None and "500" in failed.error
    assert failed.call["attempts"] == 2 and len(failed.call["attempt_errors"]) == 2
    assert ok.text == "ECHO: p: fine" and srv.count == 3
    logged = {x["request_key"]: x for x in lines(path)}
    assert sorted(x["error"] is None for x in logged.values()) == [False, True]  # the failure is a line of its own
    # the same run asks again: its failure is final (the client retried it already), nothing is sent
    again, _ = answer(asks, render, cfg, PARAMS, run)
    assert again.error == failed.error and srv.count == 3
    # the next run tries the failure again, and only it
    answer(asks, render, cfg, PARAMS, Log(path, "adapt", tmp_path))
    assert srv.count == 5 and len(lines(path)) == 3


def test_an_unrenderable_ask_fails_alone_without_a_request(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = judge_config(tmp_path, srv.base_url)
    broken = {**rec("a", "x"), "broken": True}
    bad, good = answer([(broken, Ask("p", {})), (rec("b", "y"), Ask("p", {}))], render, cfg, PARAMS,
                       Log(tmp_path / "log.jsonl", "judge", tmp_path))
    assert bad == Reply(None, None, "RenderError: a: image missing")
    assert good.text == "ECHO: p: y" and srv.count == 1


def reads_ok(text):
    return {"ok": text} if text.startswith("OK") else None


def test_an_unreadable_reply_is_asked_again_while_the_policy_allows_and_the_reply_changes(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Scripted.ok(f"?{attempt}"))  # a new unreadable reply each time
    cfg = judge_config(tmp_path, srv.base_url)
    ask = [(rec("a", "x"), Ask("p", {}, reads_ok))]
    (reply,) = answer(ask, render, cfg, PARAMS, Log(tmp_path / "1.jsonl", "judge", tmp_path), Reask(3, "unread"))
    assert srv.count == 3 and (reply.text, reply.parsed, reply.error) == ("?3", None, "unread")
    # never asked again for being unreadable
    (reply,) = answer([(rec("a", "y"), Ask("p", {}, reads_ok))], render, cfg, PARAMS,
                      Log(tmp_path / "2.jsonl", "judge", tmp_path), Reask(0, "unread"))
    assert srv.count == 4 and reply.text == "?1" and reply.error == "unread"


def test_an_unreadable_reply_that_comes_back_the_same_is_not_asked_a_third_time(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Scripted.ok("no idea"))
    cfg = judge_config(tmp_path, srv.base_url)
    (reply,) = answer([(rec("a", "x"), Ask("p", {}, reads_ok))], render, cfg, PARAMS,
                      Log(tmp_path / "log.jsonl", "judge", tmp_path), Reask(3, "unread"))
    assert srv.count == 2 and reply.text == "no idea" and reply.parsed is None


def test_a_logged_unreadable_reply_is_asked_again_by_a_later_run(tmp_path, scripted_server):
    srv = scripted_server(script=[Scripted.ok("no idea"), Scripted.ok("OK 4")])
    cfg, path = judge_config(tmp_path, srv.base_url), tmp_path / "log.jsonl"
    ask = [(rec("a", "x"), Ask("p", {}, reads_ok))]
    (first,) = answer(ask, render, cfg, PARAMS, Log(path, "judge", tmp_path), Reask(0, "unread"))
    assert first.error == "unread" and srv.count == 1
    (second,) = answer(ask, render, cfg, PARAMS, Log(path, "judge", tmp_path), Reask(3, "unread"))
    assert srv.count == 2 and second.parsed == {"ok": "OK 4"} and second.error is None
    assert [x["response"] for x in lines(path)] == ["no idea", "OK 4"]


def test_a_line_of_the_earlier_judge_log_form_is_read_as_the_reply_it_holds(tmp_path, scripted_server):
    old = {"key": "k1", "judge": "omibench_gptscore", "reply": "ANSWER: consistent", "usage": {"completion_tokens": 3}}
    assert upgrade(old) == {**old, "request_key": "k1", "response": "ANSWER: consistent", "error": None}
    new = {"request_key": "k2", "response": "x", "error": None}
    assert upgrade(new) is new
    srv = scripted_server(script=lambda body, attempt: Scripted.ok("OK new"))
    cfg, path = judge_config(tmp_path, srv.base_url), tmp_path / "log.jsonl"
    ask = [(rec("a", "x"), Ask("p", {}, reads_ok))]
    answer(ask, render, cfg, PARAMS, Log(path, "judge", tmp_path))
    (line,) = lines(path)
    path.write_text(json.dumps({"key": line["request_key"], "judge": "j", "reply": "OK old", "usage": line["usage"]}) + "\n")
    (reply,) = answer(ask, render, cfg, PARAMS, Log(path, "judge", tmp_path), Reask(3))
    assert srv.count == 1 and (reply.text, reply.parsed, reply.error) == ("OK old", {"ok": "OK old"}, None)


def test_a_constrained_model_gets_the_grammar_in_its_request_and_key(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Scripted.ok("OK"))
    p = tmp_path / "small.yaml"
    p.write_text(f"name: small\nmodel: m\nbase_urls: [{srv.base_url}]\nmodalities: [text]\nconstrain_judge_replies: true\n")
    cfg, path = load_model_config(p), tmp_path / "log.jsonl"
    answer([(rec("a", "x"), Ask("p", {}, grammar='root ::= "OK"'))], render, cfg, PARAMS, Log(path, "judge", tmp_path))
    answer([(rec("a", "x"), Ask("p", {}))], render, cfg, PARAMS, Log(path, "judge", tmp_path))
    # the same messages without the grammar are another request
    assert srv.count == 2 and srv.requests[0]["grammar"] == 'root ::= "OK"' and "grammar" not in srv.requests[1]
    assert [x["params"].get("grammar") for x in lines(path)] == ['root ::= "OK"', None]


def test_an_image_ask_reads_the_text_alone_for_a_model_without_images(tmp_path):
    cfg = judge_config(tmp_path, "http://127.0.0.1:9/v1")  # modalities: [text]
    assert Ask("p", {}, mode="image").mode_for(cfg) == "text"
    assert Ask("p", {}, mode="caption").mode_for(cfg) == "caption"


def two_stages(name):
    first = yield [Ask(f"{name}1", {}), Ask(f"{name}2", {})]
    (second,) = yield [Ask(f"{name}3", {})]
    return [r.text for r in [*first, second]]


def one_stage(name):
    (reply,) = yield [Ask(f"{name}1", {})]
    return {"error": reply.error}


def nothing_to_ask():
    return {"settled": "without a call"}
    yield  # a generator that returns at once


def test_the_driver_sends_each_stage_of_all_items_together_and_routes_the_replies():
    batches = []

    def answer_batch(pending):
        batches.append([(i, ask.prompt) for i, ask in pending])
        return [Reply(None, None, "HTTP 500", 1, {"attempts": 2}) if ask.prompt == "b1" else
                Reply(ask.prompt.upper(), None, None, 2) for _, ask in pending]

    out = drive([two_stages("a"), one_stage("b"), {"at": "once"}, nothing_to_ask()], answer_batch)
    assert batches == [[(0, "a1"), (0, "a2"), (1, "b1")], [(0, "a3")]]
    assert out == [(["A1", "A2", "A3"], Cost(3, 6, [])),
                   ({"error": "HTTP 500"}, Cost(1, 1, [{"attempts": 2}])),
                   ({"at": "once"}, None),
                   ({"settled": "without a call"}, Cost())]
