"""Trump, effective suits and order indices (RULES.md section 2)."""

from __future__ import annotations

import pytest

from env.core.cards import parse_card
from env.core.suits import TRUMP
from env.standard.trump import trump_context
from env.standard.variants import RuleOptions


def order(ctx, card):
    return ctx.order[parse_card(card)]


def is_trump(ctx, card):
    return ctx.suit[parse_card(card)] == TRUMP


def test_rules_example_level_2_trump_hearts():
    ctx = trump_context("2", "H")
    assert [order(ctx, "H" + r) for r in "3456789TJQKA"] == list(range(12))
    assert order(ctx, "S2") == order(ctx, "C2") == order(ctx, "D2") == 12
    assert order(ctx, "H2") == 13
    assert order(ctx, "LJ") == 14
    assert order(ctx, "BJ") == 15


@pytest.mark.parametrize(("level", "trump", "card", "expected"), [
    ("T", "H", "HA", True), ("T", "H", "ST", True), ("T", "H", "LJ", True), ("T", "H", "SA", False),
    ("T", None, "ST", True), ("T", None, "HA", False), ("2", None, "D2", True), ("A", "S", "HA", True),
    ("A", "S", "HK", False), ("A", "S", "S3", True), ("5", "D", "C5", True), ("5", "D", "C6", False),
])
def test_trump_membership(level, trump, card, expected):
    assert is_trump(trump_context(level, trump), card) is expected


def test_plain_suit_skips_level_rank():
    ctx = trump_context("T", "H")
    assert order(ctx, "SJ") == order(ctx, "S9") + 1
    assert [order(ctx, "S" + r) for r in "23456789JQKA"] == list(range(12))


def test_off_suit_level_cards_are_equal_and_below_trump_suit_level():
    ctx = trump_context("T", "H")
    assert order(ctx, "ST") == order(ctx, "CT") == order(ctx, "DT") == order(ctx, "HA") + 1
    assert order(ctx, "HT") == order(ctx, "ST") + 1
    assert order(ctx, "LJ") == order(ctx, "HT") + 1 and order(ctx, "BJ") == order(ctx, "LJ") + 1


def test_no_trump_order_jokers_over_equal_level_cards():
    ctx = trump_context("7", None)
    assert {order(ctx, s + "7") for s in "SHCD"} == {0}
    assert (order(ctx, "LJ"), order(ctx, "BJ")) == (1, 2)
    assert ctx.no_trump
    assert len(ctx.suit_kinds[TRUMP]) == 6


def test_level_a_plain_suits_top_at_king():
    ctx = trump_context("A", "C")
    assert order(ctx, "SK") == 11 and not is_trump(ctx, "SK")
    assert order(ctx, "CK") == 11 and order(ctx, "SA") == 12 and order(ctx, "CA") == 13


def test_each_effective_suit_size_counts_index_slots():
    ctx = trump_context("T", "H")
    assert ctx.suit_size[0] == 12  # spades without the ten
    assert ctx.suit_size[TRUMP] == 16


@pytest.mark.parametrize(("level", "trump"), [("10", "s"), ("t", "S"), (8, 0)])
def test_context_arguments_are_normalised(level, trump):
    assert trump_context(level, trump).describe() == "level T, trump S"


@pytest.mark.parametrize(("level", "trump"), [("1", "S"), ("11", "S"), ("T", "X"), ("T", "SH"), (13, None), ("2", 4)])
def test_bad_context_arguments_raise(level, trump):
    with pytest.raises(ValueError):
        trump_context(level, trump)


def test_constant_twos_order():
    ctx = trump_context("5", "H", RuleOptions(constant_twos=True))
    plain = "34" + "6789TJQKA"
    assert [order(ctx, "H" + r) for r in plain] == list(range(11))
    assert order(ctx, "S2") == order(ctx, "C2") == order(ctx, "D2") == 11
    assert order(ctx, "H2") == 12
    assert order(ctx, "S5") == 13 and order(ctx, "H5") == 14
    assert (order(ctx, "LJ"), order(ctx, "BJ")) == (15, 16)
    assert is_trump(ctx, "S2") and order(ctx, "S3") == 0 and not is_trump(ctx, "S3")


def test_jokers_only_makes_level_cards_plain_at_natural_rank():
    ctx = trump_context("5", None, RuleOptions(big_joker_pair="master"), jokers_only=True)
    assert not is_trump(ctx, "S5")
    assert order(ctx, "S5") == order(ctx, "S4") + 1 == order(ctx, "S6") - 1
    assert (order(ctx, "LJ"), order(ctx, "BJ")) == (0, 1)
    assert [k for k in range(54) if ctx.suit[k] == TRUMP] == [52, 53]
