"""How results record paths (relative to the checkout) and how analysis finds a run's data file again: at its path
in this checkout, at the same place under data/ for a path another checkout recorded, else by its checksum."""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest

from analysis import data_location
from analysis.data_location import NamedData, locate, named_data, shown_data
from infer import layout
from infer.manifest import base_manifest


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    """A checkout at tmp_path/checkout: what layout calls ROOT, with nothing found yet."""
    root = tmp_path / "checkout"
    (root / "data" / "omibench").mkdir(parents=True)
    monkeypatch.setattr(layout, "ROOT", root)
    monkeypatch.setattr(data_location, "_found", {})
    monkeypatch.setattr(data_location, "_said", set())
    return root


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_path_inside_the_checkout_is_recorded_relative_and_read_back(checkout, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert layout.recorded(checkout / "data" / "omibench" / "test.jsonl") == "data/omibench/test.jsonl"
    assert layout.recorded(Path("checkout/results/raw/x.jsonl")) == "results/raw/x.jsonl"  # relative to here
    (tmp_path / "elsewhere").mkdir()
    (checkout / "data" / "linked").symlink_to(tmp_path / "elsewhere")  # a link inside counts as inside
    assert layout.recorded(checkout / "data" / "linked" / "a.jsonl") == "data/linked/a.jsonl"
    assert layout.recorded(tmp_path / "elsewhere" / "a.jsonl") == (tmp_path / "elsewhere" / "a.jsonl").as_posix()
    assert layout.from_record("data/omibench/test.jsonl") == checkout / "data" / "omibench" / "test.jsonl"
    assert layout.printed(tmp_path / "results" / "report.md") == "results/report.md"


def test_a_manifest_records_every_path_inside_the_checkout_relative(checkout):
    manifest = base_manifest(data={"path": str(checkout / "data" / "a.jsonl")},
                             templates={str(checkout / "prompts" / "omibench" / "cot.txt"): "sha"},
                             command=["serve", str(checkout / "m.gguf")], other="/opt/elsewhere/file")
    assert manifest["data"] == {"path": "data/a.jsonl"} and manifest["templates"] == {"prompts/omibench/cot.txt": "sha"}
    assert manifest["command"] == ["serve", "m.gguf"] and manifest["other"] == "/opt/elsewhere/file"


def test_the_recorded_path_is_read_when_its_checksum_is_the_one_recorded(checkout, caplog):
    sha = write(checkout / "data" / "omibench" / "test.jsonl", "a\n")
    with caplog.at_level(logging.WARNING):
        assert locate(NamedData("data/omibench/test.jsonl", sha)) == checkout / "data/omibench/test.jsonl"
        assert locate(NamedData("data/omibench/test.jsonl")) == checkout / "data/omibench/test.jsonl"
    assert caplog.records == []  # found where it was: nothing to say


def test_another_checkouts_path_is_read_in_this_checkout_never_in_the_other(checkout, tmp_path, caplog):
    other = tmp_path / "other-clone" / "data" / "omibench" / "test.jsonl"
    sha = write(other, "a\n")
    write(checkout / "data" / "omibench" / "test.jsonl", "a\n")
    with caplog.at_level(logging.WARNING):
        assert locate(NamedData(str(other), sha)) == checkout / "data/omibench/test.jsonl"
        locate(NamedData(str(other), sha))
    assert [r.getMessage() for r in caplog.records] == [
        "data file data/omibench/test.jsonl: recorded at its path in another checkout, read in this one"]  # said once
    assert str(tmp_path) not in caplog.text


def test_a_moved_or_changed_data_file_is_found_by_its_checksum(checkout, caplog):
    sha = write(checkout / "data" / "demo" / "build" / "omibench.jsonl", "a\n")
    write(checkout / "data" / "omibench" / "test.jsonl", "changed\n")  # at the recorded path, other bytes
    with caplog.at_level(logging.WARNING):
        assert locate(NamedData("data/omibench/test.jsonl", sha)) == checkout / "data/demo/build/omibench.jsonl"
    assert "read data/demo/build/omibench.jsonl, which has it" in caplog.text
    # no file of the checksum: the file at the path, as it is now (a gold mended since the run)
    (checkout / "data" / "demo" / "build" / "omibench.jsonl").unlink()
    assert locate(NamedData("data/omibench/test.jsonl", sha)) == checkout / "data/omibench/test.jsonl"


def test_a_data_file_that_is_nowhere_is_gone(checkout, tmp_path):
    assert locate(NamedData("data/omibench/test.jsonl", "0" * 64)) is None
    assert locate(NamedData(str(tmp_path / "other" / "data" / "x.jsonl"))) is None
    write(checkout / "data" / "omibench" / "test.jsonl", "a\n")  # made since: found
    assert locate(NamedData("data/omibench/test.jsonl")) == checkout / "data/omibench/test.jsonl"


def test_a_judged_manifest_without_a_checksum_takes_the_raw_manifests(checkout):
    raw = {"data": {"path": "/x/data/a.jsonl", "sha256": "s"}}
    assert named_data({"data": "/x/data/a.jsonl"}, raw) == NamedData("/x/data/a.jsonl", "s")
    assert named_data({"data": "/y/data/a.jsonl"}, raw) == NamedData("/y/data/a.jsonl")
    assert named_data({"data": {"path": "data/a.jsonl", "sha256": "t"}}, raw) == NamedData("data/a.jsonl", "t")
    assert named_data({}, raw) is None  # the judged manifest names the data: a raw one alone does not


def test_outputs_name_a_data_file_by_no_machine_path(checkout, tmp_path):
    assert shown_data(checkout / "data" / "omibench" / "test.jsonl") == "data/omibench/test.jsonl"
    assert shown_data("data/omibench/test.jsonl") == "data/omibench/test.jsonl"
    assert shown_data("/home/u/clone/data/demo/build/omibench.jsonl") == \
        "data/demo/build/omibench.jsonl (outside the checkout)"  # where it lay in its own checkout
    assert shown_data(tmp_path / "scratch" / "test.jsonl") == "test.jsonl (outside the checkout)"
