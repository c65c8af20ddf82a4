"""Inference in the world sampler: worlds resampled by how likely the other seats' plays were in them.

A uniform world ignores what the other seats' plays say about their hands: a
player who led a low spade rarely holds a sure spade winner it could have led.
:class:`InferenceSampler` draws ``oversample`` worlds from the exact
:class:`~agents.search.worlds.WorldSampler` and keeps one of them with
probability proportional to the likelihood, in that world, of the plays the
other seats made earlier in the current trick, under a policy:

* ``expert``: ExpertAgent's play at that moment (it is deterministic), smoothed:
  ``1 - epsilon`` when it matches the play made, ``epsilon`` otherwise;
* ``network``: the search prior's network (a play-mode checkpoint), the
  softmax of its Q over its candidates at temperature ``temperature``, mixed
  with ``epsilon`` so no consistent world gets zero weight.

A world in which one of those plays would have been illegal (the exact
sampler meets the "no pairs left" inference only by a few resamples, and does
not yet know the current trick's) gets weight 0: inference also removes worlds
that are impossible. Only the current trick is re-played (the position before each of its plays is
the world with that play's cards back in the hands); a lead that may have been
a failed throw's forced play is not used. Every world kept is one the exact
sampler drew, so the consistency guarantees of :mod:`agents.search.worlds`
hold unchanged; only the mix of consistent worlds changes.
"""

from __future__ import annotations

import math
import random

from agents.base import Agent
from agents.bots.expert import ExpertAgent
from agents.search.worlds import World, WorldSampler
from env.standard.hand import NUM_PLAYERS, Hand
from env.standard.view import PlayerView, view_of

INFERENCE_POLICIES = ("none", "expert", "network")


class InferenceSampler:
    """Worlds of a view, resampled by the likelihood of the current trick's earlier plays (see module doc)."""

    def __init__(self, view: PlayerView, policy: str, oversample: int, epsilon: float, temperature: float = 0.1,
                 network: Agent | None = None):
        if policy not in INFERENCE_POLICIES[1:]:
            raise ValueError(f"inference policy must be expert or network, got {policy!r}")
        if policy == "network" and not hasattr(network, "play_values"):
            raise ValueError("search.inference=network needs a play-mode checkpoint as the search's prior")
        self.base = WorldSampler(view)
        self.view, self.policy, self.oversample = view, policy, oversample
        self.epsilon, self.temperature = epsilon, temperature
        self.network = network
        self.expert = ExpertAgent()
        first = 1 if view.failed_throws and view.failed_throws[-1][0] == view.leader else 0
        self.plays = [(i, (view.leader + i) % NUM_PLAYERS, tuple(sorted(play)))
                      for i, play in enumerate(view.trick_plays) if i >= first]

    def sample(self, rng: random.Random) -> World:
        """One world: ``oversample`` exact draws, one kept with probability proportional to its likelihood."""
        if not self.plays or self.oversample == 1:
            return self.base.sample(rng)
        worlds = [self.base.sample(rng) for _ in range(self.oversample)]
        weights = [self.likelihood(world) for world in worlds]
        if not any(weights):  # every draw contradicts a play: keep the exact sampler's first
            return worlds[0]
        return rng.choices(worlds, weights)[0]

    def likelihood(self, world: World) -> float:
        """Probability of the current trick's earlier plays (those used) in ``world`` under the policy."""
        total = 1.0
        for index, seat, play in self.plays:
            total *= self._probability(position_before(self.view, world, index), seat, play)
        return total

    def _probability(self, hand: Hand, seat: int, play: tuple[int, ...]) -> float:
        view = view_of(hand, seat)
        if view.play_error(list(play)) is not None:
            return 0.0  # the play was illegal with this hand: the world cannot be (see the module docstring)
        if self.policy == "expert":
            return 1.0 - self.epsilon if tuple(sorted(self.expert.play(view))) == play else self.epsilon
        moves, q = self.network.play_values(view, extra=(play,))
        scaled = [float(v) / self.temperature for v in q]
        top = max(scaled)
        weights = [math.exp(v - top) for v in scaled]
        return (1.0 - self.epsilon) * weights[moves.index(play)] / sum(weights) + self.epsilon


def position_before(view: PlayerView, world: World, index: int) -> Hand:
    """The engine's hand just before play ``index`` of the current trick, in ``world`` (that play's cards
    and the later ones of the trick back in their players' hands)."""
    hands = [list(h) for h in world.hands]
    played = [list(p) for p in view.played]
    for j in range(index, len(view.trick_plays)):
        seat = (view.leader + j) % NUM_PLAYERS
        for kind in view.trick_plays[j]:
            hands[seat][kind] += 1
            played[seat][kind] -= 1
    return Hand.from_position(
        rules=view.ruleset, level=view.level, dealer=view.dealer, team_levels=view.team_levels, ctx=view.ctx,
        standing=view.standing_bid, hands=hands, kitty=list(world.kitty), played=played, tricks=list(view.tricks),
        leader=view.leader, trick_plays=list(view.trick_plays[:index]), defender_points=view.defender_points,
        failed_throws=list(view.failed_throws))
