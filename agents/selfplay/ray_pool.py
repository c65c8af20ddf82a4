"""Ray actor backend (``actors.backend=ray``): self-play on a Ray cluster.

Each :class:`SelfPlayActor` is a Ray actor (one CPU) holding ``envs_per_actor``
self-play tables (built by the pool's tables factory, e.g.
:func:`agents.dmc.tables.make_tables`) and a CPU copy of the model. The learner
side, :class:`RayActorPool`, implements the
:class:`agents.selfplay.actor_pool.ActorPool` protocol so ``train.py`` runs the very
same loop, learner and checkpoints as with the local backend:

* weights: :meth:`RayActorPool.publish` puts the state dict in the object store
  once (``ray.put``); every request for a batch carries the newest reference and
  its version, and an actor fetches the weights only when the version changed;
* samples: an actor answers a request with one :class:`SampleBatch` (at least
  ``unroll_length`` samples, as a local actor sends); the pool keeps
  :data:`REQUESTS_PER_ACTOR` requests in flight per actor so actors never wait
  for the learner's round trip, and collects answers with ``ray.wait``;
* faults: an actor that dies (node lost, process killed, ``ray.kill``) is
  detected when its answer is fetched or by :meth:`RayActorPool.restart_dead`,
  and replaced by a fresh actor with a new seed
  (:func:`agents.selfplay.actor_pool.actor_seed`). Ray's own actor restarts are off
  because they would replay the same seed. An exception raised *inside* an
  actor is a bug, not a fault, and is re-raised to stop training.

``ray.init(address=...)`` attaches to an existing cluster when ``actors.address``
is set; otherwise a local Ray instance with ``actors.num_cpus`` CPUs is started
and shut down again by :meth:`RayActorPool.close`.
"""

from __future__ import annotations

import collections
import os
import time
from typing import Any

import ray
import torch
from ray.exceptions import ObjectLostError, RayActorError

from agents.evaluation.ray_runner import start_ray
from agents.selfplay.actor_pool import TablesFactory, actor_seed
from agents.selfplay.checkpoint import new_model
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch

# One request being answered and one queued: the actor starts the next batch at
# once, and weights are at most one batch staler than with a single request.
REQUESTS_PER_ACTOR = 2
# restart_dead() scans every request in flight; train.py calls it once per batch,
# so the scan is rate-limited (deaths are also caught when answers are fetched).
DEATH_SCAN_SECONDS = 1.0
# An actor that keeps dying before its first batch is broken (e.g. its constructor
# fails on every node), not unlucky: training stops instead of restarting it forever.
MAX_DEATHS_WITHOUT_BATCH = 3


@ray.remote(num_cpus=1, max_restarts=0)
class SelfPlayActor:
    """A Ray actor: self-play tables plus a CPU copy of the model, answering requests for batches."""

    def __init__(self, run: RunConfig, seed: int, make_tables: TablesFactory):
        torch.set_num_threads(1)  # one core per actor: Ray schedules actors by CPU
        self.run = run
        self.model = new_model(run).eval()
        self.version = -1
        self.tables = make_tables(run, seed)

    def produce(self, weights: list[ray.ObjectRef], version: int, epsilon: float,
                teacher_share: float = 0.0) -> SampleBatch:
        """Play until at least ``unroll_length`` samples are finished; the weights ref is boxed in a list so
        Ray does not fetch it unless its ``version`` is new to this actor."""
        if version != self.version:
            self.model.load_state_dict(ray.get(weights[0]))
            self.version = version
        while True:
            self.tables.step(self.model, epsilon, teacher_share)
            batch = self.tables.collect(self.run.train.unroll_length)
            if batch is not None:
                return batch

    def ping(self) -> int:
        """Liveness probe: the actor's process id (tests; the benchmark reads its CPU time)."""
        return os.getpid()


class RayActorPool:
    """The :class:`~agents.selfplay.actor_pool.ActorPool` of Ray actors (``actors.backend=ray``)."""

    def __init__(self, run: RunConfig, model: torch.nn.Module, seed_offset: int, backend_cfg: dict[str, Any],
                 make_tables: TablesFactory):
        self.run = run
        self.make_tables = make_tables
        self.seed_offset = seed_offset
        self.owns_ray = start_ray(backend_cfg.get("address"), backend_cfg.get("num_cpus"))
        self.epsilon = run.train.epsilon_start
        self.teacher_share = run.train.teacher_share_at(0)
        self.version = -1
        self.weights: ray.ObjectRef | None = None
        self.publish(model)
        self.restarts = 0
        self.actors: list[Any] = []
        self.incarnation: list[int] = []
        # request ref -> (actor id, incarnation): answers of a replaced actor are ignored
        self.pending: dict[ray.ObjectRef, tuple[int, int]] = {}
        self.ready: collections.deque[SampleBatch] = collections.deque()
        self.dead: set[int] = set()
        self.deaths_without_batch: list[int] = [0] * run.train.actors
        self.last_scan = time.monotonic()
        for actor_id in range(run.train.actors):
            self.actors.append(None)
            self.incarnation.append(-1)
            self._start(actor_id)

    def _start(self, actor_id: int) -> None:
        seed = actor_seed(self.run, self.seed_offset, actor_id, self.restarts)
        if self.actors[actor_id] is not None:
            ray.kill(self.actors[actor_id], no_restart=True)  # a half-dead incarnation must not linger
        self.actors[actor_id] = SelfPlayActor.remote(self.run, seed, self.make_tables)
        self.incarnation[actor_id] += 1
        for _ in range(REQUESTS_PER_ACTOR):
            self._request(actor_id)

    def _request(self, actor_id: int) -> None:
        ref = self.actors[actor_id].produce.remote([self.weights], self.version, self.epsilon,
                                                        self.teacher_share)
        self.pending[ref] = (actor_id, self.incarnation[actor_id])

    def _receive(self, ref: ray.ObjectRef) -> None:
        """Fetch one answered request: queue its batch and ask again, or note that its actor died."""
        owner = self.pending.pop(ref, None)
        if owner is None:  # dropped with a dead actor earlier in the same round
            return
        actor_id, incarnation = owner
        if incarnation != self.incarnation[actor_id] or actor_id in self.dead:
            return
        try:
            batch = ray.get(ref)
        except RayActorError as error:
            self.dead.add(actor_id)
            self.deaths_without_batch[actor_id] += 1
            if self.deaths_without_batch[actor_id] >= MAX_DEATHS_WITHOUT_BATCH:
                raise RuntimeError(f"actor {actor_id} died {MAX_DEATHS_WITHOUT_BATCH} times in a row before "
                                   f"sending a batch; last error: {error}") from error
            for other, holder in list(self.pending.items()):
                if holder == owner:
                    del self.pending[other]
            return
        except ObjectLostError:
            # the answer was lost with its node's object store; the actor (if alive) is asked again
            self._request(actor_id)
            return
        self.deaths_without_batch[actor_id] = 0
        self.ready.append(batch)
        self._request(actor_id)

    def get(self, timeout: float) -> SampleBatch | None:
        """The next batch from any actor, or ``None`` after ``timeout`` seconds (dead actors are noted,
        and replaced by :meth:`restart_dead`)."""
        deadline = time.monotonic() + timeout
        while not self.ready:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.pending:
                return None
            refs = list(self.pending)
            # take every answer already there in one call: with many actors, one ray.wait per batch
            # over all the requests in flight would cost the learner more than the batches themselves
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            if not done:
                done, _ = ray.wait(refs, num_returns=1, timeout=remaining)
            for ref in done:
                self._receive(ref)
        return self.ready.popleft()

    def publish(self, model: torch.nn.Module) -> None:
        """Put the learner's weights in the object store once; later requests carry the new reference."""
        self.weights = ray.put({name: tensor.detach().cpu() for name, tensor in model.state_dict().items()})
        self.version += 1

    def set_epsilon(self, epsilon: float) -> None:
        """Exploration rate sent with the following requests."""
        self.epsilon = epsilon

    def set_teacher_share(self, share: float) -> None:
        """Teacher share sent with the following requests."""
        self.teacher_share = share

    def restart_dead(self) -> int:
        """Replace dead actors with fresh ones (new seeds); returns how many were replaced."""
        now = time.monotonic()
        if now - self.last_scan >= DEATH_SCAN_SECONDS and self.pending:
            self.last_scan = now
            done, _ = ray.wait(list(self.pending), num_returns=len(self.pending), timeout=0)
            for ref in done:
                self._receive(ref)
        replaced = 0
        for actor_id in sorted(self.dead):
            self.restarts += 1
            self._start(actor_id)
            replaced += 1
        self.dead.clear()
        return replaced

    def close(self) -> None:
        """Kill every actor, and shut Ray down if this pool started it."""
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
        self.pending.clear()
        self.ready.clear()
        self.weights = None
        if self.owns_ray:
            ray.shutdown()
