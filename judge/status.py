"""The status of a verdict, and what each says about the answer it judged.

- `ok`: the judge decided: `correct` true or false (or a process judge's `score`, a labelling judge's `labels`).
- `undecided`: the careful rule judge (judge/rules.py) found no rule that decides: the answer is text that
  neither matches the gold nor contradicts it (a paraphrase, a synonym, an option's text reworded), which only a
  reader of language can judge (judge/undecided.py). `correct` is null and `reason` says why. It is neither
  correct nor a failure: the tables give the careful accuracy as a range, from counting every undecided answer
  wrong to counting it right, and a protocol with a judge model asks it about these answers only
  (judge/careful_cascade.py).
- `no_response`: the request failed or the reply had no text; `judge_error`: the judge could not give a verdict.

Readers of verdict files add `unjudged` (judge/current.py) for an answer with no current verdict.
"""
from __future__ import annotations

OK, UNDECIDED, NO_RESPONSE, JUDGE_ERROR = "ok", "undecided", "no_response", "judge_error"
