"""The PettingZoo environment: API conformance, determinism, errors, rewards, replays."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pettingzoo
import pytest

from agents.bots.random_agent import RandomAgent
from env.core.actions import NUM_ACTIONS, PASS, STOP
from env.core.cards import DECK_SIZE, TOTAL_POINTS, format_cards, points_of
from env.core.errors import IllegalActionError
from env.shengji_env import AGENTS, env, raw_env
from env.standard.encoding import ObservationEncoder, observation_size
from env.standard.hand import Hand, Phase
from env.standard.rewards import hand_level_change

RECORDED = Path(__file__).parent / "data" / "recorded_hand.json"


def run_random_episode(environment, seed: int, check=None) -> list[int]:
    """Play an episode with uniformly random masked actions; returns the actions taken."""
    rng = np.random.default_rng(seed)
    actions = []
    for _agent in environment.agent_iter():
        obs, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        environment.step(action)
        if check is not None:
            check(environment.unwrapped)
    return actions


def test_registered_in_pettingzoo_registry():
    environment = pettingzoo.make("aec", "shengji_v0")
    environment.reset(seed=3)
    assert environment.unwrapped.metadata["name"] == "shengji_v0"


def test_random_episodes_keep_engine_invariants():
    environment = env()
    for seed in range(200):
        environment.reset(seed=seed)

        def check(raw):
            assert raw.hand.cards_accounted() == DECK_SIZE

        run_random_episode(environment, seed, check)
        hand = environment.unwrapped.hand
        assert hand.phase == Phase.DONE
        assert all(len({len(p) for p in t.plays}) == 1 for t in hand.tricks)
        assert sum(t.points for t in hand.tricks) + points_of(hand.kitty) == TOTAL_POINTS
        assert not environment.agents  # every agent was stepped out with None


def test_rewards_are_zero_sum_by_team():
    environment = raw_env()
    for seed in range(10):
        environment.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not any(environment.terminations.values()):
            environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))
        rewards = [environment.rewards[a] for a in AGENTS]
        assert rewards[0] == rewards[2] and rewards[1] == rewards[3]
        assert rewards[0] == -rewards[1] != 0


@pytest.mark.parametrize("scheme", ["win_loss", "points", "level_points"])
def test_reward_schemes(scheme):
    environment = raw_env(reward=scheme)
    environment.reset(seed=5)
    rng = np.random.default_rng(0)
    while not any(environment.terminations.values()):
        environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))
    result = environment.hand.result
    r0 = environment.rewards["player_0"]
    defenders = 1 - environment.hand.dealer % 2
    margin = (result.defender_points - 80) / 80
    points = margin if defenders == 0 else -margin
    if scheme == "win_loss":
        assert abs(r0) == 1.0
    elif scheme == "points":
        assert r0 == pytest.approx(points)
    else:
        levels = hand_level_change(result, environment.hand.dealer, environment.rules)[0]
        assert r0 == pytest.approx(levels + 0.5 * points)
        assert environment.rewards["player_1"] == pytest.approx(-r0)


def test_illegal_action_raises_and_changes_nothing():
    environment = raw_env()
    environment.reset(seed=11)
    rng = np.random.default_rng(1)
    while environment.hand.phase != Phase.PLAY or len(environment.hand.tricks) < 3:
        environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))
    if environment.decision.composer.mode == "lead":  # mid-decision: one card picked, the rest open
        environment.step(int(np.flatnonzero(environment.action_mask())[0]))
    before = (json.dumps(environment.hand.to_log()), environment.action_mask().tolist(),
              environment.agent_selection, list(environment.decision.picked) if environment.decision else None)
    illegal = [a for a in range(NUM_ACTIONS) if not environment.action_mask()[a]]
    for action in illegal[:20]:
        with pytest.raises(IllegalActionError):
            environment.step(action)
    with pytest.raises(IllegalActionError):
        environment.step(NUM_ACTIONS + 3)
    after = (json.dumps(environment.hand.to_log()), environment.action_mask().tolist(),
             environment.agent_selection, list(environment.decision.picked) if environment.decision else None)
    assert before == after


def test_whole_play_helper_applies_a_play_and_rejects_illegal_ones():
    environment = raw_env()
    environment.reset(seed=2)
    agents = [RandomAgent(i) for i in range(4)]
    while environment.hand.phase != Phase.PLAY:
        seat = environment.hand.current_player
        environment.apply_decision(agents[seat].act(environment.view(seat)))
    hand = environment.hand
    leader = hand.current_player
    other = (leader + 1) % 4
    missing = next(k for k in range(54) if hand.hands[leader][k] == 0)
    with pytest.raises(IllegalActionError, match="not in hand"):
        environment.play([missing])
    assert hand.trick_plays == [] and environment.decision.picked == []
    single = hand.hand_cards(leader)[0]
    environment.play([single])
    assert len(hand.trick_plays) == 1 and hand.trick_plays[0] == (single,)
    assert environment.agent_selection == AGENTS[other]


def test_bidding_asks_only_at_decision_points():
    environment = raw_env()
    environment.reset(seed=4)
    while environment.hand.phase.is_bidding:
        mask = environment.action_mask()
        assert mask[PASS] == 1 and mask[:PASS].sum() == 0 and mask[PASS + 1:].sum() >= 1
        environment.step(PASS)


def test_observation_ignores_other_players_hidden_cards():
    rng = random.Random(0)
    agents = [RandomAgent(i) for i in range(4)]
    for seed in range(30):
        hand = Hand.new(seed)
        steps = rng.randrange(20, 160)
        from env.standard.view import view_of

        while hand.phase != Phase.DONE and steps:
            seat = hand.current_player
            hand.act(seat, agents[seat].act(view_of(hand, seat)))
            steps -= 1
        viewer = rng.randrange(4)
        shuffled = copy.deepcopy(hand)
        owners = [s for s in range(4) if s != viewer]
        pool = [k for s in owners for k in shuffled.hand_cards(s)]
        hidden_kitty = viewer != hand.dealer and hand.phase in (Phase.PLAY, Phase.DONE)
        if hidden_kitty:
            pool += shuffled.kitty
        rng.shuffle(pool)
        for s in owners:
            size = shuffled.hand_sizes[s]
            shuffled.hands[s] = [0] * 54
            for k in pool[:size]:
                shuffled.hands[s][k] += 1
            pool = pool[size:]
        if hidden_kitty:
            shuffled.kitty = sorted(pool)
        for layout in ("canonical", "raw"):
            a = ObservationEncoder(layout, 8)
            b = ObservationEncoder(layout, 8)
            assert np.array_equal(a.encode(hand, viewer), b.encode(shuffled, viewer))
            assert np.array_equal(a.history(hand, viewer), b.history(shuffled, viewer))


def test_observation_shapes_and_layouts():
    for layout, size in (("canonical", 1871), ("raw", 1415)):
        environment = raw_env(layout=layout, history_len=6)
        environment.reset(seed=0)
        obs = environment.observe(environment.agent_selection)
        assert obs["observation"].shape == (size,) == (observation_size(layout),)
        assert obs["history"].shape[0] == 6
        assert environment.observation_space("player_0")["observation"].contains(obs["observation"])


def test_match_episode_runs_several_hands_and_pays_each_hand():
    environment = raw_env(episode="match", max_match_hands=3)
    environment.reset(seed=1)
    rng = np.random.default_rng(0)
    hands_paid = 0
    while not (any(environment.terminations.values()) or any(environment.truncations.values())):
        environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))
        if any(environment.rewards.values()):
            hands_paid += 1
    assert environment.match.hands_played == 3 == hands_paid


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="money")
    with pytest.raises(ValueError, match="episode"):
        raw_env(episode="season")
    with pytest.raises(ValueError, match="unknown rule option"):
        raw_env(rules={"tractors": True})
    environment = raw_env()
    with pytest.warns(UserWarning, match="unknown reset option"):
        environment.reset(options={"colour": "red"})
    with pytest.raises(ValueError, match="reward"):
        environment.reset(options={"reward": "money"})


def test_render_ansi_shows_the_table():
    environment = raw_env(render_mode="ansi")
    environment.reset(seed=0)
    text = environment.render()
    assert "phase deal" in text and "seat 0" in text


def _recorded_deal():
    hand = Hand.new(123)
    while hand.phase.is_bidding:
        hand.pass_bid(hand.current_player)
    return {"hands": [format_cards(hand.hand_cards(s)) for s in range(4)], "level": "2", "dealer": hand.dealer,
            "trump": None if hand.ctx.trump_suit is None else "SHCD"[hand.ctx.trump_suit]}


def test_fixed_deal_with_fixed_actions_reproduces_the_recorded_hand():
    record = json.loads(RECORDED.read_text())
    environment = raw_env(deal=record["deal"])
    environment.reset(seed=0)
    for action in record["actions"]:
        environment.step(action)
    hand = environment.hand
    assert hand.phase == Phase.DONE
    assert [t.winner for t in hand.tricks] == record["trick_winners"]
    assert hand.result.defender_points == record["defender_points"]
    assert environment.rewards["player_0"] == record["reward_player_0"]


def make_recording() -> dict:  # pragma: no cover - used once to write tests/data/recorded_hand.json
    hand = Hand.new(99)
    deal = {"hands": [format_cards(hand.hand_cards(s)) for s in range(4)], "kitty": format_cards(hand._deck[100:]),
            "level": "2", "dealer": 1, "trump": "S"}
    environment = raw_env(deal=deal)
    environment.reset(seed=0)
    actions = []
    rng = np.random.default_rng(7)
    while environment.hand.phase != Phase.DONE:
        mask = environment.action_mask()
        action = STOP if mask[STOP] and rng.random() < 0.7 else int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        environment.step(action)
    hand = environment.hand
    return {"deal": deal, "actions": actions, "trick_winners": [t.winner for t in hand.tricks],
            "defender_points": hand.result.defender_points, "reward_player_0": environment.rewards["player_0"]}


def test_encoding_from_the_view_equals_encoding_from_the_hand():
    from env.standard.view import view_of

    agents = [RandomAgent(i) for i in range(4)]
    hand = Hand.new(8)
    from_hand, from_view = ObservationEncoder(), ObservationEncoder()
    compared = 0
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        view = view_of(hand, seat)
        if compared % 7 == 0 or hand.phase == Phase.PLAY:
            assert np.array_equal(from_hand.encode(hand, seat), from_view.encode(view, seat))
            assert np.array_equal(from_hand.history(hand, seat), from_view.history(view, seat))
        compared += 1
        hand.act(seat, agents[seat].act(view))
    assert compared > 50


def test_random_start_deals_mid_match_hands():
    environment = raw_env(start="random")
    dealers, levels = set(), set()
    for seed in range(30):
        environment.reset(seed=seed)
        hand = environment.hand
        assert hand.dealer is not None and hand.level == hand.team_levels[hand.dealer % 2]
        dealers.add(hand.dealer)
        levels.add(hand.level)
    assert dealers == {0, 1, 2, 3} and len(levels) > 5
    with pytest.raises(ValueError, match="start"):
        raw_env(start="middle")
