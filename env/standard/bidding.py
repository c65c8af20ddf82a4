"""Bids for the trump suit during the deal (亮主 / 反主), RULES.md sections 4 and 11.

A bid shows ``m`` identical level-rank cards of a suit X (trump X) or ``m >= 2``
identical jokers (no-trump). Its strength is a place on the ladder of RULES.md
11: more cards always win, and at equal count big jokers beat little jokers
beat a suit. The places are numbered so that two decks keep RULES.md 4's
numbers: one level card (1), a pair of them (2), two little jokers (3), two big
jokers (4); then, from three decks on, a triple (5), three little jokers (6),
three big jokers (7), a quad (8) and so on. Only a strictly stronger bid
overturns the standing one; the player whose bid stands may only reinforce it
with more copies of the same card (自保, 加固).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from env.core.cards import BIG_JOKER, CARD_NAMES, LITTLE_JOKER, NUM_RANKS, SUITS, kind_of
from env.standard.tuples import COPY_WORDS

SINGLE = 1
PAIR = 2
LITTLE_JOKER_PAIR = 3
BIG_JOKER_PAIR = 4

_SUIT, _LITTLE, _BIG = 0, 1, 2
"""What a bid shows beside its count: level cards of a suit, little jokers, big jokers."""



def _strength(count: int, shown: int) -> int:
    """The ladder place of ``count`` level cards (``shown=_SUIT``) or jokers."""
    return 1 if count == 1 else 3 * (count - 2) + 2 + shown


class Bid(NamedTuple):
    """A bid: its strength (its place on the ladder, 1 upwards) and suit (0..3, ``None`` for jokers)."""

    strength: int
    suit: int | None

    @property
    def count(self) -> int:
        """How many identical cards the bid shows."""
        return 1 if self.strength == 1 else (self.strength - 2) // 3 + 2

    @property
    def joker(self) -> int | None:
        """The joker kind a no-trump bid shows, ``None`` for a bid of level cards."""
        if self.strength == 1:
            return None
        shown = (self.strength - 2) % 3
        return None if shown == _SUIT else (LITTLE_JOKER if shown == _LITTLE else BIG_JOKER)

    @property
    def is_joker(self) -> bool:
        """True for a no-trump (joker) bid."""
        return self.joker is not None

    def cards(self, level: int) -> list[int]:
        """The kinds shown to make this bid at a level rank."""
        kind = self.joker
        return [kind_of(self.suit, level) if kind is None else kind] * self.count

    def __str__(self) -> str:
        if not isinstance(self.strength, int) or self.strength < 1:
            return f"Bid({self.strength!r}, {self.suit!r})"  # not a real bid; named in error messages
        words = COPY_WORDS.get(self.count, f"{self.count} x")
        kind = self.joker
        if kind is not None and self.suit is None:
            return f"{CARD_NAMES[kind]} {words}"
        if kind is None and self.suit in range(len(SUITS)):
            return f"{words} {SUITS[self.suit]}"
        return f"Bid({self.strength!r}, {self.suit!r})"


@lru_cache(maxsize=8)
def bids_for(decks: int) -> tuple[Bid, ...]:
    """Every bid with ``decks`` decks, weakest first (suits in S, H, C, D order): the bid actions' order.

    One deck has only the four single level cards (no no-trump bid); two decks
    the ten bids of RULES.md 4; each further deck adds four suit bids and two joker bids.
    """
    bids = [Bid(SINGLE, s) for s in range(4)]
    for count in range(2, decks + 1):
        bids += [Bid(_strength(count, _SUIT), s) for s in range(4)]
        bids += [Bid(_strength(count, _LITTLE), None), Bid(_strength(count, _BIG), None)]
    return tuple(bids)


ALL_BIDS: tuple[Bid, ...] = bids_for(2)
"""Every two-deck bid, in the order of the environment's bid actions."""


class StandingBid(NamedTuple):
    """The bid currently standing and who made it."""

    seat: int
    bid: Bid


def reinforces(bid: Bid, standing: Bid) -> bool:
    """True if ``bid`` shows more copies of the card of ``standing`` (自保 / 加固)."""
    return bid.suit == standing.suit and bid.joker == standing.joker and bid.count > standing.count


_SHOWN: dict[int, tuple[tuple[Bid, ...], tuple[tuple[Bid, int, int | None], ...]]] = {}
"""By the ladder's id: the ladder and each of its bids with the count and joker kind it shows (worked out
once per ladder: bidding is asked per dealt card)."""


def _shown(bids: tuple[Bid, ...]) -> tuple[tuple[Bid, int, int | None], ...]:
    known = _SHOWN.get(id(bids))
    if known is None or known[0] is not bids:
        known = _SHOWN[id(bids)] = (bids, tuple((bid, bid.count, bid.joker) for bid in bids))
    return known[1]


def available_bids(counts: Sequence[int], level: int, seat: int, standing: StandingBid | None,
                   bids: tuple[Bid, ...] = ALL_BIDS) -> list[Bid]:
    """The bids of ``bids`` (default: two decks') ``seat`` can make now, given its cards, that beat the standing bid.

    The seat whose bid stands may only reinforce it with more copies of the same card.
    """
    own = standing is not None and standing.seat == seat
    floor = standing.bid.strength if standing else 0
    out = []
    for bid, count, joker in _shown(bids):
        if bid.strength <= floor or (own and not reinforces(bid, standing.bid)):
            continue
        if counts[joker if joker is not None else bid.suit * NUM_RANKS + level] >= count:
            out.append(bid)
    return out


def bid_of_cards(kinds: Sequence[int], level: int, decks: int) -> Bid:
    """The bid a set of shown cards makes at a level rank; ``ValueError`` if they make none with ``decks`` decks."""
    if not kinds or len(set(kinds)) != 1:
        raise ValueError("a bid shows one or more identical cards (level-rank cards, or two or more jokers)")
    kind, count = kinds[0], len(kinds)
    if count > decks:
        raise ValueError(f"{count} copies of {CARD_NAMES[kind]}: there are only {decks} deck(s)")
    if kind in (LITTLE_JOKER, BIG_JOKER):
        if count < 2:
            raise ValueError("a single joker is no bid: no-trump is bid with two or more identical jokers")
        return Bid(_strength(count, _LITTLE if kind == LITTLE_JOKER else _BIG), None)
    suit, rank = divmod(kind, NUM_RANKS)
    if rank != level:
        raise ValueError(f"{CARD_NAMES[kind]} is not a level card: a bid shows level-rank cards or jokers")
    return Bid(_strength(count, _SUIT), suit)
