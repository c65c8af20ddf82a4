"""Local actor backend (``actors.backend=local``): actor processes on this machine.

:class:`LocalActorPool` starts ``train.actors`` processes (``torch.multiprocessing``
spawn); each runs :func:`actor_process` on the tables its factory builds, reads
fresh weights from the learner's model in shared memory and sends samples
through a queue.

Lifetimes: an actor leaves Ctrl-C, SIGTERM and SIGHUP to the learner, which
stops the actors by its stop event (past :data:`STOP_GRACE_SECONDS`, SIGKILL);
an actor whose learner died without stopping it (``kill -9``) exits by itself
(:func:`agents.interrupts.exit_with_parent`). An actor that dies is replaced by
:meth:`LocalActorPool.restart_dead`, with a new seed.
"""

from __future__ import annotations

import copy
import queue
import time

import torch
import torch.multiprocessing as mp

from agents.interrupts import exit_with_parent, ignore_stop_signals, sigint_ignored_while_starting
from agents.selfplay.actor_pool import TablesFactory, actor_seed
from agents.selfplay.checkpoint import new_model
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch

# How long stopping waits for the actors to leave their loop before killing them.
STOP_GRACE_SECONDS = 10.0


def actor_process(actor_id: int, run: RunConfig, make_tables: TablesFactory, shared_model: torch.nn.Module,
                  weights_lock, weights_version, epsilon_value, teacher_share_value, sample_queue, stop_event,
                  seed: int) -> None:
    """Body of an actor process: play, refresh weights, ship samples until told to stop.

    The stop signals are the learner's to handle (it sets ``stop_event``), so the actor ignores
    them; it exits by itself when the learner is gone.
    """
    exit_with_parent()
    ignore_stop_signals()
    torch.set_num_threads(1)
    local_model = copy.deepcopy(shared_model).eval()
    version = -1
    tables = make_tables(run, seed)
    while not stop_event.is_set():
        if weights_version.value != version:
            with weights_lock:
                version = weights_version.value
                local_model.load_state_dict(shared_model.state_dict())
        tables.step(local_model, epsilon_value.value, teacher_share_value.value)
        batch = tables.collect(run.train.unroll_length)
        while batch is not None and not stop_event.is_set():
            try:
                sample_queue.put(batch, timeout=0.5)
                batch = None
            except queue.Full:
                continue
    time.sleep(0.1)


class LocalActorPool:
    """Actor processes on this machine sharing weights through shared memory."""

    def __init__(self, run: RunConfig, model: torch.nn.Module, seed_offset: int, make_tables: TablesFactory):
        self.run = run
        self.make_tables = make_tables
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
        seed = actor_seed(self.run, self.seed_offset, actor_id, self.restarts)
        process = self.context.Process(
            target=actor_process, daemon=True, name=f"actor-{actor_id}",
            args=(actor_id, self.run, self.make_tables, self.shared_model, self.lock, self.version, self.epsilon,
                  self.teacher_share, self.samples, self.stop, seed))
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
        deadline = time.time() + STOP_GRACE_SECONDS
        while time.time() < deadline and any(p.is_alive() for p in self.processes):
            try:
                self.samples.get(timeout=0.1)  # unblock actors waiting on a full queue
            except queue.Empty:
                continue
            except Exception:
                time.sleep(0.1)
        for process in self.processes:
            if process.is_alive():
                process.kill()  # the actors ignore SIGTERM (agents.interrupts)
            process.join(timeout=5)
