"""Features of candidate actions, and the phase of a decision, for the Q-network.

This module describes the ``card`` action mode; whole plays (``play``) are in
:mod:`agents.dmc.plays`. A card pick is described by its card's slot in the observation's layout (so
in the canonical layout the network sees "the second-best trump", not "SA"),
its points and whether it is trump; STOP, PASS and the ten bids get one-hot
entries of their own.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from env.actions import FIRST_BID, NUM_ACTIONS, PASS, STOP
from env.cards import NUM_KINDS, POINTS
from env.encoding import slot_table, slots_of_layout
from env.game import Phase
from env.trump import TrumpContext

NUM_SPECIAL = NUM_ACTIONS - NUM_KINDS


def action_feature_size(layout: str) -> int:
    """Length of one action's feature row in the ``card`` action mode."""
    return slots_of_layout(layout) + NUM_SPECIAL + 2


def feature_size(layout: str, action_mode: str) -> int:
    """Length of one candidate's feature row: card steps (``card``) or whole plays (``play``)."""
    if action_mode == "play":
        from agents.dmc.plays import play_feature_size

        return play_feature_size(layout)
    return action_feature_size(layout)


@lru_cache(maxsize=1024)
def action_table(ctx: TrumpContext, layout: str) -> np.ndarray:
    """Feature rows of all 66 actions in a trump context, shape ``(66, action_feature_size)``."""
    slots = slots_of_layout(layout)
    table = np.zeros((NUM_ACTIONS, action_feature_size(layout)), dtype=np.float32)
    card_slots = slot_table(ctx, layout)
    for kind in range(NUM_KINDS):
        table[kind, card_slots[kind]] = 1.0
        table[kind, slots + NUM_SPECIAL] = POINTS[kind] / 10.0
        table[kind, slots + NUM_SPECIAL + 1] = float(ctx.is_trump[kind])
    table[STOP, slots] = 1.0
    table[PASS, slots + 1] = 1.0
    for action in range(FIRST_BID, NUM_ACTIONS):
        table[action, slots + 2 + action - FIRST_BID] = 1.0
    table.setflags(write=False)
    return table


def decision_phase(phase: Phase) -> int:
    """0 for bidding (a 炒地皮 turn too), 1 for the kitty (and a tribute or returned card), 2 for play."""
    if phase.takes_bids:
        return 0
    return 1 if phase in (Phase.KITTY, Phase.TRIBUTE, Phase.TRIBUTE_RETURN) else 2
