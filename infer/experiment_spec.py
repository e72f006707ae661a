"""One experiment file (configs/experiments/*.yaml), read strictly: an unknown key or a bad value is an error
before anything runs. The keys are described in configs/experiments/README.md."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data.files import read_yaml
from data.checkout import ROOT
from infer.config import ConfigError
from infer.generation import THINKING, check_params
from infer.settings import parse_setting

REFERENCE = ROOT / "data" / "reference"
EXPERIMENTS = ROOT / "configs" / "experiments"
DEMO_MODEL = ROOT / "configs" / "models" / "smollm2-135m.yaml"
PAPER_MODELS = ROOT / "configs" / "models" / "paper"
DEMO_KEYS = {"settings", "n", "limit", "judges", "data"}


@dataclass(frozen=True)
class Sample:
    """A table's seeded random sample of the answers it counts (`sample: {size: 100, seed: 0}`);
    size None (`size: all`) counts every answer."""
    size: int | None
    seed: int


@dataclass
class Experiment:
    id: str
    caption: str
    benchmark: str
    settings: list[str]
    models: list[str] = field(default_factory=list)      # the paper's models: rows of `reference`
    # data/reference ids whose model rows `models` are, each with an optional row filter {column: value}
    reference: dict[str, dict[str, str]] = field(default_factory=dict)
    subset: str | None = None          # why `models` is only part of the reference rows (else: all of them)
    added_models: dict[str, str] = field(default_factory=dict)  # our additions: model → why
    # paper models of `reference` this experiment does not run: model → why (a text-only model listed for an
    # image setting runs the paper's text setting elsewhere, or nowhere)
    left_out: dict[str, str] = field(default_factory=dict)
    pairs: list[list[str]] = field(default_factory=list)         # [thinking, non-thinking] model pairs
    params: dict[str, Any] = field(default_factory=dict)         # generation overrides, paper profile
    model_params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per model, over `params`
    thinking: str | None = None                                   # on / off / highest, paper profile
    ours: list[str] = field(default_factory=list)  # what the paper does not give and we chose
    data: str | None = None
    n: int = 1
    limit: int | None = None
    judges: list[str] = field(default_factory=lambda: ["rules"])
    # the LLM judges' model: several run every LLM judge with each (OMIBench T5); a mapping gives each judge
    # its own (Think360 T5: the accuracy cascade with GPT-4o-mini, ToT-Eval with GPT-4o)
    judge_model: str | list[str] | dict[str, str | list[str]] | None = None
    demo: dict[str, Any] = field(default_factory=dict)   # overrides for the demo profile
    sample: Sample | None = None   # the table's sample of its answers (OMIBench F.2's 100)
    path: str = ""

    @property
    def all_models(self) -> list[str]:
        return self.models + [m for m in self.added_models if m not in self.models]

    @property
    def judge_models(self) -> list[str]:
        """Every judge model the experiment uses."""
        judges = list(self.judge_model) if isinstance(self.judge_model, dict) else [None]
        return list(dict.fromkeys(m for j in judges for m in self.judge_models_of(j)))

    def judge_models_of(self, judge: str | None) -> list[str]:
        """The models an LLM judge runs with (none: a judge model is not given for it)."""
        spec = self.judge_model.get(judge) if isinstance(self.judge_model, dict) else self.judge_model
        return [] if spec is None else [spec] if isinstance(spec, str) else list(spec)

    def params_for(self, model: str) -> dict[str, Any]:
        return {**self.params, **self.model_params.get(model, {})}


def _reference(value: Any, where: str) -> dict[str, dict[str, str]]:
    """A list of ids, or a mapping id → row filter; every id must have its data/reference file."""
    if isinstance(value, list):
        value = {v: {} for v in value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: reference: expected a list of table ids or a mapping id → {{column: value}}")
    for table_id, rows in value.items():
        if not (REFERENCE / f"{table_id}.csv").is_file():
            raise ConfigError(f"{where}: reference: no data/reference/{table_id}.csv")
        if rows is not None and not isinstance(rows, dict):
            raise ConfigError(f"{where}: reference: {table_id}: expected a row filter {{column: value}}")
    return {k: {c: str(v) for c, v in (rows or {}).items()} for k, rows in value.items()}


def _sample(value: Any, where: str) -> Sample:
    def integer(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if not (isinstance(value, dict) and set(value) == {"size", "seed"} and integer(value["seed"])
            and (value["size"] == "all" or (integer(value["size"]) and value["size"] >= 1))):
        raise ConfigError(f"{where}: sample: expected {{size: <a count ≥ 1, or all>, seed: <an integer>}}, "
                          f"got {value!r}")
    return Sample(None if value["size"] == "all" else value["size"], value["seed"])


def _check(exp: Experiment, where: str) -> None:
    if set(exp.demo) - DEMO_KEYS:
        raise ConfigError(f"{where}: demo: unknown key(s) {sorted(set(exp.demo) - DEMO_KEYS)}")
    if not isinstance(exp.added_models, dict) or not all(isinstance(r, str) and r.strip()
                                                         for r in exp.added_models.values()):
        raise ConfigError(f"{where}: added_models: expected a mapping model → why it is added")
    if set(exp.added_models) & set(exp.models):
        raise ConfigError(f"{where}: added_models: {sorted(set(exp.added_models) & set(exp.models))} "
                          "are also paper models")
    if not isinstance(exp.left_out, dict) or not all(isinstance(r, str) and r.strip() for r in exp.left_out.values()):
        raise ConfigError(f"{where}: left_out: expected a mapping model → why the experiment does not run it")
    if set(exp.left_out) & set(exp.all_models):
        raise ConfigError(f"{where}: left_out: {sorted(set(exp.left_out) & set(exp.all_models))} are also run by it")
    if exp.models and not exp.reference:
        raise ConfigError(f"{where}: models: give the reference table(s) they are rows of (else use added_models)")
    if not isinstance(exp.ours, list) or not all(isinstance(o, str) and o.strip() for o in exp.ours):
        raise ConfigError(f"{where}: ours: expected a list of sentences")
    if isinstance(exp.judge_model, dict):
        extra = set(exp.judge_model) - set(exp.judges) - set(exp.demo.get("judges", []))
        if extra:
            raise ConfigError(f"{where}: judge_model: {sorted(extra)} are not judges of this experiment")
    if exp.thinking is not None and exp.thinking not in THINKING:
        raise ConfigError(f"{where}: thinking: {exp.thinking!r} (known: {', '.join(THINKING)})")
    exp.params = check_params(exp.params, f"{where}: params")
    unknown = set(exp.model_params) - set(exp.all_models)
    if unknown:
        raise ConfigError(f"{where}: model_params: {sorted(unknown)} are not models of this experiment")
    for model, p in exp.model_params.items():
        exp.model_params[model] = check_params(p, f"{where}: model_params: {model}")
    for pair in exp.pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and set(pair) <= set(exp.all_models)):
            raise ConfigError(f"{where}: pairs: {pair!r} is not two models of this experiment")
    overridden = set(exp.params).union(*exp.model_params.values())
    for s in exp.settings + exp.demo.get("settings", []):
        spec = parse_setting(s)  # a typo in a setting is an error before anything runs
        both = overridden & set(spec.overrides)
        if both and s in exp.settings:  # the setting's modifier and the experiment would disagree silently
            raise ConfigError(f"{where}: setting {s!r} sets {sorted(both)}, which params also set")
        if spec.thinking and exp.thinking and s in exp.settings:
            raise ConfigError(f"{where}: setting {s!r} has a thinking switch and the experiment sets thinking")


def load_experiment(path: Path) -> Experiment:
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    known = set(Experiment.__dataclass_fields__) - {"path"}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {sorted(unknown)} (known: {', '.join(sorted(known))})")
    if "reference" in data:
        data["reference"] = _reference(data["reference"], str(path))
    if data.get("sample") is not None:
        data["sample"] = _sample(data["sample"], str(path))
    mappings = ("added_models", "left_out", "model_params", "params")
    data = {k: ({} if v is None and k in mappings else v) for k, v in data.items()}
    exp = Experiment(**data, path=str(path))
    _check(exp, str(path))
    return exp
