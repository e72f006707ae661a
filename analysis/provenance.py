"""Where a table's numbers come from: the judged files it read (with the judge, judge model and prompt hash
whose verdicts were read, the data file, and the answers and failures counted in what was read: the current
outcomes and their current verdicts, not a manifest's totals), the judge it read each model with, and the data
file it read directly. Written in the table's .md and beside its .csv as <id>.provenance.json."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analysis.data_location import shown_named
from analysis.inputs import DataFile, Run, read_run, shown
from analysis.stats import flagged, truncated
from judge.current import UNJUDGED
from judge.status import UNDECIDED

COUNTS = ("items", "scored", "undecided", "no_response", "judge_error", "unjudged", "flagged", "truncated")

# The one rule by which a table that has a paper's LLM judge and the rule judge reads a model (table.Context.judged).
JUDGE_POLICY = ("per model, the paper's LLM judge ({llm}) when it scored at least one verdict of each of the "
                "table's settings the model ran, else the rule judge; one judge for all of a model's settings")


def _data(run: Run) -> str | None:
    """The data file a judged file was judged against, as outputs name it (analysis/data_location.py)."""
    return shown_named(run.named_data) if run.named_data else None


@dataclass
class JudgeChoice:
    """The judge each model was read with, how many verdicts of the table's settings the LLM judge scored,
    and the settings the other judge ran but the chosen one did not (left empty, not filled in by it)."""

    llm: str
    used: dict[str, str]
    llm_scored: dict[str, int]
    not_judged: dict[str, list[str]]

    def line(self) -> str:
        per_model = "; ".join(f"{m}: {j} ({self.llm} scored {self.llm_scored[m]}"
                              + (f"; no {j} run of {', '.join(self.not_judged[m])}" if self.not_judged[m] else "")
                              + ")" for m, j in self.used.items())
        return f"Judge: {JUDGE_POLICY.format(llm=self.llm)}. {per_model}."

    def as_json(self) -> dict[str, Any]:
        return {"policy": JUDGE_POLICY.format(llm=self.llm), "llm_judge": self.llm,
                "models": {m: {"judge": j, "llm_scored": self.llm_scored[m], "not_judged": self.not_judged[m]}
                           for m, j in self.used.items()}}


@dataclass
class Provenance:
    """The inputs of one table. `runs` may repeat a file (two settings read from one run): it is listed once."""

    runs: list[Run] = field(default_factory=list)
    judges: JudgeChoice | None = None
    data: DataFile | None = None

    def __post_init__(self) -> None:
        self.runs = list({r.path: r for r in self.runs}.values())

    def lines(self) -> list[str]:
        """One line per judged file, then the judge choice and the data file, for the .md."""
        out = []
        for r in self.runs:
            judge, c = r.judge_asked or {}, counts(r)
            out.append(f"{shown(r.path)} (judge {judge.get('name')} {judge.get('model') or ''} prompt "
                       f"{judge.get('prompt_sha')}; data {_data(r)}; {c['items']} answers read: "
                       + (f"{c['undecided']} undecided, " if c["undecided"] else "")
                       + f"{c['no_response']} no response, {c['judge_error']} judge errors, {c['unjudged']} unjudged, "
                       f"{c['flagged']} flagged as addressing the judge, {c['truncated']} cut at the token limit "
                       "with no final answer)")
        if self.judges:
            out.append(self.judges.line())
        if self.data:
            out.append(f"Data: {self.data.note()}")
        return out

    def as_json(self, table_id: str) -> dict[str, Any]:
        """The sidecar of results/tables/<id>.csv."""
        files = []
        for r in self.runs:
            judge = r.judge_asked or {}
            files.append({"path": shown(r.path), "model": r.model, "setting": r.setting, "stands_for": r.stands_for,
                          "judge": {k: judge.get(k) for k in ("name", "model", "prompt_sha")},
                          "data": _data(r), **counts(r)})
        return {"table": table_id, "judged_files": files,
                "judge_choice": self.judges.as_json() if self.judges else None,
                "data": {"path": shown(self.data.path), "demo": self.data.demo} if self.data else None}


def counts(run: Run) -> dict[str, int]:
    """The answers of a run as the tables read them (every current outcome, analysis.inputs.load_run), and how
    many of them failed as requests, as judge replies, have no current verdict, addressed the judge, or were cut at
    the token limit with no final answer."""
    df = read_run(run)
    status = df["status"]
    return {"items": len(df), "scored": int(status.eq("ok").sum()), "undecided": int(status.eq(UNDECIDED).sum()),
            "no_response": int(status.eq("no_response").sum()),
            "judge_error": int(status.eq("judge_error").sum()), "unjudged": int(status.eq(UNJUDGED).sum()),
            "flagged": int(flagged(df).sum()), "truncated": int(truncated(df).sum())}
