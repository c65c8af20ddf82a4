"""Throw check and forced play (RULES.md section 6, seed 001)."""

from __future__ import annotations

import pytest

from env.rules import resolve_throw

NOBODY = ["C2", "C3", "C4"]


def resolve(play, others=NOBODY, level="T", trump="H"):
    return resolve_throw(play, others, level=level, trump=trump)


def test_seed_001_example_a_jack_elsewhere_forces_the_nine():
    assert resolve("S9 S8 S8 S4 S4", ["SJ C2", "C3", "C4"]) == ["S9"]


def test_seed_001_example_fives_force_the_fours():
    assert resolve("S9 S8 S8 S4 S4", ["C2", "S5 S5", "C4"]) == ["S4", "S4"]


def test_seed_001_example_queens_force_the_fours():
    assert resolve("S9 S8 S8 S4 S4", ["C2", "C3", "SQ SQ"]) == ["S4", "S4"]


def test_throw_stands_when_nothing_higher_elsewhere():
    assert resolve("S9 S8 S8 S4 S4", ["S2 S3 S6 S7", "S5", "S7 S6"]) == ["S9", "S8", "S8", "S4", "S4"]


def test_partner_hand_counts_too():
    assert resolve("SA SK SK", ["C2", "SA SA", "C4"]) == ["SK", "SK"]
    assert resolve("SA SK SK", ["C2", "SQ SQ SA", "C4"]) == ["SA", "SK", "SK"]


def test_holding_across_two_players_does_not_make_a_pair():
    assert resolve("SA SK SK", ["SQ", "SQ", "C4"]) == ["SA", "SK", "SK"]


@pytest.mark.parametrize(("play", "others", "expected"), [
    # Equal cards never break a throw: off-suit level cards are equal.
    ("BJ ST", ["CT DT", "C3", "C4"], ["BJ", "ST"]),
    ("BJ ST", ["C2", "HT", "C4"], ["ST"]),
    ("BJ ST ST", ["CT CT", "C3", "C4"], ["BJ", "ST", "ST"]),
    ("BJ ST ST", ["HT HT", "C3", "C4"], ["ST", "ST"]),
    ("ST HK", ["DT", "C3", "C4"], ["HK"]),
    # At equal rank the smaller shape is played.
    ("ST ST CT", ["HT", "C3", "C4"], ["CT"]),
    # Lowest-ranking beatable component by its highest card.
    ("SK SQ SQ S3", ["SA", "C3", "C4"], ["S3"]),
    ("SK SQ SQ S3", ["SA SA", "C3", "C4"], ["S3"]),
    ("SK SQ SQ", ["SA SA", "C3", "C4"], ["SQ", "SQ"]),
    ("SA SQ SQ S3 S3", ["S4 S4", "S5", "C4"], ["S3", "S3"]),
])
def test_trump_and_tie_cases(play, others, expected):
    assert resolve(play, others) == expected


@pytest.mark.parametrize(("others", "expected"), [
    (["S5 S5 S6 S6", "C3", "C4"], ["S4", "S4", "S3", "S3"]),
    (["S7 S7 S8 S8 S9 S9", "C3", "C4"], ["S4", "S4", "S3", "S3"]),
    (["S7 S7 S9 S9", "C3", "C4"], ["SA", "S4", "S4", "S3", "S3"]),
    (["S9 S9 SJ SJ", "C3", "C4"], ["S4", "S4", "S3", "S3"]),
    (["S5 S5", "S6 S6", "C4"], ["SA", "S4", "S4", "S3", "S3"]),
    (["S2 S2 S3", "C3", "C4"], ["SA", "S4", "S4", "S3", "S3"]),
])
def test_tractor_component_needs_a_higher_tractor_of_the_same_length(others, expected):
    assert resolve("S3 S3 S4 S4 SA", others) == expected


def test_three_pair_tractor_is_not_beaten_by_a_two_pair_tractor():
    assert resolve("S3 S3 S4 S4 S5 S5 SA", ["S7 S7 S8 S8", "C3", "C4"]) == [
        "SA", "S5", "S5", "S4", "S4", "S3", "S3"]
    assert resolve("S3 S3 S4 S4 S5 S5 SA", ["S7 S7 S8 S8 S9 S9", "C3", "C4"]) == [
        "S5", "S5", "S4", "S4", "S3", "S3"]


def test_trump_throw_against_a_no_trump_hand():
    assert resolve("BJ LJ", ["S2 H2", "C3", "C4"], level="2", trump=None) == ["BJ", "LJ"]
    assert resolve("LJ S2", ["BJ", "C3", "C4"], level="2", trump=None) == ["S2"]
    assert resolve("LJ S2", ["H2", "C3", "C4"], level="2", trump=None) == ["LJ", "S2"]


def test_other_suits_do_not_beat_a_throw():
    assert resolve("S9 S8 S8", ["HA HA", "BJ", "CA"]) == ["S9", "S8", "S8"]


def test_non_throws_are_returned_whole():
    assert resolve("S2", ["SA", "SA", "BJ"]) == ["S2"]
    assert resolve("S2 S2", ["SA SA", "C3", "C4"]) == ["S2", "S2"]
    assert resolve("S2 S2 S3 S3", ["SA SA SK SK", "C3", "C4"]) == ["S3", "S3", "S2", "S2"]


def test_resolve_throw_needs_three_other_hands():
    with pytest.raises(ValueError, match="three"):
        resolve_throw("SA SK", ["C2", "C3"], level="T", trump="H")
