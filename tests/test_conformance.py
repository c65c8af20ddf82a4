"""One conformance suite over every registered rule set, as OpenSpiel's ``api_test`` over its games.

Each test runs for every name in :func:`env.core.registry.ruleset_names` (the
standard game, 刮风 and the tests' own third rule set of
``tests/rulesets/no_bidding.py``) through the rule-set protocol only:

* random complete hands keep the invariants: every card accounted for at every
  decision, the points of the tricks and the kitty are the deck's, the rewards
  are zero-sum, and the log replays to the same hand; random matches end and
  every hand of them replays;
* card-step masks of leads and follows equal a brute-force reading of the legal
  plays (a card is allowed iff some legal play holds the picks and it; STOP iff
  the picks are a legal play);
* a seat's observation does not change when two other seats swap hidden cards;
* observations lie in their spaces;
* every rule bot with a policy for the rule set plays only legal decisions;
* PettingZoo's ``api_test`` and ``seed_test``.

Per-rule-set test files keep the rule-specific cases (the spec's examples).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents.bots import BOTS
from agents.policies import policy_factory
from agents.registry import make_agent
from agents.runner import play_hand, play_match
from env.core.actions import NUM_ACTIONS, STOP
from env.core.cards import NUM_KINDS, POINTS
from env.core.registry import make_ruleset, ruleset_from_config, ruleset_names
from env.shengji_env import AGENTS, env, raw_env

RULESETS = ruleset_names()


def _random_step(environment: raw_env, rng: np.random.Generator) -> None:
    environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))


def _play_out(environment: raw_env, rng: np.random.Generator, check=None) -> None:
    while not any(environment.terminations.values()) and not any(environment.truncations.values()):
        if check is not None:
            check(environment)
        _random_step(environment, rng)


@pytest.mark.parametrize("name", RULESETS)
def test_random_hands_keep_every_invariant(name):
    ruleset = make_ruleset(name)
    deck_points = sum(POINTS) * ruleset.layout.decks
    for seed in range(4):
        environment = raw_env(rules=name, start="random" if seed % 2 else "first")
        environment.reset(seed=seed)
        rng = np.random.default_rng(seed)

        def conserved(e):
            assert e.hand.cards_accounted() == ruleset.layout.deck_size

        _play_out(environment, rng, conserved)
        hand = environment.hand
        assert hand.finished and all(size == 0 for size in hand.hand_sizes)
        assert sum(t.points for t in hand.tricks) + sum(POINTS[k] for k in hand.kitty) == deck_points
        assert sum(environment.rewards[a] for a in AGENTS) == pytest.approx(0.0)
        assert environment.rewards["player_0"] == environment.rewards["player_2"]
        replay = type(hand).from_log(hand.to_log())
        assert replay.to_log() == hand.to_log() and replay.result == hand.result


@pytest.mark.parametrize("name", RULESETS)
def test_random_matches_end_and_their_hands_replay(name):
    ruleset = make_ruleset(name)
    match = ruleset.new_match(11, max_hands=3)
    agents = [make_agent("random", seat) for seat in range(4)]
    hands = []
    while not match.finished and match.hands_played < 3:
        hand = play_hand(match.new_hand(), agents)
        match.record(hand)
        hands.append(hand)
        with pytest.raises(ValueError, match="already recorded"):
            match.record(hand)
    assert match.hands_played == len(hands) > 0
    for hand in hands:
        assert type(hand).from_log(hand.to_log()).to_log() == hand.to_log()
    if match.hands_played < 3:  # a match of fewer hands than the cap ended on its own rules
        assert match.finished
    assert isinstance(match.level_gap(0), int) and match.level_gap(0) == -match.level_gap(1)
    play_match(ruleset.new_match(12, max_hands=2), agents)


def brute_force_mask(view, picked: list[int]) -> np.ndarray:
    """The mask of a lead or follow with ``picked`` chosen, read off the full list of legal plays."""
    plays = {tuple(sorted(p)) for p in view.legal_plays(None).plays}
    have = Counter(picked)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for play in plays:
        need = Counter(play)
        if all(need[k] >= n for k, n in have.items()) and sum(need.values()) > len(picked):
            for kind in need:
                if need[kind] > have[kind]:
                    mask[kind] = 1
    if picked and tuple(sorted(picked)) in plays:
        mask[STOP] = 1
    return mask


@pytest.mark.parametrize("name", RULESETS)
def test_play_masks_equal_brute_force(name):
    checked = 0
    for seed in range(3):
        environment = raw_env(rules=name, start="random")
        environment.reset(seed=100 + seed)
        rng = np.random.default_rng(seed)
        while not any(environment.terminations.values()):
            hand = environment.hand
            # Late tricks: hands are small enough to list every legal play (throws included).
            if hand.in_play and len(hand.tricks) >= 12 and environment.decision.takes_plays:
                view = environment.decision.view
                mask = environment.action_mask()
                picked = list(environment.decision.picked)
                expected = brute_force_mask(view, picked)
                assert np.array_equal(mask, expected), (name, picked, np.flatnonzero(mask), np.flatnonzero(expected))
                checked += 1
            _random_step(environment, rng)
    assert checked > 20


def _swap_hidden_cards(hand, viewer: int, rng: random.Random) -> bool:
    """Swap one held card between two seats other than ``viewer`` (different kinds); False if none can."""
    others = [s for s in range(hand.num_players) if s != viewer and hand.hand_sizes[s]]
    rng.shuffle(others)
    for a in others:
        for b in others:
            if a == b:
                continue
            kinds_a = [k for k in range(NUM_KINDS) if hand.hands[a][k] and not hand.hands[b][k]]
            kinds_b = [k for k in range(NUM_KINDS) if hand.hands[b][k] and not hand.hands[a][k]]
            if kinds_a and kinds_b:
                x, y = rng.choice(kinds_a), rng.choice(kinds_b)
                hand.hands[a][x] -= 1
                hand.hands[b][x] += 1
                hand.hands[b][y] -= 1
                hand.hands[a][y] += 1
                return True
    return False


def _public(view) -> dict:
    """A view's fields; its trump context by its tables and its lead by its cards (a deep copy makes new, equal
    objects of classes that compare by identity)."""
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
    ctx = fields.pop("ctx", None)
    fields["ctx"] = None if ctx is None else (ctx.suit, ctx.order, ctx.trump_suit)
    if fields.get("lead") is not None:  # an analysed lead, by its cards
        fields["lead"] = tuple(fields["lead"].cards)
    return fields


@pytest.mark.parametrize("name", RULESETS)
def test_observations_do_not_see_other_seats_hidden_cards(name):
    rng = random.Random(5)
    swaps = 0
    for seed in range(3):
        environment = raw_env(rules=name, start="random")
        environment.reset(seed=200 + seed)
        steps = np.random.default_rng(seed)
        while not any(environment.terminations.values()):
            hand = environment.hand
            ruleset = environment.ruleset
            if hand.phase == hand.PLAY_PHASE and steps.random() < 0.3:
                for seat in range(hand.num_players):
                    if seat == hand.current_player:
                        continue  # the acting seat's own decision is not part of this check
                    before = copy.deepcopy(hand)
                    source = ruleset.encoding_source(before, seat, None)
                    encoder = ruleset.encoder("canonical")
                    observed = encoder.encode(source, seat), encoder.history(source, seat)
                    swapped = copy.deepcopy(hand)
                    if not _swap_hidden_cards(swapped, seat, rng):
                        continue
                    source = ruleset.encoding_source(swapped, seat, None)
                    encoder = ruleset.encoder("canonical")
                    assert np.array_equal(encoder.encode(source, seat), observed[0]), (name, seat)
                    assert np.array_equal(encoder.history(source, seat), observed[1]), (name, seat)
                    assert _public(ruleset.view_of(swapped, seat)) == _public(ruleset.view_of(before, seat))
                    swaps += 1
            _random_step(environment, steps)
    assert swaps > 20


@pytest.mark.parametrize("name", RULESETS)
def test_observations_lie_in_their_spaces(name):
    environment = raw_env(rules=name)
    environment.reset(seed=3)
    rng = np.random.default_rng(3)
    space = environment.observation_space("player_0")

    def within(e):
        for agent in AGENTS:
            observation = e.observe(agent)
            assert space.contains(observation), (name, agent)
        assert e.observe(e.agent_selection)["action_mask"].any()

    _play_out(environment, rng, within)


def _bots_of(name: str) -> list[str]:
    return [bot for bot in sorted(BOTS) if policy_factory(bot, name) is not None]


@pytest.mark.parametrize(("name", "bot"), [(n, b) for n in RULESETS for b in _bots_of(n)])
def test_every_rule_bot_plays_only_legal_decisions(name, bot):
    ruleset = make_ruleset(name)
    for seed in range(2):
        agents = [make_agent(bot, seed * 4 + seat) for seat in range(4)]
        hand = play_hand(ruleset.new_hand(seed), agents)  # the hand refuses an illegal decision
        assert hand.finished and hand.cards_accounted() == ruleset.layout.deck_size


def test_every_registered_rule_set_has_bots():
    for name in RULESETS:
        assert _bots_of(name), name


@pytest.mark.parametrize("name", RULESETS)
def test_pettingzoo_api_and_seed_tests(name):
    api_test(env(rules=name), num_cycles=600)
    seed_test(lambda **kw: env(rules=name, **kw), num_cycles=150)


def test_logs_written_before_the_rule_set_packages_still_replay():
    """Hand logs of 刮风 matches and of a standard match with 炒地皮 and 进贡 on (three hands each), written by
    the engine before the rule sets became packages (commit 6f44927), replay to the same log and result."""
    recorded = json.loads((Path(__file__).parent / "data" / "recorded_before_plugins.json").read_text())
    replayed = 0
    for logs in recorded.values():
        for log in logs:
            ruleset = ruleset_from_config({"ruleset": log["ruleset"], **log["options"]})
            hand = ruleset.hand_class.from_log(log)
            assert hand.finished and hand.to_log() == log
            replayed += 1
    assert replayed == 6
