"""Reply grammars (judge/grammars.py): every reply a judge's grammar allows is read by that judge's own
parser (replies sampled from each grammar drive every judge through all its stages), the longest reply
fits the judge's reply budget, hand-written replies match and read as expected, replies the parsers
refuse are outside the grammars, a constrained judge still parses what it gets, and the real embedded
model's constrained replies are read (e2e)."""
from __future__ import annotations

import dataclasses
import inspect
import json
import random
import re
import urllib.request
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from infer.ask import Reply as JudgeReply
from infer.config import load_model_config
from infer.layout import judged_dir
from judge import grammars, ratings, reviewer, taxonomy
from judge.judges import JUDGES
from judge.run import run
from judge.types import Item
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts

EMBEDDED = "configs/models/smollm2-135m.yaml"


# --------------------------------------------------------------------------------------------------
# The GBNF these grammars use — literals, character classes, rule names, groups, alternatives, ?, *, +
# and {m,n} — read into a tree to sample replies, match a text and measure the longest reply.
# --------------------------------------------------------------------------------------------------
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(\[(?:[^\]\\]|\\.)*\])|([A-Za-z0-9-]+)|(\{\d+(?:,\d*)?\}|[?*+()|]))')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
POOL = [chr(c) for c in range(32, 127)] + ["\t", "é", "×", "→"]  # what a negated class may be sampled from


def _chars(body: str) -> list[str]:
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            c = body[i + 1]
            if c == "x":
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES.get(c, c))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return out


def _class(text: str) -> tuple:
    chars = _chars(text[1:-1])
    negated = chars[:1] == ["^"] and not text.startswith("[\\^")
    chars = chars[1:] if negated else chars
    ranges, i = [], 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            ranges.append((chars[i], chars[i + 2]))
            i += 3
        else:
            ranges.append((chars[i], chars[i]))
            i += 1
    return ("cls", negated, tuple(ranges))


def read_gbnf(text: str) -> dict[str, tuple]:
    """The rules of a grammar, each a tree of ("lit", s), ("cls", negated, ranges), ("ref", name),
    ("seq", parts), ("alt", options), ("rep", node, least, most or None)."""
    bodies = re.split(r"^([A-Za-z0-9-]+)\s*::=", text, flags=re.M)[1:]
    rules = {}
    for name, body in zip(bodies[::2], bodies[1::2]):
        tokens, pos = [], 0
        body = body.strip()
        while pos < len(body):
            m = _TOKEN.match(body, pos)
            assert m, f"rule {name}: cannot read {body[pos:pos + 20]!r}"
            tokens.append(m.groups())
            pos = m.end()
        node, rest = _alt(tokens)
        assert not rest, f"rule {name}: unbalanced"
        rules[name] = node
    return rules


def _alt(tokens: list) -> tuple[tuple, list]:
    options = []
    while True:
        parts = []
        while tokens and tokens[0][3] not in ("|", ")"):
            lit, cls, ref, op = tokens.pop(0)
            if lit:
                node = ("lit", "".join(_chars(lit[1:-1])))
            elif cls:
                node = _class(cls)
            elif ref:
                node = ("ref", ref)
            else:
                assert op == "(", f"unexpected {op!r}"
                node, tokens = _alt(tokens)
                assert tokens.pop(0)[3] == ")"
            while tokens and tokens[0][3] and tokens[0][3] not in "(|)":
                op = tokens.pop(0)[3]
                least, most = {"?": (0, 1), "*": (0, None), "+": (1, None)}.get(op, (None, None))
                if least is None:
                    a, comma, b = op[1:-1].partition(",")
                    least, most = int(a), (int(b) if b else None) if comma else int(a)
                node = ("rep", node, least, most)
            parts.append(node)
        options.append(("seq", tuple(parts)))
        if not tokens or tokens[0][3] == ")":
            return ("alt", tuple(options)), tokens
        tokens.pop(0)


def _in(ranges: tuple, c: str) -> bool:
    return any(lo <= c <= hi for lo, hi in ranges)


def sample(rules: dict, rng: random.Random, node: tuple | None = None) -> str:
    node = node or rules["root"]
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "cls":
        return rng.choice([c for c in POOL if _in(node[2], c) != node[1]])
    if kind == "ref":
        return sample(rules, rng, rules[node[1]])
    if kind == "seq":
        return "".join(sample(rules, rng, n) for n in node[1])
    if kind == "alt":
        return sample(rules, rng, rng.choice(node[1]))
    _, inner, least, most = node
    # the ends of a bound are where replies break: hit them often
    n = rng.choice([least, most if most is not None else least + 3, rng.randint(least, most or least + 3)])
    return "".join(sample(rules, rng, inner) for _ in range(n))


def longest(rules: dict, node: tuple | None = None) -> float:
    """The most bytes a reply can have (a negated or non-ASCII class: 4 bytes a character)."""
    node = node or rules["root"]
    kind = node[0]
    if kind == "lit":
        return len(node[1].encode())
    if kind == "cls":
        return 4 if node[1] or any(hi > "\x7f" for _, hi in node[2]) else 1
    if kind == "ref":
        return longest(rules, rules[node[1]])
    if kind == "seq":
        return sum(longest(rules, n) for n in node[1])
    if kind == "alt":
        return max(longest(rules, n) for n in node[1])
    return float("inf") if node[3] is None else node[3] * longest(rules, node[1])


def regex(rules: dict, node: tuple | None = None) -> str:
    node = node or rules["root"]
    kind = node[0]
    if kind == "lit":
        return re.escape(node[1])
    if kind == "cls":
        inside = "".join(re.escape(lo) + ("-" + re.escape(hi) if hi != lo else "") for lo, hi in node[2])
        return f"[{'^' if node[1] else ''}{inside}]"
    if kind == "ref":
        return f"(?:{regex(rules, rules[node[1]])})"
    if kind == "seq":
        return "".join(regex(rules, n) for n in node[1])
    if kind == "alt":
        return "(?:" + "|".join(regex(rules, n) for n in node[1]) + ")"
    _, inner, least, most = node
    return f"(?:{regex(rules, inner)}){{{least},{'' if most is None else most}}}"


def matches(grammar: str, text: str) -> bool:
    return re.fullmatch(regex(read_gbnf(grammar)), text, re.S) is not None


def test_the_reader_reads_gbnf():
    rules = read_gbnf('root ::= "a\\"b" [^x\\n]{1,2} (c | "d")?\nc ::= [0-9]+')
    assert matches('root ::= "a\\"b" [^x\\n]{1,2} (c | "d")?\nc ::= [0-9]+', 'a"bq12')
    assert not matches('root ::= "a\\"b" [^x\\n]{1,2} (c | "d")?\nc ::= [0-9]+', 'a"bx')
    assert longest(rules) == float("inf") and longest(read_gbnf('root ::= "ab" [a-z]{0,3}')) == 5


# --------------------------------------------------------------------------------------------------
# Every reply a grammar allows is read by its judge's parser, through every stage of every judge
# --------------------------------------------------------------------------------------------------
REC = {"id": "a", "benchmark": "morphobench", "question": "What is 2 + 3?", "images": [], "choices": [],
       "answer": ["5"], "answer_type": "numeric", "hints": ["Add the numbers.", "Check the sum.", "Mind the carry."],
       "solution": "2 + 3 = 5.", "steps": ["Add 2 and 3."]}
ITEM = Item(REC, "2 + 3 = 5, so the answer is \\boxed{5}.")
# MIRA's published judge asks its model only about a tagged answer its exact match does not settle; the careful
# cascade only about an answer the rules leave undecided, with each benchmark's own judge prompt
ITEMS = {"mira_judge": [Item(REC, "2 + 3 = 5, so <answer>five</answer>")],
         "mira_judge_careful": [Item(REC, "2 + 3 = 5, so <answer>five</answer>")],
         "careful_cascade": [Item({**REC, "benchmark": b, "answer": ["unchanged"], "answer_type": "text"},
                                  "It stays level, so the answer is \\boxed{stays the same}.")
                             for b in ("omibench", "think360", "mira", "c2rbench", "morphobench")]}
LLM_JUDGES = [name for name, j in JUDGES.items() if j.prompts]
RANGES = {"completeness": (0, 100), "coherence": (0, 100), "halign": (0, 100), "tot_depth": (0, 1), "tot_width": (0, 1),
          "tot_width_with_roots": (0, 1)}


def judge_with_grammar(judge: Any, item: Item, rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """The judge's verdict when every request is answered by a reply sampled from its own grammar; every
    reply must be read by the request's own parser."""
    steps, prompts = judge.steps(item), []
    assert inspect.isgenerator(steps)
    try:
        asks = next(steps)
        while True:
            replies = []
            for ask in asks:
                assert ask.grammar, f"{judge.name}: the {ask.prompt} request carries no grammar"
                text = sample(read_gbnf(ask.grammar), rng)
                parsed = ask.parse(text)
                assert parsed is not None, f"{judge.name}: {ask.prompt}'s parser does not read {text!r}"
                replies.append(JudgeReply(text, parsed))
                prompts.append(ask.prompt)
            asks = steps.send(replies)
    except StopIteration as done:
        return done.value, prompts


@pytest.mark.parametrize("name", LLM_JUDGES)
def test_every_reply_a_judge_grammar_allows_is_read_by_its_parser(name):
    judge, asked = JUDGES[name], set()
    for seed in range(40):
        item = ITEMS.get(name, [ITEM])[seed % len(ITEMS.get(name, [ITEM]))]
        verdict, prompts = judge_with_grammar(judge, item, random.Random(seed))
        asked.update(prompts)
        assert verdict.get("status", "ok") == "ok", verdict
        for field, value in (verdict.get("score") or {}).items():
            lo, hi = RANGES.get(field, (1, 5))  # OMIBench's ratings are 1–5
            if value is None:  # a tree whose nodes have no children has no ToT-Width (Eq. S2's G is empty)
                assert field == "tot_width", (field, value)
                continue
            assert lo <= value <= hi, (field, value)
    assert asked == set(judge.prompts)  # every stage was reached


def test_a_hint_check_grammar_names_only_the_items_hints():
    for k in (1, 2, 3, 12):
        rules = read_gbnf(grammars.hint_check(k))
        for seed in range(60):
            text = sample(rules, random.Random(seed))
            review = reviewer.check_hint(text, hints=k)
            assert set(review["relevant_hints"]) <= set(range(1, k + 1))
            assert (review["alignment"] == "neutral") == (review["relevant_hints"] == [])
    with pytest.raises(ValueError):
        grammars.hint_check(0)


# --------------------------------------------------------------------------------------------------
# Bounded: the longest reply fits the judge's reply budget, so it is never cut mid-reply
# --------------------------------------------------------------------------------------------------
BOUNDED = {"BREAKDOWN": grammars.BREAKDOWN, "STEP_CHECK": grammars.STEP_CHECK,
           "REASONING_SUMMARY": grammars.REASONING_SUMMARY, "HINT_SUMMARY": grammars.HINT_SUMMARY,
           **{f"hint_check({k})": grammars.hint_check(k) for k in (1, 3, 9, 99)},
           "OMIBENCH_ERROR": grammars.OMIBENCH_ERROR, "THINK360_ERROR": grammars.THINK360_ERROR,
           "C2RBENCH_ERROR": grammars.C2RBENCH_ERROR, "RATIONALE_QUALITY": grammars.RATIONALE_QUALITY,
           "RATIONALE_ALIGNMENT": grammars.RATIONALE_ALIGNMENT}


@pytest.mark.parametrize("name", BOUNDED)
def test_the_longest_reply_fits_the_reply_budget(name):
    # a token is at least one byte: a reply of at most BUDGET bytes is at most BUDGET tokens
    assert longest(read_gbnf(BOUNDED[name])) <= grammars.BUDGET


def test_the_budget_is_the_embedded_judges():
    cfg = load_model_config(EMBEDDED)
    assert cfg.constrain_judge_replies and cfg.judge_params()["max_tokens"] >= grammars.BUDGET


# --------------------------------------------------------------------------------------------------
# Replies written by hand: each matches its grammar and reads as expected
# --------------------------------------------------------------------------------------------------
def _labels(read):
    """The reading without C²RBench's free-text analysis."""
    def labels(text):
        got = read(text)
        return got and {k: v for k, v in got.items() if k != "analysis"}
    return labels


HAND = [
    (grammars.BREAKDOWN, reviewer.check_breakdown, '{"steps": ["Read 2 and 3", "Add them: 2 + 3 = 5"]}',
     {"steps": ["Read 2 and 3", "Add them: 2 + 3 = 5"]}),
    (grammars.STEP_CHECK, reviewer.check_step,
     '{"is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, "missing_justification": 1, "rating": 1, '
     '"issues": ["no reason for 5"], "comment": "Mostly fine."}',
     {"is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, "missing_justification": 1, "rating": 1,
      "issues": ["no reason for 5"], "comment": "Mostly fine."}),
    (grammars.STEP_CHECK, reviewer.check_step,
     '{"is_sound": 0, "has_logical_gap": 1, "has_contradiction": 1, "missing_justification": 0, "rating": 0, '
     '"issues": [], "comment": ""}', None),
    (grammars.REASONING_SUMMARY, reviewer.check_reasoning_summary,
     '{"completeness": 100, "logical_coherence": 7, "comment": "Short."}',
     {"completeness": 100, "coherence": 7, "comment": "Short."}),
    (grammars.hint_check(3), partial(reviewer.check_hint, hints=3),
     '{"alignment": "neutral", "relevant_hints": [], "deviation_justified": null, "justification_quality": null, '
     '"comment": "No hint."}',
     {"alignment": "neutral", "relevant_hints": [], "deviation_justified": None, "justification_quality": None,
      "comment": "No hint."}),
    (grammars.hint_check(3), partial(reviewer.check_hint, hints=3),
     '{"alignment": "aligned", "relevant_hints": [3, 1], "deviation_justified": null, "justification_quality": null, '
     '"comment": ""}', {"alignment": "aligned", "relevant_hints": [1, 3], "deviation_justified": None,
                        "justification_quality": None, "comment": ""}),
    (grammars.hint_check(3), partial(reviewer.check_hint, hints=3),
     '{"alignment": "deviated", "relevant_hints": [2], "deviation_justified": true, "justification_quality": "weak", '
     '"comment": "x"}', {"alignment": "deviated", "relevant_hints": [2], "deviation_justified": True,
                         "justification_quality": "weak", "comment": "x"}),
    (grammars.hint_check(3), partial(reviewer.check_hint, hints=3),
     '{"alignment": "deviated", "relevant_hints": [2], "deviation_justified": false, "justification_quality": "none", '
     '"comment": "x"}', {"alignment": "deviated", "relevant_hints": [2], "deviation_justified": False,
                         "justification_quality": "none", "comment": "x"}),
    (grammars.HINT_SUMMARY, reviewer.check_hint_summary, '{"hint_alignment": 0, "comment": "Ignores them."}',
     {"halign": 0, "comment": "Ignores them."}),
    *[(grammars.OMIBENCH_ERROR, taxonomy.omibench_error, f"CATEGORY: {n}. {c.name}", {"labels": [c.slug]})
      for n, c in enumerate(taxonomy.OMIBENCH.classes, start=1)],
    (grammars.OMIBENCH_ERROR, taxonomy.omibench_error, "CATEGORY: none", {"labels": []}),
    (grammars.THINK360_ERROR, taxonomy.think360_error, "CATEGORY: Width-centric errors\nSUBTYPE: Ineffective Pruning",
     {"labels": ["width"], "subtypes": ["ineffective_pruning"]}),
    (grammars.THINK360_ERROR, taxonomy.think360_error, "CATEGORY: Perception/calculation errors\nSUBTYPE: none",
     {"labels": ["perception_calculation"], "subtypes": []}),
    (grammars.THINK360_ERROR, taxonomy.think360_error, "CATEGORY: none", {"labels": [], "subtypes": []}),
    *[(grammars.THINK360_ERROR, taxonomy.think360_error, f"CATEGORY: {c.name}\nSUBTYPE: none",
       {"labels": [c.slug], "subtypes": []}) for c in taxonomy.THINK360.classes],
    # every C²RBench subtype under its type
    *[(grammars.C2RBENCH_ERROR, _labels(taxonomy.c2rbench_error),
       f"- Analysis: x\n- Error Type: {taxonomy.C2RBENCH.names()[s.parent]}\n- Error Subtype: {s.name}",
       {"labels": [s.parent], "subtypes": [s.slug]}) for s in taxonomy.C2RBENCH.subtypes],
    (grammars.C2RBENCH_ERROR, taxonomy.c2rbench_error,
     "- Analysis: Misreads the table, then adds wrongly.\n"
     "- Error Type: Perception & Input Errors; Task Execution Errors\n"
     "- Error Subtype: Perceptual Error; Arithmetic Error",
     {"labels": ["perception_input", "task_execution"], "subtypes": ["perceptual_error", "arithmetic_error"],
      "analysis": "Misreads the table, then adds wrongly."}),
    (grammars.C2RBENCH_ERROR, _labels(taxonomy.c2rbench_error),
     "- Analysis: Two slips.\n- Error Type: Logical & Reasoning Errors\n"
     "- Error Subtype: Causal Reasoning Error; Deductive Reasoning Error",
     {"labels": ["logic_reasoning"], "subtypes": ["causal_reasoning_error", "deductive_reasoning_error"]}),
    (grammars.RATIONALE_QUALITY, ratings.rationale_quality,
     '{"correctness": 4, "faithfulness": 5, "information-usage": 3, "clarity": 4, "detail": 2, "overall": 4}',
     {"score": {"correctness": 4, "faithfulness": 5, "information-usage": 3, "clarity": 4, "detail": 2,
                "overall": 4}}),
    (grammars.RATIONALE_ALIGNMENT, ratings.rationale_alignment, '{"justification": "Same steps.", "score": 5}',
     {"score": {"alignment": 5}, "justification": "Same steps."}),
]


@pytest.mark.parametrize("grammar, read, reply, want", HAND)
def test_hand_written_replies_match_and_read(grammar, read, reply, want):
    assert matches(grammar, reply), reply
    got = read(reply)
    assert got is not None and (want is None or got == want)


@pytest.mark.parametrize("grammar, reply", [
    (grammars.BREAKDOWN, '{"steps": []}'),                                           # no step
    (grammars.BREAKDOWN, '{"steps": [" "]}'),                                        # a blank step
    (grammars.BREAKDOWN, '{"steps": [' + ", ".join(['"a"'] * 7) + "]}"),             # more than six
    (grammars.BREAKDOWN, '{"steps": ["a \\"quoted\\" word"]}'),                       # no escapes
    (grammars.STEP_CHECK, '{"is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, "missing_justification": 0, '
                          '"rating": 3, "issues": [], "comment": ""}'),              # rating out of range
    (grammars.REASONING_SUMMARY, '{"completeness": 101, "logical_coherence": 7, "comment": ""}'),
    (grammars.hint_check(2), '{"alignment": "aligned", "relevant_hints": [3], "deviation_justified": null, '
                             '"justification_quality": null, "comment": ""}'),       # no hint 3
    (grammars.hint_check(2), '{"alignment": "neutral", "relevant_hints": [1], "deviation_justified": null, '
                             '"justification_quality": null, "comment": ""}'),       # a neutral step names none
    (grammars.OMIBENCH_ERROR, "CATEGORY: 1. Logical Reasoning Fallacies"),          # number and name disagree
    (grammars.OMIBENCH_ERROR, "CATEGORY: <number>. <category name>"),               # the format quoted back
    (grammars.THINK360_ERROR, "CATEGORY: Depth-centric errors\nSUBTYPE: Ineffective Pruning"),
    (grammars.C2RBENCH_ERROR, "- Analysis: x\n- Error Type: Logical & Reasoning Errors\n"
                              "- Error Subtype: Arithmetic Error"),                  # another type's subtype
    (grammars.C2RBENCH_ERROR, "- Analysis: x\n- Error Type: Logical & Reasoning Errors; Task Execution Errors\n"
                              "- Error Subtype: Deductive Reasoning Error"),         # a type without a subtype
    (grammars.RATIONALE_QUALITY, '{"correctness": 6, "faithfulness": 5, "information-usage": 3, "clarity": 4, '
                                 '"detail": 2, "overall": 4}'),
    (grammars.RATIONALE_ALIGNMENT, '{"justification": "Same.", "score": 0}'),
])
def test_what_the_parsers_refuse_is_outside_the_grammars(grammar, reply):
    assert not matches(grammar, reply)


def test_the_grammars_are_built_from_the_label_tables():
    for tax, grammar in ((taxonomy.OMIBENCH, grammars.OMIBENCH_ERROR), (taxonomy.THINK360, grammars.THINK360_ERROR),
                         (taxonomy.C2RBENCH, grammars.C2RBENCH_ERROR)):
        for label in tax.classes + tax.subtypes:
            assert json.dumps(label.name)[1:-1] in grammar


# --------------------------------------------------------------------------------------------------
# A constrained judge model gets the grammar, and what it replies is still read by the parser
# --------------------------------------------------------------------------------------------------
def small_judge(tmp_path: Path, url: str):
    """A judge model whose config constrains its replies, as the embedded model's does."""
    p = tmp_path / "small.yaml"
    p.write_text(f"name: small\nmodel: m\nbase_urls: [{url}]\nmodalities: [text]\nconstrain_judge_replies: true\n")
    return load_model_config(p)


def test_a_constrained_labelling_judge_sends_its_grammar_and_still_parses_the_reply(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.ok("CATEGORY: 7. Sloppiness"))  # not in the grammar
    data, _ = setup(tmp_path)
    s = run("omibench", data, "m", "s", "omibench_error", tmp_path / "results", small_judge(tmp_path, srv.base_url))
    assert srv.requests and all(r["grammar"] == grammars.OMIBENCH_ERROR for r in srv.requests)
    assert s["judge_error"] == 2 and s["scored"] == 0  # a grammar the server ignored gives no label
    # an unconstrained (paper) judge model gets no grammar
    srv2 = scripted_server(script=lambda body, attempt: Reply.ok("CATEGORY: 2"))
    judged_dir(tmp_path / "results").rename(tmp_path / "old")
    s = run("omibench", data, "m", "s", "omibench_error", tmp_path / "results", judge_config(tmp_path, srv2.base_url))
    assert srv2.requests and all("grammar" not in r for r in srv2.requests) and s["scored"] == 2


STAGE_MARKERS = {  # words of each stage's prompt
    reviewer.BREAKDOWN: "step-breakdown tool", reviewer.STEP_CHECK: "step-checking tool",
    reviewer.REASONING_SUMMARY: "reasoning judge", reviewer.HINT_CHECK: "hint-checking tool",
    reviewer.HINT_SUMMARY: "hint judge"}


def test_a_constrained_reviewer_sends_each_stages_grammar(tmp_path, scripted_server):
    replies = {reviewer.BREAKDOWN: '{"steps": ["a", "b"]}',
               reviewer.STEP_CHECK: '{"is_sound": 1, "has_logical_gap": 0, "has_contradiction": 0, '
                                    '"missing_justification": 0, "rating": 2, "issues": [], "comment": ""}',
               reviewer.HINT_CHECK: '{"alignment": "aligned", "relevant_hints": [2], "deviation_justified": null, '
                                    '"justification_quality": null, "comment": ""}',
               reviewer.REASONING_SUMMARY: '{"completeness": 80, "logical_coherence": 90, "comment": ""}',
               reviewer.HINT_SUMMARY: '{"hint_alignment": 70, "comment": ""}'}
    sent: list[tuple[str, str]] = []

    def script(body, attempt):
        prompt = json.dumps(body["messages"])
        stage = next(s for s, marker in STAGE_MARKERS.items() if marker in prompt)
        sent.append((stage, body["grammar"]))
        return Reply.ok(replies[stage])

    srv = scripted_server(script=script)
    rec = {**REC, "id": "a", "hints": ["one", "two"]}
    data, _ = setup(tmp_path, "morphobench", [{"id": "a", "sample_idx": 0, "request_key": "k1", "response": "2+3=5",
                                                "error": None}], [rec])
    cfg = small_judge(tmp_path, srv.base_url)
    assert run("morphobench", data, "m", "s", "morphobench_reasoning", tmp_path / "results", cfg)["scored"] == 1
    assert run("morphobench", data, "m", "s", "morphobench_hint", tmp_path / "results", cfg)["scored"] == 1
    want = {**grammars.REVIEW, reviewer.HINT_CHECK: grammars.hint_check(2)}
    assert {s for s, _ in sent} == set(want) and all(g == want[s] for s, g in sent)



# --------------------------------------------------------------------------------------------------
# The real embedded model, constrained, on two tiny items
# --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """The embedded judge model, served for this module's real-model tests."""
    from infer.server import serve

    cfg = load_model_config(EMBEDDED)
    with serve(cfg, tmp_path_factory.mktemp("logs")) as urls:
        yield dataclasses.replace(cfg, base_urls=urls, server=None)


@pytest.mark.e2e
@pytest.mark.parametrize("name", [n for n in BOUNDED if not n.startswith("hint_check(") or n == "hint_check(3)"])
def test_llama_cpp_compiles_each_grammar_and_keeps_to_it(name, embedded):
    # llama.cpp's server dies on a grammar it cannot parse, and one it reads otherwise would show here
    body = {"model": embedded.model, "messages": [{"role": "user", "content": "Reply."}], "temperature": 0,
            "max_tokens": grammars.BUDGET, "grammar": BOUNDED[name]}
    request = urllib.request.Request(embedded.base_urls[0] + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    reply = json.load(urllib.request.urlopen(request, timeout=120))["choices"][0]
    assert reply["finish_reason"] == "stop" and matches(BOUNDED[name], reply["message"]["content"]), reply


@pytest.mark.e2e
def test_the_embedded_models_constrained_replies_are_read(tmp_path, embedded):
    records = [
        {**REC, "id": "m1", "benchmark": "morphobench"},
        {**REC, "id": "m2", "benchmark": "morphobench", "question": "Which is larger, 7 or 9?", "answer": ["9"],
         "solution": "9 > 7."},
    ]
    raws = [{"id": "m1", "sample_idx": 0, "request_key": "k1", "response": "2 + 3 = 5. So \\boxed{5}.", "error": None},
            {"id": "m2", "sample_idx": 0, "request_key": "k2", "response": "9 is more than 7, so \\boxed{9}.",
             "error": None}]
    for bench, name in (("morphobench", "morphobench_reasoning"), ("omibench", "omibench_rationale_quality")):
        (tmp_path / bench).mkdir()
        data, _ = setup(tmp_path / bench, bench, raws, [{**r, "benchmark": bench} for r in records])
        s = run(bench, data, "m", "s", name, tmp_path / bench / "results", embedded)
        lines = verdicts(tmp_path / bench, name, bench)
        assert s["judge_error"] == 0 and s["scored"] == 2, [v.get("error") for v in lines]
        for v in lines:
            assert v["status"] == "ok"
            lo, hi = (0, 100) if bench == "morphobench" else (1, 5)
            assert v["score"] and all(lo <= x <= hi for x in v["score"].values()), v["score"]
