"""Whole plays for the learner at a 刮风 table (``action_mode=play``): candidates and their features.

The 刮风 counterpart of :mod:`agents.dmc.plays` (RULES-guafeng.md); the learner reaches it
through :class:`GuafengLearner` (:mod:`agents.dmc.learner_rules`). A decision's candidates are:

* **The first lead** of a hand (one card, the trump still hidden): every held single.
* **Leads**: every legal lead (singles, pairs, tractors, bombs, runs; 刮风 has no throws).
  A hand of 26 cards has a few dozen; past :data:`MAX_LEADS` (long suits: many runs
  and tractors inside one another) every single, pair and bomb stays, and the runs
  and tractors are taken longest first, by turns over each (type, suit), so every
  suit keeps its longest run and tractor.
* **Follows**: every legal follow when there are at most :data:`MAX_FOLLOWS`. Past
  that (a run lead, or a follower short of the lead suit who fills freely: thousands
  of plays that differ in which low card goes) the plays that differ in what they
  do: the cheapest, the highest and the richest (point-feeding) fill of the duty,
  the lowest and the highest play that would win the trick (in suit, or a ruff of
  the lead's shape; :func:`env.guafeng.combos.standing`), the bots' follow ideas
  (:func:`agents.bots.guafeng.play.follow_candidates`'s cheapest and ruffs), then the
  first legal ones up to the bound.
* **Fixes, 回牌 and the burial** stay card steps over the composer's mask
  (:class:`env.guafeng.actions.GuafengComposer`), with rows like
  :func:`agents.dmc.plays.step_table`'s (:func:`guafeng_step_table`).

A candidate's row: its cards as two count planes in the 刮风 observation's slot
layout (:mod:`env.guafeng.encoding`, laid out by the trump the seat knows), the
one-hots of STOP, PASS (and the unused bids), then :data:`GUAFENG_EXTRAS`: points,
size, trump share, the combination's type and strength, lead / first lead, sure
(no opponent holds a higher one), beats the trick's current winner, ruff, last to
play, the last trick (the kitty is paid x its length), the keeping value it spends,
and the card step's decision (fix, 回牌, burial).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import zip_longest

import numpy as np

from agents.bots.guafeng.judgement import trick_so_far
from agents.bots.guafeng.tracker import GuafengTracker
from agents.bots.heuristics import card_value, give_away_key, play_cost, play_points
from agents.dmc.candidates import MAX_FOLLOWS, NUM_SPECIAL, Candidates, capped_follows, card_action_rows, card_step_rows
from agents.dmc.learner_rules import LearnerRules
from env.core.actions import PASS, STOP
from env.core.cards import NUM_KINDS, POINTS
from env.core.moves import MoveList
from env.guafeng.combos import BOMB, COMBO_TYPES, PAIR, RUFF, SINGLE, Combo, classify, standing
from env.guafeng.encoding import layout_context, slot_table, slots_of_layout
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengPhase
from env.guafeng.moves import legal_leads
from env.guafeng.order import TRUMP, GuafengContext
from env.guafeng.view import GuafengView

MAX_LEADS = 80
"""Up to this many legal leads, all are candidates; past it, every single, pair and bomb plus the longest others."""
MIN_LONG_LEADS = 24
"""Runs and tractors kept past :data:`MAX_LEADS` however many singles, pairs and bombs there are."""

STEP_DECISIONS = ("fix", "give_back", "bury")
"""The 刮风 decisions made card by card in the ``play`` mode."""
GUAFENG_EXTRAS = ("points", "cards", "trump_share", "size", "lead", "first_lead", *COMBO_TYPES, "sure", "beats",
                  "ruff", "last_to_play", "last_trick", "cost", *(f"{d}_pick" for d in STEP_DECISIONS))
"""Named features after the count planes and the special one-hots (STOP, PASS, bids)."""
EXTRA = {name: i for i, name in enumerate(GUAFENG_EXTRAS)}


def guafeng_play_feature_size(layout: str) -> int:
    """Length of one candidate's feature row at a 刮风 table in the ``play`` action mode."""
    return 2 * slots_of_layout(layout) + NUM_SPECIAL + len(GUAFENG_EXTRAS)


# ---------------------------------------------------------------------------- candidates

def guafeng_learner_plays(view: GuafengView, follows: MoveList | None = None) -> list[tuple[int, ...]]:
    """The whole plays the learner scores at a 刮风 lead or follow (sorted tuples of kinds, distinct, legal).

    ``follows`` may hand in ``view.legal_plays(MAX_FOLLOWS + 1)`` when the caller has it already.
    """
    if view.lead is None:
        return _leads(view)
    return _follows(view, follows if follows is not None else view.legal_plays(MAX_FOLLOWS + 1))


def _leads(view: GuafengView) -> list[tuple[int, ...]]:
    plays = view.legal_plays().plays  # the first lead: every held single
    if len(plays) <= MAX_LEADS:
        return list(plays)
    ctx = view.ctx
    basic: list[tuple[int, ...]] = []
    groups: dict[tuple[str, int], list[Combo]] = {}
    for play in plays:
        combo = classify(ctx, play)
        if combo.kind in (SINGLE, PAIR, BOMB):
            basic.append(play)
        else:
            groups.setdefault((combo.kind, combo.suit), []).append(combo)
    ordered = [sorted(g, key=lambda c: (-c.length, -c.size, c.cards)) for _, g in sorted(groups.items())]
    longest_first = sorted((c for turn in zip_longest(*ordered) for c in turn if c is not None),
                           key=lambda c: -c.length)  # stable: by turns within a length
    room = max(MIN_LONG_LEADS, MAX_LEADS - len(basic))
    return basic + [c.cards for c in longest_first[:room]]


def _follows(view: GuafengView, moves: MoveList) -> list[tuple[int, ...]]:
    return capped_follows(view, moves, lambda: follow_ideas(view))


def follow_ideas(view: GuafengView) -> list[tuple[int, ...]]:
    """Follows that differ in what they do (not all legal: the caller checks): the duty filled cheapest,
    highest and richest, and the lowest and highest play of the lead's shape that would win the trick."""
    ctx, hand, lead = view.ctx, view.hand, view.lead
    n = lead.length
    in_suit = [k for k in ctx.suit_kinds[lead.suit] for _ in range(hand[k])]
    if len(in_suit) <= n:  # all of the lead suit is owed, the rest is free
        owed, pool = in_suit, [k for k in range(NUM_KINDS) if ctx.suit[k] != lead.suit for _ in range(hand[k])]
    else:
        owed, pool = [], in_suit
    free = n - len(owed)

    orders = (lambda k: give_away_key(ctx, hand, k), lambda k: (-card_value(ctx, k), k),
              lambda k: (-POINTS[k], card_value(ctx, k), k))
    ideas = [tuple(sorted(owed + sorted(pool, key=key)[:free])) for key in orders]
    best = trick_so_far(view).best
    winners = []
    for source in _shape_sources(ctx, hand, lead, in_suit):
        for play in legal_leads(ctx, source).plays:
            got = standing(ctx, lead, play) if len(play) == n else None
            if got is not None and got > best:
                winners.append((got, play_cost(ctx, hand, play), play))
    if winners:
        winners.sort()
        ideas += [winners[0][2], winners[-1][2]]
    return ideas


def _shape_sources(ctx: GuafengContext, hand: Sequence[int], lead: Combo, in_suit: list[int]) -> list[list[int]]:
    """Part-hands from which a winning play of the lead's shape may come: the lead suit when the seat
    holds enough of it, the trumps when void in a plain lead suit (a ruff), the whole hand for a bomb."""
    if lead.kind == BOMB:
        return [list(hand)]
    if len(in_suit) >= lead.length:
        return [[hand[k] if ctx.suit[k] == lead.suit else 0 for k in range(NUM_KINDS)]]
    if not in_suit and lead.suit != TRUMP:
        return [[hand[k] if ctx.suit[k] == TRUMP else 0 for k in range(NUM_KINDS)]]
    return []


# ---------------------------------------------------------------------------- features

def guafeng_play_rows(view: GuafengView, plays: Sequence[tuple[int, ...]], layout: str) -> np.ndarray:
    """Feature rows of whole plays at the seat's 刮风 lead or follow, shape ``(len(plays), feature size)``."""
    ctx = layout_context(view)  # the first lead: the trump may still be hidden from the seat
    hand = view.hand
    s = slots_of_layout(layout)
    slots = slot_table(ctx, layout)
    rows = np.zeros((len(plays), guafeng_play_feature_size(layout)), dtype=np.float32)
    extra = 2 * s + NUM_SPECIAL
    leading, first = view.lead is None, view.first_lead
    held = sum(hand)
    tracker = trick = None
    opponents = [(view.seat + 1) % 4, (view.seat + 3) % 4]
    if leading and not first:
        tracker = GuafengTracker(view)
    elif not leading:
        trick = trick_so_far(view)
    for i, play in enumerate(plays):
        row = rows[i]
        previous = -1
        for k in play:  # sorted: a repeated kind is a pair
            row[(s if k == previous else 0) + slots[k]] = 1.0
            previous = k
        n = len(play)
        combo = classify(ctx, play) if not first else None
        row[extra + EXTRA["points"]] = play_points(play) / 25.0
        row[extra + EXTRA["cards"]] = n / 8.0
        row[extra + EXTRA["trump_share"]] = sum(1 for k in play if ctx.is_trump[k]) / n
        row[extra + EXTRA["cost"]] = play_cost(ctx, hand, play) / 100.0
        row[extra + EXTRA["last_trick"]] = float(n == held)
        if first:
            row[extra + EXTRA["first_lead"]] = 1.0
            row[extra + EXTRA["lead"]] = 1.0
            row[extra + EXTRA[SINGLE]] = 1.0
            continue
        if combo is not None:
            row[extra + EXTRA[combo.kind]] = 1.0
            row[extra + EXTRA["size"]] = min(combo.size, 40) / 40.0
        if leading:
            row[extra + EXTRA["lead"]] = 1.0
            row[extra + EXTRA["sure"]] = float(not tracker.beaters(combo, (1, combo.size), opponents))
        else:
            got = standing(ctx, view.lead, play)
            wins = got is not None and got > trick.best
            row[extra + EXTRA["beats"]] = float(wins)
            row[extra + EXTRA["ruff"]] = float(wins and got[0] == RUFF)
            row[extra + EXTRA["last_to_play"]] = float(not trick.after)
            row[extra + EXTRA["sure"]] = float(wins and not trick.after)
    return rows


@lru_cache(maxsize=1024)
def guafeng_step_table(ctx: GuafengContext, layout: str, decision: str) -> np.ndarray:
    """Rows of the 66 card-step actions of a fix, a 回牌 or a burial (PASS, STOP and single card picks),
    in the columns of whole plays so that one network scores all; ``ctx`` lays out the cards
    (:func:`env.guafeng.encoding.layout_context`)."""
    return card_step_rows(ctx, slot_table(ctx, layout), slots_of_layout(layout), guafeng_play_feature_size(layout),
                          EXTRA, f"{decision}_pick")


def guafeng_decision_candidates(view: GuafengView, layout: str, mask: np.ndarray | None = None,
                                follows: MoveList | None = None) -> Candidates:
    """The candidates of the seat's 刮风 decision: card steps of a fix (phase 0), a 回牌 or the burial
    (phase 1), which need the composer's ``mask``; whole plays of a lead or follow (phase 2)."""
    decision = view.decision
    if decision in STEP_DECISIONS:
        if mask is None:
            raise ValueError(f"a {decision} step's candidates need the composer's mask")
        actions = np.flatnonzero(mask)
        rows = guafeng_step_table(layout_context(view), layout, decision)[actions]
        return Candidates(0 if decision == "fix" else 1, actions.tolist(), rows)
    if decision not in ("lead", "follow"):
        raise ValueError(f"seat {view.seat} has no decision to make (phase {view.phase.value})")
    plays = guafeng_learner_plays(view, follows)
    return Candidates(2, plays, guafeng_play_rows(view, plays, layout))


def guafeng_steps(decision: Fix | list[int] | None) -> list[int]:
    """A whole 刮风 fix, 回牌 or burial as its card steps (:class:`env.guafeng.actions.GuafengComposer`):
    PASS for no fix; a fix's shown jokers (the first one picked tells ``LJ LJ BJ BJ``'s two fixes apart),
    its base, then STOP; a 回牌 or burial its cards."""
    if decision is None:
        return [PASS]
    if isinstance(decision, Fix):
        return [*decision.jokers, *decision.base, STOP]
    return list(decision)


@lru_cache(maxsize=1024)
def guafeng_action_table(ctx: GuafengContext, layout: str) -> np.ndarray:
    """The 66 actions' rows at a 刮风 table, in a layout context (``env.guafeng.encoding.layout_context``)."""
    return card_action_rows(slot_table(ctx, layout), slots_of_layout(layout),
                       ctx.is_trump)


class GuafengLearner(LearnerRules):
    """The learner's candidates and features at a 刮风 table (this module's functions)."""

    def card_slots(self, layout: str) -> int:
        return slots_of_layout(layout)

    def play_feature_size(self, layout: str, ruleset=None) -> int:
        return guafeng_play_feature_size(layout)

    def card_step_table(self, source: GuafengView, layout: str) -> np.ndarray:
        """Laid out as the seat's observation: by the trump mode once the seat knows it."""
        return guafeng_action_table(layout_context(source), layout)

    def decision_phase(self, phase: GuafengPhase) -> int:
        """0 for a fix, 1 for a 回牌 or the burial, 2 for play."""
        if phase == GuafengPhase.PLAY:
            return 2
        return 1 if phase in (GuafengPhase.GIVE_BACK, GuafengPhase.KITTY) else 0

    def decision_candidates(self, view: GuafengView, layout: str, mask: np.ndarray | None = None,
                            follows: MoveList | None = None) -> Candidates:
        return guafeng_decision_candidates(view, layout, mask, follows)

    def play_rows(self, view: GuafengView, plays: Sequence[tuple[int, ...]], layout: str,
                  tracker=None) -> np.ndarray:
        return guafeng_play_rows(view, plays, layout)

    def forced_step(self, env) -> int | None:
        """A fixing turn with one action: a pass with no fix to make, or the STOP that ends a fix's picks."""
        if env.decision.composer.mode != "fix":
            return None
        allowed = np.flatnonzero(env.action_mask())
        return int(allowed[0]) if len(allowed) == 1 else None

    def step_plan(self, decision) -> list[int]:
        return guafeng_steps(decision)

    def network_policy(self, agent):
        from agents.dmc.guafeng_agent import GuafengQPolicy

        return GuafengQPolicy(agent)
