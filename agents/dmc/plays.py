"""Whole plays for the learner (``action_mode=play``): which plays a decision scores, and their features.

DouZero scores complete moves, not cards one at a time; so does the ``play``
action mode. A decision's candidates are:

* **Leads**: every single, pair and tractor of every effective suit held, plus
  per suit the largest throw that no unseen cards can beat (by counting: the
  union of the suit's components nobody can top). These hold every lead idea
  of the search (:func:`agents.search.candidates.lead_ideas`; a test checks).
  Risky throws are left out: a failed throw costs points and is never the
  one play that matters.
* **Follows**: every legal follow when there are at most :data:`MAX_FOLLOWS`;
  past that (long suits under a long lead: thousands of subsets that mostly
  differ in which low card goes) the plays that differ in what they do: the
  expert's built plays (cheapest fill, richest feed, shaped ruffs) and the
  search's follow ideas (cheapest discard, richest feed, cheapest, strongest
  and richest winner, least keeping value), then the first legal ones up to
  the bound. The cut never depends on the order of the move generator alone.

A candidate is described by its cards as two count planes in the observation's
slot layout (so it lines up with the hand planes of the state), and by what a
player would say about it: points, size, trump share, pairs and tractor
length, throw, sure winner, beats the trick's current winner, ruff, and the
keeping value it spends (see :data:`PLAY_EXTRAS`).

A 刮风 view (``view.ruleset.name == "guafeng"``) has its own candidates and
features, in :mod:`agents.dmc.guafeng_plays`; :func:`decision_candidates` and
:func:`play_rows` hand it there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from agents.bots.card_tracker import CardTracker, analysed_lead
from agents.bots.expert_play import build_fill, build_shaped
from agents.bots.heuristics import PAIR_BREAK, beats, card_value, card_values, split_pairs, trick_state
from agents.dmc.features import is_guafeng
from agents.search.candidates import follow_ideas
from env.core.actions import NUM_ACTIONS
from env.core.cards import NUM_KINDS, POINTS
from env.core.moves import MoveList
from env.core.suits import NUM_EFFECTIVE_SUITS, TRUMP
from env.standard.actions import bid_mask
from env.standard.combos import decompose_suit
from env.standard.encoding import bidding_context, slot_table, slots_of_layout
from env.standard.hand import Phase
from env.standard.moves import basic_leads
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

MAX_FOLLOWS = 48
"""Up to this many legal follows, all are candidates; past it, the distinct ideas plus the first ones."""

NUM_SPECIAL = NUM_ACTIONS - NUM_KINDS
PLAY_EXTRAS = ("points", "cards", "trump_share", "lead", "pairs", "longest_tractor", "throw", "sure",
               "beats", "ruff", "cost", "kitty_pick")
"""Named features after the count planes and the special one-hots (STOP, PASS, bids)."""
EXTRA = {name: i for i, name in enumerate(PLAY_EXTRAS)}


def play_feature_size(layout: str) -> int:
    """Length of one candidate's feature row in the ``play`` action mode."""
    return 2 * slots_of_layout(layout) + NUM_SPECIAL + len(PLAY_EXTRAS)


def learner_plays(view: PlayerView, tracker: CardTracker | None = None,
                  follows: MoveList | None = None) -> list[tuple[int, ...]]:
    """The whole plays the learner scores at a lead or follow (sorted tuples of kinds, distinct, legal).

    ``follows`` may hand in ``view.legal_plays(MAX_FOLLOWS + 1)`` when the caller
    has it already (self-play asks it first, to take forced follows at once).
    """
    if view.lead is None:
        return _leads(view, tracker or CardTracker(view))
    return _follows(view, follows or view.legal_plays(MAX_FOLLOWS + 1))


def _leads(view: PlayerView, tracker: CardTracker) -> list[tuple[int, ...]]:
    ctx, hand = view.ctx, view.hand
    plays: dict[tuple[int, ...], None] = {}
    for suit in range(NUM_EFFECTIVE_SUITS):
        for play in basic_leads(ctx, hand, suit):
            plays[tuple(sorted(play))] = None
        components = decompose_suit(ctx, hand, suit)
        sure = [c for c in components if not tracker.can_beat(c, suit)]
        if len(sure) > 1:
            throw = tuple(sorted(k for c in sure for k in c.cards))
            if tracker.is_sure(throw):
                plays[throw] = None
    return list(plays)


def capped_follows(view, moves: MoveList, ideas: Callable[[], Iterable[tuple[int, ...]]]) -> list[tuple[int, ...]]:
    """The follows the learner scores, under any rule set: every legal follow of ``moves`` when there
    are at most :data:`MAX_FOLLOWS` (none cut off); else the distinct legal ones of ``ideas()`` (sorted
    tuples; asked only then), then the first legal follows, up to :data:`MAX_FOLLOWS`."""
    if not moves.truncated and len(moves.plays) <= MAX_FOLLOWS:
        return moves.plays
    plays: dict[tuple[int, ...], None] = {}
    for play in ideas():
        if play not in plays and view.play_error(list(play)) is None:
            plays[play] = None
    for play in moves.plays:
        if len(plays) >= MAX_FOLLOWS:
            break
        plays.setdefault(play, None)
    return list(plays)


def _follows(view: PlayerView, moves: MoveList) -> list[tuple[int, ...]]:
    def ideas() -> list[tuple[int, ...]]:
        built = [build_fill(view, True), build_fill(view, False), build_shaped(view, view.lead.suit, True),
                 build_shaped(view, view.lead.suit, False), build_shaped(view, TRUMP, True),
                 build_shaped(view, TRUMP, False)]
        return [tuple(sorted(play)) for play in [*follow_ideas(view), *built] if play is not None]

    return capped_follows(view, moves, ideas)


def play_rows(view: PlayerView, plays: Sequence[tuple[int, ...]], layout: str,
              tracker: CardTracker | None = None) -> np.ndarray:
    """Feature rows of whole plays at the seat's lead or follow, shape ``(len(plays), play_feature_size)``
    (a 刮风 view: :func:`agents.dmc.guafeng_plays.guafeng_play_rows`)."""
    if is_guafeng(view.ruleset):
        from agents.dmc.guafeng_plays import guafeng_play_rows

        return guafeng_play_rows(view, plays, layout)
    ctx, hand = view.ctx, view.hand
    s = slots_of_layout(layout)
    slots = slot_table(ctx, layout)
    values, trump = _kind_values(ctx)
    rows = np.zeros((len(plays), play_feature_size(layout)), dtype=np.float32)
    extra = 2 * s + NUM_SPECIAL
    leading = view.lead is None
    if leading:
        tracker = tracker or CardTracker(view)
    else:
        state = trick_state(view)
        lead_suit = view.lead.suit
        last = state.position == 3
    for i, play in enumerate(plays):
        row = rows[i]
        previous = -1
        pairs = cost = points = trumps = 0
        for k in play:  # sorted: a repeated kind is a pair
            if k == previous:
                row[s + slots[k]] = 1.0
                pairs += 1
            else:
                row[slots[k]] = 1.0
            previous = k
            cost += values[k]
            points += POINTS[k]
            trumps += trump[k]
        n = len(play)
        # play_cost: the keeping value spent, plus a charge for each pair the play splits
        cost += PAIR_BREAK * split_pairs(hand, play)
        row[extra + _POINTS] = points / 25.0
        row[extra + _CARDS] = n / 8.0
        row[extra + _TRUMP_SHARE] = trumps / n
        row[extra + _COST] = cost / 100.0
        if leading:
            lead = analysed_lead(ctx, play)
            components = lead.components
            row[extra + _LEAD] = 1.0
            row[extra + _PAIRS] = sum(c.pairs for c in components) / 4.0
            row[extra + _LONGEST] = max((c.pairs for c in components if c.size >= 4), default=0) / 4.0
            row[extra + _THROW] = float(lead.is_throw)
            row[extra + _SURE] = float(tracker.is_sure(play))
        else:
            wins = beats(ctx, view, play, state.best_rank)
            row[extra + _PAIRS] = pairs / 4.0
            row[extra + _BEATS] = float(wins)
            row[extra + _SURE] = float(wins and last)
            row[extra + _RUFF] = float(wins and lead_suit != TRUMP and trumps == n)
    return rows


_POINTS, _CARDS, _TRUMP_SHARE, _LEAD, _PAIRS, _LONGEST, _THROW, _SURE, _BEATS, _RUFF, _COST = (
    EXTRA[name] for name in ("points", "cards", "trump_share", "lead", "pairs", "longest_tractor", "throw", "sure",
                             "beats", "ruff", "cost"))


@lru_cache(maxsize=1024)
def _kind_values(ctx: TrumpContext) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per kind: its keeping value (:func:`~agents.bots.heuristics.card_value`) and 1 if it is trump."""
    return card_values(ctx), tuple(int(ctx.suit[k] == TRUMP) for k in range(NUM_KINDS))


@lru_cache(maxsize=1024)
def step_table(ctx: TrumpContext, layout: str) -> np.ndarray:
    """Play-mode rows of the 66 card-step actions (bids, PASS, STOP and single kitty picks).

    Bids and the burial keep the environment's card-step form in the ``play``
    mode; their rows use the same columns as whole plays (a kitty pick is its
    card's first plane plus the ``kitty_pick`` flag), so one network scores all.
    """
    return card_step_rows(ctx, slot_table(ctx, layout), slots_of_layout(layout), play_feature_size(layout),
                          EXTRA, "kitty_pick")


def card_step_rows(ctx, card_slots: np.ndarray, slots: int, size: int, extra_index: Mapping[str, int],
                   pick: str) -> np.ndarray:
    """The rows (read-only, ``size`` columns) of the 66 card-step actions in the columns of whole plays,
    under any rule set: a card pick is its card's first plane (``card_slots`` of ``slots`` slots), its
    points, trump share and keeping value, and the ``pick`` flag of ``extra_index``; STOP, PASS and the
    bids are their one-hots."""
    table = np.zeros((NUM_ACTIONS, size), dtype=np.float32)
    extra = 2 * slots + NUM_SPECIAL
    for kind in range(NUM_KINDS):
        table[kind, card_slots[kind]] = 1.0
        table[kind, extra + extra_index["points"]] = POINTS[kind] / 25.0
        table[kind, extra + extra_index["cards"]] = 1 / 8.0
        table[kind, extra + extra_index["trump_share"]] = float(ctx.is_trump[kind])
        table[kind, extra + extra_index["cost"]] = card_value(ctx, kind) / 100.0
        table[kind, extra + extra_index[pick]] = 1.0
    for action in range(NUM_KINDS, NUM_ACTIONS):
        table[action, 2 * slots + action - NUM_KINDS] = 1.0
    table.setflags(write=False)
    return table


class Candidates(NamedTuple):
    """One decision's candidates in the ``play`` mode: the phase (0 bid, 1 kitty, 2 play), the moves
    (card-step actions for bids and kitty picks, whole plays as sorted tuples of kinds) and their rows."""

    phase: int
    moves: list
    rows: np.ndarray


def decision_candidates(view: PlayerView, layout: str, mask: np.ndarray | None = None,
                        follows: MoveList | None = None) -> Candidates:
    """The candidates of the seat's decision. A kitty pick needs the composer's ``mask`` (what is picked);
    ``follows`` as for :func:`learner_plays`. A 刮风 view's are
    :func:`agents.dmc.guafeng_plays.guafeng_decision_candidates`."""
    if is_guafeng(view.ruleset):
        from agents.dmc.guafeng_plays import guafeng_decision_candidates  # built on this module

        return guafeng_decision_candidates(view, layout, mask, follows)
    if view.phase.takes_bids:
        actions = np.flatnonzero(bid_mask(view.bid_options))
        return Candidates(0, actions.tolist(), step_table(bidding_context(view), layout)[actions])
    if view.phase in (Phase.TRIBUTE, Phase.TRIBUTE_RETURN):  # RULES.md 9: one card, scored as a kitty pick
        actions = sorted(view.tribute_options)
        return Candidates(1, actions, step_table(view.ctx, layout)[actions])
    if view.phase == Phase.KITTY:
        if mask is None:
            raise ValueError("a kitty pick's candidates need the composer's mask")
        actions = np.flatnonzero(mask[:NUM_KINDS])
        return Candidates(1, actions.tolist(), step_table(view.ctx, layout)[actions])
    if view.phase != Phase.PLAY:
        raise ValueError(f"no decision in phase {view.phase.value}")
    tracker = CardTracker(view) if view.lead is None else None
    plays = learner_plays(view, tracker, follows)
    return Candidates(2, plays, play_rows(view, plays, layout, tracker))
