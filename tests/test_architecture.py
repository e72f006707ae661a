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


# --------------------------------------------------------------------------------------------------
# No import cycle inside a package, no private name taken from another package
# --------------------------------------------------------------------------------------------------
def module_names(root: Path, packages: list[str]) -> dict[str, Path]:
    """Dotted name → file of every module of these packages (a package by its __init__.py)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> dict[str, set[str]]:
    """The project modules a module imports, at module level or inside a function, each with the names it
    takes from it ("from judge.tot import read_json" → {"judge.tot": {"read_json"}}; `mod.name` used after
    `from pkg import mod` or `import pkg.mod` counts as taking `name`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: dict[str, set[str]] = {}
    alias: dict[str, str] = {}  # a local name bound to a project module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                target = a.name
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    found.setdefault(target, set())
                    if a.asname and a.name in modules:
                        alias[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            for a in node.names:
                if f"{source}.{a.name}" in modules:  # a module of the package
                    found.setdefault(f"{source}.{a.name}", set())
                    alias[a.asname or a.name] = f"{source}.{a.name}"
                elif source in modules:
                    found.setdefault(source, set()).add(a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in alias:
            found[alias[node.value.id]].add(node.attr)
    found.pop(name, None)
    return found


def import_cycles(modules: dict[str, Path]) -> list[list[str]]:
    """The groups of modules that import one another, directly or through others (Tarjan's strongly
    connected components of more than one module)."""
    graph = {name: set(imported(name, path, modules)) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return groups


def private_imports(modules: dict[str, Path]) -> list[str]:
    """`module: name from other.module` for every private (underscore, not dunder) name a module takes from a
    module of another package."""
    out = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for source, names in imported(name, path, modules).items():
            source_package = source if modules[source].name == "__init__.py" else source.rpartition(".")[0]
            out += [f"{name}: {n} from {source}" for n in sorted(names)
                    if n.startswith("_") and not n.endswith("__") and source_package != package]
    return out


STAGE_MODULES = module_names(ROOT, ORDER)


def test_no_package_has_an_import_cycle():
    assert import_cycles(STAGE_MODULES) == []


def test_no_module_takes_a_private_name_from_another_package():
    assert private_imports(STAGE_MODULES) == []


def test_the_checkers_see_a_cycle_through_a_function_and_a_private_name(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for path in (package / "__init__.py", package / "sub" / "__init__.py"):
        path.write_text("")
    (package / "a.py").write_text("from pkg import b\n\ndef f():\n    return b._helper()\n")
    (package / "b.py").write_text("def _helper():\n    from pkg.c import g\n    return g()\n")
    (package / "c.py").write_text("from . import a\n\ndef g():\n    return a\n")
    (package / "sub" / "d.py").write_text("from pkg.b import _helper\nfrom ..c import g\n")
    modules = module_names(tmp_path, ["pkg"])
    assert import_cycles(modules) == [["pkg.a", "pkg.b", "pkg.c"]]
    # a.py takes b._helper inside its own package: allowed; pkg.sub.d takes it from another package
    assert private_imports(modules) == ["pkg.sub.d: _helper from pkg.b"]
