"""The report as a person sees it: results made by the real pipeline (two scripted models and a judge behind HTTP,
on a data file kept where the demo sets are made), the report written, the results folder moved elsewhere, and
report.html opened in headless Chromium."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from analysis.inputs import ROOT
from data.jsonl import write_jsonl_atomic
from infer.layout import report_path, tables_dir
from tests.scripted_server import Reply, ScriptedServer

CHROMIUM = "/usr/bin/chromium"  # Debian's package, installed by the test command (setup.sh --tests)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SUBJECTS = ["Mathematics", "Physics", "Chemistry", "Biology"]


def script(body: dict, attempt: int):
    text = json.dumps(body["messages"])
    i = int(re.search(r"question (\d+)", text).group(1))
    if body["model"] == "m":  # the evaluated model: right, wrong, and one request that always fails
        if i == 5:
            return Reply.error(500, body="upstream failed")
        return Reply.ok("Step 1. <b>bold</b> </script> so \\boxed{%d}." % (1 if i % 3 else 2))
    if body["model"] == "m2":  # the second model: always the same answer
        return Reply.ok("The second model says \\boxed{1}.")
    # the GPTScore judge: a verdict, or a reply it cannot parse (a judge error) for item 7
    if i == 7:
        return Reply.ok("I cannot decide.")
    return Reply.ok("ANSWER: " + ("consistent" if i % 2 else "inconsistent"))


def config(path: Path, name: str, model: str, url: str) -> Path:
    fields = {"name": name, "model": model, "base_urls": [url], "modalities": ["text"], "max_tokens": 16,
              "max_retries": 1, "backoff_base": 0.01, "concurrency": 4}
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return path


@pytest.fixture(scope="module")
def moved_results(tmp_path_factory) -> Path:
    """Results of omibench cot_boxed of two models (rules and GPTScore) on data where the demo sets are made (so
    the demo profile), the report written, then the folder moved."""
    from analysis.run import main as analysis_main
    from infer.run import main as infer_main
    from judge.run import main as judge_main

    tmp = tmp_path_factory.mktemp("report")
    recs = [{"id": f"q{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", "subject": SUBJECTS[i % 4]} for i in range(12)]
    data = tmp / "checkout" / "data" / "demo" / "build" / "omibench.jsonl"
    data.parent.mkdir(parents=True)
    write_jsonl_atomic(data, recs)
    results = tmp / "results"
    with ScriptedServer(script=script) as srv:
        judge = config(tmp / "judge.yaml", "scripted-judge", "judge", srv.base_url)
        for name, served in (("scripted-model", "m"), ("second-model", "m2")):
            model = config(tmp / f"{name}.yaml", name, served, srv.base_url)
            assert infer_main(["--bench", "omibench", "--data", str(data), "--model", str(model), "--setting",
                               "cot_boxed", "--results", str(results)]) == 0
            for j in ("rules", "omibench_gptscore"):
                assert judge_main(["--bench", "omibench", "--data", str(data), "--model", name, "--setting", "cot_boxed",
                                   "--judge", j, "--judge-model", str(judge), "--results", str(results)]) == 0
    analysis_main(["--all", "--report", "--results", str(results), "--figures", str(tmp / "figures")])
    moved = tmp / "elsewhere" / "shared-results"
    moved.parent.mkdir()
    shutil.move(str(results), moved)
    shutil.rmtree(tmp / "figures")  # the figures the tables drew: the moved folder must not need them
    return moved


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser, url: str):
    """A page at `url`, with every script error and failed load it meets collected in `.problems`."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.problems = []
    page.on("pageerror", lambda e: page.problems.append(f"script error: {e}"))
    page.on("console", lambda m: page.problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("requestfailed", lambda r: page.problems.append(f"failed to load {r.url}"))
    page.goto(url)
    page.wait_for_load_state("load")
    return page


def test_markdown_outputs_hold_no_absolute_path_and_their_links_resolve_in_the_moved_folder(moved_results):
    """Paths into the results folder or the checkout are relative (a data file kept elsewhere is named as it is)."""
    old_results = str(moved_results.parent.parent / "results")
    for md in [report_path(moved_results, "md"), report_path(moved_results, "html"),
               *sorted(tables_dir(moved_results).glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        assert old_results not in text and str(ROOT) not in text, f"{md.name} holds an absolute path"
        for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
            assert not Path(link).is_absolute() and (md.parent / link).is_file(), f"{md.name}: broken link {link}"


def test_report_renders_tables_figures_and_contents_in_the_papers_order(browser, moved_results):
    page = open_page(browser, report_path(moved_results, "html").as_uri())
    t2 = page.locator("section[id='omibench.T2']")
    assert t2.locator("table").count() >= 2  # the table and its failures, rendered as tables, not text
    assert t2.locator("th", has_text="ACC Total").count() == 1
    failures = t2.locator(".failures").inner_text()
    # the second model's requests all answer; the judge cannot read its reply on item 7 of either model
    assert "rules: 24 answers in 2 file(s), 1 no response, 0 judge error(s)" in failures
    assert "omibench_gptscore: 24 answers in 2 file(s), 1 no response, 2 judge error(s)" in failures
    # the paper's numbers, folded until opened
    ref = t2.locator("details", has_text="The paper's numbers")
    assert not ref.locator("table").is_visible()
    ref.locator("summary").click()
    assert ref.locator("table").is_visible() and ref.locator("td", has_text="24.05").count() >= 1
    # every figure is embedded and loaded
    images = page.locator("img.figure")
    assert images.count() >= 1
    for k in range(images.count()):
        assert images.nth(k).evaluate("img => img.complete && img.naturalWidth > 0")
    # contents by paper in the papers' order, each paper's tables before its figures
    papers = page.locator("#toc h3").all_inner_texts()
    assert papers[:6] == ["Models", "Think360°", "OMIBench", "MIRA", "C²RBench", "MorphoBench"]
    omibench = [t.split(" ")[0] for t in page.locator("#toc ul").nth(2).locator("li").all_inner_texts()]
    kinds = [re.match(r"omibench\.([A-Za-z]+)", t).group(1)[0] for t in omibench]
    assert kinds.index("F") > max(i for i, k in enumerate(kinds) if k == "T")
    # the summary says which tables could not be built and what they lack
    summary = page.locator("#summary").inner_text()
    assert re.search(r"\d+ of \d+ tables and figures built", summary)
    assert "omibench.T4" in summary and "Qwen3-VL" in summary
    page.locator("#toc a[href='#omibench.T2']").click()
    assert page.evaluate("location.hash") == "#omibench.T2"
    assert page.problems == []


def test_report_escapes_what_models_write(browser, moved_results):
    html = report_path(moved_results, "html").read_text(encoding="utf-8")
    assert "<b>bold</b>" not in html and "</script> so" not in html


def test_item_browser_of_a_run_opens_from_the_report_and_filters(browser, moved_results):
    report = open_page(browser, report_path(moved_results, "html").as_uri())
    link = report.locator("#runs a", has_text="omibench/scripted-model/cot_boxed")
    assert link.count() == 1
    link.click()
    page = report
    page.wait_for_selector(".item")
    # 12 items: the main judge is GPTScore (consistent for odd items); item 5's request failed, item 7's
    # judge reply could not be read; the rule judge disagrees with GPTScore on items 2, 3, 4, 8, 9 and 10
    expected = {"all": 12, "correct": 4, "wrong": 6, "failed": 2, "flagged": 0, "disagree": 6}
    for name, n in expected.items():
        page.locator(f"button[data-filter='{name}']").click()
        assert page.locator("#count").inner_text() == str(n), name
        assert page.locator(".item").count() == n, name
    page.locator("button[data-filter='failed']").click()
    assert sorted(page.locator(".item").evaluate_all("els => els.map(e => e.dataset.id)")) == ["q5", "q7"]
    q5 = page.locator(".item[data-id='q5']").inner_text()
    assert "upstream failed" in q5 or "HTTP 500" in q5  # the request's error, not an answer
    page.locator("button[data-filter='all']").click()
    q2 = page.locator(".item[data-id='q2']")
    assert "<b>bold</b> </script>" in q2.inner_text()  # what the model wrote, shown as text
    assert q2.locator("b", has_text="bold").count() == 0
    assert "question 2" in q2.inner_text()
    assert page.problems == [] and report.problems == []


def test_the_top_says_what_ran_and_that_demo_numbers_are_not_the_papers(browser, moved_results):
    page = open_page(browser, report_path(moved_results, "html").as_uri())
    banner = page.locator("#banner")
    assert banner.is_visible() and banner.bounding_box()["y"] < 300  # at the top, without scrolling
    text = banner.inner_text()
    assert text.startswith("Demo profile") and "not comparable with the papers" in text
    assert "text-only model m (scripted-model)" in text and "m2 (second-model)" in text
    facts = dict(zip(page.locator("#header table.facts th").all_inner_texts(),
                     page.locator("#header table.facts td").all_inner_texts()))
    assert facts["profile"] == "demo"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert facts["runs made at commit"].startswith(head[:12]) and "(2 runs)" in facts["runs made at commit"]
    data = moved_results.parent.parent / "checkout" / "data" / "demo" / "build" / "omibench.jsonl"
    row = page.locator("#header tbody tr", has_text="OMIBench").first.locator("td").all_inner_texts()
    assert row[:2] == ["OMIBench", "demo"] and row[3] == hashlib.sha256(data.read_bytes()).hexdigest()[:16]
    assert row[4] == "2"
    assert page.problems == []


def test_a_click_on_a_heading_sorts_the_column_as_numbers(browser, moved_results):
    """GPTScore Total: scripted-model 4 of 12 (items 1, 3, 9, 11; 5 failed, 7 unread), second-model 5 of 12."""
    page = open_page(browser, report_path(moved_results, "html").as_uri())
    table = page.locator("section[id='omibench.T2'] table").first
    heading = table.locator("th", has_text="GPTScore Total")

    def column() -> list[list[str]]:
        k = heading.evaluate("th => th.cellIndex")
        return table.locator("tbody tr").evaluate_all(
            f"rows => rows.map(r => [r.cells[0].textContent, r.cells[{k}].textContent])")

    # each number with its Wilson interval (4 of 12, 5 of 12), sorted by the number
    heading.click()
    assert column() == [["scripted-model", "33.33 [13.81, 60.94]"], ["second-model", "41.67 [19.33, 68.05]"]]
    heading.click()
    assert column() == [["second-model", "41.67 [19.33, 68.05]"], ["scripted-model", "33.33 [13.81, 60.94]"]]
    assert heading.get_attribute("aria-sort") == "descending"
    # a wide table scrolls in its own box: the page itself does not scroll sideways
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.problems == []


def test_a_models_part_lists_its_numbers_of_every_table(browser, moved_results):
    page = open_page(browser, report_path(moved_results, "html").as_uri())
    assert page.locator("#toc a[href='#model-second-model']").count() == 1
    page.locator("#toc a[href='#model-second-model']").click()
    part = page.locator("[id='model-second-model'] section.part[data-table='omibench.T2']")
    assert part.is_visible()
    rows = part.locator("table").first.locator("tbody tr")
    assert rows.count() == 1 and rows.first.locator("td").first.inner_text() == "second-model"
    assert "41.67" in rows.first.inner_text() and "33.33" not in rows.first.inner_text()
    assert page.problems == []


def test_each_paper_has_its_findings_checked_and_says_why_they_are_not_run(browser, moved_results):
    page = open_page(browser, report_path(moved_results, "html").as_uri())
    assert page.locator("section.findings").count() == 5
    page.locator("#toc a[href='#findings-omibench']").click()
    part = page.locator("#findings-omibench")
    assert part.is_visible() and part.locator("p.tally").inner_text().endswith("not checkable.")
    rows = part.locator("tr.finding")
    assert rows.count() >= 50
    # the demo models are none of the paper's: a finding over Table 2's models is not run, and says so
    row = part.locator("tr.finding[data-id='omibench.all-below-51']")
    assert "not run: none of the paper's models" in row.inner_text()
    link = row.locator("a[href='#omibench.T2']")
    link.click()
    assert page.locator("section[id='omibench.T2']").is_visible()
    assert page.problems == []


def test_one_items_responses_of_two_models_side_by_side(browser, moved_results):
    report = open_page(browser, report_path(moved_results, "html").as_uri())
    report.locator("#runs a.compare", has_text="OMIBench").click()
    page = report
    page.wait_for_selector("#cols .run")
    page.evaluate("location.hash = 'id=q5'")
    page.wait_for_function("document.querySelector('#item h2') && document.querySelector('#item h2').textContent === 'q5'")
    runs = page.locator("#cols .run")
    assert runs.count() == 2
    first, second = runs.nth(0), runs.nth(1)
    assert "scripted-model / cot_boxed" in first.locator("h3").inner_text()
    assert "second-model / cot_boxed" in second.locator("h3").inner_text()
    assert "upstream failed" in first.inner_text() or "HTTP 500" in first.inner_text()  # its failure, not an answer
    assert first.locator(".response").count() == 0
    assert second.locator(".response").inner_text() == "The second model says \\boxed{1}."
    # side by side: the two columns share a row
    a, b = first.bounding_box(), second.bounding_box()
    assert abs(a["y"] - b["y"]) < 2 and b["x"] >= a["x"] + a["width"]
    assert "question 5" in page.locator("#item").inner_text()
    assert page.problems == []


def test_a_run_pages_item_opens_in_every_run(browser, moved_results):
    page = open_page(browser, (moved_results / "browse" / "omibench" / "second-model" / "cot_boxed.html").as_uri())
    page.wait_for_selector(".item[data-id='q2']")
    page.locator(".item[data-id='q2'] a.compare").click()
    page.wait_for_function("document.querySelector('#item h2') && document.querySelector('#item h2').textContent === 'q2'")
    assert page.locator("#cols .run").count() == 2
    assert page.problems == []


def test_sorting_keeps_a_total_row_last(browser, tmp_path):
    """A micro-averaged Total (or an Overall) sums up the rows above it: sorted either way, it stays at the end."""
    from analysis import html as H

    df = pd.DataFrame({"subject": ["Physics", "Total", "Biology", "Chemistry"], "acc": [40.0, 30.0, 10.0, 55.0]})
    page_file = tmp_path / "sort.html"
    page_file.write_text(f"<html><head><style>{H.STYLE}</style></head><body>{H.table(df)}"
                         f"<script>{H.SORT_SCRIPT}</script></body></html>", encoding="utf-8")
    page = open_page(browser, page_file.as_uri())
    first_column = lambda: page.locator("tbody tr").evaluate_all("rows => rows.map(r => r.cells[0].textContent)")  # noqa: E731
    heading = page.locator("th", has_text="acc")
    heading.click()
    assert first_column() == ["Biology", "Physics", "Chemistry", "Total"]
    heading.click()
    assert first_column() == ["Chemistry", "Physics", "Biology", "Total"]
    page.locator("th", has_text="subject").click()
    assert first_column() == ["Biology", "Chemistry", "Physics", "Total"]
    assert page.problems == []
