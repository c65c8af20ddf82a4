"""Self-play tables of Deep Monte Carlo: many tables in lockstep, one batched forward pass per step.

This module holds the ``card`` action mode's tables and :func:`make_tables`,
which picks the tables of a run's action mode; whole plays are in
:mod:`agents.dmc.play_tables`. The actor processes that drive tables are the
learner-independent :mod:`agents.selfplay` machinery.

:class:`SelfPlayTables` runs ``M`` environments; at each step every table has
exactly one seat to act, so all their candidate actions are scored in a
single forward pass (DouZero does one forward per decision per actor, which
caps its throughput). Decisions are epsilon-greedy on ``Q``. When a hand ends,
every decision of that hand becomes a training sample whose target is the
final reward of the deciding seat's team (Monte Carlo).

Every rule set's table steps the same way over its decisions' masks (a 刮风
table: fixes, 回牌, the burial, leads and follows, card by card), with the rows
of its learner (:func:`agents.dmc.learner_rules.card_step_table`).
"""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.dmc.inference import acting_q_values
from agents.dmc.learner_rules import card_step_table, decision_phase
from agents.dmc.play_tables import PlayTables
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch, collect_finished, hand_samples
from env.core.ruleset import RuleSet
from env.shengji_env import AGENTS, raw_env
from env.standard.variants import RuleOptions


class SelfPlayTables:
    """``M`` self-play tables stepped in lockstep with batched Q evaluation."""

    def __init__(self, num_tables: int, seed: int, rules: RuleSet | RuleOptions, layout: str, history_len: int,
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
            # Laid out as the seat's observation: rows read what the rule set's encoder reads.
            source = env.ruleset.encoding_source(env.hand, AGENTS.index(env.agent_selection), env.decision)
            table = card_step_table(source, self.layout)
            observations.append(observation)
            legal_actions.append(legal)
            feature_rows.append(table[legal])
            phases.append(decision_phase(env.ruleset, env.hand.phase))
        obs = torch.from_numpy(np.stack([o["observation"] for o in observations]))
        history = torch.from_numpy(np.stack([o["history"] for o in observations]))
        counts = [len(legal) for legal in legal_actions]
        index = torch.repeat_interleave(torch.arange(len(self.envs)), torch.tensor(counts))
        actions = torch.from_numpy(np.concatenate(feature_rows))
        q = acting_q_values(model, obs, history, actions, index, torch.tensor(phases))[0].numpy()
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
        self._finished.append(hand_samples(trajectory, team_reward, env.hand))
        self._trajectories[i] = []
        self._reset(env)

    def collect(self, min_samples: int) -> SampleBatch | None:
        """Finished samples, once at least ``min_samples`` are ready (frames counted since last collect)."""
        batch = collect_finished(self._finished, self.frames, min_samples)
        if batch is not None:
            self.frames = 0
            self._finished = []
        return batch


def make_tables(run: RunConfig, seed: int) -> SelfPlayTables | PlayTables:
    """The self-play tables of a run's action mode: card steps, or whole plays with a teacher.

    This is the tables factory that :func:`agents.selfplay.backends.make_actor_pool` gives its actors.
    """
    if run.action_mode == "play":
        return PlayTables(run.train.envs_per_actor, seed, run)
    return SelfPlayTables(run.train.envs_per_actor, seed, run.rules, run.layout, run.history_len, run.reward,
                          run.start)
