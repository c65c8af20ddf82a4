"""刮风 rules, example by example: RULES-guafeng.md sections 2, 3, 4, 7, 8, 9 and 12.

Every example and **Decision:** of those sections is a case here, on card names,
through the engine's own functions (env.guafeng.order, combos, moves, scoring).
"""

from __future__ import annotations

import pytest

from env.core.cards import CARD_NAMES, counts_of, parse_cards
from env.core.suits import TRUMP
from env.guafeng.combos import (
    BOMB,
    PAIR,
    RUN,
    SINGLE,
    TRACTOR,
    classify,
    follow_error,
    lead_error,
    trick_winner,
)
from env.guafeng.moves import can_complete_follow, can_complete_lead, completing_cards, legal_follows, legal_leads
from env.guafeng.order import LEVELS, guafeng_context, is_constant_trump
from env.guafeng.scoring import advance_level, kitty_multiplier, kitty_swing, kitty_value, score_hand


def combo(level, trump, cards):
    return classify(guafeng_context(level, trump), parse_cards(cards))


def kind_of_play(level, trump, cards):
    got = combo(level, trump, cards)
    return "invalid" if got is None else got.kind


def orders(level, trump, names):
    ctx = guafeng_context(level, trump)
    return [ctx.order[k] for k in parse_cards(names)]


def follow(level, trump, hand, lead, play):
    ctx = guafeng_context(level, trump)
    return follow_error(ctx, counts_of(parse_cards(hand)), parse_cards(play), classify(ctx, parse_cards(lead)))


def follows(level, trump, hand, lead):
    ctx = guafeng_context(level, trump)
    got = legal_follows(ctx, counts_of(parse_cards(hand)), classify(ctx, parse_cards(lead)))
    return sorted(" ".join(CARD_NAMES[k] for k in p) for p in got.plays)


def names(cards):
    return " ".join(CARD_NAMES[k] for k in sorted(parse_cards(cards)))


def winner(level, trump, plays):
    ctx = guafeng_context(level, trump)
    return trick_winner(ctx, classify(ctx, parse_cards(plays[0])), [parse_cards(p) for p in plays[1:]])


# ------------------------------------------------------------------ section 2: levels

def test_levels_cycle_from_a_to_k():
    assert LEVELS == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


@pytest.mark.parametrize(("level", "steps", "expected"), [
    ("T", 6, "3"), ("5", 10, "2"), ("K", 1, "A"), ("A", 13, "A"), ("4", 18, "9"), ("A", 0, "A"), ("10", 1, "J"),
])
def test_advance_level_examples(level, steps, expected):
    assert advance_level(level, steps) == expected


def test_advance_level_refuses_going_down():
    with pytest.raises(ValueError):
        advance_level("5", -1)


# ------------------------------------------------------------------ section 3: trump and order

def test_order_level_k_trump_s():
    trump = "S4 S6 S7 S8 S9 ST SJ SQ SA H2 C2 D2 S2 H3 C3 D3 S3 H5 C5 D5 S5 HK CK DK SK LJ BJ"
    assert orders("K", "S", trump) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 10, 11, 11, 11, 12, 13, 13, 13, 14,
                                       15, 15, 15, 16, 17, 18]
    assert orders("K", "S", "H4 H6 H7 H8 H9 HT HJ HQ HA") == list(range(9))
    ctx = guafeng_context("K", "S")
    assert all(ctx.suit[k] == TRUMP for k in parse_cards(trump))
    assert len(ctx.suit_kinds[TRUMP]) == 27  # 54 trumps in two decks
    assert [CARD_NAMES[k] for k in ctx.suit_kinds[1]] == ["H4", "H6", "H7", "H8", "H9", "HT", "HJ", "HQ", "HA"]


def test_order_level_3_trump_h():
    assert orders("3", "H", "H4 H6 H7 H8 H9 HT HJ HQ HK HA") == list(range(10))
    assert orders("3", "H", "S2 C2 D2 H2 S5 C5 D5 H5 S3 C3 D3 H3 LJ BJ") == [10, 10, 10, 11, 12, 12, 12, 13, 14, 14,
                                                                             14, 15, 16, 17]
    assert len(guafeng_context("3", "H").suit_kinds[TRUMP]) == 24  # 48 trumps when R is 2, 3 or 5


def test_order_level_k_no_suit():
    assert orders("K", None, "S2 H2 C2 D2 S3 D3 S5 H5 SK DK LJ BJ") == [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5]
    assert orders("K", None, "H4 H6 HQ HA") == [0, 1, 7, 8]


def test_order_level_k_constants_only():
    assert orders("K", "constants", "S2 D2 H3 C3 S5 D5 LJ BJ") == [0, 0, 1, 1, 2, 2, 3, 4]
    assert orders("K", "constants", "H4 H6 H7 H8 H9 HT HJ HQ HK HA") == list(range(10))
    ctx = guafeng_context("K", "constants")
    assert not ctx.is_trump[parse_cards("SK")[0]]
    assert len(ctx.suit_kinds[TRUMP]) == 14  # 28 trumps: 1 joker and 6 constants a player


def test_level_rank_just_below_the_jokers_also_when_it_is_2_3_or_5():
    # Level 3: 3s > 5s > 2s; level 2: 2s > 5s > 3s; level 5: 5s > 3s > 2s.
    a, b, c = orders("3", None, "S3 S5 S2")
    assert a > b > c
    a, b, c = orders("2", None, "S2 S5 S3")
    assert a > b > c
    a, b, c = orders("5", "D", "H5 H3 H2")
    assert a > b > c
    lj = orders("2", "D", "LJ")[0]
    assert orders("2", "D", "D2 H2") == [lj - 1, lj - 2]


def test_special_ranks_of_the_trump_suit_above_the_other_suits():
    d2, h2, s2, c2 = orders("9", "D", "D2 H2 S2 C2")
    assert d2 == h2 + 1 and h2 == s2 == c2
    assert orders("9", "D", "BJ LJ") == [max(orders("9", "D", "BJ LJ")), orders("9", "D", "BJ")[0] - 1]


def test_plain_suit_leaves_out_r_and_constants_but_keeps_r_under_constants_only():
    ctx = guafeng_context("9", "D")
    assert [CARD_NAMES[k] for k in ctx.suit_kinds[0]] == ["S4", "S6", "S7", "S8", "ST", "SJ", "SQ", "SK", "SA"]
    ctx = guafeng_context("9", "constants")
    assert [CARD_NAMES[k] for k in ctx.suit_kinds[0]] == ["S4", "S6", "S7", "S8", "S9", "ST", "SJ", "SQ", "SK", "SA"]


def test_trump_counts_of_the_seed():
    assert len(guafeng_context("7", "C").suit_kinds[TRUMP]) * 2 == 54
    assert len(guafeng_context("5", "C").suit_kinds[TRUMP]) * 2 == 48
    assert len(guafeng_context("7", None).suit_kinds[TRUMP]) * 2 == 36
    assert len(guafeng_context("A", "constants").suit_kinds[TRUMP]) * 2 == 28


def test_context_is_cached_and_describes_itself():
    assert guafeng_context("K", "S") is guafeng_context("K", "S")
    ctx = guafeng_context("T", "constants")
    assert (ctx.mode, ctx.trump_suit, ctx.trump_name, ctx.level) == ("constants", None, "constants", 8)
    assert guafeng_context("T", "h").mode == "suit" and guafeng_context("T", None).mode == "none"
    assert "constants" in ctx.describe()


@pytest.mark.parametrize(("level", "trump"), [("1", "S"), ("T", "X"), ("T", "SH"), ("T", "const")])
def test_malformed_context_arguments(level, trump):
    with pytest.raises(ValueError):
        guafeng_context(level, trump)


def test_constant_trumps_for_the_exchange():
    assert all(is_constant_trump(k) for k in parse_cards("BJ LJ S5 H3 D2 C2"))
    assert not any(is_constant_trump(k) for k in parse_cards("SK H4 DA"))


# ------------------------------------------------------------------ section 4: combinations

@pytest.mark.parametrize(("cards", "expected"), [
    ("SA", SINGLE), ("BJ", SINGLE), ("S5 S5", PAIR), ("BJ BJ", PAIR), ("LJ LJ", PAIR),
    ("S5 H5", "invalid"), ("BJ LJ", "invalid"),
    # tractors at level 8, trump S
    ("H7 H7 H8 H8", TRACTOR), ("HA HA H2 H2", TRACTOR), ("HK HK HA HA", TRACTOR), ("H4 H4 H5 H5", TRACTOR),
    ("S2 S2 S3 S3", TRACTOR), ("H7 H7 H9 H9", "invalid"), ("H4 H4 H6 H6", "invalid"),
    ("HK HK HA HA H2 H2", "invalid"), ("S8 S8 H8 H8", "invalid"),
    ("LJ LJ BJ BJ", BOMB), ("S5 H5 C5 D5", BOMB), ("S5 S5 H5 C5", "invalid"), ("S8 H8 C8 D8", BOMB),
    ("S7 H7 C7 D7", "invalid"),
    ("ST SJ SQ SK SA", RUN), ("SA S2 S3 S4 S5", RUN), ("SQ SK SA S2 S3", "invalid"), ("S6 S7 S8 S9", "invalid"),
    ("SA SK", "invalid"), ("SA SA SK", "invalid"), ("", "invalid"),
    ("H2 H3 H4 H5 H6 H7 H8 H9 HT HJ HQ HK HA", RUN), ("SA SA SK SK SQ SQ", TRACTOR),
    ("S3 S3 S4 S4 S5 S5 S6", "invalid"), ("S3 S4 S5 S6 S7 S7", "invalid"), ("LJ LJ BJ", "invalid"),
])
def test_classify_examples_at_level_8_trump_s(cards, expected):
    assert kind_of_play("8", "S", cards) == expected


def test_tractor_without_skipping_at_level_t():
    assert kind_of_play("T", "S", "S9 S9 SJ SJ") == "invalid"
    assert kind_of_play("T", "S", "S9 S9 ST ST SJ SJ") == TRACTOR


def test_bomb_ranks():
    assert kind_of_play("K", "S", "SK HK CK DK") == BOMB
    assert kind_of_play("K", None, "SK HK CK DK") == BOMB
    assert kind_of_play("K", "constants", "SK HK CK DK") == "invalid"
    assert kind_of_play("K", "S", "S7 H7 C7 D7") == "invalid"
    for rank in "235":
        assert kind_of_play("K", "constants", " ".join(s + rank for s in "SHCD")) == BOMB


def test_suit_of_a_combination():
    assert combo("K", "S", "HA").suit == 1 and combo("K", "S", "H5").suit == TRUMP
    assert combo("K", "S", "S2 H2 C2 D2").suit == TRUMP
    assert combo("9", "H", "S5 S6 S7 S8 S9").suit == 0  # spade run, S5 and S9 stand in
    assert combo("9", "H", "H5 H6 H7 H8 H9").suit == TRUMP
    assert combo("K", "H", "S2 S2 S3 S3").suit == TRUMP
    assert combo("K", "H", "S3 S3 S4 S4").suit == 0


def test_size_of_a_combination():
    assert combo("8", "S", "SA SA S2 S2").size == 2
    assert combo("8", "S", "SK SK SA SA").size == 14
    assert combo("8", "S", "SA S2 S3 S4 S5").size == 5
    assert combo("8", "S", "ST SJ SQ SK SA").size == 14
    assert combo("K", "S", "HQ").size == 7 and combo("K", "S", "SK SK").size == 16
    # tractors compare by printed rank also in trump: SK SK SA SA > S7 S7 S8 S8 at level 8, trump S
    assert combo("8", "S", "SK SK SA SA").size > combo("8", "S", "S7 S7 S8 S8").size
    # all 13 ranks: A counted high
    assert combo("8", "S", "H2 H3 H4 H5 H6 H7 H8 H9 HT HJ HQ HK HA").size == 14


def test_bomb_sizes():
    def size(level, trump, cards):
        return combo(level, trump, cards).size

    k_bomb, five, three, two = (size("K", "S", " ".join(s + r for s in "SHCD")) for r in "K532")
    assert k_bomb > five > three > two
    assert size("K", "S", "BJ BJ LJ LJ") > k_bomb
    three, five, two = (size("3", "H", " ".join(s + r for s in "SHCD")) for r in "352")
    assert three > five > two
    assert size("K", "S", "S5 H5 C5 D5") == size("K", "S", "D5 C5 H5 S5")


def test_lead_error():
    ctx = guafeng_context("K", "S")
    hand = counts_of(parse_cards("SA SK HQ HQ HJ HJ D5 D5"))
    assert lead_error(ctx, hand, parse_cards("HQ HQ HJ HJ")) is None
    assert lead_error(ctx, hand, parse_cards("SA")) is None
    assert "not a combination" in lead_error(ctx, hand, parse_cards("SA SK"))
    assert "not a combination" in lead_error(ctx, hand, parse_cards("HQ HQ D5 D5"))  # no throws
    assert "not in hand" in lead_error(ctx, hand, parse_cards("BJ"))
    assert "at least one card" in lead_error(ctx, hand, [])


def test_legal_leads_list_every_combination():
    ctx = guafeng_context("K", "S")
    hand = counts_of(parse_cards("HA HA H2 H2 H3 H4 H5 S5 C5 D5 BJ"))
    got = {names(" ".join(CARD_NAMES[k] for k in p)) for p in legal_leads(ctx, hand).plays}
    expected = {names(c) for c in ["HA", "H2", "H3", "H4", "H5", "S5", "C5", "D5", "BJ", "HA HA", "H2 H2",
                                   "HA HA H2 H2", "H5 S5 C5 D5", "HA H2 H3 H4 H5"]}
    assert got == expected
    bounded = legal_leads(ctx, hand, max_plays=3)
    assert len(bounded.plays) == 3 and bounded.truncated


# ------------------------------------------------------------------ section 7: following

def test_pair_lead_without_a_pair_takes_the_two_highest():
    assert follows("K", "S", "HA HJ H7 H4 D6 D6", "HQ HQ") == ["HJ HA"]
    assert "two highest" in follow("K", "S", "HA HJ H7 H4 D6 D6", "HQ HQ", "HA H7")
    assert "must play 2 H" in follow("K", "S", "HA HJ H7 H4 D6 D6", "HQ HQ", "D6 D6")


def test_pair_lead_with_a_pair_any_pair():
    assert follows("K", "S", "HA H4 H4 H7 H7", "HQ HQ") == ["H4 H4", "H7 H7"]
    assert "pair" in follow("K", "S", "HA H4 H4 H7 H7", "HQ HQ", "HA H7")


def test_tractor_lead_with_one_pair():
    assert follows("K", "S", "HA HA HJ H9 H4 D6", "H7 H7 H8 H8") == [names("HA HA HJ H9")]
    assert follows("K", "S", "HQ HJ H9 H6 H4", "H7 H7 H8 H8") == [names("HQ HJ H9 H6")]
    assert "highest" in follow("K", "S", "HA HA HJ H9 H4 D6", "H7 H7 H8 H8", "HA HA HJ H4")


def test_tractor_lead_with_a_tractor_must_play_one():
    hand = "H9 H9 HT HT HJ HJ HA HA"
    assert follows("K", "S", hand, "H7 H7 H8 H8") == sorted([names("H9 H9 HT HT"), names("HT HT HJ HJ")])
    assert "tractor" in follow("K", "S", hand, "H7 H7 H8 H8", "H9 H9 HA HA")


def test_tractor_lead_with_pairs_but_no_tractor_any_k_pairs():
    hand = "H4 H4 H7 H7 HA HA HQ"
    assert follows("K", "S", hand, "H8 H8 H9 H9") == sorted([names("H4 H4 H7 H7"), names("H4 H4 HA HA"),
                                                             names("H7 H7 HA HA")])
    assert "pairs" in follow("K", "S", hand, "H8 H8 H9 H9", "HA HA HQ H7")


def test_tractor_lead_stand_ins_do_not_join_h_l():
    # Level 8, trump S: H5 is trump, so the hearts in hand are H4 H4 HA HJ and all four must go.
    assert follows("8", "S", "H4 H4 H5 H5 HA HJ", "H7 H7 H8 H8") == [names("H4 H4 HA HJ")]
    assert follow("8", "S", "H4 H4 H5 H5 HA HJ", "H7 H7 H8 H8", "H4 H4 H5 H5") is not None
    # A stand-in never makes a tractor of H_L: H4 H4 H6 H6 with H5 trump is two pairs.
    assert follows("K", "S", "H4 H4 H6 H6 H5 H5 HA", "H7 H7 H8 H8") == [names("H4 H4 H6 H6")]


def test_tractor_lead_of_three_pairs_with_one_pair():
    hand = "HA HA HQ HJ H9 H9 H4"  # two pairs, HQ HJ H4 the rest
    assert follows("K", "S", hand, "H6 H6 H7 H7 H8 H8") == [names("HA HA H9 H9 HQ HJ")]


def test_trump_tractor_follow_uses_printed_suit_tractors_among_trumps():
    # Level K, trump H: D2 D2 D3 D3 is a trump tractor; the follower must play it.
    hand = "D2 D2 D3 D3 HA HA S6"
    assert follows("K", "H", hand, "H7 H7 H8 H8") == [names("D2 D2 D3 D3")]


def test_bomb_lead_follow():
    hand = "S3 H3 C3 D3 BJ SA H6"
    got = follows("K", "S", hand, "S2 H2 C2 D2")
    assert names("S3 H3 C3 D3") in got
    assert {names("BJ S3 H3 C3"), names("BJ S3 H3 D3"), names("BJ S3 C3 D3")} <= set(got)
    assert len(got) == 4
    assert follow("K", "S", hand, "S2 H2 C2 D2", "BJ S3 SA H3") is not None
    assert "bomb" in follow("K", "S", hand, "S2 H2 C2 D2", "BJ S3 SA H3")


def test_run_lead_is_followed_by_any_cards_of_its_suit():
    hand = "S4 S6 S7 S9 SJ SQ D4"
    assert len(follows("K", "H", hand, "S6 S7 S8 S9 ST")) == 6  # any 5 of the 6 spades, a run or not
    assert follow("K", "H", hand, "S6 S7 S8 S9 ST", "S4 S6 S7 S9 SJ") is None
    assert "must play 5 S" in follow("K", "H", hand, "S6 S7 S8 S9 ST", "S4 S6 S7 S9 D4")
    assert len(follows("K", "H", hand, "C6 C7 C8 C9 CT")) == 21  # void in clubs: any 5 of 7


def test_short_suit_plays_all_then_anything():
    # Two hearts against a pair lead of hearts: both must be played, even without being a pair.
    assert follows("K", "S", "HA H4 S6 D7", "HQ HQ") == [names("HA H4")]
    assert follows("K", "S", "HA S6 D7", "HQ HQ") == sorted([names("HA S6"), names("HA D7")])
    assert "all 1" in follow("K", "S", "HA S6 D7", "HQ HQ", "S6 D7")
    # Void: any two cards, ruff or discard.
    assert follows("K", "S", "S6 D7 D7", "HQ HQ") == sorted([names("D7 D7"), names("S6 D7")])


def test_follow_wrong_count_and_not_held():
    assert "exactly 2" in follow("K", "S", "HA H4", "HQ HQ", "HA")
    assert "not in hand" in follow("K", "S", "HA H4", "HQ HQ", "HA HK")


def test_void_follower_to_a_six_card_run_is_bounded():
    ctx = guafeng_context("K", "S")
    hand = counts_of(parse_cards(" ".join(s + r for s in "SD" for r in "23456789TJQKA")))
    lead = classify(ctx, parse_cards("H6 H7 H8 H9 HT HJ"))
    got = legal_follows(ctx, hand, lead, max_plays=1000)
    assert len(got.plays) == 1000 and got.truncated and len(set(got.plays)) == 1000


def test_completion_for_card_by_card_masks():
    ctx = guafeng_context("K", "S")
    hand = counts_of(parse_cards("HA HA HJ H9 H4 D6"))
    lead = classify(ctx, parse_cards("H7 H7 H8 H8"))
    assert completing_cards(ctx, hand, [], lead) == parse_cards("H9 HJ HA")
    assert can_complete_follow(ctx, hand, lead, parse_cards("HA HJ"))
    assert not can_complete_follow(ctx, hand, lead, parse_cards("H4"))
    assert can_complete_lead(ctx, hand, parse_cards("HA HA"))
    assert not can_complete_lead(ctx, hand, parse_cards("HA HJ"))
    run_hand = counts_of(parse_cards("SA S2 S3 S4 S5 SK"))
    assert can_complete_lead(ctx, run_hand, parse_cards("SA S5"))
    assert not can_complete_lead(ctx, run_hand, parse_cards("SK S2"))


# ------------------------------------------------------------------ section 7: trick winner

@pytest.mark.parametrize(("level", "trump", "plays", "expected"), [
    ("K", "S", ["HA", "H4", "S4", "D2"], 3),
    ("K", "S", ["H5", "C5", "D5", "H5"], 0),
    ("K", "S", ["S5 S5", "H5 H5", "BJ BJ", "C5 C5"], 2),
    ("K", "S", ["S2 H2 C2 D2", "S3 H3 C3 D3", "BJ LJ SK HK", "SK HK CK DK"], 3),
    ("9", "H", ["S5 S6 S7 S8 S9", "ST SJ SQ SK SA", "H2 H3 H4 H5 H6", "HA H2 H3 H4 H5"], 2),
    # a plain pair is ruffed only by a trump pair, and over-ruffed by a higher one
    ("K", "S", ["H9 H9", "S4 S6", "S4 S4", "S6 S6"], 3),
    # a plain tractor only by a trump tractor of as many pairs
    ("K", "S", ["H7 H7 H8 H8", "S6 S6 S7 S7", "HA HA H9 H9", "S4 S4 SA SA"], 1),
    # other types or lengths never win; bombs have no power over other types
    ("K", "S", ["H7 H7 H8 H8", "S5 H5 C5 D5", "HT HT HJ HJ", "HA HA HQ HQ"], 2),
    ("9", "H", ["S6 S7 S8 S9 ST", "C6 C7 C8 C9 CT", "SJ SQ SK SA S2", "ST SJ SQ SK S8"], 0),
    # four highest trumps to a bomb win only when they are a higher bomb
    ("K", "S", ["S2 H2 C2 D2", "BJ BJ LJ SK", "BJ BJ LJ LJ", "S3 H3 C3 D3"], 2),
    # equal plays: the earlier wins
    ("K", "S", ["S2 H2 C2 D2", "D2 C2 H2 S2"], 0),
])
def test_trick_winner_examples(level, trump, plays, expected):
    assert winner(level, trump, plays) == expected


def test_run_in_the_lead_suit_with_stand_ins_beats_a_lower_run():
    # Level 9, trump H: S5 and S9 stand in; the follow is a spade run of size 14.
    assert winner("9", "H", ["S5 S6 S7 S8 S9", "ST SJ SQ SK SA"]) == 1
    assert winner("9", "H", ["ST SJ SQ SK SA", "SA S2 S3 S4 S5"]) == 0


# ------------------------------------------------------------------ sections 8, 9, 12: scoring

def test_kitty_value():
    ctx = guafeng_context("K", "S")
    assert kitty_value(parse_cards("LJ S4 S6 S7")) == 80
    assert kitty_value(parse_cards("BJ BJ SK D5")) == 215
    assert kitty_value([]) == 0
    assert kitty_multiplier(classify(ctx, parse_cards("S4"))) == 1
    assert kitty_multiplier(classify(ctx, parse_cards("S4 S4"))) == 2
    assert kitty_multiplier(classify(ctx, parse_cards("H7 H7 H8 H8"))) == 4
    assert kitty_multiplier(classify(ctx, parse_cards("S2 H2 C2 D2"))) == 4
    assert kitty_multiplier(classify(ctx, parse_cards("H7 H7 H8 H8 H9 H9"))) == 6
    assert kitty_multiplier(classify(ctx, parse_cards("H6 H7 H8 H9 HT HJ"))) == 6
    assert kitty_swing(parse_cards("LJ"), classify(ctx, parse_cards("S4 S4")), False) == -160
    assert kitty_swing(parse_cards("LJ"), classify(ctx, parse_cards("H6 H7 H8 H9 HT HJ")), True) == 480


@pytest.mark.parametrize(("points", "expected"), [
    (-35, ("dealers", 3)), (0, ("dealers", 3)), (5, ("dealers", 2)), (35, ("dealers", 2)),
    (40, ("dealers", 1)), (75, ("dealers", 1)), (80, ("defenders", 0)), (115, ("defenders", 0)),
    (120, ("defenders", 1)), (155, ("defenders", 1)), (320, ("defenders", 6)), (355, ("defenders", 6)),
    (-40, ("dealers", 4)), (-75, ("dealers", 4)), (-80, ("dealers", 5)), (-155, ("dealers", 6)),
    (-120, ("dealers", 6)), (160, ("defenders", 2)), (235, ("defenders", 3)),
    (-140, ("dealers", 6)), (-210, ("dealers", 8)), (-240, ("dealers", 9)), (-600, ("dealers", 18)),
    (500, ("defenders", 10)),
])
def test_score_table(points, expected):
    assert score_hand(points) == expected


def test_seed_worked_examples():
    ctx = guafeng_context("T", "S")
    # (1) defenders 20; LJ in the kitty; the stage team wins the last trick with a pair.
    p = 20 + kitty_swing(parse_cards("LJ S4 S6 S7"), classify(ctx, parse_cards("S9 S9")), False)
    assert p == -140 and score_hand(p) == ("dealers", 6) and advance_level("T", 6) == "3"
    # (5) defenders 20; LJ; the defenders win the last trick with a 6-card plain run.
    p = 20 + kitty_swing(parse_cards("LJ D4 D6 D7"), classify(ctx, parse_cards("H6 H7 H8 H9 HT HJ")), True)
    assert p == 500 and score_hand(p) == ("defenders", 10) and advance_level("5", 10) == "2"
