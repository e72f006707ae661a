"""Images in place for a server that reads one text part per message (a model config's `image_placeholder`).

LMDeploy's InternVL message processing (lmdeploy/vl/model/internvl.py, `proc_messages`, in the pinned 0.10.2)
keeps only the FIRST text part of a message and puts every image in front of it, unless that text holds
`<IMAGE_TOKEN>` placeholders, which it takes as the images' positions. A prompt whose text goes on after an
image (text between two images, options or a template's instructions after one) would reach the model cut
short. With `image_placeholder` set, a message that has text anywhere but after all its images is sent as
one text part, each image's place holding the placeholder, followed by the image parts in the same order.
A message already read whole (text only, or images first and one text after them) is left as it is.

The placeholder travels with the generation parameters, as the system prompt's hash does: the request key
hashes the messages as placed (infer.request.request_key), so what the model sees is what is keyed, on every
path that keys requests from a config's parameters, and a request the placement leaves as it was keeps its key.
"""
from __future__ import annotations

from typing import Any

from infer.render import RenderError

PARAM = "image_placeholder"  # the generation parameter that carries it (never sent as a request field)


def _reads_whole(content: list[dict[str, Any]]) -> bool:
    """Whether the server reads this content as the record has it: images first, then at most one text."""
    kinds = [p["type"] for p in content]
    texts = kinds.count("text")
    return texts == 0 or (texts == 1 and kinds[-1] == "text")


def place_images(messages: list[dict[str, Any]], placeholder: str | None) -> list[dict[str, Any]]:
    """The messages with each interleaved one as a single text part (the placeholder where each image stood)
    followed by its images in order; unchanged without a placeholder."""
    if not placeholder:
        return messages
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            if any(p["type"] == "text" and placeholder in p["text"] for p in content):
                # the server would take it for an image and find one image too many
                raise RenderError(f"the prompt's text holds the image placeholder {placeholder!r}")
            if not _reads_whole(content):
                text = "".join(p["text"] if p["type"] == "text" else placeholder for p in content)
                m = {**m, "content": [{"type": "text", "text": text}, *(p for p in content if p["type"] != "text")]}
        out.append(m)
    return out


def without_placeholder(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k != PARAM}
