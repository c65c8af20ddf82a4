"""Random complete 刮风 hands and matches keep every invariant of RULES-guafeng.md section 10.

1,200 seeded hands (first hands and later ones, every dealer seat, levels all round
the cycle, both stage-count settings) and a few matches are played with uniformly
random legal decisions. At every step: the 108 cards are accounted for (the fix
cards are in their holders' hands) and a random illegal request is refused with
the state unchanged. At phase ends: the whole deck is there card by card; after the
kitty every seat holds 26; every trick has four plays of the lead's length; the
points of the tricks and the kitty's point cards make 200; the hand ends with empty
hands. Some hands are replayed from their logs.
"""

from __future__ import annotations

import random

import pytest

from env.core.cards import NUM_KINDS, POINTS
from env.core.errors import IllegalActionError
from env.guafeng.fixing import FIX_TABLE
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.match import GuafengMatch
from env.guafeng.options import GuafengOptions
from env.guafeng.ruleset import GuafengRules

HANDS = 1200
DECK = [2] * NUM_KINDS
RULES = (GuafengRules(), GuafengRules(GuafengOptions(stage_limit=2)))


def quick_state(hand: GuafengHand) -> tuple:
    """What any request could change, cheaply."""
    return (tuple(map(tuple, hand.hands)), tuple(hand.hand_sizes), hand.phase, hand.current_player,
            tuple(hand.trick_plays), len(hand.decisions), len(hand.events), hand.defender_points, hand.standing,
            tuple(hand.kitty), len(hand.tricks), hand.dealer, hand.trump_revealed, hand.level)


def whole_deck(hand: GuafengHand) -> list[int]:
    """Every card: hands (fix cards included), kitty, played, and the undealt rest while fixing."""
    total = [sum(h[k] for h in hand.hands) + sum(p[k] for p in hand.played) for k in range(NUM_KINDS)]
    for k in hand.kitty:
        total[k] += 1
    if hand.phase.is_fixing:
        for k in hand._deck[hand._dealt:]:
            total[k] += 1
    return total


def illegal_request(hand: GuafengHand, rng: random.Random) -> None:
    """A request the rules refuse: wrong seat, wrong phase, a fix that does not eat, a wrong-size 回牌 or
    burial, a play of cards not held or of the wrong size."""
    seat = hand.current_player
    other = (seat + rng.randrange(1, 4)) % 4
    phase = hand.phase
    choice = rng.randrange(4)
    if choice == 0:
        hand.act(other, None if phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX) else [0])
    elif phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        options = set(hand.fix_options(seat))
        bad = next(f for f in (rng.choice(FIX_TABLE) for _ in range(1000)) if f not in options)
        hand.fix(seat, bad)
    elif phase == GuafengPhase.GIVE_BACK:
        hand.give_back(seat, hand.hand_cards(seat)[: hand.give_back_count + 1])
    elif phase == GuafengPhase.KITTY:
        hand.bury(seat, hand.hand_cards(seat)[: rng.choice((3, 5))])
    elif choice == 1:
        hand.bury(seat, hand.hand_cards(seat)[:4])
    else:
        held = hand.hands[seat]
        missing = [k for k in range(NUM_KINDS) if not held[k]]
        length = len(hand.lead.cards) if hand.lead is not None else 1
        hand.play(seat, [rng.choice(missing)] * length if missing else hand.hand_cards(seat)[: length + 1])


def random_step(hand: GuafengHand, rng: random.Random) -> None:
    """One uniformly random legal decision (a fix is taken half the time it is offered)."""
    seat = hand.current_player
    phase = hand.phase
    if phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        options = hand.fix_options(seat)
        assert options, "a seat is asked only when it holds a fix that eats"
        hand.fix(seat, rng.choice(options)) if rng.random() < 0.5 else hand.pass_fix(seat)
    elif phase == GuafengPhase.GIVE_BACK:
        chosen: list[int] = []
        while len(chosen) < hand.give_back_count:
            chosen.append(rng.choice(hand.give_back_options(seat, chosen)))
        hand.give_back(seat, chosen)
    elif phase == GuafengPhase.KITTY:
        hand.bury(seat, rng.sample(hand.hand_cards(seat), 4))
    else:
        hand.play(seat, rng.choice(hand.legal_plays(seat, 24).plays))


def play_checked(hand: GuafengHand, rng: random.Random, refuse_every: int = 7) -> GuafengHand:
    """Play ``hand`` to its end at random, checking the invariants of section 10 on the way."""
    step = 0
    last_phase = hand.phase
    while hand.phase != GuafengPhase.DONE:
        assert hand.cards_accounted() == 108
        if step % refuse_every == 0:
            before = quick_state(hand)
            with pytest.raises(IllegalActionError):
                illegal_request(hand, rng)
            assert quick_state(hand) == before
        tricks = len(hand.tricks)
        random_step(hand, rng)
        step += 1
        if hand.phase != last_phase:
            assert whole_deck(hand) == DECK
            if hand.phase == GuafengPhase.PLAY and last_phase == GuafengPhase.KITTY:
                assert hand.hand_sizes == [26] * 4 and len(hand.kitty) == 4 and not hand.trick_plays
            last_phase = hand.phase
        if len(hand.tricks) > tricks:
            trick = hand.tricks[-1]
            assert len(trick.plays) == 4 and len({len(p) for p in trick.plays}) == 1
            assert trick.winner in range(4) and trick.points == sum(POINTS[k] for p in trick.plays for k in p)
    assert whole_deck(hand) == DECK and hand.hand_sizes == [0] * 4 and hand.trump_revealed
    assert sum(t.points for t in hand.tricks) + sum(POINTS[k] for k in hand.kitty) == 200
    assert sum(len(t.plays[0]) for t in hand.tricks) == 26
    result = hand.result
    defenders = sum(t.points for t in hand.tricks if not hand.is_dealer_team(t.winner))
    assert result.trick_points == defenders and result.defender_points == defenders + result.kitty_bonus
    assert abs(result.kitty_bonus) == result.kitty_points * result.kitty_multiplier
    assert result.kitty_multiplier == len(hand.tricks[-1].plays[0])
    assert hand.kitty_taker != (hand.standing.seat if hand.standing else None)
    return hand


def test_random_hands_keep_the_invariants():
    levels = GuafengRules().levels
    rng = random.Random(2024)
    stepped_down = eaten = 0
    for i in range(HANDS):
        rules = RULES[i % 2]
        dealer = None if i % 5 == 0 else i % 4
        team_levels = (levels[i % 13], levels[(i * 7) % 13])
        hand = GuafengHand.new(i, rules, dealer=dealer, team_levels=team_levels, stage_run=i % 3)
        play_checked(hand, rng, refuse_every=7 if i % 10 else 2)
        stepped_down += hand.stepped_down
        eaten += any(f.eaten is not None for f in hand.fixes)
        if i % 40 == 0:
            replay = GuafengHand.from_log(hand.to_log())
            assert replay.to_log() == hand.to_log() and replay.result == hand.result
    assert stepped_down and eaten  # the random policy reaches the rare branches


def test_random_matches_keep_the_invariants():
    rng = random.Random(7)
    for seed in range(4):
        match = GuafengMatch(seed, GuafengRules(GuafengOptions(match_hands=13, stage_limit=3 + seed)))
        while not match.finished:
            match.record(play_checked(match.new_hand(), rng))
        assert sum(match.climbed) == sum(h["levels"] for h in match.history)
        assert all(h["stage_run"] <= 3 + seed for h in match.history)
