"""Suit renamings (``relabel:<network>``, :mod:`agents.dmc.relabel`): the gathered inputs are the renamed
position's own encoding, the averaged Q is the mean over renamed positions, and bad requests are refused."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert import ExpertAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.learner_rules import decision_candidates
from agents.dmc.plays import play_rows, step_table
from agents.dmc.relabel import (
    IDENTITY,
    encoded_context,
    observation_gather,
    relabelings,
    renamed_encoding,
    renamed_inputs,
    renamed_kind,
)
from agents.registry import RELABEL, RELABELINGS, checkpoint_paths, is_checkpoint, make_agent
from env.core.actions import card_mask
from env.core.cards import RANKS, card_list, parse_cards
from env.core.registry import make_ruleset
from env.standard.encoding import NUM_CARD_PLANES, ObservationEncoder, scalar_features, slots_of_layout
from env.standard.hand import Hand, Phase
from env.standard.trump import trump_context
from env.standard.view import view_of
from tests.test_chaodipi_tribute import tribute_hand
from ui.seats import display_name

NETWORK = "checkpoints/dmc_play_cpu145.pt"


def _twin_hands(seed: int, options: dict) -> tuple[Hand, Hand, tuple[int, ...]]:
    """A random deal at the kitty and the same deal with a random renaming of the plain suits applied."""
    rng = random.Random(seed)
    rules = make_ruleset("standard", options)
    layout = rules.layout
    deck = [k for k in range(54) for _ in range(layout.decks)]
    rng.shuffle(deck)
    size = layout.hand_size
    hands = [deck[i * size:(i + 1) * size] for i in range(4)]
    kitty = deck[4 * size:4 * size + layout.kitty_size]
    trump = rng.choice([None, "S", "H", "C", "D"])
    level, dealer = rng.choice(RANKS), rng.randrange(4)
    original = Hand.from_deal([card_list(h) for h in hands], card_list(kitty), level=level, dealer=dealer,
                              trump=trump, rules=rules)
    renaming = rng.choice(relabelings(original.ctx)[1:])
    renamed = Hand.from_deal([card_list(renamed_kind(renaming, k) for k in h) for h in hands],
                             card_list(renamed_kind(renaming, k) for k in kitty), level=level, dealer=dealer,
                             trump=trump, rules=rules)
    return original, renamed, renaming


def test_the_renamings_are_the_permutations_that_keep_the_trump_suit():
    for trump in (None, 0, 1, 2, 3):
        ctx = trump_context("5", trump)
        found = relabelings(ctx)
        assert len(found) == (24 if trump is None else 6) == len(set(found))
        assert found[0] == IDENTITY
        assert all(sorted(r) == [0, 1, 2, 3] for r in found)
        if trump is not None:
            assert all(r[trump] == trump for r in found)
        assert relabelings(ctx, 4) == found[:4]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000),
       options=st.sampled_from([{}, {"decks": 1}, {"decks": 3}, {"constant_twos": True}, {"tribute": True}]))
def test_the_gathered_inputs_are_the_renamed_positions_encoding(seed, options):
    original, renamed, renaming = _twin_hands(seed, options)
    layout, planes = "canonical", original.ruleset.layout.decks
    coders = (ObservationEncoder(ruleset=original.ruleset), ObservationEncoder(ruleset=original.ruleset))
    bots = [ExpertAgent(seat) for seat in range(4)]
    checked = 0
    while original.phase != Phase.DONE:
        seat = original.current_player
        view, twin = view_of(original, seat), view_of(renamed, seat)
        if original.phase == Phase.KITTY:
            mask = card_mask(view.hand)
            candidates = decision_candidates(view, layout, mask)
            twin_rows = step_table(twin.ctx, layout)[[renamed_kind(renaming, k) for k in candidates.moves]]
        else:
            candidates = decision_candidates(view, layout)
            twin_rows = play_rows(twin, [tuple(sorted(renamed_kind(renaming, k) for k in play))
                                         for play in candidates.moves], layout)
        obs, history = coders[0].encode(view, seat), coders[0].history(view, seat)
        stacked_obs, stacked_history, rows = renamed_inputs(original.ctx, layout, [IDENTITY, renaming],
                                                            original.ruleset, obs, history, candidates.rows, planes)
        np.testing.assert_array_equal(stacked_obs[0], obs)
        np.testing.assert_array_equal(stacked_obs[1], coders[1].encode(twin, seat))
        np.testing.assert_array_equal(stacked_history[1], coders[1].history(twin, seat))
        np.testing.assert_array_equal(rows[:len(candidates.rows)], candidates.rows)
        np.testing.assert_array_equal(rows[len(candidates.rows):], twin_rows)
        checked += 1
        if original.phase == Phase.KITTY:
            burial = bots[seat].bury(view)
            original.bury(seat, burial)
            renamed.bury(seat, [renamed_kind(renaming, k) for k in burial])
        else:
            play = bots[seat].play(view)
            original.play(seat, list(play))
            renamed.play(seat, [renamed_kind(renaming, k) for k in play])
    assert checked > original.ruleset.layout.num_tricks


def test_the_tribute_block_is_renamed_with_the_cards():
    """RULES.md 9: the public tribute and returned cards move with the renaming (the deal-built twins above
    have none), checked against the encoder's own block for the renamed cards."""
    hand = tribute_hand(seed=6)
    bots = [ExpertAgent(seat) for seat in range(4)]
    while hand.phase != Phase.PLAY:
        seat = hand.current_player
        hand.act(seat, bots[seat].act(view_of(hand, seat)))
    view = view_of(hand, hand.dealer)
    assert view.tribute_cards and view.returned_cards
    coder = ObservationEncoder(ruleset=hand.ruleset)
    obs = coder.encode(view, view.seat)
    block = slice(NUM_CARD_PLANES * 2 * slots_of_layout("canonical") + coder.num_scalars, None)  # RULES.md 9's
    for renaming in relabelings(hand.ctx)[1:]:
        renamed = obs[observation_gather(hand.ctx, "canonical", renaming, hand.ruleset)]
        twin = replace(view, tribute_cards=tuple((g, renamed_kind(renaming, k)) for g, k in view.tribute_cards),
                       returned_cards=tuple((g, renamed_kind(renaming, k)) for g, k in view.returned_cards))
        np.testing.assert_array_equal(renamed[block], coder.encode(twin, view.seat)[block])
        assert not np.array_equal(renamed[block], obs[block])


@pytest.fixture(scope="module")
def networks() -> tuple[DMCAgent, DMCAgent]:
    plain = DMCAgent.from_checkpoint(NETWORK)
    return plain, DMCAgent(plain.model, plain.run, relabel=RELABELINGS)


def test_the_averaged_q_is_the_mean_over_the_renamed_positions(networks):
    plain, averaged = networks
    original, _, _ = _twin_hands(7, {})
    bots = [ExpertAgent(seat) for seat in range(4)]
    dealer = original.current_player
    original.bury(dealer, bots[dealer].bury(view_of(original, dealer)))
    for _ in range(9):  # a few plays in, so the history and the voids are set
        seat = original.current_player
        original.play(seat, list(bots[seat].play(view_of(original, seat))))
    seat = original.current_player
    view = view_of(original, seat)
    moves, averaged_q = averaged.play_values(view)
    per_renaming = []
    for renaming in relabelings(original.ctx, RELABELINGS):
        twin = _replayed(original, renaming)
        twin_moves = [tuple(sorted(renamed_kind(renaming, k) for k in play)) for play in moves]
        rows = play_rows(view_of(twin, seat), twin_moves, "canonical")
        per_renaming.append(plain._scores(view_of(twin, seat), [], rows, 2))
    assert len(moves) > 1
    np.testing.assert_allclose(averaged_q, np.mean(per_renaming, axis=0), atol=1e-5)
    assert not np.allclose(per_renaming[0], per_renaming[1])  # the network is not invariant by itself


def _replayed(hand: Hand, renaming: tuple[int, ...]) -> Hand:
    """``hand``'s deal renamed and its burial and plays so far replayed renamed."""
    setup = hand._setup

    def rename(cards: list[str]) -> list[str]:
        return card_list(renamed_kind(renaming, k) for k in parse_cards(cards))

    twin = Hand.from_deal([rename(h) for h in setup["hands"]], rename(setup["kitty"]),
                          level=setup["level"], dealer=setup["dealer"], trump=setup["trump"], rules=hand.ruleset)
    twin.bury(hand.dealer, [renamed_kind(renaming, k) for k in hand.kitty])
    for trick in [*hand.tricks, None]:
        plays = trick.plays if trick is not None else hand.trick_plays
        leader = trick.leader if trick is not None else hand.leader
        for i, play in enumerate(plays):
            twin.play((leader + i) % 4, [renamed_kind(renaming, k) for k in play])
    return twin


def test_bids_are_not_renamed(networks):
    plain, averaged = networks
    hand = make_ruleset("standard").new_hand(11)
    bots = [ExpertAgent(seat) for seat in range(4)]
    view = view_of(hand, hand.current_player)
    while not (view.phase.takes_bids and view.bid_options):
        hand.act(hand.current_player, bots[hand.current_player].act(view))
        view = view_of(hand, hand.current_player)
    candidates = decision_candidates(view, "canonical")
    assert averaged.run.rules.layout.decks == 2
    np.testing.assert_array_equal(plain._scores(view, [], candidates.rows, candidates.phase),
                                  averaged._scores(view, [], candidates.rows, candidates.phase))


def test_relabel_names_and_refusals():
    agent = make_agent(f"{RELABEL}:plans:{NETWORK}", 3)
    assert (agent.name, agent.relabel, agent.burial) == ("relabel:plans:dmc_play_cpu145", RELABELINGS, "plans")
    assert make_agent(f"{RELABEL}:{NETWORK}").burial == "cards"
    assert is_checkpoint(f"{RELABEL}:{NETWORK}") and checkpoint_paths(f"{RELABEL}:plans:{NETWORK}") == [NETWORK]
    assert display_name(f"{RELABEL}:plans:{NETWORK}") == "relabel:plans:dmc_play_cpu145"  # a table's seat label
    for bad in ("expert", f"search:{NETWORK}", f"critic:{NETWORK}", f"{RELABEL}:{NETWORK}"):
        with pytest.raises(ValueError, match="needs a network checkpoint"):
            make_agent(f"{RELABEL}:{bad}")
    plain = DMCAgent.from_checkpoint(NETWORK)
    for bad in (0, 2.5):
        with pytest.raises(ValueError, match="relabel counts"):
            DMCAgent(plain.model, plain.run, relabel=bad)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), options=st.sampled_from([{}, {"decks": 1}, {"decks": 3}, {"constant_twos": True}]))
def test_a_stored_decision_is_renamed_as_its_position_would_be(seed, options):
    """What a label keeps of a decision (its encoded inputs, no hand) is enough to rename it: the trump context
    reads back from the observation, and a drawn renaming is the encoding of one of the renamed positions."""
    original, _, _ = _twin_hands(seed, options)
    rules, layout, planes = original.ruleset, "canonical", original.ruleset.layout.decks
    coder = ObservationEncoder(ruleset=rules)
    bots = [ExpertAgent(seat) for seat in range(4)]
    rng = np.random.default_rng(seed)
    checked = 0
    while original.phase != Phase.DONE and checked < 6:
        seat = original.current_player
        view = view_of(original, seat)
        if original.phase == Phase.PLAY:
            candidates = decision_candidates(view, layout)
            obs, history = coder.encode(view, seat), coder.history(view, seat)
            assert encoded_context(obs, rules, layout) is original.ctx
            renamings = relabelings(original.ctx)
            stacked_obs, stacked_history, rows = renamed_inputs(original.ctx, layout, renamings, rules, obs, history,
                                                                candidates.rows, planes)
            n = len(candidates.rows)
            positions = [(stacked_obs[i].tobytes(), stacked_history[i].tobytes(), rows[i * n:(i + 1) * n].tobytes())
                         for i in range(len(renamings))]
            drawn = set()
            for _ in range(12):
                renamed = renamed_encoding(rules, layout, obs, history, candidates.rows, planes, rng)
                key = tuple(a.tobytes() for a in renamed)
                assert key in positions
                drawn.add(key)
            assert len(drawn) > 1  # not only the identity
            checked += 1
            original.play(seat, list(bots[seat].play(view)))
        else:
            original.bury(seat, bots[seat].bury(view))
    assert checked == 6
    blank = obs.copy()
    trump_at = NUM_CARD_PLANES * planes * slots_of_layout(layout)
    trump_at += sum(width for _, width in itertools.takewhile(lambda f: f[0] != "trump_suit", scalar_features(rules)))
    assert blank[trump_at:trump_at + 5].sum() == 1
    blank[trump_at:trump_at + 5] = 0  # as before the trump is fixed
    assert encoded_context(blank, rules, layout) is None
    same = renamed_encoding(rules, layout, blank, history, candidates.rows, planes, rng)
    assert all(a is b for a, b in zip(same, (blank, history, candidates.rows), strict=True))
