"""Think360° Table S1: maximum response length per model, as configured (configs/models/paper/*.yaml
`max_tokens`), beside the paper's Table S1."""
from __future__ import annotations

import pandas as pd

from analysis.reference import aliases, beside_paper, load_reference
from analysis.table import ROOT, Context, MissingInputs, Table
from analysis.uncertainty import EXACT, EXACT_NOTE
from data.files import read_yaml
from infer.settings import parse_setting

IDS = ["think360.S1"]
MODELS = ROOT / "configs" / "models" / "paper"
EXPERIMENTS = ROOT / "configs" / "experiments"


def think360_models() -> dict[str, list[str]]:
    """Our model → the think360 experiments that run it, plus every model a Think360 paper name maps to."""
    used: dict[str, list[str]] = {}
    for path in sorted(EXPERIMENTS.glob("think360_*.yaml")):
        exp = read_yaml(path)
        # A setting's +max<N> would override the config; say so rather than report the wrong limit.
        if any("max_tokens" in parse_setting(s).overrides for s in exp["settings"]):
            raise ValueError(f"{path.name}: a setting overrides max_tokens; Table S1 must read it from there")
        for m in exp["models"]:
            used.setdefault(m, []).append(exp["id"])
    for m in aliases("think360").values():
        used.setdefault(m, [])
    return used


def build(table_id: str, ctx: Context) -> Table:
    rows, absent = [], []
    for model, experiments in sorted(think360_models().items()):
        path = MODELS / f"{model}.yaml"
        if not path.exists():
            absent.append(model)
            continue
        cfg = read_yaml(path)
        rows.append({"model": model, "max_tokens": cfg.get("max_tokens"), "served_as": cfg.get("model"),
                     "experiments": ", ".join(experiments) or "—"})
    if not rows:
        raise MissingInputs(f"no model configs of Think360 models under {MODELS}")
    table = pd.DataFrame(rows)
    ref = load_reference(table_id)
    unconfigured = (ref[~ref["model"].isin(table["model"])][["paper_model"]].rename(columns={"paper_model": "paper model"})
                    if ref is not None else pd.DataFrame())
    notes = ["max_tokens is what every Think360 request of the model asks for: no think360 setting overrides it.",
             EXACT_NOTE.replace("the data set (or a configuration)", "a configuration")]
    if ref is not None:  # paper rows one config runs can only show one limit: say which
        shared = ref.groupby("model")["paper_model"].unique()
        notes += [f"{', '.join(names)} run as one config, {model}: one limit for all of them."
                  for model, names in shared.items() if len(names) > 1]
    if absent:
        notes.append(f"Aliased but without a config: {', '.join(absent)}.")
    return Table(
        "Think360° Table S1 — maximum response length settings for different models (our configs beside the "
        "paper's).",
        table,
        vs_paper=beside_paper(table, table_id, [], value="max_tokens", kind=EXACT),
        extra={"Paper models without a config here": unconfigured.reset_index(drop=True)},
        notes=notes,
    )
