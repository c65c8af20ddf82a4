"""What the state machine of a hand does the same under every rule set.

:class:`env.standard.hand.Hand` (the standard game) and
:class:`env.guafeng.hand.GuafengHand` (刮风) both build on :class:`HandBase`:

- the state every hand holds (hands as count vectors, the kitty, the tricks,
  the points, the decision and event logs) and its JSON log;
- the deal's decision points: a seat that a dealt card, or another seat's
  bid, gives a new option is queued and asked in turn (it decides or passes);
  after the deal a final round asks every seat once, from the first seat
  dealt to; then the subclass ends the deal (``_finish_deal``);
- the turn check of every decision;
- the end of a trick: the rule set names the winning play, the trick's points
  count for the defenders unless the dealer team wins it, the winner leads
  next, and the hand is scored (``_score``) once the winner's hand is empty.

A subclass names its deal phases (``DEAL_PHASE``, ``FINAL_PHASE``), its log
version, and supplies ``_deal_one``, ``_has_deal_options``, ``_finish_deal``,
``is_dealer_team`` and ``_score``: where the rule sets differ.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from env.core.cards import NUM_KINDS, points_of
from env.core.errors import IllegalActionError


def team_of(seat: int) -> int:
    """Team of a seat: 0 for seats {0, 2}, 1 for seats {1, 3}."""
    return seat % 2


@dataclass(frozen=True)
class TrickRecord:
    """A finished trick: who led, the four plays in seat order from the leader, the winner."""

    leader: int
    plays: tuple[tuple[int, ...], ...]
    winner: int
    points: int


@dataclass(frozen=True)
class HandResult:
    """The outcome of a hand (RULES.md 7 and 8)."""

    defender_points: int
    trick_points: int
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    penalty_points: int
    winner: str          # "dealers" or "defenders"
    levels: int          # levels gained by the winner
    next_dealer: int


class HandBase:
    """The state and the machinery a hand of any rule set shares (see the module docstring)."""

    DEAL_PHASE: ClassVar[StrEnum]
    """The phase of the deal, with its decision points."""
    FINAL_PHASE: ClassVar[StrEnum]
    """The final round of decisions after the deal."""
    PLAY_PHASE: ClassVar[StrEnum]
    """The phase of the tricks: leads and follows."""
    DONE_PHASE: ClassVar[StrEnum]
    """The phase of a scored hand."""
    LOG_VERSION: ClassVar[int]
    """The version :meth:`to_log` writes."""

    def __init__(self, ruleset: Any, dealer: int | None):
        self.ruleset = ruleset
        self.options = ruleset.options
        self.num_players = num_players = ruleset.layout.players
        self.dealer = dealer
        self.phase = self.DEAL_PHASE
        self.current_player: int | None = None
        self.hands = [[0] * NUM_KINDS for _ in range(num_players)]
        self.hand_sizes = [0] * num_players
        self.kitty: list[int] = []
        self.ctx = None
        self.standing = None
        self.played = [[0] * NUM_KINDS for _ in range(num_players)]
        self.tricks: list[TrickRecord] = []
        self.leader: int | None = None
        self.lead = None
        self.trick_plays: list[tuple[int, ...]] = []
        self.trick_points = [0, 0]
        self.defender_points = 0
        self.penalty_points = 0
        # Throw attempts and failures by seat (the standard game's; a rule set without throws keeps zeros).
        self.throws_attempted = [0] * num_players
        self.throws_failed = [0] * num_players
        self.result = None
        self.events: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        self._setup: dict[str, Any] = {}
        self._rng = random.Random()
        self._deck: list[int] = []
        self._dealt = 0
        self._start_seat = 0
        self._pending: deque[int] = deque()
        self._final_order: list[int] = []

    def to_log(self) -> dict[str, Any]:
        """JSON-serialisable log: the rules, setup, decisions (for replay) and events (for reading)."""
        return {"version": self.LOG_VERSION, "ruleset": self.ruleset.name, "options": self.options.to_dict(),
                "layout": self.ruleset.layout.to_dict(), "setup": dict(self._setup),
                "decisions": [dict(d) for d in self.decisions], "events": [dict(e) for e in self.events]}

    def _check_turn(self, seat: int, phases: tuple[StrEnum, ...], what: str) -> None:
        if self.phase not in phases:
            raise IllegalActionError(f"cannot {what} in phase {self.phase.value}")
        if seat != self.current_player:
            raise IllegalActionError(f"seat {seat} cannot {what}: it is seat {self.current_player}'s turn")

    # ------------------------------------------------------------------ the deal's decision points
    def _has_deal_options(self, seat: int) -> bool:
        """Whether ``seat`` has a choice at a decision point of the deal (a bid, a fix)."""
        raise NotImplementedError

    def _deal_one(self) -> None:
        """Deal the next card; queue its seat in ``_pending`` if the card gives it a new option."""
        raise NotImplementedError

    def _finish_deal(self) -> None:
        """End the deal once nobody is left to ask: the trump, the kitty, what comes next."""
        raise NotImplementedError

    def _advance(self) -> None:
        """Run the deal until the next decision point, or past the deal's decisions."""
        while True:
            while self._pending:
                seat = self._pending[0]
                if self._has_deal_options(seat):
                    self.current_player = seat
                    return
                self._pending.popleft()
            if self.phase == self.DEAL_PHASE:
                if self._dealt < self.ruleset.layout.dealt_cards:
                    self._deal_one()
                    continue
                self.phase = self.FINAL_PHASE
                players = self.num_players
                self._final_order = [(self._start_seat + i) % players for i in range(players)]
                self.events.append({"type": "final_round"})
            if self._final_order:
                self._pending.append(self._final_order.pop(0))
                continue
            self._finish_deal()
            return

    def _ask_after(self, seat: int) -> None:
        """After ``seat``'s bid or fix, ask everyone else who can now overturn it, in seat order after it."""
        players = self.num_players
        self._pending = deque((seat + i) % players for i in range(1, players))
        self._advance()

    def _pass_deal_decision(self, seat: int) -> None:
        """``seat`` declines at a decision point of the deal."""
        self._check_turn(seat, (self.DEAL_PHASE, self.FINAL_PHASE), "pass")
        self._pending.popleft()
        self.decisions.append({"seat": seat, "action": "pass"})
        self._advance()

    # ------------------------------------------------------------------ tricks
    def is_dealer_team(self, seat: int) -> bool:
        """True for the seats of the dealer team."""
        raise NotImplementedError

    def _score(self, last_winner: int, last_lead: Any) -> None:
        """Score the hand, whose last trick ``last_winner`` won on ``last_lead``."""
        raise NotImplementedError

    def _finish_trick(self) -> None:
        winner_index = self.ruleset.winning_play(self.ctx, self.lead, self.trick_plays[1:])
        winner = (self.leader + winner_index) % self.num_players
        points = sum(points_of(p) for p in self.trick_plays)
        self.trick_points[team_of(winner)] += points
        if not self.is_dealer_team(winner):
            self.defender_points += points
        self.tricks.append(TrickRecord(self.leader, tuple(self.trick_plays), winner, points))
        self.events.append({"type": "trick", "winner": winner, "points": points})
        last_lead = self.lead
        self.trick_plays = []
        self.lead = None
        self.leader = winner
        self.current_player = winner
        if self.hand_sizes[winner] == 0:
            self._score(winner, last_lead)

    # ------------------------------------------------------------------ reading the state
    @property
    def finished(self) -> bool:
        """True once the hand is scored."""
        return self.phase == self.DONE_PHASE

    @property
    def in_play(self) -> bool:
        """True while tricks are played (a lead or a follow is the next decision)."""
        return self.phase == self.PLAY_PHASE

    def hand_cards(self, seat: int) -> list[int]:
        """The kinds in a seat's hand, sorted."""
        return [k for k in range(NUM_KINDS) for _ in range(self.hands[seat][k])]

    def cards_accounted(self) -> int:
        """Cards in hands + kitty + played, plus the undealt rest during the deal's decisions
        (always the whole deck)."""
        if self.phase.is_bidding:
            return sum(self.hand_sizes) + self.ruleset.layout.deck_size - self._dealt
        return sum(self.hand_sizes) + len(self.kitty) + sum(sum(p) for p in self.played)
