"""``python -m data.generate circuits``: N circuit black-box items of one level, written as
MorphoBench's official format.

Output, under OUT/Morpho_G_circuits/ (a run is named ``L<level>-s<seed>``, or ``L<level>-<design>-s<seed>``
for a design other than the default, so runs of both designs sit side by side)::

    L03-s0.parquet            one row per item (the converter's columns; see below)
    L03-s0/0000/question.png  the question image: the true circuit's output waveform
    L03-s0/0000/waveform.csv  that waveform as data: time_s, voltage_v (5001 rows, 0–20 ms)
    L03-s0/0000/A.cir … E.cir each listed option as a complete ngspice deck (netlist + the
                              question's sources + the analysis; `spice.deck`): `ngspice -b -n A.cir`
                              rewrites out.raw
    L03-s0/0000/truth.cir     the true circuit's deck (the same as the answer's, or the hidden one)
    L03-s0/0000/check.csv     option, its terminal count, nrms to the truth, is_answer

Row columns: ``index`` (``L03-s0-0000``), ``distractor_design`` (``same_count`` or ``fig7``:
`circuit_items` says what each means), ``question`` (the Fig. 7 template filled in: terminals,
input table, the five netlists and "None of the above"), ``hint`` (empty), ``answer`` (a letter),
``image_base64``, ``caption`` (the plot in words, for text-only models), ``split``, ``level``,
``discipline``, ``task``, the taxonomy (RSYN-CLO-FLOW, Appendix A.1) and the data to recheck the item:
``signals``, ``netlists`` (A–E as listed), ``option_terminals`` (their terminal counts),
``true_netlist``, ``option_nrms``, ``nrms_min``,
``data_dir`` (the item's folder, relative to the parquet file), ``seed``.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm import tqdm

from data.generate.circuit_items import LETTERS, NONE_OF_THE_ABOVE, CircuitItem, make_item
from data.generate.distractors import DEFAULT_DESIGN, NRMS_MIN
from data.generate.common import SPLIT_CIRCUITS, fill_template, fmt, item_rng, png_data_url, write_run
from data.generate.netlist import netlist
from data.generate.spice import deck
from data.generate.waveform import caption, csv_bytes, plot_png


TEMPLATE = "morpho_g_circuit"
SCHEMA = pa.schema([
    ("index", pa.string()), ("distractor_design", pa.string()), ("question", pa.string()), ("hint", pa.string()),
    ("answer", pa.string()),
    ("image_base64", pa.string()), ("caption", pa.string()), ("split", pa.string()), ("level", pa.int64()),
    ("discipline", pa.string()), ("task", pa.string()),
    ("task_type", pa.string()), ("knowledge", pa.string()), ("sub_task_types", pa.string()),
    ("signals", pa.list_(pa.struct([("terminal", pa.int64()), ("amplitude", pa.float64()),
                                    ("frequency", pa.float64())]))),
    ("netlists", pa.list_(pa.string())), ("option_terminals", pa.list_(pa.int64())), ("true_netlist", pa.string()),
    ("option_nrms", pa.list_(pa.float64())), ("nrms_min", pa.float64()),
    ("data_dir", pa.string()), ("seed", pa.int64()),
])


def run_name(level: int, seed: int, design: str = DEFAULT_DESIGN) -> str:
    return f"L{level:02d}-s{seed}" if design == DEFAULT_DESIGN else f"L{level:02d}-{design}-s{seed}"


def question(item: CircuitItem) -> str:
    rows = "\n".join(f"{s.terminal}\t{fmt(s.amplitude)}\t{fmt(s.frequency)}" for s in item.signals)
    options = "\n".join(f"- ({letter})\n```\n{text.rstrip()}\n```" for letter, text in zip(LETTERS, item.netlists()))
    return fill_template(TEMPLATE, {"n": str(item.level), "signal_rows": rows, "options": options})


def item_files(item: CircuitItem, png: bytes) -> dict[str, bytes]:
    files = {"question.png": png, "waveform.csv": csv_bytes(item.waveform),
             "truth.cir": deck(netlist(item.truth), item.signals).encode("ascii")}
    for letter, text in zip(LETTERS, item.netlists()):
        files[f"{letter}.cir"] = deck(text, item.signals).encode("ascii")
    check = ["option,terminals,nrms,is_answer"] + [
        f"{x},{count},{fmt(d, 6)},{int(x == item.answer)}"
        for x, count, d in zip(LETTERS, item.terminal_counts(), item.nrms)]
    check.append(f"{NONE_OF_THE_ABOVE},,,{int(item.answer == NONE_OF_THE_ABOVE)}")
    files["check.csv"] = ("\n".join(check) + "\n").encode("ascii")
    return files


def row(item: CircuitItem, index: str, data_dir: str, png: bytes, seed: int) -> dict[str, Any]:
    return {
        "index": index, "distractor_design": item.design, "question": question(item), "hint": "",
        "answer": item.answer,
        "image_base64": png_data_url(png), "caption": caption(item.waveform, item.signals), "split": SPLIT_CIRCUITS,
        "level": item.level, "discipline": "Engineering", "task": "circuit_blackbox",
        "task_type": "RSYN", "knowledge": "CLO", "sub_task_types": "FLOW",
        "signals": [{"terminal": s.terminal, "amplitude": s.amplitude, "frequency": float(s.frequency)}
                    for s in item.signals],
        "netlists": item.netlists(), "option_terminals": item.terminal_counts(), "true_netlist": netlist(item.truth),
        "option_nrms": [round(d, 6) for d in item.nrms], "nrms_min": NRMS_MIN,
        "data_dir": data_dir, "seed": seed,
    }


def item_random(seed: int, level: int, i: int) -> random.Random:
    """Item i's generator. The design is not part of its seed: item i of either design draws the same
    answer, and the same inputs and true circuit unless a design has to draw its circuit again, so the
    designs differ in their distractors."""
    return item_rng("circuits", seed, f"L{level}", i)


def generate(out: Path, n: int, level: int, seed: int, progress: bool = True,
             design: str = DEFAULT_DESIGN) -> Path:
    """Write N items of `level` whose distractors follow `design` under OUT/Morpho_G_circuits/; return
    the parquet file."""
    run = run_name(level, seed, design)
    rows, files = [], {}
    for i in tqdm(range(n), desc=f"circuits {run}", unit="item", disable=not progress):
        item = make_item(item_random(seed, level, i), level, design)
        png = plot_png(item.waveform)
        key = f"{i:04d}"
        rows.append(row(item, f"{run}-{key}", f"{run}/{key}", png, seed))
        files[key] = item_files(item, png)
    return write_run(Path(out) / SPLIT_CIRCUITS, run, rows, SCHEMA, files)
