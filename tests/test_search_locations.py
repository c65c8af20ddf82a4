"""Learned inference in the world sampler: where the unseen cards are (agents/search/locations.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.card_tracker import CardTracker
from agents.bots.expert import ExpertAgent
from agents.search import SearchAgent, SearchConfig, world_hand
from agents.search.locations import (
    LAYOUT,
    PLACES,
    SHIPPED,
    LocationGuide,
    LocationModel,
    Positions,
    collect_positions,
    load_model,
    load_positions,
    location_loss,
    main,
    save_model,
    score_samplers,
    split_hands,
    train_model,
    true_counts,
    uniform_loss,
    world_loss,
)
from agents.search.worlds import WorldSampler, inconsistency
from env.core.registry import ruleset_from_config
from env.core.suits import TRUMP
from env.standard.encoding import slot_table, slots_of_layout
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_search import _position


@pytest.fixture(scope="module")
def positions():
    return collect_positions([ExpertAgent() for _ in range(4)], 6, seed=3)


@pytest.fixture(scope="module")
def model_file(tmp_path_factory, positions):
    model, stats = train_model(positions, steps=20, batch=64, hidden=32, holdout=0.34)
    path = tmp_path_factory.mktemp("loc") / "loc.pt"
    save_model(model, path, stats)
    return path


def test_true_counts_are_the_seats_unseen_cards_where_they_really_are():
    checked = 0
    for seed in range(12):
        hand = _position(seed, 7 * seed % 90)
        if hand.phase != Phase.PLAY:
            continue
        for seat in range(4):
            view = view_of(hand, seat)
            table = slot_table(hand.ctx, LAYOUT)
            counts = true_counts(hand, seat, table, slots_of_layout(LAYOUT))
            unseen = CardTracker(view).unseen
            assert [int(counts[table[k]].sum()) for k in range(len(unseen))] == unseen
            assert (counts[:, 0:3].sum(axis=0) == [hand.hand_sizes[(seat + r) % 4] for r in (1, 2, 3)]).all()
            knows_kitty = seat == hand.buried_by
            assert counts[:, 3].sum() == (0 if knows_kitty else len(hand.kitty))
            checked += 1
    assert checked >= 20


def test_positions_are_play_decisions_with_their_hands(positions):
    assert len(positions) == len(positions.counts) == len(positions.hands) > 100
    assert set(positions.hands.tolist()) == set(range(6))
    assert positions.counts.shape[1:] == (slots_of_layout(LAYOUT), PLACES)
    # every position has unseen cards somewhere, and never more than two copies of a slot
    assert (positions.counts.sum(axis=(1, 2)) > 0).all()
    assert positions.counts.sum(axis=2).max() <= 2


def test_the_held_out_hands_are_whole_and_the_losses_are_per_copy(positions):
    train, test = split_hands(positions.hands, 0.34, seed=0)
    assert len(train) + len(test) == len(positions) and len(test)
    assert not set(positions.hands[train].tolist()) & set(positions.hands[test].tolist())
    one_hand = Positions(positions.obs[:5], positions.counts[:5], np.zeros(5, dtype=np.int64))
    with pytest.raises(ValueError, match="at least two"):
        train_model(one_hand, steps=2)
    _, stats = train_model(positions, steps=5, batch=32, hidden=16, holdout=0.34)
    assert stats["held_out"] == len(test) < stats["positions"]
    assert np.isfinite(stats["held_out_loss"]) and np.isfinite(stats["uniform_loss"])
    # A model that says "in proportion to the unseen cards at each place" scores the uniform loss exactly.
    counts = torch.from_numpy(positions.counts[:50]).float()
    share = counts.sum(dim=1, keepdim=True).expand_as(counts)
    logits = torch.log(share.clamp(min=1e-12))
    assert location_loss(logits, counts).item() == pytest.approx(uniform_loss(positions.counts[:50]), rel=1e-5)


def test_a_model_round_trips_and_foreign_files_are_refused(model_file, tmp_path):
    model = load_model(model_file)
    obs = torch.randn(3, model.obs_size)
    again = load_model(model_file)
    assert torch.equal(model(obs), again(obs))
    with pytest.raises(ValueError, match="decks"):
        load_model(model_file, ruleset_from_config({"decks": 3}))
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a readable location model"):
        load_model(bad)
    other = tmp_path / "other.pt"
    torch.save({"state_dict": {}}, other)
    with pytest.raises(ValueError, match="not a location model"):
        load_model(other)
    old = tmp_path / "old.pt"
    saved = torch.load(model_file, weights_only=True)
    saved["header"]["version"] = 0
    torch.save(saved, old)
    with pytest.raises(ValueError, match="format version 0"):
        load_model(old)


def test_weights_of_one_draw_the_exact_samplers_worlds():
    hand = _position(5, 30)
    view = view_of(hand, hand.current_player)
    ones = [[1.0] * 5 for _ in range(54)]
    plain, weighted = WorldSampler(view), WorldSampler(view, place_weights=ones)
    a, b = random.Random(4), random.Random(4)
    for _ in range(5):
        assert plain.sample(a) == weighted.sample(b)


def test_the_shipped_model_is_found_from_anywhere_and_a_missing_one_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert isinstance(load_model(SHIPPED), LocationModel)
    with pytest.raises(ValueError, match="no location model at"):
        load_model("checkpoints/locations/none.pt")


def test_strength_zero_gives_weights_of_one(model_file):
    hand = _position(9, 41)
    view = view_of(hand, hand.current_player)
    guide = LocationGuide(load_model(model_file), strength=0.0)
    assert all(w == 1.0 for row in guide.place_weights(view) for w in row)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 90), bots=st.sampled_from(["expert", "random", "mixed"]),
       strength=st.sampled_from([0.5, 1.0, 4.0]))
def test_guided_worlds_keep_the_samplers_guarantees(model_file, seed, plays, bots, strength):
    hand = _position(seed, plays, bots)
    if hand.phase != Phase.PLAY:
        return
    view = view_of(hand, hand.current_player)
    guide = LocationGuide(load_model(model_file), strength=strength)
    weights = guide.place_weights(view)
    assert all(w > 0 for row in weights for w in row)
    sampler = WorldSampler(view, place_weights=weights)
    rng = random.Random(seed)
    for _ in range(3):
        world = sampler.sample(rng)
        assert inconsistency(view, world) is None
        world_hand(view, world)


def test_strong_odds_move_the_cards_where_the_model_says():
    """A model sure that the trumps are with the next seat and the plain cards with the partner deals the
    next seat more trumps than the exact sampler does, in worlds that stay consistent."""
    hand = _position(2, 12)
    view = view_of(hand, hand.current_player)
    rules = ruleset_from_config(None)
    slots = slots_of_layout(LAYOUT)
    model = LocationModel(rules.observation_size(LAYOUT), slots, hidden=8)
    bias = torch.zeros(slots, PLACES)
    bias[:21, 0] = 8.0   # the trump block (env/standard/encoding.py: 21 slots first) -> the next seat
    bias[21:, 1] = 8.0   # the plain suits -> the partner
    with torch.no_grad():
        model.net[-1].weight.zero_()
        model.net[-1].bias.copy_(bias.reshape(-1))
    nxt = (view.seat + 1) % 4
    trumps = [k for k in view.ctx.suit_kinds[TRUMP] if CardTracker(view).unseen[k]]
    plain, guided = WorldSampler(view), WorldSampler(view, place_weights=LocationGuide(model).place_weights(view))

    def trumps_next(sampler, rng):
        worlds = [sampler.sample(rng) for _ in range(40)]
        assert all(inconsistency(view, w) is None for w in worlds)
        return np.mean([sum(w.hands[nxt][k] for k in trumps) for w in worlds])

    assert trumps_next(guided, random.Random(0)) > trumps_next(plain, random.Random(0)) + 2


def test_the_search_refuses_a_missing_or_foreign_location_model(model_file, tmp_path):
    with pytest.raises(ValueError, match="location_model"):
        SearchConfig(inference="locations", location_model="")
    with pytest.raises(ValueError, match="location_strength"):
        SearchConfig(inference="locations", location_model=str(model_file), location_strength=-1)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a readable location model"):
        SearchAgent(ExpertAgent(), SearchConfig(inference="locations", location_model=str(bad)))


def test_the_search_with_locations_plays_legal_plays(model_file):
    agent = SearchAgent(ExpertAgent(), SearchConfig(inference="locations", location_model=str(model_file),
                                                     worlds=4, screen_worlds=2, max_candidates=3, time_budget=5.0),
                        seed=1)
    played = 0
    for seed in range(6):
        hand = _position(seed, 10 + 9 * seed)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        play = agent.play(view)
        assert view.play_error(list(play)) is None
        played += 1
    assert played >= 3


def test_the_commands_collect_positions_and_learn_a_model(tmp_path, capsys):
    data, out = tmp_path / "p.npz", tmp_path / "m.pt"
    assert main(["collect", "--hands", "4", "--keep", "0.5", "--seed", "2", "--out", str(data)]) == 0
    positions = load_positions([data, data])
    assert len(positions) > 50 and len(set(positions.hands.tolist())) == 8  # two files: their hands apart
    assert main(["learn", "--positions", str(data), "--steps", "3", "--hidden", "16", "--out", str(out)]) == 0
    assert isinstance(load_model(out), LocationModel)
    assert "held-out loss" in capsys.readouterr().out
    np.savez(tmp_path / "junk.npz", obs=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="not a file of positions"):
        load_positions([tmp_path / "junk.npz"])


class _Always:
    def __init__(self, world):
        self.world = world

    def sample(self, rng):
        return self.world


def test_world_loss_is_zero_for_the_true_deal_and_the_floor_for_a_wrong_one():
    from tests.test_search import _true_world

    hand = _position(4, 32)  # eight whole tricks: the three other seats hold as many cards
    assert hand.phase == Phase.PLAY and not hand.trick_plays
    view = view_of(hand, hand.current_player)
    unseen = sum(CardTracker(view).unseen)
    true = _true_world(hand)
    nats, copies = world_loss(view, hand, _Always(true), 5, random.Random(0))
    # the true deal places every copy where it is; a kind whose copies are at two places is a coin flip there
    kitty = () if view.kitty else true.kitty

    def places_holding(kind):
        return sum(1 for s in range(4) if s != view.seat and true.hands[s][kind]) + (kind in kitty)

    split = sum(1 for kind in range(54) if places_holding(kind) == 2)
    assert copies == unseen and nats == pytest.approx(split * 2 * np.log(2))
    # the other seats' hands passed round: most unseen copies are somewhere else
    others = [(view.seat + r) % 4 for r in (1, 2, 3)]
    rotated = list(true.hands)
    for a, b in zip(others, others[1:] + others[:1], strict=True):
        rotated[b] = true.hands[a]
    nats, copies = world_loss(view, hand, _Always(type(true)(tuple(rotated), true.kitty)), 3, random.Random(0))
    assert copies == unseen and nats / copies > 1.0


def test_scores_of_the_two_samplers_are_per_copy(model_file):
    found = score_samplers(LocationGuide(load_model(model_file)), ExpertAgent(), hands=1, seed=5, share=0.2,
                           worlds=4)
    assert found["positions"] > 0
    assert 0 < found["exact"] < 7 and 0 < found["guided"] < 7


def test_a_table_the_model_does_not_read_is_dealt_by_the_exact_sampler(model_file):
    """A three-deck table (another observation): the guide refuses its views by name, and the search with
    locations deals that table's worlds with the exact sampler and plays legally."""
    from env.standard.hand import Hand

    three = ruleset_from_config({"decks": 3})
    guide = LocationGuide(load_model(model_file))
    assert guide.reads(ruleset_from_config(None)) and not guide.reads(three)
    hand = Hand.new(3, three, level="2", dealer=0)
    expert = ExpertAgent()
    while hand.phase != Phase.PLAY:
        seat = hand.current_player
        hand.act(seat, expert.act(view_of(hand, seat)))
    view = view_of(hand, hand.current_player)
    with pytest.raises(ValueError, match="3 decks"):
        guide.place_weights(view)
    agent = SearchAgent(ExpertAgent(), SearchConfig(inference="locations", location_model=str(model_file),
                                                     worlds=3, screen_worlds=2, max_candidates=2, time_budget=5.0))
    assert agent.sampler(view).place_weights is None
    assert view.play_error(list(agent.play(view))) is None
