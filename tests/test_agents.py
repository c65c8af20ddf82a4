"""Rule bots: always legal, see only their seat's view, and play the moves their policy promises."""

from __future__ import annotations

import dataclasses
import random
import sys
import types

import pytest

from agents import registry
from agents.base import Agent
from agents.bots.card_tracker import CardTracker
from agents.bots.expert import ExpertAgent
from agents.bots.greedy import GreedyAgent
from agents.bots.random_agent import RandomAgent
from agents.evaluation.duplicate import TimedAgent
from agents.registry import BOTS, make_agent
from agents.runner import play_hand
from env.core.cards import parse_cards
from env.core.suits import TRUMP
from env.standard.hand import Hand, Phase
from env.standard.variants import RuleOptions
from env.standard.view import PlayerView, view_of

VARIANTS = [
    RuleOptions(),
    RuleOptions(constant_twos=True),
    RuleOptions(tractor_skips_level=False, kitty_multiplier="linear"),
    RuleOptions(big_joker_pair="master", takeover="plus_one", no_bid="redeal"),
    RuleOptions(level_sequence=("5", "T", "K")),
]


class CheckedAgent(Agent):
    """Asserts every decision is legal before the engine sees it (the engine would raise too), and
    records the leads it makes."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.leads: list[tuple[int, ...]] = []

    def bid(self, view: PlayerView):
        bid = self.agent.bid(view)
        assert bid is None or bid in view.bid_options
        assert bid is None or bid.count <= view.ruleset.layout.decks
        return bid

    def rebid(self, view: PlayerView):
        return self.bid(view)

    def bury(self, view: PlayerView):
        cards = list(self.agent.bury(view))
        assert len(cards) == view.ruleset.layout.kitty_size
        held = list(view.hand)
        for k in cards:
            held[k] -= 1
        assert min(held) >= 0, "buried a card it does not hold"
        return cards

    def play(self, view: PlayerView):
        play = tuple(self.agent.play(view))
        assert view.play_error(list(play)) is None, view.play_error(list(play))
        if view.lead is None:
            self.leads.append(play)
        return play


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: str(o.to_dict())[:40])
def test_bots_always_play_legal_moves(options):
    rng = random.Random(7)
    for i in range(160):
        names = [rng.choice(["expert", "greedy", "random"]) for _ in range(4)]
        agents = [CheckedAgent(make_agent(name, i * 4 + seat)) for seat, name in enumerate(names)]
        level = rng.choice(options.levels)
        dealer = None if i % 3 == 0 else i % 4
        hand = play_hand(Hand.new(1000 + i, options, level=level, dealer=dealer), agents)
        assert hand.phase == Phase.DONE
        assert hand.cards_accounted() == 108


def test_expert_and_greedy_survive_first_hands_in_bulk():
    """Bidding mode (first hands) with only rule bots at the table, many hands."""
    for i in range(60):
        agents = [CheckedAgent(ExpertAgent() if seat % 2 else GreedyAgent()) for seat in range(4)]
        play_hand(Hand.new(5000 + i, level=random.Random(i).choice(RuleOptions().levels)), agents)


def test_expert_decides_well_under_five_milliseconds():
    """The issue's budget is 5 ms per decision on average; the bot takes well under 1 ms (loose bound here)."""
    agents = [TimedAgent(ExpertAgent()) for _ in range(4)]
    for i in range(8):
        play_hand(Hand.new(900 + i, dealer=i % 4), agents)
    seconds = sum(a.seconds for a in agents)
    decisions = sum(a.count for a in agents)
    assert seconds / decisions < 0.005


def _mid_hand(seed: int, tricks: int) -> Hand:
    hand = Hand.new(seed, dealer=seed % 4)
    agents = [GreedyAgent() for _ in range(4)]
    while hand.phase != Phase.PLAY or len(hand.tricks) < tricks or hand.current_player is None:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    return hand


def _swap_hidden_cards(hand: Hand, a: int, b: int) -> bool:
    """Exchange one differing card between two hidden hands, keeping sizes (the views stay equal)."""
    ka = next((k for k in range(54) if hand.hands[a][k] and not hand.hands[b][k]), None)
    kb = next((k for k in range(54) if hand.hands[b][k] and not hand.hands[a][k]), None)
    if ka is None or kb is None:
        return False
    hand.hands[a][ka] -= 1
    hand.hands[b][ka] += 1
    hand.hands[b][kb] -= 1
    hand.hands[a][kb] += 1
    return True


@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_decisions_depend_only_on_the_seat_view(name):
    """Changing the other seats' hidden cards (view unchanged) never changes a decision."""
    checked = 0
    for seed in range(12):
        hand = _mid_hand(seed, tricks=seed % 20)
        seat = hand.current_player
        before = view_of(hand, seat)
        agent = make_agent(name, 0)
        decision = agent.act(before)
        others = [s for s in range(4) if s != seat]
        if not _swap_hidden_cards(hand, others[0], others[1]):
            continue
        after = view_of(hand, seat)
        assert after.hand == before.hand and after.played == before.played
        assert make_agent(name, 0).act(after) == decision
        checked += 1
    assert checked >= 8


def test_player_view_holds_no_hidden_cards():
    hand = _mid_hand(3, tricks=5)
    fields = {f.name for f in dataclasses.fields(PlayerView)}
    assert "hands" not in fields
    for seat in range(4):
        view = view_of(hand, seat)
        assert (view.kitty is not None) == (seat == hand.dealer)
        assert list(view.hand) == hand.hands[seat]


def test_card_tracker_learns_voids_and_missing_pairs():
    # Seat 1 cannot follow hearts (void); seat 3 follows a pair lead without a pair (no pairs left).
    hand = Hand.from_deal(["HA HA S3 S4", "C3 C4 S5 S6", "H3 H4 S7 S8", "H5 H6 S9 ST"], "",
                          level="2", dealer=0, trump="S", buried=True)
    hand.play(0, ["HA", "HA"])
    hand.play(1, ["C3", "C4"])
    hand.play(2, ["H3", "H4"])
    hand.play(3, ["H5", "H6"])
    tracker = CardTracker(view_of(hand, 0))
    h = 1  # hearts
    assert tracker.void[1][h] and tracker.no_pairs[1][h]
    assert tracker.no_pairs[2][h] and tracker.no_pairs[3][h] and not tracker.void[3][h]
    assert tracker.unseen[parse_cards("HA")[0]] == 0
    assert tracker.unseen[parse_cards("HK")[0]] == 2
    assert not tracker.void[2][TRUMP]


def _facts_from_scratch(view: PlayerView) -> tuple[list[list[bool]], list[list[bool]]]:
    """The void and no-pairs rows read again from every trick of ``view``, with no cache."""
    from agents.bots.card_tracker import _trick_facts

    void = [[False] * 5 for _ in range(4)]
    no_pairs = [[False] * 5 for _ in range(4)]
    tricks = [(t.leader, t.plays) for t in view.tricks]
    if view.trick_plays:
        tricks.append((view.leader, tuple(view.trick_plays)))
    for leader, plays in tricks:
        for seat, suit, is_void in _trick_facts(view.ctx, leader, plays):
            void[seat][suit] = void[seat][suit] or is_void
            no_pairs[seat][suit] = True
    return void, no_pairs


def test_the_trackers_kept_facts_are_those_of_every_trick_read_again():
    """Trackers keep the facts of runs of finished tricks by their records; a run the cache has seen,
    one a trick longer, and a made-up run that ends in the same record without the first trick all give
    what reading every trick again gives."""
    from dataclasses import replace

    checked = differ = 0
    for seed in range(8):
        hand = Hand.new(seed, dealer=seed % 4)
        agents = [ExpertAgent() if seat % 2 else RandomAgent(seed * 4 + seat) for seat in range(4)]
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            if hand.phase == Phase.PLAY:
                for viewer in (seat, (seat + 1) % 4):
                    other = view_of(hand, viewer)
                    tracker = CardTracker(other)
                    assert (tracker.void, tracker.no_pairs) == _facts_from_scratch(other)
                    checked += 1
                if len(view.tricks) >= 2:
                    CardTracker(view)  # the whole run cached first
                    shorter = replace(view, tricks=view.tricks[1:])
                    tracker = CardTracker(shorter)
                    assert (tracker.void, tracker.no_pairs) == _facts_from_scratch(shorter)
                    differ += _facts_from_scratch(shorter) != _facts_from_scratch(view)
            hand.act(seat, agents[seat].act(view))
    assert checked > 500 and differ > 10  # (the first trick told something in many of them)


def test_expert_feeds_points_to_a_winning_partner():
    # Seat 0 leads the top heart; seat 2 (its partner) should add its king, not the six.
    hand = Hand.from_deal(["HA C3", "H3 C4", "HK H6", "H7 C5"], "", level="2", dealer=0, trump="S", buried=True)
    hand.play(0, ["HA"])
    hand.play(1, ["H3"])
    assert ExpertAgent().act(view_of(hand, 2)) == tuple(parse_cards("HK"))


def test_expert_keeps_points_from_a_winning_opponent():
    # The opponent on seat 1 wins with the ace: seat 2 cannot beat it and keeps its king.
    hand = Hand.from_deal(["H3 C3", "HA C4", "HK H6", "H7 C5"], "", level="2", dealer=0, trump="S", buried=True)
    hand.play(0, ["H3"])
    hand.play(1, ["HA"])
    assert ExpertAgent().act(view_of(hand, 2)) == tuple(parse_cards("H6"))


def test_expert_cashes_a_safe_throw():
    # Spades AA K: no unseen spade can beat the pair or the king (both aces are ours).
    hand = Hand.from_deal(["SA SA SK H3", "S3 S4 S5 H4", "S6 S7 S8 H5", "S9 ST SJ H6"], "",
                          level="2", dealer=0, trump="H", buried=True)
    play = ExpertAgent().act(view_of(hand, 0))
    assert sorted(play) == sorted(parse_cards("SA SA SK"))
    assert CardTracker(view_of(hand, 0)).is_sure(play)


def test_expert_bids_a_strong_suit_and_buries_eight_cheap_cards():
    hand = Hand.new(11, dealer=0)
    agents = [ExpertAgent() for _ in range(4)]
    while hand.phase.is_bidding:
        seat = hand.current_player
        decision = agents[seat].act(view_of(hand, seat))
        hand.pass_bid(seat) if decision is None else hand.bid(seat, decision)
    view = view_of(hand, hand.dealer)
    buried = ExpertAgent().bury(view)
    assert len(buried) == 8
    assert all(view.ctx.suit[k] != TRUMP for k in buried)


def test_registry_names_and_checkpoint_hook(tmp_path, monkeypatch):
    assert set(BOTS) == {"random", "greedy", "expert"}
    assert isinstance(make_agent("random", 1), RandomAgent)
    with pytest.raises(ValueError, match="choose one of expert, greedy, random"):
        make_agent("grandmaster")
    with pytest.raises(ValueError, match="no checkpoint loader"):
        make_agent(str(tmp_path / "model.ckpt"))
    # loaders are "module:function" names, imported when a checkpoint of their suffix is first made
    monkeypatch.setitem(sys.modules, "fake_loaders", types.SimpleNamespace(load=lambda path, seed: GreedyAgent(seed)))
    monkeypatch.setitem(registry.CHECKPOINT_LOADERS, ".ckpt", "fake_loaders:load")
    assert isinstance(make_agent(str(tmp_path / "model.ckpt"), 3), GreedyAgent)
