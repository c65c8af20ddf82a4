"""A plain Gymnasium single-agent view of Shengji: one seat learns, three given policies play.

The other seats' policies are any objects with ``act(view) -> decision`` (every
:class:`agents.base.Agent` qualifies): they think in whole plays and the
environment applies them card by card. Observations are the AEC
environment's dict (``observation``, ``action_mask``, ``history``); ``info``
carries the ``action_mask`` too. The reward is the learning seat's team reward
at the end of the episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium

from env.shengji_env import AGENTS, raw_env


class WholePlayPolicy(Protocol):
    """Anything that decides from a :class:`~env.standard.view.PlayerView` (bots, checkpoints, humans)."""

    def act(self, view: Any) -> Any: ...


class ShengjiGymEnv(gymnasium.Env):
    """Single-agent Gymnasium environment over ``shengji_v0``.

    Args:
        opponents: three policies, for the seats after ``seat`` in order (next,
            partner, previous).
        seat: the learning seat (0..3).
        **env_kwargs: passed to :class:`env.shengji_env.raw_env` (rules, reward, deal, ...).
    """

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, opponents: Sequence[WholePlayPolicy], seat: int = 0, **env_kwargs: Any):
        if len(opponents) != 3:
            raise ValueError(f"need three opponent policies, got {len(opponents)}")
        if seat not in range(4):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        self.aec = raw_env(**env_kwargs)
        self.seat = seat
        self.agent = AGENTS[seat]
        self.policies = {AGENTS[(seat + i) % 4]: opponents[i - 1] for i in range(1, 4)}
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = env_kwargs.get("render_mode")

    def _run_others(self) -> None:
        aec = self.aec
        while aec.agents and not aec.terminations[self.agent] and not aec.truncations[self.agent] \
                and aec.agent_selection != self.agent:
            other = aec.agent_selection
            aec.apply_decision(self.policies[other].act(aec.view(other)))

    def _observation(self) -> tuple[dict, dict]:
        obs = self.aec.observe(self.agent)
        return obs, {"action_mask": obs["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        self._run_others()
        return self._observation()

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        aec = self.aec
        aec.step(action)
        self._run_others()
        # Everything credited to the seat since it acted (the AEC env zeroes it on each own step).
        reward = aec._cumulative_rewards[self.agent]
        obs, info = self._observation()
        return obs, float(reward), bool(aec.terminations[self.agent]), bool(aec.truncations[self.agent]), info

    def render(self) -> str | None:
        return self.aec.render()
