"""Who wins a trick (RULES.md section 6): following, ruffing and over-ruffing."""

from __future__ import annotations

import pytest

from env.rules import trick_winner


def winner(*plays, level="T", trump="H"):
    return trick_winner(list(plays), level=level, trump=trump)


# RULES.md examples (trump suit, plain suit lead).
def test_977_ruffs_544_and_884_over_ruffs():
    assert winner("S5 S4 S4", "H9 H7 H7") == 1
    assert winner("S5 S4 S4", "H9 H7 H7", "H8 H8 H4", "C2 C3 C4") == 2


def test_977_ruffs_567_and_884_does_not_over_ruff():
    assert winner("S5 S6 S7", "H9 H7 H7") == 1
    assert winner("S5 S6 S7", "H9 H7 H7", "H8 H8 H4", "C2 C3 C4") == 1


def test_998872_ruffs_ak5544_but_not_aa5544():
    assert winner("SA SK S5 S5 S4 S4", "H9 H9 H8 H8 H7 H2") == 1
    assert winner("SA SA S5 S5 S4 S4", "H9 H9 H8 H8 H7 H2") == 0


@pytest.mark.parametrize(("plays", "expected"), [
    # Plain singles: strictly higher of the lead suit wins, equal stays with the earlier.
    (["S5", "S9", "SA", "S3"], 2),
    (["S5", "S5", "S3", "S4"], 0),
    (["SA", "SK", "HA", "C2"], 2),
    (["SA", "SK", "C2", "DA"], 0),
    # Pairs and tractors: same shape of the lead suit, higher top.
    (["S5 S5", "SA SK", "S9 S9", "S6 S6"], 2),
    (["S5 S5", "S6 S6", "S9 S9", "S7 S7"], 2),
    (["S5 S5 S6 S6", "S9 S9 SJ SJ", "SA SA SK S2", "S7 S7 S8 S8"], 1),
    (["S5 S5 S6 S6", "SA SA SQ SQ", "S2 S2 S3 S4", "C2 C2 C3 C3"], 0),
    (["S5 S5 S6 S6", "S7 S7 S9 S9", "S8 S8 S9 SJ", "S2 S2 S3 S3"], 0),
    # A throw cannot be beaten by following, only by a matching ruff.
    (["SA SK", "S2 S3", "SQ SJ", "C2 C3"], 0),
    (["S8 SK", "S2 S3", "H2 H3", "H4 H5"], 3),
    (["S8 SK", "H4 H5", "H2 H3", "C2 C3"], 1),
    (["SK SK SA", "SQ SQ SJ", "H3 H3 H2", "H4 H4 H5"], 3),
    (["SK SK SA", "H3 H3 H2", "H4 H4 H5", "H9 LJ LJ"], 3),
    (["SK SK SA", "H3 H3 H2", "H4 H5 H6", "C2 C3 C4"], 1),
    # A ruff must match the lead's format.
    (["S5 S5", "H2 H3", "C2 C3", "C4 C5"], 0),
    (["S5 S5", "HA HA", "LJ LJ", "BJ BJ"], 3),
    (["S5 S5", "HA HA", "H2 H3", "C4 C5"], 1),
    (["S5 S5", "H2 C3", "C2 C3", "C4 C5"], 0),
    (["S3 S3 S4 S4", "H5 H5 H9 H9", "C2 C2 C3 C4", "D2 D3 D4 D5"], 0),
    (["S3 S3 S4 S4", "ST ST HT HT", "LJ LJ BJ BJ", "C2 C2 C3 C3"], 2),
    (["S3 S3 S4 S4", "HA HA ST ST", "HA HA CT CT", "C2 C2 C3 C3"], 1),
    (["S3 S3 S4 S4", "ST ST CT CT", "H2 H2 H3 H3", "C2 C2 C3 C3"], 2),
    # Over-ruff compares the most important component only: pair 88 over 77 despite BJ.
    (["S5 S4 S4", "H7 H7 BJ", "H8 H8 H2", "C2 C3 C4"], 2),
    (["S5 S4 S4", "H8 H8 H2", "H7 H7 BJ", "C2 C3 C4"], 1),
    (["SA S5 S5 S4 S4", "H2 H2 H3 H3 BJ", "H5 H5 H6 H6 H4", "C2 C3 C4 C5 C6"], 2),
    (["S9 S5 S5 S4 S4", "H5 H5 H6 H6 H4", "H2 H2 H3 H3 BJ", "C2 C3 C4 C5 C6"], 1),
    # Ruff by off-suit level cards and trump-suit cards: equal does not over-ruff.
    (["S5", "CT", "DT", "H2"], 1),
    (["S5", "H2", "CT", "HT"], 3),
    (["S5", "LJ", "BJ", "HT"], 2),
    # Trump leads: higher trump of the same shape; equal off-suit level cards do not beat each other.
    (["H5", "ST", "CT", "H6"], 1),
    (["ST ST", "CT CT", "HA HA", "HT HT"], 3),
    (["ST ST", "CT CT", "DT DT", "H2 H2"], 0),
    (["H5 H5 H6 H6", "HA HA ST ST", "HT HT LJ LJ", "S2 S2 S3 S3"], 2),
    (["H5", "SA", "CA", "DA"], 0),
])
def test_trick_winner_level_t_trump_h(plays, expected):
    assert winner(*plays) == expected


@pytest.mark.parametrize(("plays", "level", "trump", "expected"), [
    (["SA", "S2", "H2", "BJ"], "2", None, 3),
    (["SA", "S2", "H2", "C2"], "2", None, 1),
    (["SA SA", "S2 S2", "LJ LJ", "H2 H2"], "2", None, 2),
    (["S2", "H2", "C2", "D2"], "2", None, 0),
    (["HK", "HA", "SK", "H2"], "A", "S", 1),
    (["HK", "SK", "HA", "SA"], "A", "S", 3),
    (["HK", "HQ", "H2", "C3"], "A", "S", 0),
    (["HQ HQ", "HK HK", "SA SA", "CA CA"], "A", "S", 2),
    (["SA SA", "H2 H2", "S2 S2", "LJ LJ"], "2", "S", 3),
    (["S3 S3", "SA SA", "C2 C2", "H3 H3"], "2", "S", 2),
    (["H3 H3 H4 H4", "SA SA C2 C2", "S3 S3 S4 S4", "D5 D5 D6 D6"], "2", "S", 1),
])
def test_trick_winner_edges(plays, level, trump, expected):
    assert winner(*plays, level=level, trump=trump) == expected


def test_lead_alone_wins():
    assert winner("SA") == 0


def test_unequal_lengths_and_bad_leads_raise():
    with pytest.raises(ValueError, match="cards"):
        winner("S5 S5", "S6")
    with pytest.raises(ValueError):
        winner("S5 H5", "C2 C3")
    with pytest.raises(ValueError):
        trick_winner([], level="T", trump="H")
