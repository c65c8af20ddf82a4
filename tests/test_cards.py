"""Card notation, decks and points (RULES.md section 1)."""

from __future__ import annotations

import pytest

from env.core.cards import (
    BIG_JOKER,
    LITTLE_JOKER,
    TOTAL_POINTS,
    card_list,
    counts_of,
    display_card,
    format_cards,
    kinds_of,
    parse_card,
    parse_cards,
    points_of,
    two_decks,
)


def test_two_decks_hold_each_of_54_kinds_twice():
    deck = two_decks()
    assert len(deck) == 108
    assert counts_of(deck) == [2] * 54


def test_all_points_sum_to_200():
    assert points_of(two_decks()) == TOTAL_POINTS == 200


@pytest.mark.parametrize(("card", "points"), [
    ("S5", 5), ("HT", 10), ("CK", 10), ("DA", 0), ("S2", 0), ("HQ", 0), ("LJ", 0), ("BJ", 0), ("D9", 0),
])
def test_card_points(card, points):
    assert points_of(parse_cards(card)) == points


@pytest.mark.parametrize(("token", "name"), [
    ("SA", "SA"), ("HT", "HT"), ("H10", "HT"), ("D2", "D2"), ("LJ", "LJ"), ("BJ", "BJ"), ("sa", "SA"),
    ("♠A", "SA"), ("♥10", "HT"), ("♣K", "CK"), ("♦2", "D2"), ("♤3", "S3"), ("♡J", "HJ"),
])
def test_parse_accepts_ascii_ten_and_unicode(token, name):
    assert card_list([parse_card(token)]) == [name]


def test_jokers_are_the_last_two_kinds():
    assert parse_card("LJ") == LITTLE_JOKER == 52
    assert parse_card("BJ") == BIG_JOKER == 53


@pytest.mark.parametrize("token", ["S1", "X5", "SAA", "10", "S", "", "JJ", "H11", "T5", "♠1", "S0", "RJ"])
def test_bad_token_raises_value_error_naming_it(token):
    with pytest.raises(ValueError, match="malformed card token") as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_bad_token_inside_a_list_is_named():
    with pytest.raises(ValueError, match="'SZ'"):
        parse_cards("SA SZ HT")


def test_non_string_token_and_out_of_range_kind_raise():
    with pytest.raises(ValueError):
        parse_cards([1.5])
    with pytest.raises(ValueError, match="out of range"):
        parse_cards([54])


def test_parse_list_string_and_kinds_agree():
    assert parse_cards("SA H10 BJ") == parse_cards(["SA", "HT", "BJ"]) == parse_cards([12, 21, 53])
    assert parse_cards("") == []


def test_format_round_trip_of_every_card():
    deck = two_decks()
    assert parse_cards(format_cards(deck)) == deck
    assert kinds_of(counts_of(deck)) == deck


def test_display_uses_unicode_suits_and_10():
    assert display_card(parse_card("HT")) == "♥10"
    assert display_card(parse_card("SA")) == "♠A"
    assert display_card(parse_card("BJ")) == "BJ"
    assert parse_card(display_card(parse_card("DT"))) == parse_card("DT")
