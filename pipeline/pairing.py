"""Which runs of a paper-profile sweep cannot be made, found while the sweep plans, before anything is sent.

A pairing of an experiment's model and setting cannot be made when the model's config cannot be read (or the
experiment's overrides do not apply to it), or when the model refuses the setting: a text-only model
(modalities: [text]) is refused a setting that sends images (infer/run.py refuses it at the first record with
an image, after the run has begun), and a thinking switch its config does not give is an error of its
generation parameters. Such a run is one model's problem: the sweep says it in one line, makes every other run,
and ends saying which runs it could not make (`Unmade`), so the report is still rebuilt from the others.
"""
from __future__ import annotations

from infer.config import ConfigError, ModelConfig
from infer.settings import SettingError, parse_setting


def refusal(cfg: ModelConfig, setting: str) -> str:
    """Why `cfg` cannot run `setting` ('' if it can); nothing is read or sent."""
    try:
        spec = parse_setting(setting)
        if spec.sends_images and not cfg.accepts_images:
            return (f"{cfg.name} reads text only (modalities: {cfg.modalities}) and the setting {setting!r} sends "
                    "images: give it the paper's text setting, or list it under left_out with the reason")
        cfg.generation_params(spec.thinking, **spec.overrides)
    except (ConfigError, SettingError) as e:
        return str(e).splitlines()[0]
    return ""


class Unmade:
    """The runs a sweep could not make: each cause said once when first met (a broken config, or a model that does
    not answer, would otherwise be said for every run of its model), every run listed at the end."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, str]] = []  # (run, why in a few words)
        self._said: set[str] = set()

    def add(self, what: str, reason: str, cause: str | None = None) -> str:
        """Record run `what`, not made for `reason`; return the line to print now, '' when its `cause` (a short
        name of the reason, shared by the runs it stops) was said before."""
        self.runs.append((what, (cause or reason).splitlines()[0]))
        key = cause or f"{what}: {reason}"
        if key in self._said:
            return ""
        self._said.add(key)
        return f"error: {what}: {reason}"

    def lines(self) -> list[str]:
        return [f"{what}: {why}" for what, why in self.runs]

    def closing(self, made: int) -> str:
        """The sweep's last line, naming the runs not made ('' if every run was)."""
        if not self.runs:
            return ""
        names = [what for what, _ in self.runs]
        named = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        others = f"the other {made} run(s) were made" if made else "no other run was made"
        return f"error: {len(names)} run(s) could not be made ({named}: why above); {others}"
