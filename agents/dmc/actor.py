"""Self-play actors: many tables in lockstep, one batched forward pass per step.

This module holds the ``card`` action mode's tables and what both modes share
(samples, the actor process); whole plays are in :mod:`agents.dmc.play_tables`.

:class:`SelfPlayTables` runs ``M`` environments; at each step every table has
exactly one seat to act, so all their candidate actions are scored in a
single forward pass (DouZero does one forward per decision per actor, which
caps its throughput). Decisions are epsilon-greedy on ``Q``. When a hand ends,
every decision of that hand becomes a training sample whose target is the
final reward of the deciding seat's team (Monte Carlo).

:func:`actor_process` wraps the tables in a CPU process that reads fresh
weights from the learner's shared model and sends samples through a queue.
"""

from __future__ import annotations

import queue as queue_module
import random
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from agents.dmc.features import action_table, decision_phase
from agents.interrupts import ignore_sigint
from agents.models import q_values
from env.encoding import bidding_context
from env.shengji_env import AGENTS, raw_env
from env.variants import RuleOptions


@dataclass
class SampleBatch:
    """Training samples (one per decision) and the episode statistics that produced them.

    ``obs``, ``history``, ``actions`` (the chosen action's feature row), ``phase``
    and ``target`` (the deciding team's final reward) have one row per decision.
    Decisions taken by a rule-bot teacher (``action_mode=play``) also carry all
    their candidates for the imitation loss: ``cand_count[i]`` rows of
    ``cand_rows`` belong to decision ``i`` (0 for the learner's own decisions)
    and ``cand_positive`` marks the teacher's choices among them.
    """

    obs: np.ndarray
    history: np.ndarray
    actions: np.ndarray
    phase: np.ndarray
    target: np.ndarray
    cand_count: np.ndarray | None = None
    cand_rows: np.ndarray | None = None
    cand_positive: np.ndarray | None = None
    frames: int = 0
    episodes: int = 0
    returns: list[float] = field(default_factory=list)
    throws: tuple[int, int] = (0, 0)
    spreads: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.cand_count is None:
            self.cand_count = np.zeros(len(self.target), dtype=np.int32)
            self.cand_rows = np.zeros((0, self.actions.shape[1]), dtype=self.actions.dtype)
            self.cand_positive = np.zeros(0, dtype=bool)

    def __len__(self) -> int:
        return len(self.target)

    @property
    def teacher_decisions(self) -> int:
        """How many of the decisions carry the teacher's candidates."""
        return int(np.count_nonzero(self.cand_count))

    def split(self, n: int) -> tuple[SampleBatch, SampleBatch]:
        """The first ``n`` decisions and the rest (statistics stay with neither)."""
        rows = int(self.cand_count[:n].sum())

        def part(a: slice, b: slice) -> SampleBatch:
            return SampleBatch(self.obs[a], self.history[a], self.actions[a], self.phase[a], self.target[a],
                               self.cand_count[a], self.cand_rows[b], self.cand_positive[b])

        return part(slice(None, n), slice(None, rows)), part(slice(n, None), slice(rows, None))

    @staticmethod
    def concatenate(batches: list[SampleBatch]) -> SampleBatch:
        """One batch holding the samples and statistics of several."""
        def cat(name: str) -> np.ndarray:
            return np.concatenate([getattr(b, name) for b in batches])

        return SampleBatch(
            obs=cat("obs"), history=cat("history"), actions=cat("actions"), phase=cat("phase"), target=cat("target"),
            cand_count=cat("cand_count"), cand_rows=cat("cand_rows"), cand_positive=cat("cand_positive"),
            frames=sum(b.frames for b in batches), episodes=sum(b.episodes for b in batches),
            returns=[r for b in batches for r in b.returns],
            throws=(sum(b.throws[0] for b in batches), sum(b.throws[1] for b in batches)),
            spreads=[x for b in batches for x in b.spreads])


class SelfPlayTables:
    """``M`` self-play tables stepped in lockstep with batched Q evaluation."""

    def __init__(self, num_tables: int, seed: int, rules: RuleOptions, layout: str, history_len: int,
                 reward: str, start: str = "random"):
        self.layout = layout
        self.envs = [raw_env(rules=rules, layout=layout, history_len=history_len, reward=reward, start=start)
                     for _ in range(num_tables)]
        self.rng = random.Random(seed)
        self._seed_base = seed
        self._episodes_started = 0
        self._trajectories: list[list[tuple]] = [[] for _ in range(num_tables)]
        self._finished: list[SampleBatch] = []
        self.frames = 0
        for env in self.envs:
            self._reset(env)

    def _reset(self, env) -> None:
        env.reset(seed=self._seed_base * 1_000_003 + self._episodes_started)
        self._episodes_started += 1

    @torch.no_grad()
    def step(self, model: torch.nn.Module, epsilon: float, teacher_share: float = 0.0) -> None:
        """Every table takes one decision (one environment step); the card mode has no teacher."""
        observations, legal_actions, feature_rows, phases = [], [], [], []
        for env in self.envs:
            observation = env.observe(env.agent_selection)
            legal = np.flatnonzero(observation["action_mask"])
            table = action_table(bidding_context(env.hand), self.layout)
            observations.append(observation)
            legal_actions.append(legal)
            feature_rows.append(table[legal])
            phases.append(decision_phase(env.hand.phase))
        obs = torch.from_numpy(np.stack([o["observation"] for o in observations]))
        history = torch.from_numpy(np.stack([o["history"] for o in observations]))
        counts = [len(legal) for legal in legal_actions]
        index = torch.repeat_interleave(torch.arange(len(self.envs)), torch.tensor(counts))
        actions = torch.from_numpy(np.concatenate(feature_rows))
        q = q_values(model, obs, history, actions, index, torch.tensor(phases)).numpy()
        offset = 0
        for i, env in enumerate(self.envs):
            legal = legal_actions[i]
            scores = q[offset:offset + counts[i]]
            offset += counts[i]
            choice = self.rng.randrange(len(legal)) if self.rng.random() < epsilon else int(np.argmax(scores))
            seat = AGENTS.index(env.agent_selection)
            self._trajectories[i].append((observations[i]["observation"], observations[i]["history"],
                                          feature_rows[i][choice], phases[i], seat))
            env.step(int(legal[choice]))
            self.frames += 1
            if any(env.terminations.values()):
                self._finish_episode(i, env)

    def _finish_episode(self, i: int, env) -> None:
        trajectory = self._trajectories[i]
        team_reward = (env.rewards["player_0"], env.rewards["player_1"])
        hand = env.hand
        self._finished.append(SampleBatch(
            obs=np.stack([t[0] for t in trajectory]).astype(np.float16),
            history=np.stack([t[1] for t in trajectory]).astype(np.float16),
            actions=np.stack([t[2] for t in trajectory]).astype(np.float16),
            phase=np.array([t[3] for t in trajectory], dtype=np.int8),
            target=np.array([team_reward[t[4] % 2] for t in trajectory], dtype=np.float32),
            episodes=1, returns=[team_reward[0]],
            throws=(sum(hand.throws_attempted), sum(hand.throws_failed))))
        self._trajectories[i] = []
        self._reset(env)

    def collect(self, min_samples: int) -> SampleBatch | None:
        """Finished samples, once at least ``min_samples`` are ready (frames counted since last collect)."""
        if sum(len(b) for b in self._finished) < min_samples:
            return None
        batch = SampleBatch.concatenate(self._finished)
        batch.frames = self.frames
        self.frames = 0
        self._finished = []
        return batch


def make_tables(run, seed: int):
    """The self-play tables of a run's action mode: card steps, or whole plays with a teacher."""
    if run.action_mode == "play":
        from agents.dmc.play_tables import PlayTables

        return PlayTables(run.train.envs_per_actor, seed, run)
    return SelfPlayTables(run.train.envs_per_actor, seed, run.rules, run.layout, run.history_len, run.reward,
                          run.start)


def actor_process(actor_id: int, run, shared_model: torch.nn.Module, weights_lock, weights_version,
                  epsilon_value, teacher_share_value, sample_queue, stop_event, seed: int) -> None:
    """Body of an actor process: play, refresh weights, ship samples until told to stop.

    Ctrl-C is the learner's to handle (it sets ``stop_event``), so the actor ignores it.
    """
    ignore_sigint()
    torch.set_num_threads(1)
    local_model = _clone(shared_model)
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
            except queue_module.Full:
                continue
    time.sleep(0.1)


def _clone(model: torch.nn.Module) -> torch.nn.Module:
    import copy

    clone = copy.deepcopy(model)
    clone.eval()
    return clone
