"""A match: hands chained by levels and dealer rotation until a team wins (RULES.md 8)."""

from __future__ import annotations

from typing import Any

from env.game import Hand, HandResult, team_of
from env.scoring import advance_level
from env.variants import RuleOptions


class Match:
    """Levels of both teams, the next dealer, and the match winner.

    Deterministic from ``seed``: hand ``i`` is dealt with seed ``seed * 1000 + i``.
    """

    def __init__(self, seed: int, options: RuleOptions | None = None, max_hands: int = 1000):
        self.options = options or RuleOptions()
        self.seed = seed
        self.team_levels = [self.options.levels[0], self.options.levels[0]]
        self.dealer: int | None = None
        self.hands_played = 0
        self.max_hands = max_hands
        self.winner: int | None = None
        self.history: list[dict[str, Any]] = []

    def new_hand(self) -> Hand:
        """Deal the next hand at the dealer team's level."""
        if self.winner is not None:
            raise RuntimeError(f"the match is over: team {self.winner} won")
        if self.hands_played >= self.max_hands:
            raise RuntimeError(f"the match reached its limit of {self.max_hands} hands")
        level = self.team_levels[team_of(self.dealer)] if self.dealer is not None else self.options.levels[0]
        return Hand.new(self.seed * 1000 + self.hands_played, self.options, level=level, dealer=self.dealer,
                        team_levels=(self.team_levels[0], self.team_levels[1]))

    def record(self, hand: Hand) -> HandResult:
        """Apply a finished hand: levels, next dealer, match end."""
        if hand.result is None:
            raise ValueError("the hand is not finished")
        result = hand.result
        dealer_team = team_of(hand.dealer)
        gaining = dealer_team if result.winner == "dealers" else 1 - dealer_team
        top = self.options.top_level
        if result.winner == "dealers" and hand.level == top and self.options.win == "defend_A":
            self.winner = dealer_team
        self.team_levels[gaining] = advance_level(self.team_levels[gaining], result.levels, self.options)
        if self.options.win == "reach_A" and self.team_levels[gaining] == top:
            self.winner = gaining
        self.dealer = result.next_dealer
        self.hands_played += 1
        self.history.append({"dealer": hand.dealer, "level": hand.level, "winner": result.winner,
                             "levels": result.levels, "defender_points": result.defender_points,
                             "team_levels": list(self.team_levels)})
        return result
