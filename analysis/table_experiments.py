"""The experiment a table reproduces (configs/experiments/<name>.yaml), read as pipeline.experiments reads it:
a table takes its models, pairs, settings and repeats from there, the one list of what runs. Experiments
share settings (OMIBench's Table 5 and its significance runs both sample cot_boxed+temp0.6), so a table
reads only its own experiment's models. RUNS_OF lists, per table, the experiments whose runs it reads, and
how_to_run turns it into the command a table lacking its runs names."""
from __future__ import annotations

import difflib
from functools import lru_cache
from typing import Iterable

from data.files import read_yaml
from infer.experiment_spec import DEMO_MODEL, EXPERIMENTS, Experiment, load_experiment


@lru_cache(maxsize=None)
def experiment(name: str) -> Experiment:
    """configs/experiments/<name>.yaml, e.g. experiment("omibench_T5")."""
    return load_experiment(EXPERIMENTS / f"{name}.yaml")


@lru_cache(maxsize=1)
def demo_model() -> str:
    return read_yaml(DEMO_MODEL)["name"]


def models_of(name: str) -> set[str]:
    """The models whose runs are the experiment's: the paper's, our additions, and the demo model, which
    runs every experiment in the demo profile."""
    return {*experiment(name).all_models, demo_model()}


def pairs_of(name: str) -> list[tuple[str, str]]:
    """The experiment's [thinking, non-thinking] model pairs."""
    return [(think, base) for think, base in experiment(name).pairs]


# The experiments whose runs each table reads (experiment ids, configs/experiments/*.yaml `id`): what
# `python -m pipeline.experiments --only <table id>` runs, and what a table lacking its runs names (how_to_run).
# A table made from the data, the model configs or external files alone reads none.
RUNS_OF: dict[str, tuple[str, ...]] = {
    "think360.T1": (), "think360.F5": (), "think360.S1": (), "think360.S3": (),
    "think360.T3": ("think360.T3",), "think360.S6": ("think360.T3",),
    "think360.T4": ("think360.T4",), "think360.S2": ("think360.T4",),
    "think360.T5": ("think360.T5",), "think360.S4": ("think360.S4",), "think360.S5": ("think360.S5",),
    "think360.S2err": ("think360.T3", "think360.S2err"),  # the cascade's verdicts, then the labels
    "omibench.F2": (),
    **dict.fromkeys(["omibench.T2", "omibench.F3a", "omibench.F3b", "omibench.F3d", "omibench.F5b", "omibench.F6bc",
                     "omibench.F16", "omibench.T8", "omibench.T10"], ("omibench.T2",)),
    "omibench.F3c": ("omibench.F3c", "omibench.F3c-noimage"),
    "omibench.F4a": ("omibench.F4a",), "omibench.F4b": ("omibench.F4b",),
    "omibench.T4": ("omibench.T4",), "omibench.F4c": ("omibench.T4",),
    "omibench.F5a": ("omibench.F5a",), "omibench.F5c": ("omibench.F5c",), "omibench.F6a": ("omibench.F6a",),
    "omibench.F7": ("omibench.T2", "omibench.F7"),  # GPTScore's verdicts, then the labels
    "omibench.T5": ("omibench.T5",), "omibench.T7": ("omibench.T5",),  # Table 7 rates Table 5's answers
    "omibench.T6": ("omibench.T6",), "omibench.T9": ("omibench.T9",), "omibench.rationale": ("omibench.rationale",),
    "omibench.sig": ("omibench.sig", "omibench.T4", "omibench.F5c", "omibench.F6a"),
    **dict.fromkeys(["mira.T1", *(f"mira.T{i}" for i in range(4, 11))], ("mira.T4-T10",)),
    "mira.Tspec": ("mira.Tspec",),
    "c2rbench.F3-5": (),
    **dict.fromkeys(["c2rbench.F7", "c2rbench.F8", "c2rbench.F9", "c2rbench.F11", "c2rbench.T3", "c2rbench.agree"],
                    ("c2rbench.F7-F8",)),
    "c2rbench.F10": ("c2rbench.F10",), "c2rbench.T4": ("c2rbench.F7-F8", "c2rbench.F10"),
    "c2rbench.T5": ("c2rbench.F7-F8", "c2rbench.F10", "c2rbench.T5"),  # the judge's verdicts, then the labels
    "morphobench.F9": (),
    "morphobench.T1": ("morphobench.T1-T2",), "morphobench.T2": ("morphobench.T1-T2", "morphobench.T2-adapted"),
    "morphobench.T3": ("morphobench.T3-T4",), "morphobench.T4": ("morphobench.T3-T4",),
    "morphobench.T5": ("morphobench.T5",), "morphobench.T7": ("morphobench.T7",), "morphobench.T8": ("morphobench.T8",),
}


@lru_cache(maxsize=1)
def _by_id() -> dict[str, list[Experiment]]:
    """Experiment id → its files (one id may have several: C²RBench Table 5's image and text runs)."""
    out: dict[str, list[Experiment]] = {}
    for path in sorted(EXPERIMENTS.glob("*.yaml")):
        exp = load_experiment(path)
        out.setdefault(exp.id, []).append(exp)
    return out


def in_demo(experiment_id: str) -> bool:
    """Whether the demo profile runs the experiment at all (its `demo: {settings: []}` says it does not)."""
    return any(e.demo.get("settings", e.settings) for e in _by_id()[experiment_id])


def how_to_run(table_id: str) -> str:
    """The command that makes the runs a table reads, for its missing-inputs message: every experiment of
    RUNS_OF[table_id], by experiment id, in one `--only` — the one derivation, so that no table names another's
    runs. `--profile paper` is required when the demo runs one of them not at all, optional otherwise."""
    ids = RUNS_OF.get(table_id)
    if not ids:
        raise ValueError(f"{table_id} reads no model run (RUNS_OF): its inputs are data or external files")
    not_in_demo = [e for e in ids if not in_demo(e)]
    profile = "--profile paper" if not_in_demo else "[--profile paper]"
    why = f" (the demo does not run {', '.join(not_in_demo)})" if not_in_demo else ""
    return f"make its runs with python -m pipeline.experiments {profile} --only {' '.join(ids)}{why}"


def tables_reading(experiment_id: str) -> list[str]:
    """The tables that read an experiment's runs."""
    return [t for t, ids in RUNS_OF.items() if experiment_id in ids]


def nearest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to a mistyped one: those differing from it only in case, else difflib's."""
    known = sorted(set(known))
    return [k for k in known if k.lower() == name.lower()] or difflib.get_close_matches(name, known, n=n, cutoff=0.6)
