"""What a table script asks for (a Context: verdicts, runs, the data file) and what it returns (a Table),
and how a table is written: results/tables/<id>.csv, <id>.provenance.json beside it, and <id>.md."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.inputs import ROOT, DataFile, MissingInputs, Run, chosen_runs, data_file, load
from analysis.provenance import JudgeChoice, Provenance
from judge.judges import DEFAULT_JUDGES, RULES

__all__ = ["ROOT", "Context", "MissingInputs", "Table", "write"]


@dataclass
class Context:
    results: Path = ROOT / "results"
    figures: Path = ROOT / "figures"
    data: dict[str, Path] = field(default_factory=dict)  # a benchmark's data file, instead of inputs.data_file's

    def verdicts(self, bench: str, settings: list[str], judge: str = RULES) -> pd.DataFrame:
        df = load(self.results, bench, settings, judge)
        if df.empty:
            raise MissingInputs(f"no judged runs of {bench} {settings} with judge {judge!r} under {self.results}/judged "
                                f"(run the experiment, e.g. bash run_all.sh)")
        return df

    def runs(self, bench: str, settings: list[str], judge: str = RULES) -> list[Run]:
        """Per model, the run standing for each setting (a run may stand for two settings)."""
        return [run for _, run in chosen_runs(self.results, bench, settings, judge)]

    def judged(self, bench: str, settings: list[str], how: str) -> tuple[pd.DataFrame, Provenance]:
        """The verdicts of `settings`, each model read with one judge by the one policy (provenance.JUDGE_POLICY):
        the paper's LLM judge when it scored at least one verdict of each setting the model ran, else the rule
        judge. One judge per model,
        since a table compares a model's settings with one another; a model with no rule-judge verdicts keeps
        the LLM judge's (its failures are counted). `how`: how to make the runs, for the MissingInputs message."""
        llm = next(j for j in DEFAULT_JUDGES[bench] if j != RULES)
        frames = {j: load(self.results, bench, settings, j) for j in (llm, RULES)}
        models = sorted(set(frames[llm]["model"]) | set(frames[RULES]["model"]))
        if not models:
            raise MissingInputs(f"no judged {bench} runs of {settings} (judge {llm} or {RULES}) under "
                                f"{self.results}/judged; {how}")
        scored = {m: int((frames[llm]["model"].eq(m) & frames[llm]["status"].eq("ok")).sum()) for m in models}

        def covers(m: str) -> bool:  # the LLM judge scored something in every setting the model ran
            ran = set(frames[RULES].loc[frames[RULES]["model"].eq(m), "setting"]) | set(
                frames[llm].loc[frames[llm]["model"].eq(m), "setting"])
            ok = frames[llm][frames[llm]["model"].eq(m) & frames[llm]["status"].eq("ok")]
            return bool(ran) and ran <= set(ok["setting"])

        used = {m: llm if covers(m) or not frames[RULES]["model"].eq(m).any() else RULES for m in models}
        df = pd.concat([frames[j][frames[j]["model"] == m] for m, j in used.items()], ignore_index=True)
        ran = {j: set(zip(f["model"], f["setting"])) for j, f in frames.items()}
        not_judged = {m: [s for s in settings if (m, s) not in ran[j] and any((m, s) in r for r in ran.values())]
                      for m, j in used.items()}
        runs = [r for m, j in used.items() for r in self.runs(bench, settings, j) if r.model == m]
        return df, Provenance(runs, judges=JudgeChoice(llm, used, scored, not_judged))

    def data_file(self, bench: str) -> DataFile:
        """The data file a data-only table reads (inputs.data_file), unless this context names one."""
        return DataFile(self.data[bench], self.data[bench]) if bench in self.data else data_file(bench)


@dataclass
class Table:
    """A built table: its caption, the table, the paper's numbers beside ours, further tables by title,
    the figure drawn, notes, and where it all comes from."""

    caption: str
    table: pd.DataFrame
    vs_paper: pd.DataFrame | None = None
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    figure: Path | None = None
    notes: list[str] = field(default_factory=list)
    provenance: Provenance = field(default_factory=Provenance)


def _md(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, floatfmt=".2f") if not df.empty else "_(empty)_"


def write(table_id: str, t: Table, out_dir: Path) -> tuple[Path, Path]:
    """Write <id>.csv, <id>.provenance.json and <id>.md; return the csv and md paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv, md = out_dir / f"{table_id}.csv", out_dir / f"{table_id}.md"
    t.table.to_csv(csv, index=False)
    (out_dir / f"{table_id}.provenance.json").write_text(
        json.dumps(t.provenance.as_json(table_id), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    parts = [f"# {table_id}\n", t.caption + "\n", _md(t.table) + "\n"]
    if t.vs_paper is not None:
        parts += ["## Beside the paper\n", _md(t.vs_paper) if not t.vs_paper.empty
                  else "_No model and setting in common with the paper's table._", "\n"]
    for name, df in t.extra.items():
        parts += [f"## {name}\n", _md(df) + "\n"]
    if t.figure:
        parts.append(f"![{table_id}]({t.figure})\n")
    if t.notes:
        parts += ["## Notes\n", *[f"- {n}" for n in t.notes], "\n"]
    if provenance := t.provenance.lines():
        parts += ["## Provenance\n", *[f"- {p}" for p in provenance], "\n"]
    md.write_text("\n".join(parts), encoding="utf-8")
    return csv, md
