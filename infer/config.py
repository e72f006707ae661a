"""Model configs: `configs/models/<name>.yaml`, checked strictly so a typo is an error, not a default."""
from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shutil
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from data.files import read_yaml
from infer.cost_keys import ImageTokens, Price, Throughput, parse_image_tokens, parse_price, parse_throughput
from infer.image_placeholder import PARAM as PLACEHOLDER_PARAM
from infer.system_prompt import SHA_PARAM, SystemPrompt, load_system_prompt
from infer.templates import PROMPTS, TemplateError


class ConfigError(ValueError):
    pass


ENGINES = ("http", "vllm", "lmdeploy")
# Whether a model's reasoning reaches us, a property of the model and its endpoint, declared rather than guessed:
# `returned` (a reasoning field, or text between the config's markers), `hidden` (the model reasons but the
# endpoint gives only its final text: what it shows is a summary), `none` (no reasoning apart from the answer).
REASONING = ("returned", "hidden", "none")
THINK_MARKERS = ("<think>", "</think>")


@dataclass(frozen=True)
class ServerSpec:
    """How to start a model's server: `command` may use {port}, {python} and {pkg:NAME} (a package's folder)."""

    command: list[str]
    health: str = "/v1/models"
    startup_timeout: float = 300.0
    tensor_parallel: int | None = None  # GPUs per server ({tp}); None: from params_total_b (infer/launch.py)
    max_context: int | None = None      # the model's longest context: caps {max_model_len}
    image_tokens: int = 1280            # tokens one image may take, for {max_model_len}
    replicas: int = 1                   # copies to start where no GPUs are named (CPU data parallelism)

    def missing_program(self) -> str:
        """Why this machine cannot start the server ('' if it can): its program is not installed."""
        first = self.command[0]
        if first == "{python}":
            module = self.command[2] if self.command[1:2] == ["-m"] else ""
            root = module.split(".")[0]
            return f"the package {root} is not installed" if root and importlib.util.find_spec(root) is None else ""
        if shutil.which(first) is None and not Path(first).is_file():
            return f"{first} is not installed (pip install -r requirements-gpu.txt)"
        return ""


@dataclass(frozen=True)
class ModelConfig:
    name: str                                # our name for the model: results/raw/<bench>/<name>/
    model: str                               # the name the endpoint expects in requests
    base_urls: list[str] = field(default_factory=list)  # several = data parallel over servers
    api_key_env: str | None = None           # the NAME of the environment variable holding the key
    modalities: list[str] = field(default_factory=lambda: ["text", "image"])
    max_tokens: int = 4096
    token_limit_field: str = "max_tokens"    # OpenAI reasoning models take `max_completion_tokens` instead
    unsupported_params: list[str] = field(default_factory=list)  # never sent (e.g. temperature for o-series)
    max_image_pixels: int | None = 4096 * 4096  # larger images are scaled down before sending (infer/render.py)
    # A server the harness starts on this machine reads images from the data folder (file:// URLs, the
    # server's --allowed-local-media-path {media_dir}) instead of receiving them base64-encoded
    images_as_files: bool = False
    # A server that reads only a message's first text part (LMDeploy's InternVL): a message with text after an
    # image is sent as one text part holding this where each image stands, its images after it in order
    # (infer/image_placeholder.py). Part of the key, as the model sees it. None: parts sent as rendered.
    image_placeholder: str | None = None
    temperature_floor: float | None = None   # a model that rejects 0 gets this instead (C²RBench: 0.001)
    temperature: float = 0.0
    top_p: float | None = None
    decoding_source: str | None = None       # where temperature, top_p and sampling fields come from (a model card)
    # returned / hidden / none (REASONING above); for a model with thinking switches, one per switch:
    # {default: none, "on": hidden}, a switch not named taking `default` (`highest` taking `on`'s)
    reasoning: str | dict[str, str] = "none"
    # The tags around reasoning written into the text (Kimi-VL: ◁think▷ … ◁/think▷); the client splits by them
    reasoning_markers: tuple[str, str] = THINK_MARKERS
    extra_body: dict[str, Any] = field(default_factory=dict)  # e.g. chat_template_kwargs, reasoning_effort
    # {"on": {...}, "off": {...}, "highest": {...}} request fields; "highest" only where the provider's top
    # budget is more than what `on` asks (an experiment's `thinking: highest` falls back to `on`)
    thinking: dict[str, dict[str, Any]] = field(default_factory=dict)
    # prompts/models/<name>.txt, sent first (role system) in every request of this model, judge calls
    # included: a mode some models switch on by a system prompt (InternVL3.5's thinking)
    system_prompt: str | None = None
    params_total_b: float | None = None      # total parameters, billions (parameter-scaling plots)
    params_active_b: float | None = None     # activated parameters, billions (MoE)
    concurrency: int = 16                    # requests in flight per endpoint
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    max_retries: int = 6
    backoff_base: float = 1.0                # seconds; doubles per retry, with jitter, unless Retry-After says
    # When this model judges: decode only the reply form each judge asks for (llama.cpp's `grammar` field),
    # so a small local model's verdicts can be read. Never on for the papers' judges unless configured.
    constrain_judge_replies: bool = False
    # When this model judges: the reply budget, if not max_tokens (a judge's structured reply can be longer
    # than the short answers a demo asks for). None: max_tokens.
    judge_max_tokens: int | None = None
    server: ServerSpec | None = None
    # "http": requests to base_urls (or to the server started from `server`); "vllm" / "lmdeploy": the
    # engine's offline batch API in this process (infer/engines.py), with `engine_args` for its constructor
    engine: str = "http"
    engine_args: dict[str, Any] = field(default_factory=dict)
    # What its requests cost (infer/cost_keys.py, pipeline/cost.py): an API's list price, USD per million
    # tokens; what one image counts as input; a self-hosted server's tokens per second, for GPU-hours
    price: Price | None = None
    image_tokens: ImageTokens | None = None
    throughput: Throughput | None = None
    path: str | None = None                  # where the config was read from
    missing_env: tuple[str, ...] = ()        # ${VARS} in base_urls that are not set: not runnable here
    system: SystemPrompt | None = None       # the text of `system_prompt`, read when the config is made

    def __post_init__(self) -> None:
        # Made directly (or by dataclasses.replace with another name): the text follows the name
        if self.system_prompt is None:
            object.__setattr__(self, "system", None)
        elif self.system is None or self.system.path.stem != self.system_prompt:
            try:
                object.__setattr__(self, "system", load_system_prompt(self.system_prompt))
            except TemplateError as e:
                raise ConfigError(f"{self.path or self.name}: system_prompt: {e}") from e

    def reasoning_of(self, thinking: str | None = None) -> str:
        """Whether the endpoint returns the model's reasoning when run with this thinking switch."""
        if isinstance(self.reasoning, str):
            return self.reasoning
        by = self.reasoning
        return by.get(thinking or "default") or (by.get("on") if thinking == "highest" else None) or by["default"]

    @property
    def launches_server(self) -> bool:
        """Whether a run starts this model's server: it has a command and no endpoint is given."""
        return self.engine == "http" and self.server is not None and (bool(self.missing_env) or not self.base_urls)

    @property
    def configured(self) -> bool:
        """Whether it can run here (paper profiles list models a user may not have): its endpoints and key
        are known, or its server or offline engine can be started on this machine."""
        return not self.why_unconfigured()

    def why_unconfigured(self) -> str:
        if self.engine != "http":
            found = importlib.util.find_spec(self.engine) is not None
            return "" if found else f"{self.name}: install {self.engine} (pip install -r requirements-gpu.txt)"
        missing = [] if self.launches_server else list(self.missing_env)
        if self.api_key_env and not os.environ.get(self.api_key_env):
            missing.append(self.api_key_env)
        if self.launches_server and self.server is not None and self.server.missing_program():
            return (f"{self.name}: set {', '.join(self.missing_env)} to a running server, or let the harness "
                    f"start it: {self.server.missing_program()}")
        return f"{self.name}: set {', '.join(missing)}" if missing else ""

    @property
    def accepts_images(self) -> bool:
        return "image" in self.modalities

    def api_key(self) -> str:
        """The key from the environment; local servers without a key get a placeholder."""
        if self.missing_env and not self.launches_server:
            raise ConfigError(f"{self.path}: base_urls: environment variable(s) {', '.join(self.missing_env)} not set")
        if not self.api_key_env:
            return "EMPTY"
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ConfigError(f"the environment variable {self.api_key_env} is not set: set it to the API key of "
                              f"model {self.name} (api_key_env in {self.path or 'its config'})")
        return key

    def judge_params(self) -> dict[str, Any]:
        """The generation parameters of this model's requests as a judge."""
        return self.generation_params(max_tokens=self.judge_max_tokens)

    def generation_params(self, thinking: str | None = None, **overrides: Any) -> dict[str, Any]:
        """The generation parameters of a request (they are part of its key).

        `thinking` ("on" / "off") adds the request fields the config gives for that switch, e.g.
        `chat_template_kwargs: {enable_thinking: false}` (Qwen3 on vLLM) or `reasoning_effort: high`.
        """
        params: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": self.temperature}
        if self.top_p is not None:
            params["top_p"] = self.top_p
        params.update(self.extra_body)
        if thinking is not None:
            if thinking not in self.thinking:
                raise ConfigError(f"{self.path}: thinking: no {thinking!r} switch for {self.name} "
                                  f"(the config gives: {', '.join(self.thinking) or 'none'})")
            params.update(self.thinking[thinking])
        params.update({k: v for k, v in overrides.items() if v is not None})
        if self.temperature_floor is not None and params.get("temperature", 1.0) < self.temperature_floor:
            params["temperature"] = self.temperature_floor
        # An endpoint that accepts only its own value (o-series: temperature 1) gets none: the raw
        # lines then record what was really sent.
        params = {k: v for k, v in params.items() if k not in self.unsupported_params}
        if self.system is not None:  # keyed and recorded with the parameters, sent as the first message
            params[SHA_PARAM] = self.system.sha
        if self.image_placeholder is not None:  # keyed and recorded likewise, applied where a request is sent
            params[PLACEHOLDER_PARAM] = self.image_placeholder
        return params

    def with_system(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages a request sends: the model's system prompt first, if it has one."""
        return [self.system.message(), *messages] if self.system is not None else messages

    def system_shas(self) -> dict[str, str]:
        """{path: hash} of the system prompt, listed with a run's template hashes."""
        return {str(self.system.path): self.system.sha} if self.system is not None else {}

    def public_dict(self) -> dict[str, Any]:
        """The config as written to manifests: names of secrets only, never their values."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["system"] = {"path": str(self.system.path), "sha": self.system.sha} if self.system else None
        if self.server is not None:
            out["server"] = {f.name: getattr(self.server, f.name) for f in fields(self.server)}
        for key in ("price", "image_tokens", "throughput"):
            out[key] = asdict(out[key]) if out[key] is not None else None
        return out


def _check_keys(data: dict, allowed: set[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(sorted(allowed))})"
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")


def load_model_config(path: str | Path, prompts: Path = PROMPTS) -> ModelConfig:
    """The config at `path`; its `system_prompt` is read from `prompts`/models/."""
    path = Path(path)
    data = _read_mapping(path)
    _check_keys(data, {f.name for f in fields(ModelConfig)} - {"path", "system"}, str(path))
    for key in ("name", "model"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ConfigError(f"{path}: {key}: required string")
    if isinstance(data.get("base_urls"), str):
        data["base_urls"] = [data["base_urls"]]
    data["base_urls"], missing = _expand_env(data.get("base_urls") or [])
    server = _server(data.pop("server", None), path)
    _check_engine(data, server, path)
    _check_values(data, path)
    _check_reasoning(data, path)
    for key, parse in (("price", parse_price), ("image_tokens", parse_image_tokens),
                       ("throughput", parse_throughput)):
        if data.get(key) is not None:
            try:
                data[key] = parse(data[key], key)
            except ValueError as e:
                raise ConfigError(f"{path}: {e}") from e
    system = None
    if data.get("system_prompt") is not None:
        try:
            system = load_system_prompt(data["system_prompt"], prompts)
        except TemplateError as e:
            raise ConfigError(f"{path}: system_prompt: {e}") from e
    return ModelConfig(**data, server=server, path=str(path), missing_env=tuple(missing), system=system)


def _read_mapping(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"{path}: model config not found")
    try:
        data = read_yaml(path)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: invalid YAML: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def _server(server: Any, path: Path) -> ServerSpec | None:
    """The `server` block: how the harness starts the model's own server (None: the config gives endpoints)."""
    if server is None:
        return None
    if not isinstance(server, dict):
        raise ConfigError(f"{path}: server: expected a mapping")
    _check_keys(server, {f.name for f in fields(ServerSpec)}, f"{path}: server")
    if not isinstance(server.get("command"), list):
        raise ConfigError(f"{path}: server.command: expected a list of arguments")
    for key, value in server.items():
        if key in ("tensor_parallel", "max_context", "image_tokens", "replicas") and value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ConfigError(f"{path}: server.{key}: expected a positive integer, got {value!r}")
    return ServerSpec(**server)


def _check_engine(data: dict[str, Any], server: ServerSpec | None, path: Path) -> None:
    engine = data.get("engine", "http")
    if engine not in ENGINES:
        raise ConfigError(f"{path}: engine: {engine!r} is not one of {', '.join(ENGINES)}")
    if not isinstance(data.get("engine_args", {}), dict):
        raise ConfigError(f"{path}: engine_args: expected a mapping of the engine's constructor arguments")
    if not data.get("base_urls") and server is None and engine == "http":
        raise ConfigError(f"{path}: base_urls: give at least one endpoint, or a server to start")


def _check_values(data: dict[str, Any], path: Path) -> None:
    """Thinking switches, modalities, numbers, switches and the image placeholder, each of its kind."""
    thinking = data.get("thinking", {})
    if not isinstance(thinking, dict) or not set(thinking) <= {"on", "off", "highest"} or not all(
            isinstance(v, dict) for v in thinking.values()):
        raise ConfigError(f"{path}: thinking: expected {{on: {{...request fields}}, off: {{...}}, highest: {{...}}}}")
    unknown_modalities = set(data.get("modalities", [])) - {"text", "image"}
    if unknown_modalities:
        raise ConfigError(f"{path}: modalities: unknown {sorted(unknown_modalities)} (known: text, image)")
    for key, typ in (("max_tokens", int), ("judge_max_tokens", int), ("concurrency", int), ("max_retries", int),
                     ("max_image_pixels", int)):
        if data.get(key) is not None and (not isinstance(data[key], typ) or isinstance(data[key], bool) or data[key] < 0):
            raise ConfigError(f"{path}: {key}: expected a non-negative integer, got {data[key]!r}")
    for key in ("temperature", "top_p", "connect_timeout", "read_timeout", "backoff_base", "temperature_floor",
                "params_total_b", "params_active_b"):
        if data.get(key) is not None and not isinstance(data[key], (int, float)):
            raise ConfigError(f"{path}: {key}: expected a number, got {data[key]!r}")
    for key in ("constrain_judge_replies", "images_as_files"):
        if not isinstance(data.get(key, False), bool):
            raise ConfigError(f"{path}: {key}: expected true or false, got {data[key]!r}")
    placeholder = data.get("image_placeholder")
    if placeholder is not None and (not isinstance(placeholder, str) or not placeholder.strip()):
        raise ConfigError(f"{path}: image_placeholder: expected the text the server takes for an image "
                          f"(e.g. '<IMAGE_TOKEN>'), got {placeholder!r}")


def _check_reasoning(data: dict[str, Any], path: Path) -> None:
    """`reasoning` one of REASONING, or one per thinking switch with a `default`; `reasoning_markers` two different
    non-empty tags (kept as a tuple)."""
    declared = data.get("reasoning", "none")
    values = declared.values() if isinstance(declared, dict) else [declared]
    if (isinstance(declared, dict) and ("default" not in declared or not set(declared) <= {"default", "on", "off",
                                                                                            "highest"})) \
            or not all(isinstance(v, str) and v in REASONING for v in values):
        raise ConfigError(f"{path}: reasoning: expected one of {', '.join(REASONING)} (whether the endpoint returns "
                          "the model's reasoning), or one per thinking switch with a default (e.g. {default: none, "
                          f"on: hidden}}), got {declared!r}")
    markers = data.get("reasoning_markers", THINK_MARKERS)
    if (not isinstance(markers, (list, tuple)) or len(markers) != 2 or not all(isinstance(m, str) and m for m in markers)
            or markers[0] == markers[1]):
        raise ConfigError(f"{path}: reasoning_markers: expected [opening tag, closing tag], e.g. ['<think>', "
                          f"'</think>'], got {markers!r}")
    data["reasoning_markers"] = tuple(markers)
    if data.get("decoding_source") is not None and not isinstance(data["decoding_source"], str):
        raise ConfigError(f"{path}: decoding_source: expected text naming where the decoding comes from")


_ENV = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def _expand_env(urls: list[str]) -> tuple[list[str], list[str]]:
    """Fill `${VAR}` / `${VAR:-default}` in endpoint URLs from the environment; report unset ones."""
    missing: list[str] = []

    def fill(m: re.Match) -> str:
        value = os.environ.get(m.group(1)) or m.group(2)  # set but empty counts as not set
        if not value:
            missing.append(m.group(1))
            return ""
        return value

    return [_ENV.sub(fill, u) for u in urls], missing
