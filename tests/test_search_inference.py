"""Inference in the world sampler: worlds reweighted by the other seats' plays keep every consistency guarantee."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert import ExpertAgent
from agents.search import SearchAgent, SearchConfig, world_hand
from agents.search.inference import InferenceSampler, position_before
from agents.search.worlds import inconsistency
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_search import _position, _true_world


def _mid_trick(seed: int, plays: int, bots: str = "expert"):
    hand = _position(seed, plays, bots)
    while hand.phase == Phase.PLAY and not hand.trick_plays:
        seat = hand.current_player
        hand.play(seat, list(ExpertAgent().play(view_of(hand, seat))))
    return hand


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 90), bots=st.sampled_from(["expert", "random", "mixed"]),
       policy=st.sampled_from(["expert"]), oversample=st.integers(1, 5))
def test_weighted_worlds_keep_the_samplers_guarantees(seed, plays, bots, policy, oversample):
    hand = _mid_trick(seed, plays, bots)
    if hand.phase != Phase.PLAY:
        return
    view = view_of(hand, hand.current_player)
    sampler = InferenceSampler(view, policy, oversample, 0.1)
    rng = random.Random(seed)
    for _ in range(3):
        world = sampler.sample(rng)
        assert inconsistency(view, world) is None
        assert world.hands[view.seat] == view.hand
        world_hand(view, world)
        likelihood = sampler.likelihood(world)
        assert 0 <= likelihood <= 1
        # Each earlier play of the trick is legal at the position rebuilt before it in the true deal, and in
        # any world of positive weight.
        for source in (_true_world(hand), world) if likelihood > 0 else (_true_world(hand),):
            for index, seat, play in sampler.plays:
                before = position_before(view, source, index)
                assert before.current_player == seat
                assert view_of(before, seat).play_error(list(play)) is None


def test_in_the_true_deal_the_expert_explains_expert_plays():
    """Experts played the trick: in the true world ExpertAgent makes each of its plays again (likelihood
    (1 - epsilon)^n), the top weight any world can get."""
    checked = 0
    for seed in range(30):
        hand = _mid_trick(seed, 4 * seed % 80)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        sampler = InferenceSampler(view, "expert", 4, 0.1)
        if not sampler.plays:
            continue
        assert sampler.likelihood(_true_world(hand)) == pytest.approx(0.9 ** len(sampler.plays))
        checked += 1
    assert checked >= 10


def test_the_network_policy_gives_probabilities_and_the_search_plays_legally():
    from agents.dmc.agent import DMCAgent
    from tests.test_distill import NETWORK

    network = DMCAgent.from_checkpoint(NETWORK)
    hand = next(h for h in (_position(s, 22) for s in range(20)) if h.phase == Phase.PLAY and len(h.trick_plays) >= 2)
    view = view_of(hand, hand.current_player)
    sampler = InferenceSampler(view, "network", 3, 0.05, 0.1, network)
    world = sampler.sample(random.Random(0))
    assert inconsistency(view, world) is None
    assert 0.05 ** len(sampler.plays) <= sampler.likelihood(world) <= 1
    agent = SearchAgent(network, SearchConfig(time_budget=60.0, worlds=2, screen_worlds=1, max_candidates=3,
                                              rollout="greedy", inference="network"), seed=0)
    assert view.play_error(list(agent.search(view))) is None
    with pytest.raises(ValueError, match="inference=network"):
        SearchAgent(ExpertAgent(), SearchConfig(inference="network"))
    for bad in ({"inference": "oracle"}, {"inference_oversample": 0}, {"inference_epsilon": 0.0},
                {"inference_temperature": -1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SearchConfig(**bad)
