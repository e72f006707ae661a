"""Unified multi-image records -> a LLaMA-Factory **sharegpt** dataset for supervised fine-tuning.

    python -m pipeline.export_sft --data FILE.jsonl [--data FILE2.jsonl ...] --out DIR \\
        [--name my_dataset] [--target solution|answer] [--exclude-ids IDS] [--skip-missing] \\
        [--prompt BENCH/SETTING]

Why: OMIBench §6.4 / Appendix M (Table 9) fine-tunes InternVL3.5-8B and Qwen3-VL-8B-Instruct on
existing multi-image SFT sets (CMMCoT, MMDU) and evaluates on OMIBench. The paper names neither the
training engine nor its hyper-parameters, so this module does not train: it writes benchmark-style
records in the format an existing engine (LLaMA-Factory) reads, so a user can build their own
multi-image SFT set from unified records and train with it.

Output, following the dataset README of LLaMA-Factory's own repository ("Multimodal Image Dataset",
"OpenAI Format") and the ``mllm_demo`` entry of its ``dataset_info.json``:

- ``DIR/<name>.json``: a JSON array of ``{"messages": [{"role": "user", "content": ...},
  {"role": "assistant", "content": ...}], "images": [...]}``. LLaMA-Factory pairs the i-th entry of
  ``images`` with the i-th ``<image>`` token of the conversation (it counts every message, and
  refuses an example whose count differs), so every image position of the prompt becomes one
  ``<image>`` token and one ``images`` entry, in order: a tag used twice gives two entries.
- ``DIR/dataset_info.json``: the entry ``{"<name>": {"file_name": "<name>.json", "formatting":
  "sharegpt", "columns": {"messages": "messages", "images": "images"}, "tags": {"role_tag": "role",
  "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"}}}``. An existing
  ``dataset_info.json`` in DIR is kept: only the entry ``<name>`` is added or replaced.

Format decisions:

- **User turn = the evaluation prompt.** The record is rendered by the harness's own renderer
  (``infer.render.render_spec``) through ``prompts/<BENCH>/<SETTING>.txt`` (default
  ``omibench/cot_boxed``, OMIBench's CoT prompt), so training text equals evaluation text: images
  stand where their ``[IMAGEn]`` tag stands (question or lettered option "A. ..."), untagged images
  where the template says ``{{images}}`` (before the question, so they come first, in index order),
  choices lettered one per line; every image is then replaced by ``<image>``. For OMIBench records
  this is the template filled with ``question``, ``choices`` and empty ``images``/``hints``/
  ``files``/``caption``/``cot_images`` plus the untagged images before the question; for other
  benchmarks' templates their hints and attached files are filled in as at evaluation time.
- **Assistant turn.** ``--target solution`` (default): the record's ``solution``, then a last line
  ``The final answer is \\boxed{<answer>}`` unless the solution already ends with a ``\\boxed{...}``
  (only whitespace, full stops, ``$``, ``}``, ``\\]``, ``\\)`` or ``*`` after it). ``--target answer``:
  ``\\boxed{<answer>}`` only. MCQ golds are joined as sorted letters (``["C", "D"]`` -> ``CD``,
  the same letters the rule judge compares), other multi-part golds with ``", "``. The solution text
  is kept verbatim, including any ``[IMAGEn]`` it mentions (counted in the report); targets that the
  rule judge (``judge.rules.score``) would not score as correct are counted in the report too.
  A record without a (non-blank) ``solution`` is an error, or is skipped with ``--skip-missing``.
- **Image paths are relative to DIR** (``os.path.relpath`` from the resolved DIR; absolute only if
  no relative path exists, e.g. another drive). LLaMA-Factory joins a local dataset's image paths
  to ``media_dir``, which defaults to ``dataset_dir``: train with ``dataset_dir: DIR`` (and leave
  ``media_dir`` unset or equal to DIR). Moving DIR without its images breaks the paths.
- ``--exclude-ids`` takes a text file (one id per line, blank lines ignored) or a unified ``.jsonl``
  (its records' ids), e.g. the benchmark's test set, so no test item leaks into training.

Everything is checked before anything is written: record schema (``data.records.check_record``),
every image opens (``data.validate.image_problem``), every example has exactly one user and one
assistant message, as many ``<image>`` tokens as images (a literal ``<image>`` in a question is
caught here), no ``<video>``/``<audio>`` token, and every image path resolves from DIR. Any problem
prints ``file:line: field: problem``, exits 1 and writes nothing. Files are written atomically.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from data.dataset import missing_data
from data.jsonl import DataError, iter_jsonl, problem, write_json_atomic
from data.records import IMAGE_TAG, check_record
from data.validate import image_problem
from infer.render import RenderError, render_spec
from infer.templates import Template, TemplateError, load_template
from judge.mcq import gold_letters, is_mcq
from judge.rules import score

IMAGE_TOKEN = "<image>"
# LLaMA-Factory also counts these placeholders; a dataset without videos/audios must not contain them.
OTHER_MEDIA_TOKENS = ("<video>", "<audio>")
DEFAULT_PROMPT = "omibench/cot_boxed"
TARGETS = ("solution", "answer")
FINAL_LINE = "The final answer is "  # followed by \\boxed{<answer>}
# What may follow a closing \boxed{...} for a solution to "end with a boxed answer".
TRAILER = re.compile(r"(?:[\s.。$*}]|\\\]|\\\))*")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def dataset_info_entry(name: str) -> dict[str, Any]:
    """The dataset_info.json entry of a sharegpt dataset with images, as LLaMA-Factory documents it."""
    return {
        "file_name": f"{name}.json",
        "formatting": "sharegpt",
        "columns": {"messages": "messages", "images": "images"},
        "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"},
    }


def gold_text(rec: dict[str, Any]) -> str:
    """The gold answer as one string: MCQ letters joined ("CD"), other parts joined with ", "."""
    if is_mcq(rec):
        return "".join(gold_letters(rec["answer"]))
    return ", ".join(a.strip() for a in rec["answer"] if a.strip())


def ends_with_boxed(text: str) -> bool:
    """Whether the text ends with a `\\boxed{...}` (nested braces), up to space and closing math."""
    starts = [m.end() for m in re.finditer(r"\\boxed\s*\{", text)]
    if not starts:
        return False
    depth, i = 1, starts[-1]
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return depth == 0 and TRAILER.fullmatch(text[i:]) is not None


def assistant_text(rec: dict[str, Any], target: str) -> str | None:
    """The training target; None when `target` is "solution" and the record has no solution."""
    boxed = f"\\boxed{{{gold_text(rec)}}}"
    if target == "answer":
        return boxed
    solution = rec.get("solution")
    if not isinstance(solution, str) or not solution.strip():
        return None
    solution = solution.rstrip()
    return solution if ends_with_boxed(solution) else f"{solution}\n{FINAL_LINE}{boxed}"


def user_turn(rec: dict[str, Any], template: Template, base: Path, out_dir: Path) -> tuple[str, list[str]]:
    """The rendered prompt with one `<image>` per image position, and the image paths relative to `out_dir`.

    `out_dir` must be resolved. Raises RenderError for a record the renderer cannot use.
    """
    content = render_spec(rec, template, base)[0]["content"]
    if isinstance(content, str):
        return content, []
    text, images = [], []
    for part in content:
        if part["type"] == "image_ref":
            text.append(IMAGE_TOKEN)
            images.append(relative_to(Path(part["path"]), out_dir))
        else:
            text.append(part["text"])
    return "".join(text), images


def relative_to(path: Path, out_dir: Path) -> str:
    try:
        return os.path.relpath(path, out_dir)
    except ValueError:  # no relative path (Windows: another drive)
        return str(path)


def example_problems(example: dict[str, Any], out_dir: Path) -> list[tuple[str, str]]:
    """What LLaMA-Factory would reject or mis-pair in one example, as (field, problem).

    `out_dir` must be resolved (see `build`).
    """
    probs: list[tuple[str, str]] = []
    messages, images = example["messages"], example["images"]
    roles = [m["role"] for m in messages]
    if roles != ["user", "assistant"]:
        probs.append(("messages", f"roles {roles}, expected ['user', 'assistant']"))
    n_tokens = sum(m["content"].count(IMAGE_TOKEN) for m in messages)
    if n_tokens != len(images):
        probs.append(("messages", f"{n_tokens} {IMAGE_TOKEN} token(s) for {len(images)} image(s) "
                                  f"(does the record's text itself contain '{IMAGE_TOKEN}'?)"))
    for token in OTHER_MEDIA_TOKENS:
        if any(token in m["content"] for m in messages):
            probs.append(("messages", f"the text contains '{token}', which LLaMA-Factory reads as a media token"))
    for i, p in enumerate(images):
        # Lexical join: DIR may not exist yet, and it is resolved, so ".." cannot cross a symlink.
        if not os.path.isfile(os.path.normpath(os.path.join(out_dir, p))):
            probs.append((f"images[{i}]", f"{p} does not resolve from {out_dir}"))
    return probs


def read_exclude_ids(path: Path) -> set[str]:
    """Ids to leave out: a unified .jsonl (its records' ids) or a text file with one id per line."""
    if path.suffix == ".jsonl":
        ids, problems = set(), []
        for lineno, obj in iter_jsonl(path, errors=problems):
            if isinstance(obj.get("id"), str):
                ids.add(obj["id"])
            else:
                problems.append(problem(path, lineno, "id", "missing or not a string"))
        if problems:
            raise DataError(problems)
        return ids
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


@dataclass
class Export:
    """The examples built from the inputs, and what was left out or found wrong."""

    examples: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    read: int = 0
    excluded: int = 0
    skipped_missing: list[str] = field(default_factory=list)  # file:line of each skipped record
    image_tags_in_targets: int = 0
    not_judged_correct: list[str] = field(default_factory=list)  # targets the rule judge scores wrong
    exclude_ids_unmatched: int = 0


def _add_example(result: Export, rec: dict[str, Any], path: Path, lineno: int, template: Template, target: str,
                 out_dir: Path, skip_missing: bool) -> None:
    """One record's example, checked, added to `result`; or its problems, or its place among those skipped."""
    where, base = f"{path}:{lineno}", path.parent
    probs = check_record(rec)
    if probs:
        result.problems += [problem(path, lineno, f, m) for f, m in probs]
        return
    answer = assistant_text(rec, target)
    if answer is None:
        if skip_missing:
            result.skipped_missing.append(where)
        else:
            result.problems.append(problem(path, lineno, "solution", "missing or empty (needed by --target solution; "
                                                                     "use --skip-missing to leave such records out)"))
        return
    bad = [problem(path, lineno, f"{fld}[{i}]", why) for fld in ("images", "cot_images")
           for i, rel in enumerate(rec.get(fld) or []) if (why := image_problem((base / rel).resolve()))]
    if bad:
        result.problems += bad
        return
    try:
        content, images = user_turn(rec, template, base, out_dir)
    except RenderError as e:
        result.problems.append(problem(path, lineno, "-", str(e)))
        return
    example = {"messages": [{"role": "user", "content": content}, {"role": "assistant", "content": answer}],
               "images": images}
    probs = example_problems(example, out_dir)
    if probs:
        result.problems += [problem(path, lineno, f, m) for f, m in probs]
        return
    if target == "solution" and IMAGE_TAG.search(answer):
        result.image_tags_in_targets += 1
    if not score(rec, answer)["correct"]:
        result.not_judged_correct.append(where)
    result.examples.append(example)


def build(data_files: Sequence[Path], out_dir: Path, template: Template, target: str = "solution",
          exclude: set[str] | None = None, skip_missing: bool = False) -> Export:
    """Build (and check) every example; nothing is written. `out_dir` need not exist yet."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")
    exclude = exclude or set()
    out_dir = out_dir.resolve()
    result = Export()
    matched: set[str] = set()
    for path in data_files:
        path = Path(path)
        if not path.is_file():
            result.problems.append(missing_data(path))
            continue
        for lineno, rec in iter_jsonl(path, errors=result.problems):
            result.read += 1
            if isinstance(rec.get("id"), str) and rec["id"] in exclude:  # before any check: never used
                result.excluded += 1
                matched.add(rec["id"])
                continue
            _add_example(result, rec, path, lineno, template, target, out_dir, skip_missing)
    result.exclude_ids_unmatched = len(exclude - matched)
    if not result.examples and not result.problems:
        result.problems.append(problem(", ".join(map(str, data_files)), None, "-", "no examples to write"))
    return result


def merged_dataset_info(path: Path, name: str) -> tuple[dict[str, Any], bool]:
    """dataset_info.json with the entry `name` added or replaced; whether an entry was replaced."""
    info: dict[str, Any] = {}
    if path.exists():
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise DataError([problem(path, None, "-", f"existing file is not readable JSON ({e}); not overwriting")])
        if not isinstance(info, dict):
            raise DataError([problem(path, None, "-", "existing file is not a JSON object; not overwriting")])
    replaced = name in info
    info[name] = dataset_info_entry(name)
    return info, replaced


def load_prompt(spec: str) -> Template:
    bench, sep, setting = spec.partition("/")
    if not sep or not bench or not setting or "/" in setting:
        raise TemplateError(f"--prompt {spec!r}: expected BENCH/SETTING, e.g. {DEFAULT_PROMPT}")
    if "+" in setting:
        raise TemplateError(f"--prompt {spec!r}: only image input is exported (no '+caption'/'+text' modes)")
    return load_template(bench, setting)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline.export_sft", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True, help="unified JSONL (repeatable)")
    ap.add_argument("--out", type=Path, required=True, help="output folder: <name>.json + dataset_info.json")
    ap.add_argument("--name", default="my_dataset", help="dataset name in dataset_info.json (default: my_dataset)")
    ap.add_argument("--target", choices=TARGETS, default="solution",
                    help="assistant turn: solution + final boxed answer (default), or the boxed answer only")
    ap.add_argument("--exclude-ids", type=Path, help="ids to leave out: text file (one per line) or unified .jsonl")
    ap.add_argument("--skip-missing", action="store_true",
                    help="with --target solution, skip records without a solution instead of failing")
    ap.add_argument("--prompt", default=DEFAULT_PROMPT, help=f"user-turn template BENCH/SETTING (default: {DEFAULT_PROMPT})")
    args = ap.parse_args(argv)

    if not NAME.fullmatch(args.name) or args.name == "dataset_info":
        print(f"error: --name {args.name!r}: use letters, digits, '_', '-', '.' (it names {args.name}.json)",
              file=sys.stderr)
        return 1
    info: dict[str, Any] = {}
    replaced = False
    try:
        template = load_prompt(args.prompt)
        exclude = read_exclude_ids(args.exclude_ids) if args.exclude_ids else set()
        info_path = args.out / "dataset_info.json"
        result = build(args.data, args.out, template, args.target, exclude, args.skip_missing)
        if not result.problems:
            info, replaced = merged_dataset_info(info_path, args.name)
    except (TemplateError, DataError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if result.problems:
        for p in result.problems:
            print(p, file=sys.stderr)
        print(f"{len(result.problems)} problem(s); nothing written", file=sys.stderr)
        return 1

    data_path = args.out / f"{args.name}.json"
    try:
        write_json_atomic(data_path, result.examples)
        write_json_atomic(info_path, info)
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    n_images = sum(len(ex["images"]) for ex in result.examples)
    print(f"wrote {len(result.examples)} example(s) with {n_images} image(s) to {data_path} "
          f"(prompt {args.prompt}, target {args.target}; {result.read} record(s) read)")
    if args.exclude_ids:
        print(f"excluded {result.excluded} record(s) listed in {args.exclude_ids} "
              f"({result.exclude_ids_unmatched} listed id(s) matched no record)")
    if result.skipped_missing:
        print(f"skipped {len(result.skipped_missing)} record(s) without a solution (--skip-missing), "
              f"first: {result.skipped_missing[0]}")
    if result.not_judged_correct:
        print(f"note: the rule judge does not score {len(result.not_judged_correct)} target(s) as correct "
              f"(e.g. a solution ending in a different boxed answer), first: {result.not_judged_correct[0]}")
    if result.image_tags_in_targets:
        print(f"note: {result.image_tags_in_targets} solution(s) mention [IMAGEn] tags, kept verbatim")
    print(f"{'replaced' if replaced else 'added'} entry {args.name!r} in {info_path}; train with "
          f"LLaMA-Factory `dataset_dir: {args.out}` and `dataset: {args.name}` (image paths are relative to it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
