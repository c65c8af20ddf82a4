"""The standard game's decisions over the action table (:class:`~env.core.decisions.Decision`).

A bid or a 炒地皮 turn is one action (``PASS`` or a bid, :func:`~env.standard.actions.bid_mask`),
a tribute card or a returned card one card pick (:func:`~env.core.actions.card_mask`); the
burial, a lead and a follow are composed card by card by a
:class:`~env.standard.actions.PlayComposer` with exact masks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from env.core.actions import PASS, STOP, card_mask
from env.core.cards import parse_cards
from env.core.decisions import Decision
from env.core.errors import IllegalActionError
from env.standard.actions import action_bid, bid_action, bid_mask, composer_for
from env.standard.bidding import Bid
from env.standard.hand import Hand, Phase


class BidDecision(Decision):
    """A bid of the deal or a 炒地皮 turn: ``PASS`` or one of the seat's bids."""

    takes_plays = False

    def __init__(self, hand: Hand, seat: int):
        self.hand, self.seat, self.picked = hand, seat, []
        self.rebid = hand.phase == Phase.REBID

    def mask(self) -> np.ndarray:
        hand = self.hand
        return bid_mask(hand.rebid_options(self.seat) if self.rebid else hand.bid_options(self.seat),
                        hand.ruleset.num_actions)

    def step(self, action: int) -> bool:
        hand, seat = self.hand, self.seat
        if self.rebid:
            hand.pass_rebid(seat) if action == PASS else hand.rebid(seat, action_bid(action))
        else:
            hand.pass_bid(seat) if action == PASS else hand.bid(seat, action_bid(action))
        return True

    def single_action(self, decision: Any) -> int:
        return PASS if decision is None else bid_action(Bid(*decision))


class TributeDecision(Decision):
    """A tribute card to give, or a card the dealer returns (RULES.md 9): one card pick."""

    takes_plays = False

    def __init__(self, hand: Hand, seat: int):
        self.hand, self.seat, self.picked = hand, seat, []
        self.giving = hand.phase == Phase.TRIBUTE

    def mask(self) -> np.ndarray:
        hand = self.hand
        return card_mask(hand.tribute_options(self.seat) if self.giving else hand.return_options(self.seat),
                         hand.ruleset.num_actions)

    def step(self, action: int) -> bool:
        if self.giving:
            self.hand.give_tribute(self.seat, action)
        else:
            self.hand.return_tribute(self.seat, action)
        return True

    def single_action(self, decision: Any) -> int:
        if isinstance(decision, int | str):
            card = decision
        else:
            cards = list(decision)
            if len(cards) != 1:
                raise IllegalActionError(f"a tribute or a returned card is one card, got {decision!r}")
            card = cards[0]
        return parse_cards([card])[0]


class CardDecision(Decision):
    """The burial, a lead or a follow, picked card by card (a lead ends on ``STOP``)."""

    takes_plays = True

    def __init__(self, hand: Hand, seat: int):
        self.hand, self.seat = hand, seat
        self.composer = composer_for(hand, seat)
        self.picked = self.composer.picked

    def mask(self) -> np.ndarray:
        return self.composer.mask()

    def step(self, action: int) -> bool:
        hand, composer = self.hand, self.composer
        if action == STOP:
            hand.play(self.seat, composer.picked)
            return True
        composer.add(action)
        if not composer.complete:
            return False
        if hand.phase == Phase.KITTY:
            hand.bury(self.seat, composer.picked)
        else:
            hand.play(self.seat, composer.picked)
        return True

    def play(self, cards: list[int]) -> None:
        hand, seat = self.hand, self.seat
        if hand.phase == Phase.KITTY:
            kitty_size = hand.ruleset.layout.kitty_size
            if len(cards) != kitty_size or any(cards.count(k) > hand.hands[seat][k] for k in cards):
                raise IllegalActionError(f"the kitty takes {kitty_size} cards from the dealer's hand, "
                                         f"got {cards!r}")
            hand.bury(seat, cards)
        else:
            hand.play(seat, cards)  # checks the play first: an illegal one raises and changes nothing


def decision_of(hand: Hand, seat: int) -> Decision:
    """The decision ``seat`` is at in a standard hand."""
    phase = hand.phase
    if phase.is_bidding or phase == Phase.REBID:
        return BidDecision(hand, seat)
    if phase in (Phase.TRIBUTE, Phase.TRIBUTE_RETURN):
        return TributeDecision(hand, seat)
    if phase in (Phase.KITTY, Phase.PLAY):
        return CardDecision(hand, seat)
    raise ValueError(f"no decision in phase {phase.value}")
