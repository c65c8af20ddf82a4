"""The RuleSet: the hand asks it every rule question, and the deal layout derives from it everywhere.

A standard game with another layout (26 cards each and a 4-card kitty, the
layout of 刮风) is played end to end: the burial length of the masks, the
observation's history, the bots, the log, the match, the terminal and the web
state all follow it. The referee API names its rule set and refuses unknown ones.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from agents.bots.expert import ExpertAgent
from agents.bots.greedy import GreedyAgent
from agents.bots.random_agent import RandomAgent, random_decision
from env.core.cards import NUM_KINDS
from env.core.errors import IllegalActionError
from env.core.layout import DealLayout
from env.core.registry import make_ruleset, ruleset_class
from env.core.ruleset import RuleSet
from env.rules import decompose, is_legal_play, kitty_multiplier, resolve_throw, score_hand, trick_winner
from env.shengji_env import raw_env
from env.standard.actions import KITTY_PICKS, composer_for
from env.standard.encoding import NUM_CARD_PLANES, ObservationEncoder, history_row_size
from env.standard.hand import HAND_SIZE, KITTY_SIZE, NUM_PLAYERS, NUM_TRICKS, Hand, Phase
from env.standard.match import Match
from env.standard.ruleset import STANDARD, StandardRules, as_ruleset
from env.standard.variants import RuleOptions
from env.standard.view import view_of
from ui.session import GameSession
from ui.terminal_view import screen
from ui.web.state import state_json

SMALL_KITTY = DealLayout(players=4, decks=2, hand_size=26, kitty_size=4)


@pytest.fixture(scope="module")
def small_kitty() -> StandardRules:
    return StandardRules(layout=SMALL_KITTY)


def test_the_standard_layout_and_the_compatibility_names():
    layout = STANDARD.layout
    assert (layout.players, layout.decks, layout.hand_size, layout.kitty_size) == (4, 2, 25, 8)
    assert (layout.deck_size, layout.dealt_cards, layout.num_tricks, layout.most_cards_held) == (108, 100, 25, 33)
    assert (NUM_PLAYERS, HAND_SIZE, KITTY_SIZE, NUM_TRICKS, KITTY_PICKS) == (4, 25, 8, 25, 8)
    assert sorted(layout.deck()) == layout.deck() and len(layout.deck()) == 108
    assert STANDARD.name == "standard" and ruleset_class("standard") is StandardRules


def test_a_hand_holds_its_rule_set():
    assert Hand.new(1).ruleset == STANDARD
    options = RuleOptions(kitty_multiplier="linear")
    hand = Hand.new(1, options)
    assert hand.ruleset == StandardRules(options) and hand.options is options
    rules = StandardRules(options)
    assert Hand.new(1, rules).ruleset is rules
    assert Match(0, rules).new_hand().ruleset is rules
    assert as_ruleset(None) is STANDARD and as_ruleset(rules) is rules
    with pytest.raises(ValueError, match="RuleSet or RuleOptions"):
        as_ruleset({"kitty_multiplier": "linear"})


def test_bad_layouts_fail_at_construction_naming_the_field():
    with pytest.raises(ValueError, match="whole deck"):
        DealLayout(players=4, decks=2, hand_size=25, kitty_size=4)
    with pytest.raises(ValueError, match="kitty_size"):
        DealLayout(players=4, decks=2, hand_size=27, kitty_size=0)
    with pytest.raises(ValueError, match="players"):
        StandardRules(layout=DealLayout(players=3, decks=2, hand_size=34, kitty_size=6))
    with pytest.raises(ValueError, match="decks"):
        StandardRules(layout=DealLayout(players=4, decks=1, hand_size=12, kitty_size=6))
    with pytest.raises(ValueError, match="RuleOptions"):
        StandardRules(options="exponential")


def test_the_standard_rule_set_is_the_rules_module_and_the_options():
    rules = StandardRules(RuleOptions(throw_penalty=10, kitty_multiplier="linear", takeover="plus_one"))
    assert isinstance(rules, RuleSet)
    ctx = rules.trump_context("5", "H")
    lead = rules.analyse_lead(ctx, [9, 9, 10, 10])  # S J J Q Q: a tractor
    assert rules.kitty_multiplier(lead) == 8 and STANDARD.kitty_multiplier(lead) == 16
    assert rules.throw_penalty(3) == 30 and STANDARD.throw_penalty(3) == 0
    assert rules.score(85) == ("defenders", 1) and STANDARD.score(85) == ("defenders", 0)
    assert rules.next_dealer(3, True) == 1 and rules.next_dealer(3, False) == 0
    assert rules.advance_level("K", 3) == "A"
    assert rules.bid_kinds(3) == frozenset({3, 16, 29, 42, 52, 53})
    assert rules.trump_of_turned_card(52) is None and rules.trump_of_turned_card(14) == "H"


def _play_random_hand(seed: int, rules: RuleSet) -> Hand:
    rng = random.Random(seed)
    hand = Hand.new(seed, rules)
    while hand.phase != Phase.DONE:
        if hand.phase == Phase.KITTY:
            assert hand.hand_sizes[hand.dealer] == rules.layout.most_cards_held
        random_decision(hand, rng, 32)
        assert hand.cards_accounted() == rules.layout.deck_size
    return hand


def test_a_hand_with_another_layout_deals_buries_and_plays_by_it(small_kitty):
    for seed in range(6):
        hand = _play_random_hand(seed, small_kitty)
        assert len(hand.kitty) == 4 and sum(len(t.plays[0]) for t in hand.tricks) == 26
        assert len(hand.tricks) <= small_kitty.layout.num_tricks
        replay = Hand.from_log(json.loads(json.dumps(hand.to_log())))
        assert replay.ruleset == small_kitty and replay.tricks == hand.tricks and replay.result == hand.result
    with pytest.raises(ValueError, match="kitty holds 4"):
        Hand.from_position(rules=small_kitty, level="2", dealer=0, team_levels=("2", "2"),
                           ctx=small_kitty.trump_context("2", "S"), standing=None,
                           hands=[[2] * NUM_KINDS, [0] * NUM_KINDS, [0] * NUM_KINDS, [0] * NUM_KINDS],
                           kitty=[], played=[[0] * NUM_KINDS] * 4, tricks=[], leader=0, trick_plays=[],
                           defender_points=0)


def test_logs_name_the_rule_set_and_old_logs_still_replay():
    rng = random.Random(4)
    hand = Hand.new(4)
    while hand.phase != Phase.DONE:
        random_decision(hand, rng, 32)
    log = hand.to_log()
    assert log["ruleset"] == "standard" and log["layout"] == STANDARD.layout.to_dict()
    old = {k: v for k, v in log.items() if k not in ("ruleset", "layout")}
    assert Hand.from_log(old).result == hand.result
    with pytest.raises(ValueError, match=r"unknown ruleset 'nonesuch'; known rule sets: guafeng, (\w+, )*standard"):
        Hand.from_log({**log, "ruleset": "nonesuch"})
    with pytest.raises(ValueError, match="unknown guafeng option"):  # 刮风's hands are not standard hands
        Hand.from_log({**log, "ruleset": "guafeng"})


def test_masks_and_observations_follow_the_layout(small_kitty):
    environment = raw_env(rules=small_kitty)
    assert environment.observation_space("player_0")["history"].shape == (26, history_row_size("canonical"))
    assert raw_env().observation_space("player_0")["history"].shape == (25, history_row_size("canonical"))
    assert raw_env(rules=small_kitty, history_len=8).observation_space("player_0")["history"].shape[0] == 8
    for seed in range(3):
        environment.reset(seed=seed)
        burials = 0
        while environment.hand.phase != Phase.DONE:
            hand = environment.hand
            observation = environment.observe(environment.agent_selection)
            assert observation["history"].shape == (26, history_row_size("canonical"))
            mask = environment.action_mask()
            if hand.phase == Phase.KITTY:
                assert environment.decision.composer.target == 4
                dealer = hand.current_player
                kinds = [k for k in range(NUM_KINDS) for _ in range(hand.hands[dealer][k])][:4]
                with pytest.raises(IllegalActionError, match="kitty takes 4"):
                    environment.play(kinds[:3])
                for k in kinds:
                    environment.step(k)
                burials += 1
                assert hand.phase != Phase.KITTY and len(hand.kitty) == 4
                continue
            environment.step(int(np.flatnonzero(mask)[-1]))
        assert burials == 1


def test_the_encoder_scales_counts_by_the_layout(small_kitty):
    hand = Hand.new(3, small_kitty)
    rng = random.Random(3)
    while hand.phase != Phase.KITTY:
        random_decision(hand, rng)
    encoder = ObservationEncoder(ruleset=small_kitty)
    assert encoder.history_shape[0] == 26
    dealer = hand.dealer
    composer = composer_for(hand)
    obs_hand = encoder.encode(hand, dealer, [])
    obs_view = ObservationEncoder(ruleset=small_kitty).encode(view_of(hand, dealer), dealer, [])
    assert np.array_equal(obs_hand, obs_view)
    assert composer.target == 4
    picks_left = NUM_CARD_PLANES * 2 * encoder.slots + 5 + 1
    picked = [k for k in range(NUM_KINDS) if hand.hands[dealer][k]][:2]
    assert obs_hand[picks_left] == 1.0 and encoder.encode(hand, dealer, picked)[picks_left] == 0.5
    standard = ObservationEncoder()
    assert standard.history_shape[0] == 25 and standard.size == encoder.size


@pytest.mark.parametrize("agent_class", [RandomAgent, GreedyAgent, ExpertAgent])
def test_the_bots_bury_the_layouts_kitty(agent_class, small_kitty):
    agents = [agent_class(seed) if agent_class is RandomAgent else agent_class() for seed in range(4)]
    hand = Hand.new(11, small_kitty)
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        decision = agents[seat].act(view_of(hand, seat))
        if hand.phase == Phase.KITTY:
            assert len(decision) == 4
        hand.act(seat, decision)
    assert len(hand.kitty) == 4


def test_a_match_and_the_user_interfaces_follow_the_layout(small_kitty):
    match = Match(1, small_kitty, max_hands=2)
    assert match.new_hand().ruleset is small_kitty
    session = GameSession(["random"] * 4, seed=2, rules=small_kitty, episode="hand",
                          agents=[RandomAgent(i) for i in range(4)])
    while not session.hand_over:
        if session.hand.phase == Phase.PLAY and session.hand.tricks:
            break
        session.step_ai()
    state = state_json("g", session, None, None)
    assert state["layout"] == {"players": 4, "decks": 2, "hand_size": 26, "kitty_size": 4, "num_tricks": 26,
                               "points": 200}
    from rich.console import Console

    console = Console(width=140, record=True, color_system=None)
    console.print(screen(session))
    assert f"trick {len(session.hand.tricks) + 1}" in console.export_text()
    standard = GameSession(["random"] * 4, seed=2, episode="hand", agents=[RandomAgent(i) for i in range(4)])
    assert state_json("g", standard, None, None)["layout"]["kitty_size"] == 8


def test_the_referee_api_takes_the_standard_rule_set_by_name():
    assert decompose("S3 S3 S4 S4", level="2", trump="H", ruleset="standard") == [["S4", "S4", "S3", "S3"]]
    assert is_legal_play("S3 S4", "S3", level="T", trump="H", ruleset="standard") is True
    assert resolve_throw("SA SK", ["", "", ""], level="T", trump="H", ruleset="standard") == ["SA", "SK"]
    assert trick_winner(["S5", "SA"], level="T", trump="H", ruleset="standard") == 1
    assert kitty_multiplier("S5 S5", level="T", trump="H", ruleset="standard") == 4
    assert score_hand(120, ruleset="standard") == ("defenders", 1)


@pytest.mark.parametrize("call", [
    lambda: decompose("S3", level="T", trump="H", ruleset="nonesuch"),
    lambda: is_legal_play("S3", "S3", level="T", trump="H", ruleset="nonesuch"),
    lambda: resolve_throw("S3", ["", "", ""], level="T", trump="H", ruleset="nonesuch"),
    lambda: trick_winner(["S3"], level="T", trump="H", ruleset="nonesuch"),
    lambda: kitty_multiplier("S3", level="T", trump="H", ruleset="nonesuch"),
    lambda: score_hand(100, ruleset="nonesuch"),
    lambda: make_ruleset("nonesuch"),
])
def test_an_unknown_rule_set_is_refused_with_the_known_names(call):
    with pytest.raises(ValueError, match=r"unknown ruleset 'nonesuch'; known rule sets: guafeng, (\w+, )*standard"):
        call()


def test_make_ruleset_builds_from_plain_data():
    rules = make_ruleset("standard", {"kitty_multiplier": "linear"}, SMALL_KITTY.to_dict())
    assert rules == StandardRules(RuleOptions(kitty_multiplier="linear"), SMALL_KITTY)
    assert make_ruleset() == STANDARD
    assert rules.describe() == {"name": "standard", "options": RuleOptions(kitty_multiplier="linear").to_dict(),
                                "layout": SMALL_KITTY.to_dict()}
