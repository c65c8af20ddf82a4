"""Where networks run: the ``device`` settings of training, the distillation learner, its labeller and a
checkpoint agent (``auto``: CUDA when present). None of these tests needs a GPU: on a machine without one
they check that asking for it is refused with the setting named and changes nothing."""

from __future__ import annotations

import pytest
import torch

from agents.distill.label import make_labeller, run_labelling
from agents.distill.learn import learn
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


@pytest.mark.parametrize("device", ["gpu"] + ([] if HAS_CUDA else ["cuda"]))
def test_a_learner_or_labeller_on_a_device_this_machine_lacks_is_refused_before_it_writes(tmp_path, device):
    config = _config(tmp_path, device=device)
    with pytest.raises(ValueError, match=r"label\.device"):
        make_labeller(config)
    config["learn"]["device"] = device
    with pytest.raises(ValueError, match=r"learn\.device"):
        learn(config)
    assert not (tmp_path / "labels").exists() and not (tmp_path / "learn").exists()
