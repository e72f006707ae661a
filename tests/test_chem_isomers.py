"""Isomers written as formulas: a small molecule written atom by atom is the chain of its bonds, the same
species read either way (NCO⁻ = OCN⁻, ClO⁻ = OCl⁻) and an isomer in another order (HNC is not HCN,
fulminate CNO⁻ is not cyanate OCN⁻). Each isomer answers itself and not the other, and the verdict comes
from where formulas are compared (judge/chem.py), so that ignoring the order of a formula's atoms
anywhere it matters makes these tests fail.
"""
from __future__ import annotations

import pytest

from judge import chem
from judge.match import canonical
from judge.rules import score


def boxed(gold, response):
    record = {"id": "t", "benchmark": "omibench", "question": "Q", "images": [], "choices": [],
              "answer": list(gold), "answer_type": "open"}
    return score(record, f"The final answer is \\boxed{{{response}}}")["correct"]


ISOMERS = [("HCN", "HNC"), ("OCN^-", "CNO^-"), ("HOCN", "HNCO"), ("HNCO", "HCNO"), ("HNO", "HON"),
           ("C_2H_5OH", "CH_3OCH_3")]


@pytest.mark.parametrize("first,second", ISOMERS, ids=[f"{a}|{b}" for a, b in ISOMERS])
def test_isomers_answer_themselves_and_not_each_other(first, second):
    assert boxed([first], first) is True
    assert boxed([second], second) is True
    assert boxed([first], second) is False
    assert boxed([second], first) is False


@pytest.mark.parametrize("first,second", ISOMERS[:5], ids=[f"{a}|{b}" for a, b in ISOMERS[:5]])
def test_chemistry_itself_tells_small_isomers_apart(first, second):
    """Decided where formulas are compared, not left to a reading of the letters as words."""
    assert chem.same(canonical(second), canonical(first)) is False
    assert chem.same(canonical(first), canonical(first)) is True


SAME_CHAIN = [("OCN^-", "NCO^-"), ("ClO^-", "OCl^-"), ("HCN", "NCH"), ("HOCl", "HClO"), ("HOCl", "ClOH"),
              ("SCN^-", "NCS^-"), ("CO", "OC")]


@pytest.mark.parametrize("gold,response", SAME_CHAIN, ids=[f"{g}|{r}" for g, r in SAME_CHAIN])
def test_a_chain_of_atoms_read_the_other_way_is_the_same_species(gold, response):
    assert boxed([gold], response) is True
    assert chem.same(canonical(response), canonical(gold)) is True
    assert boxed([gold], response.replace("^-", "^{2-}") if "^-" in response else response + "^-") is False


def test_larger_formulas_in_another_order_are_left_to_a_chemist():
    """CH₄O is methanol's molecular formula, C₂H₆O also ethanol's: the rule decides neither way there."""
    assert chem.same(canonical("CH_4O"), canonical("CH_3OH")) is None
    assert chem.same(canonical("C_2H_6O"), canonical("C_2H_5OH")) is None
