"""The experiment a table reproduces (configs/experiments/<name>.yaml), read as pipeline.experiments reads it:
a table takes its models, pairs, settings and repeats from there, the one list of what runs. Experiments
share settings (OMIBench's Table 5 and its significance runs both sample cot_boxed+temp0.6), so a table
reads only its own experiment's models."""
from __future__ import annotations

from functools import lru_cache

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
