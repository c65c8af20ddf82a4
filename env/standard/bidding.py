"""Bids for the trump suit during the deal (亮主 / 反主), RULES.md section 4.

A bid is shown with level-rank cards or a joker pair and has a strength:
one level card of suit X (1), two identical level cards of X (2), two little
jokers (3), two big jokers (4). Only a strictly stronger bid overturns the
standing one; the player whose single stands may only strengthen it to a pair
of the same suit (自保).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from env.core.cards import BIG_JOKER, LITTLE_JOKER, SUITS, kind_of

SINGLE = 1
PAIR = 2
LITTLE_JOKER_PAIR = 3
BIG_JOKER_PAIR = 4


class Bid(NamedTuple):
    """A bid: its strength (1..4) and suit (0..3, ``None`` for a joker pair)."""

    strength: int
    suit: int | None

    def cards(self, level: int) -> list[int]:
        """The kinds shown to make this bid at a level rank."""
        if self.strength == LITTLE_JOKER_PAIR:
            return [LITTLE_JOKER, LITTLE_JOKER]
        if self.strength == BIG_JOKER_PAIR:
            return [BIG_JOKER, BIG_JOKER]
        return [kind_of(self.suit, level)] * self.strength

    def __str__(self) -> str:
        if self.strength == LITTLE_JOKER_PAIR:
            return "LJ pair"
        if self.strength == BIG_JOKER_PAIR:
            return "BJ pair"
        if self.strength in (SINGLE, PAIR) and self.suit in range(len(SUITS)):
            return f"{'single' if self.strength == SINGLE else 'pair'} {SUITS[self.suit]}"
        return f"Bid({self.strength!r}, {self.suit!r})"  # not a real bid; named in error messages


ALL_BIDS: tuple[Bid, ...] = tuple(
    [Bid(SINGLE, s) for s in range(4)] + [Bid(PAIR, s) for s in range(4)]
    + [Bid(LITTLE_JOKER_PAIR, None), Bid(BIG_JOKER_PAIR, None)]
)
"""Every possible bid, in the order of the environment's bid actions."""


class StandingBid(NamedTuple):
    """The bid currently standing and who made it."""

    seat: int
    bid: Bid


def available_bids(counts: Sequence[int], level: int, seat: int, standing: StandingBid | None) -> list[Bid]:
    """The bids ``seat`` can make now, given its cards, that beat the standing bid."""
    floor = standing.bid.strength if standing else 0
    if standing is not None and standing.seat == seat:
        # Only strengthening one's own single to a pair of the same suit.
        bid = Bid(PAIR, standing.bid.suit)
        own = standing.bid.strength == SINGLE and counts[kind_of(bid.suit, level)] >= 2
        return [bid] if own else []
    bids = []
    for bid in ALL_BIDS:
        if bid.strength <= floor:
            continue
        need = bid.cards(level)
        if counts[need[0]] >= len(need):
            bids.append(bid)
    return bids
