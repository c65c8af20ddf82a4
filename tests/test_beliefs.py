"""A belief about the unseen cards grafted onto a Q-network (agents/dmc/beliefs.py, ``model.beliefs``): the
graft computes what its source computed, the acting pass gives the dense network's numbers with the belief
read, the belief stays frozen while the rest learns, and what cannot be grafted is refused with the reason."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.bots.expert import ExpertAgent
from agents.distill.labels import label_header, read_labels
from agents.distill.learn import Batch
from agents.dmc.agent import DMCAgent
from agents.dmc.beliefs import graft_beliefs, main
from agents.dmc.inference import acting_q_values
from agents.dmc.learner import make_optimizer
from agents.dmc.models import BELIEF_PLACES, ModelConfig, belief_odds, q_and_values
from agents.runner import play_hand
from agents.search.locations import SHIPPED, load_model
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, model_from_checkpoint, save_checkpoint
from env.standard.hand import Hand, Phase
from tests.test_distill import _foreign_checkpoint
from tests.test_train import run_train

ROOT = Path(__file__).resolve().parent.parent
NETWORK = ROOT / "checkpoints" / "dmc_play_distill3.pt"
LOCATIONS = ROOT / SHIPPED
LABELS = ROOT / "data" / "labels" / "d3N_71"


@pytest.fixture(scope="module")
def source():
    return load_checkpoint(NETWORK)


@pytest.fixture(scope="module")
def grafted(source):
    return graft_beliefs(source, LOCATIONS, scale=4.0)


@pytest.fixture(scope="module")
def batch(source):
    run = model_from_checkpoint(source)[1]
    labels = read_labels([LABELS], label_header(run, {}))
    return Batch(labels.select(np.arange(120)))


def _scores(model, batch, acting: bool):
    with torch.no_grad():
        if acting:
            return acting_q_values(model, batch.obs, batch.history, batch.rows, batch.owner, batch.phase)
        return q_and_values(model, batch.obs, batch.history, batch.rows, batch.owner, batch.phase)


def test_the_graft_computes_what_its_source_computed(source, grafted, batch):
    before, _ = model_from_checkpoint(source)
    after, run = model_from_checkpoint(grafted)
    slots = load_model(LOCATIONS).slots
    assert run.model.beliefs == slots and run.model.belief_scale == 4.0
    assert after.obs_encoder[0].in_features == before.obs_encoder[0].in_features + slots * BELIEF_PLACES
    for acting in (False, True):
        q0, v0 = _scores(before, batch, acting)
        q1, v1 = _scores(after, batch, acting)
        assert torch.equal(q0, q1) and torch.equal(v0, v1)


def test_the_belief_is_the_location_models_odds(grafted, batch):
    model, _ = model_from_checkpoint(grafted)
    locations = load_model(LOCATIONS)
    with torch.no_grad():
        odds = torch.softmax(locations(batch.obs), dim=-1).flatten(1)
        read = model.observe(batch.obs)
    assert torch.equal(read[:, :model.obs_size], batch.obs)
    assert torch.allclose(read[:, model.obs_size:], 4.0 * odds, atol=1e-6)


def test_the_acting_pass_reads_the_belief_as_the_dense_network_does(grafted, batch):
    model, _ = model_from_checkpoint(grafted)
    with torch.no_grad():
        model.obs_encoder[0].weight[:, model.obs_size:].normal_(0.0, 0.05, generator=torch.Generator().manual_seed(0))
    q_dense, v_dense = _scores(model, batch, acting=False)
    q_acting, v_acting = _scores(model, batch, acting=True)
    assert torch.allclose(q_dense, q_acting, atol=1e-4) and torch.allclose(v_dense, v_acting, atol=1e-4)
    unread = model_from_checkpoint(grafted)[0]  # the same network with the belief's columns at zero
    assert not torch.allclose(q_dense, _scores(unread, batch, acting=False)[0], atol=1e-3)


@pytest.mark.parametrize("optimizer", ["adam", "rmsprop"])
def test_learning_moves_the_network_and_leaves_the_belief_frozen(grafted, batch, optimizer):
    model, run = model_from_checkpoint(grafted)
    run = replace(run, train=replace(run.train, optimizer=optimizer, learning_rate=1e-3))
    model.train()
    belief_before = [p.clone() for p in model.beliefs.parameters()]
    columns_before = model.obs_encoder[0].weight[:, model.obs_size:].clone()
    optimizer = make_optimizer(model, run.train)  # every parameter, as the learners hand them over
    for _ in range(3):
        q, value = batch.forward(model)
        loss = (q - batch.values).pow(2).mean() + (value - batch.ret).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), run.train.max_grad_norm)
        optimizer.step()
    assert all(torch.equal(a, b) for a, b in zip(belief_before, model.beliefs.parameters(), strict=True))
    assert not any(p.requires_grad for p in model.beliefs.parameters())
    assert not torch.equal(columns_before, model.obs_encoder[0].weight[:, model.obs_size:])


def test_the_command_writes_a_checkpoint_that_plays(tmp_path, capsys):
    out = tmp_path / "grafted.pt"
    assert main([str(NETWORK), str(LOCATIONS), str(out), "--scale", "2"]) == 0
    assert "card slots" in capsys.readouterr().out
    agent = DMCAgent.from_checkpoint(out)
    assert agent.run.model.beliefs and agent.run.model.belief_scale == 2.0
    hand = play_hand(Hand.new(5, dealer=1), [agent, ExpertAgent(), agent, ExpertAgent()])
    assert hand.phase == Phase.DONE and hand.result is not None


def test_what_cannot_be_grafted_is_refused_with_the_reason(tmp_path, grafted):
    with pytest.raises(CheckpointError, match="reads a belief already"):
        graft_beliefs(grafted, LOCATIONS)
    three = load_checkpoint(_foreign_checkpoint(tmp_path / "three.pt", "rules.decks=3", "action_mode=play"))
    with pytest.raises(CheckpointError, match="decks"):
        graft_beliefs(three, LOCATIONS)
    raw = load_checkpoint(_foreign_checkpoint(tmp_path / "raw.pt", "layout=raw", "action_mode=play"))
    with pytest.raises(CheckpointError, match="layout"):
        graft_beliefs(raw, LOCATIONS)
    phases = load_checkpoint(_foreign_checkpoint(tmp_path / "phases.pt", "model.per_phase=true", "action_mode=play"))
    with pytest.raises(CheckpointError, match="per_phase"):
        graft_beliefs(phases, LOCATIONS)
    with pytest.raises(CheckpointError, match="no location model"):
        graft_beliefs(load_checkpoint(NETWORK), tmp_path / "missing.pt")
    assert main([str(NETWORK), str(tmp_path / "missing.pt"), str(tmp_path / "out.pt")]) == 2
    assert not (tmp_path / "out.pt").exists()


@pytest.mark.parametrize(("field", "value"), [("beliefs", -1), ("belief_hidden", 0), ("belief_scale", 0.0)])
def test_bad_belief_settings_are_refused(field, value):
    sizes = {"history": "lstm", "obs_hidden": (8,), "history_hidden": 4, "transformer_layers": 1,
             "transformer_heads": 1, "head_hidden": (4,), "per_phase": False}
    with pytest.raises(ValueError, match=field):
        ModelConfig(**sizes, **{field: value})
    with pytest.raises(ValueError, match="per_phase"):
        ModelConfig(**{**sizes, "per_phase": True}, beliefs=3)


def test_the_odds_of_no_decisions_are_an_empty_batch():
    assert belief_odds(torch.zeros(0, 12)).shape == (0, 12)
    odds = belief_odds(torch.randn(2, 12))
    assert torch.allclose(odds.view(2, 3, BELIEF_PLACES).sum(dim=-1), torch.ones(2, 3))


def test_self_play_continues_a_grafted_checkpoint_and_keeps_its_belief(tmp_path):
    start = tmp_path / "start.pt"
    assert main([str(_foreign_checkpoint(tmp_path / "smoke.pt", "action_mode=play")), str(LOCATIONS), str(start),
                 "--scale", "20"]) == 0
    slots = load_checkpoint(start)["config"]["model"]["beliefs"]
    refused = run_train(tmp_path / "refused", "resume=true", f"resume_from={start}", "train.total_frames=600",
                        "train.final_eval_deals=0")
    assert refused.returncode != 0 and "beliefs" in refused.stderr + refused.stdout
    fresh = run_train(tmp_path / "fresh", "action_mode=play", "train.total_frames=600", "train.final_eval_deals=0",
                      f"model.beliefs={slots}")
    assert fresh.returncode != 0 and "untrained" in fresh.stderr + fresh.stdout
    assert not (tmp_path / "fresh" / "checkpoints").exists()
    result = run_train(tmp_path / "run", "resume=true", f"resume_from={start}", "train.total_frames=600",
                       "train.final_eval_deals=0", f"model.beliefs={slots}", "model.belief_scale=20")
    assert result.returncode == 0, result.stderr[-3000:]
    before, after = load_checkpoint(start)["model"], load_checkpoint(tmp_path / "run" / "checkpoints" / "latest.pt")
    assert after["counters"]["learner_steps"] > 0
    for name, value in before.items():
        if name.startswith("beliefs."):
            assert torch.equal(value, after["model"][name]), name
    assert not torch.equal(before["obs_encoder.0.weight"], after["model"]["obs_encoder.0.weight"])


def test_a_grafted_checkpoint_round_trips(tmp_path, grafted, batch):
    model, _ = model_from_checkpoint(grafted)
    path = save_checkpoint(tmp_path / "g.pt", model=model, optimizer=None, config=grafted["config"],
                           counters=grafted["counters"])
    again, _ = model_from_checkpoint(load_checkpoint(path))
    assert torch.equal(_scores(model, batch, False)[0], _scores(again, batch, False)[0])
