"""The item browser, `python -m analysis.browse [--results results]`: for every run (raw file), a static page
results/browse/<bench>/<model>/<setting>.html showing each answer with its record, the prompt as the harness
renders it, the response and every judge's current verdict (judge/current.py: the verdict of that very outcome,
judged against the record now, by the judge last asked for; an answer without one is shown `unjudged`, with why
its last verdict is not current).

Pages are opened from disk (file://), where browsers block fetch() of local files: a page embeds a compact index
of its items (id, sample, filter bits) and loads their details from chunk scripts beside it (<setting>.items-0000.js,
…) by injecting <script src>. Images are copied, content-addressed and downscaled, to results/browse/media/; every
link is relative, so the results folder can be moved. A run whose inputs did not change (<setting>.stamp.json) is
not written again. Beside them, results/browse/<bench>/compare.html shows one item's answers of every run of the
benchmark side by side, read from the same chunk files."""
from __future__ import annotations

import argparse
import hashlib
import html
import io
import json
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from PIL import Image

from analysis.data_location import locate, named_data, shown_data
from analysis.inputs import (Run, every_line, find_runs, latest, read_json, read_records, record_digests,
                             shown)
from analysis.table import relative
from analysis.unreadable import DATA_PROBLEMS, one_line
from data.files import file_version
from data.records import IMAGE_TAG, image_tags
from infer import layout
from infer.progress import bar as progress_bar
from infer.prompting import Prompter
from infer.settings import parse_setting
from infer.templates import PROMPTS
from judge import current
from judge.judges import JUDGES, RULES, asks_model

log = logging.getLogger(__name__)
ASSETS = Path(__file__).with_name("browse_assets")
CHUNK, PER_PAGE, MEDIA_PX = 200, 50, 1024
BITS = {"correct": 1, "wrong": 2, "failed": 4, "flagged": 8, "disagree": 16, "unjudged": 32}
FILTERS = ("all", *BITS)
FAILED = ("no_response", "judge_error")  # a verdict status that puts an answer under "failed"
SAVE_AS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp", "GIF": ".gif"}
# A change of this module or its assets makes every page be written again.
ASSET_FILES = ("items.js", "browse.js", "compare.js", "browse.css")
CODE = hashlib.sha256(b"".join(p.read_bytes() for p in (Path(__file__), *(ASSETS / a for a in ASSET_FILES)))
                      ).hexdigest()[:16]


@dataclass(frozen=True)
class RunPage:
    """One run's page and the number of its answers in each filter."""

    bench: str
    model: str
    setting: str
    path: Path            # results/browse/<bench>/<model>/<setting>.html
    items: int            # raw (id, sample_idx) answers shown
    correct: int
    wrong: int
    failed: int
    flagged: int
    disagree: int
    unjudged: int         # answers some judge of the page has no current verdict of
    # each answer's item id and sample, in page order (for the side-by-side page; not part of what a page counts)
    ids: tuple[str, ...] = field(default=(), compare=False, repr=False)
    samples: tuple[int, ...] = field(default=(), compare=False, repr=False)
    unreadable: str | None = None  # why the run's files cannot be read (its page says so and shows no item)


def js_json(obj: Any) -> str:
    """JSON safe inside a <script>: no character of it can close the script, start markup or end a JS line."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _write(path: Path, data: str | bytes) -> None:
    """All or nothing: a temporary file renamed over the target, so a killed run leaves no half page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; pages are for sharing
    os.replace(tmp, path)


@lru_cache(maxsize=65536)
def _media(src: str, _version: tuple[int, int] | None, out: str) -> str:
    """The media file name of an image: its content hash, written once, downscaled when large."""
    data = Path(src).read_bytes()
    with Image.open(io.BytesIO(data)) as im:
        fmt, large = im.format, max(im.size) > MEDIA_PX
        ext = SAVE_AS.get(fmt or "", ".png") if large else (Path(src).suffix.lower() or ".png")
        name = hashlib.sha256(data).hexdigest()[:16] + ext
        if not (Path(out) / name).exists():
            if large:
                im.thumbnail((MEDIA_PX, MEDIA_PX))
                buf = io.BytesIO()
                im.save(buf, format=fmt if fmt in SAVE_AS else "PNG")
                data = buf.getvalue()
            _write(Path(out) / name, data)
    return name


def image(path: Path, media: Path) -> dict[str, str]:
    """An image as a page shows it: {"img": its copy in `media` relative to the page, "alt"}, or {"missing": why}."""
    try:  # pages are at browse/<bench>/<model>/, the copies at browse/media/
        return {"img": "../../media/" + _media(str(path), file_version(path), str(media)), "alt": path.name}
    except Exception as e:  # missing or undecodable: said in place of the image (an OSError's text names its path)
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        return {"missing": f"image {shown_data(path)}: {type(e).__name__}: {why}"}


def rich(text: str, images: list[str], base: Path, media: Path) -> list[Any]:
    """Text with each [IMAGEn] tag replaced by that image."""
    out, pos = [], 0
    for m in IMAGE_TAG.finditer(text):
        k = int(m.group(1))
        out += [text[pos:m.start()], image(base / images[k], media) if k < len(images) else {"missing": m.group(0)}]
        pos = m.end()
    return [p for p in out + [text[pos:]] if p]


def prompt_parts(messages: list[dict[str, Any]], media: Path) -> list[dict[str, Any]]:
    def part(p: dict[str, Any]) -> Any:
        if p["type"] == "text":
            return p["text"]
        return image(Path(p["path"]), media) if p["type"] == "image_ref" else json.dumps(p)
    return [{"role": m["role"], "content": [m["content"]] if isinstance(m["content"], str)
             else [part(p) for p in m["content"]]} for m in messages]


def record_view(rec: dict[str, Any] | None, base: Path, media: Path, data: Path | None) -> dict[str, Any]:
    if rec is None:
        return {"question": [], "choices": [], "answer": None,
                "record_error": f"no record of this id in {shown_data(data) if data else 'the data file (not found)'}"}
    images = rec.get("images") or []
    tagged = set(image_tags(rec["question"])) | {k for c in rec.get("choices") or [] for k in image_tags(c)}
    question = rich(rec["question"], images, base, media)
    question += [image(base / p, media) for k, p in enumerate(images) if k not in tagged]  # where {{images}} puts them
    return {"question": question, "choices": [rich(c, images, base, media) for c in rec.get("choices") or []],
            "answer": [str(a) for a in rec.get("answer") or []], "record_error": None}


def verdict_view(v: dict[str, Any] | None, judge: str, main: bool, stale: str | None = None) -> dict[str, Any]:
    """A judge's current verdict of an answer as the page shows it; without one (`v` None), status unjudged and
    why the last verdict of the answer, if any, is not current (`stale`)."""
    if v is None:
        return {"judge": judge, "main": main, "model": None, "status": current.UNJUDGED, "extracted": None,
                "reply": None, "stale": stale}
    return {"judge": judge, "main": main, "model": (v.get("judge") or {}).get("model"),
            **{k: v.get(k) for k in ("status", "correct", "score", "labels", "subtypes", "flags", "error", "stage",
                                     "reason")},
            "extracted": None if v.get("extracted") is None else str(v["extracted"]), "reply": v.get("raw_judge_reply"),
            "stale": None}


def said(v: dict[str, Any]) -> bool | None:
    """A verdict's correct (True) or wrong (False) when it is an ok correctness verdict, else None."""
    return v["correct"] if v.get("status") == "ok" and isinstance(v.get("correct"), bool) else None


def bits(raw: dict[str, Any], verdicts: dict[str, dict[str, Any]], main: str | None, unjudged: bool = False) -> int:
    """The filters an answer is in. Correct/wrong: the main judge's current verdict; disagree: two judges' ok
    verdicts; unjudged: a judge of the page has no current verdict of it."""
    ok = {j: said(v) for j, v in verdicts.items() if said(v) is not None}
    b = (BITS["correct"] if ok[main] else BITS["wrong"]) if main in ok else 0
    if raw.get("error") is not None or any(v.get("status") in FAILED for v in verdicts.values()):
        b |= BITS["failed"]
    if any(v.get("flags") for v in verdicts.values()):
        b |= BITS["flagged"]
    return b | (BITS["disagree"] if len(set(ok.values())) > 1 else 0) | (BITS["unjudged"] if unjudged else 0)


def main_judge(verdicts: dict[str, dict[Any, dict[str, Any]]]) -> str | None:
    """The first judge that asks a model (the paper's LLM judge) with at least one ok correct/wrong verdict,
    else the careful rule judge, else another rule judge (a paper's published rule such as omibench_c1)."""
    return next((j for j, vs in verdicts.items() if asks_model(j) and any(said(v) is not None for v in vs.values())),
                RULES if RULES in verdicts else next((j for j in verdicts if j in JUDGES and not asks_model(j)), None))


def prompts_of(manifest: dict[str, Any], bench: str) -> tuple[Path, list[Path]]:
    """The prompts folder the run used (its manifest's template paths) while it is there, else the checkout's;
    and the run's template files in it."""
    found = [(p, next((a.parent for a in p.parents if a.name == bench), p.parent))
             for p in map(layout.from_record, manifest.get("templates") or {})]
    if found and all(p.exists() for p, _ in found) and len({root for _, root in found}) == 1:
        return found[0][1], [p for p, _ in found]
    return PROMPTS, [PROMPTS / p.relative_to(root) for p, root in found]


def data_of(manifest: dict[str, Any]) -> Path | None:
    """The run's data file in this checkout (found by its path or its checksum: analysis/data_location.py)."""
    named = named_data(manifest)
    return locate(named) if named else None


def header(bench: str, model: str, setting: str, manifest: dict[str, Any], data: Path | None, view: RunView) -> str:
    e, stands_for = html.escape, layout.stands_for(setting, manifest)
    return (f"<h1>{e(bench)} / {e(model)} / {e(setting)}</h1>"
            + (f"<p>stands for the setting {e(stands_for)}</p>" if stands_for != setting else "")
            + f"<p>data: {e(shown_data(data)) if data else 'not found (see the raw manifest)'}; "
            f"params: {e(json.dumps(manifest.get('params') or {}, ensure_ascii=False))}</p>"
            f"<p>judges: {e(', '.join(view.judges)) or 'none yet'}. Correct / wrong as judged by <b>"
            f"{e(view.main or 'no judge')}</b> (the first LLM judge with a correct/wrong verdict, else the rule "
            "judge rules); judges disagree: two judges' ok verdicts differ.</p>"
            + "".join(f"<p class='warn'>{e(n)}</p>" for n in view.notes))


def asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def page_html(title: str, head: str, index: dict[str, Any], counts: dict[str, int]) -> str:
    buttons = "".join(f"<button type='button' data-filter='{f}'>{f if f != 'disagree' else 'judges disagree'}"
                      f"<span class='n'>{counts[f]}</span></button>" for f in FILTERS)
    css, js = asset("browse.css"), asset("items.js") + asset("browse.js")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{css}</style></head><body><header>{head}</header><div id='bar'>{buttons}"
            "<input id='search' type='search' placeholder='id contains…' aria-label='search ids'>"
            f"<span><span id='count'>{counts['all']}</span> items</span>"
            "<button type='button' id='prev'>‹ prev</button><span id='page'></span>"
            "<button type='button' id='next'>next ›</button></div>"
            "<main id='items'><noscript>This page needs JavaScript to show the items.</noscript></main>"
            f"<script>window.BROWSE_INDEX = {js_json(index)};</script><script>{js}</script></body></html>")


class RunView:
    """What each answer of one run is shown with: its record, the prompter, every judge's verdict."""

    def __init__(self, results: Path, bench: str, setting: str, raw: dict[Any, dict[str, Any]], judged: list[Run],
                 manifest: dict[str, Any], data: Path | None, prompts: Path):
        self.raw, self.data = raw, data
        self.verdicts: dict[str, dict[Any, dict[str, Any]]] = {}  # judge → the current verdict of each answer
        self.stale: dict[str, dict[Any, str]] = {}  # judge → why an unjudged answer's last verdict is not current
        for r in judged:
            lines, judge = every_line(r.path), r.judge_asked
            digests = record_digests(r.data) if r.data else None
            self.verdicts[r.judge] = now = current.current(lines, raw.values(), digests, judge)
            last = {(v["id"], v["sample_idx"]): v for v in lines}
            self.stale[r.judge] = {k: current.why_not_current(v, raw[k], digests, judge) or "is not current"
                                   for k, v in last.items() if k in raw and k not in now}
        self.main = main_judge(self.verdicts)
        self.judges = sorted(self.verdicts, key=lambda j: j != self.main)  # the main judge first
        self.notes, self.records, self.prompter, self.prompt_error = [], {}, None, None
        try:
            self.records = read_records(data) if data else {}
        except Exception as e:
            self.notes.append(f"data file unreadable: {type(e).__name__}: {e}")
        try:
            self.prompter = Prompter(bench, parse_setting(setting), list(self.records.values()), prompts,
                                     derived=layout.derived_dir(results))
            used = manifest.get("templates")  # the template hashes the run was sent with
            if used and set(self.prompter.shas().values()) != set(used.values()):
                self.notes.append("The prompt template changed since this run: the prompts shown are rendered "
                                  "from the current one.")
        except Exception as e:
            self.prompt_error = f"prompt not rendered: {type(e).__name__}: {e}"
            self.notes.append(self.prompt_error)
        position = {rid: i for i, rid in enumerate(self.records)}
        self.keys = sorted(raw, key=lambda k: (position.get(k[0], len(position)), str(k[0]), k[1]))
        self.media, self.base = layout.browse_media_dir(results), data.parent if data else results

    def item(self, key: Any) -> tuple[dict[str, Any], int]:
        """One answer's details and its filter bits."""
        r, rec = self.raw[key], self.records.get(str(key[0]))
        mine = {j: self.verdicts[j][key] for j in self.judges if key in self.verdicts[j]}
        try:
            shown_rec = record_view(rec, self.base, self.media, self.data)
        except Exception as e:  # a malformed record shows why; the page goes on
            shown_rec = {"question": [], "choices": [], "answer": None, "record_error": f"{type(e).__name__}: {e}"}
        item = {"id": key[0], "s": key[1], **shown_rec, "prompt": None,
                "prompt_error": self.prompt_error, "response": r.get("response"), "reasoning": r.get("reasoning"),
                "error": r.get("error"), **{k: r.get(k) for k in ("finish_reason", "usage", "latency_s")},
                "verdicts": [verdict_view(mine.get(j), j, j == self.main, self.stale[j].get(key)) for j in self.judges]}
        if self.prompter and rec is not None:
            try:
                item["prompt"] = prompt_parts(self.prompter.messages(rec, self.base), self.media)
            except Exception as e:  # one record that cannot be rendered shows why; the page goes on
                item["prompt_error"] = f"prompt not rendered: {type(e).__name__}: {e}"
        return item, bits(r, mine, self.main, len(mine) < len(self.judges))


def write_run(results: Path, bench: str, model: str, setting: str, judged: list[Run]) -> RunPage:
    """Write one run's page and chunks, or keep them when none of their inputs changed."""
    raw_path = layout.raw_path(results, bench, model, setting)
    manifest = read_json(layout.manifest_of(raw_path))
    data, (prompts, templates) = data_of(manifest), prompts_of(manifest, bench)
    page = layout.browse_page(results, bench, model, setting)
    stamp_path = layout.browse_stamp(page)
    files = [raw_path, layout.manifest_of(raw_path), *(r.path for r in judged), *templates, data]
    inputs = json.loads(json.dumps({"code": CODE, "files": {layout.recorded(p): file_version(p) for p in files if p}}))
    try:
        stamp = read_json(stamp_path)
    except ValueError:  # unreadable: written again
        stamp = {}
    if stamp.get("inputs") == inputs and "ids" in stamp and page.exists() and all(
            layout.browse_chunk(page, k).exists() for k in range(stamp["chunks"])):
        return RunPage(bench, model, setting, page, **stamp["counts"], ids=tuple(stamp["ids"]),
                       samples=tuple(stamp["samples"]))

    view = RunView(results, bench, setting, latest(raw_path), judged, manifest, data, prompts)
    flags: list[int] = []
    for k in range(0, len(view.keys), CHUNK):  # a chunk at a time: a large run is never held rendered whole
        items = [view.item(key) for key in view.keys[k:k + CHUNK]]
        flags += [b for _, b in items]
        _write(layout.browse_chunk(page, k // CHUNK),
               f"browseChunk({k // CHUNK},{js_json([i for i, _ in items])});\n")
    n_chunks = (len(view.keys) + CHUNK - 1) // CHUNK
    for k, old in layout.browse_chunks(page).items():
        if k >= n_chunks:  # left by a larger earlier run
            old.unlink()
    counts = {"items": len(flags), **{f: sum(1 for b in flags if b & bit) for f, bit in BITS.items()}}
    index = {"ids": [str(k[0]) for k in view.keys], "s": [k[1] for k in view.keys], "f": flags, "chunk": CHUNK,
             "per": PER_PAGE, "samples": any(k[1] != 0 for k in view.keys) or (manifest.get("n") or 1) > 1,
             "base": quote(layout.browse_chunk_prefix(page), safe="+=,@")}
    head = header(bench, model, setting, manifest, data, view)
    _write(page, page_html(f"{bench}/{model}/{setting}", head, index, {"all": len(flags), **counts}))
    _write(stamp_path, json.dumps({"inputs": inputs, "chunks": n_chunks, "counts": counts, "ids": index["ids"],
                                   "samples": index["s"]}, indent=1))
    log.info("%s: %d items written", shown(page), len(flags))
    return RunPage(bench, model, setting, page, **counts, ids=tuple(index["ids"]), samples=tuple(index["s"]))


def write_unreadable(results: Path, bench: str, model: str, setting: str, reason: str) -> RunPage:
    """The page of a run whose files cannot be read: why, and no item (its chunks and stamp removed, so that the page
    is made again once the files are mended)."""
    page = layout.browse_page(results, bench, model, setting)
    layout.browse_stamp(page).unlink(missing_ok=True)
    for old in layout.browse_chunks(page).values():
        old.unlink()
    head = (f"<h1>{html.escape(bench)} / {html.escape(model)} / {html.escape(setting)}</h1>"
            f"<p class='warn'>This run cannot be read: {html.escape(reason)}</p>")
    _write(page, f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(bench)}/"
                 f"{html.escape(model)}/{html.escape(setting)}: cannot be read</title><style>{asset('browse.css')}"
                 f"</style></head><body><header>{head}</header></body></html>")
    log.warning("%s: cannot be read: %s", shown(page), reason)
    return RunPage(bench, model, setting, page, *(0,) * 7, unreadable=reason)


def write_compare(results: Path, bench: str, pages: list[RunPage]) -> Path:
    """The page of one item across every run of `bench`, side by side: an index of where each run's answers to
    each item sit in its chunk files (the runs' own, read by the page as their run pages read them)."""
    path = layout.browse_compare(results, bench)
    ids = list(dict.fromkeys(i for p in pages for i in p.ids))
    position = {i: k for k, i in enumerate(ids)}
    runs = [{"model": p.model, "setting": p.setting, "dir": quote(p.model, safe="+=,@") + "/",
             "page": quote(p.path.name, safe="+=,@"), "prefix": quote(layout.browse_chunk_prefix(p.path), safe="+=,@"),
             "pos": [position[i] for i in p.ids], "s": list(p.samples)}
            for p in sorted(pages, key=lambda p: (p.model, p.setting))]
    head = (f"<h1>{html.escape(bench)}: one item across runs</h1><p>Each run's answers to the item chosen, side by "
            "side: the response, the request's failure if any, and every judge's verdict (the tag is the run's main "
            "judge, as on its own page). A run without the item says so.</p>")
    bar = ("<div id='bar'><label>item <input id='id' list='ids' aria-label='item id'></label><datalist id='ids'>"
           "</datalist><button type='button' id='prev'>‹ prev</button><button type='button' id='next'>next ›</button>"
           "<input id='runs' type='search' placeholder='runs: model or setting contains…' aria-label='filter runs'>"
           "<span id='count'></span></div>")
    _write(path, f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(bench)}: one item "
                 f"across runs</title><style>{asset('browse.css')}</style></head><body><header>{head}</header>{bar}"
                 "<main><div id='item'><noscript>This page needs JavaScript.</noscript></div><div id='cols'></div></main>"
                 f"<script>window.COMPARE_INDEX = {js_json({'ids': ids, 'chunk': CHUNK, 'runs': runs})};</script>"
                 f"<script>{asset('items.js') + asset('compare.js')}</script></body></html>")
    return path


def write_browsers(results: Path) -> list[RunPage]:
    """A page for every raw file under `results` (kept as it is when none of its inputs changed)."""
    results = Path(results)
    runs = [layout.parse_raw(p) for p in layout.raw_files(results)]
    judged = {bench: find_runs(results, bench) for bench in sorted({r.bench for r in runs})}
    pages = []
    for _, bench, model, setting in progress_bar(runs, desc="browse", unit="run", disable=None):
        mine = [r for r in judged[bench] if r.model == model and r.setting == setting]
        try:
            pages.append(write_run(results, bench, model, setting, mine))
        except DATA_PROBLEMS as e:  # one run's file cannot be read: its page says why, the others are written
            pages.append(write_unreadable(results, bench, model, setting, relative(one_line(e), results)))
    for bench in judged:
        write_compare(results, bench, [p for p in pages if p.bench == bench])
    return pages


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m analysis.browse", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=layout.RESULTS)
    args = ap.parse_args(argv)
    pages = write_browsers(args.results)
    for p in pages:
        if p.unreadable:
            print(f"{layout.printed(p.path)}: cannot be read: {p.unreadable}")
            continue
        print(f"{layout.printed(p.path)}: {p.items} items ({p.correct} correct, {p.wrong} wrong, {p.failed} failed"
              + (f", {p.unjudged} unjudged" if p.unjudged else "") + ")")
    print(f"{len(pages)} run page(s) under {layout.printed(layout.browse_dir(args.results))}, and one page per "
          "benchmark of each item across its runs (compare.html)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
