"""A match: hands chained by levels and dealer rotation until a team wins (RULES.md 8)."""

from __future__ import annotations

from typing import Any

from env.core.hand_base import HandResult, team_of
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet
from env.standard.hand import Hand
from env.standard.variants import RuleOptions


class Match:
    """Levels of both teams, the next dealer, and the match winner.

    Deterministic from ``seed``: hand ``i`` is dealt with seed ``seed * 1000 + i``.
    ``options`` is the :class:`~env.core.ruleset.RuleSet` (or the standard game's
    :class:`~env.standard.variants.RuleOptions`); it decides the levels, the next dealer
    and the match end. With the ``tribute`` option, a hand in which the dealers
    held with P <= 0 (大光) makes the next hand a tribute hand (RULES.md 9).
    """

    def __init__(self, seed: int, options: RuleSet | RuleOptions | None = None, max_hands: int = 1000):
        self.ruleset = ruleset_from_config(options)
        self.options = self.ruleset.options
        self.seed = seed
        first = self.ruleset.levels[0]
        self.team_levels = [first, first]
        self.dealer: int | None = None
        self.hands_played = 0
        self.max_hands = max_hands
        self.winner: int | None = None
        self.history: list[dict[str, Any]] = []
        self.tribute_next = False
        self._recorded: Hand | None = None  # the hand recorded last (to refuse a second record)

    @property
    def finished(self) -> bool:
        """True once a team has won or the match reached its hand limit (as a 刮风 match's ``finished``)."""
        return self.winner is not None or self.hands_played >= self.max_hands

    @property
    def truncated(self) -> bool:
        """True when the match stopped at its hand limit with no winner."""
        return self.finished and self.winner is None

    def level_gap(self, team: int) -> int:
        """How many places of the level table ``team`` stands above the other team."""
        levels = self.ruleset.levels
        return levels.index(self.team_levels[team]) - levels.index(self.team_levels[1 - team])

    def new_hand(self) -> Hand:
        """Deal the next hand at the dealer team's level."""
        if self.winner is not None:
            raise RuntimeError(f"the match is over: team {self.winner} won")
        if self.hands_played >= self.max_hands:
            raise RuntimeError(f"the match reached its limit of {self.max_hands} hands")
        level = self.team_levels[team_of(self.dealer)] if self.dealer is not None else self.ruleset.levels[0]
        return Hand.new(self.seed * 1000 + self.hands_played, self.ruleset, level=level, dealer=self.dealer,
                        team_levels=(self.team_levels[0], self.team_levels[1]), tribute=self.tribute_next)

    def record(self, hand: Hand) -> HandResult:
        """Apply a finished hand: levels, next dealer, match end."""
        if hand.result is None:
            raise ValueError("the hand is not finished")
        if hand is self._recorded:
            raise ValueError("this hand is already recorded: each hand counts once")
        result = hand.result
        dealer_team = team_of(hand.dealer)
        dealers_held = result.winner == "dealers"
        gaining = dealer_team if dealers_held else 1 - dealer_team
        self.team_levels[gaining] = self.ruleset.advance_level(self.team_levels[gaining], result.levels)
        winner = self.ruleset.match_winner(hand_level=hand.level, dealer_team=dealer_team,
                                           dealers_held=dealers_held, gaining_team=gaining,
                                           new_level=self.team_levels[gaining])
        if winner is not None:
            self.winner = winner
        self.dealer = result.next_dealer
        self.tribute_next = self.ruleset.tribute and dealers_held and result.defender_points <= 0
        self.hands_played += 1
        self._recorded = hand
        self.history.append({"dealer": hand.dealer, "level": hand.level, "winner": result.winner,
                             "levels": result.levels, "defender_points": result.defender_points,
                             "team_levels": list(self.team_levels)})
        return result
