"""The single-agent Gymnasium wrapper."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.random_agent import RandomAgent
from env.gym_env import ShengjiGymEnv


def make(seat: int = 1, **kwargs) -> ShengjiGymEnv:
    return ShengjiGymEnv([RandomAgent(i) for i in range(3)], seat=seat, **kwargs)


def test_observations_fit_the_space_and_seeding_is_deterministic():
    # gymnasium's check_env steps unmasked random actions, which this env refuses by design.
    runs = []
    for _ in range(2):
        environment = make(seat=2)
        obs, info = environment.reset(seed=42)
        assert environment.observation_space.contains(obs)
        rng = np.random.default_rng(0)
        trace = []
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = environment.step(action)
            assert environment.observation_space.contains(obs)
            trace.append((action, reward))
            done = terminated or truncated
        runs.append(trace)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("seat", [0, 3])
def test_episode_reward_is_the_seats_team_level_change(seat):
    environment = make(seat)
    rng = np.random.default_rng(seat)
    for episode in range(4):
        _obs, info = environment.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            assert environment.aec.agent_selection == environment.agent
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, reward, terminated, truncated, info = environment.step(action)
            total += reward
            done = terminated or truncated
        hand = environment.aec.hand
        dealers_won = hand.result.winner == "dealers"
        on_dealer_team = (seat - hand.dealer) % 2 == 0
        assert (total > 0) == (dealers_won == on_dealer_team)
        assert total != 0


def test_needs_three_opponents():
    with pytest.raises(ValueError, match="three"):
        ShengjiGymEnv([RandomAgent(0)], seat=0)


def test_gymnasium_make_builds_the_single_agent_view():
    import gymnasium

    import env

    made = gymnasium.make(env.GYM_ID, opponents=[RandomAgent(1), RandomAgent(2), RandomAgent(3)], seat=1)
    observation, info = made.reset(seed=4)
    assert observation["observation"].shape == made.observation_space["observation"].shape
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, reward, terminated, truncated, info = made.step(action)
    assert terminated and reward != 0
