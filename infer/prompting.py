"""The prompt of every record under one setting: its template(s), input mode and demonstrations."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from infer.icl import DEFAULT_SHOTS, demo_pool, demo_template_path, demos_block, pick_demos
from infer.render import Extra, render_spec
from infer.settings import Setting
from infer.templates import PROMPTS, Template, TemplateError, load_template, prompt_dir


def task_slug(task: str) -> str:
    """'Rolling Dice: Top' → rolling_dice_top, the file name of a task-specific prompt."""
    return re.sub(r"[^a-z0-9]+", "_", task.lower()).strip("_")


class Prompter:
    """Builds each record's messages. A prompt that is a folder (MIRA's task-specific T_spec) holds one
    template per task, `<folder>/<task_slug>.txt`; a prompt with `{{demos}}` is in-context learning."""

    def __init__(self, bench: str, setting: Setting, records: Sequence[dict[str, Any]] = (), prompts: Path = PROMPTS,
                 derived: Path | None = None):
        self.setting = setting
        self.derived = derived  # where derived images (IO, composite) are written: the run's results/derived
        folder = prompt_dir(bench, prompts) / setting.template
        if folder.is_dir():
            self.templates = {p.stem: load_template(bench, f"{setting.template}/{p.stem}", prompts)
                              for p in sorted(folder.glob("*.txt"))}
            if not self.templates:
                raise TemplateError(f"{folder}: no task templates")
            self.template = None
        else:
            self.template = load_template(bench, setting.template, prompts)
            self.templates = {}
        self.pool: list[dict[str, Any]] = []
        self.demo_template: Template | None = None
        if self.template is not None and "demos" in self.template.fields:
            path = demo_template_path(self.template)
            if not path.is_file():
                raise TemplateError(f"{self.template.path}: uses {{{{demos}}}} but {path} is missing")
            if setting.mode in ("composite", "io"):
                raise TemplateError(f"setting {setting.name!r}: demonstrations cannot be combined with {setting.mode!r}")
            self.demo_template = Template(path, path.read_text(encoding="utf-8"))
            self.draw_demos(records)
        elif setting.shots is not None or setting.demo_images is not None:
            raise TemplateError(f"setting {setting.name!r}: shots/demos need a prompt with {{{{demos}}}}")

    def draw_demos(self, records: Sequence[dict[str, Any]]) -> None:
        """Set the demonstrations aside (a prompt with {{demos}}): they are drawn from every record of the
        benchmark, so `records` must be all of them."""
        if self.demo_template is not None:
            self.pool = demo_pool(list(records))

    @property
    def excluded_ids(self) -> set[str]:
        """Items set aside as demonstrations: neither run nor scored."""
        return {r["id"] for r in self.pool}

    def template_for(self, rec: dict[str, Any]) -> Template:
        if self.template is not None:
            return self.template
        slug = task_slug(rec.get("task") or "")
        if slug not in self.templates:
            raise TemplateError(f"no task-specific prompt {self.setting.template}/{slug}.txt for task {rec.get('task')!r}")
        return self.templates[slug]

    def shas(self) -> dict[str, str]:
        found = [self.template] if self.template else list(self.templates.values())
        if self.demo_template:
            found.append(self.demo_template)
        return {str(t.path): t.sha for t in found}

    def messages(self, rec: dict[str, Any], base: Path) -> list[dict[str, Any]]:
        """The record's messages; derived images (IO, composite) go under `self.derived`."""
        derived = self.derived
        template = self.template_for(rec)
        if self.demo_template is None:
            return render_spec(rec, template, base, self.setting.mode, derived=derived)
        demos = pick_demos(rec["id"], self.pool, self.setting.shots or DEFAULT_SHOTS)
        first = len(rec["images"]) + len(rec.get("cot_images") or [])
        text, images, captions = demos_block(demos, self.demo_template, first, self.setting.demo_images or "all")
        return render_spec(rec, template, base, self.setting.mode, extra=Extra({"demos": text}, images, captions),
                           derived=derived)


class LaterMessages:
    """A record's messages, rendered when called: a request keeps one to render its prompt again when it is
    sent. Slotted, a quarter of the size of a closure: a large run holds one per request."""

    __slots__ = ("prompter", "rec", "base")

    def __init__(self, prompter: Prompter, rec: dict[str, Any], base: Path):
        self.prompter, self.rec, self.base = prompter, rec, base

    def __call__(self) -> list[dict[str, Any]]:
        return self.prompter.messages(self.rec, self.base)
