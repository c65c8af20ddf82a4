"""Rule bots and their helpers: hand-written players (``random``, ``greedy``, ``expert``) and the
card knowledge they share (heuristics, card tracking, the expert's play and setup choices).

Nothing here learns or imports torch. :data:`BOTS` names the bots; :mod:`agents.registry`
makes them (and checkpoints and searches) by name, and the search builds its rollout bots from it.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent
from agents.bots.expert import ExpertAgent
from agents.bots.greedy import GreedyAgent
from agents.bots.random_agent import RandomAgent

BOTS: dict[str, Callable[[int | None], Agent]] = {
    "random": lambda seed: RandomAgent(seed),
    "greedy": lambda seed: GreedyAgent(seed),
    "expert": lambda seed: ExpertAgent(seed),
}
"""Rule bots by name; each factory takes a seed."""

__all__ = ["BOTS"]
