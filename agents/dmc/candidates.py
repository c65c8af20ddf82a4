"""What the learner's candidates and feature rows share under every rule set.

A decision's :class:`Candidates` (its phase, moves and rows), the bound on the
follows scored (:func:`capped_follows`), and the rows of the card-step
actions (66, or the rule set's ``num_actions`` when it has more bids) in the
``card`` action mode (:func:`card_action_rows`) and in the columns of whole
plays (:func:`card_step_rows`). A rule set's own candidates
and features build on these (:mod:`agents.dmc.learner_rules`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

import numpy as np

from agents.bots.heuristics import card_value
from env.core.actions import FIRST_BID, NUM_ACTIONS, PASS, STOP
from env.core.cards import NUM_KINDS, POINTS
from env.core.moves import MoveList

MAX_FOLLOWS = 48
"""Up to this many legal follows, all are candidates; past it, the distinct ideas plus the first ones."""
NUM_SPECIAL = NUM_ACTIONS - NUM_KINDS
"""The actions after the cards in the shared 66-action table: STOP, PASS and the ten bids."""


def special_actions(num_actions: int = NUM_ACTIONS) -> int:
    """The actions after the cards (STOP, PASS and the bids) in a table of ``num_actions`` actions."""
    return num_actions - NUM_KINDS


class Candidates(NamedTuple):
    """One decision's candidates in the ``play`` mode: the phase (0 bid, 1 kitty, 2 play), the moves
    (card-step actions for bids and kitty picks, whole plays as sorted tuples of kinds) and their rows."""

    phase: int
    moves: list
    rows: np.ndarray


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


def card_action_rows(slots: np.ndarray, num_slots: int, is_trump, num_actions: int = NUM_ACTIONS) -> np.ndarray:
    """The ``card`` action mode's rows of the ``num_actions`` actions (read-only): a card is its slot
    (``slots[kind]`` of ``num_slots``), its points and whether it is trump; STOP, PASS and the bids are one-hots."""
    special = special_actions(num_actions)
    table = np.zeros((num_actions, num_slots + special + 2), dtype=np.float32)
    for kind in range(NUM_KINDS):
        table[kind, slots[kind]] = 1.0
        table[kind, num_slots + special] = POINTS[kind] / 10.0
        table[kind, num_slots + special + 1] = float(is_trump[kind])
    table[STOP, num_slots] = 1.0
    table[PASS, num_slots + 1] = 1.0
    for action in range(FIRST_BID, num_actions):
        table[action, num_slots + 2 + action - FIRST_BID] = 1.0
    table.setflags(write=False)
    return table


def card_step_rows(ctx, card_slots: np.ndarray, slots: int, size: int, extra_index: Mapping[str, int],
                   pick: str, num_actions: int = NUM_ACTIONS, count_planes: int = 2) -> np.ndarray:
    """The rows (read-only, ``size`` columns) of the ``num_actions`` card-step actions in the columns of
    whole plays, under any rule set: a card pick is its card's first plane (``card_slots`` of ``slots``
    slots; a play's cards take ``count_planes`` planes), its points, trump share and keeping value, and
    the ``pick`` flag of ``extra_index``; STOP, PASS and the bids are their one-hots."""
    table = np.zeros((num_actions, size), dtype=np.float32)
    extra = count_planes * slots + special_actions(num_actions)
    for kind in range(NUM_KINDS):
        table[kind, card_slots[kind]] = 1.0
        table[kind, extra + extra_index["points"]] = POINTS[kind] / 25.0
        table[kind, extra + extra_index["cards"]] = 1 / 8.0
        table[kind, extra + extra_index["trump_share"]] = float(ctx.is_trump[kind])
        table[kind, extra + extra_index["cost"]] = card_value(ctx, kind) / 100.0
        table[kind, extra + extra_index[pick]] = 1.0
    for action in range(NUM_KINDS, num_actions):
        table[action, count_planes * slots + action - NUM_KINDS] = 1.0
    table.setflags(write=False)
    return table
