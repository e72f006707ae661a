"""OMIBench Table 7: Spearman correlation between human ratings and each judge's verdicts on the same
answers (paper: 200 answers of Gemini-3-Pro-Preview, three GPTScore evaluator models; Appendix J).
Human ratings: data/external/omibench/human_ratings.csv (format: README-human.md)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.external import external_file
from analysis.inputs import find_runs, shown, stand_in
from analysis.omibench.runs import BENCH, EXTERNAL, evaluator_verdicts
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.stats import spearman
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import RHO, UNITS, rho_interval
from judge.current import UNJUDGED

IDS = ["omibench.T7"]
RHO_NOTE = ("ρ's 95 % interval: Fisher's z with Bonett and Wright's variance over the `paired` answers; the paper's "
            "ρ gets the same from its n of rated answers, which it does not print, so ours stands in (paper_n_from).")
RATINGS = EXTERNAL / "human_ratings.csv"
REQUIRED = ("model", "setting", "id", "rating")


def load_ratings(path: Path) -> pd.DataFrame:
    """One row per rated answer (model, setting, id, sample_idx): the mean rating over raters."""
    if not path.exists():
        raise MissingInputs(f"no human ratings at {shown(path)} (columns model,setting,id,sample_idx,rater,rating: see "
                            "data/external/omibench/README-human.md and human_ratings.EXAMPLE.csv)")
    df = pd.read_csv(path, dtype={"id": str, "model": str, "setting": str})
    lacking = [c for c in REQUIRED if c not in df]
    if lacking:
        raise MissingInputs(f"{path}: missing column(s) {lacking} (see data/external/omibench/README-human.md)")
    df["sample_idx"] = df["sample_idx"].fillna(0).astype(int) if "sample_idx" in df else 0
    df["rating"] = pd.to_numeric(df["rating"], errors="raise")
    return (df.groupby(["model", "setting", "id", "sample_idx"])["rating"].agg(rating="mean", raters="count")
            .reset_index())


def correlate(rated: pd.DataFrame, verdicts: pd.DataFrame) -> dict:
    """Spearman ρ of the human rating and one evaluator's verdict (1 correct / 0 wrong) over the answers
    both rated and judged; judge failures are left out and counted, answers without a current verdict too."""
    m = rated.merge(verdicts, on=["id", "sample_idx"], how="left")
    ok = m[m["status"] == "ok"]
    r = spearman(ok["rating"].tolist(), ok["correct"].astype(bool).astype(int).tolist())
    return {**r, "rated": len(rated), "no_verdict": int((m["status"].isna() | m["status"].eq(UNJUDGED)).sum()),
            "no_response": int((m["status"] == "no_response").sum()),
            "judge_error": int((m["status"] == "judge_error").sum())}


def build(table_id: str, ctx: Context) -> Table:
    path, example_note = external_file(RATINGS)
    ratings = load_ratings(path)
    all_runs = find_runs(ctx.results, BENCH)
    rows, sources = [], []
    for (model, setting), rated in ratings.groupby(["model", "setting"]):
        mine = [r for r in all_runs if r.model == model]
        for judge in sorted({r.judge for r in mine}):
            run = stand_in([r for r in mine if r.judge == judge], setting)
            if run is None:
                continue
            sources.append(run)
            v = evaluator_verdicts(run)
            for evaluator, ve in v.groupby("evaluator"):
                rows.append({"model": model, "setting": setting, "judge": judge, "evaluator": evaluator,
                             **correlate(rated, ve)})
    if not rows:
        raise MissingInputs(f"no judged run for the rated answers in {RATINGS} (models/settings: "
                            f"{sorted(set(zip(ratings['model'], ratings['setting'])))}); {how_to_run(table_id)}")
    table = pd.DataFrame(rows).rename(columns={"n": "paired"})
    at = table.columns.get_loc("rho") + 1
    lo, hi = rho_interval(table["rho"], table["paired"])
    table.insert(at, "rho_ci_lo", lo)
    table.insert(at + 1, "rho_ci_hi", hi)
    return Table("OMIBench Table 7 — Spearman correlation between human ratings and each judge's verdicts "
                 "(GPTScore evaluators; the rule judges, C.1's and the careful one, for reference).",
                 table, vs_paper=beside_paper(table.assign(**{UNITS: table["paired"]}), table_id, ["evaluator"],
                                              value="rho", kind=RHO),
                 provenance=Provenance(sources),
                 notes=[f"Human ratings: {shown(RATINGS)} (mean over raters per answer). "
                        "A verdict is 1 (consistent/correct) or 0; `paired` answers have both a rating and a scored "
                        "verdict; `no_verdict` rated answers have no current verdict of that evaluator (never judged, "
                        "or judged only as another outcome of the request or against another record).",
                        "Paper: all ρ > 0.86 with p < 0.05 (p values are not printed, so only ρ is compared).",
                        RHO_NOTE]
                 + ([example_note] if example_note else []))
