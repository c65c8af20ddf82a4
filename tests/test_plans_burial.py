"""The network valuing whole burials (``plans:<checkpoint>``): the burier's view after a burial, the choice
between its own burial and the planner's by ``V``, the name in the registry and at a table."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert_setup import choose_burial
from agents.dmc.agent import DMCAgent
from agents.registry import PLANS, checkpoint_paths, is_checkpoint, make_agent, plans_network
from env.standard.view import view_after_burial, view_of
from tests.test_search_burial import _at_burial
from ui.seats import display_name

NETWORK = "checkpoints/dmc_play_cpu76.pt"


@pytest.fixture(scope="module")
def network() -> DMCAgent:
    return DMCAgent.from_checkpoint(NETWORK, burial="plans")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), decks=st.sampled_from([1, 2, 3]), pick=st.integers(0, 2**32 - 1))
def test_the_view_after_a_burial_is_the_engines(seed, decks, pick):
    hand = _at_burial(seed, decks=decks)
    seat = hand.current_player
    view = view_of(hand, seat)
    held = [k for k in range(len(view.hand)) for _ in range(view.hand[k])]
    burial = random.Random(pick).sample(held, view.ruleset.layout.kitty_size)
    after = view_after_burial(view, burial)
    assert view == view_of(hand, seat)  # the view it was built from is unchanged
    hand.bury(seat, burial)
    assert after == view_of(hand, seat)


def test_a_view_after_a_burial_is_refused_where_it_is_not_known():
    hand = _at_burial(3)
    view = view_of(hand, hand.current_player)
    burial = choose_burial(view)
    with pytest.raises(ValueError, match="exactly 8 cards"):
        view_after_burial(view, burial[:-1])
    missing = next(k for k in range(len(view.hand)) if view.hand[k] == 0)
    with pytest.raises(ValueError, match="not in the burier's hand"):
        view_after_burial(view, [missing] + burial[1:])
    other = view_of(hand, (hand.current_player + 1) % 4)
    with pytest.raises(ValueError, match="not the dealer"):
        view_after_burial(other, burial)
    after = view_after_burial(view, burial)
    with pytest.raises(ValueError, match="no burial in phase play"):
        view_after_burial(after, burial)
    rebid = _at_burial(3, chaodipi=True)
    rebid_view = view_of(rebid, rebid.current_player)
    with pytest.raises(ValueError, match="炒地皮"):
        view_after_burial(rebid_view, choose_burial(rebid_view))


def test_the_network_buries_the_burial_its_value_prefers(network):
    cards = DMCAgent(network.model, network.run)  # the same network, burying card by card
    differed = 0
    for seed in range(12):
        hand = _at_burial(seed)
        view = view_of(hand, hand.current_player)
        own, planned = sorted(cards.bury(view)), sorted(choose_burial(view))
        chosen = sorted(network.bury(view))
        if own == planned:
            assert chosen == own
            continue
        differed += 1
        values = network.state_values([view_after_burial(view, own), view_after_burial(view, planned)])
        assert chosen == (planned if values[1] > values[0] else own)
    assert differed >= 6  # the two burials differ on most hands, so the choice is exercised


def test_the_choice_follows_the_value(network, monkeypatch):
    view = next(v for v in (view_of(h, h.current_player) for h in map(_at_burial, range(20)))
                if sorted(DMCAgent(network.model, network.run).bury(v)) != sorted(choose_burial(v)))
    own = sorted(DMCAgent(network.model, network.run).bury(view))
    monkeypatch.setattr(network, "state_values", lambda views: np.array([0.0, 1.0]))
    assert sorted(network.bury(view)) == sorted(choose_burial(view))
    monkeypatch.setattr(network, "state_values", lambda views: np.array([1.0, 0.0]))
    assert sorted(network.bury(view)) == own


def test_a_rebid_table_keeps_the_networks_own_burial(network, monkeypatch):
    def never(views):
        raise AssertionError("no whole burial is valued at a 炒地皮 table")

    monkeypatch.setattr(network, "state_values", never)
    hand = _at_burial(5, chaodipi=True)
    view = view_of(hand, hand.current_player)
    cards = DMCAgent(network.model, network.run)
    assert sorted(network.bury(view)) == sorted(cards.bury(view))


def test_plans_names_a_network_in_the_registry():
    name = f"{PLANS}:{NETWORK}"
    assert plans_network(name) == NETWORK and plans_network(NETWORK) is None
    assert is_checkpoint(name) and checkpoint_paths(name) == [NETWORK]
    agent = make_agent(name, seed=1)
    assert isinstance(agent, DMCAgent) and agent.burial == "plans" and agent.name == "plans:dmc_play_cpu76"
    assert display_name(name) == "plans:dmc_play_cpu76"
    assert make_agent(NETWORK).burial == "cards"
    with pytest.raises(ValueError, match="needs a network checkpoint"):
        make_agent(f"{PLANS}:expert")
    with pytest.raises(ValueError, match="unknown burial 'whole'"):
        DMCAgent.from_checkpoint(NETWORK, burial="whole")


def test_a_planned_burial_plays_whole_hands_at_the_table():
    """Duplicate deals through the evaluation's referee: the named player's burials are legal and the hands end."""
    from agents.evaluation.deals import make_deal
    from agents.evaluation.duplicate import Settings, play_deal

    for index in range(2):
        result = play_deal((0, f"{PLANS}:{NETWORK}", "expert", make_deal(7, index), Settings(seed=7)))
        assert len(result.games) == 2
