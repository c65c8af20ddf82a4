"""The public referee API of env/rules.py with ruleset="guafeng" (RULES-guafeng.md section 11)."""

from __future__ import annotations

import pytest

from env.rules import (
    advance_level,
    classify,
    decompose,
    is_legal_play,
    kitty_multiplier,
    kitty_points,
    resolve_throw,
    score_hand,
    trick_winner,
)

G = {"ruleset": "guafeng"}


@pytest.mark.parametrize(("cards", "level", "trump", "expected"), [
    ("SA", "8", "S", "single"), ("H5 H5", "8", "S", "pair"), ("HA HA H2 H2", "8", "S", "tractor"),
    ("S5 H5 C5 D5", "8", "S", "bomb"), ("SA S2 S3 S4 S5", "8", "S", "run"), ("SA SK", "8", "S", "invalid"),
    ("SK HK CK DK", "K", "constants", "invalid"), ("SK HK CK DK", "K", None, "bomb"),
    (["S9", "S9", "S10", "S10"], "10", "H", "tractor"), ("♠9 ♠9 ♠J ♠J", "T", "H", "invalid"),
])
def test_classify(cards, level, trump, expected):
    assert classify(cards, level=level, trump=trump, **G) == expected


def test_decompose_is_one_combination_high_to_low_or_an_error():
    assert decompose("S5 S6 S7 S8 S9", level="9", trump="H", **G) == [["S9", "S8", "S7", "S6", "S5"]]
    assert decompose("SA S2 S3 S4 S5", level="9", trump="H", **G) == [["S5", "S4", "S3", "S2", "SA"]]
    assert decompose("SA SA SK SK", level="9", trump="H", **G) == [["SA", "SA", "SK", "SK"]]
    assert decompose("H5 S5 D5 C5", level="9", trump="D", **G) == [["D5", "S5", "H5", "C5"]]
    assert decompose("LJ BJ LJ BJ", level="9", trump=None, **G) == [["BJ", "BJ", "LJ", "LJ"]]
    with pytest.raises(ValueError, match="not a combination"):
        decompose("SA SA SK", level="9", trump="H", **G)


def test_is_legal_play_leads_and_follows():
    assert is_legal_play("SA SK HQ HQ", "HQ HQ", level="K", trump="S", **G) is True
    assert is_legal_play("SA SK HQ HQ", "SA SK", level="K", trump="S", **G) is False  # no throws
    assert is_legal_play("SA SK HQ HQ", "BJ", level="K", trump="S", **G) is False
    assert is_legal_play("HA HJ H7 H4 D6 D6", "HA HJ", level="K", trump="S", lead="HQ HQ", **G) is True
    assert is_legal_play("HA HJ H7 H4 D6 D6", "HA H7", level="K", trump="S", lead="HQ HQ", **G) is False
    hand = "S3 H3 C3 D3 BJ SA H6"
    assert is_legal_play(hand, "S3 H3 C3 D3", level="K", trump="S", lead="S2 H2 C2 D2", **G) is True
    assert is_legal_play(hand, "BJ S3 C3 D3", level="K", trump="S", lead="S2 H2 C2 D2", **G) is True
    assert is_legal_play(hand, "BJ S3 SA H3", level="K", trump="S", lead="S2 H2 C2 D2", **G) is False
    assert is_legal_play("H4 H4 H5 H5 HA HJ", "H4 H4 HA HJ", level="8", trump="S", lead="H7 H7 H8 H8", **G)
    assert not is_legal_play("H4 H4 H5 H5 HA HJ", "H4 H4 H5 H5", level="8", trump="S", lead="H7 H7 H8 H8", **G)


def test_constants_trump_mode():
    # 打常主 at level K: SK is a plain spade, so S5 is trump and SK follows a spade lead.
    assert is_legal_play("SK S5 H4", "SK", level="K", trump="constants", lead="SA", **G) is True
    assert is_legal_play("SK S5 H4", "S5", level="K", trump="constants", lead="SA", **G) is False
    assert trick_winner(["SA", "SK", "S5"], level="K", trump="constants", **G) == 2


def test_resolve_throw_returns_a_combination_or_refuses():
    assert resolve_throw("S9 S9 S8 S8", ["", "", ""], level="K", trump="H", **G) == ["S9", "S9", "S8", "S8"]
    with pytest.raises(ValueError, match="not a combination"):
        resolve_throw("S9 S9 S8", ["SA", "", ""], level="K", trump="H", **G)
    with pytest.raises(ValueError, match="three"):
        resolve_throw("S9 S9", ["SA"], level="K", trump="H", **G)


def test_trick_winner_examples():
    assert trick_winner(["HA", "H4", "S4", "D2"], level="K", trump="S", **G) == 3
    assert trick_winner([["S5", "S5"], ["H5", "H5"], ["BJ", "BJ"], ["C5", "C5"]], level="K", trump="S", **G) == 2
    plays = ["S5 S6 S7 S8 S9", "ST SJ SQ SK SA", "H2 H3 H4 H5 H6", "HA H2 H3 H4 H5"]
    assert trick_winner(plays, level="9", trump="H", **G) == 2


def test_kitty_multiplier_points_score_and_levels():
    assert kitty_multiplier("S5 S5 S6 S6", level="T", trump="H", **G) == 4
    assert kitty_multiplier("S5 S5 S6 S6", level="T", trump="H", variant="exponential", **G) == 4
    assert kitty_multiplier("S5 S6 S7 S8 S9 ST", level="T", trump="H", **G) == 6
    assert kitty_points("LJ S5 SK BJ") == 15  # every function's default is the standard game
    assert kitty_points("LJ S5 SK BJ", **G) == 195
    assert kitty_points("S5 SK", ruleset="standard") == 15
    assert score_hand(-140, **G) == ("dealers", 6)
    assert score_hand(500, **G) == ("defenders", 10)
    assert score_hand(100, takeover="plus_one", **G) == ("defenders", 0)  # standard options ignored
    assert advance_level("T", 6, **G) == "3" and advance_level("K", 1, **G) == "A"
    assert advance_level("K", 1, ruleset="standard") == "A"  # the standard table tops out at A


def test_standard_route_unchanged():
    assert trick_winner(["S5", "S9", "SA", "S3"], level="T", trump="H") == 2
    assert score_hand(120) == ("defenders", 1)
    with pytest.raises(ValueError, match="guafeng"):
        classify("SA", level="T", trump="H", ruleset="standard")


@pytest.mark.parametrize("call", [
    lambda: classify("S3 SX", level="T", trump="H", **G),
    lambda: decompose("S3 S1", level="T", trump="H", **G),
    lambda: is_legal_play("S3 S4", "Z4", level="T", trump="H", **G),
    lambda: is_legal_play("S3 S4", "S4", level="T", trump="H", lead="Q9", **G),
    lambda: resolve_throw("S3", ["Q9", "", ""], level="T", trump="H", **G),
    lambda: trick_winner(["S3", "Z3"], level="T", trump="H", **G),
    lambda: kitty_multiplier("S3 S3 11", level="T", trump="H", **G),
    lambda: kitty_points("S3 XX"),
])
def test_bad_card_tokens_raise_value_error(call):
    with pytest.raises(ValueError, match="malformed card token"):
        call()


@pytest.mark.parametrize("call", [
    lambda: classify("S3", level="1", trump="H", **G),
    lambda: classify("S3", level="T", trump="X", **G),
    lambda: classify("S3", level="T", trump="notrump", **G),
    lambda: classify("S3 S3 S3", level="T", trump="H", **G),  # three copies: two decks only
    lambda: classify("S3", level="T", trump="H", constant_twos=True, **G),  # a standard variant
    lambda: is_legal_play("S3 H3", "S3", level="T", trump="H", lead="S5 H5", **G),  # lead not a combination
    lambda: trick_winner(["S3 S3", "S4"], level="T", trump="H", **G),
    lambda: trick_winner([], level="T", trump="H", **G),
    lambda: kitty_multiplier("S3 S4", level="T", trump="H", **G),
    lambda: score_hand(12.5, **G),
    lambda: advance_level("T", -1, **G),
    lambda: advance_level("Z", 1, **G),
])
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("call, card", [
    (lambda: trick_winner(["BJ", "BJ", "BJ", "BJ"], level="T", trump="H", **G), "BJ"),
    (lambda: trick_winner(["S3 S3", "S4 S4", "S3 S3", "S5 S5"], level="T", trump="H", **G), "S3"),
    (lambda: is_legal_play("BJ BJ", "BJ", level="T", trump="H", lead="BJ", **G), "BJ"),
    (lambda: is_legal_play("S7 S7 S8", "S7 S8", level="T", trump="H", lead="S7 S7", **G), "S7"),
    (lambda: resolve_throw("SA SA", ["SA", "", ""], level="T", trump="H", **G), "SA"),
])
def test_cards_of_different_players_hold_each_card_at_most_twice_together(call, card):
    with pytest.raises(ValueError, match=f"more than 2 copies of {card} in .* together"):
        call()


def test_two_copies_across_the_players_are_fine():
    assert trick_winner(["BJ", "BJ", "LJ", "LJ"], level="T", trump="H", **G) == 0
    assert is_legal_play("BJ", "BJ", level="T", trump="H", lead="BJ", **G)
    assert resolve_throw("SA", ["SA", "", ""], level="T", trump="H", **G) == ["SA"]


def test_guafeng_options_are_accepted_and_change_nothing():
    assert classify("SA", level="T", trump="H", match_hands=5, stage_limit=0, **G) == "single"
