"""The error labels of the answers a paper's correctness verdict failed, and the share of each class: what
OMIBench Fig. 7, C²RBench Table 5 and Think360° Fig. S2 count.

A labelling judge (judge/taxonomy.py) labels every answered response; a table keeps the answers the paper's
correctness judge failed (Context.judged: the one judge policy), each matched to the label verdict of the same raw
outcome, or a seeded random sample of them (`sample_of`: OMIBench F.2 labels 100). Human labels
(data/external/<bench>/error_labels.csv, else the EXAMPLE file beside it, which the table then says first) take
precedence where a response has them.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from analysis.external import EXAMPLE_NOTE, external_file
from analysis.inputs import load, shown
from analysis.plot import draw, save_figure, stacked_bars, subplots
from analysis.provenance import Provenance
from analysis.stats import counted_correct
from analysis.table import ROOT, Context, MissingInputs
from analysis.table_experiments import how_to_run
from analysis.uncertainty import renamed, wilson, with_interval_columns
from infer.experiment_spec import Sample
from judge.current import UNJUDGED
from judge.status import UNDECIDED
from judge.human_labels import HumanLabel, human_labels

STATES = ["labelled", "no_error", "judge_error", "not_labelled", "disagreed"]
COUNTS = ["judged", "failed", *STATES, "human", "unjudged", "judge_calls", "judge_tokens"]
ALL = "all models"  # the pooled row's model (data/reference/non_models.csv: an aggregate)
EXTERNAL = ROOT / "data" / "external"  # <bench>/error_labels.csv (formats in the READMEs there)
NOTE = ("Only the answers the correctness verdict failed (scored, not correct) count, each with the label verdict of "
        "the same raw outcome: judged = the answers with a correctness verdict; failed = labelled + no_error + "
        "judge_error + not_labelled + disagreed. Shares (%) are "
        "of the `labelled` answers (one class or more); no_error: the labeller found none; judge_error: an unreadable "
        "label reply; not_labelled: no label verdict of that outcome (rerun the labelling judge); disagreed: "
        "annotators without a majority; human: labelled by people; a share's 95 % interval is Wilson's over the "
        "labelled answers; unjudged: an answer with a correctness judge error, "
        "an undecided careful verdict or no current correctness verdict, not known to have failed, left out. judge_calls and judge_tokens are what the labelling judge spent on the runs read: it "
        "labels every answered response, passed ones too.")


@dataclass
class Failed:
    """The failed answers counted (one row each: the correctness verdict's columns, `state`, `source`, `labels`,
    `subtypes`, `label_calls`), the runs counted per (model, setting) (`judged`, `unjudged`, judge calls and
    tokens), where it all comes from and what the table must say about it. `population`: every failed answer
    (model, setting), of which `answers` is the `sample` (None: all of them)."""

    answers: pd.DataFrame
    runs: pd.DataFrame
    provenance: Provenance
    notes: list[str] = field(default_factory=list)
    population: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["model", "setting"]))
    sample: Sample | None = None

    def population_text(self) -> str:
        """Which answers the table counts, and how many: all failed answers or the sample of them."""
        total = len(self.population)
        if self.sample is None or self.sample.size is None:
            return f"all {total} failed answers"
        if total <= self.sample.size:
            return f"all {total} failed answers (fewer than the sample size {self.sample.size})"
        return (f"a random sample of {len(self.answers)} of the {total} failed answers, pooled over the models "
                f"(seed {self.sample.seed})")


def failed_answers(ctx: Context, table_id: str, bench: str, settings: list[str], judge: str,
                   where: Callable[[pd.DataFrame], pd.Series] | None = None, sample: Sample | None = None) -> Failed:
    """The answers of `settings` that the correctness verdict failed, labelled by people where they were, else
    by `judge`, for every model with labels. Missing, the runs, their correctness verdicts and labels are named
    by `table_id`'s experiments (how_to_run); `where`: the answers a table keeps (a paper's subset); `sample`:
    keep only a seeded random sample of the failed answers (`sample_of`), chosen before any label is read."""
    how = how_to_run(table_id)
    label = load(ctx.results, bench, settings, judge)
    human, human_file, source = _human(bench)
    models = set(label["model"]) | ({key[0] for key in human} if source == "real" else set())
    df, provenance = ctx.judged(bench, settings, how)
    df, label = df[df["model"].isin(models)], label[label["model"].isin(models)]
    if df.empty:
        raise MissingInputs(f"no {judge} labels of judged {bench} {settings} runs under {ctx.results}/judged and no "
                            f"human labels of them in {shown(human_file)}; {how}")
    if where is not None:
        df, label = df[where(df)], label[where(label)] if len(label) else label
    provenance.runs = [r for r in provenance.runs + ctx.runs(bench, settings, judge) if r.model in models]
    failed = df[df["status"].eq("ok") & ~counted_correct(df)]
    keys = ["model", "run_setting", "id", "sample_idx", "outcome"]
    verdict = (label.reindex(columns=[*keys, "status", "labels", "subtypes", "judge_calls"])
               .rename(columns={"status": "label_status", "judge_calls": "label_calls"}))
    population = failed.drop(columns=["labels", "subtypes"]).merge(verdict, on=keys, how="left")
    answers = population if sample is None else sample_of(population, sample.size, sample.seed)
    used: set = set()
    rows = [_state(a, human, used) for a in answers.itertuples(index=False)]
    outside = {k for a in population.itertuples(index=False) if (k := _human_key(a, human))} - used
    answers = answers.assign(**{k: [r[k] for r in rows] for k in ("state", "source", "labels", "subtypes")})
    by = ["model", "setting"]
    unknown = df["status"].isin(["judge_error", UNJUDGED, UNDECIDED])  # not known to have failed
    runs = (df.assign(judged=1, unjudged=unknown).groupby(by)[["judged", "unjudged"]].sum()
            .join(label.reindex(columns=[*by, "judge_calls", "judge_tokens"]).groupby(by).sum(), how="outer")
            .fillna(0).astype(int)
            .reset_index())
    notes = _notes(judge, human_file, source, len(used), len(human) - len(used) - len(outside))
    if outside:
        notes.append(f"{len(outside)} human-labelled failed answer(s) are outside the sample: left out.")
    if failed.empty:
        notes.append("No answer read failed: the correctness judge passed every answer it scored.")
    return Failed(answers, runs, provenance, notes, population[["model", "setting"]], sample)


def sample_of(answers: pd.DataFrame, size: int | None, seed: int) -> pd.DataFrame:
    """The `size` answers (all when there are no more, or size is None) whose SHA-256 of (seed, model, run
    setting, id, sample index) is smallest, in their order: a uniform random sample, the same on every rerun and
    whatever order the answers are read in; answers added later (a new model's) may displace some of it."""
    if size is None or len(answers) <= size:
        return answers
    cols = ["model", "run_setting", "id", "sample_idx"]
    rank = [hashlib.sha256("\x1f".join(map(str, (seed, *key))).encode()).hexdigest()
            for key in answers[cols].itertuples(index=False, name=None)]
    return answers.iloc[sorted(sorted(range(len(answers)), key=rank.__getitem__)[:size])]


def _human(bench: str) -> tuple[dict, Path, str | None]:
    """The benchmark's human labels, the real file's path, and which file they came from: "real", "example" (the
    EXAMPLE file stands in) or None (neither exists: no human labels)."""
    path = EXTERNAL / bench / "error_labels.csv"
    try:
        found, example_note = external_file(path)
    except MissingInputs:
        return {}, path, None
    return human_labels(found, bench), path, "example" if example_note else "real"


def consensus(annotators: list[HumanLabel]) -> tuple[list[str], list[str]] | None:
    """The classes and subtypes more than half of a response's annotators give; ([], []) when more than half
    found no error; None when they agree on neither."""
    half = len(annotators) / 2
    if sum(not h.labels for h in annotators) > half:
        return [], []
    votes = Counter(x for h in annotators for x in h.labels)
    sub_votes = Counter(x for h in annotators for x in h.subtypes)
    labels = [x for x, n in votes.items() if n > half]
    return (labels, [x for x, n in sub_votes.items() if n > half]) if labels else None


def _human_key(a, human: dict) -> tuple | None:
    """The key of an answer's human labels, under the run's setting or the setting it stands for, if any."""
    return next((k for k in ((a.model, s, a.id, a.sample_idx) for s in (a.run_setting, a.setting)) if k in human),
                None)


def _state(a, human: dict, used: set) -> dict:
    """One failed answer's state, label source, labels and subtypes: its human labels, else its label verdict."""
    key = _human_key(a, human)
    if key is not None:
        used.add(key)
        agreed = consensus(human[key])
        if agreed is None:
            return {"state": "disagreed", "source": "human", "labels": [], "subtypes": []}
        return {"state": "labelled" if agreed[0] else "no_error", "source": "human",
                "labels": agreed[0], "subtypes": agreed[1]}
    if a.label_status != "ok":
        return {"state": "judge_error" if a.label_status == "judge_error" else "not_labelled", "source": None,
                "labels": [], "subtypes": []}
    labels = list(a.labels or [])
    return {"state": "labelled" if labels else "no_error", "source": "judge", "labels": labels,
            "subtypes": list(a.subtypes if isinstance(a.subtypes, list) else [])}


def _notes(judge: str, path: Path, source: str | None, used: int, unused: int) -> list[str]:
    """Where the labels come from (first: EXAMPLE DATA when invented labels were used), what is counted, and
    the human labels left out."""
    where = shown(path) if source == "real" else shown(path.with_name("error_labels.EXAMPLE.csv"))
    if used:
        first = (f"Labels: by people for {used} failed answer(s) (`human`, {where}; a class needs more than half of "
                 f"an answer's annotators), by the judge {judge} for the others.")
    else:
        first = f"Labels: the judge {judge}'s; " + (f"{where} labels none of these failed answers." if source == "real"
                                                     else f"no human labels ({shown(path)} is absent).")
    notes = [first, NOTE]
    if source == "example" and used:
        notes.insert(0, EXAMPLE_NOTE.format(path=where, real=shown(path)))
    if unused and (source == "real" or used):
        notes.append(f"{unused} human-labelled response(s) are not failed answers of the runs read (passed, unjudged, "
                     "or not run): left out.")
    return notes


def shares(answers: pd.DataFrame, by: list[str], names: dict[str, str], columns: tuple[str, ...] = ("labels",),
           key: str = "class") -> pd.DataFrame:
    """Per group and class (`names`: slug → the paper's name, in the paper's order; found in `columns`): how many
    labelled answers have it (`answers`), their share (%) of the group's labelled answers and its 95 % interval
    (Wilson's over the labelled answers: each has the class or not), and how many were labelled (`labelled`, the
    share's n). Several classes per answer add up past 100 %."""
    rows = []
    for group, g in answers.groupby(by, sort=False):
        labelled = g[g["state"] == "labelled"]
        found = Counter(x for c in columns for xs in labelled[c] for x in xs)
        group = group if isinstance(group, tuple) else (group,)
        rows += [{**dict(zip(by, group)), key: name, "answers": found[slug],
                  "share": 100 * found[slug] / len(labelled) if len(labelled) else float("nan"),
                  "labelled": len(labelled)} for slug, name in names.items()]
    out = pd.DataFrame(rows, columns=[*by, key, "answers", "share", "labelled"])
    out["share_ci_lo"], out["share_ci_hi"] = wilson(out["answers"], out["labelled"])
    return out[[*by, key, "answers", "share", "share_ci_lo", "share_ci_hi", "labelled"]]


def counts(failed: Failed, by: list[str]) -> pd.DataFrame:
    """Per group: the failed answers in each state, how many people labelled, the unjudged answers and the
    labelling judge's calls and tokens."""
    a = failed.answers
    flags = a[by].assign(**{s: a["state"].eq(s) for s in STATES}, human=a["source"].eq("human"))
    out = flags.groupby(by)[[*STATES, "human"]].sum()
    out["failed"] = out[STATES].sum(axis=1)
    runs = failed.runs.groupby(by)[["judged", "unjudged", "judge_calls", "judge_tokens"]].sum()
    return out.join(runs, how="outer").fillna(0).astype(int)[COUNTS].reset_index()


def pooled(failed: Failed) -> Failed:
    """Every model's failed answers as one group (model = ALL)."""
    return Failed(failed.answers.assign(model=ALL), failed.runs.assign(model=ALL), failed.provenance, failed.notes,
                  failed.population.assign(model=ALL), failed.sample)


def wide(long: pd.DataFrame, count: pd.DataFrame, by: list[str], classes: list[str], key: str = "class"
         ) -> pd.DataFrame:
    """One row per group of `count`: the share (%) of each of `classes` (as `shares` names them, in the paper's
    order) and the counts beside them."""
    out = count[by]
    for name in classes:
        out = out.merge(long.loc[long[key] == name, [*by, "share", "share_ci_lo", "share_ci_hi"]].rename(
            columns=renamed({"share": name})), on=by, how="left")
    return out.merge(count, on=by)[[*by, *with_interval_columns(classes), *COUNTS]]


def summarize(failed: Failed, by: list[str], names: dict[str, str], columns: tuple[str, ...] = ("labels",),
              key: str = "class") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table (one row per group: the share of each class and the counts) and its long form (`shares`)."""
    long = shares(failed.answers, by, names, columns, key)
    return wide(long, counts(failed, by), by, list(names.values()), key), long


def share_bars(table: pd.DataFrame, classes: list[str], path: Path, title: str) -> Path | None:
    """Stacked bars of the class shares per row (`model`), one class per colour; a row with no labelled answer
    says so at its place. None (and no figure) when no answer is labelled at all."""
    if not (table["labelled"] > 0).any():
        return None
    return draw(_share_bars, table, classes, path=path, title=title)


def _share_bars(table: pd.DataFrame, classes: list[str], path: Path, title: str) -> None:
    fig, ax = subplots(figsize=(8, 1.8 + 0.4 * len(table)))
    y = range(len(table))
    shares = {name: table[name].where(table["labelled"] > 0) for name in classes}
    left = stacked_bars(ax, y, shares, horizontal=True, missing="no failed answer labelled")
    ax.set_yticks(y, table["model"])
    ax.invert_yaxis()
    ax.set(xlabel="share of the labelled failed answers (%)", xlim=(0, max(100.0, float(left.max()))), title=title)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25 - 0.6 / len(table)), ncol=3)
    save_figure(fig, path)
