"""Trump context of one hand: effective suits and order indices of the 54 kinds.

Everything about card strength in a hand follows from three facts: the level
rank, the trump suit (or none), and the rule variants. ``TrumpContext`` turns
them once into lookup tables so the hot paths (legality, trick winner, masks,
encoders) only index lists:

* ``suit[k]``: effective suit of kind ``k``: 0..3 for plain suits, ``TRUMP`` (4).
* ``order[k]``: order index inside the effective suit (RULES.md 2): consecutive
  indices are adjacent in strength, equal cards share an index.
* ``suit_kinds[s]``: the kinds of effective suit ``s``, weakest first.
"""

from __future__ import annotations

from functools import lru_cache

from env.core.cards import (
    LITTLE_JOKER,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUITS,
    RANKS,
    SUITS,
    kind_of,
    normalize_rank,
)
from env.core.suits import TRUMP, suit_tables
from env.standard.variants import RuleOptions

RANK_TWO = 0


class TrumpContext:
    """Lookup tables for one hand's trump (level rank, trump suit, variants).

    Build through :func:`trump_context`, which caches one instance per
    combination; instances are immutable by convention.
    """

    __slots__ = (
        "decks",
        "is_trump",
        "jokers_only",
        "level",
        "options",
        "order",
        "suit",
        "suit_kinds",
        "suit_size",
        "trump_suit",
    )

    def __init__(self, level: int, trump_suit: int | None, options: RuleOptions, jokers_only: bool = False):
        self.level = level
        self.trump_suit = None if jokers_only else trump_suit
        self.jokers_only = jokers_only
        self.options = options
        self.decks = options.decks
        suit = [0] * NUM_KINDS
        order = [0] * NUM_KINDS
        constant_twos = options.constant_twos and not jokers_only

        def is_trump_kind(kind: int) -> bool:
            if kind >= LITTLE_JOKER:
                return True
            if jokers_only:
                return False
            s, r = divmod(kind, NUM_RANKS)
            return r == level or s == self.trump_suit or (constant_twos and r == RANK_TWO)

        def plain_ranks() -> list[int | None]:
            """Ranks of a suit's non-trump cards, weakest first; ``None`` marks a gap."""
            ranks: list[int | None] = []
            for r in range(NUM_RANKS):
                if constant_twos and r == RANK_TWO:
                    continue
                if r == level and not jokers_only:
                    if not options.tractor_skips_level and 0 < r < NUM_RANKS - 1:
                        ranks.append(None)
                    continue
                ranks.append(r)
            return ranks

        for s in range(NUM_SUITS):
            index = 0
            for r in plain_ranks():
                if r is not None:
                    kind = kind_of(s, r)
                    suit[kind] = s if not is_trump_kind(kind) else TRUMP
                    order[kind] = index
                index += 1
        # Trump suit order, weakest first: the trump suit's plain ranks (indices
        # already set above), then [2s off-suit, 2 of trump suit], off-suit level
        # cards, level card of the trump suit, LJ, BJ.
        top = max((order[k] for k in range(52) if suit[k] == TRUMP), default=-1)
        if self.trump_suit is None:
            top = -1
        if constant_twos:
            top += 1
            for s in range(NUM_SUITS):
                if s != self.trump_suit:
                    order[kind_of(s, RANK_TWO)] = top
                suit[kind_of(s, RANK_TWO)] = TRUMP
            if self.trump_suit is not None:
                top += 1
                order[kind_of(self.trump_suit, RANK_TWO)] = top
        if not jokers_only:
            top += 1
            for s in range(NUM_SUITS):
                if s != self.trump_suit:
                    order[kind_of(s, level)] = top
                suit[kind_of(s, level)] = TRUMP
            if self.trump_suit is not None:
                top += 1
                order[kind_of(self.trump_suit, level)] = top
        self.suit, self.order, self.is_trump, self.suit_kinds, self.suit_size = suit_tables(suit, order, top)

    @property
    def no_trump(self) -> bool:
        """True when the hand has no trump suit (无主), jokers-only included."""
        return self.trump_suit is None

    def describe(self) -> str:
        """Short human description, e.g. ``"level T, trump H"``."""
        if self.jokers_only:
            trump = "jokers only"
        else:
            trump = "no-trump" if self.trump_suit is None else SUITS[self.trump_suit]
        return f"level {RANKS[self.level]}, trump {trump}"

    def __repr__(self) -> str:
        return f"TrumpContext({self.describe()})"


@lru_cache(maxsize=512)
def trump_context(level: str | int, trump: str | int | None, options: RuleOptions | None = None,
                  jokers_only: bool = False) -> TrumpContext:
    """The (cached) trump context for a level rank and trump suit.

    ``level`` is a rank string ``"2"``..``"A"`` (``"10"`` accepted) or a rank
    index 0..12; ``trump`` is ``"S" "H" "C" "D"``, a suit index, or ``None``.
    """
    if isinstance(level, int) and not isinstance(level, bool):
        if not 0 <= level < NUM_RANKS:
            raise ValueError(f"level rank index {level} out of range 0..12")
        level_index = level
    else:
        level_index = RANKS.index(normalize_rank(level))
    if trump is None:
        trump_index = None
    elif isinstance(trump, int) and not isinstance(trump, bool):
        if not 0 <= trump < NUM_SUITS:
            raise ValueError(f"trump suit index {trump} out of range 0..3")
        trump_index = trump
    else:
        text = str(trump).strip().upper()
        if text not in SUITS or len(text) != 1:
            raise ValueError(f"malformed trump suit {trump!r}: expected 'S', 'H', 'C', 'D' or None")
        trump_index = SUITS.index(text)
    return TrumpContext(level_index, trump_index, options or RuleOptions(), jokers_only)
