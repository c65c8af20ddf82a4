"""Local actor backend (``actors.backend=local``): actor processes on this machine.

:class:`LocalActorPool` starts ``train.actors`` processes (``torch.multiprocessing``
spawn); each runs :func:`actor_process` on the tables its factory builds, reads
fresh weights from the learner's model in shared memory and sends samples
through a pipe of its own.

A killed actor must cost its own work only, so it shares no lock with the
learner and no channel with the other actors: a process killed while holding
a lock (a shared queue's write lock, a weights lock) would stall everyone
else forever, and one killed in the middle of a message would leave a shared
pipe torn. So:

* samples: one one-way pipe per actor, whose writing end only that actor
  holds: when it dies, even mid-message, the learner reads end of file on that
  pipe alone and drops it. An actor's sending thread keeps up to
  ``queue_size / actors`` batches waiting, so the actor plays on while the
  learner trains;
* weights: shared memory guarded by a version counter instead of a lock (odd
  while the learner writes, even when whole); an actor uses a copy only if the
  version did not move while it copied, else it copies again at its next step;
* epsilon, the teacher share and the stop flag are lock-free shared values.

Lifetimes: an actor leaves Ctrl-C, SIGTERM and SIGHUP to the learner, which
stops the actors with the stop flag (past :data:`STOP_GRACE_SECONDS`, SIGKILL);
an actor whose learner died without stopping it (``kill -9``) exits by itself
(:func:`agents.interrupts.exit_with_parent`). An actor that dies is replaced by
:meth:`LocalActorPool.restart_dead`, with a new seed.
"""

from __future__ import annotations

import collections
import copy
import pickle
import queue
import threading
import time
from multiprocessing.connection import Connection, wait

import torch
import torch.multiprocessing as mp

from agents.interrupts import exit_with_parent, ignore_stop_signals, sigint_ignored_while_starting
from agents.selfplay.actor_pool import TablesFactory, actor_seed
from agents.selfplay.checkpoint import new_model
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch

# How long stopping waits for the actors to leave their loop before killing them.
STOP_GRACE_SECONDS = 10.0
# What reading a pipe whose actor died mid-message can raise.
TORN = (EOFError, OSError, pickle.UnpicklingError, ValueError, AttributeError, ImportError, IndexError, TypeError)


def _send_batches(outbox: queue.Queue, sender: Connection, broken: threading.Event) -> None:
    """Actor thread: send the batches of ``outbox`` down the pipe until it breaks (the learner stopped reading)."""
    while True:
        batch = outbox.get()
        try:
            sender.send(batch)
        except OSError:  # BrokenPipeError: the learner closed its end
            broken.set()
            return


def actor_process(actor_id: int, run: RunConfig, make_tables: TablesFactory, shared_model: torch.nn.Module,
                  weights_version, epsilon_value, teacher_share_value, sender: Connection, stop_flag,
                  seed: int, outbox_size: int) -> None:
    """Body of an actor process: play, refresh weights, ship samples until told to stop.

    The stop signals are the learner's to handle (it sets ``stop_flag``), so the actor ignores
    them; it exits by itself when the learner is gone.
    """
    exit_with_parent()
    ignore_stop_signals()
    torch.set_num_threads(1)
    local_model = copy.deepcopy(shared_model).eval()
    version = -1
    tables = make_tables(run, seed)
    outbox: queue.Queue = queue.Queue(maxsize=outbox_size)
    broken = threading.Event()
    threading.Thread(target=_send_batches, args=(outbox, sender, broken), daemon=True, name="send").start()
    while not stop_flag.value and not broken.is_set():
        seen = weights_version.value
        if seen != version and seen % 2 == 0:  # odd: the learner is writing them
            fresh = {name: tensor.clone() for name, tensor in shared_model.state_dict().items()}
            if weights_version.value == seen:  # else they moved while copied: copy again at the next step
                local_model.load_state_dict(fresh)
                version = seen
        tables.step(local_model, epsilon_value.value, teacher_share_value.value)
        batch = tables.collect(run.train.unroll_length)
        while batch is not None and not stop_flag.value and not broken.is_set():
            try:
                outbox.put(batch, timeout=0.5)
                batch = None
            except queue.Full:
                continue


class LocalActorPool:
    """Actor processes on this machine sharing weights through shared memory, each with its own sample pipe."""

    def __init__(self, run: RunConfig, model: torch.nn.Module, seed_offset: int, make_tables: TablesFactory):
        self.run = run
        self.make_tables = make_tables
        self.context = mp.get_context("spawn")
        self.shared_model = new_model(run)
        self.shared_model.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
        self.shared_model.share_memory()
        # lock-free: an actor killed at any instant holds nothing the learner waits for
        self.version = self.context.RawValue("l", 0)
        self.epsilon = self.context.RawValue("d", run.train.epsilon_start)
        self.teacher_share = self.context.RawValue("d", run.train.teacher_share_at(0))
        self.stop = self.context.RawValue("b", 0)
        self.outbox_size = max(1, run.train.queue_size // run.train.actors)
        self.seed_offset = seed_offset
        self.restarts = 0
        self.ready: collections.deque[SampleBatch] = collections.deque()
        self.receivers: list[Connection | None] = [None] * run.train.actors
        self.processes = [self._start(i) for i in range(run.train.actors)]

    def _start(self, actor_id: int):
        seed = actor_seed(self.run, self.seed_offset, actor_id, self.restarts)
        receiver, sender = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=actor_process, daemon=True, name=f"actor-{actor_id}",
            args=(actor_id, self.run, self.make_tables, self.shared_model, self.version, self.epsilon,
                  self.teacher_share, sender, self.stop, seed, self.outbox_size))
        # Born ignoring Ctrl-C: the learner catches it and stops the actors (agents.interrupts).
        with sigint_ignored_while_starting():
            process.start()
        sender.close()  # the actor holds the only writing end: its death is this pipe's end of file
        self.receivers[actor_id] = receiver
        return process

    def _drop(self, actor_id: int) -> None:
        """Forget an actor's pipe (its actor died or is torn); :meth:`restart_dead` replaces the actor."""
        receiver = self.receivers[actor_id]
        if receiver is not None:
            receiver.close()
        self.receivers[actor_id] = None
        process = self.processes[actor_id]
        if process.is_alive():  # a pipe that broke under a live actor: that actor cannot send any more
            process.kill()

    def get(self, timeout: float) -> SampleBatch | None:
        """The next batch from any actor, or ``None`` after ``timeout`` seconds."""
        if not self.ready:
            open_pipes = {r: i for i, r in enumerate(self.receivers) if r is not None}
            for receiver in wait(list(open_pipes), timeout) if open_pipes else []:
                try:
                    self.ready.append(receiver.recv())
                except TORN:  # its actor died, possibly in the middle of a batch: that batch is lost
                    self._drop(open_pipes[receiver])
        return self.ready.popleft() if self.ready else None

    def publish(self, model: torch.nn.Module) -> None:
        """Copy the learner's weights into shared memory (the version is odd while they are written)."""
        self.version.value += 1
        shared = self.shared_model.state_dict()
        for name, tensor in model.state_dict().items():
            shared[name].copy_(tensor.detach().cpu())
        self.version.value += 1

    def set_epsilon(self, epsilon: float) -> None:
        """Exploration rate the actors read at their next step."""
        self.epsilon.value = epsilon

    def set_teacher_share(self, share: float) -> None:
        """Teacher share the actors read at their next step."""
        self.teacher_share.value = share

    def restart_dead(self) -> int:
        """Replace actors that died (new seeds); returns how many."""
        restarted = 0
        for i, process in enumerate(self.processes):
            if self.stop.value:
                break
            if not process.is_alive() or self.receivers[i] is None:
                self._drop(i)
                process.join(timeout=5)
                self.restarts += 1
                self.processes[i] = self._start(i)
                restarted += 1
        return restarted

    def close(self) -> None:
        """Stop every actor: the stop flag, the pipes closed (a sending actor stops at once), then SIGKILL."""
        self.stop.value = 1
        for i in range(len(self.receivers)):
            if self.receivers[i] is not None:
                self.receivers[i].close()
                self.receivers[i] = None
        self.ready.clear()
        deadline = time.time() + STOP_GRACE_SECONDS
        while time.time() < deadline and any(p.is_alive() for p in self.processes):
            time.sleep(0.05)
        for process in self.processes:
            if process.is_alive():
                process.kill()  # the actors ignore SIGTERM (agents.interrupts)
            process.join(timeout=5)
