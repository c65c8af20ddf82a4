"""Actor backends: where self-play runs and how samples and weights travel.

Every backend offers the same small interface to the learner
(:class:`~agents.selfplay.actor_pool.ActorPool`: ``get``, ``publish``,
``set_epsilon``, ``set_teacher_share``, ``restart_dead``, ``close``), so
``train.py`` has one loop whatever runs the actors:

* ``local`` (default): actor processes on this machine
  (:mod:`agents.selfplay.local_pool`);
* ``ray``: Ray actors on a cluster (:mod:`agents.selfplay.ray_pool`, optional
  extra ``distributed``, so imported only when chosen).
"""

from __future__ import annotations

from typing import Any

import torch

from agents.selfplay.actor_pool import ActorPool, TablesFactory
from agents.selfplay.config import RunConfig
from agents.selfplay.local_pool import LocalActorPool

BACKENDS = ("local", "ray")


def make_actor_pool(backend: dict[str, Any], run: RunConfig, model: torch.nn.Module, seed_offset: int,
                    make_tables: TablesFactory) -> ActorPool:
    """The actor pool of the ``actors`` config node (``backend: local | ray``), its actors playing on
    the tables ``make_tables(run, seed)`` builds."""
    kind = backend.get("backend", "local")
    if kind == "local":
        return LocalActorPool(run, model, seed_offset, make_tables)
    if kind == "ray":
        try:
            from agents.selfplay.ray_pool import RayActorPool
        except ImportError as exc:
            raise ValueError(f"actors.backend=ray needs the distributed extra (pip install -e '.[distributed]'): "
                             f"{exc}") from None
        return RayActorPool(run, model, seed_offset, backend, make_tables)
    raise ValueError(f"actors.backend must be one of {BACKENDS}, got {kind!r}")
