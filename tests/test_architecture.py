"""The stages import only downward: data → infer → judge → analysis, and pipeline (whatever runs several
stages) above them all. Every module's imports are read from its source, so a new upward import fails
here, including one placed inside a function."""
from __future__ import annotations

import ast
import importlib
import re
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

# --- analysis/: one folder per paper, one module per table named by its ids (analysis/__init__.py) --------

BENCHMARKS = ["think360", "omibench", "mira", "c2rbench", "morphobench"]
ANALYSIS = sorted((ROOT / "analysis").rglob("*.py"))
NUMBERED = re.compile(r"([A-Za-z]+)(\d+)")


def follows(a: str, b: str) -> bool:
    """Whether table b is numbered right after table a with the same letter (T4 → T5)."""
    ma, mb = NUMBERED.fullmatch(a), NUMBERED.fullmatch(b)
    return bool(ma and mb and ma[1] == mb[1] and int(mb[2]) == int(ma[2]) + 1)


def module_name(ids: list[str]) -> str:
    """The name analysis/__init__.py gives the module that builds `ids`: the ids without their benchmark,
    joined by "_", a run of three or more numbered one after the other written "<first>_to_<last>", "-" as "_"."""
    tables = [i.split(".", 1)[1] for i in ids]
    parts, start = [], 0
    while start < len(tables):
        end = start
        while end + 1 < len(tables) and follows(tables[end], tables[end + 1]):
            end += 1
        parts += [f"{tables[start]}_to_{tables[end]}"] if end - start >= 2 else tables[start:end + 1]
        start = end + 1
    return "_".join(parts).replace("-", "_")


def misplaced(path: Path, ids: list[str]) -> str | None:
    """What is wrong with where a table module is, or None: it lives in analysis/<benchmark of its ids>/ and
    is named by them."""
    benches = {i.split(".", 1)[0] for i in ids}
    where = path.relative_to(ROOT).parent
    if len(benches) != 1 or where != Path("analysis", *benches):
        return f"{path.relative_to(ROOT)} builds {ids}: it belongs in analysis/<their benchmark>/"
    if path.stem != module_name(ids):
        return f"{path.relative_to(ROOT)} builds {ids}: it is named {module_name(ids)}.py"
    return None


def test_the_module_name_of_table_ids():
    assert module_name(["omibench.T2"]) == "T2"
    assert module_name(["c2rbench.F3-5"]) == "F3_5"
    assert module_name(["omibench.sig"]) == "sig"
    assert module_name(["think360.T4", "think360.S2"]) == "T4_S2"
    assert module_name(["omibench.F6bc", "omibench.T10"]) == "F6bc_T10"
    assert module_name([f"mira.T{i}" for i in range(4, 11)]) == "T4_to_T10"
    assert module_name(["morphobench.T1", "morphobench.T2", "morphobench.T7"]) == "T1_T2_T7"
    assert module_name(["c2rbench.F7", "c2rbench.F8", "c2rbench.F9", "c2rbench.F10", "c2rbench.T3"]) == "F7_to_F10_T3"


def test_the_placement_checker_sees_a_misplaced_table():
    assert misplaced(ROOT / "analysis/omibench/T2.py", ["omibench.T2"]) is None
    assert "belongs in" in misplaced(ROOT / "analysis/omibench_T2.py", ["omibench.T2"])
    assert "belongs in" in misplaced(ROOT / "analysis/mira/T2.py", ["omibench.T2"])
    assert "named T4_S2.py" in misplaced(ROOT / "analysis/think360/T4.py", ["think360.T4", "think360.S2"])


def test_every_table_module_is_in_its_papers_folder_named_by_its_ids():
    from analysis.run import registry

    tables = {}
    for path in ANALYSIS:
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        if hasattr(module, "IDS"):
            tables[path] = list(module.IDS)
    # analysis.run finds every table there is, and nothing else
    assert sorted(i for ids in tables.values() for i in ids) == sorted(registry())
    assert [m for p, ids in tables.items() if (m := misplaced(p, ids))] == []


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved, `from a import b` giving a and a.b."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            package = path.relative_to(ROOT).parent.parts if node.level else ()
            base = ".".join(package[:len(package) - node.level + 1])
            module = ".".join(p for p in (base, node.module or "") if p)
            found |= {module} | {f"{module}.{a.name}" for a in node.names}
    return found


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_a_papers_folder_imports_no_other_papers(bench):
    others = [b for b in BENCHMARKS if b != bench]
    crossing = {f"{path.relative_to(ROOT)}: {m}" for path in sorted((ROOT / "analysis" / bench).glob("*.py"))
                for m in imported_modules(path) if m.split(".")[:2] in [["analysis", o] for o in others]}
    assert not crossing, f"analysis/{bench}/ imports another paper's folder: {sorted(crossing)}"


def test_the_import_reader_sees_a_crossing(tmp_path):
    module = ROOT / "analysis" / "omibench" / "T2.py"
    assert "analysis.omibench.metrics" in imported_modules(module)
    fake = tmp_path / "x.py"
    fake.write_text("from analysis import mira\nfrom analysis.think360.common import BENCH\n")
    assert {"analysis.mira", "analysis.think360.common.BENCH"} <= imported_modules(fake.resolve())
