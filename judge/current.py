"""Which verdict is current: what a verdict is about, and the one rule by which every reader picks it.

A verdict is about three things, each recorded in its line:
- the outcome it judged: `outcome`, a digest of the raw line's request key, reply, error and, where the model
  returned it apart, reasoning (`outcome_sha`);
- the record it judged against: `record`, the digest of the record's line in the data file
  (data.dataset.line_digest), so a changed gold, or any other change to the record, is judged anew;
- the judge: `judge`, its name, judge model and prompt hash (a rule judge's version stands for its prompt).

The rule: the current verdict of an (id, sample_idx) is the verdict whose outcome is that of the raw file's
current (last) line of it, whose record is the record's line in the data file now, and whose judge is the one
asked for — the last such line, never simply the last verdict line of the id and sample. So an outcome that
comes back (a prompt edited, then reverted), a judge prompt or model changed back, or a gold changed back,
finds its earlier verdict current again; and an outcome with no current verdict is `unjudged`, counted as
such, never left out.

The judge asked for is the one `judge.run` was asked to judge with; a reader of a judged file takes the one the
file's last completed `judge.run` asked for (its manifest's `judge`, every judge model it was asked for under
`judges`), or, without a manifest, that of the file's last line.
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterable, Mapping, Sequence

UNJUDGED = "unjudged"  # the status of an outcome with no current verdict
EMPTY_REPLY = "empty reply: the model returned no text"

Key = tuple  # (id, sample_idx, outcome, record, judge name, judge model, prompt hash)


def outcome_sha(raw: Mapping[str, Any]) -> str:
    """The outcome a raw line holds (a retried request keeps its key, not its reply): the request key, the
    reply, the error and, where the model returned one apart, its reasoning, which process judges review."""
    return _outcome(raw.get("request_key"), raw.get("response"), raw.get("error"), raw.get("reasoning"))


def outcome_shas(request_keys: Iterable[Any], responses: Iterable[Any], errors: Iterable[Any],
                 reasonings: Iterable[Any]) -> list[str]:
    """`outcome_sha` of many raw lines given as columns."""
    return [_outcome(*fields) for fields in zip(request_keys, responses, errors, reasonings)]


def _outcome(request_key: Any, response: Any, error: Any, reasoning: Any) -> str:
    text = f"{request_key}\x00{response}\x00{error}"
    if reasoning:
        text += f"\x00{reasoning}"
    return outcome_digest(text.encode())


def outcome_digest(text: bytes) -> str:
    """The digest of an outcome's text: request key, reply and error (and reasoning, when there is some), joined by
    NUL, a missing one written None."""
    return hashlib.sha256(text).hexdigest()[:16]


def no_response(raw: Mapping[str, Any]) -> str:
    """Why a raw line that is not `answered` (infer/request.py) has nothing to judge."""
    return raw.get("error") or EMPTY_REPLY


def judge_key(judge: Mapping[str, Any] | None) -> tuple:
    """A judge identity as it is compared: name, judge model, prompt hash."""
    judge = judge or {}
    return judge.get("name"), judge.get("model"), judge.get("prompt_sha")


def verdict_key(v: Mapping[str, Any], check_record: bool = True) -> Key:
    """What a verdict line is about (`check_record` False: all but the record)."""
    return _key(v["id"], v["sample_idx"], v.get("outcome"), v.get("record") if check_record else None,
                v.get("judge"))


def wanted_key(raw: Mapping[str, Any], record: str | None, judge: Mapping[str, Any] | None) -> Key:
    """What the current verdict of a raw line is about: its outcome, the record's line now (`record`; None when
    it is not checked) and the judge asked for."""
    return _key(raw["id"], raw["sample_idx"], outcome_sha(raw), record, judge)


def keys(ids: Iterable[Any], sample_idxs: Iterable[Any], outcomes: Iterable[Any], records: Iterable[Any],
         names: Iterable[Any], models: Iterable[Any], prompt_shas: Iterable[Any]) -> list[Key]:
    """The keys of many verdicts, or many raw lines' wanted keys, given as columns (the judge identity as its
    name, model and prompt hash columns)."""
    return list(zip(ids, sample_idxs, outcomes, records, names, models, prompt_shas))


def _key(rid: Any, sample_idx: Any, outcome: Any, record: Any, judge: Mapping[str, Any] | None) -> Key:
    return (rid, sample_idx, outcome, record, *judge_key(judge))


def current_places(verdict_keys: Iterable[Key], wanted: Iterable[Key]) -> list[int | None]:
    """For each wanted key, the place of its current verdict among `verdict_keys` (the verdict lines in file
    order: the last line of a key wins, as a judge error asked again is followed by its new verdict); None
    when it has none (unjudged)."""
    at = {key: i for i, key in enumerate(verdict_keys)}
    return [at.get(key) for key in wanted]


def current(verdicts: Sequence[Mapping[str, Any]], raws: Iterable[Mapping[str, Any]],
            records: Mapping[str, str] | None, judge: Mapping[str, Any] | None) -> dict[tuple, Mapping[str, Any]]:
    """(id, sample_idx) → the current verdict, for each raw line given (the current line of its id and sample)
    that has one. `records`: id → digest of the record's data line; None when the data file is not known, and
    then the record is not checked."""
    check = records is not None
    raws = list(raws)
    wanted = [wanted_key(r, records.get(r["id"]) if check else None, judge) for r in raws]
    places = current_places((verdict_key(v, check) for v in verdicts), wanted)
    return {(r["id"], r["sample_idx"]): verdicts[i] for r, i in zip(raws, places) if i is not None}


def why_not_current(v: Mapping[str, Any], raw: Mapping[str, Any], records: Mapping[str, str] | None,
                    judge: Mapping[str, Any] | None) -> str | None:
    """Why a verdict of a raw line's id and sample is not its current one, in words (None: it is current).
    `records` as for `current`."""
    if v.get("outcome") != outcome_sha(raw):
        return "judges an earlier outcome of this request"
    if records is not None and v.get("record") != records.get(raw["id"]):
        return "judged against another version of the record (its gold or another field changed since)"
    if judge_key(v.get("judge")) != judge_key(judge):
        return "judged by another judge model or judge prompt than the one last asked for"
    return None


def judge_asked(manifest: Mapping[str, Any], last_line: Callable[[], Mapping[str, Any] | None]
                ) -> Mapping[str, Any] | None:
    """The judge identity a reader of a judged file asks for: the one its last completed `judge.run` asked for
    (the manifest's `judge`), else, without a manifest, that of the file's last line (`last_line()`, read only
    then)."""
    return manifest.get("judge") or (last_line() or {}).get("judge")


def judges_asked(manifest: Mapping[str, Any], lines: Callable[[], Iterable[Mapping[str, Any]]]
                 ) -> list[Mapping[str, Any]]:
    """Every judge identity asked for on a judged file, one per judge model (a file holds every judge model that
    judged the run): the manifest's `judges`, else the last line's identity of each judge model in the file
    (`lines()`, read only then); the last one asked for (`judge_asked`) wins for its model."""
    found = {judge_key(j)[1]: j for j in manifest.get("judges") or []}
    if not found:
        for v in lines():
            found[judge_key(v.get("judge"))[1]] = v.get("judge")
    last = manifest.get("judge")
    if last:
        found[judge_key(last)[1]] = last
    return list(found.values())


def asked_with(earlier: Sequence[Mapping[str, Any]], judge: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The judges asked for on a file (`earlier`, a manifest's `judges`) once `judge` has been asked for too."""
    model = judge_key(judge)[1]
    return [j for j in earlier if judge_key(j)[1] != model] + [dict(judge)]
