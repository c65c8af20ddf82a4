"""Whole plays for the learner (``action_mode=play``): which plays a decision scores, and their features.

DouZero scores complete moves, not cards one at a time; so does the ``play``
action mode. A decision's candidates are:

* **Leads**: every single, pair and tractor of every effective suit held (with
  other than two decks every m-tuple and tractor (m, k) of RULES.md 11), plus
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

A candidate is described by its cards as count planes in the observation's
slot layout (one per deck, as the observation's; so it lines up with the hand
planes of the state), and by what a
player would say about it: points, size, trump share, pairs and tractor
length, throw, sure winner, beats the trick's current winner, ruff, and the
keeping value it spends (see :data:`PLAY_EXTRAS`).

These are the standard game's (:class:`StandardLearner`, registered in
:mod:`agents.dmc.learner_rules`); 刮风 has its own, in :mod:`agents.dmc.guafeng_plays`.
The ``card`` action mode's rows of the card steps are :func:`action_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from agents.bots.card_tracker import CardTracker, analysed_lead
from agents.bots.expert_play import build_fill, build_shaped
from agents.bots.heuristics import PAIR_BREAK, beats, card_values, trick_state
from agents.dmc.candidates import (
    MAX_FOLLOWS,
    Candidates,
    capped_follows,
    card_action_rows,
    card_step_rows,
    special_actions,
)
from agents.dmc.learner_rules import LearnerRules
from agents.dmc.relabel import relabelings, renamed_encoding, renamed_inputs
from agents.search.candidates import follow_ideas
from env.core.actions import PASS
from env.core.cards import NUM_KINDS, POINTS
from env.core.moves import MoveList
from env.core.registry import ruleset_from_config
from env.core.suits import NUM_EFFECTIVE_SUITS, TRUMP
from env.standard import tuples
from env.standard.actions import bid_mask, num_actions
from env.standard.combos import decompose_suit
from env.standard.encoding import bidding_context, slot_table, slots_of_layout
from env.standard.hand import Phase
from env.standard.moves import basic_leads
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

PLAY_EXTRAS = ("points", "cards", "trump_share", "lead", "pairs", "longest_tractor", "throw", "sure",
               "beats", "ruff", "cost", "kitty_pick")
"""Named features after the count planes and the special one-hots (STOP, PASS, bids)."""
EXTRA = {name: i for i, name in enumerate(PLAY_EXTRAS)}


def play_feature_size(layout: str, decks: int = 2) -> int:
    """Length of one candidate's feature row in the ``play`` action mode, in a game of ``decks`` decks
    (a count plane per deck, the special actions of its table)."""
    return decks * slots_of_layout(layout) + special_actions(num_actions(decks)) + len(PLAY_EXTRAS)


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
        # RULES.md 11: with other than two decks a component is an m-tuple or a tractor (m, k)
        components = decompose_suit(ctx, hand, suit) if ctx.decks == 2 else tuples.decompose(ctx, hand, suit)
        sure = [c for c in components if not tracker.can_beat(c, suit)]
        if len(sure) > 1:
            throw = tuple(sorted(k for c in sure for k in c.cards))
            if tracker.is_sure(throw):
                plays[throw] = None
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
    """Feature rows of whole plays at the seat's lead or follow, shape ``(len(plays), play_feature_size)``."""
    ctx, hand = view.ctx, view.hand
    s = slots_of_layout(layout)
    slots = slot_table(ctx, layout)
    values, trump = _kind_values(ctx)
    decks = ctx.decks
    rows = np.zeros((len(plays), play_feature_size(layout, decks)), dtype=np.float32)
    extra = decks * s + special_actions(num_actions(decks))
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
        copy = pairs = cost = points = trumps = split = 0
        for k in play:  # sorted: a repeated kind is a pair (its copy plane is the next one)
            if k == previous:
                copy += 1
                pairs += 1
            else:
                if previous >= 0 and copy + 1 < hand[previous]:
                    split += 1
                copy = 0
            if copy < decks:
                row[copy * s + slots[k]] = 1.0
            previous = k
            cost += values[k]
            points += POINTS[k]
            trumps += trump[k]
        if copy + 1 < hand[previous]:
            split += 1
        n = len(play)
        # play_cost: the keeping value spent, plus a charge for each of the hand's pairs the play splits
        # (heuristics.split_pairs, counted in the loop: plays some but not all copies of a held tuple)
        cost += PAIR_BREAK * split
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
    """Play-mode rows of the card-step actions (bids, PASS, STOP and single kitty picks; the table of
    the context's decks).

    Bids and the burial keep the environment's card-step form in the ``play``
    mode; their rows use the same columns as whole plays (a kitty pick is its
    card's first plane plus the ``kitty_pick`` flag), so one network scores all.
    """
    return card_step_rows(ctx, slot_table(ctx, layout), slots_of_layout(layout), play_feature_size(layout, ctx.decks),
                          EXTRA, "kitty_pick", num_actions(ctx.decks), ctx.decks)


def decision_candidates(view: PlayerView, layout: str, mask: np.ndarray | None = None,
                        follows: MoveList | None = None) -> Candidates:
    """The candidates of the seat's decision. A kitty pick needs the composer's ``mask`` (what is picked);
    ``follows`` as for :func:`learner_plays`."""
    if view.phase.takes_bids:
        actions = np.flatnonzero(bid_mask(view.bid_options, view.ruleset.num_actions))
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


@lru_cache(maxsize=1024)
def action_table(ctx: TrumpContext, layout: str) -> np.ndarray:
    """Feature rows of all the actions of a trump context's game (66 up to two decks), shape
    ``(num_actions, action_feature_size)``."""
    return card_action_rows(slot_table(ctx, layout), slots_of_layout(layout), ctx.is_trump, num_actions(ctx.decks))


class StandardLearner(LearnerRules):
    """The learner's candidates and features for the standard game (this module's functions)."""

    has_renamings = True

    def card_slots(self, layout: str) -> int:
        return slots_of_layout(layout)

    def play_feature_size(self, layout: str, ruleset=None) -> int:
        return play_feature_size(layout, ruleset_from_config(ruleset).layout.decks)

    def card_step_table(self, source, layout: str) -> np.ndarray:
        return action_table(bidding_context(source), layout)

    def decision_phase(self, phase: Phase) -> int:
        """0 for bidding (a 炒地皮 turn too), 1 for the kitty (and a tribute or returned card), 2 for play."""
        if phase.takes_bids:
            return 0
        return 1 if phase in (Phase.KITTY, Phase.TRIBUTE, Phase.TRIBUTE_RETURN) else 2

    def decision_candidates(self, view, layout: str, mask: np.ndarray | None = None,
                            follows: MoveList | None = None) -> Candidates:
        return decision_candidates(view, layout, mask, follows)

    def play_rows(self, view, plays: Sequence[tuple[int, ...]], layout: str,
                  tracker: CardTracker | None = None) -> np.ndarray:
        return play_rows(view, plays, layout, tracker)

    def renamed_inputs(self, view, layout: str, limit: int, obs: np.ndarray, history: np.ndarray,
                       rows: np.ndarray, planes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The plain suits' renamings (:mod:`agents.dmc.relabel`) at the burial and in the play; bids name
        suits and are not renamed."""
        if view.ctx is None or view.phase not in (Phase.KITTY, Phase.PLAY) or limit < 2:
            return None
        return renamed_inputs(view.ctx, layout, relabelings(view.ctx, limit), view.ruleset, obs, history, rows,
                              planes)

    def renamed_encoding(self, ruleset, layout: str, obs: np.ndarray, history: np.ndarray, rows: np.ndarray,
                         planes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A random renaming of the plain suits of a stored decision (:func:`agents.dmc.relabel.renamed_encoding`)."""
        return renamed_encoding(ruleset, layout, obs, history, rows, planes, rng)

    def forced_step(self, env) -> int | None:
        """PASS on a bid turn of the deal with nothing to bid."""
        hand = env.hand
        return PASS if hand.phase.is_bidding and not hand.bid_options(hand.current_player) else None

    def step_plan(self, decision) -> list[int]:
        """A burial: its cards in kind order."""
        return sorted(decision)
