"""Tuples and tractors with any number of decks (RULES.md 11): decomposition, the follow profile, formats.

With ``d`` decks a kind can be held up to ``d`` times, so a play's units are
*m-tuples* (m identical cards) and *tractors of shape (m, k)* (k >= 2
consecutive m-tuples). Two decks are the case m <= 2 that
:mod:`env.standard.combos` computes on pair-count vectors; this module is the
general reading, and :mod:`env.standard.tricks` and :mod:`env.standard.moves`
hand every question of a game of other than two decks to it.

A holding in one effective suit is read here as *stacks*: a sorted tuple of
``(order index, copies)`` for each kind held at least twice (a lone card serves
no tuple). An m-tuple may be taken from any stack of at least m copies, and what
is left of it serves again (a quad is two pairs). Requirements are lead shapes
``(m, k)`` with m >= 2, in the order of importance of RULES.md 11: tractors
before plain tuples, then the larger m, then the longer k.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from env.standard.combos import Component, longest_run
from env.standard.trump import TrumpContext

Shape = tuple[int, int]
"""``(m, k)``: k units of m identical cards (k = 1: a plain m-tuple)."""

Stacks = tuple[tuple[int, int], ...]

COPY_WORDS = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
"""What m identical cards are called (duties, bids)."""


def importance(shape: Shape) -> tuple[bool, int, int]:
    """Sort key of a shape, most important last: tractors, then more copies, then longer."""
    m, k = shape
    return k >= 2, m, k


def shape_of(component: Component) -> Shape:
    """``(m, k)`` of a component: copies of each kind in it, and how many kinds."""
    m = component.cards.count(component.cards[-1])
    return m, component.size // m


def decompose(ctx: TrumpContext, counts: Sequence[int], suit: int) -> list[Component]:
    """Components of a lead (or of any cards) of one effective suit, most important first (RULES.md 11).

    Every kind forms one tuple of all its copies; for each m >= 2 the longest
    runs of consecutive m-tuples become tractors, longest first (ties: the
    higher run); the rest stay tuples and singles.
    """
    order = ctx.order
    by_copies: dict[int, dict[int, list[int]]] = {}
    singles: list[int] = []
    for k in ctx.suit_kinds[suit]:
        c = counts[k]
        if c >= 2:
            by_copies.setdefault(c, {}).setdefault(order[k], []).append(k)
        elif c == 1:
            singles.append(k)
    components: list[Component] = []
    for m, at in by_copies.items():
        per_index = [0] * ctx.suit_size[suit]
        for i, kinds in at.items():
            per_index[i] = len(kinds)
        while True:
            length, start = longest_run(per_index)
            if length < 2:
                break
            cards: list[int] = []
            for i in range(start, start + length):
                per_index[i] -= 1
                cards += [at[i].pop()] * m
            components.append(Component(m * length, start + length - 1, tuple(cards)))
        for i, kinds in at.items():
            components.extend(Component(m, i, (k,) * m) for k in kinds)
    components.extend(Component(1, order[k], (k,)) for k in singles)
    components.sort(key=lambda c: (importance(shape_of(c)), c.top), reverse=True)
    return components


def requirements(components: Sequence[Component]) -> tuple[Shape, ...]:
    """The follow requirements of a lead: the shapes of its components of two or more copies, in order."""
    shapes = [shape_of(c) for c in components]
    return tuple(sorted((s for s in shapes if s[0] >= 2), key=importance, reverse=True))


def stacks_of(ctx: TrumpContext, counts: Sequence[int], suit: int) -> Stacks:
    """The holding of one effective suit as stacks ``(order index, copies)`` of the kinds held twice or more."""
    order = ctx.order
    return tuple(sorted((order[k], counts[k]) for k in ctx.suit_kinds[suit] if counts[k] >= 2))


def _take(stacks: Stacks, picks: Sequence[tuple[int, int]], m: int) -> Stacks:
    """Stacks after taking m copies from each of ``picks`` (stacks given as (index, copies))."""
    left = list(stacks)
    for pick in picks:
        left.remove(pick)
        if pick[1] - m >= 2:
            left.append((pick[0], pick[1] - m))
    return tuple(sorted(left))


def units(stacks: Stacks, m: int, k: int) -> Iterator[tuple[int, Stacks]]:
    """Every way to take one unit (m, k) (a tractor, or for k = 1 an m-tuple): (its top index, stacks left).

    Tops come highest first; equal stacks are one choice (kinds of equal index
    and copies are interchangeable).
    """
    at: dict[int, list[int]] = {}
    for i, c in stacks:
        if c >= m:
            at.setdefault(i, [])
            if c not in at[i]:
                at[i].append(c)
    for top in sorted(at, reverse=True):
        if any(i not in at for i in range(top - k + 1, top)):
            continue
        choices: list[list[tuple[int, int]]] = [[]]
        for i in range(top - k + 1, top + 1):
            choices = [chosen + [(i, c)] for chosen in choices for c in at[i]]
        for left in {_take(stacks, chosen, m) for chosen in choices}:
            yield top, left


def tractor_takings(stacks: Stacks, m: int, k: int, above: int = -1) -> set[Stacks]:
    """What can be left after taking one unit (m, k) whose top index is above ``above``."""
    return {left for top, left in units(stacks, m, k) if top > above}


def tuples_available(stacks: Stacks, m: int) -> int:
    """How many m-tuples can be taken at once (a quad holds two pairs)."""
    return sum(c // m for _, c in stacks)


def tuple_takings(stacks: Stacks, m: int, t: int) -> set[Stacks]:
    """What can be left after taking ``t`` m-tuples (several may come from one large stack)."""
    out: set[Stacks] = set()

    def walk(index: int, left: list[tuple[int, int]], need: int) -> None:
        if need == 0:
            out.add(tuple(sorted(left + list(stacks[index:]))))
            return
        if index == len(stacks):
            return
        i, c = stacks[index]
        for n in range(min(need, c // m), -1, -1):
            rest = c - n * m
            walk(index + 1, left + ([(i, rest)] if rest >= 2 else []), need - n)

    walk(0, [], t)
    return out


def degraded(rest: tuple[Shape, ...], m: int, times: int) -> tuple[Shape, ...]:
    """``rest`` with ``times`` requirements of a tuple one card smaller added in their place."""
    if m - 1 < 2 or times <= 0:
        return rest
    return tuple(sorted(rest + ((m - 1, 1),) * times, key=importance, reverse=True))


def profile(stacks: Stacks, reqs: tuple[Shape, ...]) -> tuple[int, ...]:
    """The follow profile of a holding against a lead's requirements (RULES.md 11), as a flat record.

    Each requirement (m, k >= 2) writes ``1, k`` when a tractor (m, k) can be
    taken from what is left, else ``0, t`` for the t <= k m-tuples taken, and
    asks k - t tuples one card smaller; (m, 1) writes 1 or 0 and, on 0, asks one
    tuple one card smaller. Where there are choices, the lexicographically
    largest record.
    """
    if not reqs:
        return ()
    if reqs[0][1] == 1:  # plain tuples only (tractors come first): order indices no longer matter
        stacks = tuple(sorted((0, c) for _, c in stacks))
    return _profile(stacks, reqs)


@lru_cache(maxsize=1 << 16)
def _profile(stacks: Stacks, reqs: tuple[Shape, ...]) -> tuple[int, ...]:
    (m, k), rest = reqs[0], reqs[1:]
    best: tuple[int, ...] | None = None
    if k >= 2:
        for left in tractor_takings(stacks, m, k):
            record = (1, k) + profile(left, rest)
            if best is None or record > best:
                best = record
        if best is not None:
            return best
        t = min(k, tuples_available(stacks, m))
        after = degraded(rest, m, k - t)
        head: tuple[int, ...] = (0, t)
        lefts = tuple_takings(stacks, m, t) if after else {()}
    else:
        lefts = tuple_takings(stacks, m, 1)
        if lefts:
            head, after = (1,), rest
        else:
            head, after, lefts = (0,), degraded(rest, m, 1), {stacks}
    for left in lefts:
        record = head + profile(left, after)
        if best is None or record > best:
            best = record
    return best


def full_record(reqs: tuple[Shape, ...]) -> tuple[int, ...]:
    """The record of a holding that meets every requirement."""
    record: tuple[int, ...] = ()
    for _, k in reqs:
        record += (1, k) if k >= 2 else (1,)
    return record


def matches_format(stacks: Stacks, reqs: tuple[Shape, ...]) -> bool:
    """True if cards can be split so every requirement gets a distinct unit of its shape (a ruff's format)."""
    return profile(stacks, reqs) == full_record(reqs)


def matching_key(stacks: Stacks, reqs: tuple[Shape, ...], high_single: int) -> int:
    """A format-matching play's strength on the lead's most important component.

    The highest top index of a unit of the first requirement's shape that the
    play can form with the rest still matching; ``high_single`` (the play's
    highest index) for a lead of singles.
    """
    if not reqs:
        return high_single
    (m, k), rest = reqs[0], reqs[1:]
    for top, left in units(stacks, m, k):
        if matches_format(left, rest):
            return top
    return -1


def beaten_by(stacks: Stacks, high: int, component: Component) -> bool:
    """True if a holding (its stacks and highest index) can take a unit of the component's shape above it."""
    m, k = shape_of(component)
    if m == 1:
        return high > component.top
    return bool(tractor_takings(stacks, m, k, above=component.top))
