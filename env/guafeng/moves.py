"""刮风 move generation and card-by-card completion (RULES-guafeng.md sections 4 and 7).

:func:`legal_leads` lists every combination a hand can lead; :func:`legal_follows`
every follow the duties of :func:`env.guafeng.combos.follow_error` allow. Plays
are tuples of kinds, sorted, without duplicates, in an :class:`env.core.moves.MoveList`.
A free follow can be huge (a follower void in a 6-card run's suit may play any 6
of 26 cards), so follows are generated lazily and stop at ``max_plays``.

An action mask that builds a play one card at a time needs, at each step, "can
these picked cards still become a legal play?". :func:`can_complete_lead` and
:func:`can_complete_follow` answer it exactly from the shape of the duties,
without enumerating plays: a few passes over the hand per call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_KINDS, NUM_RANKS
from env.core.moves import MoveList
from env.guafeng.combos import (
    BOMB,
    FOUR_JOKERS,
    MAX_SPAN,
    MIN_RUN,
    PAIR,
    RUN,
    SINGLE,
    TRACTOR,
    Combo,
    held_values,
    highest_cut,
    holds_tractor,
    longest_stretch,
    pair_kinds,
    printed_suits_of,
    suit_cards,
    window_starts,
)
from env.guafeng.order import GuafengContext


class _Collector:
    """Plays gathered up to ``max_plays``, without duplicates."""

    __slots__ = ("max_plays", "plays", "seen", "truncated")

    def __init__(self, max_plays: int | None):
        self.plays: list[tuple[int, ...]] = []
        self.seen: set[tuple[int, ...]] = set()
        self.max_plays = max_plays
        self.truncated = False

    def add_all(self, plays: Iterable[tuple[int, ...]]) -> bool:
        """Add sorted plays, skipping duplicates; False (and truncated) once the bound is hit."""
        for play in plays:
            if play in self.seen:
                continue
            if self.max_plays is not None and len(self.plays) >= self.max_plays:
                self.truncated = True
                return False
            self.seen.add(play)
            self.plays.append(play)
        return True

    def result(self) -> MoveList:
        return MoveList(self.plays, self.truncated)


def sub_multisets(items: Sequence[tuple[int, int]], size: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``size`` cards from ``(kind, count)`` items, once each, as sorted tuples.

    A hand holds at most two of a kind (two decks): a multiset is the kinds it
    takes twice plus distinct kinds taken once, which enumerates without repeats.
    """
    kinds = [k for k, _ in items]
    doubles = [k for k, c in items if c >= 2]
    if size > len(kinds) + len(doubles):
        return
    for twice in range(min(len(doubles), size // 2), -1, -1):
        once = size - 2 * twice
        for chosen in combinations(doubles, twice):
            rest = [k for k in kinds if k not in chosen] if twice else kinds
            if once > len(rest):
                continue
            for single in combinations(rest, once):
                yield tuple(sorted(chosen + chosen + single))


def _highest_sets(ctx: GuafengContext, items: Sequence[tuple[int, int]], m: int,
                  extra: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """Every choice of the ``m`` highest cards of ``items`` (ties interchangeable), plus ``extra``."""
    if m == 0:
        yield tuple(sorted(extra))
        return
    t, _ = highest_cut(ctx, items, m)
    order = ctx.order
    forced = tuple(k for k, c in items if order[k] > t for _ in range(c))
    tied = [(k, c) for k, c in items if order[k] == t]
    for fill in sub_multisets(tied, m - len(forced)):
        yield tuple(sorted(extra + forced + fill))


def _sequences(ctx: GuafengContext, hand: Sequence[int], need: int, suit: int | None,
               lengths: Iterable[int], printed: Iterable[int]) -> Iterator[tuple[int, ...]]:
    """Tractors (``need`` = 2) or runs (``need`` = 1) held: every window of each length."""
    for s in printed:
        present = held_values(ctx, hand, s, need, suit)
        longest = longest_stretch(present)
        kinds = ctx.value_kinds[s]
        for length in lengths:
            if length > longest:
                break
            for start in window_starts(present, length):
                yield tuple(sorted(kinds[v] for v in range(start, start + length) for _ in range(need)))


def _bombs(ctx: GuafengContext, hand: Sequence[int]) -> Iterator[tuple[int, ...]]:
    for r in sorted(ctx.bomb_ranks):
        bomb = (r, r + NUM_RANKS, r + 2 * NUM_RANKS, r + 3 * NUM_RANKS)
        if all(hand[k] for k in bomb):
            yield bomb
    if hand[LITTLE_JOKER] >= 2 and hand[BIG_JOKER] >= 2:
        yield FOUR_JOKERS


def legal_leads(ctx: GuafengContext, hand: Sequence[int], max_plays: int | None = None) -> MoveList:
    """Every combination the hand can lead: singles, pairs, tractors, bombs, runs (in that order)."""
    out = _Collector(max_plays)
    held = [k for k in range(NUM_KINDS) if hand[k]]
    doubled = [k for k in held if hand[k] >= 2]
    groups = (
        ((k,) for k in held),
        ((k, k) for k in doubled),
        _sequences(ctx, hand, 2, None, range(2, MAX_SPAN + 1), range(4)),
        _bombs(ctx, hand),
        _sequences(ctx, hand, 1, None, range(MIN_RUN, MAX_SPAN + 1), range(4)),
    )
    for plays in groups:
        if not out.add_all(plays):
            break
    return out.result()


def legal_follows(ctx: GuafengContext, hand: Sequence[int], lead: Combo, max_plays: int | None = None) -> MoveList:
    """Every legal follow to ``lead`` from count vector ``hand`` (section 7)."""
    out = _Collector(max_plays)
    n, suit = lead.length, lead.suit
    items = suit_cards(ctx, hand, suit)
    held = sum(c for _, c in items)
    if held <= n:
        forced = tuple(k for k, c in items for _ in range(c))
        others = [(k, hand[k]) for k in range(NUM_KINDS) if hand[k] and ctx.suit[k] != suit]
        out.add_all(tuple(sorted(forced + fill)) for fill in sub_multisets(others, n - held))
        return out.result()
    kind = lead.kind
    if kind in (SINGLE, RUN):
        out.add_all(sub_multisets(items, n))
    elif kind == PAIR:
        pairs = pair_kinds(items)
        out.add_all(((k, k) for k in pairs) if pairs else _highest_sets(ctx, items, 2))
    elif kind == BOMB:
        if out.add_all(_bombs(ctx, hand)):
            out.add_all(_highest_sets(ctx, items, 4))
    else:
        k = lead.pairs
        pairs = pair_kinds(items)
        if holds_tractor(ctx, hand, suit, k):
            out.add_all(_sequences(ctx, hand, 2, suit, (k,), printed_suits_of(suit)))
        elif len(pairs) >= k:
            out.add_all(tuple(sorted(chosen + chosen)) for chosen in combinations(pairs, k))
        else:
            pair_set = set(pairs)
            rest = [(c, m) for c, m in items if c not in pair_set]
            out.add_all(_highest_sets(ctx, rest, 2 * (k - len(pairs)), tuple(pairs + pairs)))
    return out.result()


# ---------------------------------------------------------------------------
# Completion of a partly picked play (for card-by-card action masks)
# ---------------------------------------------------------------------------

def _held(hand: Sequence[int], picked: Counter) -> bool:
    return all(hand[k] >= c for k, c in picked.items())


def _fits_window(ctx: GuafengContext, hand: Sequence[int], picked: Counter, need: int, suit: int | None,
                 min_length: int, max_length: int = MAX_SPAN) -> bool:
    """Picked cards (one printed suit, no jokers, at most ``need`` of a kind) lie inside a held
    tractor (``need`` = 2) or run (``need`` = 1) of ``min_length``..``max_length`` ranks."""
    kinds = list(picked)
    if kinds[0] >= LITTLE_JOKER or max(kinds) >= LITTLE_JOKER or max(picked.values()) > need:
        return False
    s = kinds[0] // NUM_RANKS
    if any(k // NUM_RANKS != s for k in kinds):
        return False
    present = held_values(ctx, hand, s, need, suit)
    ranks = [k % NUM_RANKS for k in kinds]
    for ace_low in (False, True):
        values = [1 if (r == NUM_RANKS - 1 and ace_low) else r + 2 for r in ranks]
        lo, hi = min(values), max(values)
        if hi - lo + 1 > max_length or not all(present[lo:hi + 1]):
            continue
        # Grow the span to the whole stretch of held values around it.
        while lo > 1 and present[lo - 1]:
            lo -= 1
        while hi < 14 and present[hi + 1]:
            hi += 1
        if min(hi - lo + 1, MAX_SPAN) >= min_length:
            return True
    return False


def _fits_bomb(ctx: GuafengContext, hand: Sequence[int], picked: Counter) -> bool:
    """Picked cards lie inside a bomb the hand holds."""
    if all(k >= LITTLE_JOKER for k in picked):
        return hand[LITTLE_JOKER] >= 2 and hand[BIG_JOKER] >= 2 and max(picked.values()) <= 2
    rank = next(iter(picked)) % NUM_RANKS
    return (rank in ctx.bomb_ranks and max(picked.values()) == 1
            and all(k < LITTLE_JOKER and k % NUM_RANKS == rank for k in picked)
            and all(hand[rank + s * NUM_RANKS] for s in range(4)))


def can_complete_lead(ctx: GuafengContext, hand: Sequence[int], picked: Sequence[int]) -> bool:
    """True if the picked cards (kinds) are part of some combination the hand can lead.

    The empty pick is completable iff the hand holds a card. Whether the pick is a
    lead *now* is :func:`env.guafeng.combos.classify` (the mask's ``STOP``).
    """
    counts = Counter(picked)
    if not _held(hand, counts):
        return False
    n = len(picked)
    if n <= 1:
        return n == 1 or any(hand)
    if len(counts) == 1 and n == 2:
        return True
    if n <= 4 and _fits_bomb(ctx, hand, counts):
        return True
    return (_fits_window(ctx, hand, counts, 2, None, 2)
            or _fits_window(ctx, hand, counts, 1, None, MIN_RUN))


class FollowDuty:
    """What section 7 leaves a follower free to play, analysed once per decision.

    Built by :func:`follow_duty` from the hand and the lead; :meth:`allows` then
    answers "can these picked cards still become a legal follow?" with a few
    checks on the pick only, which is what a card-by-card action mask asks at
    every step. ``rule`` names the one shape the duty leaves:

    * ``"short"``: the hand holds n or fewer cards of the lead suit; all of them
      go, the ``free`` other slots take any cards.
    * ``"any"``: any n cards of the lead suit (single and run leads).
    * ``"pair"``: a held pair of the lead suit; ``"tractor"``: a held tractor of
      ``pairs`` pairs; ``"pairs"``: any ``pairs`` held pairs.
    * ``"highest"``: the pairs in ``pair_set`` (all held pairs, possibly none)
      plus the highest cards of the rest: every card above order index ``cut``
      and ``at_cut`` cards at it.
    * ``"bomb"``: a held bomb, or the four highest cards (``cut``, ``at_cut``).
    """

    __slots__ = ("at_cut", "ctx", "cut", "free", "hand", "n", "pair_set", "pairs", "rule", "suit")

    def __init__(self, ctx: GuafengContext, hand: Sequence[int], lead: Combo):
        self.ctx, self.hand, self.n, self.suit = ctx, hand, lead.length, lead.suit
        self.free = 0
        self.pairs = lead.pairs
        self.pair_set: frozenset[int] = frozenset()
        self.cut = self.at_cut = 0
        items = suit_cards(ctx, hand, lead.suit)
        held = sum(c for _, c in items)
        kind = lead.kind
        if held <= self.n:
            self.rule = "short"
            self.free = self.n - held if sum(hand) >= self.n else -1
        elif kind in (SINGLE, RUN):
            self.rule = "any"
        elif kind == BOMB:
            self.rule = "bomb"
            self._cut(items, 4)
        else:
            pairs = pair_kinds(items)
            k = self.pairs
            if kind == PAIR and pairs:
                self.rule = "pair"
            elif kind == TRACTOR and holds_tractor(ctx, hand, lead.suit, k):
                self.rule = "tractor"
            elif len(pairs) >= k:
                self.rule = "pairs"
            else:
                self.rule = "highest"
                self.pair_set = frozenset(pairs)
                self._cut([(c, m) for c, m in items if c not in self.pair_set], 2 * (k - len(pairs)))

    def _cut(self, items: Sequence[tuple[int, int]], m: int) -> None:
        if m:
            self.cut, above = highest_cut(self.ctx, items, m)
            self.at_cut = m - above
        else:
            self.cut, self.at_cut = len(self.ctx.order) + 1, 0

    def _highest(self, picked: Iterable[int]) -> bool:
        order, cut = self.ctx.order, self.cut
        at = 0
        for k in picked:
            if k in self.pair_set:
                continue
            if order[k] < cut:
                return False
            at += order[k] == cut
        return at <= self.at_cut

    def allows(self, picked: Sequence[int]) -> bool:
        """True if the picked cards (kinds) are part of some legal follow."""
        if len(picked) > self.n:
            return False
        counts = Counter(picked)
        hand, eff, suit = self.hand, self.ctx.suit, self.suit
        if not all(hand[k] >= c for k, c in counts.items()):
            return False
        rule = self.rule
        if rule == "short":
            return sum(c for k, c in counts.items() if eff[k] != suit) <= self.free
        if any(eff[k] != suit for k in counts):
            return False
        if rule == "any" or not picked:
            return True
        if rule == "pair":
            return len(counts) == 1 and hand[picked[0]] >= 2
        if rule == "tractor":
            return _fits_window(self.ctx, hand, counts, 2, suit, self.pairs, self.pairs)
        if rule == "pairs":
            return len(counts) <= self.pairs and all(hand[c] >= 2 for c in counts)
        if rule == "bomb":
            return (len(picked) <= 4 and _fits_bomb(self.ctx, hand, counts)) or self._highest(picked)
        return self._highest(picked)


def follow_duty(ctx: GuafengContext, hand: Sequence[int], lead: Combo) -> FollowDuty:
    """The follow duty of ``hand`` to ``lead`` (section 7), for repeated completion questions."""
    return FollowDuty(ctx, hand, lead)


def can_complete_follow(ctx: GuafengContext, hand: Sequence[int], lead: Combo, picked: Sequence[int]) -> bool:
    """True if the picked cards (kinds) are part of some legal follow to ``lead``.

    Exact for the duties of section 7 (see :class:`FollowDuty`); a mask that asks
    many times for one decision should build :func:`follow_duty` once instead.
    """
    return FollowDuty(ctx, hand, lead).allows(picked)


def completing_cards(ctx: GuafengContext, hand: Sequence[int], picked: Sequence[int],
                     lead: Combo | None = None) -> list[int]:
    """The kinds that may be picked next: those ``k`` with ``picked + [k]`` completable.

    With ``lead=None`` the pick is a lead, otherwise a follow to ``lead``.
    """
    duty = None if lead is None else FollowDuty(ctx, hand, lead)
    trial = [*picked, 0]
    out = []
    for k in range(NUM_KINDS):
        if not hand[k]:
            continue
        trial[-1] = k
        if can_complete_lead(ctx, hand, trial) if duty is None else duty.allows(trial):
            out.append(k)
    return out
