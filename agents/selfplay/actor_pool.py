"""What every actor backend shares: the pool and tables protocols, and actor seeds.

An actor backend runs self-play tables somewhere and hands their samples to
the learner. :class:`ActorPool` is what the learner needs from a backend;
:class:`Tables` is what an actor needs from the learner's self-play tables
(built by a :data:`TablesFactory`, e.g. :func:`agents.dmc.tables.make_tables`);
:func:`actor_seed` seeds every actor incarnation. The backends are
:mod:`agents.selfplay.local_pool` and :mod:`agents.selfplay.ray_pool`;
:mod:`agents.selfplay.backends` picks one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import torch

from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch


class Tables(Protocol):
    """Self-play tables stepped by an actor: decide with the model, then collect finished samples."""

    def step(self, model: torch.nn.Module, epsilon: float, teacher_share: float = 0.0) -> None:
        """Every table takes one decision with ``model`` (exploring with ``epsilon``)."""

    def collect(self, min_samples: int) -> SampleBatch | None:
        """Finished samples, once at least ``min_samples`` are ready."""


TablesFactory = Callable[[RunConfig, int], Tables]
"""Builds an actor's tables from the run configuration and the actor's seed (must be picklable)."""


class ActorPool(Protocol):
    """What the learner needs from an actor backend."""

    def get(self, timeout: float) -> SampleBatch | None:
        """The next batch of samples, or ``None`` after ``timeout`` seconds."""

    def publish(self, model: torch.nn.Module) -> None:
        """Make the learner's current weights available to the actors."""

    def set_epsilon(self, epsilon: float) -> None:
        """Set the actors' exploration rate."""

    def set_teacher_share(self, share: float) -> None:
        """Set the share of new hands in which the rule-bot teacher holds seats (``action_mode=play``)."""

    def restart_dead(self) -> int:
        """Restart actors that died; returns how many."""

    def close(self) -> None:
        """Stop every actor."""


def actor_seed(run: RunConfig, seed_offset: int, actor_id: int, restarts: int) -> int:
    """Seed of one actor incarnation: distinct per run seed, resume, actor and restart."""
    return run.seed * 10_000 + seed_offset * 100 + actor_id + 1_000 * restarts
