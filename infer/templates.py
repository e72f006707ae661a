"""Prompt templates: `prompts/<benchmark>/<setting>.txt` with `{{name}}` and `{{#name}}…{{/name}}`.

`{{! … }}` is a comment for the reader (where a template comes from): never sent, never hashed.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from data.benchmarks import BENCHMARKS, get as benchmark_of

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"

# A section tag alone on its line takes its line break with it, so optional blocks leave no blank lines.
SECTION = re.compile(r"\{\{#(\w+)\}\}\n?(.*?)\{\{/\1\}\}\n?", re.S)
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
COMMENT = re.compile(r"\{\{!.*?\}\}\n?", re.S)


def strip_comments(text: str) -> str:
    return COMMENT.sub("", text)


class TemplateError(ValueError):
    pass


@dataclass(frozen=True)
class Template:
    path: Path
    text: str  # without its comments

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", strip_comments(self.text))

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    @property
    def fields(self) -> set[str]:
        return set(PLACEHOLDER.findall(self.text)) | {m.group(1) for m in SECTION.finditer(self.text)}

    def render(self, values: dict[str, str]) -> str:
        """Fill the template in a single pass: values are never scanned for placeholders themselves."""
        unknown = self.fields - values.keys()
        if unknown:
            raise TemplateError(f"{self.path}: unknown placeholder(s) {sorted(unknown)}; known: {sorted(values)}")
        text = SECTION.sub(lambda m: m.group(2) if values[m.group(1)] else "", self.text)
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def prompt_dir(name: str, root: Path = PROMPTS) -> Path:
    """The folder of a benchmark's prompts (its module may name its own, data/benchmarks/), or of `name`'s under
    `root` (prompts/judges/)."""
    return benchmark_of(name).prompt_folder(root) if name in BENCHMARKS else root / name


def load_template(benchmark: str, setting: str, root: Path = PROMPTS) -> Template:
    folder = prompt_dir(benchmark, root)
    path = folder / f"{setting}.txt"
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []
        raise TemplateError(f"no prompt {path} for setting {setting!r} of {benchmark} (known: {', '.join(known) or 'none'})")
    return Template(path, path.read_text(encoding="utf-8"))
