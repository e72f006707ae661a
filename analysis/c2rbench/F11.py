"""C²RBench Figure 11 (§4.7, Appendix A.6): overthinking — mean reasoning, answer and total tokens per
response by task category, level, score and final-answer presence; zero-shot, T = 0."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.c2rbench import common as c2r
from analysis.plot import bars, ci_of, draw, empty_panel, save_figure, subplots
from analysis.stats import truncated
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import CI_HI, CI_LO, bootstrap, ci_columns
from judge.current import UNJUDGED
from judge.judges import RULES

IDS = ["c2rbench.F11"]
PARTS = ["reasoning", "answer", "total"]


def count_tokens(df: pd.DataFrame, reasoning_text: dict[tuple, str | None]) -> pd.DataFrame:
    """reasoning / answer / total tokens per response (total = completion tokens, answer = total − reasoning).

    Reasoning tokens are the server's usage.reasoning_tokens; when it reports none but returns the
    reasoning text, they are estimated as the completion tokens times the reasoning text's share of all
    characters generated (reasoning + response); with neither, reasoning is 0 (a direct-answer model,
    as the paper counts GPT-4o). `method` records which, per response."""
    out = df.copy()
    chars = [len(reasoning_text.get((m, i, s)) or "") for m, i, s in zip(df["model"], df["id"], df["sample_idx"])]
    out["reasoning_chars"] = chars
    resp = out["response_chars"].fillna(0)
    share = pd.Series(chars, index=out.index) / (pd.Series(chars, index=out.index) + resp).where(lambda x: x > 0)
    reported = out["reasoning_tokens"].notna()
    from_text = ~reported & (out["reasoning_chars"] > 0)
    out["method"] = "none"
    out.loc[from_text, "method"] = "text share"
    out.loc[reported, "method"] = "usage"
    out["total"] = out["completion_tokens"].astype(float)
    out["reasoning"] = 0.0
    out.loc[reported, "reasoning"] = out.loc[reported, "reasoning_tokens"].astype(float)
    out.loc[from_text, "reasoning"] = (out.loc[from_text, "total"] * share[from_text]).round()
    # Completion tokens include the reasoning (OpenAI convention); a server that counts them apart would
    # give reasoning > total: the answer is then clipped at 0 and the response counted in `clipped`.
    out["clipped"] = out["reasoning"] > out["total"]
    out["answer"] = (out["total"] - out["reasoning"]).clip(lower=0)
    return out


def dimensions(tok: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str, list]]:
    """The four dimensions of Fig. 11: (name, the responses it groups, column, its values in order)."""
    scored = tok[tok["status"] == "ok"]
    scored = scored.assign(score=scored["correct"].astype(bool).map({True: "1 (correct)", False: "0 (wrong)"}))
    return [("category", tok, "category", c2r.subset_order(tok["category"].dropna())),
            ("level", tok, "level", c2r.LEVELS), ("score", scored, "score", ["1 (correct)", "0 (wrong)"]),
            ("final answer", tok, "final_answer", ["present", "absent"])]


def group_names(tok: pd.DataFrame) -> dict[str, list[str]]:
    """Every group of each dimension, as the table names them (the figure's x positions)."""
    return {dim: [c2r.level_name(v) if dim == "level" else v for v in order] for dim, _, _, order in dimensions(tok)}


def by_dimension(tok: pd.DataFrame) -> pd.DataFrame:
    """Mean tokens per model and group of each of the four dimensions of Fig. 11."""
    rows = []
    for dim, data, col, order in dimensions(tok):
        for model, g in data.groupby("model"):
            for value in order:
                h = g[g[col] == value]
                if len(h):
                    group = c2r.level_name(value) if dim == "level" else value
                    rows.append({"model": model, "dimension": dim, "group": group, "responses": len(h),
                                 **{k: v for p in PARTS for k, v in _mean_with_interval(h, p).items()}})
    return pd.DataFrame(rows)


def _mean_with_interval(h: pd.DataFrame, part: str) -> dict[str, float]:
    """The mean of a token count over the responses `h`, with its 95 % interval: the bootstrap over tasks, a task's
    responses resampled together."""
    ci = bootstrap(h, [], h["id"], h[part])
    lo, hi = ci_columns(part)
    return {part: h[part].mean(), lo: float(ci[CI_LO].iloc[0]), hi: float(ci[CI_HI].iloc[0])}


def figure(table: pd.DataFrame, groups: dict[str, list[str]], path: Path) -> None:
    """One panel per model and dimension; a group without a response of the model is written at its place."""
    models, dims = sorted(table["model"].unique()), list(groups)
    fig, axes = subplots(len(models), len(dims), figsize=(4.5 * len(dims), 3.6 * len(models)), squeeze=False)
    for r, model in enumerate(models):
        for c, dim in enumerate(dims):
            ax = axes[r][c]
            d = table[(table["model"] == model) & (table["dimension"] == dim)].set_index("group")
            d = d.reindex(groups[dim])
            ax.set_title(f"{model}: by {dim}", fontsize=9)
            ax.set_ylabel("mean tokens per response")
            if d["total"].isna().all():
                empty_panel(ax, f"no response with a known {dim}")
                continue
            for k, part in enumerate(PARTS):
                bars(ax, [x + k * 0.27 for x in range(len(d))], d[part], 0.27, label=part,
                     missing="no responses" if k == 1 else "", ci=ci_of(d, part))  # one text per group, middle bar
            ax.set_xticks([x + 0.27 for x in range(len(d))], d.index, rotation=30, ha="right", fontsize=8)
    drawn = [ax for ax in axes.flat if ax.patches]
    if drawn:
        drawn[0].legend(fontsize=8)
    fig.suptitle("Fig. 11: overthinking — mean reasoning / answer / total tokens per response (zero-shot, T = 0)")
    save_figure(fig, path, dpi=110)


def build(table_id: str, ctx: Context) -> Table:
    df, provenance, notes = c2r.judged(ctx, table_id, [c2r.MAIN])
    text = {(r.model, i, s): t for r in provenance.runs for (i, s), t in c2r.reasoning(r).items()}
    try:
        rules = ctx.verdicts(c2r.BENCH, [c2r.MAIN], RULES)
        judged = rules[rules["status"] != UNJUDGED]  # without a current verdict, whether it has one is not known
        cols = judged[["model", "id", "sample_idx", "extracted"]].itertuples(index=False)
        found = {(m, i, s): bool(pd.notna(e)) for m, i, s, e in cols}
        if unknown := len(rules) - len(judged):
            notes.append(f"Final answer: {unknown} response(s) without a current rule-judge verdict (unjudged) are "
                         "in neither `present` nor `absent`.")
    except MissingInputs:
        found = {}
        notes.append("No rule-judge verdicts: final-answer presence is unknown.")
    answered = df[df["status"] != "no_response"].copy()
    if answered.empty:
        raise MissingInputs("every c2rbench zero_shot+temp0 request failed: no tokens to count")
    presence = [found.get(k) for k in zip(answered["model"], answered["id"], answered["sample_idx"])]
    answered["final_answer"] = [None if p is None else ("present" if p else "absent") for p in presence]
    tok = count_tokens(answered, text)
    table = by_dimension(tok)
    def n(method: str):
        return lambda m: int((m == method).sum())
    counting = tok.groupby("model").agg(
        responses=("method", "size"), usage=("method", n("usage")), text_share=("method", n("text share")),
        none=("method", n("none")), mean_reasoning_chars=("reasoning_chars", "mean"), clipped=("clipped", "sum"),
    ).reset_index()
    failures = df.groupby("model")["status"].value_counts().unstack(fill_value=0).reset_index()
    failures = failures.merge(truncated(df).groupby(df["model"]).sum().rename("truncated").reset_index(), on="model")
    fig = draw(figure, table, group_names(tok), path=ctx.figure(table_id))
    return Table(
        "C²RBench Fig. 11 — overthinking analysis across task category, level, score and final-answer presence: "
        "mean reasoning, answer and total tokens per response.",
        table,
        extra={"How reasoning tokens were counted": counting, "Responses per status": failures},
        figure=fig,
        notes=notes + [
            "Tokens: total = usage.completion_tokens; reasoning = usage.reasoning_tokens where the server reports "
            "it (`usage`), else estimated from the raw `reasoning` text as total × its share of the characters "
            "generated (`text share`), else 0 (`none`: a direct-answer model, as the paper counts GPT-4o); "
            "answer = total − reasoning. All three are in tokens; each mean's 95 % interval is the bootstrap over "
            "tasks (a task's responses resampled together).",
            "Responses per status: truncated counts the responses cut at max_tokens with no final answer "
            "(whatever their status).",
            "Score: the judge's verdict (1 correct, 0 wrong; judge errors left out of that panel). Final answer: "
            "`present` when the rule extractor found an answer (verdict `extracted` not null). The paper's "
            "panel codes absence as 1.",
            "Failed requests (no response) have no tokens and are left out (counted under 'Responses per status').",
            "The figure's numbers are not in the paper's text: no reference file."],
        provenance=provenance,
    )
