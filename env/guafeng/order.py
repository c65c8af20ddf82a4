"""The 刮风 level cycle, trump set and card order (RULES-guafeng.md sections 2 and 3).

A hand of 刮风 is played at the stage team's level rank R in one of three *trump
modes*: a trump suit X (花主), no suit (after a step-down) or constants only
(打常主). :class:`GuafengContext` turns (R, mode) once into the lookup tables the
rest of the engine indexes, with the same names as :class:`env.standard.trump.TrumpContext`:

* ``suit[k]``: effective suit of kind ``k``, 0..3 for a plain suit or ``TRUMP`` (4).
* ``order[k]``: order index inside the effective suit: consecutive indices are
  adjacent in strength, equal cards share an index (副r of the three non-trump
  suits are equal).
* ``suit_kinds[s]``: the kinds of effective suit ``s``, weakest first.

Trump, high to low: ``BJ`` > ``LJ`` > for each *special rank* (R, then 5, 3, 2; R
left out under 打常主) the trump suit's card (主r) > the other suits' cards (副r,
equal) > the trump suit's other ranks A K Q J T 9 8 7 6 4. Plain suits: A K Q J T 9
8 7 6 4 without R (under 打常主 R keeps its printed place).

Tractors and runs are built on printed ranks, not on this order (section 4), so
the context also keeps, per printed suit, the kind at each *rank value*: value 1
is A counted low, 2..14 are 2..A (:attr:`GuafengContext.value_kinds`).
"""

from __future__ import annotations

from functools import lru_cache

from env.core.cards import LITTLE_JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, RANKS, SUITS, kind_of, normalize_rank
from env.core.suits import TRUMP, suit_tables

LEVELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
"""The cycle of levels (级主从A到K循环); after K comes A again."""

TRUMP_MODES = ("suit", "none", "constants")
CONSTANTS = "constants"
"""The ``trump`` argument of 打常主 (constants only)."""

CONSTANT_RANKS = (RANKS.index("5"), RANKS.index("3"), RANKS.index("2"))
"""The ranks of the constant trumps (常主) besides the jokers, high to low: 5, 3, 2."""

RANK_ACE = RANKS.index("A")
LOW_ACE_VALUE = 1
HIGH_ACE_VALUE = 14


def is_constant_trump(kind: int) -> bool:
    """True for the constant trumps (常主): both jokers and every 5, 3 and 2.

    The 回牌 of section 5 counts these; the level rank is not among them.
    """
    return kind >= LITTLE_JOKER or kind % NUM_RANKS in CONSTANT_RANKS


def special_ranks(level: int, mode: str) -> tuple[int, ...]:
    """The special ranks of a hand, high to low, as rank indices (section 3).

    R first except under 打常主, then those of 5, 3, 2 that are not R.
    """
    if mode == CONSTANTS:
        return CONSTANT_RANKS
    return (level, *(r for r in CONSTANT_RANKS if r != level))


class GuafengContext:
    """Lookup tables for one 刮风 hand: level rank R and trump mode.

    Build through :func:`guafeng_context`, which caches one instance per
    (level, trump); instances are immutable by convention. Attributes:

    * ``level``: R as a rank index of :data:`env.core.cards.RANKS`; ``trump_suit``: X as
      0..3, or ``None``; ``mode``: ``"suit"``, ``"none"`` or ``"constants"``;
      ``trump_name``: the ``trump`` argument (``"S"``.. ``"D"``, ``None``, ``"constants"``).
    * ``suit``, ``order``, ``is_trump``, ``suit_kinds``, ``suit_size``: as in
      :class:`env.standard.trump.TrumpContext`.
    * ``special_ranks``: high to low; ``bomb_ranks``: the ranks that make a bomb
      (2, 3, 5, and R unless 打常主).
    * ``value_kinds[s][v]``: the kind of printed suit ``s`` at rank value ``v``
      (1..14; index 0 unused); ``kind_values[k]``: the rank values of kind ``k``
      (two for an A).
    """

    __slots__ = (
        "bomb_ranks",
        "is_trump",
        "jokers_only",
        "kind_values",
        "level",
        "mode",
        "order",
        "special_ranks",
        "suit",
        "suit_kinds",
        "suit_size",
        "trump_name",
        "trump_suit",
        "value_kinds",
    )

    def __init__(self, level: int, trump_suit: int | None, mode: str):
        self.level = level
        self.trump_suit = trump_suit
        self.mode = mode
        self.trump_name = CONSTANTS if mode == CONSTANTS else (None if trump_suit is None else SUITS[trump_suit])
        self.jokers_only = False
        self.special_ranks = special_ranks(level, mode)
        self.bomb_ranks = frozenset(self.special_ranks)
        specials = set(self.special_ranks)
        # Ranks of the non-special cards, weakest first (4 6 7 8 9 T J Q K A less R).
        plain_ranks = [r for r in range(NUM_RANKS) if r not in specials]

        suit = [0] * NUM_KINDS
        order = [0] * NUM_KINDS
        for s in range(NUM_SUITS):
            for index, r in enumerate(plain_ranks):
                kind = kind_of(s, r)
                suit[kind] = TRUMP if s == trump_suit else s
                order[kind] = index
        top = len(plain_ranks) - 1 if trump_suit is not None else -1
        for r in reversed(self.special_ranks):  # weakest special rank first
            top += 1
            for s in range(NUM_SUITS):
                kind = kind_of(s, r)
                suit[kind] = TRUMP
                order[kind] = top
            if trump_suit is not None:
                top += 1
                order[kind_of(trump_suit, r)] = top
        self.suit, self.order, self.is_trump, self.suit_kinds, self.suit_size = suit_tables(suit, order, top)
        self.value_kinds = tuple(
            (-1, kind_of(s, RANK_ACE), *(kind_of(s, r) for r in range(NUM_RANKS))) for s in range(NUM_SUITS)
        )
        self.kind_values = tuple(
            () if k >= LITTLE_JOKER
            else (LOW_ACE_VALUE, HIGH_ACE_VALUE) if k % NUM_RANKS == RANK_ACE
            else (k % NUM_RANKS + 2,)
            for k in range(NUM_KINDS)
        )

    @property
    def no_trump(self) -> bool:
        """True when the hand has no trump suit (no suit, or 打常主)."""
        return self.trump_suit is None

    def describe(self) -> str:
        """Short human description, e.g. ``"level K, trump S"``, ``"level 3, constants only"``."""
        if self.mode == CONSTANTS:
            trump = "constants only (打常主)"
        elif self.trump_suit is None:
            trump = "no trump suit"
        else:
            trump = f"trump {SUITS[self.trump_suit]}"
        return f"level {RANKS[self.level]}, {trump}"

    def __repr__(self) -> str:
        return f"GuafengContext({self.describe()})"


def parse_trump(trump: str | None) -> tuple[int | None, str]:
    """``(trump suit index or None, mode)`` of a ``trump`` argument; ``ValueError`` if malformed."""
    if trump is None:
        return None, "none"
    if isinstance(trump, str):
        text = trump.strip()
        if text.lower() == CONSTANTS:
            return None, CONSTANTS
        if len(text) == 1 and text.upper() in SUITS:
            return SUITS.index(text.upper()), "suit"
    raise ValueError(f"malformed guafeng trump {trump!r}: expected 'S', 'H', 'C', 'D', None or 'constants'")


@lru_cache(maxsize=128)
def guafeng_context(level: str, trump: str | None) -> GuafengContext:
    """The (cached) context of a hand at level rank ``level`` (``"2"``..``"A"``, ``"10"``
    accepted) with ``trump`` ``"S" "H" "C" "D"`` (suit mode), ``None`` (no suit) or
    ``"constants"`` (打常主). Raises ``ValueError`` for a malformed argument."""
    level_index = RANKS.index(normalize_rank(level))
    trump_suit, mode = parse_trump(trump)
    return GuafengContext(level_index, trump_suit, mode)
