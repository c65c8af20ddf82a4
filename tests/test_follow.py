"""Following a lead (RULES.md section 6): suit duty, shape duty and the profile."""

from __future__ import annotations

import pytest

from env.core.cards import counts_of, parse_cards
from env.rules import is_legal_play
from env.standard.tricks import Lead, follow_error
from env.standard.trump import trump_context

# (hand, lead, play, legal) at level T, trump H unless a case says otherwise.
CASES_T_H = [
    # Single lead: follow suit if you can, anything if void (trumps are a ruff, others a discard).
    ("S3 S4 H5", "S5", "S3", True),
    ("S3 S4 H5", "S5", "H5", False),
    ("H5 C3", "S5", "C3", True),
    ("H5 C3", "S5", "H5", True),
    ("S3 S3 S4", "SA", "S3", True),
    # Pair lead: a pair if you have one.
    ("S3 S3 S4 S6", "S5 S5", "S3 S3", True),
    ("S3 S3 S4 S6", "S5 S5", "S4 S6", False),
    ("S3 S3 S4 S6", "S5 S5", "S3 S4", False),
    ("S3 S4 S6 C2", "S5 S5", "S3 S4", True),
    ("S3 S4 S6 C2", "S5 S5", "S3 C2", False),
    ("S3 C2 C4", "S5 S5", "S3 C2", True),
    ("S3 C2 C4", "S5 S5", "C2 C4", False),
    ("S3 S4 H3", "S5 S5", "S3 S4", True),
    ("S3 S4 H3", "S5 S5", "S3 H3", False),
    ("S2 S2 S3 S3 S9", "SA SA", "S2 S2", True),
    ("S2 S2 S3 S3 S9", "SA SA", "S2 S3", False),
    ("S2 S2 S3 S3 S9", "SA SA", "S3 S3", True),
    # Tractor lead: a tractor, else as many pairs as you have, else any cards of the suit.
    ("S2 S2 S3 S3 S8 S8 S9", "S5 S5 S6 S6", "S2 S2 S3 S3", True),
    ("S2 S2 S3 S3 S8 S8 S9", "S5 S5 S6 S6", "S8 S8 S2 S2", False),
    ("S2 S2 S3 S3 S8 S8 S9", "S5 S5 S6 S6", "S8 S8 S9 S2", False),
    ("S2 S2 S5 S5 S9 SA", "S3 S3 S4 S4", "S2 S2 S5 S5", True),
    ("S2 S2 S5 S5 S9 SA", "S3 S3 S4 S4", "S2 S2 S9 SA", False),
    ("S2 S2 S5 S9 SA", "S6 S6 S7 S7", "S2 S2 S9 SA", True),
    ("S2 S2 S5 S9 SA", "S6 S6 S7 S7", "S5 S9 SA S2", False),
    ("S9 S9 SJ SJ S2", "S5 S5 S6 S6", "S9 S9 SJ SJ", True),
    ("S9 S9 SJ SJ S2", "S5 S5 S6 S6", "S9 S9 SJ S2", False),
    ("S2 S2 S3 S3 S4 S4 S9", "S6 S6 S7 S7", "S2 S2 S3 S3", True),
    ("S2 S2 S3 S3 S4 S4 S9", "S6 S6 S7 S7", "S3 S3 S4 S4", True),
    ("S2 S2 S3 S3 S4 S4 S9", "S6 S6 S7 S7", "S2 S2 S4 S4", False),
    # A 3-pair tractor lead without a 3-pair tractor: three pairs (a shorter tractor need not stay whole).
    ("S7 S7 S8 S8 SQ SQ SA", "S3 S3 S4 S4 S5 S5", "S7 S7 S8 S8 SQ SQ", True),
    ("S7 S7 S8 S8 SQ SQ SA", "S3 S3 S4 S4 S5 S5", "S7 S7 S8 S8 SQ SA", False),
    ("S7 S7 S8 S8 SQ SA SK S2", "S3 S3 S4 S4 S5 S5", "S7 S7 S8 S8 SQ SA", True),
    ("S7 S7 S8 S8 SQ SA SK S2", "S3 S3 S4 S4 S5 S5", "S7 S7 SQ SA SK S2", False),
    # Throws: tractor + pair; the follower's 3-pair run supplies the tractor and the pair.
    ("S3 S3 S4 S4 S5 S5 S7", "SA SA SK SK SJ SJ", "S3 S3 S4 S4 S5 S5", True),
    ("S3 S3 S4 S4 S5 S5 S7", "SA SA SK SK SJ SJ", "S3 S3 S4 S4 S5 S7", False),
    ("SJ SJ SQ SQ SK SK S2", "S5 S5 S6 S6 S8 S8", "SJ SJ SQ SQ SK SK", True),
    # Throw of pair + single: pairs may be split only when no pair requirement is left.
    ("S2 S2 S3 S3 S9", "S5 S5 S6", "S2 S2 S9", True),
    ("S2 S2 S3 S3 S9", "S5 S5 S6", "S2 S2 S3", True),
    ("S2 S2 S3 S3 S9", "S5 S5 S6", "S2 S3 S9", False),
    # Throw of singles: any cards of the suit.
    ("S2 S2 S3", "SA SK", "S2 S2", True),
    ("S2 S2 S3", "SA SK", "S2 S3", True),
    # Two tractors: take one, then as many pairs as are left for the second.
    ("S9 S9 SJ SJ SQ SQ S4 S4 S5", "S2 S2 S3 S3 S6 S6 S7 S7", "S9 S9 SJ SJ SQ SQ S4 S4", True),
    ("S9 S9 SJ SJ SQ SQ S4 S4 S5", "S2 S2 S3 S3 S6 S6 S7 S7", "S9 S9 SJ SJ SQ SQ S4 S5", False),
    # Exactly n or fewer cards of the suit: all of them, filled with anything.
    ("S3 S4 H3", "S5 S5", "S4 S3", True),
    ("S3 S4 S6 S7 C2", "S5 S5 S8 S8 S9", "S3 S4 S6 S7 C2", True),
    ("S3 S4 S6 S7 C2 C3", "S5 S5 S8 S8 S9", "S3 S4 S6 C2 C3", False),
    # Trump leads: effective suit trump, off-suit level cards are trump but not a pair together.
    ("ST ST C3 H2 LJ", "H5 H5", "ST ST", True),
    ("ST ST C3 H2 LJ", "H5 H5", "H2 LJ", False),
    ("ST CT H2 C3", "H5 H5", "ST CT", True),
    ("ST CT H2 C3", "H5 H5", "ST H2", True),
    ("ST CT H2 C3", "H5 H5", "ST C3", False),
    ("ST CT", "H3", "CT", True),
    ("ST ST HT HT H2 S3", "H5 H5 H6 H6", "ST ST HT HT", True),
    ("ST ST HT HT H2 S3", "H5 H5 H6 H6", "ST ST HT H2", False),
    ("ST ST HT HT S2 S3", "H5 H5 H6 H6", "ST ST HT HT", True),
    ("ST ST CT CT H2", "H5 H5 H6 H6", "ST ST CT CT", True),
    ("ST ST CT CT H2", "H5 H5 H6 H6", "ST ST CT H2", False),
    ("HA HA ST ST H2", "H5 H5 H6 H6", "HA HA ST ST", True),
    ("HA HA ST ST H2", "H5 H5 H6 H6", "HA HA H2 ST", False),
    ("LJ LJ BJ BJ S3", "H5 H5 H6 H6", "LJ LJ BJ BJ", True),
    ("S5 S5 H3", "ST", "H3", True),
    ("S5 S5 H3", "ST", "S5", False),
    # Wrong count, cards not held.
    ("S3 S4 S6", "S5 S5", "S3", False),
    ("S3 S4 S6", "S5 S5", "S3 S4 S6", False),
    ("S3 S4 S6", "S5", "S9", False),
    ("S3 S4 S6", "S5 S5", "S3 S3", False),
]


@pytest.mark.parametrize(("hand", "lead", "play", "legal"), CASES_T_H)
def test_follow_level_t_trump_h(hand, lead, play, legal):
    assert is_legal_play(hand, play, level="T", trump="H", lead=lead) is legal


@pytest.mark.parametrize(("hand", "lead", "play", "level", "trump", "legal"), [
    # No-trump, level 2: 2s are trump.
    ("S2 S2 H2 SA", "LJ LJ", "S2 S2", "2", None, True),
    ("S2 S2 H2 SA", "LJ LJ", "S2 H2", "2", None, False),
    ("S2 S2 H2 SA", "LJ LJ", "H2 SA", "2", None, False),
    ("S2 SK BJ", "SA", "SK", "2", None, True),
    ("S2 SK BJ", "SA", "S2", "2", None, False),
    ("S2 H2 D2 S4", "LJ", "D2", "2", None, True),
    ("S7 S7 H7 LJ LJ", "BJ BJ", "S7 S7", "7", None, True),
    ("S7 S7 H7 LJ LJ", "BJ BJ", "S7 H7", "7", None, False),
    ("S7 S7 H7 LJ LJ", "BJ BJ", "LJ LJ", "7", None, True),
    ("S7 C7 H7 D8", "BJ BJ", "S7 C7", "7", None, True),
    ("S6 S6 S8 S8 S9", "SJ SJ SQ SQ", "S6 S6 S8 S8", "7", None, True),
    ("S6 S6 S8 S8 S9", "SJ SJ SQ SQ", "S6 S6 S8 S9", "7", None, False),
    # Level A: A is trump, so the hearts are K and below.
    ("HA HA HQ HJ", "HK HK", "HQ HJ", "A", "S", True),
    ("HA HA HQ HJ", "HK HK", "HA HA", "A", "S", False),
    ("HA HA HQ HJ C2", "HK HK", "HQ HA", "A", "S", False),
    ("SK SK HA HA C2", "S3 S3 S4 S4", "SK SK HA HA", "A", "S", True),
    ("SK SK SA SA C2", "S3 S3 S4 S4", "SK SK SA SA", "A", "S", True),
    ("SK SK SA SA C2 S5", "S3 S3 S4 S4", "SK SK SA S5", "A", "S", False),
    # Level 2: a 2 of a plain suit is trump, not part of its suit.
    ("S2 S2 S5 S5 S6 S6 S7", "S3 S3 S4 S4", "S5 S5 S6 S6", "2", "H", True),
    ("S2 S2 S5 S5 S6 S6 S7", "S3 S3 S4 S4", "S2 S2 S5 S5", "2", "H", False),
    ("S2 S2 S5 S5 S6 S6 S7", "S3 S3 S4 S4", "S5 S5 S6 S7", "2", "H", False),
    ("S2 S2 S5", "S3 S3", "S5 S2", "2", "H", True),
    ("SA SA H2 H2 C3", "S3 S3 S4 S4", "SA SA H2 H2", "2", "S", True),
    ("SA SA H2 H2 C3 S9", "S3 S3 S4 S4", "SA SA H2 S9", "2", "S", False),
])
def test_follow_edges(hand, lead, play, level, trump, legal):
    assert is_legal_play(hand, play, level=level, trump=trump, lead=lead) is legal


def test_follow_error_explains_the_duty():
    ctx = trump_context("T", "H")
    lead = Lead(ctx, parse_cards("S5 S5 S6 S6"))
    hand = counts_of(parse_cards("S2 S2 S3 S3 S8 S8 S9"))
    assert "tractor" in follow_error(ctx, hand, parse_cards("S8 S8 S2 S2"), lead)
    assert "exactly 4" in follow_error(ctx, hand, parse_cards("S8 S8"), lead)
    assert "not in hand" in follow_error(ctx, hand, parse_cards("SA SA SK SK"), lead)
    short = counts_of(parse_cards("S2 C3 C4 C5 C6"))
    assert "all 1" in follow_error(ctx, short, parse_cards("C3 C4 C5 C6"), lead)


@pytest.mark.parametrize(("hand", "play", "legal"), [
    ("S3 S4 H3", "S3 S4", True),
    ("S3 S4 H3", "S3 H3", False),
    ("ST HA S9", "ST HA", True),
    ("ST HA S9", "ST S9", False),
    ("LJ BJ", "LJ BJ", True),
    ("S3 S4", "", False),
    ("S3 S4", "S5", False),
    ("S3 S4", "S3 S3", False),
    ("S3 S3 S4 S4 S9 SA", "S3 S3 S4 S4 S9 SA", True),
])
def test_lead_attempts(hand, play, legal):
    assert is_legal_play(hand, play, level="T", trump="H") is legal
