"""The public referee API of env/rules.py: argument forms, return types and errors (a contract)."""

from __future__ import annotations

import pytest

from env.rules import decompose, is_legal_play, kitty_multiplier, resolve_throw, score_hand, trick_winner


def test_decompose_returns_lists_of_card_strings_largest_first():
    got = decompose("S3 S3 S4 S4 SA S9 S9", level="2", trump="H")
    assert got == [["S4", "S4", "S3", "S3"], ["S9", "S9"], ["SA"]]
    assert all(isinstance(c, str) for comp in got for c in comp)


def test_cards_as_string_or_list_and_ten_spelt_either_way():
    as_string = decompose("H10 H10 LJ LJ", level="10", trump="H")
    assert as_string == decompose(["HT", "HT", "LJ", "LJ"], level="T", trump="H") == [["LJ", "LJ", "HT", "HT"]]
    assert decompose("♥10 ♥10", level="T", trump="H") == [["HT", "HT"]]


def test_is_legal_play_returns_bool_for_leads_and_follows():
    assert is_legal_play("S3 S4", "S3", level="T", trump="H") is True
    assert is_legal_play("S3 S4", "S3 S4", level="T", trump="H", lead="S5 S5") is True
    assert is_legal_play(["S3", "S4", "H2"], ["S3", "H2"], level="T", trump="H", lead=["S5", "S5"]) is False


def test_resolve_throw_and_trick_winner_types():
    got = resolve_throw(["S9", "S8", "S8", "S4", "S4"], ["SJ", "", "C2"], level="T", trump="H")
    assert got == ["S9"]
    assert trick_winner(["S5", "S9", "SA", "S3"], level="T", trump="H") == 2
    assert trick_winner([["S5"], ["H2"]], level="T", trump="H") == 1


def test_kitty_multiplier_and_score_hand_types():
    assert kitty_multiplier("S5 S5 S6 S6", level="T", trump="H") == 16
    assert score_hand(120) == ("defenders", 1)
    assert score_hand(85, takeover="plus_one", threshold=80, step=40) == ("defenders", 1)


def test_variant_keywords_reach_the_rules():
    assert decompose("HA HA S2 S2", level="5", trump="H", constant_twos=True) == [["S2", "S2", "HA", "HA"]]
    assert decompose("S9 S9 SJ SJ", level="T", trump="H", tractor_skips_level=False) == [["SJ", "SJ"], ["S9", "S9"]]
    assert is_legal_play("S9 S9 SJ SJ S2 S2", "S2 S2 S9 S9", level="T", trump="H", lead="S5 S5 S6 S6",
                         tractor_skips_level=False) is True
    assert is_legal_play("S9 S9 SJ SJ S2 S2", "S2 S2 S9 S9", level="T", trump="H", lead="S5 S5 S6 S6") is False
    assert trick_winner(["S5 S5 S6 S6", "S9 S9 SJ SJ"], level="T", trump="H", tractor_skips_level=False) == 0
    assert trick_winner(["S5 S5 S6 S6", "S9 S9 SJ SJ"], level="T", trump="H") == 1


@pytest.mark.parametrize("call", [
    lambda: decompose("S3 SX", level="T", trump="H"),
    lambda: is_legal_play("S3 S4", "S1", level="T", trump="H"),
    lambda: resolve_throw("S3 S4", ["Q9", "", ""], level="T", trump="H"),
    lambda: trick_winner(["S3", "Z3"], level="T", trump="H"),
    lambda: kitty_multiplier("S3 S3 11", level="T", trump="H"),
])
def test_bad_card_tokens_raise_value_error_naming_the_token(call):
    with pytest.raises(ValueError, match="malformed card token"):
        call()


@pytest.mark.parametrize("call", [
    lambda: decompose("S3", level="1", trump="H"),
    lambda: decompose("S3", level="T", trump="X"),
    lambda: decompose("S3", level="T", trump="H", no_such_option=True),
    lambda: decompose("S3", level="T", trump="H", takeover="double"),
    lambda: is_legal_play("S3 H3", "S3", level="T", trump="H", lead="S5 H5"),
    lambda: trick_winner(["S3 S3", "S4"], level="T", trump="H"),
    lambda: score_hand(100, takeover="plus_two"),
])
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
