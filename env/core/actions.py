"""The action table every rule set's card-step decisions share (``Discrete(NUM_ACTIONS)``).

==========  ==================================================================
0..53       pick one card of that kind (:mod:`env.core.cards`)
54          ``STOP``: end a decision of a length the player chooses (a lead)
55          ``PASS``: decline (a bid, a fix)
56..65      the rule set's bid actions (:data:`NUM_BID_ACTIONS` of them; the
            standard game's bids: :mod:`env.standard.actions`)
==========  ==================================================================

A rule set with more bids (the standard game with three or four decks) extends
the table past 65 (``RuleSet.num_actions``); the masks then have its size.

A rule set composes its multi-card decisions one card per step over this table
and gives exact masks (an action is allowed iff a legal completion exists).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from env.core.cards import CARD_NAMES, NUM_KINDS

STOP = NUM_KINDS
PASS = NUM_KINDS + 1
FIRST_BID = NUM_KINDS + 2
NUM_BID_ACTIONS = 10
NUM_ACTIONS = FIRST_BID + NUM_BID_ACTIONS


def action_name(action: int) -> str:
    """Readable name of an action id (``"SA"``, ``"STOP"``, ``"PASS"``, ``"bid 3"``: a rule set names its bids)."""
    if 0 <= action < NUM_KINDS:
        return CARD_NAMES[action]
    if action == STOP:
        return "STOP"
    if action == PASS:
        return "PASS"
    if action >= FIRST_BID:
        return f"bid {action - FIRST_BID}"
    raise ValueError(f"action {action} out of range 0..{NUM_ACTIONS - 1}")


def card_mask(kinds: Sequence[int], size: int = NUM_ACTIONS) -> np.ndarray:
    """Mask of a one-card decision (a tribute card or a returned card, RULES.md 9): these kinds."""
    mask = np.zeros(size, dtype=np.int8)
    for k in kinds:
        mask[k] = 1
    return mask


def no_actions(size: int = NUM_ACTIONS) -> np.ndarray:
    """The mask of a seat with nothing to do (the hand is over), over a table of ``size`` actions."""
    return np.zeros(size, dtype=np.int8)
