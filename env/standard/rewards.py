"""Team rewards of a standard hand (:data:`env.core.rewards.REWARD_SCHEMES`): zero-sum between the two teams."""

from __future__ import annotations

from env.core.hand_base import HandResult, team_of
from env.core.rewards import POINTS_WEIGHT, REWARD_SCHEMES
from env.standard.variants import RuleOptions


def hand_level_change(result: HandResult, dealer: int, options: RuleOptions) -> tuple[float, float]:
    """Signed level change of teams 0 and 1 for a finished hand.

    Dealers holding gain +1..+3. Defenders taking over gain their levels, with the
    takeover itself counted as one level under ``takeover="plain"`` (where 80..115
    would otherwise be worth 0); ``plus_one`` already counts it.
    """
    gain = float(result.levels)
    if result.winner == "defenders" and options.takeover == "plain":
        gain += 1.0
    winning_team = team_of(dealer) if result.winner == "dealers" else 1 - team_of(dealer)
    return (gain, -gain) if winning_team == 0 else (-gain, gain)


def hand_rewards(result: HandResult, dealer: int, options: RuleOptions, scheme: str = "level") -> tuple[float, float]:
    """Rewards of teams 0 and 1 for a hand under a reward scheme.

    ``level``: :func:`hand_level_change`. ``win_loss``: +1 for the team whose
    level change is positive, -1 for the other. ``points``: the defenders'
    margin over the threshold, ``(P - threshold) / threshold``, positive for the
    defenders and negative for the dealers.
    """
    if scheme == "level":
        return hand_level_change(result, dealer, options)
    if scheme == "win_loss":
        a, b = hand_level_change(result, dealer, options)
        return (1.0, -1.0) if a > b else (-1.0, 1.0)
    if scheme in ("points", "level_points"):
        margin = (result.defender_points - options.threshold) / options.threshold
        defenders = 1 - team_of(dealer)
        points = (margin, -margin) if defenders == 0 else (-margin, margin)
        if scheme == "points":
            return points
        levels = hand_level_change(result, dealer, options)
        return tuple(level + POINTS_WEIGHT * p for level, p in zip(levels, points, strict=True))
    raise ValueError(f"unknown reward scheme {scheme!r}: expected one of {REWARD_SCHEMES}")
