"""Effective suits, shared by every rule set: four plain suits and the trump suit, and the lookup
tables a trump context is made of (``suit``, ``order``, ``is_trump``, ``suit_kinds``, ``suit_size``).

A rule set's trump context (:class:`env.standard.trump.TrumpContext`,
:class:`env.guafeng.order.GuafengContext`) decides which kinds are trump and
their order; :func:`suit_tables` turns that into the tables the hot paths index.
"""

from __future__ import annotations

from typing import Protocol

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_KINDS

TRUMP = 4
NUM_EFFECTIVE_SUITS = 5
EFFECTIVE_SUIT_NAMES = ("S", "H", "C", "D", "trump")


def suit_tables(suit: list[int], order: list[int], top: int) -> tuple[tuple, ...]:
    """The lookup tables of a trump context of any rule set, from the effective suit and order index
    of the 52 suited kinds (``top``: the order index of the strongest trump below the jokers, -1 for
    none): LJ and BJ are put above it, and the tables returned are ``(suit, order, is_trump,
    suit_kinds, suit_size)`` (see the module docstring)."""
    suit[LITTLE_JOKER] = suit[BIG_JOKER] = TRUMP
    order[LITTLE_JOKER] = top + 1
    order[BIG_JOKER] = top + 2
    suit_kinds = tuple(
        tuple(sorted((k for k in range(NUM_KINDS) if suit[k] == s), key=lambda k: (order[k], k)))
        for s in range(NUM_EFFECTIVE_SUITS)
    )
    return (tuple(suit), tuple(order), tuple(s == TRUMP for s in suit), suit_kinds,
            tuple(max((order[k] for k in ks), default=-1) + 1 for ks in suit_kinds))


class TrumpTables(Protocol):
    """What shared code reads of any rule set's trump context: the tables of :func:`suit_tables`
    and the trump suit (``None`` without one)."""

    suit: tuple[int, ...]
    order: tuple[int, ...]
    is_trump: tuple[bool, ...]
    suit_kinds: tuple[tuple[int, ...], ...]
    trump_suit: int | None
