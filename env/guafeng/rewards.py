"""Team rewards of a 刮风 hand (:data:`env.core.rewards.REWARD_SCHEMES`): zero-sum between the two teams."""

from __future__ import annotations

from env.core.hand_base import HandResult, team_of
from env.core.rewards import POINTS_WEIGHT, REWARD_SCHEMES
from env.guafeng.scoring import HOLD_LINE  # the 刮风 defenders take the stage from here: ``points``'s zero


def hand_rewards(result: HandResult, dealer: int, scheme: str = "level") -> tuple[float, float]:
    """Rewards of teams 0 and 1 for a finished 刮风 hand (``dealer``: the stage team's dealer seat).

    ``level``: the levels the hand's winner climbs (+n for it, -n for the other;
    a takeover at 80..115 climbs 0), the quantity a 刮风 match is decided by.
    ``win_loss``: +1 for the team that won the hand (the stage team holding, or
    the defenders taking the stage), -1 for the other. ``points``: ``(P - 80) / 80``
    for the defenders (P may be negative or above 200), its negative for the stage
    team; ``level_points``: ``level`` plus half of ``points``.
    """
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"unknown reward scheme {scheme!r}: expected one of {REWARD_SCHEMES}")
    stage = team_of(dealer)
    winner = stage if result.winner == "dealers" else 1 - stage
    sign = 1.0 if winner == 0 else -1.0
    if scheme == "win_loss":
        return sign, -sign
    levels = sign * result.levels
    margin = (result.defender_points - HOLD_LINE) / HOLD_LINE
    points = margin if stage == 1 else -margin  # team 0's share: the defenders' margin when they are team 0
    if scheme == "level":
        return levels, -levels
    if scheme == "points":
        return points, -points
    total = levels + POINTS_WEIGHT * points
    return total, -total
