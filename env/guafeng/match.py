"""A 刮风 match: ``match_hands`` hands on the cycle of levels, won by the levels climbed (section 2, 9).

Both teams start at level A. The first hand is a 抢台 (``dealer=None``: the
first fixing team takes the stage); after each hand the stage team, its
dealer seat and the run of hands it has been on stage come from the hand's
result (:class:`~env.guafeng.hand.GuafengResult`, which applies the score
table, the step-down of a hand without a fix and ``stage_limit``). Levels go
round the cycle A 2 .. K A, so the match is decided by the levels each team
climbed in all, not by a level reached: more wins, equal is a draw.
"""

from __future__ import annotations

from typing import Any

from env.core.hand_base import team_of
from env.core.registry import make_ruleset
from env.core.ruleset import RuleSet
from env.guafeng.hand import GuafengHand, GuafengResult
from env.guafeng.options import NAME


class GuafengMatch:
    """Levels of both teams, the next dealer seat and stage run, and the winner after ``match_hands`` hands.

    Deterministic from ``seed``: hand ``i`` is dealt with seed ``seed * 1000 + i``.

    Attributes:
        team_levels: each team's level now.
        climbed: the levels each team has climbed so far.
        dealer: the next hand's dealer seat (``None`` before the first hand).
        stage_run: hands in a row the next hand's stage team has already been on stage.
        winner: 0 or 1 once the match is over and a team climbed more; ``None`` otherwise
            (see :attr:`finished` to tell a draw from a match still going on).
        history: one dict per hand played.

    Each hand is recorded once, and only a hand this match dealt (:meth:`new_hand`, the latest).
    """

    def __init__(self, seed: int, rules: RuleSet | None = None):
        self.ruleset = rules if rules is not None else make_ruleset(NAME)
        if getattr(self.ruleset, "match_class", None) is not GuafengMatch:
            raise ValueError(f"a guafeng match needs the guafeng rule set, got {type(self.ruleset).__name__}")
        self.options = self.ruleset.options
        self.seed = seed
        first = self.ruleset.levels[0]
        self.team_levels = [first, first]
        self.climbed = [0, 0]
        self.dealer: int | None = None
        self.stage_run = 0
        self.hands_played = 0
        self.winner: int | None = None
        self.history: list[dict[str, Any]] = []
        self._dealt: GuafengHand | None = None       # the hand new_hand() dealt and record() awaits
        self._recorded: GuafengHand | None = None    # the hand recorded last (to name a second record)

    @property
    def finished(self) -> bool:
        """True once ``match_hands`` hands have been played."""
        return self.hands_played >= self.options.match_hands

    @property
    def truncated(self) -> bool:
        """Never: a 刮风 match has a fixed number of hands and ends decided or drawn."""
        return False

    @property
    def is_draw(self) -> bool:
        """True when the match is over and both teams climbed as many levels."""
        return self.finished and self.climbed[0] == self.climbed[1]

    def level_gap(self, team: int) -> int:
        """How many more levels ``team`` has climbed than the other (the levels go round a cycle)."""
        return self.climbed[team] - self.climbed[1 - team]

    def new_hand(self) -> GuafengHand:
        """Deal the next hand: at the stage team's level, from its dealer seat."""
        if self.finished:
            raise RuntimeError(f"the match is over after {self.options.match_hands} hands")
        self._dealt = GuafengHand.new(self.seed * 1000 + self.hands_played, self.ruleset, dealer=self.dealer,
                                      team_levels=(self.team_levels[0], self.team_levels[1]),
                                      stage_run=self.stage_run)
        return self._dealt

    def record(self, hand: GuafengHand) -> GuafengResult:
        """Apply a finished hand: levels, next dealer seat and stage run, the match end.

        ``hand`` must be the one :meth:`new_hand` dealt last, finished and not yet recorded; else
        ``ValueError`` and nothing changes.
        """
        if hand is not self._dealt:
            if hand is self._recorded:
                raise ValueError("this hand is already recorded: each hand counts once")
            raise ValueError("this hand was not dealt by this match: record the hand its new_hand() dealt last")
        result = hand.result
        if result is None:
            raise ValueError("the hand is not finished")
        if self.finished:
            raise RuntimeError("the match is over")
        stage = team_of(hand.dealer)
        held = result.winner == "dealers"
        gaining = stage if held else 1 - stage
        self.team_levels[gaining] = self.ruleset.advance_level(self.team_levels[gaining], result.levels)
        self.climbed[gaining] += result.levels
        self.dealer = result.next_dealer
        stays = team_of(result.next_dealer) == stage
        self.stage_run = result.stage_run if stays else 0
        self.hands_played += 1
        self._dealt, self._recorded = None, hand
        self.history.append({"dealer": hand.dealer, "level": hand.level, "stepped_down": hand.stepped_down,
                             "trump": hand.trump, "winner": result.winner, "levels": result.levels,
                             "defender_points": result.defender_points, "stage_run": result.stage_run,
                             "stage_limit_reached": result.stage_limit_reached,
                             "team_levels": list(self.team_levels), "climbed": list(self.climbed)})
        if self.finished and self.climbed[0] != self.climbed[1]:
            self.winner = 0 if self.climbed[0] > self.climbed[1] else 1
        return result
