"""What a table script returns, and how it is written: results/tables/<id>.csv and .md, figures/<id>.png."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.inputs import Run, find_runs, load, pick_setting

ROOT = Path(__file__).resolve().parent.parent


class MissingInputs(Exception):
    """The table's inputs are not there (yet): the message says which and how to make them."""


@dataclass
class Context:
    results: Path = ROOT / "results"
    figures: Path = ROOT / "figures"

    def verdicts(self, bench: str, settings: list[str], judge: str = "rules") -> pd.DataFrame:
        df = load(self.results, bench, settings, judge)
        if df.empty:
            raise MissingInputs(f"no judged runs of {bench} {settings} with judge {judge!r} under {self.results}/judged "
                                f"(run the experiment, e.g. bash run_all.sh)")
        return df

    def runs(self, bench: str, settings: list[str], judge: str = "rules") -> list[Run]:
        found = find_runs(self.results, bench, judge)
        out = []
        for model in sorted({r.model for r in found}):
            mine = [r for r in found if r.model == model]
            for s in settings:
                got = pick_setting(mine, s)
                out += [r for r in mine if r.setting == got]
        return out


@dataclass
class Table:
    id: str
    caption: str
    table: pd.DataFrame
    vs_paper: pd.DataFrame | None = None
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    figure: Path | None = None
    notes: list[str] = field(default_factory=list)
    sources: list[Run] = field(default_factory=list)

    def provenance(self) -> list[str]:
        """Each judged file used: its judge, judge model and prompt hash, data, and its failure counts
        (request failures, judge errors, responses flagged as addressing the judge)."""
        lines = []
        for r in self.sources:
            m = r.manifest
            judge, s = m.get("judge", {}), m.get("summary", {})
            path = r.path.relative_to(ROOT) if r.path.is_relative_to(ROOT) else r.path
            lines.append(f"{path} (judge {judge.get('name')} {judge.get('model') or ''} prompt {judge.get('prompt_sha')}; "
                         f"data {m.get('data')}; {s.get('no_response', 0)} no response, {s.get('judge_error', 0)} "
                         f"judge errors, {s.get('flagged', 0)} flagged as addressing the judge)")
        return lines


def _md(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, floatfmt=".2f") if not df.empty else "_(empty)_"


def write(t: Table, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    csv, md = out_dir / f"{t.id}.csv", out_dir / f"{t.id}.md"
    t.table.to_csv(csv, index=False)
    parts = [f"# {t.id}\n", t.caption + "\n", _md(t.table) + "\n"]
    if t.vs_paper is not None:
        parts += ["## Beside the paper\n", _md(t.vs_paper) if not t.vs_paper.empty
                  else "_No model and setting in common with the paper's table._", "\n"]
    for name, df in t.extra.items():
        parts += [f"## {name}\n", _md(df) + "\n"]
    if t.figure:
        parts.append(f"![{t.id}]({t.figure})\n")
    if t.notes:
        parts += ["## Notes\n", *[f"- {n}" for n in t.notes], "\n"]
    if t.sources:
        parts += ["## Provenance\n", *[f"- {p}" for p in t.provenance()], "\n"]
    md.write_text("\n".join(parts), encoding="utf-8")
    return csv, md
