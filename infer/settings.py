"""A setting names one experimental condition: `<prompt>[+modifier]...`, e.g. `cot_boxed+caption+nothink`.

The name is also the raw file's name, so every condition of a table gets its own file:

| modifier | meaning |
| --- | --- |
| `image` (default) | images where the question places them |
| `caption` | every image replaced by its caption (Think360 CQ) |
| `text` | images dropped: question only (OMIBench no-image) |
| `icq` | each image followed by its caption (Think360 ICQ) |
| `io` | image only: the question text drawn onto the image (Think360 IO) |
| `first` | the first image only (OMIBench E.3) |
| `composite` | all images concatenated into one, in order (OMIBench Appendix L) |
| `think` / `nothink` | the model config's thinking switch, on or off |
| `max<N>` | max tokens N (sequential scaling, OMIBench H.1) |
| `temp<X>` | temperature X (parallel scaling at T = 0.6, OMIBench H.3) |
| `shots<K>` | K in-context demonstrations (OMIBench H.4; default 3 with an ICL prompt) |
| `demos-none` / `demos-first` / `demos-all` | demonstrations without images, with their first image, with all images |
| `items-<name>` | another set of items of the benchmark (MorphoBench's generated or adapted splits): the same requests, a raw file of its own, since a raw file answers one data file |
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

INPUT_MODES = ("image", "caption", "text", "icq", "io", "first", "composite")


class SettingError(ValueError):
    pass


@dataclass(frozen=True)
class Setting:
    name: str
    template: str
    mode: str = "image"
    thinking: str | None = None        # "on" / "off" / None (the model's default)
    overrides: dict[str, Any] = field(default_factory=dict)  # generation parameters
    shots: int | None = None
    demo_images: str | None = None
    items: str | None = None           # `items-<name>`: another item set (generated, adapted), its own raw file

    @property
    def sends_images(self) -> bool:
        return self.mode not in ("caption", "text")


def parse_setting(name: str) -> Setting:
    template, *mods = name.split("+")
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", template):
        raise SettingError(f"setting {name!r}: bad prompt name {template!r}")
    mode, thinking, overrides, shots, demo_images, items = "image", None, {}, None, None, None
    for mod in mods:
        if mod in INPUT_MODES:
            mode = mod
        elif mod in ("think", "nothink"):
            thinking = "on" if mod == "think" else "off"
        elif m := re.fullmatch(r"max(\d+)", mod):
            overrides["max_tokens"] = int(m.group(1))
        elif m := re.fullmatch(r"temp(\d+(?:\.\d+)?)", mod):
            overrides["temperature"] = float(m.group(1))
        elif m := re.fullmatch(r"shots(\d+)", mod):
            shots = int(m.group(1))
        elif m := re.fullmatch(r"demos-(none|first|all)", mod):
            demo_images = m.group(1)
        elif m := re.fullmatch(r"items-([a-z0-9_]+)", mod):
            items = m.group(1)  # changes no request: a run of other items keeps a raw file of its own
        else:
            raise SettingError(
                f"setting {name!r}: unknown modifier {mod!r} (known: {', '.join(INPUT_MODES)}, think, nothink, "
                "max<N>, temp<X>, shots<K>, demos-none, demos-first, demos-all, items-<name>)")
    return Setting(name, template, mode, thinking, overrides, shots, demo_images, items)


FLAG_MODIFIERS = {"max_tokens": "max", "temperature": "temp"}  # a generation flag and the modifier that names it


def merged_overrides(spec: Setting, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """The setting's own generation parameters with `overrides` (None: not given) added; a value the setting
    names is never replaced: a different one is an error naming both, so a raw file's name describes what was
    sent."""
    out = dict(spec.overrides)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key in out and out[key] != value:
            raise SettingError(f"setting {spec.name!r} sends {key} {out[key]:g}, which conflicts with {key} "
                               f"{value:g} given beside it: drop one (the setting's name says what was sent)")
        out[key] = value
    return out


def with_flags(name: str, max_tokens: int | None = None, temperature: float | None = None) -> str:
    """The setting `name` with the command line's --max-tokens / --temperature written into it (`+max48`,
    `+temp0.6`), so its raw file is named for what is sent; a flag that repeats the setting's own value adds
    nothing, one that conflicts with it is an error naming both."""
    spec = parse_setting(name)
    flags = {k: v for k, v in (("max_tokens", max_tokens), ("temperature", temperature)) if v is not None}
    merged_overrides(spec, flags)  # the conflict, if any, raised here
    added = [f"{FLAG_MODIFIERS[k]}{v:g}" for k, v in flags.items() if k not in spec.overrides]
    return "+".join([name, *added])
