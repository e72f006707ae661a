"""The papers' findings as data (data/reference/findings/*.yaml, README.md there): every file parses, every
entry has the schema's keys and vocabulary, ids are unique, every table id exists in analysis.run's registry,
and every quote is in its paper's text, starting on the line the entry gives."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from analysis.run import registry

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "data" / "reference" / "findings"
SEEDS = ROOT.parent / "shared" / "seeds"
SEED_FILES = {"think360": "000_b6d903ac507b2b01.txt", "omibench": "001_1e6284700ce242e3.txt",
              "mira": "002_9e12213ee065fa66.txt", "c2rbench": "003_b2a6c3c10c2b2718.txt",
              "morphobench": "004_a2ab684a280c7984.txt"}
KINDS = {"order", "difference", "improvement", "threshold", "correlation", "ratio", "trend", "range", "other"}
DIRECTIONS = {"higher", "lower", "equal", "not-higher", "highest", "lowest", "top", "among-top", "descending",
              "above", "below", "within", "about", "increasing", "decreasing", "monotonic-increasing",
              "monotonic-decreasing", "near-monotonic-increasing", "saturates", "unimodal", "linear", "no-trend",
              "positive", "consistent"}
BOUNDS = {"above", "below", "at_least", "at_most", "about", "equals", "between"}
ENTRY_KEYS = ["id", "quote", "source", "section", "tables", "kind", "claim", "notes"]
CLAIM_KEYS = {"metric", "compare", "direction", "size", "over"}
CLAIM_OPTIONAL = {"against", "pairs", "values", "levels", "groups"}
MODEL_CONFIGS = {p.stem for p in (ROOT / "configs" / "models").rglob("*.yaml")}
HUMANS = {"Human Expert A", "Human Expert B", "Human Non-expert A", "Human Non-expert B"}


def load(bench: str) -> list[dict]:
    return yaml.safe_load((FINDINGS / f"{bench}.yaml").read_text(encoding="utf-8"))


ENTRIES = [(bench, e) for bench in SEED_FILES for e in load(bench)]
IDS = [e["id"] for _, e in ENTRIES]


def collapse(text: str) -> str:
    return " ".join(text.split())


def test_one_file_per_paper_and_nothing_else():
    assert sorted(p.stem for p in FINDINGS.glob("*.yaml")) == sorted(SEED_FILES)


@pytest.mark.parametrize("bench", SEED_FILES)
def test_each_file_is_a_nonempty_list_of_entries(bench):
    entries = load(bench)
    assert isinstance(entries, list) and entries
    for e in entries:
        assert isinstance(e, dict) and list(e) == ENTRY_KEYS, e.get("id")


def test_ids_are_unique_and_name_their_paper():
    assert len(IDS) == len(set(IDS)), sorted({i for i in IDS if IDS.count(i) > 1})
    for bench, e in ENTRIES:
        assert e["id"].startswith(f"{bench}.") and e["id"] != f"{bench}.", e["id"]


@pytest.mark.parametrize("bench, entry", ENTRIES, ids=IDS)
def test_entry_schema(bench, entry):
    assert isinstance(entry["quote"], str) and entry["quote"].strip()
    assert isinstance(entry["section"], str) and entry["section"].strip()
    assert entry["kind"] in KINDS
    assert entry["notes"] is None or isinstance(entry["notes"], str)
    source = entry["source"]
    assert set(source) == {"file", "line"} and source["file"] == SEED_FILES[bench]
    assert isinstance(source["line"], int) and source["line"] >= 1
    claim = entry["claim"]
    assert CLAIM_KEYS <= set(claim) <= CLAIM_KEYS | CLAIM_OPTIONAL, set(claim) ^ CLAIM_KEYS
    assert isinstance(claim["compare"], list) and claim["compare"]
    assert isinstance(claim["over"], str) and claim["over"].strip()
    assert claim["metric"] is None or isinstance(claim["metric"], (str, list))
    if claim["direction"] is None:
        assert entry["kind"] == "other", "only a finding of kind other may have no direction"
    else:
        assert claim["direction"] in DIRECTIONS
    if claim["size"] is not None:
        assert set(claim["size"]) - {"unit"} <= BOUNDS and "unit" in claim["size"], claim["size"]
        if "between" in claim["size"]:
            lo, hi = claim["size"]["between"]
            assert lo <= hi
    for pair in claim.get("pairs") or []:
        assert isinstance(pair, list) and len(pair) == 2
    for name, members in (claim.get("groups") or {}).items():
        assert isinstance(name, str) and isinstance(members, list) and members, name
        assert set(members) <= MODEL_CONFIGS | HUMANS, set(members) - MODEL_CONFIGS - HUMANS
    if entry["kind"] == "improvement":
        assert len(claim["compare"]) == 2, "an improvement compares [improved, baseline]"
    if not entry["tables"]:
        assert entry["kind"] == "other", "a finding no table can check is of kind other"


@lru_cache(maxsize=1)
def table_ids() -> frozenset[str]:
    return frozenset(registry())


@pytest.mark.parametrize("bench, entry", ENTRIES, ids=IDS)
def test_tables_exist(bench, entry):
    assert isinstance(entry["tables"], list)
    assert len(entry["tables"]) == len(set(entry["tables"]))
    for table_id in entry["tables"]:
        assert table_id.startswith(f"{bench}."), table_id
        assert table_id in table_ids(), f"{table_id} is not a table of analysis.run --list"


@lru_cache(maxsize=None)
def seed_lines(name: str) -> list[str]:
    return (SEEDS / name).read_text(encoding="utf-8").splitlines()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the papers' texts are not beside the project")
@pytest.mark.parametrize("bench, entry", ENTRIES, ids=IDS)
def test_quote_is_verbatim_and_starts_on_its_line(bench, entry):
    lines = seed_lines(entry["source"]["file"])
    quote = collapse(entry["quote"])
    assert quote in collapse("\n".join(lines)), "the quote is not in the paper's text"
    n = entry["source"]["line"]
    assert n <= len(lines) and lines[n - 1].strip(), f"line {n} is empty or past the end"
    # from the given line on, the quote must start within that line
    position = collapse("\n".join(lines[n - 1:])).find(quote)
    assert 0 <= position < len(collapse(lines[n - 1])), (
        f"the quote does not start on line {n}: {collapse(lines[n - 1])[:120]!r}")
