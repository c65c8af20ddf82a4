"""Card counting from one seat's view: what is still unseen, who is void, who has no pairs.

Everything is derived from the public play record in a
:class:`~env.standard.view.PlayerView` (plus the seat's own hand, and the kitty for
the dealer who buried it), so a tracker is rebuilt from scratch at each
decision and can never know more than the seat may.

Inferences (each one a consequence of the follow rule, RULES.md 6):

* a follower who plays fewer cards of the lead's effective suit than were led
  has none left: *void* in that suit for the rest of the hand;
* a follower who plays a full complement of the lead suit but fewer pairs than
  the lead holds had no more pairs: *no pairs* left in that suit (hands only
  shrink, so it stays true).

Decks (RULES.md 11): with ``d`` decks each kind has ``d`` copies, and a "pair" is
any kind held twice or more. The pair inference holds as it is for leads of pairs
and pair tractors (the duty asks for as many pairs as can be taken); a lead with a
triple or quad asks only one pair of a follower who cannot meet it (a degraded
requirement is one card smaller), so there the tracker learns *no pairs* only from
a full follow with no pair in it. Safety questions ask the tuple reading
(:func:`env.standard.tuples.beaten_by`: a larger tuple may be broken for a smaller).

Safety questions ("can anyone beat this?") are answered by asking the rules
module about the worst case: the whole unseen pool treated as one hand held by
a seat that may still hold the suit.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import lru_cache

from env.core.hand_base import TrickRecord
from env.core.suits import NUM_EFFECTIVE_SUITS, TRUMP
from env.standard import tuples
from env.standard.combos import Component, has_run, pair_counts
from env.standard.tricks import Lead, throw_check
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView


@lru_cache(maxsize=1 << 16)
def analysed_lead(ctx: TrumpContext, cards: tuple[int, ...]) -> Lead:
    """The :class:`~env.standard.tricks.Lead` of ``cards``, analysed once per trump context and card tuple.

    Bots and the learner's candidate features ask the same questions about the
    same leads many times in a hand (is it sure, is it a throw, how many pairs);
    a lead's analysis depends only on the cards and the trump context, so it is
    shared. The result is read-only.
    """
    return Lead(ctx, cards)


class CardTracker:
    """What the viewing seat can know about the cards it cannot see.

    Attributes:
        unseen: count vector of the cards not in our hand, not played, and (for
            the dealer) not in the kitty: they are in the other hands or the kitty.
        void: ``void[seat][suit]`` is True when ``seat`` is known to hold no card
            of that effective suit.
        no_pairs: ``no_pairs[seat][suit]`` is True when ``seat`` is known to hold
            no pair of that effective suit.
    """

    __slots__ = ("_others", "_pairs", "_stacks", "_top", "ctx", "kitty_unknown", "no_pairs", "seat", "unseen", "void")

    def __init__(self, view: PlayerView):
        ctx = view.ctx
        self.ctx = ctx
        self.seat = view.seat
        self._others = tuple((self.seat + i) % 4 for i in range(1, 4))
        p0, p1, p2, p3 = view.played
        copies = ctx.decks
        unseen = [copies - h - a - b - c - d for h, a, b, c, d in zip(view.hand, p0, p1, p2, p3)]
        if view.kitty:
            for k in view.kitty:
                unseen[k] -= 1
        self.unseen = unseen
        self.kitty_unknown = not view.kitty
        self._top: list[int | None] = [None] * NUM_EFFECTIVE_SUITS   # per suit, filled on first use
        self._pairs: list[tuple[int, ...] | None] = [None] * NUM_EFFECTIVE_SUITS
        self._stacks: list[tuples.Stacks | None] = [None] * NUM_EFFECTIVE_SUITS
        void, no_pairs = _facts_of_tricks(ctx, view.tricks)
        self.void = [list(row) for row in void]
        self.no_pairs = [list(row) for row in no_pairs]
        if view.trick_plays:
            self._learn(view.leader, tuple(view.trick_plays))

    def _learn(self, leader: int, plays: tuple[tuple[int, ...], ...]) -> None:
        for seat, suit, void in _trick_facts(self.ctx, leader, plays):
            if void:
                self.void[seat][suit] = True
            self.no_pairs[seat][suit] = True

    # ------------------------------------------------------------------ counts
    def unseen_in(self, suit: int) -> int:
        """How many unseen cards of an effective suit are out (other hands or kitty)."""
        return sum(self.unseen[k] for k in self.ctx.suit_kinds[suit])

    def holders(self, suit: int, seats: Sequence[int] | None = None) -> list[int]:
        """The seats among ``seats`` (default: the other three) that may still hold ``suit``."""
        void = self.void
        return [s for s in (self._others if seats is None else seats) if not void[s][suit]]

    def top_unseen(self, suit: int) -> int:
        """Highest order index among unseen cards of a suit (-1 if none)."""
        top = self._top[suit]
        if top is None:  # a tracker's counts never change after it is built: answer once per suit
            order = self.ctx.order
            top = self._top[suit] = max((order[k] for k in self.ctx.suit_kinds[suit] if self.unseen[k]), default=-1)
        return top

    def unseen_pairs(self, suit: int) -> tuple[int, ...]:
        """Pairs among the unseen cards of a suit, by order index (:func:`env.standard.combos.pair_counts`)."""
        pairs = self._pairs[suit]
        if pairs is None:
            pairs = self._pairs[suit] = tuple(pair_counts(self.ctx, self.unseen, suit))
        return pairs

    def unseen_stacks(self, suit: int) -> tuples.Stacks:
        """The unseen cards of a suit as :func:`env.standard.tuples.stacks_of` reads them (kinds unseen twice+)."""
        stacks = self._stacks[suit]
        if stacks is None:
            stacks = self._stacks[suit] = tuples.stacks_of(self.ctx, self.unseen, suit)
        return stacks

    # ------------------------------------------------------------------ safety
    def can_beat(self, comp: Component, suit: int, seats: Sequence[int] | None = None) -> bool:
        """Could any of ``seats`` hold a higher component of the same shape in ``suit``?"""
        if self.ctx.decks != 2 and comp.size > 1:
            return self.can_beat_shape(tuples.shape_of(comp), comp.top, suit, seats)
        holders = self.holders(suit, seats)
        if not holders:
            return False
        if comp.size == 1:
            return self.top_unseen(suit) > comp.top
        if all(self.no_pairs[s][suit] for s in holders):
            return False
        return has_run(self.unseen_pairs(suit), comp.size // 2, comp.top)

    def can_beat_shape(self, shape: tuples.Shape, top: int, suit: int, seats: Sequence[int] | None = None) -> bool:
        """Could any of ``seats`` hold a unit of ``shape`` (m, k) in ``suit`` with a higher top than ``top``?

        The unseen pool is read as one hand (the worst case); a larger tuple may be broken for it.
        """
        holders = self.holders(suit, seats)
        if not holders:
            return False
        m, k = shape
        if m == 1:
            return self.top_unseen(suit) > top
        if all(self.no_pairs[s][suit] for s in holders):
            return False
        return bool(tuples.tractor_takings(self.unseen_stacks(suit), m, k, above=top))

    def is_sure(self, cards: Sequence[int]) -> bool:
        """True if no card set still unseen could beat this lead inside its own suit.

        For a throw this is the throw check against the worst case; for a single,
        pair or tractor, that nobody can follow it with a higher one. Ruffs are a
        separate question (:meth:`ruff_risk`).
        """
        lead = analysed_lead(self.ctx, tuple(cards))
        holders = self.holders(lead.suit)
        if not holders:
            return True
        if not lead.is_throw:
            return not self.can_beat(lead.components[0], lead.suit)
        pool = self.unseen
        if all(self.no_pairs[s][lead.suit] for s in holders):
            pool = [min(c, 1) for c in pool]
        return throw_check(self.ctx, lead, [pool]) is None

    def ruff_risk(self, suit: int, opponents: Sequence[int]) -> bool:
        """Whether an opponent may trump a lead of a plain ``suit``.

        Known voids with trumps left count; so does a suit with no unseen card
        left (everyone else is void). Guessing voids from a suit that is merely
        short measured worse (-0.03 levels per hand): the bot became too timid.
        """
        if suit == TRUMP:
            return False
        for s in opponents:
            if self.void[s][suit] and not self.void[s][TRUMP]:
                return True
        if all(self.void[s][TRUMP] for s in opponents):
            return False
        return self.unseen_in(suit) == 0


_Rows = tuple[tuple[bool, ...], ...]
_NO_FACTS: tuple[_Rows, _Rows] = (((False,) * NUM_EFFECTIVE_SUITS,) * 4, ((False,) * NUM_EFFECTIVE_SUITS,) * 4)
_HISTORY_LIMIT = 1 << 14
# id(last record) -> (ctx, the records, void rows, no-pairs rows): the facts of a run of finished tricks.
_histories: dict[int, tuple[TrumpContext, tuple[TrickRecord, ...], _Rows, _Rows]] = {}


def _facts_of_tricks(ctx: TrumpContext, tricks: tuple[TrickRecord, ...]) -> tuple[_Rows, _Rows]:
    """``(void, no_pairs)`` rows learnt from the finished ``tricks``, in play order.

    A search's rollouts and the four seats of one table rebuild a tracker at every
    decision over the same finished tricks, so the facts of each run of tricks are
    kept, keyed by its last record and checked record by record (by identity: a
    record is immutable, and the entry keeps its records alive, so an id cannot be
    reused while it is cached); a run one trick longer learns only that trick.
    """
    if not tricks:
        return _NO_FACTS
    last = tricks[-1]
    entry = _histories.get(id(last))
    if entry is not None and len(entry[1]) == len(tricks) and (entry[0] is ctx or entry[0] == ctx) \
            and all(map(operator.is_, entry[1], tricks)):
        return entry[2], entry[3]
    void, no_pairs = _facts_of_tricks(ctx, tricks[:-1])
    facts = _trick_facts(ctx, last.leader, last.plays)
    if facts:
        void_rows = [list(row) for row in void]
        pair_rows = [list(row) for row in no_pairs]
        for seat, suit, is_void in facts:
            if is_void:
                void_rows[seat][suit] = True
            pair_rows[seat][suit] = True
        void = tuple(tuple(row) for row in void_rows)
        no_pairs = tuple(tuple(row) for row in pair_rows)
    if len(_histories) >= _HISTORY_LIMIT:
        _histories.clear()
    _histories[id(last)] = (ctx, tuple(tricks), void, no_pairs)
    return void, no_pairs


@lru_cache(maxsize=1 << 16)
def _trick_facts(ctx, leader: int, plays: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, int, bool], ...]:
    """What the follows of one trick reveal: ``(seat, suit, void)`` for each follower who
    played short of the led suit (void) or short of its pairs (no pairs only).

    Cached: search rollouts rebuild trackers over the same trick records many times.
    """
    suit_of = ctx.suit
    lead = plays[0]
    suit = suit_of[lead[0]]
    n = len(lead)
    lead_pairs = _pairs_in(lead)
    # A lead with a triple or more asks a follower who cannot meet it for one pair only (RULES.md 11).
    pairs_told = 1 if ctx.decks != 2 and any(lead.count(k) > 2 for k in set(lead)) else lead_pairs
    facts = []
    for i in range(1, len(plays)):
        seat = (leader + i) % 4
        in_suit = [k for k in plays[i] if suit_of[k] == suit]
        if len(in_suit) < n:
            facts.append((seat, suit, True))
        elif lead_pairs and _pairs_in(in_suit) < pairs_told:
            facts.append((seat, suit, False))
    return tuple(facts)


def _pairs_in(cards: Sequence[int]) -> int:
    counts: dict[int, int] = {}
    for k in cards:
        counts[k] = counts.get(k, 0) + 1
    return sum(c // 2 for c in counts.values())
