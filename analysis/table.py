"""What a table script asks for (a Context: verdicts, runs, the data file, where its figure goes) and what it
returns (a Table), and how a table is written: results/tables/<id>.csv, <id>.provenance.json beside it, and <id>.md
(infer/layout.py)."""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.cells import EMPTY_CELL, as_text, numeric_columns, shown_columns, with_whole_counts
from analysis.inputs import ROOT, DataFile, MissingDataFile, MissingInputs, Run, chosen_runs, data_file, load
from analysis.provenance import JudgeChoice, Provenance
from analysis.uncertainty import consistency, consistency_text
from infer import layout
from judge.judges import RULES, asks_model, default_judges

__all__ = ["EMPTY_CELL", "ROOT", "Context", "MissingDataFile", "MissingInputs", "Table", "terminal", "write"]


@dataclass
class Context:
    results: Path = layout.RESULTS
    figures: Path = layout.FIGURES
    data: dict[str, Path] = field(default_factory=dict)  # a benchmark's data file, instead of inputs.data_file's

    def figure(self, table_id: str) -> Path:
        """Where the table's figure is drawn."""
        return layout.figure_path(self.figures, table_id)

    def table_file(self, table_id: str, kind: str) -> Path:
        """A further file of the table beside its .csv (kind: e.g. `disagreements.jsonl`)."""
        return layout.table_file(self.results, table_id, kind)

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
        llm = next(j for j in default_judges(bench) if asks_model(j))
        frames = {j: load(self.results, bench, settings, j) for j in (llm, RULES)}
        # (model, setting) pairs each judge has verdicts of, and those the LLM judge scored one of
        ran = {j: set(f[["model", "setting"]].drop_duplicates().itertuples(index=False, name=None))
               for j, f in frames.items()}
        llm_scored = set(frames[llm].loc[frames[llm]["status"].eq("ok"), ["model", "setting"]]
                         .drop_duplicates().itertuples(index=False, name=None))
        models = sorted({m for pairs in ran.values() for m, _ in pairs})
        if not models:
            raise MissingInputs(f"no judged {bench} runs of {settings} (judge {llm} or {RULES}) under "
                                f"{self.results}/judged; {how}")
        scored = {m: int((frames[llm]["model"].eq(m) & frames[llm]["status"].eq("ok")).sum()) for m in models}

        def covers(m: str) -> bool:  # the LLM judge scored something in every setting the model ran
            ran_m = {(k, s) for pairs in ran.values() for k, s in pairs if k == m}
            return bool(ran_m) and ran_m <= llm_scored

        used = {m: llm if covers(m) or not any(k == m for k, _ in ran[RULES]) else RULES for m in models}
        # each model's rows from its judge's verdicts, model after model; load gives a judge's verdicts in model
        # order, so when one judge serves every model they are its verdicts as they are
        judges = set(used.values())
        df = frames[judges.pop()] if len(judges) == 1 else \
            pd.concat([frames[j][frames[j]["model"] == m] for m, j in used.items()], ignore_index=True)
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

    def consistency(self) -> dict[str, int] | None:
        """How many cells beside the paper's are consistent with it, above and below it at 95 %, and untested
        (analysis.uncertainty.consistency); None when the table has no paper numbers."""
        return consistency(self.vs_paper)

    def first_line(self) -> str:
        """The line every table is shown with first: "k of m cells consistent with the paper"."""
        return consistency_text(self.consistency())


def md_table(df: pd.DataFrame, tablefmt: str = "pipe") -> str:
    """Every cell written as the HTML report writes it (analysis.cells): counts whole, other numbers with two
    decimals, a range's two columns as one cell, a NaN cell (a setting not run, or a quantity undefined for the
    row) as EMPTY_CELL."""
    if df.empty:
        return "_(empty)_"
    align = ["right" if numeric else "left" for numeric in numeric_columns(shown_columns(df))]
    return as_text(df).to_markdown(index=False, disable_numparse=True, colalign=align, tablefmt=tablefmt)


def markdown(table_id: str, t: Table, figure_link: str | None, level: int = 1) -> str:
    """The table as Markdown, its figure linked by `figure_link` (a path relative to where the text goes)."""
    h = "#" * level
    parts = [f"{h} {table_id}\n", f"_{t.first_line()}_\n", t.caption + "\n", md_table(t.table) + "\n"]
    if t.vs_paper is not None:
        parts += [f"{h}# Beside the paper\n", md_table(t.vs_paper) if not t.vs_paper.empty
                  else "_No model and setting in common with the paper's table._", "\n"]
    for name, df in t.extra.items():
        parts += [f"{h}# {name}\n", md_table(df) + "\n"]
    if t.figure and figure_link:
        parts.append(f"![{table_id}]({figure_link})\n")
    if t.notes:
        parts += [f"{h}# Notes\n", *[f"- {n}" for n in t.notes], "\n"]
    if provenance := t.provenance.lines():
        parts += [f"{h}# Provenance\n", *[f"- {p}" for p in provenance], "\n"]
    return "\n".join(parts)


def terminal(t: Table) -> str:
    """The caption, the table and its "Beside the paper" part as plain columns, for a terminal (the .md
    holds the rest)."""
    parts = [t.first_line(), t.caption, "", md_table(t.table, "simple")]
    if t.vs_paper is not None:
        parts += ["", "Beside the paper:", md_table(t.vs_paper, "simple") if not t.vs_paper.empty
                  else "no model and setting in common with the paper's table"]
    return "\n".join(parts)


def relative(text: str, results: Path) -> str:
    """Text as it stays true when the results folder is moved: the results folder named by its name, the
    checkout's files by their path in it (messages and notes are written with the paths the code holds)."""
    for prefix, short in ((str(results.resolve()), results.name), (str(results.absolute()), results.name),
                          (str(ROOT) + "/", "")):
        text = text.replace(prefix, short)
    return text


def write(table_id: str, t: Table, results: Path) -> tuple[Path, Path]:
    """Write <id>.csv, <id>.provenance.json and <id>.md under `results`; return the csv and md paths. The figure
    is also copied under `results`, which the .md links relatively, so that the results folder can be moved or
    shared on its own."""
    csv, md = layout.table_file(results, table_id, "csv"), layout.table_file(results, table_id, "md")
    csv.parent.mkdir(parents=True, exist_ok=True)
    with_whole_counts(t.table).to_csv(csv, index=False)
    layout.table_file(results, table_id, "provenance.json").write_text(relative(
        json.dumps(t.provenance.as_json(table_id), indent=2, ensure_ascii=False) + "\n", results), encoding="utf-8")
    link = None
    if t.figure and t.figure.exists():
        copy = layout.figure_copy(results, t.figure)
        copy.parent.mkdir(exist_ok=True)
        if copy.resolve() != t.figure.resolve():
            shutil.copyfile(t.figure, copy)
        link = layout.link(md, copy)
    md.write_text(relative(markdown(table_id, t, link), results), encoding="utf-8")
    return csv, md
