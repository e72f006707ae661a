"""The documented interfaces of the GPU engines, read from the released packages themselves.

vLLM and LMDeploy need CUDA and PyTorch to import, so the tests cannot call them here. Instead they read
the pinned wheels of requirements-gpu.txt (downloaded by tests/run.sh into .venv/gpu-wheels) as source:
the command-line flags their servers define, and the fields and parameters of the classes and functions
the harness calls. A command or mapping that uses a name these do not define fails the tests.
"""
from __future__ import annotations

import ast
import os
import re
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WHEELS = Path(os.environ.get("GPU_WHEELS", ROOT / ".venv" / "gpu-wheels"))


def pinned() -> dict[str, str]:
    """{package: version} from requirements-gpu.txt."""
    pins = {}
    for line in (ROOT / "requirements-gpu.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([\w.]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


@lru_cache(maxsize=None)
def _wheel(package: str) -> zipfile.ZipFile:
    version = pinned()[package]
    found = sorted(WHEELS.glob(f"{package}-{version}-*.whl"))
    if not found:
        if os.environ.get("GPU_WHEELS"):  # the test command fetched them: missing is a failure
            raise FileNotFoundError(f"{package}=={version} wheel not in {WHEELS}")
        pytest.skip(f"{package}=={version} wheel not in {WHEELS} (tests/run.sh downloads it)")
    return zipfile.ZipFile(found[0])


@lru_cache(maxsize=None)
def tree(package: str, module: str) -> ast.Module:
    return ast.parse(_wheel(package).read(module).decode("utf-8"))


def _class(package: str, module: str, name: str) -> ast.ClassDef:
    for node in ast.walk(tree(package, module)):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise LookupError(f"{package}: no class {name} in {module}")


def fields(package: str, module: str, cls: str) -> set[str]:
    """The annotated fields of a dataclass-like class (dataclass, pydantic, msgspec.Struct)."""
    return {n.target.id for n in _class(package, module, cls).body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def params(package: str, module: str, function: str, cls: str | None = None) -> set[str]:
    """The named parameters of a function (or of a method of `cls`), without self."""
    body = _class(package, module, cls).body if cls else tree(package, module).body
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            a = node.args
            return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} - {"self"}
    raise LookupError(f"{package}: no function {function} in {module}")


def accepts_kwargs(package: str, module: str, function: str, cls: str | None = None) -> bool:
    body = _class(package, module, cls).body if cls else tree(package, module).body
    node = next(n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function)
    return node.args.kwarg is not None


def _option_strings(node: ast.AST) -> set[str]:
    """The option strings ('--x', '-x') of every add_argument call under `node`."""
    out = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "add_argument":
            out |= {a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                    and a.value.startswith("-")}
    return out


def flags(package: str, *modules: str) -> set[str]:
    """Every option string passed to an add_argument call in the modules."""
    out: set[str] = set()
    for module in modules:
        out |= _option_strings(tree(package, module))
    return out


def vllm_serve_flags() -> set[str]:
    """`vllm serve`'s options: the engine's (literal add_argument calls) and the OpenAI front end's, whose
    flags are its FrontendArgs fields with dashes."""
    frontend = {"--" + f.replace("_", "-") for f in fields("vllm", "vllm/entrypoints/openai/cli_args.py", "FrontendArgs")}
    return frontend | flags("vllm", "vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py",
                            "vllm/entrypoints/cli/serve.py")


def lmdeploy_serve_flags() -> set[str]:
    """`lmdeploy serve api_server`'s options: those its parser function adds itself, and those of every
    ArgumentHelper method it calls."""
    serve = next(n for n in ast.walk(tree("lmdeploy", "lmdeploy/cli/serve.py"))
                 if isinstance(n, ast.FunctionDef) and n.name == "add_parser_api_server")
    helper = {n.name: n for n in _class("lmdeploy", "lmdeploy/cli/utils.py", "ArgumentHelper").body
              if isinstance(n, ast.FunctionDef)}
    used = {c.func.attr for c in ast.walk(serve) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == "ArgumentHelper"}
    out = _option_strings(serve)
    for name in used:
        out |= _option_strings(helper[name])
    return out
