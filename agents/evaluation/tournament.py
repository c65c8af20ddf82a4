"""Round-robin tournaments over a pool, rated with OpenSkill (Plackett-Luce, teams of two).

Every pair of the pool plays the same duplicate deals. Each game is one
rating update, processed in a fixed order (pair, deal, game) so ratings are
reproducible: the two teams are rated as teams of two players (both seats
of a team are the same participant, so both members carry its rating and
the participant takes the updated member rating). Ranks: the team that gained
levels ranks first; a hand with no level change is a draw (in match mode:
the match winner, or the team ahead in levels when the hand limit stops it).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from openskill.models import PlackettLuce

from agents.evaluation.duplicate import DealResult, GameRecord, MatchRecord


def round_robin(pool: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair (A, B) of distinct pool members, in pool order."""
    if len(set(pool)) != len(pool):
        raise ValueError(f"the tournament pool has duplicates: {list(pool)}")
    return list(combinations(pool, 2))


def _outcome(game: GameRecord | MatchRecord) -> float:
    """+1 when A's side did better, -1 when B's did, 0 for a draw.

    An unfinished match (hand limit) goes to the team ahead in levels.
    """
    if isinstance(game, MatchRecord):
        if game.a_score != 0.5:
            return 2 * game.a_score - 1
        return (game.level_gap > 0) - (game.level_gap < 0)
    change = game.a_level_change
    return (change > 0) - (change < 0)


def rate(pairs: Sequence[tuple[str, str]], results: Sequence[DealResult]) -> dict[str, dict[str, float]]:
    """OpenSkill ratings ``{name: {mu, sigma, ordinal}}`` from every game of a tournament."""
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for pair in pairs for name in pair}
    for result in sorted(results, key=lambda r: (r.pair, r.deal)):
        a, b = pairs[result.pair]
        for game in result.games:
            outcome = _outcome(game)
            ranks = [0, 0] if outcome == 0 else ([0, 1] if outcome > 0 else [1, 0])
            teams = [[ratings[a], ratings[a]], [ratings[b], ratings[b]]]
            new = model.rate(teams, ranks=ranks)
            ratings[a], ratings[b] = new[0][0], new[1][0]
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}
