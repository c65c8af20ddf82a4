"""Move generation: every legal lead or follow from a hand, with an optional bound.

Leads: every single, pair and tractor first, then throw attempts (any other
subset of one effective suit). Follows: every set of cards that
:func:`env.standard.tricks.follow_error` accepts. Plays are tuples of kinds, sorted.
Enumeration can be large (a long suit has thousands of subsets), so both
generators take ``max_plays`` and report whether they stopped early.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations, filterfalse, islice, pairwise
from math import comb

from env.core.moves import MoveList
from env.core.suits import NUM_EFFECTIVE_SUITS, TRUMP
from env.standard.combos import pair_counts, profile
from env.standard.follow_duty import FollowDuty
from env.standard.tricks import Lead, effective_suit_count
from env.standard.trump import TrumpContext

_EAGER_FACTOR = 4
"""A bounded enumeration with more than this many times its bound of raw combinations is deduplicated
lazily: building all of them (a void follower's discards under a 4-card lead are 12,650) to keep 49
costs more than the lazy path's per-item overhead saves."""


def _dedupe(combos: Iterator[tuple[int, ...]]) -> Iterator[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    for combo in combos:
        if combo not in seen:
            seen.add(combo)
            yield combo


def _sub_multisets(items: Sequence[tuple[int, int]], size: int, bound: int | None = None) -> Iterable[tuple[int, ...]]:
    """All multisets of ``size`` cards drawn from ``(kind, count)`` items.

    Each multiset is a tuple in item order, and they come in lexicographic
    order of those tuples. ``itertools.combinations`` over the expanded cards
    does the enumeration in C (the hot path of random play and of the
    environment's masks); a kind held twice yields each multiset up to twice,
    and the first occurrence is kept, which preserves the lexicographic order.
    When the caller will stop early (after about ``bound`` plays) and the set
    is much larger, the duplicates are dropped lazily instead of all at once.
    """
    cards = [k for k, c in items for _ in range(c)]
    if size > len(cards):
        return ()
    combos = combinations(cards, size)
    if len(cards) == len(items):
        return combos
    if bound is not None and comb(len(cards), size) > _EAGER_FACTOR * bound:
        return _dedupe(combos)
    return dict.fromkeys(combos)


class _Collector:
    def __init__(self, max_plays: int | None):
        self.plays: list[tuple[int, ...]] = []
        self.max_plays = max_plays
        self.truncated = False

    def add(self, play: tuple[int, ...]) -> bool:
        """Add a play; False once the bound is reached (and marks truncation)."""
        return self.add_sorted(tuple(sorted(play)))

    def add_sorted(self, play: tuple[int, ...]) -> bool:
        """Add a play already sorted by kind; False once the bound is reached."""
        if self.max_plays is not None and len(self.plays) >= self.max_plays:
            self.truncated = True
            return False
        self.plays.append(play)
        return True

    def extend(self, plays: Iterable[tuple[int, ...]]) -> bool:
        """Add plays already sorted by kind, in bulk; False once the bound is reached."""
        if self.max_plays is None:
            self.plays.extend(plays)
            return True
        room = self.max_plays - len(self.plays)
        taken = list(islice(plays, room + 1))
        if len(taken) > room:
            self.plays.extend(taken[:room])
            self.truncated = True
            return False
        self.plays.extend(taken)
        return True


def _sorted_plays(plays: Iterable[tuple[int, ...]], needs_sort: bool) -> Iterable[tuple[int, ...]]:
    """Plays as tuples sorted by kind (a plain suit's strength order already is its kind order)."""
    return map(tuple, map(sorted, plays)) if needs_sort else plays


def legal_follows(ctx: TrumpContext, hand: Sequence[int], lead: Lead, max_plays: int | None = None) -> MoveList:
    """Every legal follow to ``lead`` from count vector ``hand``."""
    out = _Collector(max_plays)
    suit = lead.suit
    in_suit = [(k, hand[k]) for k in ctx.suit_kinds[suit] if hand[k]]
    held = effective_suit_count(ctx, hand, suit)
    if held <= lead.n:
        forced = tuple(k for k, c in in_suit for _ in range(c))
        others = [(k, c) for k, c in enumerate(hand) if c and ctx.suit[k] != suit]
        fills = _sub_multisets(others, lead.n - held, max_plays)
        out.extend(_sorted_plays(map(forced.__add__, fills), True))
        return MoveList(out.plays, out.truncated)
    needs_shape = bool(lead.tractor_lengths or lead.pairs)
    if not needs_shape:
        out.extend(_sorted_plays(_sub_multisets(in_suit, lead.n, max_plays), suit == TRUMP))
        return MoveList(out.plays, out.truncated)
    if ctx.decks != 2:
        out.extend(_witnessed_follows(ctx, hand, lead, in_suit))
        return MoveList(out.plays, out.truncated)
    required = profile(tuple(pair_counts(ctx, hand, suit)), lead.tractor_lengths, lead.pairs)
    order = ctx.order
    size = ctx.suit_size[suit]
    for play in _sub_multisets(in_suit, lead.n, max_plays):
        pc = [0] * size
        for a, b in pairwise(play):
            if a == b:
                pc[order[a]] += 1
        if profile(tuple(pc), lead.tractor_lengths, lead.pairs) != required:
            continue
        if not out.add(play):
            break
    return MoveList(out.plays, out.truncated)


def _witnessed_follows(ctx: TrumpContext, hand: Sequence[int], lead: Lead,
                       in_suit: list[tuple[int, int]]) -> Iterator[tuple[int, ...]]:
    """Legal follows in RULES.md 11's reading, lazily: each witness of the duty, filled from the suit's other cards."""
    duty = FollowDuty(ctx, hand, lead)
    seen: set[tuple[int, ...]] = set()
    for taken in duty.witnesses():
        core = [k for k, c in zip(duty.kinds, taken, strict=True) for _ in range(c)]
        uses = dict(zip(duty.kinds, taken, strict=True))
        spare = [(k, c - uses.get(k, 0)) for k, c in in_suit if c - uses.get(k, 0) > 0]
        for fill in _sub_multisets(spare, lead.n - len(core)):
            play = tuple(sorted(core + list(fill)))
            if play not in seen:
                seen.add(play)
                yield play


def basic_leads(ctx: TrumpContext, hand: Sequence[int], suit: int) -> list[tuple[int, ...]]:
    """Singles, pairs and tractors (every choice of kinds) of one effective suit.

    With other than two decks: every m-tuple (m up to the copies held) and
    every tractor (m, k) (RULES.md 11).
    """
    if ctx.decks != 2:
        return _basic_tuple_leads(ctx, hand, suit)
    kinds = [k for k in ctx.suit_kinds[suit] if hand[k]]
    plays: list[tuple[int, ...]] = [(k,) for k in kinds]
    pair_kinds: dict[int, list[int]] = {}
    for k in kinds:
        if hand[k] >= 2:
            plays.append((k, k))
            pair_kinds.setdefault(ctx.order[k], []).append(k)

    def extend(index: int, chain: tuple[int, ...]) -> None:
        for k in pair_kinds.get(index, ()):
            longer = chain + (k, k)
            if len(longer) >= 4:
                plays.append(longer)
            extend(index + 1, longer)

    # Every start index: a tractor may start anywhere inside a longer run.
    for index in sorted(pair_kinds):
        for k in pair_kinds[index]:
            extend(index + 1, (k, k))
    return plays


def _basic_tuple_leads(ctx: TrumpContext, hand: Sequence[int], suit: int) -> list[tuple[int, ...]]:
    kinds = [k for k in ctx.suit_kinds[suit] if hand[k]]
    plays: list[tuple[int, ...]] = []
    for m in range(1, max((hand[k] for k in kinds), default=0) + 1):
        at: dict[int, list[int]] = {}
        for k in kinds:
            if hand[k] >= m:
                plays.append((k,) * m)
                at.setdefault(ctx.order[k], []).append(k)
        if m < 2:
            continue

        def extend(index: int, chain: tuple[int, ...], m: int = m, at: dict[int, list[int]] = at) -> None:
            for k in at.get(index, ()):
                longer = chain + (k,) * m
                if len(longer) >= 2 * m:
                    plays.append(longer)
                extend(index + 1, longer)

        for index in sorted(at):
            for k in at[index]:
                extend(index + 1, (k,) * m)
    return plays


def legal_leads(ctx: TrumpContext, hand: Sequence[int], max_plays: int | None = None) -> MoveList:
    """Every lead attempt: all singles, pairs and tractors, then throws until the bound."""
    out = _Collector(max_plays)
    basics_by_suit = []
    for suit in range(NUM_EFFECTIVE_SUITS):
        basics = basic_leads(ctx, hand, suit)
        basics_by_suit.append({tuple(sorted(p)) for p in basics})
        for play in basics:
            if not out.add(play):
                return MoveList(out.plays, True)
    for suit in range(NUM_EFFECTIVE_SUITS):
        items = [(k, hand[k]) for k in ctx.suit_kinds[suit] if hand[k]]
        total = sum(c for _, c in items)
        basics = basics_by_suit[suit]
        for size in range(2, total + 1):
            plays = _sorted_plays(_sub_multisets(items, size, max_plays), suit == TRUMP)
            if not out.extend(filterfalse(basics.__contains__, plays)):
                return MoveList(out.plays, True)
    return MoveList(out.plays, out.truncated)
