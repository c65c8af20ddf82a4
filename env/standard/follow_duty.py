"""One follower's shape duty to one lead with any number of decks (RULES.md 11), for masks and move lists.

A follow P (n cards of the lead suit) is legal iff its profile equals the
profile R of the whole holding. Profiles only grow with the holding, and a
path of the walk that writes R in the holding writes R in any P that contains
the cards it took. So P is legal iff it contains the cards taken along some
R-writing path: a *witness*. :class:`FollowDuty` searches those paths over the
follower's kinds, once per decision, to

* decide whether a partial pick can still be completed (the exact mask:
  some witness fits beside the picks in the n slots), and
* list legal follows lazily (each witness, filled up with any other cards of
  the suit), without enumerating every n-card subset.

Both searches remember the states they have seen, so a state of the walk is
expanded once per question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from env.standard import tuples
from env.standard.tricks import Lead, lead_requirements
from env.standard.trump import TrumpContext

Remaining = tuple[int, ...]
"""Copies left of each of the duty's kinds (the kinds held at least twice)."""


class FollowDuty:
    """The R-writing paths of one follower's holding against one lead's requirements."""

    __slots__ = ("held", "index", "kinds", "n", "reqs", "required")

    def __init__(self, ctx: TrumpContext, hand: Sequence[int], lead: Lead):
        self.kinds = [k for k in ctx.suit_kinds[lead.suit] if hand[k] >= 2]
        self.index = [ctx.order[k] for k in self.kinds]
        self.held: Remaining = tuple(hand[k] for k in self.kinds)
        self.reqs = lead_requirements(lead)
        self.required = tuples.profile(tuples.stacks_of(ctx, hand, lead.suit), self.reqs)
        self.n = lead.n

    # ------------------------------------------------------------------ the walk's moves
    def _units(self, rem: Remaining, m: int, k: int) -> Iterator[Remaining]:
        """Every way to take one unit (m, k) from ``rem``, as what is left."""
        by_index: dict[int, list[int]] = {}
        for j, i in enumerate(self.index):
            if rem[j] >= m:
                by_index.setdefault(i, []).append(j)
        for top in by_index:
            span = range(top - k + 1, top + 1)
            if any(i not in by_index for i in span):
                continue
            lefts = [list(rem)]
            for i in span:
                grown = []
                for left in lefts:
                    for j in by_index[i]:
                        taken = left.copy()
                        taken[j] -= m
                        grown.append(taken)
                lefts = grown
            yield from map(tuple, lefts)

    def _tuples(self, rem: Remaining, m: int, t: int) -> Iterator[Remaining]:
        """Every way to take ``t`` m-tuples from ``rem`` (a stack of 2m or more may give several)."""
        if t == 1:
            for j, c in enumerate(rem):
                if c >= m:
                    yield rem[:j] + (c - m,) + rem[j + 1:]
            return
        caps = [c // m for c in rem]
        suffix = [sum(caps[j:]) for j in range(len(caps) + 1)]

        def walk(j: int, left: list[int], need: int) -> Iterator[Remaining]:
            if need == 0:
                yield tuple(left)
                return
            if suffix[j] < need:
                return
            for n in range(min(need, caps[j]), -1, -1):
                left[j] -= n * m
                yield from walk(j + 1, left, need - n)
                left[j] += n * m

        yield from walk(0, list(rem), t)

    def _steps(self, rem: Remaining, reqs: tuple[tuples.Shape, ...], pos: int
               ) -> Iterator[tuple[Remaining, tuple[tuples.Shape, ...], int]]:
        """The next states of a path that keeps writing the required record."""
        (m, k), rest = reqs[0], reqs[1:]
        want = self.required
        if k >= 2:
            met, t = want[pos], want[pos + 1]
            if met:
                for left in self._units(rem, m, k):
                    yield left, rest, pos + 2
                return
            if next(self._units(rem, m, k), None) is not None or min(k, sum(c // m for c in rem)) != t:
                return
            after = tuples.degraded(rest, m, k - t)
            for left in self._tuples(rem, m, t):
                yield left, after, pos + 2
            return
        if want[pos]:
            for left in self._tuples(rem, m, 1):
                yield left, rest, pos + 1
        elif all(c < m for c in rem):
            yield rem, tuples.degraded(rest, m, 1), pos + 1

    # ------------------------------------------------------------------ the questions
    def witnesses(self) -> Iterator[Remaining]:
        """Every distinct witness, as the copies of each of the duty's kinds it takes."""
        seen: set[tuple[Remaining, tuple[tuples.Shape, ...], int]] = set()
        done: set[Remaining] = set()
        stack = [(self.held, self.reqs, 0)]
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            rem, reqs, pos = state
            if not reqs:
                if rem not in done:
                    done.add(rem)
                    yield tuple(h - r for h, r in zip(self.held, rem, strict=True))
                continue
            stack.extend(self._steps(rem, reqs, pos))

    def can_complete(self, picked: Sequence[int], n_picked: int) -> bool:
        """Whether ``n_picked`` picks of the lead suit (``picked``: counts by kind) extend to a legal follow.

        True iff some witness W fits: the picks, plus the cards of W beyond the
        picks, are at most the lead's n cards (the rest is filled with any cards of the suit).
        """
        room = self.n - n_picked
        if room < 0:
            return False
        memo: dict = {}

        def cheapest(rem: Remaining, credit: Remaining, reqs: tuple[tuples.Shape, ...], pos: int) -> int:
            # The fewest cards beyond the picks that a witness from this state still takes.
            if not reqs:
                return 0
            if reqs[0][1] == 1:
                return plain(rem, credit, reqs, pos)
            key = (rem, credit, reqs, pos)
            if key in memo:
                return memo[key]
            best = 1 << 30
            for left, after, nxt in self._steps(rem, reqs, pos):
                cost, covered = 0, list(credit)
                for j, (before, after_j) in enumerate(zip(rem, left, strict=True)):
                    taken = before - after_j
                    if taken:
                        use = min(taken, covered[j])
                        covered[j] -= use
                        cost += taken - use
                if cost < best:
                    best = min(best, cost + cheapest(left, tuple(covered), after, nxt))
            memo[key] = best
            return best

        def plain(rem: Remaining, credit: Remaining, reqs: tuple[tuples.Shape, ...], pos: int) -> int:
            # Only plain tuples left: kinds alike in copies left and picks left are interchangeable.
            if not reqs:
                return 0
            key = (tuple(sorted(zip(rem, credit, strict=True))), reqs, pos)
            if key in memo:
                return memo[key]
            m, rest = reqs[0][0], reqs[1:]
            best = 1 << 30
            if self.required[pos]:
                seen = set()
                for j, (r, c) in enumerate(zip(rem, credit, strict=True)):
                    if r >= m and (r, c) not in seen:
                        seen.add((r, c))
                        cost = max(0, m - c) + plain(rem[:j] + (r - m,) + rem[j + 1:],
                                                     credit[:j] + (max(0, c - m),) + credit[j + 1:], rest, pos + 1)
                        best = min(best, cost)
            elif all(r < m for r in rem):
                best = plain(rem, credit, tuples.degraded(rest, m, 1), pos + 1)
            memo[key] = best
            return best

        return cheapest(self.held, tuple(picked[k] for k in self.kinds), self.reqs, 0) <= room

