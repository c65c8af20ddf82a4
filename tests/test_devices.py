"""Where networks run: the ``device`` settings of training, the distillation learner, its labeller and a
checkpoint agent (``auto``: CUDA when present). None of these tests needs a GPU: on a machine without one
they check that asking for it is refused with the setting named and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from agents.distill.label import run_labelling
from agents.distill.learn import check_learn, learn, learner_device
from agents.dmc.agent import DMCAgent
from agents.selfplay.checkpoint import load_checkpoint
from agents.selfplay.config import resolve_device
from env.standard.hand import Hand
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_distill import NETWORK, _config

HAS_CUDA = torch.cuda.is_available()


def test_auto_is_cuda_exactly_when_this_machine_has_it():
    assert resolve_device("auto").type == ("cuda" if HAS_CUDA else "cpu")
    assert resolve_device("cpu") == torch.device("cpu")


@pytest.mark.parametrize("name", ["gpu", "meta", "", "cuda:x"])
def test_a_name_that_is_no_device_is_refused_with_the_option_named(name):
    with pytest.raises(ValueError, match=r"learn\.device=.*not a device"):
        resolve_device(name, "learn.device")


@pytest.mark.skipif(HAS_CUDA, reason="this machine has CUDA: asking for it is not refused here")
def test_cuda_on_a_machine_without_it_is_refused():
    with pytest.raises(ValueError, match=r"label\.device='cuda' requested but CUDA is not available"):
        resolve_device("cuda", "label.device")


def _positions(agent: DMCAgent, count: int = 6) -> list:
    """Views of the first leads and follows of a hand the agent plays alone at all four seats."""
    hand, views = Hand.new(5), []
    while hand.phase != Phase.DONE and len(views) < count:
        seat = hand.current_player
        view = view_of(hand, seat)
        if hand.phase == Phase.PLAY:
            views.append(view)
        hand.act(seat, agent.act(view))
    return views


def test_an_agent_moved_to_the_cpu_scores_as_before_and_a_missing_device_leaves_it_where_it_was():
    agent = DMCAgent.from_checkpoint(NETWORK, seed=0)
    views = _positions(agent)
    plays, values = agent.batch_plays(views), agent.state_values(views)
    assert agent.to("auto" if not HAS_CUDA else "cpu") is agent and agent.device.type == "cpu"
    assert agent.batch_plays(views) == plays
    assert (agent.state_values(views) == values).all()
    with pytest.raises(ValueError, match="not a device"):
        agent.to("tpu")
    if not HAS_CUDA:
        with pytest.raises(ValueError, match="CUDA is not available"):
            agent.to("cuda:0")
    assert agent.device.type == "cpu" and all(p.device.type == "cpu" for p in agent.model.parameters())
    assert agent.batch_plays(views) == plays


def test_the_learner_on_an_explicit_cpu_learns_what_the_default_learns(tmp_path):
    config = _config(tmp_path, hands=1)
    run_labelling(config)
    learn(config)  # no learn.device: the CPU, as before the setting existed
    default = load_checkpoint(tmp_path / "learn" / "latest.pt")["model"]
    config["learn"].update(device="cpu", out=str(tmp_path / "on_cpu"))
    learn(config)
    explicit = load_checkpoint(tmp_path / "on_cpu" / "latest.pt")["model"]
    assert default.keys() == explicit.keys()
    assert all(torch.equal(default[k], explicit[k]) for k in default)


@pytest.mark.parametrize("device", ["gpu", "cuda:99"] + ([] if HAS_CUDA else ["cuda"]))
def test_a_learner_or_labeller_on_a_device_this_machine_lacks_is_refused_before_it_writes(tmp_path, device):
    config = _config(tmp_path, device=device)
    with pytest.raises(ValueError, match=r"label\.device"):
        run_labelling(config)
    config["learn"]["device"] = device
    with pytest.raises(ValueError, match=r"learn\.device"):
        learn(config)
    assert not (tmp_path / "labels").exists() and not (tmp_path / "learn").exists()


def test_auto_learns_on_the_cpu_when_self_play_batches_come_along():
    assert learner_device({"device": "auto", "selfplay_every": 2}) == torch.device("cpu")
    assert learner_device({"device": "auto", "selfplay_every": 0}) == resolve_device("auto")
    assert learner_device({"selfplay_every": 0}) == torch.device("cpu")  # a configuration older than the key
    if HAS_CUDA:
        with pytest.raises(ValueError, match="selfplay_every plays its tables on the CPU"):
            check_learn({**_config(Path("unused"))["learn"], "device": "cuda", "selfplay_every": 2})


# On a machine with CUDA (the GPU machine runs these first: benchmarks/gpu_round.py) the same work on the GPU.

@pytest.mark.skipif(not HAS_CUDA, reason="needs CUDA")
def test_an_agent_on_cuda_plays_as_on_the_cpu():
    agent = DMCAgent.from_checkpoint(NETWORK, seed=0)
    views = _positions(agent, 12)
    q, values = [agent.play_values(view)[1] for view in views], agent.state_values(views)
    agent.to("cuda")
    assert next(agent.model.parameters()).is_cuda
    assert all(abs(agent.play_values(view)[1] - before).max() < 1e-3 for view, before in zip(views, q))
    assert abs(agent.state_values(views) - values).max() < 1e-3
    assert len(agent.batch_plays(views)) == len(views)


@pytest.mark.skipif(not HAS_CUDA, reason="needs CUDA")
def test_a_round_labels_with_network_rollouts_and_learns_on_cuda_then_resumes(tmp_path):
    config = _config(tmp_path, device="cuda", prior=NETWORK, play_by="network", hands=2)
    config["search"]["rollout"] = "network"
    hands, decisions, stopped = run_labelling(config)
    assert (hands, stopped) == (2, False) and decisions > 10
    config["learn"].update(device="cuda", anchor_weight=1.0, keep_weight=1.0, holdout=0.5)
    figures = learn(config)
    assert 0.0 <= figures["agreement_choice"] <= 1.0
    config["learn"].update(resume=True, steps=5)
    learn(config)
    state = load_checkpoint(tmp_path / "learn" / "latest.pt")
    assert state["counters"]["distill_steps"] == 5
    assert all(t.device.type == "cpu" for t in state["model"].values())
