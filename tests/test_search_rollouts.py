"""Search over the network: lockstep network rollouts, leaves scored by V(s), and the checks at start-up."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.bots.expert import ExpertAgent
from agents.dmc.agent import DMCAgent
from agents.registry import make_agent
from agents.search import SearchAgent, SearchConfig, WorldSampler
from agents.search.rollouts import Rollouts
from agents.search.worlds import world_hand
from agents.selfplay.checkpoint import new_model, save_checkpoint
from env.core.registry import make_ruleset
from env.standard.hand import Phase
from env.standard.view import view_of
from tests.test_search import _position
from tests.test_train import config, small_run

NETWORK = "checkpoints/dmc_play_cpu76.pt"


@pytest.fixture(scope="module")
def network() -> DMCAgent:
    return DMCAgent.from_checkpoint(NETWORK)


def _views(count: int, start: int = 0):
    views = []
    for seed in range(start, start + 4 * count):
        hand = _position(seed, 3 + 5 * (seed % 8))
        if hand.phase == Phase.PLAY:
            view = view_of(hand, hand.current_player)
            if len(view.legal_plays(3).plays) >= 2:
                views.append(view)
        if len(views) == count:
            return views
    raise AssertionError("too few positions with a choice")


def _jobs(view, n: int, seed: int = 0):
    rng = random.Random(seed)
    sampler = WorldSampler(view)
    return [(sampler.sample(rng), rng.getrandbits(32)) for _ in range(n)]


def test_batched_plays_are_the_plays_made_one_at_a_time(network):
    views = _views(8)
    one_at_a_time = [tuple(network.play(v)) for v in views]
    assert network.batch_plays(views, [network.new_encoder() for _ in views]) == one_at_a_time
    assert network.batch_plays(views) == one_at_a_time  # one shared encoder, hands in turn


def test_one_encoder_serves_hands_dealt_from_one_position_in_turn(network):
    """Rollout hands share their first trick records; the encoder must not mix their later tricks."""
    view = _views(1, start=20)[0]
    hands = []
    for world, _ in _jobs(view, 3):
        hand = world_hand(view, world)
        agents = [ExpertAgent(s) for s in range(4)]
        for _ in range(9):  # two more tricks and a bit, differently in each world
            if hand.phase == Phase.DONE:
                break
            hand.play(hand.current_player, list(agents[hand.current_player].play(view_of(hand, hand.current_player))))
        hands.append(hand)
    assert len({len(h.tricks) for h in hands}) == 1
    shared = network.new_encoder()
    for _ in range(2):
        for hand in hands:
            fresh = network.new_encoder()
            np.testing.assert_array_equal(shared.history(hand, view.seat), fresh.history(hand, view.seat))
            np.testing.assert_array_equal(shared.encode(hand, view.seat), fresh.encode(hand, view.seat))


@pytest.mark.parametrize("leaf_tricks", [0, 2])
def test_lockstep_network_rollouts_play_the_hands_the_network_plays_one_at_a_time(network, leaf_tricks):
    view = _views(1, start=8)[0]
    plays = [tuple(sorted(p)) for p in view.legal_plays(3).plays[:3]]
    jobs = _jobs(view, 3, seed=5)
    one = Rollouts([network] * 4, value_network=network, leaf_tricks=leaf_tricks)
    lockstep = Rollouts(None, network=network, value_network=network, leaf_tricks=leaf_tricks)
    expected = one.rows(view, jobs, plays)
    got = lockstep.rows(view, jobs, plays)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert one.leaves == lockstep.leaves
    assert (lockstep.leaves > 0) == (leaf_tricks > 0)


def test_a_search_with_network_rollouts_chooses_as_with_the_prior_rolling_out(network):
    view = _views(1, start=12)[0]
    options = dict(time_budget=600.0, worlds=4, screen_worlds=2, max_candidates=4)
    batched = SearchAgent(network, SearchConfig(rollout="network", **options), seed=3)
    one = SearchAgent(network, SearchConfig(rollout="prior", **options), seed=3)
    assert batched.search(view) == one.search(view)
    assert batched.last.means == pytest.approx(one.last.means)
    assert batched.last.rollouts == one.last.rollouts > 0


def test_a_leaf_is_the_seats_decision_after_leaf_tricks_and_scored_by_v(network):
    view = _views(1, start=4)[0]
    play = tuple(sorted(ExpertAgent().play(view)))
    (world, seed), = _jobs(view, 1, seed=2)
    rollouts = Rollouts([ExpertAgent(s) for s in range(4)], value_network=network, leaf_tricks=2,
                        points_weight=1.0)
    (outcome,), = rollouts.rows(view, [(world, seed)], [play])
    # The same hand by hand: play on until the seat's first decision after two more tricks.
    hand = world_hand(view, world)
    hand.play(view.seat, list(play))
    agents = [ExpertAgent(s) for s in range(4)]
    for s, agent in enumerate(agents):
        agent.reset(seed + s)
    while not (hand.current_player == view.seat and len(hand.tricks) - len(view.tricks) >= 2):
        assert hand.phase != Phase.DONE
        hand.play(hand.current_player, list(agents[hand.current_player].play(view_of(hand, hand.current_player))))
    assert len(hand.tricks) - len(view.tricks) in (2, 3)
    leaf = view_of(hand, view.seat)
    ours = -hand.defender_points if hand.is_dealer_team(view.seat) else hand.defender_points
    expected = float(network.state_values([leaf])[0]) + ours / 40
    assert outcome == pytest.approx(expected, abs=1e-5)
    assert rollouts.leaves == 1


def test_a_hand_that_ends_before_its_leaf_keeps_its_exact_outcome(network):
    hands = (_position(seed, plays) for seed in range(30) for plays in (50, 60, 70))
    hand = next(h for h in hands if h.phase == Phase.PLAY and max(h.hand_sizes) <= 5)
    view = view_of(hand, hand.current_player)
    play = tuple(sorted(ExpertAgent().play(view)))
    jobs = _jobs(view, 2)
    exact = Rollouts([ExpertAgent(s) for s in range(4)]).rows(view, jobs, [play])
    leafed = Rollouts([ExpertAgent(s) for s in range(4)], value_network=network, leaf_tricks=6)
    assert leafed.rows(view, jobs, [play]) == exact
    assert leafed.leaves == 0


def test_leaves_need_a_value_network_and_network_rollouts_a_network():
    with pytest.raises(ValueError, match="needs a value network"):
        SearchAgent(ExpertAgent(), SearchConfig(leaf_tricks=2))
    with pytest.raises(ValueError, match="rollout=network needs a play-mode checkpoint"):
        SearchAgent(ExpertAgent(), SearchConfig(rollout="network"))
    with pytest.raises(ValueError, match="leaf_tricks must be an integer >= 0"):
        SearchConfig(leaf_tricks=-1)
    with pytest.raises(ValueError, match=r"search\.value_network must be a checkpoint of the play action mode"):
        make_agent("search", 0, search={"leaf_tricks": 2, "value_network": "expert"})


def test_a_search_over_the_expert_with_a_value_network_from_its_path(network):
    agent = make_agent("search", 0, search={"leaf_tricks": 1, "value_network": NETWORK, "worlds": 4,
                                            "screen_worlds": 2, "max_candidates": 3, "time_budget": 600.0})
    view = _views(1, start=16)[0]
    play = agent.play(view)
    assert view.play_error(list(play)) is None
    assert agent.rollouts.leaves > 0


def test_a_network_without_a_value_head_cannot_score_leaves(tmp_path):
    path = tmp_path / "novalue.pt"
    run = small_run("model.value_head=false", "action_mode=play")
    save_checkpoint(path, model=new_model(run), optimizer=None,
                    config=config("train=smoke", "model.value_head=false", "action_mode=play"),
                    counters={"frames": 0})
    with pytest.raises(ValueError, match="value head"):
        make_agent("search", 0, search={"leaf_tricks": 1, "value_network": str(path)})


def test_a_search_whose_network_was_trained_on_other_decks_is_refused_at_its_seat(tmp_path):
    path = tmp_path / "three.pt"
    run = small_run("rules.decks=3", "action_mode=play")
    save_checkpoint(path, model=new_model(run), optimizer=None,
                    config=config("train=smoke", "rules.decks=3", "action_mode=play"), counters={"frames": 0})
    agent = make_agent("search", 0, search={"leaf_tricks": 1, "value_network": str(path)})
    with pytest.raises(ValueError, match=r"decks: 3 -> 2"):
        agent.policy(make_ruleset("standard", {}))
    assert not agent.can_play(make_ruleset("standard", {}))
    assert agent.policy(make_ruleset("standard", {"decks": 3})) is not None


def test_the_network_preset_is_the_expert_search_with_the_networks_value_at_leaves():
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from tests.test_train import ROOT

    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        options = OmegaConf.to_container(compose("evaluate", overrides=["search=network"]).search)
    agent = make_agent("search", 0, search=options)
    assert agent.name == "search:expert"
    assert (agent.config.leaf_tricks, agent.config.worlds, agent.config.screen_worlds) == (2, 48, 8)
    assert isinstance(agent.value_network, DMCAgent) and agent.value_network.has_value_head
