"""The critic agent (agents.dmc.critic): ExpertAgent whose plays a whole-play checkpoint may overrule."""

from __future__ import annotations

import math

import pytest
import torch

from agents.bots.expert import ExpertAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.critic import CriticAgent
from agents.registry import is_checkpoint, make_agent
from agents.runner import play_hand
from env.core.registry import make_ruleset
from env.standard.hand import Hand, Phase
from env.standard.view import view_of

NETWORK = "checkpoints/dmc_play_cpu60.pt"


@pytest.fixture(scope="module")
def network() -> DMCAgent:
    torch.set_num_threads(1)
    return DMCAgent.from_checkpoint(NETWORK)


def critics(network: DMCAgent, margin: float, seed: int) -> list[CriticAgent]:
    agents = [CriticAgent(ExpertAgent(seed * 4 + i), network, margin) for i in range(4)]
    for i, agent in enumerate(agents):
        agent.reset(seed * 4 + i)
    return agents


def test_an_infinite_margin_plays_exactly_the_experts_hand(network):
    for seed in range(3):
        experts = [ExpertAgent(seed * 4 + i) for i in range(4)]
        alone = play_hand(Hand.new(seed), experts)
        criticised = play_hand(Hand.new(seed), critics(network, math.inf, seed))
        assert criticised.to_log() == alone.to_log()


def test_a_negative_margin_plays_the_networks_best_and_the_default_overrules_some_plays(network):
    agent = CriticAgent(ExpertAgent(0), network, margin=-math.inf)
    hand = Hand.new(5)
    bots = [ExpertAgent(i) for i in range(4)]
    checked = 0
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        view = view_of(hand, seat)
        decision = bots[seat].act(view)
        if hand.phase == Phase.PLAY and seat == 0:
            expert_play = tuple(sorted(ExpertAgent(0).play(view)))
            moves, q = network.play_values(view, (expert_play,))
            if len(moves) > 1:
                assert agent.play(view) == moves[int(q.argmax())]
                checked += 1
        hand.act(seat, decision)
    assert checked >= 10
    plays = overruled = 0
    for seed in (2, 5):  # hands where the default margin overrules the expert (about 1.5% of plays)
        default = critics(network, 0.2, seed)
        play_hand(Hand.new(seed), default)
        plays += sum(a.plays for a in default)
        overruled += sum(a.overruled for a in default)
    assert plays > 50 and 0 < overruled < plays / 10  # it keeps almost all of the expert's plays, not all


def test_critic_names_and_bad_ones():
    agent = make_agent(f"critic:{NETWORK}", 3)
    assert isinstance(agent, CriticAgent) and isinstance(agent.bot, ExpertAgent)
    assert is_checkpoint(f"critic:{NETWORK}") and is_checkpoint(f"search:critic:{NETWORK}")
    for bad in ("critic:expert", "critic:", "critic:checkpoints/dmc_cpu60.pt"):  # the last: card action mode
        with pytest.raises(ValueError, match="play action mode"):
            make_agent(bad)


def test_a_critic_refuses_a_guafeng_table(network):
    hand = make_ruleset("guafeng").new_hand(0)
    view = hand.ruleset.view_of(hand, hand.current_player)
    with pytest.raises(ValueError, match="guafeng"):
        CriticAgent(ExpertAgent(0), network).act(view)
