"""The split player (agents/phases.py): one agent's card play, another's bids and kitty."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.evaluation.deals import make_deal
from agents.evaluation.duplicate import Settings
from agents.evaluation.run import evaluate
from agents.phases import PhaseSplitAgent, phase_parts
from agents.registry import checkpoint_paths, is_checkpoint, make_agent
from env.standard.hand import Hand
from env.standard.phases import Phase
from env.standard.view import view_of

ROOT = Path(__file__).resolve().parent.parent
NETWORK = "checkpoints/dmc_play_cpu76.pt"


def test_every_decision_comes_from_the_part_that_owns_its_phase():
    split = make_agent("phases:greedy+expert", 5)
    assert isinstance(split, PhaseSplitAgent) and split.name == "phases:greedy+expert"
    player, bidder = make_agent("greedy", 5), make_agent("expert", 5)
    kinds = set()
    for seed in range(3):
        hand = Hand.new(seed, level="2", dealer=None)
        while hand.phase != Phase.DONE:
            view = view_of(hand, hand.current_player)
            decision = split.act(view)
            owner = player if hand.phase == Phase.PLAY else bidder
            assert decision == owner.act(view)
            kinds.add(hand.phase == Phase.PLAY)
            if hand.phase == Phase.PLAY:
                hand.play(view.seat, list(decision))
            elif hand.phase == Phase.KITTY:
                hand.bury(view.seat, list(decision))
            elif decision is None:
                hand.pass_bid(view.seat)
            else:
                hand.bid(view.seat, decision)
    assert kinds == {True, False}


def test_a_third_part_buries_and_the_second_keeps_the_bids():
    split = make_agent("phases:greedy+expert+greedy", 5)
    assert split.name == "phases:greedy+expert+greedy"
    greedy, expert = make_agent("greedy", 5), make_agent("expert", 5)
    burials_differ = 0
    for seed in range(4):
        hand = Hand.new(seed, level="2", dealer=None)
        while hand.phase != Phase.DONE:
            view = view_of(hand, hand.current_player)
            decision = split.act(view)
            owner = greedy if hand.phase in (Phase.PLAY, Phase.KITTY) else expert
            assert decision == owner.act(view)
            if hand.phase == Phase.PLAY:
                hand.play(view.seat, list(decision))
            elif hand.phase == Phase.KITTY:
                burials_differ += sorted(decision) != sorted(expert.act(view))
                hand.bury(view.seat, list(decision))
            elif decision is None:
                hand.pass_bid(view.seat)
            else:
                hand.bid(view.seat, decision)
    assert burials_differ  # the burier's burial, not the bidder's


def test_a_split_of_one_agent_plays_exactly_as_that_agent():
    settings = Settings(seed=4)
    deals = [make_deal(4, i, settings.rule_set()) for i in range(4)]
    alone = evaluate([("greedy", "random")], deals, settings).pairs[0]
    split = evaluate([("phases:greedy+greedy", "random")], deals, settings).pairs[0]
    assert [r.games for r in split.deals] == [r.games for r in alone.deals]


def test_names_and_checkpoints_of_a_split_player():
    assert phase_parts("expert") is None and phase_parts("phases:a.pt+expert") == ("a.pt", "expert")
    assert phase_parts("phases:a.pt+expert+b.pt") == ("a.pt", "expert", "b.pt")
    for bad in ("phases:expert", "phases:+expert", "phases:a+b+c+d", "phases:a++c"):
        with pytest.raises(ValueError, match="phases:<player>"):
            make_agent(bad)
    assert not is_checkpoint("phases:checkpoints/x.pt+expert")
    assert checkpoint_paths(f"phases:{NETWORK}+expert") == [NETWORK]
    assert checkpoint_paths(f"phases:search:{NETWORK}+critic:{NETWORK}") == [NETWORK]
    assert checkpoint_paths("phases:greedy+expert") == []
    assert checkpoint_paths(f"phases:greedy+expert+plans:{NETWORK}") == [NETWORK]
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_agent("phases:nobody+expert")
    network_split = make_agent(f"phases:{NETWORK}+expert", 0)
    assert network_split.player.name != "expert" and network_split.bidder.name == "expert"
