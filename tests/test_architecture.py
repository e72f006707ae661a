"""The stages import only downward: data → infer → judge → analysis, and pipeline (whatever runs several
stages) above them all. Every module's imports are read from its source, so a new upward import fails
here, including one placed inside a function."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["data", "infer", "judge", "analysis", "pipeline"]  # each may import only those before it


def stage_imports(path: Path) -> set[str]:
    """The project stages a module imports (absolute imports; relative ones stay inside the package)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {n.split(".")[0] for n in names} & set(ORDER)
    return found


MODULES = [p for stage in ORDER for p in sorted((ROOT / stage).rglob("*.py"))]


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_a_stage_imports_only_the_stages_before_it(path):
    stage = path.relative_to(ROOT).parts[0]
    allowed = set(ORDER[:ORDER.index(stage) + 1])
    upward = stage_imports(path) - allowed
    assert not upward, f"{path.relative_to(ROOT)} ({stage}) imports {sorted(upward)}: stages import only downward"


def test_the_checker_sees_an_upward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from judge.rules import score\n    import analysis.run\n")
    assert stage_imports(module) == {"judge", "analysis"}
