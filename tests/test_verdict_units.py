"""Quantities in the careful rule judge (judge/units.py, pint's conversion factors): the same quantity in another
unit of the same dimension is the same answer, another dimension or another scale is not, a bare gold takes the
unit its question asks for, and a percentage meets a fraction where the question asks for a share. Every prefix
and every conversion the judge relies on is pinned by a pair that would pass with a wrong factor only by luck."""
from __future__ import annotations

import pytest

from judge.rules import score

PREFIXES = {"p": 1e-12, "n": 1e-9, "µ": 1e-6, "m": 1e-3, "c": 1e-2, "d": 1e-1, "h": 1e2, "k": 1e3, "M": 1e6,
            "G": 1e9}


def verdict(gold: str, answer: str, question: str = "What is the value?") -> bool | None:
    rec = {"id": "u", "benchmark": "omibench", "question": question, "images": [], "choices": [], "answer": [gold],
           "answer_type": "open"}
    return score(rec, f"So the final answer is \\boxed{{{answer}}}")["correct"]


SAME = [  # (gold, answer): one quantity, two units
    ("2500 m", "2.5 km"), ("2.5 km", "2500 m"), ("3 \\times 10^{9} Hz", "3 GHz"), ("3e9 Hz", "3 GHz"),
    ("6.5 \\times 10^{-7} m", "650 nm"), ("0.012 V", "12 mV"), ("300.15 K", "27 °C"), ("26.85 °C", "300 K"),
    ("300.15 K", "27^{\\circ}C"), ("300.15 K", "27 ℃"), ("32 °F", "0 °C"), ("101.325 kPa", "1 atm"),
    ("120 min", "2 h"), ("\\frac{\\pi}{2} rad", "90°"), ("0.5 L", "500 mL"), ("2 mol/L", "2 M"),
    ("1000 J", "1 kJ"), ("4184 J", "1 kcal"), ("9.8 m/s^2", "980 cm/s^2"), ("5 cm", "50 mm"),
    ("2 cg", "20 mg"), ("1.5 \\times 10^{3} kg", "1.5 \\times 10^{6} g"), ("3.6 \\times 10^{6} J", "1 kWh"),
    ("10 m s^{-1}", "36 km/h"), ("1 \\mathrm{m\\,s^{-2}}", "100 cm s⁻²"), ("2 \\Omega", "2000 m\\Omega"),
    ("5 µm", "5000 nm"), ("5 μm", "0.005 mm"), ("12 meters", "1200 cm"), ("1 \\AA", "0.1 nm"),
]
OTHER = [  # (gold, answer): another dimension, another scale, another value
    ("2500 m", "250 m"), ("2.5 km", "250 m"), ("5 cm", "5 mm"), ("5 mm", "5 cm"), ("2 cg", "2 mg"),
    ("5 m", "5 km"), ("3 GHz", "3 \\times 10^{6} Hz"), ("27 °C", "27 K"), ("300.15 K", "300.15 °C"),
    ("5 J", "5 W"), ("5 m", "5 s"), ("9.8 m/s^2", "9.8 m/s"), ("2 M", "2 mol"), ("1 atm", "1 kPa"),
    ("90°", "90 rad"), ("1 kcal", "1 kJ"), ("12 mV", "12 V"), ("0.5 L", "0.5 mL"),
]


@pytest.mark.parametrize("gold,answer", SAME, ids=[f"{g}|{a}" for g, a in SAME])
def test_the_same_quantity_in_another_unit_is_right(gold, answer):
    assert verdict(gold, answer) is True


@pytest.mark.parametrize("gold,answer", OTHER, ids=[f"{g}|{a}" for g, a in OTHER])
def test_another_dimension_scale_or_value_is_wrong(gold, answer):
    assert verdict(gold, answer) is False


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_prefix_is_worth_its_factor_on_either_side(prefix):
    factor = PREFIXES[prefix]
    assert verdict(f"{factor:g} m", f"1 {prefix}m") is True
    assert verdict(f"1 {prefix}m", f"{factor:g} m") is True
    assert verdict(f"{factor * 10:g} m", f"1 {prefix}m") is False  # a factor off by ten is another answer
    assert verdict(f"1 {prefix}g", f"{factor / 1000:g} kg") is True  # kilogram is the base: grams convert too


@pytest.mark.parametrize("a,b", [("m", "c"), ("m", "µ"), ("c", "d"), ("k", "M"), ("n", "p"), ("M", "G")])
def test_neighbouring_prefixes_are_told_apart(a, b):
    assert verdict(f"5 {a}m", f"5 {b}m") is False
    assert verdict(f"5 {a}g", f"5 {b}g") is False


ASKED = [  # (question, bare gold, answer, verdict)
    ("What is the length (in cm)?", "12", "12 cm", True),
    ("What is the length (in cm)?", "12", "120 mm", True),
    ("What is the length (in cm)?", "12", "12", True),
    ("What is the length (in cm)?", "12", "12 mm", False),
    ("What is the length in cm?", "12", "0.12 m", True),
    ("What is the length in cm?", "12", "12 m", False),
    ("Give the energy in units of kJ/mol.", "40", "40000 J/mol", True),
    ("Give the energy in units of kJ/mol.", "40", "40 J/mol", False),
    ("Give the energy in kJ/mol.", "40", "40 kJ", False),  # another dimension than the one asked
    ("What is the distance in the figure?", "12", "12 mm", True),  # "in the figure" asks no unit
]


@pytest.mark.parametrize("question,gold,answer,expected", ASKED, ids=[f"{q}|{a}" for q, _, a, _ in ASKED])
def test_a_bare_gold_takes_the_unit_its_question_asks_for(question, gold, answer, expected):
    assert verdict(gold, answer, question) is expected


SHARES = [  # (question, gold, answer, verdict)
    ("What fraction of the cells are black?", "0.25", "25%", True),
    ("What fraction of the cells are black?", "0.25", "25 \\%", True),
    ("What fraction of the cells are black?", "0.25", "0.25%", False),
    ("What fraction of the cells are black?", "0.25", "2.5%", False),
    ("What proportion of the cells are black?", "25%", "0.25", True),
    ("What share of the cells is black?", "25%", "0.3", False),
    ("What percentage of the cells are black?", "25", "25%", True),
    ("What percentage of the cells are black?", "25%", "25", True),
    ("What percentage of the cells are black?", "25%", "0.25", True),
    ("What percentage of the cells are black?", "25%", "0.025", False),
    ("What is the probability of drawing a red ball?", "0.4", "40%", True),
    ("How many cells are black?", "25", "0.25", False),
]


@pytest.mark.parametrize("question,gold,answer,expected", SHARES, ids=[f"{q}|{g}|{a}" for q, g, a, _ in SHARES])
def test_a_percentage_meets_a_fraction_where_the_question_asks_for_a_share(question, gold, answer, expected):
    assert verdict(gold, answer, question) is expected


def test_an_unreadable_unit_or_a_unit_on_one_side_leaves_the_value_to_decide():
    assert verdict("5", "5 apples") is True
    assert verdict("5 apples", "5") is True
    assert verdict("5 m", "5") is True  # the answer's value; the question asks no unit
    assert verdict("5 m", "6") is False
