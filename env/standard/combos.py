"""Combinations inside one effective suit: pairs, tractors, decomposition, profiles.

All functions take a :class:`~env.standard.trump.TrumpContext` and work on kinds or on
*pair-count vectors*: ``pc[i]`` = how many pairs (two identical kinds) sit at
order index ``i`` of one effective suit. Several pairs can share an index
(off-suit level cards are equal), which is why tractors are found on these
vectors rather than on kinds.

RULES.md section 3 (components, canonical decomposition) and section 6 (the
follow *profile*, ruff format matching) are computed here and nowhere else.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from typing import NamedTuple

from env.standard.trump import TrumpContext


class Component(NamedTuple):
    """One component of a play: a single (size 1), a pair (2) or a tractor (2k, k >= 2).

    ``top`` is the order index of its highest card; ``cards`` are kinds, weakest first.
    """

    size: int
    top: int
    cards: tuple[int, ...]

    @property
    def pairs(self) -> int:
        """Number of pairs in the component (0 for a single)."""
        return self.size // 2

    @property
    def is_tractor(self) -> bool:
        """Two or more consecutive tuples (with two decks: pairs)."""
        return self.size > self.cards.count(self.cards[-1]) > 1

def pair_counts(ctx: TrumpContext, counts, suit: int) -> list[int]:
    """Pair-count vector of effective suit ``suit`` in a count vector."""
    order = ctx.order
    pc = [0] * ctx.suit_size[suit]
    for k in ctx.suit_kinds[suit]:
        if counts[k] >= 2:
            pc[order[k]] += 1
    return pc


def longest_run(pc: list[int]) -> tuple[int, int]:
    """(length, start) of the longest run of consecutive indices with a pair; ties: highest."""
    best_len, best_start, run = 0, 0, 0
    for i, c in enumerate(pc):
        run = run + 1 if c else 0
        if run and run >= best_len:
            best_len, best_start = run, i - run + 1
    return best_len, best_start


def decompose_suit(ctx: TrumpContext, counts, suit: int) -> list[Component]:
    """Canonical components of the cards of one effective suit (RULES.md 3), largest first.

    All pairs are found; tractors are the longest runs of consecutive pairs,
    taken longest first (ties: the higher run); the rest are singles.
    """
    order = ctx.order
    pair_kinds: dict[int, list[int]] = {}
    singles: list[int] = []
    for k in ctx.suit_kinds[suit]:
        c = counts[k]
        if c >= 2:
            pair_kinds.setdefault(order[k], []).append(k)
            singles.extend([k] * (c - 2))
        elif c == 1:
            singles.append(k)
    components: list[Component] = []
    if pair_kinds:
        pc = [0] * ctx.suit_size[suit]
        for i, ks in pair_kinds.items():
            pc[i] = len(ks)
        while True:
            length, start = longest_run(pc)
            if length < 2:
                break
            cards: list[int] = []
            for i in range(start, start + length):
                pc[i] -= 1
                k = pair_kinds[i].pop()
                cards += (k, k)
            components.append(Component(2 * length, start + length - 1, tuple(cards)))
        for i, ks in pair_kinds.items():
            for k in ks:
                components.append(Component(2, i, (k, k)))
    components.extend(Component(1, order[k], (k,)) for k in singles)
    components.sort(key=lambda c: (-c.size, -c.top))
    return components


def shape_of(components: list[Component]) -> tuple[tuple[int, ...], int, int]:
    """Format of a play: (tractor lengths in pairs, longest first; standalone pairs; singles)."""
    tractors = tuple(sorted((c.size // 2 for c in components if c.size >= 4), reverse=True))
    pairs = sum(1 for c in components if c.size == 2)
    singles = sum(1 for c in components if c.size == 1)
    return tractors, pairs, singles


def has_run(pc, length: int, above: int = -1) -> bool:
    """True if ``pc`` holds ``length`` consecutive pairs whose top index is above ``above``."""
    run = 0
    for i, c in enumerate(pc):
        run = run + 1 if c else 0
        if run >= length and i > above:
            return True
    return False


def _run_starts(pc: tuple[int, ...], length: int) -> list[int]:
    starts = []
    run = 0
    for i, c in enumerate(pc):
        run = run + 1 if c else 0
        if run >= length:
            starts.append(i - length + 1)
    return starts


@lru_cache(maxsize=1 << 16)
def profile(pc: tuple[int, ...], tractor_lengths: tuple[int, ...], pairs: int) -> tuple[int, ...]:
    """The follow profile (RULES.md 6) of a holding against a lead's format.

    ``pc`` is the holding's pair-count vector in the lead suit, ``tractor_lengths``
    the lead's tractors (pairs each, longest first) and ``pairs`` its standalone
    pairs. Walking the tractors, each writes ``(1, k)`` if a k-pair tractor can be
    taken from what is left, else ``(0, m)`` with ``m = min(k, pairs left)``;
    then ``min(pairs, pairs left)``. Where choices exist the lexicographically
    largest record is returned (as a flat tuple).
    """
    if not tractor_lengths:
        return (min(pairs, sum(pc)),)
    k, rest = tractor_lengths[0], tractor_lengths[1:]
    starts = _run_starts(pc, k)
    best: tuple[int, ...] | None = None
    if starts:
        for s in starts:
            left = list(pc)
            for i in range(s, s + k):
                left[i] -= 1
            record = (1, k) + profile(tuple(left), rest, pairs)
            if best is None or record > best:
                best = record
        return best
    total = sum(pc)
    m = min(k, total)
    if m == total:  # every pair goes: nothing is left to choose
        return (0, m) + profile((0,) * len(pc), rest, pairs)
    if not rest:  # no later tractor: which pairs go does not matter, only how many
        return (0, m, min(pairs, total - m))
    present = [i for i, c in enumerate(pc) if c]
    for chosen in combinations_with_replacement(present, m):
        left = list(pc)
        ok = True
        for i in chosen:
            left[i] -= 1
            if left[i] < 0:
                ok = False
                break
        if not ok:
            continue
        record = (0, m) + profile(tuple(left), rest, pairs)
        if best is None or record > best:
            best = record
    return best


def full_profile(tractor_lengths: tuple[int, ...], pairs: int) -> tuple[int, ...]:
    """The profile of a holding that meets every requirement of the format."""
    record: tuple[int, ...] = ()
    for k in tractor_lengths:
        record += (1, k)
    return record + (pairs,)


def matches_format(pc: tuple[int, ...], tractor_lengths: tuple[int, ...], pairs: int) -> bool:
    """True if cards with pair-count vector ``pc`` can be split to match the format.

    Every tractor gets a distinct tractor of the same length, every pair a
    distinct pair; singles take the rest (RULES.md 6, ruffing).
    """
    return profile(pc, tractor_lengths, pairs) == full_profile(tractor_lengths, pairs)


def matching_key(pc: list[int], tractor_lengths: tuple[int, ...], pairs: int, high_single: int) -> int:
    """Strength of a format-matching play on the lead's most important component.

    The longest tractor if the lead has one, else the highest pair if it has
    pairs, else the highest single: the highest top index of such a component
    in the play for which the rest still matches the format. ``high_single`` is
    the play's highest order index (used for all-singles leads).
    """
    if tractor_lengths:
        k, rest_lengths, rest_pairs = tractor_lengths[0], tractor_lengths[1:], pairs
    elif pairs:
        k, rest_lengths, rest_pairs = 1, (), pairs - 1
    else:
        return high_single
    starts = _run_starts(tuple(pc), k)
    for s in reversed(starts):
        left = list(pc)
        for i in range(s, s + k):
            left[i] -= 1
        if matches_format(tuple(left), rest_lengths, rest_pairs):
            return s + k - 1
    return -1
