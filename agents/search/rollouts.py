"""Rollouts of a search: a candidate's play made in a sampled world, then the hand played on.

A rollout starts from the searching seat's position in one world (a
:class:`~agents.search.worlds.World`), makes one candidate play (or, at the
burial, buries one candidate's cards) and plays the hand on, on all four
seats, with a rollout policy. Its outcome is the searching seat's team's
level change plus ``points_weight`` levels per 40 of the team's side of the
defender points, as the search compares candidates.

Two ways to play the hand on (:class:`Rollouts`):

* **one at a time** by agents (the rule bots, or the search's prior): each
  rollout resets the four agents to its seed and plays its hand through;
* **in lockstep** by a network (``rollout: network``): every unfinished hand of
  a batch (all the worlds and candidates of a search round) takes its next
  decision in one forward pass (:meth:`agents.dmc.agent.DMCAgent.batch_plays`).
  The network is greedy, so these are the hands it plays one at a time; a
  batch costs one pass per decision depth instead of one per decision.

Cut short by a value network (``leaf_tricks`` > 0): a hand stops at the
searching seat's first decision once ``leaf_tricks`` more tricks are complete
(a leaf) and is scored with the network's ``V(s)`` from that seat's own view
(the levels the network expects its team to gain, what it was trained to
predict at exactly such decisions) plus ``points_weight`` levels per 40 of the
team's side of the defender points so far. All the leaves of a batch are
scored in one forward pass. A hand that ends before its leaf keeps its exact
outcome. The leaf's estimate is worth many rollout decisions early in the hand,
where whole rollouts are long; its error is the network's, shared by every
candidate compared in the same world.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from agents.base import Agent
from agents.search.worlds import World, burial_hand, world_hand
from env.standard.hand import Hand, Phase
from env.standard.view import PlayerView, view_of

Job = tuple[World, int]
"""A world and the seed of its rollouts (shared by every candidate played in it: common random numbers)."""


class Rollouts:
    """Plays the candidates of one position out in worlds and returns their outcomes for the seat's team.

    ``agents``: the four seats' rollout agents (one at a time), or ``None`` with
    ``network`` (an agent with ``batch_plays``, lockstep rollouts). ``value_network``
    (an agent with ``state_values``) scores leaves when ``leaf_tricks`` > 0.
    """

    def __init__(self, agents: Sequence[Agent] | None, *, network: Any = None, value_network: Any = None,
                 leaf_tricks: int = 0, points_weight: float = 1.0):
        if agents is None and network is None:
            raise ValueError("rollouts need four agents or a network")
        if leaf_tricks and value_network is None:
            raise ValueError("rollouts cut short after leaf_tricks tricks need a value network")
        self.agents = list(agents) if agents is not None else None
        self.network = network
        self.value_network = value_network
        self.leaf_tricks = leaf_tricks
        self.points_weight = points_weight
        self._encoders: list[Any] = []
        self._leaf_encoders: list[Any] = []
        self.leaves = 0
        """Rollouts scored at a leaf so far (the rest ended their hand)."""

    def rows(self, view: PlayerView, jobs: Sequence[Job], plays: Sequence[tuple[int, ...]],
             deadline: float | None = None) -> list[list[float]]:
        """Each job's row of outcomes, one per play (``rows[j][c]``: ``plays[c]`` in ``jobs[j]``'s world).

        Only whole rows done before ``deadline`` (``time.perf_counter()`` seconds) are
        returned, in order: one at a time, the rows finished so far; in lockstep,
        all of them or none.
        """
        if self.agents is not None:
            hands = self._one_at_a_time(view, jobs, plays, deadline)
        else:
            hands = self._lockstep(view, jobs, plays, deadline)
        outcomes = self._outcomes(view, [h for row in hands for h in row])
        width = len(plays)
        return [outcomes[j * width:(j + 1) * width] for j in range(len(hands))]

    def _is_leaf(self, hand: Hand, seat: int, start: int) -> bool:
        return bool(self.leaf_tricks) and hand.current_player == seat and \
            len(hand.tricks) - start >= self.leaf_tricks

    def _start(self, view: PlayerView, world: World, play: tuple[int, ...]) -> Hand:
        """The hand just after the candidate: a play, or at the burial the cards buried."""
        if view.phase == Phase.KITTY:
            return burial_hand(view, world, play)
        hand = world_hand(view, world)
        hand.play(view.seat, list(play))
        return hand

    def _one_at_a_time(self, view: PlayerView, jobs: Sequence[Job], plays: Sequence[tuple[int, ...]],
                       deadline: float | None) -> list[list[Hand]]:
        agents = self.agents
        start = len(view.tricks)
        done: list[list[Hand]] = []
        for world, seed in jobs:
            row = []
            for play in plays:
                if deadline is not None and time.perf_counter() > deadline:
                    return done
                hand = self._start(view, world, play)
                for s, agent in enumerate(agents):
                    agent.reset(seed + s)
                while hand.phase != Phase.DONE and not self._is_leaf(hand, view.seat, start):
                    seat = hand.current_player
                    hand.play(seat, list(agents[seat].play(view_of(hand, seat))))
                row.append(hand)
            done.append(row)
        return done

    def _lockstep(self, view: PlayerView, jobs: Sequence[Job], plays: Sequence[tuple[int, ...]],
                  deadline: float | None) -> list[list[Hand]]:
        start = len(view.tricks)
        hands = [self._start(view, world, play) for world, _ in jobs for play in plays]
        encoders = self._encoders_for(len(hands))
        running = [i for i, h in enumerate(hands) if h.phase != Phase.DONE and not self._is_leaf(h, view.seat, start)]
        while running:
            if deadline is not None and time.perf_counter() > deadline:
                return []
            views = [view_of(hands[i], hands[i].current_player) for i in running]
            for i, play in zip(running, self.network.batch_plays(views, [encoders[i] for i in running])):
                hands[i].play(hands[i].current_player, list(play))
            running = [i for i in running
                       if hands[i].phase != Phase.DONE and not self._is_leaf(hands[i], view.seat, start)]
        width = len(plays)
        return [hands[j * width:(j + 1) * width] for j in range(len(jobs))]

    def _encoders_for(self, n: int) -> list[Any]:
        """``n`` encoders of the rollout network's, kept between batches (each follows the hand it last read)."""
        return _grown(self._encoders, self.network, n)

    def _outcomes(self, view: PlayerView, hands: list[Hand]) -> list[float]:
        """Each hand's outcome for ``view.seat``'s team: exact when it ended, its leaf's estimate otherwise."""
        seat, weight = view.seat, self.points_weight
        outcomes = [0.0] * len(hands)
        leaves = []
        for i, hand in enumerate(hands):
            we_deal = hand.is_dealer_team(seat)
            if hand.phase == Phase.DONE:
                result = hand.result
                levels = result.levels if we_deal == (result.winner == "dealers") else -result.levels
                our_points = -result.defender_points if we_deal else result.defender_points
                outcomes[i] = levels + weight * our_points / 40
            else:
                our_points = -hand.defender_points if we_deal else hand.defender_points
                outcomes[i] = weight * our_points / 40
                leaves.append(i)
        if leaves:
            self.leaves += len(leaves)
            views = [view_of(hands[i], seat) for i in leaves]
            if self.value_network is self.network:  # lockstep: each hand's own encoder has read it already
                encoders = [self._encoders[i] for i in leaves]
            else:
                encoders = _grown(self._leaf_encoders, self.value_network, len(leaves))[:len(leaves)]
            for i, value in zip(leaves, self.value_network.state_values(views, encoders)):
                outcomes[i] += float(value)
        return outcomes


def _grown(pool: list[Any], network: Any, n: int) -> list[Any]:
    """``pool`` grown to at least ``n`` of ``network``'s encoders (:meth:`DMCAgent.new_encoder`)."""
    while len(pool) < n:
        pool.append(network.new_encoder())
    return pool
