"""A model's own system prompt: `system_prompt: <name>` in its config names `prompts/models/<name>.txt`, sent
as the first message (role `system`) of every request of that model, before the setting's messages.

Some models switch a mode with a system prompt rather than a request field (InternVL3.5's thinking mode).
What the model sees is what its request key hashes: the prompt's hash travels with the generation
parameters (`system_prompt_sha`), so the key, the raw line and the resume digests all carry it, on every
path that keys requests from a config's parameters (benchmark runs, judge calls, adaptations). It is never
sent as a request field; the message is added where a request is sent (infer.request.sent_messages).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infer.templates import PROMPTS, Template, TemplateError

FOLDER = "models"             # prompts/models/<name>.txt
SHA_PARAM = "system_prompt_sha"  # the generation parameter that carries the prompt's hash
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class SystemPrompt:
    path: Path
    text: str  # as sent: the template without its comments and surrounding blank space

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def message(self) -> dict[str, Any]:
        # Plain-text content: LMDeploy's InternVL message processing keeps a string content under its own
        # role, while a list of parts becomes a user turn (lmdeploy/vl/model/internvl.py, proc_messages).
        return {"role": "system", "content": self.text}


def load_system_prompt(name: Any, prompts: Path = PROMPTS) -> SystemPrompt:
    """The template `prompts/models/<name>.txt`; a bad name, a missing file, placeholders or an empty text
    are errors naming the file."""
    folder = prompts / FOLDER
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise TemplateError(f"expected the name of a template in {folder}/, got {name!r}")
    path = folder / f"{name}.txt"
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []
        raise TemplateError(f"no template {path} (known: {', '.join(known) or 'none'})")
    template = Template(path, path.read_text(encoding="utf-8"))
    if template.fields:
        raise TemplateError(f"{path}: a system prompt is sent as written; it has placeholders {sorted(template.fields)}")
    text = template.text.strip()
    if not text:
        raise TemplateError(f"{path}: empty system prompt")
    return SystemPrompt(path, text)


def without_sha(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters sent as request fields: all but the system prompt's hash."""
    return {k: v for k, v in params.items() if k != SHA_PARAM}
