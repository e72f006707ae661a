"""OMIBench Fig. 4(a) prompting strategies (default CoT, Least-to-Most, Plan-and-Solve, VoT) and Fig. 4(b)
thinking vs no-thinking prompting: accuracy per model and prompt, each prompt against the default CoT
prompt with an exact McNemar test on the items both runs ran (§6.1: "no statistically significant
differences across prompts")."""
from __future__ import annotations

from analysis.omibench.baseline import PAIRED_NOTE, bar_figure, compare, missing_runs, settings_wide
from analysis.omibench.metrics import RULE_GAP, RULES_NOTE, rule_gap_notes
from analysis.omibench.runs import SETTING
from analysis.plot import draw
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, Table

IDS = ["omibench.F4a", "omibench.F4b"]
SETTINGS = {"omibench.F4a": [SETTING, "least_to_most", "plan_and_solve", "vot"],
            "omibench.F4b": [SETTING, "no_think"]}
TITLES = {"omibench.F4a": "OMIBench Fig. 4(a): prompting strategies",
          "omibench.F4b": "OMIBench Fig. 4(b): thinking vs no-thinking prompting"}
CAPTIONS = {
    "omibench.F4a": "OMIBench Fig. 4(a) — prompting strategies: default CoT, Least-to-Most, Plan-and-Solve and "
                    "Visualization-of-Thought; accuracy (%) per model, Δ and exact McNemar p against the default CoT.",
    "omibench.F4b": "OMIBench Fig. 4(b) — thinking (default CoT prompt) vs no-thinking prompting (answer only); "
                    "accuracy (%) per model, Δ and exact McNemar p against the CoT prompt.",
}


def build(table_id: str, ctx: Context) -> Table:
    settings = SETTINGS[table_id]
    long, tests, gap, sources = compare(ctx, table_id, settings)
    fig = draw(bar_figure, long, settings, path=ctx.figure(table_id), title=TITLES[table_id])
    failures = long[["model", "metric", "setting", "acc", *BESIDE]]
    return Table(CAPTIONS[table_id], settings_wide(long, tests, settings),
                 extra={"Paired tests against the default CoT (McNemar, exact)": tests, "Failures": failures,
                        RULE_GAP: gap},
                 figure=fig, provenance=Provenance(sources),
                 notes=[ACC_NOTE, RULES_NOTE, PAIRED_NOTE, *rule_gap_notes(gap, ["model", "setting"]),
                        "GPTScore: LLM judge. The paper prints no numbers for this figure, so there is nothing to "
                        "set beside ours.",
                        "Each model's settings are compared on the items all of them ran (`judged` below).",
                        "McNemar pairs each (item, sample) both runs ran, a failure counting as not correct; the "
                        "paper finds no significant difference across prompts (4a) and little change without "
                        "thinking (4b)."] + missing_runs(long, settings))
