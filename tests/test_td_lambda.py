"""TD(lambda) targets of self-play (``train.td_lambda``): the recursion on a hand-built hand, the tables'
targets from the acting network's own values, and the settings refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

import agents.dmc.play_tables as play_tables
from agents.dmc.inference import acting_q_values
from agents.dmc.play_tables import PlayTables
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint
from agents.selfplay.config import run_config
from agents.selfplay.samples import lambda_returns
from tests.test_train import config, small_run

NETWORK = "checkpoints/dmc_play_cpu145.pt"


def test_lambda_returns_follow_each_seat_back_from_its_teams_reward():
    seats = [0, 1, 0, 1, 0, 2]
    values = [0.5, -0.2, 0.1, None, 0.3, 0.8]
    targets = lambda_returns(seats, values, (1.0, -1.0), 0.5)
    # seat 0: its last decision gets the reward 1; before it 0.5 * 0.3 + 0.5 * 1 = 0.65, then
    # 0.5 * 0.1 + 0.5 * 0.65 = 0.375. Seat 1's later decision has no value (a teacher's): -1 passes through.
    # Seat 2 (team 0) decides once: the reward.
    np.testing.assert_allclose(targets, [0.375, -1.0, 0.65, -1.0, 1.0, 1.0])
    np.testing.assert_array_equal(lambda_returns(seats, values, (1.0, -1.0), 1.0), [1, -1, 1, -1, 1, 1])
    np.testing.assert_allclose(lambda_returns(seats, values, (1.0, -1.0), 0.0), [0.1, -1.0, 0.3, -1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="td_lambda must be in"):
        lambda_returns(seats, values, (1.0, -1.0), 1.5)


def _first_hand(td_lambda: float, monkeypatch) -> tuple:
    """The samples of the shipped network's first hand at one table (fixed seed, no teacher) and what the
    targets were built from."""
    seen = []

    def recorded(seats, values, team_reward, td_lambda):
        seen.append((list(seats), list(values), team_reward))
        return lambda_returns(seats, values, team_reward, td_lambda)

    monkeypatch.setattr(play_tables, "lambda_returns", recorded)
    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    run = replace(run, train=replace(run.train, teacher="none", td_lambda=td_lambda))
    tables = PlayTables(1, 3, run)
    batch = None
    while batch is None:
        tables.step(model, 0.0, 0.0)
        batch = tables.collect(1)
    return batch, seen, model


def test_the_tables_bootstrap_from_the_acting_networks_values(monkeypatch):
    mc, none_seen, _ = _first_hand(1.0, monkeypatch)
    td, seen, model = _first_hand(0.7, monkeypatch)
    assert none_seen == [] and len(seen) == 1
    np.testing.assert_array_equal(mc.actions, td.actions)  # the targets do not change the play
    np.testing.assert_array_equal(mc.obs, td.obs)
    reward = mc.returns[0]
    assert set(mc.target.tolist()) == {reward, -reward}
    seats, values, team_reward = seen[0]
    np.testing.assert_array_equal(td.target, lambda_returns(seats, values, team_reward, 0.7))
    assert not np.allclose(td.target, mc.target)
    # the values are the network's V of each decision's position (inputs stored as float16 in the batch)
    with torch.no_grad():
        v = acting_q_values(model, torch.from_numpy(td.obs.astype(np.float32)),
                            torch.from_numpy(td.history.astype(np.float32)), torch.zeros(len(td), td.actions.shape[1]),
                            torch.arange(len(td)), torch.from_numpy(td.phase.astype(np.int64)))[1].numpy()
    assert np.std(values) > 0.05
    np.testing.assert_allclose(values, v, atol=1e-2)


def test_td_lambda_settings_are_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"train.td_lambda must be in \[0, 1\]"):
        small_run("train.td_lambda=1.2")
    with pytest.raises(ValueError, match="value_head=true"):
        small_run("train.td_lambda=0.9", "model.value_head=false")
    with pytest.raises(ValueError, match="action_mode=play"):
        run_config(config("train=smoke", "action_mode=card", "train.teacher=none", "train.td_lambda=0.9"))
    assert small_run().train.td_lambda == 1.0
