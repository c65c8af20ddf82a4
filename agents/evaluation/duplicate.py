"""Duplicate play: every deal twice with the teams swapped (where it runs: :mod:`agents.evaluation.workers`).

Participant A sits on seats {0, 2} in game 0 and on {1, 3} in game 1 of a
deal; B takes the other seats. The dealer rotates with the deal index (seat
``i % 4``), so relative to the dealer the seats rotate too. Agents are seeded
from the deal and the *seat* (never from the worker or the participant), so:

* results are identical whatever the number of workers;
* a participant against itself plays the very same game twice, and swapping
  A and B swaps the two games exactly.

Agents are built once per worker and reseeded with :meth:`Agent.reset` before
each game; agents that keep state must clear it there.

刮风 (``rules`` naming ``ruleset: guafeng``): the same deck is dealt in both
games with the same planned dealer seat, so A is the stage team in one game and
B in the other; the fixing during the deal may still change that (a defender's
fix keeps the stage team, a hand without a fix steps down), and each hand is
recorded from the stage team it was really played with. In ``matches`` mode a
deal seeds a :class:`~env.guafeng.match.GuafengMatch` of ``match_hands`` hands,
won by the team that climbed more levels.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent, Decision
from agents.evaluation.deals import Deal, check_deal, deal_hand
from agents.registry import checkpoint_paths, make_agent
from agents.runner import play_hand, play_match
from env.core.hand_base import team_of
from env.core.registry import DEFAULT, make_ruleset
from env.core.ruleset import RuleSet
from env.standard.bidding import Bid
from env.standard.hand import Hand
from env.standard.view import PlayerView


@dataclass(frozen=True)
class Settings:
    """How the games of an evaluation are played (the same in every worker)."""

    mode: str = "hands"              # "hands" or "matches"
    dealer: str = "rotate"           # "rotate" (seat i % 4) or "bid" (first hands: bidding decides)
    seed: int = 0
    rules: tuple[tuple[str, object], ...] = ()
    max_match_hands: int = 200
    search: tuple[tuple[str, object], ...] = ()   # options of search participants (conf/search)

    def rule_set(self) -> RuleSet:
        """The rule set: ``rules`` may name it (``ruleset: guafeng``); the rest are its options."""
        rules = dict(self.rules)
        return make_ruleset(str(rules.pop("ruleset", DEFAULT)), rules)


@dataclass(frozen=True)
class GameRecord:
    """One hand from participant A's side: who dealt, who won how much, throws per participant."""

    a_team: int
    dealer: int
    winner: str
    levels: int
    defender_points: int
    throws_attempted: tuple[int, int]
    throws_failed: tuple[int, int]

    @property
    def a_is_dealer(self) -> bool:
        """True when A's team dealt this hand."""
        return team_of(self.dealer) == self.a_team

    @property
    def a_level_change(self) -> int:
        """Levels A's team gained minus levels B's team gained (the signed level change)."""
        a_won = self.a_is_dealer == (self.winner == "dealers")
        return self.levels if a_won else -self.levels


@dataclass(frozen=True)
class MatchRecord:
    """One match from A's side: winner (1 A, 0 B, 0.5 unfinished), hands played, final level gap."""

    a_team: int
    a_score: float
    hands: int
    level_gap: int


@dataclass(frozen=True)
class DealResult:
    """The two swapped games (or matches) of one deal for one pair of participants."""

    pair: int
    deal: int
    games: tuple[GameRecord | MatchRecord, ...]
    decision_seconds: dict[str, float] = field(default_factory=dict, compare=False)
    decisions: dict[str, int] = field(default_factory=dict, compare=False)


class TimedAgent(Agent):
    """Wraps an agent and accumulates the wall time of its decisions."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.count = 0

    def act(self, view: PlayerView) -> Decision:
        start = time.perf_counter()
        decision = self.agent.act(view)
        self.seconds += time.perf_counter() - start
        self.count += 1
        return decision

    def bid(self, view: PlayerView) -> Bid | None:
        return self.agent.bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        return self.agent.bury(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        return self.agent.play(view)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)


def agent_seed(seed: int, deal: int, seat: int) -> int:
    """Seed of the agent on ``seat`` for a deal: from the deal and seat only."""
    digest = hashlib.sha256(f"shengji-agent:{seed}:{deal}:{seat}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


_AGENTS: dict[tuple, TimedAgent] = {}


def _agent(name: str, seat: int, search: tuple[tuple[str, object], ...] = ()) -> TimedAgent:
    # A checkpoint file rewritten in place (training's latest.pt) must not hit a stale cache entry.
    stamp = tuple(os.stat(path).st_mtime_ns for path in checkpoint_paths(name))
    key = (name, seat, stamp, search)
    if key not in _AGENTS:
        _AGENTS[key] = TimedAgent(make_agent(name, None, search=dict(search)))
    return _AGENTS[key]


def play_deal(task: tuple[int, str, str, Deal, Settings]) -> DealResult:
    """Play one deal twice (teams swapped) between participants A and B."""
    pair, a, b, deal, settings = task
    rules = settings.rule_set()
    games: list[GameRecord | MatchRecord] = []
    seconds = {a: 0.0, b: 0.0} if a != b else {a: 0.0}
    counts = dict.fromkeys(seconds, 0)
    for a_team in (0, 1):
        names = [a if team_of(seat) == a_team else b for seat in range(4)]
        agents = [_agent(name, seat, settings.search) for seat, name in enumerate(names)]
        for seat, agent in enumerate(agents):
            agent.reset(agent_seed(settings.seed, deal.index, seat))
            agent.seconds, agent.count = 0.0, 0
        if settings.mode == "matches":
            match = play_match(rules.new_match(deal.hand_seed, max_hands=settings.max_match_hands), agents)
            games.append(_match_record(match, a_team))
        else:
            dealer = deal.dealer if settings.dealer == "rotate" else None
            hand = deal_hand(deal, rules, dealer)
            check_deal(deal, hand)
            games.append(_game_record(play_hand(hand, agents), a_team))
        for name, agent in zip(names, agents):
            seconds[name] += agent.seconds
            counts[name] += agent.count
    return DealResult(pair, deal.index, tuple(games), seconds, counts)


def _game_record(hand: Hand, a_team: int) -> GameRecord:
    result = hand.result
    attempted = [0, 0]
    failed = [0, 0]
    for seat in range(4):  # 刮风 has no throws (不能撇牌)
        who = 0 if team_of(seat) == a_team else 1
        attempted[who] += hand.throws_attempted[seat]
        failed[who] += hand.throws_failed[seat]
    return GameRecord(a_team, hand.dealer, result.winner, result.levels, result.defender_points,
                      tuple(attempted), tuple(failed))


def _match_record(match: Any, a_team: int) -> MatchRecord:
    """A match from A's side: its score and the levels A ended ahead (:meth:`level_gap`)."""
    score = 0.5 if match.winner is None else float(match.winner == a_team)
    return MatchRecord(a_team, score, match.hands_played, match.level_gap(a_team))
