"""Per-pair metrics of a duplicate evaluation, each with its 95% interval over deals.

All metrics are from participant A's side (B's are the mirror image, and the
"as dealer" / "as defenders" / throw metrics are given for both). A hand's
*signed level change* is +levels when A's team won the hand (dealers held,
or defenders took over), -levels when B's team did; a hand is *won* by A
when A's level change exceeds B's, and counts one half when both are equal
(a takeover with 80..115 points under ``takeover: plain`` gains 0 levels).
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.evaluation.duplicate import DealResult, GameRecord, MatchRecord
from agents.evaluation.stats import Estimate, ratio_ci

HAND_METRICS: dict[str, str] = {
    "level_diff": "mean level differential per hand (A - B)",
    "hand_win_rate": "hand win rate of A (ties count 1/2)",
    "a_defender_points": "A's mean defender points as defenders",
    "b_defender_points": "B's mean defender points as defenders",
    "a_hold_rate": "A's dealer hold rate",
    "b_hold_rate": "B's dealer hold rate",
    "a_throw_success": "A's throw success rate",
    "b_throw_success": "B's throw success rate",
}
MATCH_METRICS: dict[str, str] = {
    "match_win_rate": "match win rate of A (unfinished count 1/2)",
    "level_gap": "final level gap (A - B) at the match end",
    "hands_per_match": "hands per match",
}


def _hand_win(game: GameRecord) -> float:
    change = game.a_level_change
    return 1.0 if change > 0 else 0.0 if change < 0 else 0.5


def hand_metrics(results: Sequence[DealResult]) -> dict[str, Estimate]:
    """The hand-mode metrics of one pair (deals of that pair only)."""
    games = [r.games for r in results]
    out = {
        "level_diff": ratio_ci([sum(g.a_level_change for g in gs) / len(gs) for gs in games]),
        "hand_win_rate": ratio_ci([sum(_hand_win(g) for g in gs) / len(gs) for gs in games]),
    }
    for side, prefix in ((True, "a"), (False, "b")):
        # "A defends" is "A is not the dealer"; for B it is the other way round.
        defending = [[g for g in gs if g.a_is_dealer != side] for gs in games]
        dealing = [[g for g in gs if g.a_is_dealer == side] for gs in games]
        out[f"{prefix}_defender_points"] = ratio_ci([sum(g.defender_points for g in gs) for gs in defending],
                                                   [len(gs) for gs in defending])
        out[f"{prefix}_hold_rate"] = ratio_ci([sum(g.winner == "dealers" for g in gs) for gs in dealing],
                                             [len(gs) for gs in dealing])
        who = 0 if side else 1
        out[f"{prefix}_throw_success"] = ratio_ci(
            [sum(g.throws_attempted[who] - g.throws_failed[who] for g in gs) for gs in games],
            [sum(g.throws_attempted[who] for g in gs) for gs in games])
    return out


def match_metrics(results: Sequence[DealResult]) -> dict[str, Estimate]:
    """The match-mode metrics of one pair."""
    games: list[tuple[MatchRecord, ...]] = [r.games for r in results]
    return {
        "match_win_rate": ratio_ci([sum(m.a_score for m in ms) / len(ms) for ms in games]),
        "level_gap": ratio_ci([sum(m.level_gap for m in ms) / len(ms) for ms in games]),
        "hands_per_match": ratio_ci([sum(m.hands for m in ms) / len(ms) for ms in games]),
    }


def pair_metrics(results: Sequence[DealResult], mode: str) -> dict[str, Estimate]:
    """Metrics of one pair in ``mode`` (``"hands"`` or ``"matches"``)."""
    return match_metrics(results) if mode == "matches" else hand_metrics(results)


def decision_ms(results: Sequence[DealResult]) -> dict[str, float]:
    """Mean wall time per decision (milliseconds) of each participant over these results."""
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}
    for r in results:
        for name, s in r.decision_seconds.items():
            seconds[name] = seconds.get(name, 0.0) + s
            counts[name] = counts.get(name, 0) + r.decisions.get(name, 0)
    return {name: 1000 * seconds[name] / counts[name] for name in seconds if counts[name]}
