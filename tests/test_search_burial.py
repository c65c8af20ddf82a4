"""The burial searched as one decision: worlds dealt at the burial, whole candidate burials, the engine's
position after each, the best burial in a known world, the prior's burial where the search stays out."""

from __future__ import annotations

import copy
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert import ExpertAgent
from agents.bots.expert_setup import burial_plans, choose_burial
from agents.search import SearchAgent, SearchConfig, World, WorldSampler
from agents.search.burials import burial_candidates
from agents.search.worlds import burial_hand, inconsistency
from env.core.cards import NUM_KINDS
from env.core.registry import make_ruleset
from env.standard.hand import Hand, Phase
from env.standard.view import first_lead_refusal, view_of

BURY = SearchConfig(time_budget=30.0, worlds=2, screen_worlds=2, max_candidates=2, burial_worlds=4,
                    burial_candidates=4, burial_time=60.0)


def _at_burial(seed: int, **options) -> Hand:
    """A hand dealt from ``seed`` and bid by experts, at the dealer's burial."""
    rules = make_ruleset("standard", options)
    hand = rules.new_hand(seed)
    bots = [ExpertAgent(seat) for seat in range(4)]
    while hand.phase != Phase.KITTY:
        seat = hand.current_player
        hand.act(seat, bots[seat].act(view_of(hand, seat)))
    return hand


def _true_world(hand: Hand) -> World:
    return World(tuple(tuple(h) for h in hand.hands), ())


def _played_out(hand: Hand, seat: int) -> float:
    """The hand played to its end by experts; ``seat``'s team's levels plus a level per 40 of its points."""
    bots = [ExpertAgent(s) for s in range(4)]
    while hand.phase != Phase.DONE:
        s = hand.current_player
        hand.play(s, list(bots[s].play(view_of(hand, s))))
    result, we_deal = hand.result, hand.is_dealer_team(seat)
    levels = result.levels if we_deal == (result.winner == "dealers") else -result.levels
    return levels + (-result.defender_points if we_deal else result.defender_points) / 40


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), decks=st.sampled_from([1, 2, 3]))
def test_worlds_dealt_at_the_burial_agree_with_the_burier(seed, decks):
    hand = _at_burial(seed, decks=decks)
    view = view_of(hand, hand.current_player)
    sampler = WorldSampler(view)
    assert inconsistency(view, _true_world(hand)) is None  # the checker accepts the truth
    rng = random.Random(seed)
    for _ in range(5):
        world = sampler.sample(rng)
        assert inconsistency(view, world) is None
        assert world.kitty == ()  # the burial makes the kitty
        assert world.hands[view.seat] == view.hand
        assert [sum(h) for h in world.hands] == list(view.hand_sizes)
        assert all(sum(h[k] for h in world.hands) == decks for k in range(NUM_KINDS))
        if hand.standing is not None and hand.standing.seat != view.seat:  # shown bid cards stay shown
            bidder, bid = hand.standing
            cards = bid.cards(view.level_rank)
            assert all(world.hands[bidder][k] >= cards.count(k) for k in set(cards))


def test_the_position_after_a_burial_is_the_engines():
    """In the true world, the rebuilt position after a burial is the engine's after ``bury``."""
    for seed in range(6):
        hand = _at_burial(seed)
        view = view_of(hand, hand.current_player)
        burial = tuple(sorted(choose_burial(view)))
        rebuilt = burial_hand(view, _true_world(hand), burial)
        engine = copy.deepcopy(hand)
        engine.bury(view.seat, list(burial))
        assert rebuilt.hands == engine.hands and rebuilt.kitty == engine.kitty
        assert (rebuilt.phase, rebuilt.leader, rebuilt.current_player) == (Phase.PLAY, engine.leader,
                                                                           engine.current_player)
        assert _played_out(rebuilt, view.seat) == _played_out(engine, view.seat)


def test_burial_candidates_are_whole_distinct_burials_with_the_prior_first():
    for seed in range(20):
        hand = _at_burial(seed)
        view = view_of(hand, hand.current_player)
        prior = tuple(sorted(choose_burial(view)))
        found = burial_candidates(view, tuple(reversed(prior)), 8)
        assert found[0] == prior and len(set(found)) == len(found) <= 8
        for burial in found:
            assert burial == tuple(sorted(burial)) and len(burial) == view.ruleset.layout.kitty_size
            assert all(burial.count(k) <= view.hand[k] for k in set(burial))
        assert burial_candidates(view, prior, 1) == [prior]
        # The expert's own choice is the cheapest of its plans.
        assert sorted(burial_plans(view)[0][1]) == list(prior)


def test_in_the_true_world_the_search_buries_the_best_candidate():
    """Given only the true world, the search's burial is the candidate that scores best when the engine
    buries it and experts play the hand out."""
    chose_other = 0
    for seed in range(8):
        hand = _at_burial(seed)
        view = view_of(hand, hand.current_player)
        agent = SearchAgent(ExpertAgent(view.seat), BURY, seed=seed)
        candidates = burial_candidates(view, tuple(sorted(choose_burial(view))), 4)
        chosen = agent._compare(view, candidates, time.perf_counter(), time.perf_counter() + 60,
                                [_true_world(hand)], lambda: None, 1)
        scores = []
        for burial in candidates:
            engine = copy.deepcopy(hand)
            engine.bury(view.seat, list(burial))
            scores.append(_played_out(engine, view.seat))
        best = max(range(len(candidates)), key=lambda c: (scores[c], c == 0))
        assert agent.last.means == pytest.approx(scores)
        assert chosen == (candidates[best] if scores[best] > scores[0] else candidates[0])
        chose_other += chosen != candidates[0]
    assert chose_other  # the positions include burials better than the expert's


def test_the_searched_burial_is_legal_and_recorded():
    for seed in range(4):
        hand = _at_burial(seed)
        view = view_of(hand, hand.current_player)
        agent = SearchAgent(ExpertAgent(view.seat), BURY, seed=seed)
        burial = agent.bury(view)
        assert tuple(sorted(burial)) in agent.last.candidates and agent.last.searched
        assert agent.last.worlds >= BURY.screen_worlds
        hand.bury(view.seat, burial)  # the engine takes it
        assert hand.phase == Phase.PLAY


def test_without_burial_worlds_or_under_chaodipi_the_prior_buries():
    hand = _at_burial(3)
    view = view_of(hand, hand.current_player)
    off = SearchAgent(ExpertAgent(view.seat), SearchConfig(burial_worlds=0), seed=1)
    assert sorted(off.bury(view)) == sorted(choose_burial(view)) and not off.last.searched
    rebid = _at_burial(3, chaodipi=True)
    view = view_of(rebid, rebid.current_player)
    assert "炒地皮" in first_lead_refusal(view)
    agent = SearchAgent(ExpertAgent(view.seat), BURY, seed=1)
    assert sorted(agent.bury(view)) == sorted(choose_burial(view)) and not agent.last.searched
    assert first_lead_refusal(view_of(_at_burial(3), 0 if view.seat else 1)) is not None


@pytest.mark.parametrize("option, value", [("burial_worlds", -1), ("burial_worlds", 1.5), ("burial_candidates", 0),
                                           ("burial_time", 0), ("burial_time", "fast")])
def test_bad_burial_budgets_are_refused_naming_the_option(option, value):
    with pytest.raises(ValueError, match=f"search.{option}"):
        SearchConfig.from_dict({option: value})


def test_the_search_configs_defaults_are_the_yamls():
    """A search built in code (``SearchConfig()``) plays as ``evaluate.py``'s and the labeller's, which read
    ``conf/search/default.yaml``: the burial search's budget included."""
    from pathlib import Path

    from omegaconf import OmegaConf

    options = OmegaConf.to_container(OmegaConf.load(Path(__file__).parents[1] / "conf" / "search" / "default.yaml"))
    assert SearchConfig.from_dict(options) == SearchConfig()
    assert SearchConfig().burial_worlds > 0


def test_the_strong_preset_is_the_default_at_four_times_the_budget_and_play_pys_default():
    """``search=strong`` (conf/search/strong.yaml) changes the budgets and nothing else, its clock stays
    under the 2 s that the slowest decisions may take, and it is the budget of ``play.py``'s default AI."""
    from pathlib import Path

    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(version_base=None, config_dir=str(Path(__file__).parents[1] / "conf")):
        strong = SearchConfig.from_dict(OmegaConf.to_container(compose("evaluate", overrides=["search=strong"]).search))
        played = SearchConfig.from_dict(OmegaConf.to_container(compose("play").search))
        fast = SearchConfig.from_dict(OmegaConf.to_container(compose("play", overrides=["search=default"]).search))
    assert played == strong and fast == SearchConfig()
    default = SearchConfig()
    budgets = {"time_budget", "worlds", "screen_worlds", "max_candidates"}
    changed = {name for name in vars(default) if getattr(strong, name) != getattr(default, name)}
    assert changed == budgets
    assert (strong.worlds, strong.screen_worlds, strong.max_candidates) == (4 * default.worlds, 8, 12)
    assert default.time_budget < strong.time_budget < 2.0
    assert strong.inference == "locations"
