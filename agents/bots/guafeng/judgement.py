"""Small shared judgements of the guafeng bots: the trick so far, card values without a known trump.

Rule answers (combinations, standings, trick winners) come from
:mod:`env.guafeng.combos`; card and play values are those of
:mod:`agents.bots.heuristics` (they read only a context's ``suit`` and ``order``,
which a :class:`~env.guafeng.order.GuafengContext` has too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_RANKS, POINTS, RANKS
from env.guafeng.combos import FOLLOWS_SUIT, standing, trick_winner
from env.guafeng.order import CONSTANT_RANKS

JOKERS = (LITTLE_JOKER, BIG_JOKER)


class GuafengTrick(NamedTuple):
    """The current trick seen from the player to act (following).

    ``winner``: the seat now winning; ``best``: its standing
    (:func:`env.guafeng.combos.standing`; the lead's is ``(1, size)``);
    ``points``: points on the table; ``after``: seats still to play after us.
    """

    winner: int
    best: tuple[int, int]
    points: int
    after: tuple[int, ...]


def trick_so_far(view: Any) -> GuafengTrick:
    """Who is winning the current trick and what is on the table (call only when following)."""
    ctx, lead, plays = view.ctx, view.lead, view.trick_plays
    best_index = trick_winner(ctx, lead, plays[1:])
    best = (FOLLOWS_SUIT, lead.size) if best_index == 0 else standing(ctx, lead, plays[best_index])
    after = tuple((view.seat + i) % 4 for i in range(1, 4 - len(plays)))
    return GuafengTrick((view.leader + best_index) % 4, best, sum(POINTS[k] for p in plays for k in p), after)


def wins_over(view: Any, play: Sequence[int], best: tuple[int, int]) -> bool:
    """True if ``play`` would take the trick from the play now winning it."""
    got = standing(view.ctx, view.lead, play)
    return got is not None and got > best


def is_special(kind: int, level_rank: int) -> bool:
    """Trump whatever the trump mode, or nearly (jokers, 5s, 3s, 2s, and the level rank)."""
    return kind in JOKERS or kind % NUM_RANKS in CONSTANT_RANKS or kind % NUM_RANKS == level_rank


def blind_value(kind: int, level_rank: int) -> int:
    """How much a card is worth keeping before the trump is known: its printed rank, the
    cards that are trump in every mode (jokers, constants, level rank) above all."""
    if kind == BIG_JOKER:
        return 40
    if kind == LITTLE_JOKER:
        return 38
    rank = kind % NUM_RANKS
    if rank == level_rank:
        return 36
    if rank in CONSTANT_RANKS:
        return 30 + (2 - CONSTANT_RANKS.index(rank))
    return rank + 2  # 4 .. A = 4 .. 14


def level_rank_of(level: str) -> int:
    """Index of a level in :data:`env.core.cards.RANKS`."""
    return RANKS.index(level)
