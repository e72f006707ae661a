"""Each paper's models: every model row of every data/reference table maps (through that paper's aliases) to a
config under configs/models/paper/, rows that are not models are listed as such, and every paper-profile
experiment runs exactly its tables' models, anything else marked as our addition."""
from pathlib import Path

import pandas as pd
import pytest

from analysis.reference import aliases, paper_of
from infer.config import ModelConfig, load_model_config
from pipeline.experiments import EXPERIMENTS, PAPER_MODELS, load_experiment

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"
TABLES = sorted(p for p in REFERENCE.glob("*.csv") if "." in p.stem)   # <bench>.<id>.csv; not the alias files
NON_MODELS = pd.read_csv(REFERENCE / "non_models.csv", dtype=str)
KINDS = {"human", "external_system", "dataset", "aggregate", "no_endpoint"}
EXPERIMENT_FILES = sorted(EXPERIMENTS.glob("*.yaml"))


def model_rows(table_id: str, where: dict[str, str] | None = None) -> dict[str, str]:
    """paper name → config name of the table's model rows (matching `where`), non-model rows left out."""
    df = pd.read_csv(REFERENCE / f"{table_id}.csv", dtype=str)
    for column, value in (where or {}).items():
        df = df[df[column] == value]
    names = aliases(paper_of(table_id))
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


def test_each_paper_maps_a_name_to_one_config():
    """A paper's alias files (aliases_<bench>.csv, aliases_<bench>_*.csv) are read as one mapping: within
    a paper a name must mean one config, or the later file would silently win."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for f in sorted(REFERENCE.glob("aliases_*.csv")):
        paper = f.stem[len("aliases_"):].split("_")[0]
        for name, model in pd.read_csv(f, dtype=str)[["paper_name", "model"]].itertuples(index=False):
            key = (paper, name)
            assert key not in seen or seen[key][0] == model, f"{name}: {seen[key]} vs {model} ({f.name})"
            seen[key] = (model, f.name)
            if name not in set(NON_MODELS["paper_name"]):
                assert (PAPER_MODELS / f"{model}.yaml").is_file(), f"{f.name}: {name} → {model} has no config"


def test_a_name_maps_per_paper():
    """MIRA's Table 3 pins "GPT-4o" to snapshot gpt-4o-2024-11-20; Think360, OMIBench and C²RBench name no
    snapshot: their GPT-4o is the alias. Each paper's tables compare with its own model."""
    assert aliases("mira")["GPT-4o"] == "gpt-4o-2024-11-20"
    assert {aliases(p)["GPT-4o"] for p in ("think360", "omibench", "c2rbench")} == {"gpt-4o"}
    assert aliases("omibench")["GPT-4o + CogFlow"] == "gpt-4o+cogflow"   # aliases_omibench_b.csv is OMIBench's
    assert "GPT-4o + CogFlow" not in aliases("mira")


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
        absent = sorted(p for p, m in paper.items() if m not in exp.models and m not in exp.left_out)
        assert not absent, f"{path.name}: the paper's {absent} are not run (or say why in `subset` or `left_out`)"
    else:
        assert exp.models, f"{path.name}: `subset` without models"
    assert not set(exp.added_models) & configs, f"{path.name}: a paper model is marked as an addition"
    assert set(exp.left_out) <= configs, f"{path.name}: left_out names models that are no rows of its tables"
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


# Checkpoints that think unless a request turns it off, so a paper's "…-Thinking" row runs their config as it is
THINKS_BY_DEFAULT = {
    "bee-8b-rl": "Bee-8B-RL (Think360 Table 5's Bee-8B-RL-Thinking): vLLM's own Bee-8B example opens the "
                 "assistant turn with <think>",
    "gemini-2.5-flash": "Gemini 2.5 Flash (Think360 Table S1's Gemini-2.5-flash-thinking) thinks unless its "
                        "budget is set to none (the config's `off` switch)",
}


def thinks(cfg: ModelConfig) -> bool:
    """Whether a config's requests run its model in thinking mode: its system prompt asks for a <think> part,
    a request field turns thinking on, the checkpoint is a thinking one, or it thinks by default."""
    body = cfg.extra_body
    if (body.get("thinking") or {}).get("type") == "disabled":  # a thinking checkpoint run with thinking off
        return False
    return ((cfg.system is not None and "<think>" in cfg.system.text)
            or (body.get("thinking") or {}).get("type") == "enabled"
            or bool((body.get("reasoning") or {}).get("max_tokens"))  # a gateway's thinking budget (OpenRouter)
            or (body.get("chat_template_kwargs") or {}).get("enable_thinking") is True
            or "think" in cfg.model.lower()
            or cfg.name in THINKS_BY_DEFAULT)


def test_a_thinking_row_runs_a_config_that_thinks():
    rows = {(paper_of(t.stem), p, m) for t in TABLES for p, m in model_rows(t.stem).items()
            if "think" in p.lower() and "nothink" not in p.lower()}
    assert ("think360", "InternVL-3.5-8B-Thinking", "internvl3.5-8b-thinking") in rows
    not_thinking = sorted(f"{paper}: {p} → {m}" for paper, p, m in rows
                          if not thinks(load_model_config(PAPER_MODELS / f"{m}.yaml")))
    assert not not_thinking, f"thinking rows run configs that do not think: {not_thinking}"
    # and each declares whether its endpoint returns the reasoning (a process judge scores only what is shown)
    undeclared = sorted(m for _, _, m in rows if load_model_config(PAPER_MODELS / f"{m}.yaml").reasoning_of() == "none")
    assert not undeclared, f"thinking configs declared `reasoning: none`: {undeclared}"


def test_every_config_that_thinks_declares_its_reasoning():
    """A config that runs its model in thinking mode says whether the endpoint returns the reasoning (models that
    think by their nature, o3 or DeepSeek-R1, declare it too, but nothing in their requests shows it)."""
    undeclared = [path.stem for path in sorted(PAPER_MODELS.glob("*.yaml"))
                  if thinks(cfg := load_model_config(path)) and cfg.reasoning_of() == "none"]
    assert not undeclared, undeclared
    hidden = {p.stem for p in PAPER_MODELS.glob("*.yaml") if load_model_config(p).reasoning_of() == "hidden"}
    # the closed reasoning models whose endpoints return only the final text (Think360 §4.2 names o3, Gemini-2.5-Pro)
    assert {"o3", "o4-mini", "gemini-2.5-pro", "gpt-5", "claude-4-opus-thinking"} <= hidden


def test_internvl35_thinks_by_its_system_prompt_in_table_5_only():
    """InternVL3.5's thinking mode is a system prompt (its model card's R1 prompt): Think360 Table 5's
    -Thinking row runs the checkpoint with it, the InternVL-3.5-8B rows of the other tables without it."""
    names = aliases("think360")
    thinking = load_model_config(PAPER_MODELS / f"{names['InternVL-3.5-8B-Thinking']}.yaml")
    plain = load_model_config(PAPER_MODELS / f"{names['InternVL-3.5-8B']}.yaml")
    assert thinking.model == plain.model == "OpenGVLab/InternVL3_5-8B"
    assert thinking.system is not None and "<think> and </think>" in thinking.system.text and not thinks(plain)
    assert model_rows("think360.T5")["InternVL-3.5-8B-Thinking"] == "internvl3.5-8b-thinking"
    assert "internvl3.5-8b-thinking" in load_experiment(EXPERIMENTS / "think360_T5.yaml").models
    assert aliases("omibench")["InternVL3.5-8B"] == "internvl3.5-8b"


def test_qwen3_vl_thinking_models_sample_as_their_model_card_says():
    """OMIBench gives only "Temperatures are selected from [0, 1]": the Thinking variants decode as Qwen's model
    card recommends for them (greedy decoding makes them loop), and each config names that source."""
    paths = sorted(PAPER_MODELS.glob("qwen3-vl-*-thinking.yaml"))
    assert len(paths) == 6
    for path in paths:
        cfg = load_model_config(path)
        params = cfg.generation_params()
        assert (params["temperature"], params["top_p"], params["top_k"], params["presence_penalty"]) == \
            (1.0, 0.95, 20, 0.0), cfg.name
        assert "model card" in (cfg.decoding_source or ""), cfg.name
        assert cfg.reasoning == "returned"
    # a setting's own temperature (OMIBench's parallel scaling, T = 0.6) still replaces the card's
    assert load_model_config(paths[0]).generation_params(temperature=0.6)["temperature"] == 0.6


def test_think360_table_5_rows_can_show_their_trajectories():
    """Table 5 scores trajectories: Kimi-VL's are split by its own markers, and Claude-3.7-Sonnet-Thinking's
    config goes through an endpoint that returns its thinking (Anthropic's OpenAI-compatible one does not)."""
    kimi = load_model_config(PAPER_MODELS / "kimi-vl-a3b-thinking.yaml")
    assert kimi.reasoning_markers == ("◁think▷", "◁/think▷") and kimi.reasoning == "returned"
    claude = load_model_config(PAPER_MODELS / "claude-3.7-sonnet-thinking.yaml")
    assert claude.reasoning == "returned" and "openrouter" in claude.base_urls[0]
    assert claude.extra_body["reasoning"]["max_tokens"] < claude.max_tokens
    for name in load_experiment(EXPERIMENTS / "think360_T5.yaml").models:
        declared = load_model_config(PAPER_MODELS / f"{name}.yaml").reasoning_of()
        assert declared != "hidden", f"{name}: a Table 5 row whose trajectory cannot be scored"
