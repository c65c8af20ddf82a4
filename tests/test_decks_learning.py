"""One to four decks (RULES.md 11) above the engine: observations, masks, the learner, checkpoints, the search.

With ``d`` decks the observation carries ``d`` count planes per card set and a
bid-strength place per step of the ladder; the masks stay exact (checked
against every legal follow of small random positions, enumerated with
``follow_error``); the learner's whole-play candidates hold every m-tuple and
tractor (m, k) (found here by decomposing every candidate set of kinds, not
with the move generator); a checkpoint of one deck count refuses a table of
another naming ``decks``; and the search deals ``d`` copies of every card.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
import torch
from pettingzoo.test import api_test, seed_test
from test_play_mode import random_play_views

from agents.bots.heuristics import play_cost
from agents.bots.random_agent import RandomAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.candidates import MAX_FOLLOWS, special_actions
from agents.dmc.learner_rules import card_step_table, feature_size
from agents.dmc.play_tables import PlayTables
from agents.dmc.plays import EXTRA, learner_plays, play_feature_size, play_rows
from agents.runner import play_hand
from agents.search import SearchAgent, SearchConfig, WorldSampler
from agents.search.candidates import lead_ideas
from agents.search.worlds import World, inconsistency
from agents.selfplay.checkpoint import CheckpointError, check_resumable, load_checkpoint, new_model, save_checkpoint
from env.core.cards import NUM_KINDS, counts_of
from env.core.registry import make_ruleset
from env.core.suits import NUM_EFFECTIVE_SUITS
from env.shengji_env import raw_env
from env.standard import tuples
from env.standard.actions import PlayComposer, num_actions
from env.standard.bidding import StandingBid
from env.standard.encoding import (
    CARD_SET_NAMES,
    NUM_CARD_PLANES,
    ObservationEncoder,
    scalar_features,
    slot_table,
    slots_of_layout,
)
from env.standard.hand import Phase
from env.standard.tricks import Lead, follow_error
from env.standard.view import view_of
from tests.test_train import config, small_run

LAYOUT = "canonical"
SLOTS = slots_of_layout(LAYOUT)


def rules_of(decks: int):
    return make_ruleset("standard", {"decks": decks})


def play_views(decks: int, seeds, agent_factory=RandomAgent):
    """(hand, view) at every lead and follow of hands of ``decks`` decks played by ``agent_factory`` bots."""
    return random_play_views(seeds, agent_factory, rules_of(decks))


# ---------------------------------------------------------------------- observations


@pytest.mark.parametrize("decks", [1, 3, 4])
def test_pettingzoo_api_and_seed_tests(decks):
    api_test(raw_env(rules={"decks": decks}), num_cycles=300)
    seed_test(lambda **kw: raw_env(rules={"decks": decks}, **kw), num_cycles=100)


@pytest.mark.parametrize("decks", [1, 3, 4])
def test_the_count_planes_read_back_as_every_card_set(decks):
    # Plane j of a card set says ">= j + 1 copies": summing the planes at a kind's slot gives its count.
    rules = rules_of(decks)
    encoder = ObservationEncoder(LAYOUT, ruleset=rules)
    assert encoder.size == rules.observation_size(LAYOUT) > NUM_CARD_PLANES * decks * SLOTS
    checked = 0
    for hand, view in play_views(decks, range(2)):
        seat = view.seat
        obs = encoder.encode(view, seat)
        assert np.array_equal(obs, encoder.encode(hand, seat))  # the hand and the seat's view agree
        planes = obs[:NUM_CARD_PLANES * decks * SLOTS].reshape(NUM_CARD_PLANES, decks, SLOTS)
        assert np.all(np.diff(planes, axis=1) <= 0)  # a thermometer: >= j + 2 copies implies >= j + 1
        table = slot_table(view.ctx, LAYOUT)
        counts = planes.sum(axis=1)[:, table]  # (card set, kind)
        sets = dict(zip(CARD_SET_NAMES, counts, strict=True))
        assert sets["own_hand"].tolist() == list(view.hand)
        for rel, name in enumerate(("played_self", "played_next", "played_partner", "played_prev")):
            assert sets[name].tolist() == list(view.played[(seat + rel) % 4])
        seen = sets["own_hand"] + sum(sets[n] for n in CARD_SET_NAMES[2:6]) + sets["own_kitty"]
        assert (sets["unseen"] == decks - seen).all() and sets["unseen"].sum() == sum(
            h for s, h in enumerate(view.hand_sizes) if s != seat) + (0 if view.kitty else rules.layout.kitty_size)
        checked += 1
    assert checked >= 40


def test_observations_size_the_bid_ladder_and_the_history_by_the_decks():
    sizes = {}
    for decks in (1, 2, 3, 4):
        rules = rules_of(decks)
        env = raw_env(rules={"decks": decks})
        space = env.observation_space("player_0")
        sizes[decks] = space["observation"].shape[0]
        assert space["action_mask"].shape == (rules.num_actions,)
        assert space["history"].shape[1] == 4 * SLOTS + 9
        env.reset(seed=7)
        rng = random.Random(7)
        while not any(env.terminations.values()):
            obs, *_ = env.last()
            assert space.contains(obs)
            assert obs["history"].max() <= 1.0 + 1e-6  # a kind played d times by one seat reads 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        # every bid of the ladder has its own place in the bid-strength one-hot, the bidder and suit after it
        features = scalar_features(rules)
        names = [name for name, _ in features]
        start = NUM_CARD_PLANES * decks * SLOTS + sum(n for _, n in features[:names.index("bid_strength")])
        strengths = dict(features)["bid_strength"]
        assert strengths == max(5, max(bid.strength for bid in rules.bids) + 1)
        encoder = ObservationEncoder(LAYOUT, ruleset=rules)
        hand = rules.new_hand(1)
        for bid in rules.bids:
            hand.standing = StandingBid(1, bid)
            block = encoder.encode(hand, 3)[start:start + strengths + 10]
            assert np.flatnonzero(block).tolist() == [bid.strength, strengths + 2,
                                                      strengths + 5 + (4 if bid.suit is None else bid.suit)]
    # two decks keep the two-deck layout; every further deck adds 12 card planes of 73 slots and three bids
    assert sizes[2] - sizes[1] == NUM_CARD_PLANES * SLOTS
    assert sizes[3] - sizes[2] == NUM_CARD_PLANES * SLOTS + 3
    assert sizes[4] - sizes[3] == NUM_CARD_PLANES * SLOTS + 3


# ---------------------------------------------------------------------- masks against brute force


def random_follow_position(rng: random.Random, decks: int):
    """A small follower's holding (mostly of the lead suit) and a lead of tuples and tractors of the
    copies left, in a random trump context."""
    rules = rules_of(decks)
    ctx = rules.trump_context(rng.randrange(13), rng.choice([0, 1, 2, 3, None]))
    suit = rng.randrange(NUM_EFFECTIVE_SUITS)
    kinds = sorted(ctx.suit_kinds[suit], key=lambda k: ctx.order[k])
    if len(kinds) < 3:
        return None
    deck = [k for k in range(NUM_KINDS) for _ in range(decks)]
    in_suit = [k for k in deck if ctx.suit[k] == suit]
    others = [k for k in deck if ctx.suit[k] != suit]
    hand_cards = rng.sample(in_suit, min(len(in_suit) - 4, rng.randint(3, 10))) + rng.sample(others, rng.randint(0, 4))
    hand = counts_of(hand_cards)
    left = [decks - hand[k] for k in range(NUM_KINDS)]
    m = rng.randint(1, decks)
    length = rng.choice([1, 1, 2, 3])
    start = rng.randrange(len(kinds))
    lead_cards = []
    for k in kinds[start:start + length]:
        lead_cards += [k] * min(m, left[k])
    if rng.random() < 0.3:  # a throw: one more card of the suit
        spare = [k for k in kinds if left[k] - lead_cards.count(k) > 0]
        lead_cards += rng.sample(spare, 1) if spare else []
    if not lead_cards or len(lead_cards) > sum(hand):
        return None
    return ctx, hand, Lead(ctx, lead_cards), rules.num_actions


def brute_force_follows(ctx, hand, lead) -> set[tuple[int, ...]]:
    cards = [k for k in range(NUM_KINDS) for _ in range(hand[k])]
    return {p for p in combinations(cards, lead.n) if follow_error(ctx, hand, p, lead) is None}


@pytest.mark.parametrize("decks", [1, 3])
def test_follow_masks_are_exact_against_every_legal_follow(decks):
    rng = random.Random(decks)
    positions = shaped = 0
    while positions < 100:
        position = random_follow_position(rng, decks)
        if position is None:
            continue
        ctx, hand, lead, size = position
        legal = brute_force_follows(ctx, hand, lead)
        assert legal, "every holding has a legal follow"
        counted = [Counter(p) for p in legal]
        positions += 1
        shaped += any(m >= 2 for m, _ in tuples.requirements(lead.components))
        for _ in range(2):  # two random walks through the card steps
            composer = PlayComposer("follow", ctx, hand, lead, size=size)
            while not composer.complete:
                mask = composer.mask()
                assert mask.shape == (size,) and not mask[NUM_KINDS:].any()
                picked = Counter(composer.picked)
                # a card is allowed iff some legal follow holds the picks and one more copy of it
                expected = {k for p in counted if p >= picked for k in p if p[k] > picked[k]}
                assert set(np.flatnonzero(mask[:NUM_KINDS]).tolist()) == expected
                composer.add(rng.choice(np.flatnonzero(mask).tolist()))
            assert tuple(sorted(composer.picked)) in legal
    assert shaped >= 30 if decks > 1 else shaped == 0


# ---------------------------------------------------------------------- the learner's candidates


def every_tuple_and_tractor(ctx, hand) -> set[tuple[int, ...]]:
    """Independently of the move generator: each set of up to four kinds, m copies each, that decomposes
    into ONE component (an m-tuple, or a tractor (m, k))."""
    found = set()
    for suit in range(NUM_EFFECTIVE_SUITS):
        for m in range(1, max(hand) + 1):
            kinds = [k for k in ctx.suit_kinds[suit] if hand[k] >= m]
            for size in range(1, (1 if m == 1 else min(4, len(kinds))) + 1):
                for chosen in combinations(kinds, size):
                    play = tuple(sorted(k for k in chosen for _ in range(m)))
                    if len(tuples.decompose(ctx, counts_of(play), suit)) == 1:
                        found.add(play)
    return found


@pytest.mark.parametrize("decks", [1, 3, 4])
def test_candidates_are_legal_and_hold_every_tuple_and_tractor_and_every_small_follow_set(decks):
    leads = follows = tractors = 0
    for _, view in play_views(decks, range(2 if decks > 1 else 6)):
        plays = learner_plays(view)
        assert plays and len(plays) == len(set(plays)) and all(list(p) == sorted(p) for p in plays)
        assert all(view.play_error(list(p)) is None for p in plays)
        if view.lead is None:
            every = every_tuple_and_tractor(view.ctx, view.hand)
            assert every <= set(plays)
            assert {tuple(sorted(idea)) for idea in lead_ideas(view)} <= set(plays)
            leads += 1
            tractors += sum(1 for p in every if len(set(p)) >= 2)
        else:
            legal = view.legal_plays(MAX_FOLLOWS + 1)
            if not legal.truncated and len(legal.plays) <= MAX_FOLLOWS:
                assert set(plays) == set(legal.plays)
                follows += 1
            else:
                assert len(plays) <= MAX_FOLLOWS + 10
    assert leads >= 10 and follows >= 20
    if decks > 1:
        assert tractors > 0


@pytest.mark.parametrize("decks", [1, 3])
def test_play_rows_carry_a_count_plane_per_deck(decks):
    width = play_feature_size(LAYOUT, decks)
    special = special_actions(num_actions(decks))
    assert width == feature_size(LAYOUT, "play", rules_of(decks))
    assert width == decks * SLOTS + special + len(EXTRA)
    triples = 0
    for _, view in play_views(decks, range(2)):
        plays = learner_plays(view)
        rows = play_rows(view, plays, LAYOUT)
        assert rows.shape == (len(plays), width)
        table = slot_table(view.ctx, LAYOUT)
        for play, row in zip(plays, rows, strict=True):
            planes = row[:decks * SLOTS].reshape(decks, SLOTS)
            assert planes.sum(axis=0)[table].tolist() == counts_of(play)
            assert row[decks * SLOTS:decks * SLOTS + special].sum() == 0
            # the keeping value spent and a charge per held tuple the play splits (a triple's pair too)
            cost = row[decks * SLOTS + special + EXTRA["cost"]]
            assert cost == pytest.approx(play_cost(view.ctx, view.hand, play) / 100)
            triples += max(Counter(play).values()) >= 3
    if decks == 3:
        assert triples > 0
    # the card-step rows: one per action of the deck count's table
    env = raw_env(rules={"decks": decks})
    env.reset(seed=0)
    assert card_step_table(env.hand, LAYOUT).shape == (num_actions(decks), feature_size(LAYOUT, "card", env.ruleset))


def test_self_play_tables_of_three_decks_score_whole_plays():
    run = small_run("rules.decks=3", "train.warm_start_frames=0", "train.teacher_share=0.5")
    model = new_model(run).eval()
    tables = PlayTables(2, 3, run)
    for _ in range(80):
        tables.step(model, 0.2, 0.5)
    assert tables.frames > 80 and all(env.hand.ruleset.layout.decks == 3 for env in tables.envs)


# ---------------------------------------------------------------------- checkpoints


@pytest.fixture(scope="module")
def three_deck_checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("decks") / "three.pt"
    run = small_run("rules.decks=3")
    save_checkpoint(path, model=new_model(run), optimizer=None, config=config("train=smoke", "rules.decks=3"),
                    counters={"frames": 0})
    return path


def test_a_checkpoint_plays_its_own_deck_count(three_deck_checkpoint):
    agents = [DMCAgent.from_checkpoint(three_deck_checkpoint, seed=0), RandomAgent(1),
              DMCAgent.from_checkpoint(three_deck_checkpoint, seed=2, epsilon=0.3), RandomAgent(3)]
    hand = play_hand(rules_of(3).new_hand(4), agents)
    assert hand.phase == Phase.DONE and hand.cards_accounted() == 162


def test_a_checkpoint_of_another_deck_count_is_refused_naming_decks(three_deck_checkpoint):
    agent = DMCAgent.from_checkpoint(three_deck_checkpoint)
    two = rules_of(2)
    assert agent.can_play(rules_of(3)) and not agent.can_play(two)
    with pytest.raises(CheckpointError, match=r"decks: 3 -> 2"):
        agent.act(view_of(two.new_hand(0), 0))
    with pytest.raises(CheckpointError, match=r"decks: 3 -> 1"):
        agent.policy(rules_of(1))
    state = load_checkpoint(three_deck_checkpoint)
    with pytest.raises(CheckpointError, match=r"decks: 3 -> 2"):
        check_resumable(state, small_run())
    model = check_resumable(state, small_run("rules.decks=3"))
    assert isinstance(model, torch.nn.Module)


# ---------------------------------------------------------------------- the search


@pytest.mark.parametrize("decks", [1, 3])
def test_sampled_worlds_hold_exactly_d_copies_of_every_card(decks):
    rng = random.Random(decks)
    checked = 0
    for hand, view in play_views(decks, range(2)):
        if rng.random() > 0.15:
            continue
        sampler = WorldSampler(view)
        truth = World(tuple(tuple(h) for h in hand.hands), tuple(sorted(hand.kitty)))
        assert inconsistency(view, truth) is None
        for _ in range(3):
            world = sampler.sample(rng)
            assert inconsistency(view, world) is None
            totals = [sum(h[k] for h in world.hands) + sum(p[k] for p in view.played) for k in range(NUM_KINDS)]
            for k in world.kitty:
                totals[k] += 1
            assert totals == [decks] * NUM_KINDS
        # a hidden card swapped for another kind (one copy too few of one, too many of the other) is caught
        other = (view.seat + 1) % 4
        hands = [list(h) for h in world.hands]
        kind = next(k for k in range(NUM_KINDS) if hands[other][k])
        hands[other][kind] -= 1
        hands[other][(kind + 1) % NUM_KINDS] += 1
        assert inconsistency(view, World(tuple(map(tuple, hands)), world.kitty)) is not None
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("decks", [1, 3])
def test_the_search_completes_a_hand(decks):
    config_ = SearchConfig(time_budget=5.0, worlds=2, screen_worlds=1, max_candidates=3, rollout="random")
    agents = [SearchAgent(RandomAgent(0), config_, 0), RandomAgent(1), RandomAgent(2), RandomAgent(3)]
    hand = play_hand(rules_of(decks).new_hand(11), agents)
    assert hand.phase == Phase.DONE and hand.cards_accounted() == 54 * decks
