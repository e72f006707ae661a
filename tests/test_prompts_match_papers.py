"""Every prompt quoted from a paper says what the paper prints: each literal line of the template
appears in the paper's text (whitespace, line-break hyphenation and quote styles normalised)."""
import re
from pathlib import Path

import pytest

from infer.templates import strip_comments

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
PAPER = {"think360": "000", "omibench": "001", "mira": "002", "c2rbench": "003", "morphobench": "004"}
OURS = {"c2rbench/zero_shot.txt", "morphobench/with_hints.txt", "omibench/icl_demo.txt",
        "judges/c2rbench_judge.txt", "judges/think360_extract.txt", "judges/think360_judge.txt",
        "judges/morphobench_correctness.txt", "judges/think360_error.txt",
        "judges/omibench_gptscore_careful.txt", "judges/mira_judge_careful.txt",  # hardened variants of quoted ones
        *(f"morphobench/adapt_{n}.txt" for n in ("graph", "hints", "misleading", "cues", "perturb"))}
DELIMITERS = re.compile(r"<<<[A-Z_]+(?: \{\{boundary\}\})?>>>")  # ours, with the tag judge/injection.py fills in
OURS_BELOW = "{{! the rest is ours }}"

# Inline formulas the PDF prints as symbols, which its text gives as LaTeX: `( $1\Omega$ )` is `(1Ω)`.
LATEX = {"\\Omega": "Ω", "\\mu": "μ", "µ": "μ", "\\text": "", "$": "", "{": "", "}": ""}


def normalise(text: str) -> str:
    # hyphens go entirely: the extraction cannot tell "Cross-\ncheck" (a real hyphen) from "ex-\ntreme"
    text = re.sub(r"-\s*\n\s*", "", text).replace("-", "")
    for latex, printed in LATEX.items():
        text = text.replace(latex, printed)
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))
    text = text.translate(str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "`": '"'}))
    text = text.replace("\\_", "_").replace("**", "")
    text = re.sub(r"\s+([,.;:])", r"\1", text)                   # "0° , 90°" as extracted
    return re.sub(r"\s+", " ", text).strip().lower()


def found(piece: str, paper: str) -> bool:
    """In the paper, possibly cut in two or more places by a table or a page break the PDF text put there."""
    if normalise(piece) in paper:
        return True
    words = piece.split()
    if len(words) < 8:
        return False
    half = len(words) // 2
    return found(" ".join(words[:half]), paper) and found(" ".join(words[half:]), paper)


def seed_text(bench: str) -> str:
    (path,) = SEEDS.glob(f"{PAPER[bench]}_*.txt")
    return normalise(path.read_text(encoding="utf-8"))


def quoted_templates():
    root = Path("prompts")
    for path in sorted(root.rglob("*.txt")):
        rel = path.relative_to(root).as_posix()
        bench = "omibench" if rel.startswith("judges/omibench_") else "mira" if rel == "judges/mira_judge.txt" \
            else "c2rbench" if rel == "judges/c2rbench_error.txt" \
            else "think360" if rel.startswith("judges/think360_tot_") else rel.split("/")[0]
        if rel not in OURS and bench in PAPER:
            yield pytest.param(path, bench, id=rel)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the papers' texts are not beside the project")
@pytest.mark.parametrize("path, bench", list(quoted_templates()))
def test_template_text_is_the_papers(path, bench):
    paper = seed_text(bench)
    quoted = path.read_text(encoding="utf-8").split(OURS_BELOW)[0]  # a template may end with blocks of ours
    text = re.sub(r"\{\{[#/]?\w+\}\}", "\n", DELIMITERS.sub("\n", strip_comments(quoted)))
    missing = []
    for line in text.splitlines():
        # sentence by sentence: the PDF text may interrupt a long prompt with a table or a page break
        for piece in re.split(r"(?<=[.?:])\s+(?=[-\dA-Z])", line):
            if len(normalise(piece)) >= 12 and not found(piece, paper):
                missing.append(piece.strip())
    assert not missing, f"{path}: not in the paper's text: {missing[:3]}"
