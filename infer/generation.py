"""Experiment-level generation overrides: what a paper fixes for all of its runs, without a setting of its own.

An experiment (configs/experiments/*.yaml) may say

    params: {max_tokens: 16384, temperature: null}          # null: send none, the endpoint's default applies
    model_params: {qwen-vl-max: {max_tokens: 8192, top_p: 1.0}}   # per model, over `params`
    thinking: highest                                        # or on / off: the model config's switch

They apply in the paper profile to a copy of each model config, so that the parameters every request
sends — recorded in its raw line and hashed into its request key — carry them, while the setting names
(which are the raw files' names, read by the analysis) stay as they are. Settings keep their own
modifiers (`+temp0.7`, `+max512`, `+think`); an experiment may not override what its settings set.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from infer.config import ConfigError, ModelConfig
from infer.layout import raw_path

PARAM_KEYS = ("max_tokens", "temperature", "top_p")
THINKING = ("on", "off", "highest")


def check_params(params: Any, where: str) -> dict[str, Any]:
    """A `params` mapping: known keys only, numbers or null (a typo must not become a silent default)."""
    if not isinstance(params, dict):
        raise ConfigError(f"{where}: expected a mapping of {', '.join(PARAM_KEYS)}")
    for key, value in params.items():
        if key not in PARAM_KEYS:
            raise ConfigError(f"{where}: unknown generation parameter {key!r} (known: {', '.join(PARAM_KEYS)})")
        if value is None:
            continue
        if key == "max_tokens" and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
            raise ConfigError(f"{where}: max_tokens: expected a positive integer or null, got {value!r}")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(f"{where}: {key}: expected a number or null, got {value!r}")
    return dict(params)


def thinking_fields(cfg: ModelConfig, thinking: str | None) -> dict[str, Any]:
    """The request fields of an experiment's thinking choice for this model. `highest`: the config's
    `highest` switch, else its `on` (where `on` already asks for the top budget), else nothing — a model
    without a switch runs as it is (MorphoBench Table 6: the highest budget "available")."""
    if thinking is None:
        return {}
    if thinking == "highest":
        return dict(cfg.thinking.get("highest") or cfg.thinking.get("on") or {})
    if thinking not in cfg.thinking:
        raise ConfigError(f"{cfg.path}: thinking: no {thinking!r} switch for {cfg.name} "
                          f"(the config gives: {', '.join(cfg.thinking) or 'none'})")
    return dict(cfg.thinking[thinking])


def apply(cfg: ModelConfig, params: dict[str, Any], thinking: str | None) -> ModelConfig:
    """`cfg` with the experiment's overrides: a value replaces the config's (and a thinking switch's), null
    adds the parameter to those never sent."""
    body = {**cfg.extra_body, **thinking_fields(cfg, thinking)}
    fields: dict[str, Any] = {}
    never = list(cfg.unsupported_params)
    for key, value in params.items():
        if value is None:
            never += [key] if key not in never else []
            body.pop(key, None)
        else:
            fields[key] = value
            if key in body:  # a switch's own value (e.g. Claude thinking's temperature) gives way
                body[key] = value
    # the reasoning the endpoint returns under this experiment's switch (infer/config.py reasoning_of)
    return replace(cfg, **fields, extra_body=body, unsupported_params=never, reasoning=cfg.reasoning_of(thinking))


def conflicts(effective: dict[tuple[str, str, str], dict[str, dict[str, Any]]]) -> list[str]:
    """effective: (benchmark, model, setting) → {experiment id: the params its requests send}. Experiments
    sharing a raw file must send the same parameters, or each rerun of one would redo the other's requests."""
    problems = []
    for (bench, model, setting), by_exp in sorted(effective.items()):
        distinct = {repr(sorted(p.items())) for p in by_exp.values()}
        if len(distinct) > 1:
            what = "; ".join(f"{e}: {p}" for e, p in sorted(by_exp.items()))
            problems.append(f"{raw_path(Path('results'), bench, model, setting)} is shared by experiments that send "
                            f"different parameters — {what}")
    return problems
