"""How the three OMIBench scoring rules differ, measured on the same answers. A script to run by hand, not a test.

    .venv/bin/python perf/omibench_rules.py                 # both answer sets, 2 examples per disagreement
    .venv/bin/python perf/omibench_rules.py --examples 5 --json rules.json

The rules:
- published: Appendix C.1 as the paper prints it (judge `omibench_c1`): the rule behind the paper's ACC.
- careful: the project's rule judge (`rules`).
- released: the evaluator of the authors' public repository (`omi_bench.py evaluate`), written again here from
  what it does: both texts normalised (NFKC, lower case, \\boxed{}, \\text{}, \\mathrm{} unwrapped, $ and other
  LaTeX commands dropped, every character but a-z 0-9 . + - / * = < > % made a space); an open answer is right
  when it equals one gold entry or contains one of at least three characters — any single entry of the gold
  list, which the release cuts at commas; multiple choice takes the letters A–J of the whole text when it has
  one to five of them, else the last \\boxed{letter}, else the last "answer/option/choice X", "(X)" or
  standalone letter (any case) of the last five lines, else the option whose text appears last; it is right
  when that string of letters is one gold entry, of the release's own gold list ("CD" is one entry: C and D,
  never C alone). Its README lets the prediction be the whole model output
  (`response`) or the final answer alone (its examples: "C", "\\boxed{…}"), so it is measured both ways:
  `released` on the whole response, `released-answer` on the last \\boxed{…} (else the last line).

The answers:
(a) the 1,322 golds of the real release (tests/data/omibench_release_golds.jsonl), each answered in the ways
    below, each with the verdict a careful reader gives: exact in \\boxed{}; reformatted (an "Answer:" line
    without the box, delimiters dropped, a number written with one more decimal zero); an option by its letter
    in words or by its text; "is" made "is not"; a word made its opposite; the last number stated off by one;
    the parts in another order (right where the two parts moved carry their labels: "(2) …, (1) …",
    "B - x, A - y"); another option, by letter or text; the gold named in the reasoning and rejected,
    another answer given.
(b) hand-written responses to answers of every shape (numbers and units, scientific notation, fractions,
    formulas, words, yes/no, sequences, several parts, option letters and texts).

Printed: for every answer kind, how many answers each rule accepts against the careful reader's verdict; then,
for every pair of rules, the answers one accepts and the other rejects, each way, with examples.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge import omibench_c1, rules  # noqa: E402
from judge.extract import boxed_all, clean, last_line  # noqa: E402
from judge.match import is_textual, parse_number  # noqa: E402
from judge.mcq import gold_letters, is_mcq  # noqa: E402

GOLDS = ROOT / "tests" / "data" / "omibench_release_golds.jsonl"
Record = dict[str, Any]
Case = tuple[str, Record, str, bool]  # (answer kind, record, response, a careful reader's verdict)


# --- the released evaluator's rule, written again -------------------------------------------------------------

_KEEP = re.compile(r"[^a-z0-9.+\-/*=<>%]+")


def released_normalize(text: object) -> str:
    s = unicodedata.normalize("NFKC", "" if text is None else str(text)).lower().strip()
    s = re.sub(r"\\boxed\s*\{([^{}]*)\}", r"\1", s)          # a box without nested braces is unwrapped
    s = s.replace("$", "").replace("\\pi", "pi")
    s = re.sub(r"\\(?:mathrm|text|operatorname)\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\[a-zA-Z]+", "", s)                        # every other command is dropped, its braces kept
    for dash in "−–—":
        s = s.replace(dash, "-")
    return " ".join(_KEEP.sub(" ", s).split())


def released_letters(prediction: str, choices: list[str]) -> str:
    text = prediction.strip()
    if not text:
        return ""
    found = [c.upper() for c in text if c in "ABCDEFGHIJabcdefghij"]
    if 0 < len(found) <= 5:                                 # a short answer: all its letters A–J, in order
        return "".join(dict.fromkeys(found))
    boxed = re.findall(r"\\boxed\s*\{\s*([A-Ja-j])\s*\}", text)
    if boxed:
        return boxed[-1].upper()
    tail = "\n".join(text.splitlines()[-5:])
    for pattern in (r"(?:final\s+answer|answer|option|choice)\s*(?:is|:)?\s*\(?\s*([A-Ja-j])\s*\)?",
                    r"\(([A-Ja-j])\)", r"\b([A-Ja-j])\b"):
        hits = re.findall(pattern, tail, flags=re.IGNORECASE)
        if hits:
            return hits[-1].upper()
    said = released_normalize(text)
    best, where = "", -1
    for i, choice in enumerate(choices[:10]):
        option = released_normalize(choice)
        if option and option in said and said.rfind(option) > where:
            best, where = "ABCDEFGHIJ"[i], said.rfind(option)
    return best


def release_golds(rec: Record) -> list[str]:
    """The gold list as the release writes it, which the released evaluator reads: our converter writes a
    multi-select gold "CD" as the letters ["C", "D"], and the release's own is kept beside it (`release_answer`,
    tests/data/README.md) where they differ."""
    return rec.get("release_answer", rec["answer"])


def released(rec: Record, prediction: str) -> bool:
    golds = release_golds(rec)
    if rec["answer_type"] == "mcq":  # each gold entry is one answer: "CD" is C and D together, never C alone
        got = released_letters(prediction, rec["choices"])
        return bool(got) and got in {"".join(dict.fromkeys(re.sub(r"[^A-Ja-j]", "", g).upper())) for g in golds}
    said = released_normalize(prediction)
    if not said:
        return False
    for gold in golds:
        g = released_normalize(gold)
        if g and (said == g or (len(g) >= 3 and g in said)):
            return True
    return False


def final_answer_only(response: str) -> str:
    """The prediction a user of the released evaluator might submit instead of the whole output: the content
    of the last box ("C", as its README's example), else the last line. (Given "\\boxed{C}" itself, its letter
    reading takes the letters of "boxed" too: "BEDC".)"""
    boxes = boxed_all(clean(response))
    return boxes[-1] if boxes else (last_line(clean(response)) or "")


def careful(rec: Record, response: str) -> bool | None:
    """The careful rule judge's verdict: None where it leaves the answer undecided (only a reader can tell)."""
    verdict = rules.score(rec, response)
    return None if verdict.get("status") == "undecided" else verdict["correct"] is True


RULES: dict[str, Callable[[Record, str], bool | None]] = {
    "published": lambda rec, r: bool(omibench_c1.score(rec, r)["correct"]),
    "careful": careful,
    "released": released,
    "released-answer": lambda rec, r: released(rec, final_answer_only(r)),
}


# --- (a) the release's golds, answered in several ways ----------------------------------------------------------

OPPOSITES = [("increase", "decrease"), ("higher", "lower"), ("more", "less"), ("larger", "smaller"),
             ("possible", "impossible"), ("exothermic", "endothermic"), ("clockwise", "counterclockwise"),
             ("positive", "negative"), ("left", "right"), ("true", "false"), ("yes", "no"), ("maximum", "minimum"),
             ("attract", "repel"), ("stable", "unstable"), ("soluble", "insoluble"), ("same", "different")]
NEGATABLE = re.compile(r"\b(is|are|can|does|do|will|was|were|has|have)\b", re.I)
UNRELATED = "It cannot be determined from the figures"   # an answer no rule should take for any gold
# an exponent, an index or an uncertainty is not the number an answer states
NOT_A_VALUE = re.compile(r"(?:[\^_]\{?|±\s*|\\pm\s*)$")


def plain(gold: str) -> str:
    """The gold as a person types it: math delimiters dropped."""
    return " ".join(gold.replace("$", "").split())


def boxed(answer: str) -> str:
    return f"We work through the figures step by step.\nSo the final answer is \\boxed{{{answer}}}"


def off_by_one(gold: str) -> str | None:
    """The last number the gold states (not an exponent, index or uncertainty), its last digits plus one."""
    values = [m for m in re.finditer(r"\d+", gold) if not NOT_A_VALUE.search(gold[:m.start()])]
    if not values:
        return None
    m = values[-1]
    return gold[:m.start()] + str(int(m.group()) + 1) + gold[m.end():]


def negated(gold: str) -> str | None:
    """"is" → "is not" (and are, can, does …) in a gold stated in words."""
    m = NEGATABLE.search(gold) if is_textual(gold) else None
    return gold[:m.end()] + " not" + gold[m.end():] if m else None


def opposite(gold: str) -> str | None:
    """The first word of OPPOSITES in the gold (not a LaTeX command such as \\left) swapped for its opposite."""
    for a, b in OPPOSITES:
        for x, y in ((a, b), (b, a)):
            m = re.search(rf"(?<![\\A-Za-z]){x}", gold, re.I)
            if m:
                return gold[:m.start()] + y + gold[m.start() + len(x):]
    return None



_PART_LABEL = re.compile(r"^\s*\$?\s*(?:\(\w{1,4}\)|\w{1,4}\)|[A-Za-z][^\s:=–-]{0,11}(?: [A-Za-z][^\s:=–-]{0,11}){0,2}\s*(?:[:=–]|\s-\s|-(?=\S)))")


def labelled(parts: list[str]) -> bool:
    """Whether each part opens with a label of its own ("(1) 90", "a) 6", "B - neutral", "$H_e$: 9.0")."""
    return all(_PART_LABEL.match(part) for part in parts)


def release_cases(records: list[Record]) -> list[Case]:
    cases: list[Case] = []
    for rec in records:
        if is_mcq(rec):
            cases += mcq_cases(rec)
            continue
        gold = ", ".join(rec["answer"])
        cases.append(("exact", rec, boxed(gold), True))
        value = parse_number(gold)
        if value is not None and re.match(r"\s*\$?\s*-?\d+(\.\d+)?\b", gold):
            number = re.search(r"-?\d+(\.\d+)?", gold).group()
            longer = number + ("0" if "." in number else ".0")
            cases.append(("reformatted", rec, "Reasoning.\nAnswer: " + plain(gold.replace(number, longer, 1)), True))
        else:
            cases.append(("reformatted", rec, f"Reasoning.\nAnswer: {plain(gold)}.", True))
        for kind, wrong in (("off by one", off_by_one(gold)), ("negated", negated(gold)),
                            ("opposite", opposite(gold))):
            if wrong is not None and wrong != gold:
                cases.append((kind, rec, boxed(wrong), False))
        if len(rec["answer"]) > 1 and rec["answer"][0] != rec["answer"][1]:
            swapped = [rec["answer"][1], rec["answer"][0], *rec["answer"][2:]]
            if labelled(rec["answer"][:2]):  # "(2) …, (1) …", "B - x, A - y": every part keeps its label
                cases.append(("labelled parts reordered", rec, boxed(", ".join(swapped)), True))
            else:
                cases.append(("parts reordered", rec, boxed(", ".join(swapped)), False))
        cases.append(("named, then another", rec, f"One might answer {plain(gold)} here, but that overlooks a "
                                                  f"step.\nSo the final answer is \\boxed{{{UNRELATED}}}", False))
    return cases


def mcq_cases(rec: Record) -> list[Case]:
    gold = gold_letters(rec["answer"])
    n = len(rec["choices"]) or 4
    valid = [chr(65 + i) for i in range(min(n, 10))]
    other = next(x for x in valid if x not in gold)
    cases = [("exact", rec, boxed(", ".join(gold)), True),
             ("reformatted", rec, f"Reasoning.\nThe correct option{'s are' if len(gold) > 1 else ' is'} "
                                  f"{' and '.join(f'({g})' for g in gold)}.", True),
             ("another option", rec, boxed(other), False),
             ("named, then another", rec, f"Option {gold[0]} looked right at first, but it fails on the second "
                                          f"figure.\nSo the final answer is \\boxed{{{other}}}", False)]
    if len(gold) == 1 and rec["choices"]:
        cases.append(("option text", rec, boxed(plain(rec["choices"][ord(gold[0]) - 65])), True))
        cases.append(("another option's text", rec, boxed(plain(rec["choices"][ord(other) - 65])), False))
    return cases


# --- (b) hand-written answers of every shape --------------------------------------------------------------------

def rec(answer: list[str], answer_type: str = "open", choices: tuple[str, ...] = ()) -> Record:
    return {"id": "hand", "benchmark": "omibench", "question": "", "images": [], "answer": answer,
            "answer_type": answer_type, "choices": list(choices)}


OPTIONS = ("The pressure increases", "The pressure decreases", "The pressure stays the same", "It cannot be told")
HAND: list[tuple[str, Record, str, bool]] = [
    # numbers
    ("number", rec(["12"]), "So \\boxed{12}", True),
    ("number", rec(["12"]), "So \\boxed{12.0}", True),
    ("number", rec(["12"]), "So \\boxed{13}", False),
    ("number", rec(["12"]), "The answer is 12 cm.", True),
    ("number", rec(["0.5"]), "So \\boxed{\\frac{1}{2}}", True),
    ("number", rec(["0.5"]), "So \\boxed{0.51}", False),
    ("number", rec(["10.5"]), "So \\boxed{0.5}", False),
    ("number", rec(["100"]), "Between 99 and 101 we take \\boxed{1000}", False),
    ("number with unit", rec(["$5\\ \\mathrm{m/s}$"]), "So \\boxed{5 m/s}", True),
    ("number with unit", rec(["$5\\ \\mathrm{m/s}$"]), "So \\boxed{5.00005\\,\\mathrm{m/s}}", True),
    ("number with unit", rec(["$5\\ \\mathrm{m/s}$"]), "So \\boxed{50 m/s}", False),
    ("scientific notation", rec(["$1.6\\times10^{-19}$"]), "So \\boxed{1.6e-19}", True),
    ("scientific notation", rec(["$1.6\\times10^{-19}$"]), "So \\boxed{1.7 \\times 10^{-19}}", False),
    ("scientific notation", rec(["$6.02\\times10^{23}$"]), "So \\boxed{6.02×10²³}", True),
    ("scientific notation", rec(["$6.02\\times10^{23}$"]), "So \\boxed{6.03 \\times 10^{23}}", False),
    # formulas
    ("formula", rec(["$\\frac{\\sqrt{3}}{2}$"]), "So \\boxed{\\frac{\\sqrt{3}}{2}}", True),
    ("formula", rec(["$\\frac{\\sqrt{3}}{2}$"]), "So \\boxed{\\frac{\\sqrt{2}}{2}}", False),
    ("formula", rec(["$3\\sqrt{3}$"]), "So \\boxed{3\\sqrt{2}}", False),
    ("formula", rec(["$500 \\sqrt{3}-500$"]), "So \\boxed{500(\\sqrt{3}-1)}", True),
    ("formula", rec(["$x^2+1$"]), "So \\boxed{1+x^2}", True),
    ("formula", rec(["$x^2+1$"]), "So \\boxed{x^2-1}", False),
    ("formula", rec(["$\\pi L / \\sqrt{3 g h}$"]), "So \\boxed{\\frac{\\pi L}{\\sqrt{3gh}}}", True),
    # words
    ("words", rec(["possible"]), "So \\boxed{impossible}", False),
    ("words", rec(["possible"]), "So \\boxed{Possible.}", True),
    ("words", rec(["The pressure increases"]), "So \\boxed{the pressure decreases}", False),
    ("words", rec(["exothermic"]), "So \\boxed{endothermic}", False),
    ("words", rec(["clockwise"]), "So \\boxed{counterclockwise}", False),
    ("words", rec(["colour change"]), "So \\boxed{Color change}", True),
    ("words", rec(["square planar"]), "So \\boxed{Square-planar}", True),
    ("words", rec(["ethane"]), "So \\boxed{ethene}", False),
    ("words", rec(["The polygon can be tiled"]), "So \\boxed{The polygon cannot be tiled}", False),
    ("yes / no", rec(["Yes"]), "So \\boxed{No}", False),
    ("yes / no", rec(["Yes"]), "Yes, because the sum is even.", True),
    ("yes / no", rec(["No"]), "So \\boxed{No, it cannot}", True),
    # sequences and several parts
    ("sequence", rec(["ABDC"]), "So \\boxed{ABCD}", False),
    ("sequence", rec(["3, 1, 2, 4"]), "So \\boxed{3, 1, 2, 4}", True),
    ("sequence", rec(["1, 2, 3, 4, 5, 6"]), "So \\boxed{1, 2, 3, 4, 6, 5}", False),
    ("several parts", rec(["24", "60"]), "So \\boxed{24} and \\boxed{60}", True),
    ("several parts", rec(["24", "60"]), "So \\boxed{60, 24}", False),
    ("several parts", rec(["24", "60"]), "So \\boxed{24}", False),
    ("several parts", rec(["(1) 90", "(2) 45"]), "(1) \\boxed{90} (2) \\boxed{45}", True),
    ("several parts", rec(["(1) 90", "(2) 45"]), "(1) \\boxed{90} (2) \\boxed{46}", False),
    ("assignment", rec(["red: A, blue: B, green: C"]), "So \\boxed{red: A, blue: C, green: B}", False),
    # multiple choice
    ("option letter", rec(["B"], "mcq", OPTIONS), "So \\boxed{B}", True),
    ("option letter", rec(["B"], "mcq", OPTIONS), "So \\boxed{(B)}", True),
    ("option letter", rec(["B"], "mcq", OPTIONS), "The answer is B.", True),
    ("option letter", rec(["B"], "mcq", OPTIONS), "So \\boxed{A}", False),
    ("option letter", rec(["B"], "mcq", OPTIONS), "A and C are both wrong here, as is D.\nSo \\boxed{A}", False),
    ("option text", rec(["B"], "mcq", OPTIONS), "So \\boxed{The pressure decreases}", True),
    ("option text", rec(["B"], "mcq", OPTIONS), "So \\boxed{The pressure increases}", False),
    ("several options", rec(["A", "C"], "mcq", OPTIONS), "So \\boxed{A, C}", True),
    ("several options", rec(["A", "C"], "mcq", OPTIONS), "So \\boxed{A}", False),
    ("several options", rec(["A", "C"], "mcq", OPTIONS), "So \\boxed{C, A}", True),
]


# --- measuring and printing ------------------------------------------------------------------------------------

def judge_all(cases: list[Case]) -> list[dict[str, Any]]:
    out = []
    for kind, record, response, intended in cases:
        out.append({"kind": kind, "gold": record["answer"], "response": response, "intended": intended,
                    **{name: rule(record, response) for name, rule in RULES.items()}})
    return out


def acceptance(rows: list[dict[str, Any]]) -> str:
    """Per answer kind: answers, the careful reader's verdict, and how many each rule accepts (wrong verdicts
    in brackets: a right answer rejected or a wrong one accepted; the answers a rule leaves undecided are
    neither, and are counted apart)."""
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    head = ["answer kind", "n", "reader says", *RULES]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for kind in kinds:
        sub = [r for r in rows if r["kind"] == kind]
        for intended in (True, False):
            part = [r for r in sub if r["intended"] is intended]
            if not part:
                continue
            cells = [kind, str(len(part)), "right" if intended else "wrong"]
            for name in RULES:
                accepted = sum(r[name] is True for r in part)
                wrong = sum(r[name] is (not intended) for r in part)
                undecided = sum(r[name] is None for r in part)
                cells.append(f"{accepted} ({100 * accepted / len(part):.1f} %; {wrong} wrong"
                             + (f"; {undecided} undecided)" if undecided else ")"))
            lines.append(" | ".join(cells))
    totals = ["all", str(len(rows)), "—"]
    for name in RULES:
        wrong = sum(r[name] is (not r["intended"]) for r in rows)
        undecided = sum(r[name] is None for r in rows)
        totals.append(f"{sum(r[name] is True for r in rows)} accepted; {wrong} wrong verdicts"
                      + (f"; {undecided} undecided" if undecided else ""))
    lines.append(" | ".join(totals))
    return "\n".join(lines)


def disagreements(rows: list[dict[str, Any]], examples: int) -> str:
    names = list(RULES)
    lines = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for x, y in ((a, b), (b, a)):
                hits = [r for r in rows if r[x] is True and r[y] is False]  # an undecided verdict is neither
                by_kind = Counter(r["kind"] for r in hits)
                lines.append(f"{x} accepts, {y} rejects: {len(hits)}"
                             + (f" ({', '.join(f'{k} {n}' for k, n in by_kind.most_common())})" if hits else ""))
                for r in hits[:examples]:
                    reply = r["response"].splitlines()[-1][:90]
                    lines.append(f"    [{r['kind']}; reader: {'right' if r['intended'] else 'wrong'}] gold "
                                 f"{json.dumps(r['gold'], ensure_ascii=False)[:70]}  answer: {reply}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=2, help="examples printed per disagreement")
    ap.add_argument("--json", type=Path, help="write every answer and its verdicts here")
    args = ap.parse_args(argv)
    records = [{**json.loads(line), "benchmark": "omibench", "question": "", "images": []}
               for line in GOLDS.read_text(encoding="utf-8").splitlines()]
    sets = {f"(a) the {len(records):,} golds of the real release, answered in several ways": judge_all(
                release_cases(records)),
            f"(b) {len(HAND)} hand-written answers of every shape": judge_all(HAND)}
    for title, rows in sets.items():
        print(f"\n## {title}: {len(rows):,} answers\n")
        print(acceptance(rows))
        print(f"\nDisagreements between the rules (of {len(rows):,} answers):")
        print(disagreements(rows, args.examples))
    if args.json:
        args.json.write_text(json.dumps(sets, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
