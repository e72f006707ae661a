"""The report is rebuilt from what is there now: a file that cannot be read fails the tables that read it, in one line
naming the file and line, while the other tables, the item browser and the report are still made; `--report` with one
table id writes the whole report; report.md and report.html are replaced whole, and a report that cannot be built
never leaves the previous one standing as if current."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from analysis import report as report_module, whole_report
from analysis.run import main, registry
from data.jsonl import write_text_atomic
from infer.layout import browse_page, judged_path, manifest_of, raw_path, report_path
from tests.analysis_fixtures import make_run, write_data

CORRUPT = "results/judged/omibench/m/cot_boxed.rules.jsonl:2: -: corrupt result line"


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """OMIBench Table 2's runs of model m (C.1's rule and the careful rule) and Think360 Table 3's run of gpt-4.1."""
    res = tmp_path / "results"
    omi = write_data(tmp_path / "omibench.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                                   for i in range(4)])
    for judge in ("omibench_c1", "rules"):
        make_run(res, "omibench", "m", "cot_boxed", judge, omi, [{"id": f"q{i}", "correct": i < 2} for i in range(4)])
    think = write_data(tmp_path / "think360.jsonl", [
        {"id": f"q{i}", "benchmark": "think360", "skills": ["Perceive-and-Comprehend"], "question_type": ["Algebra"],
         "difficulty": "Easy"} for i in range(4)])
    make_run(res, "think360", "gpt-4.1", "direct+temp0.7", "rules", think,
             [{"id": f"q{i}", "correct": i < 3} for i in range(4)])
    return res


@pytest.fixture
def few_tables(monkeypatch) -> list[str]:
    """analysis.run knows three tables only (the report of every table is made the same way, in seconds): Table 2
    and Table 3 of the fixture's runs, and one that has none."""
    import analysis.run

    ids = ["omibench.T2", "think360.T3", "mira.T1"]
    every = registry()
    monkeypatch.setattr(analysis.run, "registry", lambda: {i: every[i] for i in ids})
    return ids


def old_report(results: Path) -> None:
    """A report made before, with numbers that are no longer current."""
    for kind in ("md", "html"):
        report_path(results, kind).write_text("Reproduction report with OLD NUMBERS 99.99\n", encoding="utf-8")


def run(results: Path, *args: str) -> int:
    return main([*args, "--results", str(results), "--figures", str(results.parent / "figures")])


def corrupt_line_2(path: Path) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], '{"id": "q1", "sampl', *lines[2:]]) + "\n")


def test_a_corrupt_line_fails_only_the_tables_that_read_it_and_the_report_says_so(results, few_tables, capsys,
                                                                                    caplog):
    old_report(results)
    corrupt_line_2(judged_path(results, "omibench", "m", "cot_boxed", "rules"))
    capsys.readouterr()
    with caplog.at_level(logging.INFO):
        assert run(results, "omibench.T2", "--report") == 1   # the table asked for failed
    out = capsys.readouterr().out.splitlines()
    line = next(x for x in out if x.startswith("omibench.T2: "))
    assert line.startswith(f"omibench.T2: error: {CORRUPT} (")   # one line, the file named relative, and its line
    assert str(results.parent) not in "\n".join(out)
    assert not [r for r in caplog.records if r.exc_info], "a data problem is one line, not a traceback"
    md = report_path(results, "md").read_text(encoding="utf-8")
    html = report_path(results, "html").read_text(encoding="utf-8")
    assert "OLD NUMBERS" not in md + html
    assert "1 of 3 tables and figures built. 1 could not be built for an error, said below." in md
    assert "- **mira.T1** (missing)" in md   # a table never run is listed as before
    assert "- **omibench.T2** (error)" in md and CORRUPT.removeprefix("results/") in md and CORRUPT in html
    assert "## think360.T3" in md and "75.00" in md   # the other tables are built
    assert "judged/omibench/m/cot_boxed.rules.jsonl: not read: " in md   # and the run is named in the failures
    page = browse_page(results, "omibench", "m", "cot_boxed").read_text(encoding="utf-8")
    assert "This run cannot be read" in page and "cot_boxed.rules.jsonl:2" in page
    other = browse_page(results, "think360", "gpt-4.1", "direct+temp0.7").read_text(encoding="utf-8")
    assert "BROWSE_INDEX" in other and "cannot be read" not in other
    assert run(results, "think360.T3", "--report") == 0   # only the tables asked for decide the exit status
    assert f"omibench.T2: error: {CORRUPT}" in capsys.readouterr().out   # though every error is said


def test_one_table_with_report_writes_the_whole_report(results, capsys):
    assert run(results, "think360.T3", "--report") == 0
    out = capsys.readouterr().out
    assert "omibench.T2: " not in out   # the tables not asked for are built silently (unless one is an error)
    md = report_path(results, "md").read_text(encoding="utf-8")
    built, total = map(int, re.search(r"^(\d+) of (\d+) tables and figures built\.", md, re.M).groups())
    assert total == len(registry()) and built >= 2   # every table, as it is now
    assert "## omibench.T2" in md and "## think360.T3" in md
    assert out.splitlines()[-1].startswith("report: results/report.md (")


def test_a_corrupt_raw_line_and_a_corrupt_manifest_are_each_one_line(results, capsys):
    raw = raw_path(results, "think360", "gpt-4.1", "direct+temp0.7")
    corrupt_line_2(raw)
    assert run(results, "think360.T3") == 1
    assert "think360.T3: error: results/raw/think360/gpt-4.1/direct+temp0.7.jsonl:2: -: corrupt result line" \
        in capsys.readouterr().out
    manifest = manifest_of(judged_path(results, "omibench", "m", "cot_boxed", "omibench_c1"))
    manifest.write_text('{"data": ')
    assert run(results, "omibench.T2") == 1
    assert "omibench.T2: error: results/judged/omibench/m/cot_boxed.omibench_c1.manifest.json:1: -: not JSON" \
        in capsys.readouterr().out


def test_a_run_manifest_that_cannot_be_read_fails_its_tables_not_the_report(results, few_tables, capsys):
    manifest_of(raw_path(results, "think360", "gpt-4.1", "direct+temp0.7")).write_text("{")
    assert run(results, "omibench.T2", "--report") == 0
    out = capsys.readouterr().out
    assert "think360.T3: error: results/raw/think360/gpt-4.1/direct+temp0.7.manifest.json:1: -: not JSON" in out
    md = report_path(results, "md").read_text(encoding="utf-8")
    assert "## omibench.T2" in md and "- **think360.T3** (error)" in md
    assert "unknown (a manifest cannot be read)" in md   # what ran, as far as the manifests say


def test_the_report_is_replaced_whole_or_marked_as_not_built(results, few_tables, monkeypatch, capsys):
    old_report(results)
    md, html = report_path(results, "md"), report_path(results, "html")

    def fails_midway(*args, **kwargs):   # report.html is written, report.md fails while it is made
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_module, "markdown", fails_midway)
    assert run(results, "think360.T3", "--report") == 1
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("report: error: not built (OSError: [Errno 28] No space left on device)")
    for path in (md, html):   # neither the earlier report nor half of the new one stands as if current
        text = path.read_text(encoding="utf-8")
        assert "Reproduction report: not built" in text and "No space left on device" in text
        assert "OLD NUMBERS" not in text and "75.00" not in text   # nor Think360 Table 3's new number
    assert not list(results.glob(".report.*"))   # no temporary file left behind


def test_a_report_interrupted_half_way_says_so(results, few_tables, monkeypatch):
    old_report(results)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_module, "markdown", interrupted)
    with pytest.raises(KeyboardInterrupt):   # analysis.run's caller says "interrupted" and exits 130
        run(results, "think360.T3", "--report")
    for kind in ("md", "html"):
        text = report_path(results, kind).read_text(encoding="utf-8")
        assert "not built" in text and "interrupted while it was written" in text and "OLD NUMBERS" not in text


def test_a_report_that_cannot_even_be_marked_is_removed(results, few_tables, monkeypatch):
    old_report(results)
    monkeypatch.setattr(report_module, "markdown", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(whole_report, "write_text_atomic", lambda *a, **k: (_ for _ in ()).throw(OSError(13, "no")))
    assert run(results, "think360.T3", "--report") == 1
    assert not report_path(results, "md").exists() and not report_path(results, "html").exists()


def test_an_atomic_write_that_fails_keeps_the_old_file_whole(tmp_path):
    path = tmp_path / "report.md"
    path.write_text("old report\n")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(path, "new report, cut short by \ud800 a character that cannot be written")
    assert path.read_text() == "old report\n" and [p.name for p in tmp_path.iterdir()] == ["report.md"]
    write_text_atomic(path, "new report\n")
    assert path.read_text() == "new report\n" and oct(path.stat().st_mode & 0o777) == "0o644"


def test_the_browser_marks_a_run_it_cannot_read_and_writes_the_others(results):
    from analysis.browse import write_browsers

    corrupt_line_2(raw_path(results, "omibench", "m", "cot_boxed"))
    pages = {(p.bench, p.model): p for p in write_browsers(results)}
    bad, good = pages[("omibench", "m")], pages[("think360", "gpt-4.1")]
    assert bad.unreadable.startswith("results/raw/omibench/m/cot_boxed.jsonl:2: -: corrupt result line")
    assert bad.items == 0 and "This run cannot be read" in bad.path.read_text(encoding="utf-8")
    assert good.unreadable is None and good.items == 4
