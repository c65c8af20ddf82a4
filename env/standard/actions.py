"""The fixed action table and exact legal-action masks for card-by-card play.

Action table (``Discrete(NUM_ACTIONS)``):

==========  ==================================================================
0..53       pick one card of that kind (card kinds, see :mod:`env.core.cards`)
54          ``STOP``: the leader ends a multi-card lead
55          ``PASS``: decline to bid
56..59      bid one level card of S, H, C, D
60..63      bid a pair of level cards of S, H, C, D
64          bid a pair of little jokers
65          bid a pair of big jokers
66..71      (three decks and more) bid a triple of level cards of S, H, C, D,
            three little jokers, three big jokers
72..77      (four decks) the same with four cards
==========  ==================================================================

The bid actions follow the ladder of :func:`~env.standard.bidding.bids_for`; a
game of ``d`` decks has ``FIRST_BID + max(10, len(bids_for(d)))`` actions
(:func:`num_actions`), so one and two decks keep the 66 of the shared table.

A multi-card decision is composed one card per step by the same seat
(:class:`PlayComposer`): the leader picks any card, then more cards of the same
effective suit, then ``STOP``; a follower picks exactly as many cards as were
led; the dealer buries the kitty with as many picks as the rule set's kitty
holds (8 in the standard game). The mask allows an action iff some legal
completion exists, so every sequence of masked actions ends in a legal play and
every legal play is reachable. :func:`composer_for` sets up the composer of
whatever card decision a hand (or a seat's view) is at.

The decisions of RULES.md 9 use the same table: a 炒地皮 turn is PASS or a bid
(:func:`bid_mask`), a tribute card and a returned card are one card pick each
(:func:`card_mask`), and a 炒地皮 bidder's burial is a kitty burial.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np

from env.core.actions import FIRST_BID, NUM_ACTIONS, NUM_BID_ACTIONS, PASS, STOP
from env.core.actions import action_name as card_action_name
from env.core.cards import NUM_KINDS
from env.standard.bidding import Bid, bids_for
from env.standard.combos import profile
from env.standard.follow_duty import FollowDuty
from env.standard.hand import Hand, Phase
from env.standard.layout import LAYOUT
from env.standard.tricks import Lead, effective_suit_count
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

BID_TABLE = bids_for(4)
"""Every bid of any deck count, in action order (each deck count's bids are a prefix of it)."""
if len(bids_for(2)) != NUM_BID_ACTIONS:
    raise ImportError(f"the two-deck bids ({len(bids_for(2))}) must fill the table's {NUM_BID_ACTIONS} bid slots")


@lru_cache(maxsize=8)
def num_actions(decks: int) -> int:
    """Size of the action table of a game of ``decks`` decks (66 for one and two decks; asked at every
    card decision, so cached)."""
    return FIRST_BID + max(NUM_BID_ACTIONS, len(bids_for(decks)))

KITTY_PICKS = LAYOUT.kitty_size
"""The standard game's burial length; a hand's is ``hand.ruleset.layout.kitty_size``."""


def bid_action(bid: Bid) -> int:
    """Action id of a bid."""
    return FIRST_BID + BID_TABLE.index(bid)


def action_bid(action: int) -> Bid:
    """The bid of a bid action id."""
    return BID_TABLE[action - FIRST_BID]


def action_name(action: int) -> str:
    """Readable name of an action id (``"SA"``, ``"STOP"``, ``"PASS"``, ``"bid pair H"``)."""
    if FIRST_BID <= action < FIRST_BID + len(BID_TABLE):
        return f"bid {action_bid(action)}"
    return card_action_name(action)


def bid_mask(options: Sequence[Bid], size: int = NUM_ACTIONS) -> np.ndarray:
    """Mask of a bidding decision over a table of ``size`` actions: PASS plus the available bids."""
    mask = np.zeros(size, dtype=np.int8)
    mask[PASS] = 1
    for bid in options:
        mask[bid_action(bid)] = 1
    return mask


class PlayComposer:
    """One seat's multi-card decision built card by card, with exact masks.

    ``mode`` is ``"lead"``, ``"follow"`` or ``"bury"``; a burial takes
    ``kitty_size`` picks (default: the standard game's). The follow mask uses the
    *feasible pair sets* of the decision: the sets Q of the hand's pairs in the
    lead suit that a legal follow can contain exactly (its profile then equals
    the whole holding's). A partial pick S can be completed iff some feasible Q
    holds every pair S already has, and the singles S adds outside Q fit in the
    slots left, with enough other kinds to fill them. This is computed once per
    decision; each step is then a few set checks.
    """

    __slots__ = ("mode", "ctx", "hand", "lead", "picked", "counts", "target", "size", "_suit", "_short", "_free",
                 "_shaped", "_feasible", "_suit_kinds", "_duty")

    def __init__(self, mode: str, ctx: TrumpContext | None, hand: Sequence[int], lead: Lead | None = None,
                 kitty_size: int = KITTY_PICKS, size: int = NUM_ACTIONS):
        self.mode = mode
        self.size = size
        self._duty: FollowDuty | None = None
        self.ctx = ctx
        self.hand = hand
        self.lead = lead
        self.picked: list[int] = []
        self.counts = [0] * NUM_KINDS
        self._shaped = False
        if mode == "bury":
            self.target = kitty_size
        elif mode == "lead":
            self.target = None
        elif mode == "follow":
            self.target = lead.n
            self._prepare_follow()
        else:
            raise ValueError(f"unknown composer mode {mode!r}")

    def _prepare_follow(self) -> None:
        ctx, hand, lead = self.ctx, self.hand, self.lead
        suit = lead.suit
        self._suit = suit
        self._suit_kinds = [k for k in ctx.suit_kinds[suit] if hand[k]]
        held = effective_suit_count(ctx, hand, suit)
        self._short = held <= lead.n
        # Short in the suit: all its cards are forced, the rest of the slots are free.
        self._free = lead.n - held
        if self._short or not (lead.tractor_lengths or lead.pairs):
            return
        self._shaped = True
        if ctx.decks != 2:  # RULES.md 11: the duty's witnesses decide (see env.standard.follow_duty)
            self._duty = FollowDuty(ctx, hand, lead)
            return
        pair_kinds = [k for k in self._suit_kinds if hand[k] >= 2]
        size = ctx.suit_size[suit]
        order = ctx.order

        def pc_of(kinds: Sequence[int]) -> tuple[int, ...]:
            pc = [0] * size
            for k in kinds:
                pc[order[k]] += 1
            return tuple(pc)

        required = profile(pc_of(pair_kinds), lead.tractor_lengths, lead.pairs)
        feasible = []
        n_kinds = len(self._suit_kinds)
        for q in range(min(len(pair_kinds), lead.n // 2) + 1):
            singles = lead.n - 2 * q
            if singles > n_kinds - q:
                continue
            for chosen in combinations(pair_kinds, q):
                if profile(pc_of(chosen), lead.tractor_lengths, lead.pairs) == required:
                    feasible.append((frozenset(chosen), singles))
        self._feasible = feasible

    @property
    def complete(self) -> bool:
        """True when the picks form a whole decision (a lead completes on STOP)."""
        return self.target is not None and len(self.picked) == self.target

    def _can_complete(self, counts: Sequence[int], n_picked: int) -> bool:
        """Whether picks with these counts extend to a legal follow (suit-long, shaped case)."""
        doubled = [k for k in self._suit_kinds if counts[k] == 2]
        singles_in = [k for k in self._suit_kinds if counts[k] == 1]
        n_kinds = len(self._suit_kinds)
        for pairs, singles in self._feasible:
            if any(k not in pairs for k in doubled):
                continue
            outside = sum(1 for k in singles_in if k not in pairs)
            if outside <= singles <= n_kinds - len(pairs):
                return True
        return False

    def mask(self) -> np.ndarray:
        """Mask over the action table for the next pick."""
        mask = np.zeros(self.size, dtype=np.int8)
        hand, counts = self.hand, self.counts
        if self.mode == "bury":
            for k in range(NUM_KINDS):
                if hand[k] > counts[k]:
                    mask[k] = 1
            return mask
        if self.mode == "lead":
            if not self.picked:
                for k in range(NUM_KINDS):
                    if hand[k]:
                        mask[k] = 1
                return mask
            for k in self.ctx.suit_kinds[self.ctx.suit[self.picked[0]]]:
                if hand[k] > counts[k]:
                    mask[k] = 1
            mask[STOP] = 1
            return mask
        if len(self.picked) >= self.target:
            return mask
        suit_of = self.ctx.suit
        if self._short:
            off_suit_picked = sum(1 for k in self.picked if suit_of[k] != self._suit)
            off_allowed = off_suit_picked < self._free
            for k in range(NUM_KINDS):
                if hand[k] > counts[k] and (suit_of[k] == self._suit or off_allowed):
                    mask[k] = 1
            return mask
        if not self._shaped:
            for k in self._suit_kinds:
                if hand[k] > counts[k]:
                    mask[k] = 1
            return mask
        n_picked = len(self.picked) + 1
        if self._duty is not None:
            for k in self._suit_kinds:
                if hand[k] > counts[k]:
                    counts[k] += 1
                    if self._duty.can_complete(counts, n_picked):
                        mask[k] = 1
                    counts[k] -= 1
            return mask
        for k in self._suit_kinds:
            if hand[k] > counts[k]:
                counts[k] += 1
                if self._can_complete(counts, n_picked):
                    mask[k] = 1
                counts[k] -= 1
        return mask

    def add(self, kind: int) -> None:
        """Record one pick (the caller has checked it against :meth:`mask`)."""
        self.picked.append(kind)
        self.counts[kind] += 1


def composer_for(source: Hand | PlayerView, seat: int | None = None) -> PlayComposer:
    """The composer of the card decision ``source`` is at: a :class:`~env.standard.hand.Hand` and the seat
    to act (default: the current player), or a seat's :class:`~env.standard.view.PlayerView`.

    Burial in the kitty phase (as many picks as the rule set's kitty), else a
    lead or a follow. Raises ``ValueError`` outside the kitty and play phases.
    """
    if source.phase not in (Phase.KITTY, Phase.PLAY):
        raise ValueError(f"no card decision in phase {source.phase.value}")
    if isinstance(source, PlayerView):
        cards = source.hand
    else:
        cards = source.hands[source.current_player if seat is None else seat]
    size = source.ruleset.num_actions
    if source.phase == Phase.KITTY:
        return PlayComposer("bury", source.ctx, cards, kitty_size=source.ruleset.layout.kitty_size, size=size)
    return PlayComposer("lead" if source.lead is None else "follow", source.ctx, cards, source.lead, size=size)
