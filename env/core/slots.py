"""Card slots of the observation encodings, shared by every rule set.

A slot layout maps the 54 kinds onto positions of a card plane: ``canonical``
(a trump block of the rule set's size, strongest first, then one 13-slot block
per plain suit in the order S, H, C, D without the trump suit) or ``raw`` (the
kinds in kind order). A rule set's encoder passes its trump block's size.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from env.core.cards import NUM_KINDS, NUM_SUITS
from env.core.suits import TRUMP, TrumpTables

PLAIN_SLOTS = 13
RAW_SLOTS = NUM_KINDS
LAYOUTS = ("canonical", "raw")


def check_layout(layout: str) -> None:
    """Raise ``ValueError`` naming the choices unless ``layout`` is one of :data:`LAYOUTS`."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown card layout {layout!r}: expected 'canonical' or 'raw'")


def slots_of_layout(layout: str, trump_slots: int) -> int:
    """Number of card slots of a layout, whose canonical trump block has ``trump_slots`` slots
    (21 in the standard game, 27 in 刮风)."""
    check_layout(layout)
    return trump_slots + NUM_SUITS * PLAIN_SLOTS if layout == "canonical" else RAW_SLOTS


@lru_cache(maxsize=1024)
def slot_table(ctx: TrumpTables, layout: str, trump_slots: int) -> np.ndarray:
    """Slot of every kind in a layout (an int array of 54): the trump block of ``trump_slots`` slots
    first, strongest first, then one block per plain suit (:func:`canonical_plain_suits`), strongest
    first. ``ctx`` is a trump context of any rule set (its ``suit_kinds``, ``order``, ``trump_suit``)."""
    if layout == "raw":
        return np.arange(NUM_KINDS)
    slots_of_layout(layout, trump_slots)
    slots = np.zeros(NUM_KINDS, dtype=np.int64)
    trump_kinds = sorted(ctx.suit_kinds[TRUMP], key=lambda k: (-ctx.order[k], k))
    for position, kind in enumerate(trump_kinds):
        slots[kind] = position
    for block, suit in enumerate(canonical_plain_suits(ctx)):
        for position, kind in enumerate(sorted(ctx.suit_kinds[suit], key=lambda k: -ctx.order[k])):
            slots[kind] = trump_slots + block * PLAIN_SLOTS + position
    return slots


def canonical_plain_suits(ctx: TrumpTables) -> list[int]:
    """The plain suits in block order: S, H, C, D without the trump suit."""
    return [s for s in range(NUM_SUITS) if s != ctx.trump_suit]


@lru_cache(maxsize=1024)
def canonical_suit_index(ctx: TrumpTables) -> tuple[int, ...]:
    """Index 0..4 of each effective suit in the encoding: trump 0, plain blocks 1..4."""
    index = [0] * 5
    for block, suit in enumerate(canonical_plain_suits(ctx)):
        index[suit] = 1 + block
    index[TRUMP] = 0
    return tuple(index)
