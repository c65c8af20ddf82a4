"""Team rewards at the end of a hand or match: zero-sum between the two teams."""

from __future__ import annotations

from env.game import HandResult, team_of
from env.guafeng.scoring import HOLD_LINE  # the 刮风 defenders take the stage from here: ``points``'s zero
from env.variants import RuleOptions

REWARD_SCHEMES = ("level", "win_loss", "points", "level_points")
POINTS_WEIGHT = 0.5
"""Weight of the points margin in ``level_points``: a whole threshold of points is worth half a level."""


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


def guafeng_hand_rewards(result: HandResult, dealer: int, scheme: str = "level") -> tuple[float, float]:
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
