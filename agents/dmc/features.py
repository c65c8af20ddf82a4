"""Features of candidate actions, and the phase of a decision, for the Q-network.

This module describes the ``card`` action mode; whole plays (``play``) are in
:mod:`agents.dmc.plays` (刮风: :mod:`agents.dmc.guafeng_plays`). A card pick is described by its card's
slot in the observation's layout (so in the canonical layout the network sees "the second-best
trump", not "SA"), its points and whether it is trump; STOP, PASS and the ten bids get one-hot
entries of their own. A 刮风 table uses the same action table (its bids are never allowed) over its
own slot layout (:mod:`env.guafeng.encoding`, 79 canonical slots), laid out as the seat's
observation is: by the trump mode once the seat knows it, else by the level's no-suit order.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.base import GUAFENG
from env.core.actions import FIRST_BID, NUM_ACTIONS, PASS, STOP
from env.core.cards import NUM_KINDS, POINTS
from env.core.ruleset import RuleSet
from env.guafeng import encoding as guafeng_encoding
from env.guafeng.hand import GuafengPhase
from env.guafeng.order import GuafengContext
from env.standard.encoding import bidding_context, slot_table, slots_of_layout
from env.standard.hand import Phase
from env.standard.trump import TrumpContext

NUM_SPECIAL = NUM_ACTIONS - NUM_KINDS


def is_guafeng(ruleset: RuleSet | None) -> bool:
    """Whether a rule set is 刮风 (whose learner has its own slots, candidates and features)."""
    return ruleset is not None and ruleset.name == GUAFENG


def card_slots(layout: str, ruleset: RuleSet | None = None) -> int:
    """Number of card slots of a layout under a rule set (刮风 has 79 canonical slots, the standard game 73)."""
    return guafeng_encoding.slots_of_layout(layout) if is_guafeng(ruleset) else slots_of_layout(layout)


def action_feature_size(layout: str, ruleset: RuleSet | None = None) -> int:
    """Length of one action's feature row in the ``card`` action mode."""
    return card_slots(layout, ruleset) + NUM_SPECIAL + 2


def feature_size(layout: str, action_mode: str, ruleset: RuleSet | None = None) -> int:
    """Length of one candidate's feature row: card steps (``card``) or whole plays (``play``)."""
    if action_mode == "play" and is_guafeng(ruleset):
        from agents.dmc.guafeng_plays import guafeng_play_feature_size

        return guafeng_play_feature_size(layout)
    if action_mode == "play":
        from agents.dmc.plays import play_feature_size

        return play_feature_size(layout)
    return action_feature_size(layout, ruleset)


def _card_table(slots: np.ndarray, num_slots: int, is_trump) -> np.ndarray:
    table = np.zeros((NUM_ACTIONS, num_slots + NUM_SPECIAL + 2), dtype=np.float32)
    for kind in range(NUM_KINDS):
        table[kind, slots[kind]] = 1.0
        table[kind, num_slots + NUM_SPECIAL] = POINTS[kind] / 10.0
        table[kind, num_slots + NUM_SPECIAL + 1] = float(is_trump[kind])
    table[STOP, num_slots] = 1.0
    table[PASS, num_slots + 1] = 1.0
    for action in range(FIRST_BID, NUM_ACTIONS):
        table[action, num_slots + 2 + action - FIRST_BID] = 1.0
    table.setflags(write=False)
    return table


@lru_cache(maxsize=1024)
def action_table(ctx: TrumpContext, layout: str) -> np.ndarray:
    """Feature rows of all 66 actions in a trump context, shape ``(66, action_feature_size)``."""
    return _card_table(slot_table(ctx, layout), slots_of_layout(layout), ctx.is_trump)


@lru_cache(maxsize=1024)
def guafeng_action_table(ctx: GuafengContext, layout: str) -> np.ndarray:
    """The 66 actions' rows at a 刮风 table, in a layout context (``env.guafeng.encoding.layout_context``)."""
    return _card_table(guafeng_encoding.slot_table(ctx, layout), guafeng_encoding.slots_of_layout(layout),
                       ctx.is_trump)


def card_step_table(view, layout: str) -> np.ndarray:
    """The action rows of the seat's decision (a :class:`~env.standard.view.PlayerView` or a 刮风 view),
    laid out as its observation is."""
    if is_guafeng(view.ruleset):
        return guafeng_action_table(guafeng_encoding.layout_context(view), layout)
    return action_table(bidding_context(view), layout)


def decision_phase(phase: Phase | GuafengPhase) -> int:
    """0 for bidding (a 炒地皮 turn too; 刮风: a fix), 1 for the kitty (and a tribute or returned card;
    刮风: a 回牌), 2 for play."""
    if isinstance(phase, GuafengPhase):
        if phase == GuafengPhase.PLAY:
            return 2
        return 1 if phase in (GuafengPhase.GIVE_BACK, GuafengPhase.KITTY) else 0
    if phase.takes_bids:
        return 0
    return 1 if phase in (Phase.KITTY, Phase.TRIBUTE, Phase.TRIBUTE_RETURN) else 2
