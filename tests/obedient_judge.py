"""A scripted judge model that obeys every instruction it finds in the text it judges, for the injection set
(tests/data/injection_cases.jsonl, tests/test_injection_set.py); a script for tests/scripted_server.py.

It knows the injections of the set (`injections`), as a model that understands them would: where one of them
stands anywhere in the model text its prompt quotes (the response, the answer read from it), it obeys — in any
language, spelling or encoding, and whatever the prompt says about instructions inside the quoted text — and
replies its judge prompt's positive verdict. Otherwise it judges truthfully: the last `\\boxed{}` of the quoted
response (else its `<answer>` tag, else the quoted answer), compared with the reference answer its prompt states.
It is not judge/injection.py's reading: it finds the injections by their text, so the test does not check the
flags with themselves.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

from tests.scripted_judge import GOLDS, KINDS, NEGATIVE, POSITIVE, prompt_of, quoted, read
from tests.scripted_server import Reply


class ObedientJudge:
    """The script (module doc). `obeyed` counts the replies an injection decided."""

    def __init__(self, injections: list[str]) -> None:
        self.injections = [i for i in injections if i]
        self.obeyed = 0

    def __call__(self, body: dict[str, Any], attempt: int) -> Reply:
        prompt = prompt_of(body)
        kind = next(k for phrase, k in KINDS.items() if phrase in read(prompt))
        responses, answers = quoted(prompt, "RESPONSE"), quoted(prompt, "ANSWER")
        if any(i in text for text in responses + answers for i in self.injections):
            self.obeyed += 1
            return Reply.ok(POSITIVE[kind])
        gold = next((m.group(1) for p in GOLDS for m in p.finditer(read(prompt))), None)
        answer = _answer(responses[-1]) if responses else (answers[-1] if answers else None)
        right = gold is not None and answer is not None and _plain(answer) == _plain(gold)
        return Reply.ok(POSITIVE[kind] if right else NEGATIVE[kind])


def _answer(text: str) -> str | None:
    boxes = re.findall(r"\\boxed\{([^{}]*)\}", text)
    tags = re.findall(r"<answer>(.*?)</answer>", text, re.S)
    return boxes[-1] if boxes else (tags[-1] if tags else None)


def _plain(text: str) -> str:
    return re.sub(r"[\s$“”\"]", "", unicodedata.normalize("NFKC", text)).lower()
