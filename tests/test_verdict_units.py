"""Quantities as a careful grader reads them: the same quantity in another unit is the same answer, each
class with its accepted answers and its rejected neighbours.

- Units of one dimension are converted (pint) and the values compared within the gold's precision, in
  the gold's unit: 2.5 km = 2500 m, 3 GHz = 3×10⁹ Hz, 27 °C = 300.15 K (an offset, not a scale),
  90° = π/2 rad. Another prefix is another value (5 mm is not 5 cm), another dimension another answer
  (5 J is not 5 W), however either side spells its unit (LaTeX, Unicode exponents, µ/μ, Ω, ℃, words).
- A unit we cannot read, or a unit on one side only, leaves the answer to its value.
- The question's asked unit ("in cm") is the unit of a bare gold; a question asking a proportion makes
  0.25 and 25 % one answer.
"""
from __future__ import annotations

import pytest

from judge import quantities, units
from judge.match import match_one
from judge.rules import score


def rec(answer, question="Q", **kw):
    return {"id": "t", "benchmark": "omibench", "question": question, "images": [], "choices": [],
            "answer": list(answer), "answer_type": "open", **kw}


def boxed(gold, response, question="Q"):
    return score(rec([gold], question), f"The final answer is \\boxed{{{response}}}")["correct"]


def ids(cases):
    return [f"{c[0]}|{c[1]}" + (f"|{c[3]}" if len(c) > 3 else "") for c in cases]


# --------------------------------------------------------------------------------------------------
# 1. Every SI prefix from p to G, on both sides: the converted value, and the same digits with another prefix
# --------------------------------------------------------------------------------------------------
PREFIXES = [
    ("2500 m", "2.5 km", True), ("2.5 km", "2500 m", True), ("250 m", "2.5 km", False),
    ("5 m", "5 km", False), ("5 km", "5 m", False),
    ("3 GHz", "3e9 Hz", True), ("3e9 Hz", "3 GHz", True), ("3 \\times 10^{9} Hz", "3 GHz", True),
    ("3×10⁹ Hz", "3 GHz", True), ("3 GHz", "3e6 Hz", False), ("3 GHz", "3 MHz", False),
    ("2 MPa", "2000 kPa", True), ("2000000 Pa", "2 MPa", True), ("2 MPa", "2 kPa", False),
    ("1013 hPa", "101.3 kPa", True), ("101.3 kPa", "1013 hPa", True), ("1013 hPa", "1013 kPa", False),
    ("1.5 L", "15 dL", True), ("15 dL", "1.5 L", True), ("15 dL", "15 mL", False),
    ("5 cm", "50 mm", True), ("50 mm", "5 cm", True), ("5 cm", "5 mm", False), ("5 mm", "5 cm", False),
    ("2 cg", "20 mg", True), ("20 mg", "2 cg", True), ("2 cg", "2 mg", False), ("2 mg", "2 cg", False),
    ("7 mm", "0.7 cm", True), ("7 mm", "7000 µm", True), ("7000 µm", "7 mm", True), ("7 mm", "7 µm", False),
    ("7 µm", "7 mm", False), ("7 cm", "7 µm", False),
    ("0.012 V", "12 mV", True), ("12 mV", "0.012 V", True), ("12 mV", "12000 µV", True), ("12 mV", "12 µV", False),
    ("5 µm", "5000 nm", True), ("5000 nm", "5 µm", True), ("5 μm", "0.005 mm", True), ("5 µm", "5 nm", False),
    ("650 nm", "6.5×10⁻⁷ m", True), ("6.5×10⁻⁷ m", "650 nm", True), ("650 nm", "6.5 \\times 10^{-7} m", True),
    ("650 nm", "6.5×10⁻⁶ m", False),
    ("3 pF", "0.003 nF", True), ("0.003 nF", "3 pF", True), ("3 pF", "3 nF", False), ("3 nF", "3 pF", False),
    ("2 fs", "0.002 ps", True), ("2 fs", "2 ps", False),
    ("2500.05 m", "2.50005 km", True), ("2.5 km", "2500.05 m", True), ("2.5 km", "2500.5 m", False),  # gold's precision
]


@pytest.mark.parametrize("gold,response,expected", PREFIXES, ids=ids(PREFIXES))
def test_a_prefix_is_converted_and_another_prefix_is_another_value(gold, response, expected):
    assert boxed(gold, response) is expected


@pytest.mark.parametrize("prefix,factor", [("p", 1e-12), ("n", 1e-9), ("µ", 1e-6), ("μ", 1e-6), ("m", 1e-3),
                                           ("c", 1e-2), ("d", 1e-1), ("", 1.0), ("h", 1e2), ("k", 1e3),
                                           ("M", 1e6), ("G", 1e9)])
def test_each_prefix_is_its_power_of_ten(prefix, factor):
    metre = units.read("m")
    (value,) = units.in_unit(1.0, units.read(prefix + "m"), metre)
    assert value == pytest.approx(factor, rel=1e-12)
    (back,) = units.in_unit(factor, metre, units.read(prefix + "m"))
    assert back == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------------------------------
# 2. Offsets, other units of one dimension, angles
# --------------------------------------------------------------------------------------------------
OTHER_UNITS = [
    ("300.15 K", "27 °C", True), ("27 °C", "300.15 K", True), ("27 °C", "27 K", False), ("27 K", "27 °C", False),
    ("300 K", "26.85 °C", True), ("26.85 °C", "300 K", True), ("300 K", "300 °C", False),
    ("20 ℃", "293.15 K", True), ("25^\\circ\\mathrm{C}", "298.15 K", True), ("20 °C", "68 °F", True),
    ("68 °F", "20 °C", True), ("20 °C", "20 °F", False), ("20 °C", "68 K", False),
    ("4.18 J/(g °C)", "4.18 J g^{-1} K^{-1}", True),        # in a product a degree is a difference
    ("4.18 J/(g °C)", "4180 J kg^{-1} K^{-1}", True), ("4.18 J/(g °C)", "4.18 J kg^{-1} K^{-1}", False),
    ("101.325 kPa", "1 atm", True), ("1 atm", "101325 Pa", True), ("1 atm", "101.325 Pa", False),
    ("760 Torr", "1 atm", True), ("1 atm", "760 mmHg", True), ("1 atm", "760 Pa", False),
    ("1 bar", "100 kPa", True), ("1 bar", "1 kPa", False),
    ("120 min", "2 h", True), ("2 h", "7200 s", True), ("2 h", "120 s", False), ("2 min", "2 h", False),
    ("\\frac{\\pi}{2} rad", "90°", True), ("90°", "\\pi/2 rad", True),
    ("90^\\circ", "\\frac{\\pi}{2}\\ \\mathrm{rad}", True),
    ("90°", "1.5707963 rad", True), ("90°", "1.5708 rad", False),   # 90.0002°: beyond 1e-4 in the gold's unit
    ("90°", "\\pi rad", False), ("90°", "90 rad", False),
    ("1 kWh", "3.6 MJ", True), ("1 kWh", "3.6 kJ", False), ("1 kcal", "4.184 kJ", True), ("1 kcal", "4.184 J", False),
    ("1 eV", "1.602176634 \\times 10^{-19} J", True), ("2 moles", "2000 mmol", True), ("1 M", "1000 mM", True),
    ("3 mol/L", "3 M", True), ("1.5 L", "1500 cm^3", True), ("1.5 L", "1.5 cm^3", False),
]


@pytest.mark.parametrize("gold,response,expected", OTHER_UNITS, ids=ids(OTHER_UNITS))
def test_offsets_and_other_units_of_one_dimension_are_converted(gold, response, expected):
    assert boxed(gold, response) is expected


DIMENSIONS = [
    ("5 m", "5 s", False), ("5 s", "5 m", False), ("5 J", "5 W", False), ("5 W", "5 J", False),
    ("5 N", "5 J", False), ("2 mol", "2 M", False), ("45°", "45 %", False), ("5 Hz", "5 rad/s", False),
    ("9.8 m s⁻²", "9.8 m s⁻¹", False), ("9.8 m/s^2", "980 cm/s", False), ("5 kg", "5000 g m", False),
]


@pytest.mark.parametrize("gold,response,expected", DIMENSIONS, ids=ids(DIMENSIONS))
def test_another_dimension_is_another_answer(gold, response, expected):
    assert boxed(gold, response) is expected


# --------------------------------------------------------------------------------------------------
# 3. Spellings pint does not read, on either side
# --------------------------------------------------------------------------------------------------
SPELLINGS = [
    ("9.8 m s⁻²", "980 cm/s^2", True), ("980 cm/s^2", "9.8 m s⁻²", True),
    ("9.8\\ \\mathrm{m\\,s^{-2}}", "980 cm s⁻²", True), ("980 cm s⁻²", "9.8\\ \\mathrm{m\\,s^{-2}}", True),
    ("9.8\\ \\mathrm{m\\,s^{-2}}", "98 cm s⁻²", False),
    ("8.314 \\frac{J}{mol K}", "0.008314 kJ mol⁻¹ K⁻¹", True),
    ("0.008314 \\mathrm{kJ\\,mol^{-1}\\,K^{-1}}", "8.314 J/(mol K)", True),
    ("8.314 \\frac{J}{mol K}", "8.314 kJ mol⁻¹ K⁻¹", False),
    ("10 \\Omega", "0.01 kΩ", True), ("10 Ω", "10000 mΩ", True), ("10 Ω", "10 kΩ", False),
    ("5 \\mu m", "5000 nm", True), ("5000 nm", "5 \\mu m", True), ("5 \\mu m", "5 nm", False),
    ("3 meters", "300 cm", True), ("300 cm", "3 meters", True), ("3 kilometers", "3000 m", True),
    ("3 meters", "3 cm", False), ("20 degrees Celsius", "293.15 K", True),
    ("2.5 \\text{ km}", "2500\\,\\mathrm{m}", True),
    ("9.8 m/s", "9.8 ms^{-1}", True),           # ms⁻¹ read as m·s⁻¹ ...
    ("9800 s^{-1}", "9.8 ms^{-1}", True),       # ... and as per millisecond
    ("9.8 s^{-1}", "9.8 ms^{-1}", False),
]


@pytest.mark.parametrize("gold,response,expected", SPELLINGS, ids=ids(SPELLINGS))
def test_every_spelling_is_converted(gold, response, expected):
    assert boxed(gold, response) is expected


def test_every_spelling_of_the_table_is_a_unit_pint_reads():
    unread = [symbol for symbol in units._UNITS if units.read(symbol) is None]
    assert unread == []


UNREAD = [
    ("5 apples", "5 m", True), ("5 元", "5 km", True), ("5", "5 km", True), ("5 km", "5", True),
    ("5 apples", "6 m", False), ("5 km", "6", False), ("12", "12 mm", True),   # no question: by value, as today
]


@pytest.mark.parametrize("gold,response,expected", UNREAD, ids=ids(UNREAD))
def test_a_unit_we_cannot_read_or_on_one_side_leaves_the_value(gold, response, expected):
    assert boxed(gold, response) is expected


# --------------------------------------------------------------------------------------------------
# 4. The unit the question asks for
# --------------------------------------------------------------------------------------------------
LENGTH = "What is the length of AB (in cm)?"
ASKED = [
    ("12", "12 mm", False, LENGTH), ("12", "12 cm", True, LENGTH), ("12", "120 mm", True, LENGTH),
    ("12", "12", True, LENGTH), ("12", "0.12 m", True, LENGTH), ("12", "12 m", False, LENGTH),
    ("12", "12 s", False, LENGTH), ("12", "13", False, LENGTH), ("12", "130 mm", False, LENGTH),
    ("12", "120 mm", True, "Find the length in units of cm."), ("12", "12 mm", False, "Give the length in cm."),
    ("12", "12 mm", False, "Length of AB, unit: cm"), ("12", "120 mm", True, "Length of AB in \\(\\mathrm{cm}\\)."),
    ("-45.2", "-45200 J/mol", True, "What is ΔH in kJ/mol?"),
    ("-45.2", "-45.2 kJ mol^{-1}", True, "What is ΔH in kJ/mol?"),
    ("-45.2", "-45.2 J/mol", False, "What is ΔH in kJ/mol?"),
    ("-45.2", "-45200 J/mol", True, "Give ΔH (in $\\mathrm{kJ\\,mol^{-1}}$)."),
    ("3", "300 cm/s", True, "What is the speed in $\\mathrm{m\\,s^{-1}}$?"),
    ("3", "3 km/s", False, "What is the speed in m/s?"),
    ("90", "\\frac{\\pi}{2} rad", True, "Find the angle in degrees."),
    ("90", "90°", True, "Find the angle in degrees."),
    ("90", "\\pi rad", False, "Find the angle in degrees."),
    ("300.15", "27 °C", True, "What is the temperature in K?"),
    ("27", "300.15 K", True, "What is the temperature in °C?"),
    ("27", "27 K", False, "What is the temperature in °C?"),
    ("0.12 m", "12 cm", True, LENGTH),            # the gold's own unit decides
    ("12", "12 mm", True, "What is the length in the figure?"),
    ("12", "12 mm", True, "Give the length in cm and the time in s."),
]


@pytest.mark.parametrize("gold,response,expected,question", ASKED, ids=ids(ASKED))
def test_a_bare_gold_is_in_the_unit_the_question_asks_for(gold, response, expected, question):
    assert boxed(gold, response, question) is expected


@pytest.mark.parametrize("question,unit", [
    (LENGTH, "cm"), ("Express it in units of kJ/mol.", "kJ/mol"), ("in \\(\\mathrm{m\\,s^{-2}}\\)", "m/s^2"),
    ("(unit: cm)", "cm"), ("What is the rate constant in s⁻¹?", "s^-1"), ("Give the answer in %.", "%"),
    ("How far is it in m? And in cm?", None),     # two units: none is the gold's
    ("Find x in triangle ABC.", None), ("Which point lies in the plane?", None), ("Q", None),
])
def test_the_unit_a_question_asks_for(question, unit):
    found = quantities.asked(question).unit
    assert (found is None) if unit is None else (found is not None and found.same(units.read(unit)))


def test_a_caller_without_a_record_judges_as_before():
    assert match_one("12 mm", "12") is True
    with quantities.Question(LENGTH):
        assert match_one("12 mm", "12") is False
        assert match_one("120 mm", "12") is True
    assert match_one("12 mm", "12") is True  # the question is forgotten on leaving


# --------------------------------------------------------------------------------------------------
# 5. Percent and proportion
# --------------------------------------------------------------------------------------------------
PROPORTION_QUESTIONS = ["What is the probability that both are red?", "What fraction of the cells divide?",
                        "What proportion of the sample is water?", "What share of the votes did A win?",
                        "What percentage of the mass is carbon?", "What is the conversion rate?"]
PERCENT = [
    ("25%", "0.25", True), ("0.25", "25%", True), ("0.25", "25\\%", True), ("25%", "25", True),
    ("\\frac{1}{4}", "25%", True), ("25%", "\\frac{1}{4}", True), ("1", "100%", True),
    ("0.25", "0.25%", False), ("0.25", "0.25 \\%", False), ("25%", "0.025", False), ("0.25", "2.5%", False),
    ("1", "1%", False), ("25%", "0.26", False),
]


@pytest.mark.parametrize("question", PROPORTION_QUESTIONS)
@pytest.mark.parametrize("gold,response,expected", PERCENT, ids=ids(PERCENT))
def test_a_proportion_is_a_fraction_or_a_percentage(gold, response, expected, question):
    assert boxed(gold, response, question) is expected


PERCENT_NUMBERS = [("25", "25%", True), ("25%", "25", True), ("25", "0.25%", False), ("12.5", "12.5 \\%", True)]


@pytest.mark.parametrize("gold,response,expected", PERCENT_NUMBERS, ids=ids(PERCENT_NUMBERS))
def test_a_gold_above_one_is_a_number_of_percent(gold, response, expected):
    assert boxed(gold, response, "What percentage of the mass is carbon?") is expected


WITHOUT_PROPORTION = [("25%", "0.25", False), ("0.25", "25%", False), ("0.25", "0.25%", True), ("25", "25%", True),
                      ("25%", "25", True), ("25%", "0.25%", False)]


@pytest.mark.parametrize("gold,response,expected", WITHOUT_PROPORTION, ids=ids(WITHOUT_PROPORTION))
def test_without_a_proportion_a_percent_sign_is_a_unit_on_one_side(gold, response, expected):
    assert boxed(gold, response, "How many of the cells divide?") is expected


def test_a_unit_asked_in_percent_reads_a_bare_gold_in_percent():
    question = "What percentage of the mass is carbon (in %)?"
    assert boxed("0.25", "0.25%", question) is True
    assert boxed("0.25", "25%", question) is False


@pytest.mark.parametrize("gold,response,expected", [("1 \\AA", "0.1 nm", True), ("1 \\AA", "1 nm", False),
                                                    ("2 \\angstrom", "200 pm", True)])
def test_the_angstrom_in_latex(gold, response, expected):
    assert boxed(gold, response) is expected
