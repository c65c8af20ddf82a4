"""The search's re-check: a challenger of the prior's play is kept only when the lower confidence bound of its
paired advantage on fresh shared worlds is above 0."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert import ExpertAgent
from agents.search import SearchAgent, SearchConfig
from agents.search.agent import lower_confidence_bound
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_search import _position


def _view():
    for seed in range(40):
        hand = _position(seed, 10 + seed)
        if hand.phase == Phase.PLAY:
            view = view_of(hand, hand.current_player)
            if len(view.legal_plays(4).plays) >= 3:
                return view
    raise AssertionError("no position with three legal plays")


VIEW = _view()


def _scripted_agent(recheck_diffs: list[float], recheck_worlds: int) -> SearchAgent:
    """A search whose rollouts are scripted: in the search the second candidate is ahead of the prior's play by
    one level in every world; in the re-check its paired differences are ``recheck_diffs``, in order."""
    config = SearchConfig(time_budget=60.0, worlds=8, screen_worlds=4, max_candidates=3,
                          recheck_worlds=recheck_worlds, recheck_time=60.0)
    agent = SearchAgent(ExpertAgent(), config, seed=1)
    state = {"rechecking": False, "calls": 0}
    prior = tuple(sorted(ExpertAgent().play(VIEW)))

    def rows(view, jobs, plays, deadline):
        if not state["rechecking"]:
            return [[0.0 if play == prior else (1.0 if play == agent.last.candidates[1] else -1.0)
                     for play in plays] for _ in jobs]
        assert len(jobs) == 1 and plays[0] != prior and plays[1] == prior  # the challenger, then the prior's play
        i = state["calls"]
        state["calls"] += 1
        return [[recheck_diffs[i], 0.0]]

    original = agent.recheck

    def recheck(*args):
        state["rechecking"] = True
        return original(*args)

    agent._rows = rows
    agent.recheck = recheck
    agent.prior_play = prior
    return agent


def test_lower_confidence_bound():
    assert lower_confidence_bound([1.0], 1.645) == -math.inf
    assert lower_confidence_bound([], 1.645) == -math.inf
    assert lower_confidence_bound([0.5, 0.5, 0.5], 1.645) == pytest.approx(0.5)
    diffs = [1.0, -0.5, 2.0, 0.0]
    mean, sd = sum(diffs) / 4, math.sqrt(sum((d - 0.625) ** 2 for d in diffs) / 3)
    assert lower_confidence_bound(diffs, 2.0) == pytest.approx(mean - 2.0 * sd / 2)


def test_without_the_recheck_the_search_takes_the_challenger():
    agent = _scripted_agent([], 0)
    chosen = agent.search(VIEW)
    assert chosen == agent.last.candidates[1] != agent.prior_play
    assert agent.last.recheck is None


def test_a_noisy_recheck_keeps_the_prior():
    """Mean advantage +0.25 but a spread that puts the lower bound below 0: no override."""
    diffs = [2.0, -1.5] * 4
    assert lower_confidence_bound(diffs, 1.645) < 0 < sum(diffs)
    agent = _scripted_agent(diffs, len(diffs))
    assert agent.search(VIEW) == agent.prior_play
    worlds, mean, bound = agent.last.recheck
    assert worlds == 8 and mean == pytest.approx(0.25) and bound < 0


def test_a_clear_recheck_overrides():
    agent = _scripted_agent([0.5, 0.75, 0.5, 0.6], 4)
    assert agent.search(VIEW) == agent.last.candidates[1]
    assert agent.last.recheck[2] > 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diffs=st.lists(st.floats(-3, 3, allow_nan=False).map(lambda x: round(x, 2)), min_size=2, max_size=10))
def test_the_recheck_never_overrides_without_a_positive_lower_bound(diffs):
    agent = _scripted_agent(diffs, len(diffs))
    chosen = agent.search(VIEW)
    if lower_confidence_bound(diffs, 1.645) > 0:
        assert chosen == agent.last.candidates[1]
    else:
        assert chosen == agent.prior_play


def test_recheck_options_are_checked():
    with pytest.raises(ValueError, match="recheck_worlds"):
        SearchConfig(recheck_worlds=1)
    with pytest.raises(ValueError, match="recheck_worlds"):
        SearchConfig(recheck_worlds=-3)
    with pytest.raises(ValueError, match="recheck_z"):
        SearchConfig(recheck_z=-1.0)
    with pytest.raises(ValueError, match="recheck_time"):
        SearchConfig(recheck_time=0)


def test_network_candidate_order_puts_the_networks_best_plays_first():
    from agents.dmc.agent import DMCAgent
    from tests.test_distill import NETWORK

    network = DMCAgent.from_checkpoint(NETWORK)
    agent = SearchAgent(network, SearchConfig(time_budget=60.0, worlds=2, screen_worlds=1, max_candidates=4,
                                              candidate_order="network", rollout="greedy"), seed=0)
    checked = 0
    for seed in range(30):
        hand = _position(seed, 5 + 3 * seed)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        moves, q = network.play_values(view)
        if len(moves) < 3:
            continue
        plays = agent._network_candidates(view)
        best = sorted(range(len(moves)), key=lambda i: -float(q[i]))
        assert plays[0] == tuple(sorted(network.play(view)))
        assert plays[1] == tuple(sorted(moves[best[1]]))
        assert len(set(plays)) == len(plays) and all(view.play_error(list(p)) is None for p in plays)
        assert view.play_error(list(agent.search(view))) is None
        checked += 1
    assert checked >= 5
    with pytest.raises(ValueError, match="candidate_order"):
        SearchAgent(ExpertAgent(), SearchConfig(candidate_order="network"))
    with pytest.raises(ValueError, match="candidate_order"):
        SearchConfig(candidate_order="alphabetical")
