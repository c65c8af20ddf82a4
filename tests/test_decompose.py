"""Pairs, tractors and canonical decomposition (RULES.md section 3)."""

from __future__ import annotations

import pytest

from env.rules import decompose


def shapes(cards, level="T", trump="H", **variant):
    """Component sizes, largest first, as the referee API returns them."""
    return [len(c) for c in decompose(cards, level=level, trump=trump, **variant)]


def components(cards, level="T", trump="H", **variant):
    return sorted(tuple(c) for c in decompose(cards, level=level, trump=trump, **variant))


# RULES.md 3: tractors at level T, trump H.
@pytest.mark.parametrize("cards", [
    "S9 S9 SJ SJ",
    "HA HA ST ST",
    "ST ST HT HT",
    "HT HT LJ LJ",
    "LJ LJ BJ BJ",
    "HA HA ST ST HT HT LJ LJ BJ BJ",
])
def test_rules_examples_are_tractors(cards):
    assert shapes(cards) == [len(cards.split())]


@pytest.mark.parametrize(("cards", "expected"), [
    ("ST ST CT CT", [2, 2]),
    ("SJ SJ SQ", [2, 1]),
    ("S5 S5 S3 S3", [2, 2]),
])
def test_rules_non_examples(cards, expected):
    assert shapes(cards) == expected


# Seed 001 (level 10): KKQQ, JJ99, 554433 are tractors; 554, 544, 5533, JJQ, two off-suit 10 pairs, JJ are not.
@pytest.mark.parametrize(("cards", "expected"), [
    ("SK SK SQ SQ", [4]),
    ("SJ SJ S9 S9", [4]),
    ("S5 S5 S4 S4 S3 S3", [6]),
    ("S5 S5 S4", [2, 1]),
    ("S5 S4 S4", [2, 1]),
    ("S5 S5 S3 S3", [2, 2]),
    ("SJ SJ SQ", [2, 1]),
    ("CT CT DT DT", [2, 2]),
    ("SJ SJ", [2]),
    ("LJ LJ HT HT", [4]),
    ("HT HT ST ST", [4]),
    ("ST ST HA HA", [4]),
    ("LJ LJ HT HT ST ST HA HA", [8]),
])
def test_seed_001_tractor_list(cards, expected):
    assert shapes(cards) == expected


def test_decompose_lists_components_high_to_low():
    assert decompose("S9 SJ S9 SJ", level="T", trump="H") == [["SJ", "SJ", "S9", "S9"]]
    assert decompose("ST HA ST HA", level="T", trump="H") == [["ST", "ST", "HA", "HA"]]
    assert decompose("BJ", level="T", trump="H") == [["BJ"]]


def test_longest_tractor_first_then_shorter_then_pairs_then_singles():
    got = decompose("S3 S3 S4 S4 S5 S5 S7 S7 S8 S8 SQ SQ SA", level="T", trump="H")
    assert got == [["S5", "S5", "S4", "S4", "S3", "S3"], ["S8", "S8", "S7", "S7"], ["SQ", "SQ"], ["SA"]]


def test_longest_run_wins_over_earlier_shorter_one():
    got = decompose("S3 S3 S4 S4 S6 S6 S7 S7 S8 S8 S9", level="T", trump="H")
    assert got == [["S8", "S8", "S7", "S7", "S6", "S6"], ["S4", "S4", "S3", "S3"], ["S9"]]


def test_equal_off_suit_level_pairs_one_joins_the_tractor():
    assert shapes("HA HA ST ST CT CT HT HT") == [6, 2]
    assert shapes("ST ST CT CT DT DT") == [2, 2, 2]
    assert shapes("ST ST CT CT DT DT HT HT") == [4, 2, 2]


def test_triple_like_holdings_do_not_exist_but_single_and_pair_of_same_rank_do():
    # Two decks: at most two of a kind; a pair and a single of equal index stay apart.
    assert components("ST ST CT", level="T", trump="H") == [("CT",), ("ST", "ST")]


def test_mixed_suits_are_decomposed_suit_by_suit():
    assert components("S3 S3 H3 H3") == [("H3", "H3"), ("S3", "S3")]
    assert shapes("S9 S9 SJ SJ C4") == [4, 1]


@pytest.mark.parametrize(("cards", "level", "trump", "expected"), [
    # Level 2: the trump suit's A sits just under the off-suit 2s.
    ("SA SA H2 H2", "2", "S", [4]),
    ("S3 S3 S4 S4", "2", "S", [4]),
    ("H3 H3 H4 H4", "2", "S", [4]),
    ("H2 H2 S2 S2", "2", "S", [4]),
    ("H2 H2 C2 C2", "2", "S", [2, 2]),
    ("S2 S2 LJ LJ", "2", "S", [4]),
    ("H2 H2 S2 S2 LJ LJ", "2", "S", [6]),
    # Level A: K is the top plain rank; trump suit K, off-suit A, trump suit A.
    ("SK SK HA HA", "A", "S", [4]),
    ("SK SK HA HA SA SA", "A", "S", [6]),
    ("SK SK SA SA", "A", "S", [2, 2]),
    ("HK HK HQ HQ", "A", "S", [4]),
    ("SA SA LJ LJ", "A", "S", [4]),
    # Level 3: 2 and 4 are adjacent in a plain suit.
    ("S2 S2 S4 S4", "3", "H", [4]),
    ("S2 S2 S4 S4 S5 S5", "3", "H", [6]),
    # Level K: Q and A are adjacent.
    ("CQ CQ CA CA", "K", "H", [4]),
    # No-trump: jokers over the level cards; level cards all equal.
    ("S7 S7 LJ LJ", "7", None, [4]),
    ("S7 S7 H7 H7", "7", None, [2, 2]),
    ("S6 S6 S8 S8", "7", None, [4]),
    ("LJ LJ BJ BJ S7 S7", "7", None, [6]),
    ("BJ BJ S7 S7", "7", None, [2, 2]),
    # Not a tractor across suits, nor across the trump boundary.
    ("SA SA HA HA", "T", None, [2, 2]),
    ("SK SK SA SA", "T", "H", [4]),
    ("DA DA DK DK DQ DQ DJ DJ D9 D9", "T", "H", [10]),
])
def test_decomposition_edges(cards, level, trump, expected):
    assert shapes(cards, level, trump) == expected


def test_constant_twos_makes_twos_adjacent_to_level_cards():
    assert shapes("H2 H2 S5 S5", "5", "H", constant_twos=True) == [4]
    assert shapes("HA HA S2 S2", "5", "H", constant_twos=True) == [4]
    assert shapes("S2 S2 C2 C2", "5", "H", constant_twos=True) == [2, 2]
    assert shapes("S3 S3 S4 S4", "5", "H", constant_twos=True) == [4]


def test_tractor_skips_level_false_breaks_only_the_skip():
    assert shapes("S9 S9 SJ SJ", tractor_skips_level=False) == [2, 2]
    assert shapes("H9 H9 HJ HJ", tractor_skips_level=False) == [2, 2]
    assert shapes("HA HA ST ST HT HT", tractor_skips_level=False) == [6]
    assert shapes("SQ SQ SK SK", tractor_skips_level=False) == [4]
    # At level 2 or A there is nothing to skip.
    assert shapes("S3 S3 S4 S4", "2", "H", tractor_skips_level=False) == [4]
    assert shapes("SQ SQ SK SK", "A", "H", tractor_skips_level=False) == [4]
