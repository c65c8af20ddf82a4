"""Bidding for the trump during the deal (RULES.md section 4) on controlled decks."""

from __future__ import annotations

import pytest

from env.core.cards import CARD_NAMES, counts_of, parse_cards, two_decks
from env.core.errors import IllegalActionError
from env.standard.bidding import BIG_JOKER_PAIR, LITTLE_JOKER_PAIR, PAIR, SINGLE, Bid, StandingBid, available_bids
from env.standard.hand import Hand, Phase
from env.standard.variants import RuleOptions

S, H, C, D = range(4)


def fixed_hand(prefix: str, *, level: str = "2", dealer: int | None = None, options: RuleOptions | None = None,
               tail: str = "") -> Hand:
    """A hand whose deal starts with ``prefix`` (position i goes to seat start+i) and ends with ``tail``.

    Every other level card or joker goes to the kitty (or, if more than 8, just
    before ``tail``), the rest of the deck is plain filler, so no other bidding
    question is asked until the end of the deal.
    """
    head, end = parse_cards(prefix), parse_cards(tail)
    rest = counts_of(two_decks())
    for k in head + end:
        rest[k] -= 1
    level_rank = "23456789TJQKA".index(level)
    bid_cards = [k for k in range(54) for _ in range(rest[k]) if k >= 52 or k % 13 == level_rank]
    filler = [k for k in range(54) for _ in range(rest[k]) if not (k >= 52 or k % 13 == level_rank)]
    late = bid_cards[8:]
    middle = filler[: 100 - len(head) - len(late) - len(end)]
    kitty = bid_cards[:8] + filler[len(middle):]
    deck = head + middle + late + end + kitty
    assert sorted(deck) == two_decks(), "test deck must be the two decks"

    def shuffle(self):
        self._deck = list(deck)
        self._dealt = 0
        self.events.append({"type": "shuffle", "deck": [CARD_NAMES[k] for k in deck]})

    cls = type("FixedDeckHand", (Hand,), {"_shuffle": shuffle})
    return cls.new(0, options, level=level, dealer=dealer)


def pass_until(hand: Hand, phase: Phase) -> None:
    while hand.phase != phase:
        hand.pass_bid(hand.current_player)


def test_available_bids_table():
    level = 0  # level 2
    hand = counts_of(parse_cards("S2 H2 H2 LJ LJ BJ"))
    assert available_bids(hand, level, 0, None) == [
        Bid(SINGLE, S), Bid(SINGLE, H), Bid(PAIR, H), Bid(LITTLE_JOKER_PAIR, None)]
    standing = StandingBid(1, Bid(PAIR, C))
    assert available_bids(hand, level, 0, standing) == [Bid(LITTLE_JOKER_PAIR, None)]
    assert available_bids(counts_of(parse_cards("BJ BJ")), level, 0, StandingBid(1, Bid(3, None))) == [
        Bid(BIG_JOKER_PAIR, None)]
    assert available_bids(counts_of(parse_cards("LJ LJ")), level, 0, StandingBid(1, Bid(3, None))) == []


def test_equal_strength_never_overturns():
    hand = counts_of(parse_cards("H2 D2 D2"))
    assert available_bids(hand, 0, 0, StandingBid(1, Bid(SINGLE, S))) == [Bid(PAIR, D)]
    assert available_bids(hand, 0, 0, StandingBid(1, Bid(PAIR, S))) == []


def test_standing_bidder_may_only_strengthen_own_single_to_same_suit_pair():
    hand = counts_of(parse_cards("S2 S2 H2 H2 LJ LJ"))
    assert available_bids(hand, 0, 0, StandingBid(0, Bid(SINGLE, S))) == [Bid(PAIR, S)]
    assert available_bids(hand, 0, 0, StandingBid(0, Bid(SINGLE, C))) == []
    assert available_bids(hand, 0, 0, StandingBid(0, Bid(PAIR, S))) == []


def test_a_dealt_level_card_asks_its_holder_and_the_first_bidder_becomes_dealer():
    hand = fixed_hand("C3 C4 S2")  # position 2 goes to seat 2
    assert hand.phase == Phase.DEAL and hand.current_player == 2
    assert hand.bid_options() == [Bid(SINGLE, S)]
    hand.bid(2, Bid(SINGLE, S))
    assert hand.standing == StandingBid(2, Bid(SINGLE, S))
    pass_until(hand, Phase.KITTY)
    assert hand.dealer == 2 and hand.current_player == 2
    assert hand.ctx.trump_suit == S and hand.hand_sizes[2] == 33


def test_no_question_without_a_beating_bid():
    hand = fixed_hand("S2 H2")
    hand.bid(0, Bid(SINGLE, S))
    # Seat 1's single heart does not beat a single: nobody is asked until the late level cards.
    assert hand._dealt >= 98 or hand.phase == Phase.FINAL_BID


def test_own_single_strengthened_to_pair_is_asked_when_the_second_card_comes():
    hand = fixed_hand("S2 C3 C4 C5 S2")
    hand.bid(0, Bid(SINGLE, S))
    assert hand.current_player == 0 and hand.bid_options() == [Bid(PAIR, S)]
    hand.bid(0, Bid(PAIR, S))
    assert hand.standing == StandingBid(0, Bid(PAIR, S))


def test_other_suit_pair_of_the_standing_bidder_is_not_asked():
    hand = fixed_hand("S2 C3 C4 C5 H2 C6 C7 C8 H2")
    hand.bid(0, Bid(SINGLE, S))
    # Seat 0 now holds H2 H2 but may only strengthen its own single in spades: not asked.
    assert hand._dealt >= 98 or hand.phase == Phase.FINAL_BID
    assert hand.hands[0][parse_cards("H2")[0]] == 2 and hand.bid_options(0) == []


def test_cascade_asks_stronger_holders_in_seat_order_from_the_bidder():
    # Seat 2 gets H2 H2 and passes; seat 1 then bids a single; seat 2 (pair) is asked again.
    hand = fixed_hand("C3 C4 H2 C5 C6 C7 H2 C8 C9 S2")
    assert hand.current_player == 2 and hand.bid_options() == [Bid(SINGLE, H)]
    hand.pass_bid(2)
    assert hand.current_player == 2 and Bid(PAIR, H) in hand.bid_options()
    hand.pass_bid(2)
    assert hand.current_player == 1 and hand.bid_options() == [Bid(SINGLE, S)]
    hand.bid(1, Bid(SINGLE, S))
    assert hand.current_player == 2 and hand.bid_options() == [Bid(PAIR, H)]
    hand.bid(2, Bid(PAIR, H))
    pass_until(hand, Phase.KITTY)
    assert hand.dealer == 2 and hand.ctx.trump_suit == H


def test_joker_pairs_overturn_and_only_a_stronger_joker_pair_beats_them():
    hand = fixed_hand("S2 H2 LJ BJ C3 H2 LJ BJ")
    hand.bid(0, Bid(SINGLE, S))
    assert hand.current_player == 1 and hand.bid_options() == [Bid(PAIR, H)]
    hand.bid(1, Bid(PAIR, H))
    assert hand.current_player == 2 and hand.bid_options() == [Bid(LITTLE_JOKER_PAIR, None)]
    hand.bid(2, Bid(LITTLE_JOKER_PAIR, None))
    assert hand.current_player == 3 and hand.bid_options() == [Bid(BIG_JOKER_PAIR, None)]
    hand.bid(3, Bid(BIG_JOKER_PAIR, None))
    assert all(hand.bid_options(seat) == [] for seat in range(4))
    pass_until(hand, Phase.KITTY)
    assert hand.dealer == 3 and hand.ctx.no_trump and not hand.ctx.jokers_only
    assert hand.ctx.is_trump[parse_cards("H2")[0]]


def test_big_joker_pair_master_makes_only_jokers_trump():
    hand = fixed_hand("BJ C3 C4 C5 BJ", options=RuleOptions(big_joker_pair="master"))
    hand.bid(0, Bid(BIG_JOKER_PAIR, None))
    pass_until(hand, Phase.KITTY)
    assert hand.ctx.jokers_only and hand.ctx.trump_suit is None
    assert [k for k in range(54) if hand.ctx.is_trump[k]] == [52, 53]


def test_final_round_asks_each_holder_once_in_seat_order_from_the_dealer():
    hand = fixed_hand("C3 S2 C4 H2", dealer=2)  # start seat 2: position 1 -> seat 3, position 3 -> seat 1
    assert hand.current_player == 3
    hand.pass_bid(3)
    assert hand.current_player == 1
    hand.pass_bid(1)
    pass_until(hand, Phase.FINAL_BID)
    asked = []
    while hand.phase == Phase.FINAL_BID:
        asked.append(hand.current_player)
        hand.pass_bid(hand.current_player)
    assert {1, 3} <= set(asked)
    assert asked == sorted(asked, key=lambda s: (s - 2) % 4) and len(asked) == len(set(asked))


def test_no_bid_turns_a_kitty_card_and_first_hand_dealer_is_drawn():
    hand = Hand.new(7)
    pass_until(hand, Phase.KITTY)
    turned = [e for e in hand.events if e["type"] == "kitty_turned"]
    assert len(turned) == 1 and hand.dealer == turned[0]["dealer"] in range(4)
    card = turned[0]["card"]
    expected = None if card in ("LJ", "BJ") else "SHCD".index(card[0])
    assert hand.ctx.trump_suit == expected
    assert card in [CARD_NAMES[k] for k in hand._deck[100:]]


def test_no_bid_with_a_dealer_keeps_the_dealer():
    hand = Hand.new(7, dealer=3)
    pass_until(hand, Phase.KITTY)
    assert hand.dealer == 3 and hand.current_player == 3


def test_no_bid_redeal_deals_again():
    hand = Hand.new(7, RuleOptions(no_bid="redeal"))
    while hand.phase != Phase.KITTY and sum(e["type"] == "redeal" for e in hand.events) < 2:
        hand.pass_bid(hand.current_player)
    assert any(e["type"] == "redeal" for e in hand.events)
    assert not any(e["type"] == "kitty_turned" for e in hand.events)
    assert hand.cards_accounted() == 108


@pytest.mark.parametrize("bad", [Bid(PAIR, S), Bid(SINGLE, H), Bid(BIG_JOKER_PAIR, None), (9, None)])
def test_illegal_bids_raise(bad):
    hand = fixed_hand("S2")
    with pytest.raises(IllegalActionError):
        hand.bid(0, bad)
    assert hand.standing is None and hand.current_player == 0
