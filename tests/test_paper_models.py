"""Each paper's models: every model row of every data/reference table maps (through that paper's aliases) to a
config under configs/models/paper/, rows that are not models are listed as such, and every paper-profile
experiment runs exactly its tables' models, anything else marked as our addition."""
from pathlib import Path

import pandas as pd
import pytest

from infer.experiments import EXPERIMENTS, PAPER_MODELS, load_experiment

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"
TABLES = sorted(p for p in REFERENCE.glob("*.csv") if "." in p.stem)   # <bench>.<id>.csv; not the alias files
NON_MODELS = pd.read_csv(REFERENCE / "non_models.csv", dtype=str)
KINDS = {"human", "external_system", "dataset", "aggregate", "no_endpoint"}
EXPERIMENT_FILES = sorted(EXPERIMENTS.glob("*.yaml"))


def aliases(bench: str) -> dict[str, str]:
    """The paper's own alias files: aliases_<bench>.csv and aliases_<bench>_*.csv."""
    files = [REFERENCE / f"aliases_{bench}.csv", *sorted(REFERENCE.glob(f"aliases_{bench}_*.csv"))]
    out: dict[str, str] = {}
    for f in files:
        df = pd.read_csv(f, dtype=str)
        out.update(zip(df["paper_name"], df["model"]))
    return out


def model_rows(table_id: str, where: dict[str, str] | None = None) -> dict[str, str]:
    """paper name → config name of the table's model rows (matching `where`), non-model rows left out."""
    df = pd.read_csv(REFERENCE / f"{table_id}.csv", dtype=str)
    for column, value in (where or {}).items():
        df = df[df[column] == value]
    names = aliases(table_id.split(".")[0])
    return {p: names.get(p) for p in df["paper_model"].unique() if p not in set(NON_MODELS["paper_name"])}


def test_non_model_rows_are_declared_with_a_kind():
    assert set(NON_MODELS["kind"]) <= KINDS
    assert NON_MODELS["note"].str.strip().astype(bool).all()
    used = {p for t in TABLES for p in pd.read_csv(t, dtype=str)["paper_model"]}
    assert set(NON_MODELS["paper_name"]) <= used, "non_models.csv lists names no reference table has"


@pytest.mark.parametrize("table", TABLES, ids=[t.stem for t in TABLES])
def test_every_model_row_has_a_config(table):
    rows = model_rows(table.stem)
    unmapped = sorted(p for p, m in rows.items() if m is None)
    assert not unmapped, f"{table.name}: no alias in aliases_{table.stem.split('.')[0]}*.csv for {unmapped}"
    missing = sorted(f"{p} → {m}" for p, m in rows.items() if not (PAPER_MODELS / f"{m}.yaml").is_file())
    assert not missing, f"{table.name}: no config under configs/models/paper/ for {missing}"


def test_alias_files_agree_across_papers():
    """analysis/reference.py merges every alias file into one mapping: a name two papers use must mean the
    same config in both, or one paper's rows would be compared with the other's model."""
    seen: dict[str, tuple[str, str]] = {}
    for f in sorted(REFERENCE.glob("aliases*.csv")):
        for name, model in pd.read_csv(f, dtype=str)[["paper_name", "model"]].itertuples(index=False):
            assert name not in seen or seen[name][0] == model, f"{name}: {seen[name]} vs {model} ({f.name})"
            seen[name] = (model, f.name)
            if name not in set(NON_MODELS["paper_name"]):
                assert (PAPER_MODELS / f"{model}.yaml").is_file(), f"{f.name}: {name} → {model} has no config"


@pytest.mark.parametrize("path", EXPERIMENT_FILES, ids=[p.stem for p in EXPERIMENT_FILES])
def test_experiment_runs_its_tables_models(path):
    exp = load_experiment(path)
    paper: dict[str, str] = {}
    for table_id, where in exp.reference.items():
        paper.update(model_rows(table_id, where))
    configs = set(paper.values())
    stray = sorted(set(exp.models) - configs)
    assert not stray, f"{path.name}: {stray} are no model rows of {sorted(exp.reference)} (mark them in added_models)"
    if exp.subset is None:
        absent = sorted(p for p, m in paper.items() if m not in exp.models)
        assert not absent, f"{path.name}: the paper's {absent} are not run (or say why in `subset`)"
    else:
        assert exp.models, f"{path.name}: `subset` without models"
    assert not set(exp.added_models) & configs, f"{path.name}: a paper model is marked as an addition"
    for model in exp.all_models + exp.judge_models:
        assert (PAPER_MODELS / f"{model}.yaml").is_file(), f"{path.name}: no config for {model}"


def test_the_papers_model_counts():
    """Spot checks against the papers' own tables, so a reference file cannot shrink unnoticed."""
    counts = {"think360.T3": 30, "think360.T4": 10, "omibench.T2": 31, "omibench.T4": 12, "omibench.T9": 6,
              "mira.T4": 22, "morphobench.T2": 7, "morphobench.T7": 2, "c2rbench.T2": 44}
    assert {t: len(model_rows(t)) for t in counts} == counts
    assert len(model_rows("c2rbench.T2", {"multimodal": "Yes"})) == 24   # "24 MLLMs" (§4.2)


def test_decoding_follows_each_paper():
    exps = {e.id: e for e in map(load_experiment, EXPERIMENT_FILES)}
    for exp in exps.values():
        if exp.benchmark == "mira":      # §6: endpoint defaults, 16,384 tokens; 8,192 and top_p 1.0 for four
            assert exp.params == {"max_tokens": 16384, "temperature": None}, exp.id
            assert all(p == {"max_tokens": 8192, "top_p": 1.0} for p in exp.model_params.values()), exp.id
        if exp.benchmark == "morphobench":   # Table 6: the highest available thinking budget
            assert exp.thinking == "highest", exp.id
        if exp.benchmark == "think360":      # §4.1: T = 0.7, three repeats
            assert exp.n == 3 and all("+temp0.7" in s for s in exp.settings), exp.id
        if exp.benchmark == "c2rbench":      # §4.2: temperature 0
            assert all("+temp0" in s for s in exp.settings), exp.id
    assert exps["omibench.T5"].judge_models == ["gemini-2.5-flash", "gpt-5-mini"] and exps["omibench.T5"].n == 3
    assert exps["omibench.sig"].n == 5 and exps["omibench.F5c"].n == 16
