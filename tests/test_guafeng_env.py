"""The 刮风 environment: ``shengji_v0`` with ``rules="guafeng"`` (env/shengji_env.py, env/guafeng/actions.py,
env/guafeng/encoding.py).

Masks are checked against a brute-force enumeration at every decision type (fix,
回牌, burial, first lead, lead, follow), random hands run through the AEC API and
PettingZoo's api_test, observations are sized from the rule set and hide what the
seat may not know, the whole-play view matches the card steps, bad input changes
nothing, and an env-played hand replays from its log.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import yaml

import env as env_package
from env.core.actions import NUM_ACTIONS, PASS, STOP
from env.core.cards import NUM_KINDS, POINTS, counts_of
from env.core.errors import IllegalActionError
from env.core.registry import make_ruleset, ruleset_from_config
from env.guafeng.actions import GuafengComposer
from env.guafeng.encoding import CARD_SETS, SCALAR_FEATURES, GuafengEncoder, slot_table
from env.guafeng.fixing import FIX_TABLE, Fix, StandingFix, fix_error, give_back_error
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.moves import legal_follows, legal_leads, sub_multisets
from env.guafeng.rewards import hand_rewards as guafeng_hand_rewards
from env.guafeng.view import guafeng_view_of
from env.shengji_env import AGENTS, env, raw_env
from env.standard.encoding import observation_size

RULES = make_ruleset("guafeng", {"match_hands": 2})
CONF = Path(__file__).resolve().parents[1] / "conf" / "rules" / "guafeng.yaml"
FOLLOW_LIMIT = 20000  # a follow decision with more legal follows is not brute-forced


def contains(big: Counter, small: Counter) -> bool:
    return all(big[k] >= n for k, n in small.items())


# ---------------------------------------------------------------------------- brute force

def brute_fix_mask(hand: GuafengHand, seat: int, picked: list[int]) -> np.ndarray:
    """From the whole table of fixes: the cards that keep the picks inside some legal fix's cards."""
    legal = [Counter(f.cards) for f in FIX_TABLE if fix_error(hand.hands[seat], f, hand.standing) is None]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for k in range(NUM_KINDS):
        if any(contains(cards, Counter([*picked, k])) for cards in legal):
            mask[k] = 1
    mask[STOP] = any(cards == Counter(picked) for cards in legal)
    mask[PASS] = not picked
    return mask


def brute_give_back_mask(hand: GuafengHand, seat: int, picked: list[int]) -> np.ndarray | None:
    """Every completion of the 回牌 tried (``None`` when more than two cards would be left to try)."""
    left = hand.give_back_count - len(picked) - 1
    if left > 2:
        return None
    locked = counts_of(hand.standing.fix.cards)  # the eater's new fix stays in its hand
    givable = [hand.hands[seat][k] - locked[k] for k in range(NUM_KINDS)]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for k in range(NUM_KINDS):
        rest = list(givable)
        for c in [*picked, k]:
            rest[c] -= 1
        if min(rest) < 0:
            continue
        items = [(c, n) for c, n in enumerate(rest) if n > 0]
        mask[k] = any(give_back_error(givable, [*picked, k, *more], hand.give_back_count,
                                      hand.give_back_constants) is None for more in sub_multisets(items, left))
    return mask


def brute_play_mask(hand: GuafengHand, seat: int, picked: list[int]) -> np.ndarray | None:
    """From the whole list of legal leads or follows (``None`` for a follow with too many to list)."""
    held = hand.hands[seat]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if hand.first_lead:
        for k in range(NUM_KINDS):
            mask[k] = held[k] > 0 and not picked
        return mask
    if hand.lead is None:
        plays = legal_leads(hand.ctx, held)
    else:
        plays = legal_follows(hand.ctx, held, hand.lead, FOLLOW_LIMIT)
        if plays.truncated:
            return None
    options = [Counter(p) for p in plays.plays]
    for k in range(NUM_KINDS):
        mask[k] = any(contains(p, Counter([*picked, k])) for p in options)
    if hand.lead is None:
        mask[STOP] = any(p == Counter(picked) for p in options) and bool(picked)
    return mask


def brute_mask(hand: GuafengHand, picked: list[int]) -> np.ndarray | None:
    seat = hand.current_player
    if hand.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        return brute_fix_mask(hand, seat, picked)
    if hand.phase == GuafengPhase.GIVE_BACK:
        return brute_give_back_mask(hand, seat, picked)
    if hand.phase == GuafengPhase.KITTY:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for k in range(NUM_KINDS):
            mask[k] = hand.hands[seat][k] > picked.count(k)
        return mask
    return brute_play_mask(hand, seat, picked)


# ---------------------------------------------------------------------------- masks

def test_masks_agree_with_brute_force_at_every_decision_type():
    checked = Counter()
    for seed in range(8):
        environment = raw_env(rules=RULES, start="random" if seed % 2 else "first")
        environment.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not any(environment.terminations.values()):
            raw = environment
            composer = raw.decision.composer
            expected = brute_mask(raw.hand, composer.picked)
            mask = raw.action_mask()
            if expected is not None:
                assert np.array_equal(mask, expected), (composer.mode, composer.picked,
                                                        np.flatnonzero(mask), np.flatnonzero(expected))
                first = composer.mode == "lead" and composer.target == 1
                checked["first_lead" if first else composer.mode] += 1
            # leave a fix decision by fixing more often than a uniform pick would, to reach 吃 and 回牌
            actions = np.flatnonzero(mask)
            if composer.mode == "fix" and len(actions) > 1 and rng.random() < 0.7:
                actions = actions[actions != PASS]
            raw.step(int(rng.choice(actions)))
    assert {"fix", "give_back", "bury", "first_lead", "lead", "follow"} <= set(checked), checked


def test_every_fix_is_reachable_and_the_four_joker_set_shows_the_kind_picked_first():
    hand = GuafengHand.from_deck(_deck_with_first(0, "BJ BJ LJ LJ H7 H7 H8 H8"))
    while hand.current_player != 0 or not any(f.strength == (2, 2) for f in hand.fix_options(0)):
        hand.pass_fix(hand.current_player)
    options = hand.fix_options(0)
    for fix in options:
        composer = GuafengComposer(guafeng_view_of(hand, 0))
        for k in fix.jokers + fix.base:  # the shown jokers first
            assert composer.mask()[k], (fix, composer.picked, k)
            composer.step(k)
        assert composer.mask()[STOP]
        composer.step(STOP)
        assert composer.decision() == fix
    both = [f for f in options if sorted(f.cards) == sorted(Fix.of("BJ BJ", "LJ LJ").cards)]
    assert len(both) == 2


def _deck_with_first(seat: int, cards: str) -> list[str]:
    from tests.test_guafeng_hand import deck_of

    return deck_of({seat: cards})


# ---------------------------------------------------------------------------- the AEC API

def play_random(environment, seed: int, check=None) -> None:
    rng = np.random.default_rng(seed)
    for agent in environment.agent_iter():
        obs, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        assert environment.observation_space(agent).contains(obs)
        environment.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if check is not None:
            check(environment.unwrapped)


def test_random_hands_and_matches_through_the_aec_api():
    for seed in range(6):
        environment = env(rules=RULES, episode="match" if seed < 2 else "hand",
                          start="random" if seed % 3 == 2 else "first")
        environment.reset(seed=seed)
        totals = [0.0] * 4

        def check(raw, totals=totals):
            assert raw.hand.cards_accounted() == 108
            if raw.agents and raw.decision is not None:  # observe encodes from the composer's view: still current
                seat = AGENTS.index(raw.agent_selection)
                observed = raw.observe(raw.agent_selection)
                view = guafeng_view_of(raw.hand, seat)
                assert np.array_equal(observed["observation"], raw.encoder.encode(view, seat, raw.decision.picked))
                assert np.array_equal(observed["history"], raw.encoder.history(view, seat))
            for i, agent in enumerate(AGENTS):
                totals[i] += raw.rewards.get(agent, 0.0)

        play_random(environment, seed, check)
        raw = environment.unwrapped
        hand = raw.hand
        assert hand.phase == GuafengPhase.DONE and not environment.agents
        assert sum(t.points for t in hand.tricks) + sum(POINTS[k] for k in hand.kitty) == 200
        assert totals[0] == totals[2] == -totals[1] == -totals[3]
        if raw.match is not None:
            assert raw.match.finished and raw.match.hands_played == 2
            assert totals[0] == raw.match.climbed[0] - raw.match.climbed[1]
        else:
            assert tuple(totals[:2]) == guafeng_hand_rewards(hand.result, hand.dealer)


def test_the_guafeng_config_builds_the_env_and_gymnasium_still_registers():
    config = yaml.safe_load(CONF.read_text())
    rules = ruleset_from_config(config)
    assert rules.name == "guafeng" and rules.options.match_hands == config["match_hands"]
    environment = raw_env(rules=config)
    environment.reset(seed=1)
    assert environment.ruleset.name == "guafeng"
    assert environment.observation_space("player_0")["observation"].shape == (2831,)
    assert env_package.GYM_ID in gymnasium.registry

    class ViewPolicy:
        def __init__(self, seed):
            self.rng = random.Random(seed)

        def act(self, view):
            return random_whole_decision(view, self.rng)

    single = gymnasium.make(env_package.GYM_ID, opponents=[ViewPolicy(i) for i in range(3)], rules="guafeng")
    _, info = single.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        _, reward, terminated, truncated, info = single.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
    assert reward in {float(n) for n in range(-12, 13)}


def random_whole_decision(view, rng: random.Random):
    """A random legal decision from a seat's view (fix or pass, 回牌, burial, play)."""
    if view.decision == "fix":
        return rng.choice([None, *view.fix_options()])
    if view.decision == "give_back":
        chosen: list[int] = []
        for _ in range(view.give_back_count):
            chosen.append(rng.choice(view.give_back_options(chosen)))
        return chosen
    if view.decision == "bury":
        return rng.sample([k for k in range(NUM_KINDS) for _ in range(view.hand[k])], 4)
    return list(rng.choice(view.legal_plays(200).plays))


# ---------------------------------------------------------------------------- whole plays, bad input, logs

def test_whole_decisions_give_the_same_hand_as_card_steps_and_the_log_replays():
    for seed in range(3):
        by_cards, whole = raw_env(rules=RULES), raw_env(rules=RULES)
        by_cards.reset(seed=seed)
        whole.reset(seed=seed)
        rng = random.Random(seed)
        while not any(whole.terminations.values()):
            hand = whole.hand
            seat = hand.current_player
            decision = random_whole_decision(whole.view(seat), rng)
            if hand.phase == GuafengPhase.PLAY:
                assert whole.legal_plays() == hand.legal_plays(seat)
            whole.apply_decision(decision)
            if decision is None:
                by_cards.step(PASS)
            else:
                cards = list(decision.jokers + decision.base) if isinstance(decision, Fix) else decision
                for k in cards:
                    by_cards.step(k)
                if by_cards.decision is not None and by_cards.hand.decisions == hand.decisions[:-1]:
                    by_cards.step(STOP)  # a fix or a later lead ends on STOP
        assert by_cards.hand.to_log() == whole.hand.to_log()
        assert by_cards._cumulative_rewards == whole._cumulative_rewards
        replay = GuafengHand.from_log(whole.hand.to_log())
        assert replay.to_log() == whole.hand.to_log() and replay.result == whole.hand.result


def test_illegal_actions_and_plays_raise_and_change_nothing():
    environment = raw_env(rules=RULES)
    environment.reset(seed=5)
    rng = np.random.default_rng(5)
    refused = Counter()
    while not any(environment.terminations.values()):
        mask = environment.action_mask()
        before = (environment.hand.to_log(), list(environment.decision.picked), mask.tobytes())
        illegal = np.flatnonzero(mask == 0)
        with pytest.raises(IllegalActionError):
            environment.step(int(rng.choice(illegal)))
        with pytest.raises(IllegalActionError):
            environment.step(NUM_ACTIONS + 3)
        if environment.hand.phase == GuafengPhase.PLAY and not environment.decision.picked:
            hand = environment.hand
            held = [k for k in range(NUM_KINDS) for _ in range(hand.hands[hand.current_player][k])]
            bad = held[:2] if hand.first_lead else next(
                (held[i:i + 3] for i in range(len(held) - 2) if hand.play_error(hand.current_player, held[i:i + 3])),
                None)
            if bad is not None:
                with pytest.raises(IllegalActionError):
                    environment.play(bad)
                refused["play"] += 1
        if environment.decision.composer.mode == "fix" and not environment.decision.picked:
            with pytest.raises(IllegalActionError):
                environment.apply_decision(Fix.of("BJ BJ", "LJ LJ")
                                           if Fix.of("BJ BJ", "LJ LJ") not in environment.decision.view.fix_options()
                                           else Fix.of("LJ", "S2"))
            refused["fix"] += 1
        if environment.decision.composer.mode == "bury":
            with pytest.raises(IllegalActionError):
                held = environment.hand.hands[environment.hand.current_player]
                environment.play([k for k in range(NUM_KINDS) if held[k]][:3])
            refused["bury"] += 1
        assert (environment.hand.to_log(), list(environment.decision.picked),
                environment.action_mask().tobytes()) == before
        environment.step(int(rng.choice(np.flatnonzero(mask))))
    assert set(refused) == {"play", "fix", "bury"}


# ---------------------------------------------------------------------------- observations

def test_the_observation_is_sized_from_the_rule_set_and_the_standard_one_is_unchanged():
    assert observation_size("canonical") == 1871 and observation_size("raw") == 1415
    canonical = len(CARD_SETS) * 2 * 79 + sum(n for _, n in SCALAR_FEATURES)
    assert RULES.observation_size("canonical") == canonical == 2831
    assert RULES.observation_size("raw") == canonical - len(CARD_SETS) * 2 * 25
    for layout in ("canonical", "raw"):
        environment = raw_env(rules=RULES, layout=layout, history_len=5)
        environment.reset(seed=2)
        obs = environment.observe(environment.agent_selection)
        assert obs["observation"].shape == (RULES.observation_size(layout),)
        assert obs["history"].shape == (5, 4 * (79 if layout == "canonical" else 54) + 9)


def _scalar(obs: np.ndarray, name: str, slots: int = 79) -> np.ndarray:
    i = len(CARD_SETS) * 2 * slots
    for feature, size in SCALAR_FEATURES:
        if feature == name:
            return obs[i:i + size]
        i += size
    raise KeyError(name)


def _to_first_lead(seed: int) -> GuafengHand:
    """A hand with a fix standing, at its burial."""
    rng = random.Random(seed)
    hand = RULES.new_hand(seed)
    while hand.phase != GuafengPhase.KITTY:
        view = guafeng_view_of(hand, hand.current_player)
        decision = random_whole_decision(view, rng)
        if view.decision == "fix" and view.fix_options():
            decision = view.fix_options()[0]
        hand.act(hand.current_player, decision)
    return hand


def test_the_observation_hides_the_standing_base_and_the_trump_until_the_first_lead():
    encoder = GuafengEncoder()
    swaps = 0
    for seed in range(6):
        hand = _to_first_lead(seed)
        if hand.stepped_down:
            continue
        fixer = hand.standing.seat
        old = hand.standing.fix
        # Another base of the same size in another suit: a different trump nobody else can tell apart.
        suit = "SHCD"[("SHCD".index(old.trump) + 1) % 4] if old.trump in "SHCD" else "S"
        other = Fix.of([k for k in old.jokers], " ".join(f"{suit}{r}" for r in "4466"[:len(old.base)]))
        if len(old.base) > 4 or hand.trump == "constants":
            continue
        swaps += 1
        swapped = copy.deepcopy(hand)
        swapped.standing = StandingFix(fixer, other)
        swapped.fixes[-1].fix = other
        swapped.trump = other.trump
        swapped.ctx = RULES.trump_context(hand.level, other.trump)
        for seat in range(4):
            a, b = encoder.encode(hand, seat), encoder.encode(swapped, seat)
            if seat == fixer:
                assert _scalar(a, "trump_known")[0] == 1 and not np.array_equal(a, b)
            else:
                assert np.array_equal(a, b), seat
                assert _scalar(a, "trump_known")[0] == 0 and _scalar(a, "trump_mode")[-1] == 1
        taker = hand.kitty_taker
        hand.bury(taker, [k for k in range(NUM_KINDS) for _ in range(hand.hands[taker][k])][:4])
        hand.play(taker, [next(k for k in range(NUM_KINDS) if hand.hands[taker][k])])
        for seat in range(4):
            obs = encoder.encode(hand, seat)
            assert _scalar(obs, "trump_known")[0] == 1 and _scalar(obs, "trump_revealed")[0] == 1
            assert _scalar(obs, "trump_mode")[-1] == 0
    assert swaps >= 3


def test_the_observation_shows_the_own_hand_and_ignores_other_seats_cards():
    encoder = GuafengEncoder()
    rng = random.Random(1)
    for seed in range(6):
        hand = _to_first_lead(seed)
        taker = hand.kitty_taker
        hand.bury(taker, [k for k in range(NUM_KINDS) for _ in range(hand.hands[taker][k])][:4])
        for _ in range(rng.randrange(1, 40)):
            hand.play(hand.current_player, rng.choice(hand.legal_plays(max_plays=50).plays))
        viewer = rng.randrange(4)
        obs = encoder.encode(hand, viewer)
        table = slot_table(hand.ctx, "canonical")
        held = obs[:79][table]
        assert np.array_equal(held, np.array(hand.hands[viewer]) >= 1)
        # Deal the other seats' cards among them again: the viewer cannot tell.
        shuffled = copy.deepcopy(hand)
        owners = [s for s in range(4) if s != viewer]
        pool = [k for s in owners for k in hand.hand_cards(s)]
        rng.shuffle(pool)
        for s in owners:
            shuffled.hands[s] = [0] * NUM_KINDS
            for k in pool[:hand.hand_sizes[s]]:
                shuffled.hands[s][k] += 1
            pool = pool[hand.hand_sizes[s]:]
        assert np.array_equal(obs, encoder.encode(shuffled, viewer))
        assert np.array_equal(encoder.history(hand, viewer), encoder.history(shuffled, viewer))


def test_rewards_are_the_levels_climbed_from_each_side():
    from env.guafeng.hand import GuafengResult

    def result(points, winner, levels):
        return GuafengResult(defender_points=points, trick_points=0, kitty_points=0, kitty_multiplier=1,
                             kitty_bonus=0, penalty_points=0, winner=winner, levels=levels, next_dealer=0,
                             stage_run=1, stage_limit_reached=False)

    assert guafeng_hand_rewards(result(-40, "dealers", 4), dealer=1) == (-4.0, 4.0)
    assert guafeng_hand_rewards(result(200, "defenders", 3), dealer=1) == (3.0, -3.0)
    assert guafeng_hand_rewards(result(90, "defenders", 0), dealer=0, scheme="win_loss") == (-1.0, 1.0)
    assert guafeng_hand_rewards(result(160, "defenders", 2), dealer=0, scheme="points") == (-1.0, 1.0)
    assert guafeng_hand_rewards(result(0, "dealers", 3), dealer=2, scheme="level_points") == (3.5, -3.5)
