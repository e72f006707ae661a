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
