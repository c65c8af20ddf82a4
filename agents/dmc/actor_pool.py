"""Actor backends: where self-play runs and how samples and weights travel.

Every backend offers the same small interface to the learner (``get``,
``publish``, ``set_epsilon``, ``restart_dead``, ``close``), so ``train.py``
has one loop whatever runs the actors:

* ``local`` (default): actor processes on this machine (``torch.multiprocessing``
  spawn), weights in shared memory, samples through a queue.
* ``ray``: Ray actors on a cluster (:mod:`agents.dmc.ray_pool`, optional extra
  ``distributed``).
"""

from __future__ import annotations

import contextlib
import queue
import time
from typing import Any, Protocol

import torch
import torch.multiprocessing as mp

from agents.dmc.actor import SampleBatch, actor_process
from agents.dmc.checkpoint import new_model
from agents.dmc.config import RunConfig
from agents.interrupts import sigint_ignored_while_starting

BACKENDS = ("local", "ray")


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


class LocalActorPool:
    """Actor processes on this machine sharing weights through shared memory."""

    def __init__(self, run: RunConfig, model: torch.nn.Module, seed_offset: int):
        self.run = run
        self.context = mp.get_context("spawn")
        self.shared_model = new_model(run)
        self.shared_model.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
        self.shared_model.share_memory()
        self.lock = self.context.Lock()
        self.version = self.context.Value("i", 0)
        self.epsilon = self.context.Value("d", run.train.epsilon_start)
        self.teacher_share = self.context.Value("d", run.train.teacher_share_at(0))
        self.samples = self.context.Queue(maxsize=run.train.queue_size)
        self.stop = self.context.Event()
        self.seed_offset = seed_offset
        self.restarts = 0
        self.processes = [self._start(i) for i in range(run.train.actors)]

    def _start(self, actor_id: int):
        # Born ignoring Ctrl-C: the learner catches it and stops the actors (agents.interrupts).
        process = self.context.Process(
            target=actor_process, daemon=True, name=f"actor-{actor_id}",
            args=(actor_id, self.run, self.shared_model, self.lock, self.version, self.epsilon, self.teacher_share,
                  self.samples, self.stop, actor_seed(self.run, self.seed_offset, actor_id, self.restarts)))
        with sigint_ignored_while_starting():
            process.start()
        return process

    def get(self, timeout: float) -> SampleBatch | None:
        try:
            return self.samples.get(timeout=timeout)
        except queue.Empty:
            return None

    def publish(self, model: torch.nn.Module) -> None:
        with self.lock:
            shared = self.shared_model.state_dict()
            for name, tensor in model.state_dict().items():
                shared[name].copy_(tensor.detach().cpu())
            self.version.value += 1

    def set_epsilon(self, epsilon: float) -> None:
        self.epsilon.value = epsilon

    def set_teacher_share(self, share: float) -> None:
        self.teacher_share.value = share

    def restart_dead(self) -> int:
        restarted = 0
        for i, process in enumerate(self.processes):
            if not process.is_alive() and not self.stop.is_set():
                self.restarts += 1
                self.processes[i] = self._start(i)
                restarted += 1
        return restarted

    def close(self) -> None:
        self.stop.set()
        deadline = time.time() + 10
        while time.time() < deadline and any(p.is_alive() for p in self.processes):
            with contextlib.suppress(queue.Empty):
                self.samples.get(timeout=0.1)  # unblock actors waiting on a full queue
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join(timeout=5)


def make_actor_pool(backend: dict[str, Any], run: RunConfig, model: torch.nn.Module, seed_offset: int) -> ActorPool:
    """The actor pool of the ``actors`` config node (``backend: local | ray``)."""
    kind = backend.get("backend", "local")
    if kind == "local":
        return LocalActorPool(run, model, seed_offset)
    if kind == "ray":
        try:
            from agents.dmc.ray_pool import RayActorPool
        except ImportError as exc:
            raise ValueError(f"actors.backend=ray needs the distributed extra (pip install -e '.[distributed]'): "
                             f"{exc}") from None
        return RayActorPool(run, model, seed_offset, backend)
    raise ValueError(f"actors.backend must be one of {BACKENDS}, got {kind!r}")
