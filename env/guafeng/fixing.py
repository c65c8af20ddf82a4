"""Fixing the trump (扣主), eating a fix (吃) and giving cards back (回牌): RULES-guafeng.md section 5.

A *fix* shows one or two jokers face up (亮王) and lays a *base* face down (扣对):
m >= 1 pairs of one printed suit with consecutive ranks (the trump suit is the
base's suit), or a joker pair that is not among the shown jokers (打常主, only
jokers and 5, 3, 2 are trump). Its strength is (jokers shown, pairs laid),
compared jokers first; a fix *eats* the standing one only when strictly
stronger. The eater of another player's fix takes that fix's cards and gives
back as many cards of its choice, at least one constant trump (常主) for every
joker taken, none of them from its own new fix.

Everything here is a pure function of count vectors (over the 54 kinds) and
:class:`Fix` values; :class:`~env.guafeng.hand.GuafengHand` runs the decisions.

For an action table, every fix that can exist is listed once in
:data:`FIX_TABLE` (:data:`FIX_INDEX` maps a fix to its place): a mask over it is
``[FIX_INDEX[f] for f in fix_options(...)]``. A 回牌 is composed one card at a
time with :func:`give_back_choices` (the kinds that keep a legal completion),
as the kitty burial is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from env.core.cards import BIG_JOKER, CARD_NAMES, LITTLE_JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, SUITS, parse_cards
from env.guafeng.order import CONSTANTS, is_constant_trump

JOKERS = (LITTLE_JOKER, BIG_JOKER)

_ACE = NUM_RANKS - 1  # rank index of A in env.cards.RANKS ("23456789TJQKA")


SHOWN_JOKERS: tuple[tuple[int, ...], ...] = ((LITTLE_JOKER,), (BIG_JOKER,), (LITTLE_JOKER, LITTLE_JOKER),
                                              (LITTLE_JOKER, BIG_JOKER), (BIG_JOKER, BIG_JOKER))
"""Every way to show jokers (亮王): one or two, as sorted kinds."""


@dataclass(frozen=True, order=True)
class Fix:
    """A fix: the jokers shown face up and the base laid face down, both sorted tuples of kinds.

    ``strength`` is ``(k, m)``: k jokers shown, m pairs laid (a joker pair is
    m = 1). ``trump`` is the trump mode the fix chooses: the base's printed
    suit (``"S"`` .. ``"D"``) or ``"constants"`` (打常主).
    """

    jokers: tuple[int, ...]
    base: tuple[int, ...]

    @classmethod
    def of(cls, jokers: str | Iterable, base: str | Iterable) -> Fix:
        """A fix from cards in any notation (``Fix.of("BJ", "HA HA H2 H2")``); kinds are sorted.

        Raises ``ValueError`` for a malformed card (the shape is checked by :func:`fix_shape_error`).
        """
        return cls(tuple(sorted(parse_cards(jokers))), tuple(sorted(parse_cards(base))))

    @property
    def strength(self) -> tuple[int, int]:
        """(jokers shown, pairs laid): compared jokers first, then pairs."""
        return len(self.jokers), len(self.base) // 2

    @property
    def cards(self) -> tuple[int, ...]:
        """Every card of the fix: the shown jokers and the base."""
        return self.jokers + self.base

    @property
    def trump(self) -> str:
        """The trump mode chosen: the base's suit letter, or ``"constants"`` for a joker pair."""
        first = self.base[0]
        return CONSTANTS if first in JOKERS else SUITS[first // NUM_RANKS]

    def to_dict(self) -> dict[str, list[str]]:
        """The fix as card names (the form of the hand log)."""
        return {"jokers": [CARD_NAMES[k] for k in self.jokers], "base": [CARD_NAMES[k] for k in self.base]}

    def __str__(self) -> str:
        return f"{' '.join(CARD_NAMES[k] for k in self.jokers)} + {' '.join(CARD_NAMES[k] for k in self.base)}"


class StandingFix(NamedTuple):
    """The fix standing and the seat that made it."""

    seat: int
    fix: Fix


def as_fix(value: Fix | dict | Sequence) -> Fix:
    """A :class:`Fix` from a fix, a ``{"jokers", "base"}`` dict, or a ``(jokers, base)`` pair.

    Raises ``ValueError`` when the value is none of those or holds a malformed card.
    """
    if isinstance(value, Fix):
        return value
    if isinstance(value, dict):
        if set(value) != {"jokers", "base"}:
            raise ValueError(f"a fix is {{'jokers': ..., 'base': ...}}, got keys {sorted(value)}")
        return Fix.of(value["jokers"], value["base"])
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        return Fix.of(value[0], value[1])
    raise ValueError(f"a fix is (jokers shown, base cards), got {value!r}")


# ---------------------------------------------------------------------------- the shape of a fix

def _consecutive(ranks: Sequence[int]) -> bool:
    """Distinct printed ranks (indices into env.cards.RANKS) forming an unbroken run, A high or A low."""
    if len(set(ranks)) != len(ranks):
        return False
    high = sorted(ranks)
    low = sorted(-1 if r == _ACE else r for r in ranks)  # A below 2
    return any(order[-1] - order[0] == len(order) - 1 for order in (high, low))


def fix_shape_error(fix: Fix) -> str | None:
    """Why ``fix`` is not a fix whatever the hand (section 5), or ``None``."""
    jokers, base = fix.jokers, fix.base
    if not 1 <= len(jokers) <= 2 or any(k not in JOKERS for k in jokers):
        return f"a fix shows one or two jokers, got {' '.join(CARD_NAMES[k] for k in jokers) or 'none'}"
    if not base or len(base) % 2:
        return f"a fix lays one or more pairs as its base, got {len(base)} card(s)"
    if any(k in JOKERS for k in base):
        if len(base) != 2 or base[0] != base[1]:
            return "a joker base (打常主) is exactly one joker pair, LJ LJ or BJ BJ"
        if base[0] in jokers:
            return f"the joker pair {CARD_NAMES[base[0]]} {CARD_NAMES[base[0]]} cannot be laid with a shown " \
                   f"{CARD_NAMES[base[0]]}: the base's jokers must not be among the shown ones"
        return None
    over = sorted({k for k in base if base.count(k) > 2})
    if over:
        times = ", ".join(f"{CARD_NAMES[k]} {base.count(k)} times" for k in over)
        return f"a base repeats a pair ({times} in {' '.join(CARD_NAMES[k] for k in base)}): the two decks " \
               f"hold each card twice, and a base's pairs are of different ranks"
    kinds = base[::2]
    if any(base[i] != base[i + 1] for i in range(0, len(base), 2)):
        return f"a base is pairs of identical cards, got {' '.join(CARD_NAMES[k] for k in base)}"
    if len({k // NUM_RANKS for k in kinds}) != 1:
        return "the pairs of a base are all of one printed suit"
    if not _consecutive([k % NUM_RANKS for k in kinds]):
        return f"the pairs of a base have consecutive ranks (A high or low), got " \
               f"{' '.join(CARD_NAMES[k] for k in kinds)}"
    return None


def _suit_bases(suit: int, pair_ranks: set[int]) -> list[tuple[int, ...]]:
    """Every base of ``suit`` from the ranks of which a pair is held: runs of consecutive ranks."""
    # Places 0..13 are A(low) 2 3 .. K A(high); a base is an interval of held places without A twice.
    places = [_ACE, *range(NUM_RANKS)]
    held = [r in pair_ranks for r in places]
    bases: list[tuple[int, ...]] = []
    for start in range(len(places)):
        for end in range(start, min(start + NUM_RANKS, len(places))):
            if not held[end]:
                break
            if start == 0 and end == 0:
                continue  # the lone A pair is listed once, at its high place
            kinds = sorted(suit * NUM_RANKS + places[i] for i in range(start, end + 1))
            bases.append(tuple(k for k in kinds for _ in range(2)))
    return list(dict.fromkeys(bases))  # all 13 ranks are one base, whether A is counted low or high


def bases_in(counts: Sequence[int], shown: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Every base that can be laid from ``counts`` beside the shown jokers ``shown``."""
    bases: list[tuple[int, ...]] = []
    for suit in range(NUM_SUITS):
        first = suit * NUM_RANKS
        pairs = {r for r in range(NUM_RANKS) if counts[first + r] >= 2}
        if pairs:
            bases.extend(_suit_bases(suit, pairs))
    for joker in JOKERS:
        if joker not in shown and counts[joker] >= 2:
            bases.append((joker, joker))
    return bases


def _all_fixes() -> tuple[Fix, ...]:
    full = [2] * NUM_KINDS
    fixes = [Fix(shown, base) for shown in SHOWN_JOKERS for base in bases_in(full, shown)]
    return tuple(sorted(fixes, key=lambda f: (f.strength, f.jokers, f.base)))


FIX_TABLE: tuple[Fix, ...] = _all_fixes()
"""Every fix that can be made, weakest first: a fixed action table for masks."""

FIX_INDEX: dict[Fix, int] = {fix: i for i, fix in enumerate(FIX_TABLE)}
"""The place of each fix in :data:`FIX_TABLE`."""


# ---------------------------------------------------------------------------- fixes from a hand

def holds(counts: Sequence[int], kinds: Iterable[int]) -> bool:
    """Whether the count vector holds every card of ``kinds`` (with multiplicity)."""
    need: dict[int, int] = {}
    for k in kinds:
        need[k] = need.get(k, 0) + 1
    return all(counts[k] >= n for k, n in need.items())


def fix_error(counts: Sequence[int], fix: Fix, standing: StandingFix | None) -> str | None:
    """Why a player holding ``counts`` may not make ``fix`` against the standing fix, or ``None``.

    The player's counts include the cards of their own standing fix (吃自己
    builds from all their cards). Equal strength never eats.
    """
    shape = fix_shape_error(fix)
    if shape:
        return shape
    if not holds(counts, fix.cards):
        return f"the fix {fix} is not in hand"
    if standing is not None and fix.strength <= standing.fix.strength:
        return f"the fix {fix} of strength {fix.strength} does not eat the standing fix of strength " \
               f"{standing.fix.strength}: only a strictly stronger fix eats (jokers first, then pairs)"
    return None


def fix_options(counts: Sequence[int], standing: StandingFix | None) -> list[Fix]:
    """Every fix a player holding ``counts`` can make now: strictly stronger than the standing one."""
    if not counts[LITTLE_JOKER] and not counts[BIG_JOKER]:
        return []
    floor = standing.fix.strength if standing is not None else (0, 0)
    options = []
    for shown in SHOWN_JOKERS:
        if not holds(counts, shown):
            continue
        left = list(counts)
        for k in shown:
            left[k] -= 1
        for base in bases_in(left, shown):
            fix = Fix(shown, base)
            if fix.strength > floor:
                options.append(fix)
    return sorted(options, key=lambda f: (f.strength, f.jokers, f.base))


# ---------------------------------------------------------------------------- 回牌

def give_back_error(available: Sequence[int], cards: Sequence[int], count: int, constants: int) -> str | None:
    """Why ``cards`` are not a legal 回牌, or ``None``.

    ``available``: the eater's cards it may give (its hand, the eaten cards
    included, less its new fix); ``count``: the number of cards taken;
    ``constants``: the constant trumps owed (one for each joker taken).
    """
    if len(cards) != count:
        return f"回牌 gives back exactly {count} card(s), as many as were taken; got {len(cards)}"
    if not holds(available, cards):
        return "回牌 gives cards held and not of the eater's new fix"
    given = sum(1 for k in cards if is_constant_trump(k))
    if given < constants:
        return f"回牌 gives at least {constants} constant trump(s) (jokers, 5s, 3s, 2s), one for each joker " \
               f"taken; got {given}"
    return None


def give_back_choices(available: Sequence[int], chosen: Sequence[int], count: int, constants: int) -> list[int]:
    """The kinds that may be added to a partial 回牌 ``chosen`` so that a legal completion remains.

    Used to compose the 回牌 one card at a time over the 54 card actions.
    """
    if len(chosen) >= count:
        return []
    left = list(available)
    for k in chosen:
        left[k] -= 1
    owed = max(0, constants - sum(1 for k in chosen if is_constant_trump(k)))
    picks_after = count - len(chosen) - 1
    constants_held = sum(left[c] for c in range(NUM_KINDS) if is_constant_trump(c))
    choices = []
    for k in range(NUM_KINDS):
        if left[k] <= 0:
            continue
        constant = is_constant_trump(k)
        still_owed = max(0, owed - constant)
        if still_owed <= picks_after and still_owed <= constants_held - constant:
            choices.append(k)
    return choices
