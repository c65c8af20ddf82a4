"""RULES.md 11 (one to four decks) case by case, the referee API with ``decks=``, bad input, and complete hands."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from env import rules
from env.core.cards import NUM_KINDS, POINTS, card_list, parse_cards
from env.core.errors import IllegalActionError
from env.core.registry import make_ruleset, ruleset_from_config
from env.standard.bidding import Bid, StandingBid, available_bids, bids_for
from env.standard.variants import RuleOptions

H2 = {"level": "2", "trump": "H"}


# ---------------------------------------------------------------- layout and options
@pytest.mark.parametrize(("decks", "kitty", "hand", "threshold", "step"),
                         [(1, 6, 12, 40, 20), (2, 8, 25, 80, 40), (3, 6, 39, 120, 60), (4, 8, 52, 160, 80)])
def test_layout_table(decks, kitty, hand, threshold, step):
    ruleset = make_ruleset("standard", {"decks": decks})
    layout = ruleset.layout
    assert (layout.decks, layout.kitty_size, layout.hand_size) == (decks, kitty, hand)
    assert layout.deck_size == 54 * decks
    assert (ruleset.options.threshold, ruleset.options.step) == (threshold, step)


def test_kitty_size_option_and_explicit_thresholds():
    options = RuleOptions(decks=3, kitty_size=10, threshold=100)
    assert options.hand_size == 38 and options.threshold == 100 and options.step == 60
    assert make_ruleset("standard", {"decks": 3, "kitty_size": 10}).layout.hand_size == 38


@pytest.mark.parametrize(("options", "named"), [
    ({"decks": 0}, "decks"), ({"decks": 5}, "decks"), ({"decks": "3"}, "decks"), ({"decks": True}, "decks"),
    ({"decks": 3, "kitty_size": 7}, "kitty_size"), ({"decks": 1, "kitty_size": 2}, "kitty_size"),
    ({"decks": 1, "kitty_size": 14}, "kitty_size"), ({"decks": 2, "kitty_size": 9}, "kitty_size"),
])
def test_bad_layout_options_are_refused_by_name(options, named):
    with pytest.raises(ValueError, match=named):
        ruleset_from_config(options)


def test_two_deck_options_read_as_before():
    assert "decks" not in RuleOptions().to_dict() and "kitty_size" not in RuleOptions().to_dict()
    assert RuleOptions().to_dict()["threshold"] == 80
    three = RuleOptions(decks=3)
    assert RuleOptions.from_dict(three.to_dict()) == three and three.to_dict()["decks"] == 3


# ---------------------------------------------------------------- tuples, tractors, decomposition
@pytest.mark.parametrize(("cards", "decks", "expected"), [
    ("S5 S5 S5 S6 S6 S6", 3, [["S6", "S6", "S6", "S5", "S5", "S5"]]),
    ("S5 S5 S5 S6 S6", 3, [["S5", "S5", "S5"], ["S6", "S6"]]),
    ("S5 S5 S6 S6", 3, [["S6", "S6", "S5", "S5"]]),
    ("S5 S5 S5 S6 S6 S7 S7", 3, [["S7", "S7", "S6", "S6"], ["S5", "S5", "S5"]]),
    ("S5 S5 S5 S5 S6 S6 S6 S6", 4, [["S6", "S6", "S6", "S6", "S5", "S5", "S5", "S5"]]),
    ("S2 S2 C2 C2", 3, [["S2", "S2"], ["C2", "C2"]]),  # equal index, different kinds: no tractor
    ("S5 S6", 1, [["S6"], ["S5"]]),
])
def test_decomposition_examples(cards, decks, expected):
    got = rules.decompose(cards, level="2", trump="H", decks=decks)
    assert sorted(map(sorted, got)) == sorted(map(sorted, expected))
    assert got[0] == expected[0] or len(expected[0]) == len(got[0])


@pytest.mark.parametrize(("hand", "lead", "play", "decks", "legal"), [
    # RULES.md 11's examples: a triple lead, and a tractor of triples.
    ("S9 S9 SJ SJ SK", "S5 S5 S5", "S9 S9 SK", 3, True),
    ("S9 S9 SJ SJ SK", "S5 S5 S5", "SJ SJ SK", 3, True),
    ("S9 S9 SJ SJ SK", "S5 S5 S5", "S9 SJ SK", 3, False),
    ("S8 S8 S8 SQ SQ SQ S3", "S5 S5 S5 S6 S6 S6", "S8 S8 S8 SQ SQ SQ", 3, True),
    ("S8 S8 S8 SQ SQ SQ S3", "S5 S5 S5 S6 S6 S6", "S8 S8 S8 SQ SQ S3", 3, False),
    ("S8 S8 S8 SQ SQ SQ S3", "S5 S5 S5 S6 S6 S6", "S8 S8 SQ SQ SQ S3", 3, False),
    # A quad that cannot be met asks for a triple, then for one pair.
    ("S9 S9 S3 S3 S4", "S5 S5 S5 S5", "S9 S9 S3 S4", 4, True),
    ("S9 S9 S3 S3 S4", "S5 S5 S5 S5", "S3 S3 S9 S4", 4, True),
    ("S9 S9 S3 S3 S4", "S5 S5 S5 S5", "S9 S3 S4 S3", 4, True),
    ("S9 S9 S3 S4 S6", "S5 S5 S5 S5", "S9 S3 S4 S6", 4, False),
    # A quad serves as two pairs; a triple may be broken for a pair.
    ("S9 S9 S9 S9 S3", "S5 S5 S6 S6", "S9 S9 S9 S3", 4, False),
    ("S9 S9 S9 S9 S3 S4", "S5 S5 S7 S7", "S9 S9 S9 S9", 4, True),
    ("S9 S9 S9 S3 S4", "S5 S5", "S3 S4", 3, False),
    ("S9 S9 S9 S3 S4", "S5 S5", "S9 S9", 3, True),
    # A tractor of pairs from triples; one deck: no tuples, any cards of the suit.
    ("S8 S8 S8 S9 S9 S9 S3", "S5 S5 S6 S6", "S8 S8 S9 S9", 3, True),
    ("S8 S8 S8 S9 S9 S9 S3", "S5 S5 S6 S6", "S8 S8 S8 S9", 3, False),
    ("S8 S9 SK S3", "S5 S6", "S3 SK", 1, True),
])
def test_follow_examples(hand, lead, play, decks, legal):
    assert rules.is_legal_play(hand, play, lead=lead, decks=decks, **H2) is legal


def test_throw_check_breaks_larger_tuples():
    # The pair of the throw is beaten by a pair taken from a triple; the single stands.
    forced = rules.resolve_throw("SA SJ SJ", ["S3", "SQ SQ SQ", "D5"], decks=3, **H2)
    assert sorted(forced) == ["SJ", "SJ"]
    assert sorted(rules.resolve_throw("SA SJ SJ", ["S3", "SQ S9", "D5"], decks=3, **H2)) == ["SA", "SJ", "SJ"]


@pytest.mark.parametrize(("plays", "decks", "winner"), [
    (["S5 S5 S5", "S9 S9 S9", "SA SA S3", "SK SK SK"], 3, 3),   # same shape, higher
    (["S5 S5 S5", "H3 H3 H3", "H4 H4 H4", "SA SA SA"], 3, 2),   # ruffs: the higher triple
    (["S5 S5 S5", "H3 H3 H4", "S6 S7 S8", "H9 H9 H9"], 3, 3),   # a pair and a single is no ruff of a triple
    (["S5 S5 S6 S6", "H3 H3 H3 H3", "S9 S9 ST ST", "S7 S8 S9 SJ"], 4, 2),  # a quad is no tractor
    (["S5 S5 S5 S6 S6 S6", "H7 H7 H7 H8 H8 H8", "H9 H9 H9 HT HT HT", "S3 S4 S7 S8 S9 ST"], 3, 2),
    (["SA SK", "S3 S4", "H3 H4", "H5 D3"], 1, 2),                 # one deck: a throw of singles, ruffed
])
def test_trick_winner_examples(plays, decks, winner):
    assert rules.trick_winner(plays, decks=decks, **H2) == winner


# ---------------------------------------------------------------- bids
def test_bid_ladder_per_deck_count():
    assert [str(b) for b in bids_for(1)] == ["single S", "single H", "single C", "single D"]
    assert len(bids_for(2)) == 10 and len(bids_for(3)) == 16 and len(bids_for(4)) == 22
    for decks in (1, 2, 3, 4):
        strengths = [(b.count, b.joker or 0) for b in bids_for(decks)]
        assert [b.strength for b in sorted(bids_for(decks))] == sorted(b.strength for b in bids_for(decks))
        assert max(s[0] for s in strengths) == decks


@pytest.mark.parametrize(("bid", "standing", "same", "decks", "beats"), [
    ("H2", None, False, 1, True),
    ("H2 H2 H2", "BJ BJ", False, 3, True),     # more cards always win
    ("BJ BJ", "H2 H2 H2", False, 3, False),
    ("LJ LJ LJ", "S2 S2 S2", False, 3, True),  # equal count: jokers break the tie
    ("S2 S2 S2", "H2 H2 H2", False, 3, False),  # equal strength never overturns
    ("H2 H2 H2", "H2 H2", True, 3, True),      # reinforcement with more copies of the same card
    ("S2 S2 S2", "H2 H2", True, 3, False),     # the standing bidder may only reinforce
    ("LJ LJ LJ LJ", "LJ LJ", True, 4, True),
    ("BJ BJ", "H2 H2", False, 2, True),
    ("H2 H2", "H2", True, 2, True),
])
def test_bid_beats(bid, standing, same, decks, beats):
    assert rules.bid_beats(bid, standing, level="2", same_player=same, decks=decks) is beats


@pytest.mark.parametrize(("bid", "decks"), [("LJ LJ", 1), ("BJ", 3), ("H3 H3", 3), ("H2 S2", 3), ("", 2),
                                            ("H2 H2 H2", 2)])
def test_bid_beats_refuses_cards_that_make_no_bid(bid, decks):
    with pytest.raises(ValueError):
        rules.bid_beats(bid, None, level="2", same_player=False, decks=decks)


def test_available_bids_reinforce_and_ladder():
    counts = [0] * NUM_KINDS
    for k in parse_cards("H2 H2 H2 LJ LJ LJ"):
        counts[k] += 1
    three = bids_for(3)
    mine = available_bids(counts, 0, 1, StandingBid(1, Bid(2, 1)), three)
    assert [str(b) for b in mine] == ["triple H"]
    theirs = available_bids(counts, 0, 2, StandingBid(1, Bid(4, None)), three)  # over BJ BJ
    assert [str(b) for b in theirs] == ["triple H", "LJ triple"]


# ---------------------------------------------------------------- the kitty and the score
@pytest.mark.parametrize(("lead", "decks", "variant", "multiplier"), [
    ("S5 S5 S5", 3, "exponential", 8), ("S5 S5 S5 S5", 4, "exponential", 16),
    ("S5 S5 S5 S6 S6 S6", 3, "exponential", 64), ("S5", 1, "exponential", 2),
    ("S5", 3, "linear", 2), ("S5 S5 S5", 3, "linear", 6), ("S5 S5 S5 S5", 4, "linear", 8),
    ("S5 S5 S5 S6 S6 S6", 3, "linear", 12), ("S5 S5 S6 S6", 3, "linear", 8), ("S5 S5", 2, "linear", 4),
])
def test_kitty_multiplier(lead, decks, variant, multiplier):
    assert rules.kitty_multiplier(lead, variant=variant, decks=decks, **H2) == multiplier


@pytest.mark.parametrize(("points", "takeover", "expected"), [
    (0, "plain", ("dealers", 3)), (5, "plain", ("dealers", 2)), (55, "plain", ("dealers", 2)),
    (60, "plain", ("dealers", 1)), (115, "plain", ("dealers", 1)), (120, "plain", ("defenders", 0)),
    (175, "plain", ("defenders", 0)), (120, "plus_one", ("defenders", 1)), (180, "plain", ("defenders", 1)),
    (300, "plain", ("defenders", 3)),
])
def test_three_deck_level_table(points, takeover, expected):
    assert rules.score_hand(points, takeover=takeover, decks=3) == expected


def test_level_table_scales_for_every_deck_count():
    for decks in (1, 2, 3, 4):
        assert rules.score_hand(40 * decks - 1, decks=decks) == ("dealers", 1)
        assert rules.score_hand(40 * decks, decks=decks) == ("defenders", 0)
        assert rules.score_hand(60 * decks, decks=decks) == ("defenders", 1)


# ---------------------------------------------------------------- bad input changes nothing
def test_cards_beyond_the_decks_are_refused():
    with pytest.raises(ValueError, match="more than 3 copies of S5"):
        rules.is_legal_play("S5 S5 S5 S5", "S5", decks=3, **H2)
    with pytest.raises(ValueError, match="decks=1"):
        rules.trick_winner(["S5 S5", "S6 S7"], decks=1, **H2)
    with pytest.raises(ValueError, match="more than"):
        make_ruleset("standard", {"decks": 1}).hand_from_deal(
            {"hands": ["S5 S5", "S6 S9", "S7 S9", "S8 S9"], "kitty": [], "level": "2", "dealer": 0})
    with pytest.raises(ValueError, match="decks"):
        rules.score_hand(100, ruleset="guafeng", decks=3)


def test_an_illegal_follow_at_three_decks_changes_nothing():
    ruleset = make_ruleset("standard", {"decks": 3})
    hand = ruleset.hand_from_deal({"hands": ["S5 S5 S5 S3 S4", "S9 S9 SJ SJ SK", "D3 D4 D5 D6 D7", "C3 C4 C5 C6 C7"],
                                   "kitty": [], "level": "2", "dealer": 0, "trump": "H", "buried": True})
    hand.play(0, parse_cards("S5 S5 S5"))
    before = (hand.to_log(), [list(h) for h in hand.hands])
    with pytest.raises(IllegalActionError, match=r"triple|pair"):
        hand.play(1, parse_cards("S9 SJ SK"))
    assert (hand.to_log(), [list(h) for h in hand.hands]) == before
    hand.play(1, parse_cards("SJ SJ SK"))


# ---------------------------------------------------------------- complete hands (RULES.md 10 with 54d cards)
def _random_hand(decks: int, seed: int, options: dict | None = None):
    ruleset = make_ruleset("standard", {"decks": decks, **(options or {})})
    rng = random.Random(seed)
    hand = ruleset.new_hand(seed)
    while not hand.finished:
        seat = hand.current_player
        decision = ruleset.decision(hand, seat)
        while not decision.step(int(rng.choice(np.flatnonzero(decision.mask())))):
            pass
    return ruleset, hand


@settings(max_examples=24, deadline=None)
@given(st.sampled_from((1, 3, 4)), st.integers(0, 10**6),
       st.sampled_from([{}, {"chaodipi": True}, {"tribute": True}, {"kitty_multiplier": "linear"}]))
def test_complete_hands_keep_the_invariants(decks, seed, options):
    ruleset, hand = _random_hand(decks, seed, options)
    layout = ruleset.layout
    assert len(hand.tricks) <= layout.hand_size
    played = [k for t in hand.tricks for p in t.plays for k in p]
    cards = played + list(hand.kitty)
    assert len(cards) == 54 * decks and all(cards.count(k) == decks for k in range(NUM_KINDS))
    assert sum(POINTS[k] for k in cards) == 100 * decks
    for trick in hand.tricks:
        assert len(trick.plays) == 4 and len({len(p) for p in trick.plays}) == 1
    trick_points = sum(POINTS[k] for t in hand.tricks if t.winner % 2 != hand.dealer % 2 for p in t.plays for k in p)
    assert hand.result.trick_points == trick_points
    assert all(hand.hand_sizes[s] == 0 for s in range(4))
    assert card_list(hand.kitty)  # the kitty was buried and kept


def test_complete_hands_are_reproducible_from_their_logs():
    for decks in (1, 3, 4):
        _ruleset, hand = _random_hand(decks, 7)
        again = type(hand).from_log(hand.to_log())
        assert again.result == hand.result and again.to_log() == hand.to_log()


def test_the_follow_error_names_the_degraded_duty():
    from env.standard.tricks import Lead, follow_error
    from env.standard.trump import trump_context

    ctx = trump_context("2", "H", RuleOptions(decks=4))
    hand = [0] * NUM_KINDS
    for k in parse_cards("S9 S9 S3 S3 S4 S6"):
        hand[k] += 1
    quad = Lead(ctx, parse_cards("S5 S5 S5 S5"))
    error = follow_error(ctx, hand, parse_cards("S9 S3 S4 S6"), quad)
    assert error is not None and error.endswith("a pair of the lead suit")  # no quad, no triple: one pair
    assert follow_error(ctx, hand, parse_cards("S9 S9 S4 S6"), quad) is None
