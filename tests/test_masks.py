"""The card-by-card masks are exact: masked sequences complete to exactly the legal plays."""

from __future__ import annotations

import random
from itertools import product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from env.core.actions import NUM_ACTIONS, STOP
from env.core.cards import NUM_KINDS, counts_of
from env.core.suits import TRUMP
from env.standard.actions import PlayComposer
from env.standard.moves import legal_follows, legal_leads
from env.standard.tricks import Lead, follow_error
from env.standard.trump import trump_context
from env.standard.variants import RuleOptions


def reachable_plays(mode, ctx, hand, lead=None):
    """All multisets the masks let a seat complete, and whether any masked path dead-ends."""
    complete: set[tuple[int, ...]] = set()
    seen: set[tuple[int, ...]] = set()
    dead_end = False

    def explore(picked: list[int]) -> None:
        nonlocal dead_end
        key = tuple(sorted(picked))
        if key in seen:
            return
        seen.add(key)
        composer = PlayComposer(mode, ctx, hand, lead)
        for k in picked:
            composer.add(k)
        mask = composer.mask()
        assert mask.shape == (NUM_ACTIONS,)
        if not mask.any():
            dead_end = True
            return
        if mask[STOP]:
            complete.add(key)
        for k in np.flatnonzero(mask[:NUM_KINDS]):
            nxt = [*picked, int(k)]
            composer2 = PlayComposer(mode, ctx, hand, lead)
            for c in nxt:
                composer2.add(c)
            if composer2.complete:
                complete.add(tuple(sorted(nxt)))
            else:
                explore(nxt)

    explore([])
    return complete, dead_end


def brute_force_follows(ctx, hand, lead):
    """Every n-card sub-multiset of the hand that follow_error accepts."""
    kinds = [k for k in range(NUM_KINDS) if hand[k]]
    plays = set()
    for takes in product(*[range(hand[k] + 1) for k in kinds]):
        if sum(takes) != lead.n:
            continue
        play = tuple(k for k, t in zip(kinds, takes) for _ in range(t))
        if follow_error(ctx, hand, play, lead) is None:
            plays.add(play)
    return plays


def random_position(seed: int):
    """A small random follow position rich in pairs and tractors of few kinds."""
    rng = random.Random(seed)
    level = rng.choice("23456789TJQKA")
    trump = rng.choice(["S", "H", "C", "D", None])
    ctx = trump_context(level, trump, RuleOptions(constant_twos=rng.random() < 0.1 and level != "2"))
    suit = rng.choice([s for s in range(5) if ctx.suit_kinds[s]])
    pool_kinds = list(ctx.suit_kinds[suit])
    other_kinds = [k for k in range(NUM_KINDS) if ctx.suit[k] != suit]
    # The lead: a few kinds of the suit, often consecutive pairs (a tractor) plus extras.
    if rng.random() < 0.5 and len(pool_kinds) >= 3:
        start = rng.randrange(len(pool_kinds) - 1)
        run = pool_kinds[start:start + rng.randint(2, 3)]
        lead_cards = [k for k in run for _ in range(2)]
        extra = [k for k in pool_kinds if k not in run]
        for k in rng.sample(extra, min(len(extra), rng.randint(0, 2))):
            lead_cards += [k] * rng.choice((1, 2))
    else:
        lead_kinds = rng.sample(pool_kinds, min(len(pool_kinds), rng.randint(1, 4)))
        lead_cards = []
        for k in lead_kinds:
            lead_cards += [k] * rng.choice((1, 2, 2))
    lead = Lead(ctx, lead_cards)
    remaining = counts_of(lead_cards)
    hand = [0] * NUM_KINDS
    in_suit = rng.randint(0, 14)
    free_kinds = [k for k in pool_kinds if remaining[k] < 2] or pool_kinds
    window = rng.sample(free_kinds, min(len(free_kinds), rng.randint(2, 7)))
    for _ in range(in_suit):
        k = rng.choice(window)
        if hand[k] + remaining[k] < 2:
            hand[k] += 1
    for _ in range(rng.randint(0, 5)):
        k = rng.choice(other_kinds)
        if hand[k] < 2:
            hand[k] += 1
    if sum(hand) < lead.n:
        for k in other_kinds:
            while hand[k] < 2 and sum(hand) < lead.n:
                hand[k] += 1
    return ctx, hand, lead


@settings(max_examples=1500, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_follow_masks_complete_to_exactly_the_legal_follows(seed):
    ctx, hand, lead = random_position(seed)
    reachable, dead_end = reachable_plays("follow", ctx, hand, lead)
    assert not dead_end
    generated = set(legal_follows(ctx, hand, lead).plays)
    assert reachable == generated
    assert reachable == brute_force_follows(ctx, hand, lead)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_lead_masks_reach_every_subset_of_one_suit(seed):
    rng = random.Random(seed)
    ctx = trump_context(rng.choice("2TA"), rng.choice(["S", "H", None]))
    hand = [0] * NUM_KINDS
    for _ in range(rng.randint(1, 7)):
        k = rng.randrange(NUM_KINDS)
        hand[k] = min(2, hand[k] + 1)
    reachable, dead_end = reachable_plays("lead", ctx, hand)
    assert not dead_end
    assert reachable == set(legal_leads(ctx, hand).plays)
    for play in reachable:
        assert len({ctx.suit[k] for k in play}) == 1


def test_bury_mask_allows_any_eight_held_cards():
    ctx = trump_context("2", "S")
    hand = counts_of([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 52])
    composer = PlayComposer("bury", ctx, hand)
    for k in (0, 0, 1, 2, 3, 4, 5):
        assert composer.mask()[k] == 1
        composer.add(k)
    mask = composer.mask()
    assert mask[0] == 0 and mask[6] == 1 and mask[52] == 1 and mask[STOP] == 0
    composer.add(52)
    assert composer.complete


def test_follow_pair_lead_forces_pair_when_held():
    ctx = trump_context("2", "H")
    lead = Lead(ctx, [11, 11])  # SK SK
    hand = counts_of([3, 3, 5, 7, 30])  # S5 S5 S7 S9 + a club
    composer = PlayComposer("follow", ctx, hand, lead)
    mask = composer.mask()
    assert list(np.flatnonzero(mask)) == [3]
    composer.add(3)
    assert list(np.flatnonzero(composer.mask())) == [3]


def test_short_suit_follow_must_include_all_suit_cards():
    ctx = trump_context("2", "H")
    lead = Lead(ctx, [9, 9, 10, 10])  # SJ SJ SQ SQ
    hand = counts_of([3, 30, 31, 40])  # one spade, three others
    composer = PlayComposer("follow", ctx, hand, lead)
    for k in (30, 31, 40):
        composer.add(k)
    assert list(np.flatnonzero(composer.mask())) == [3]
    assert ctx.suit[3] != TRUMP
