"""The Hand state machine: scripted hands, illegal requests, and random complete hands.

The random-hand properties are RULES.md section 10: 108 cards always, four
equal plays per trick, 200 points in all, every accepted play legal, and the
event log replays the hand exactly.
"""

from __future__ import annotations

import json
import random

import pytest

from agents.bots.random_agent import random_decision as engine_random_decision
from env.core.cards import card_list, kinds_of, parse_cards, points_of
from env.core.errors import IllegalActionError
from env.core.hand_base import team_of
from env.standard.bidding import Bid
from env.standard.hand import Hand, Phase
from env.standard.scoring import kitty_multiplier_of, next_dealer, score_with
from env.standard.tricks import Lead, follow_error, lead_error
from env.standard.variants import RuleOptions


def snapshot(hand: Hand) -> str:
    """Everything a request could change, as one string."""
    return json.dumps({
        "log": hand.to_log(), "hands": hand.hands, "sizes": hand.hand_sizes, "phase": hand.phase.value,
        "to_act": hand.current_player, "trick": hand.trick_plays, "standing": hand.standing,
        "kitty": hand.kitty, "played": hand.played, "defender_points": hand.defender_points,
        "penalty": hand.penalty_points, "leader": hand.leader, "dealer": hand.dealer,
        "lead": None if hand.lead is None else hand.lead.cards, "tricks": [t.plays for t in hand.tricks],
        "pending": list(hand._pending), "dealt": hand._dealt, "failed": hand.failed_throws,
    }, default=str)


def quick_state(hand: Hand) -> tuple:
    """A cheaper snapshot for the random-hand loop: the mutable state and the log lengths."""
    return (tuple(map(tuple, hand.hands)), tuple(hand.hand_sizes), hand.phase, hand.current_player,
            tuple(hand.trick_plays), len(hand.decisions), len(hand.events), hand.defender_points,
            None if hand.lead is None else hand.lead.cards, tuple(map(tuple, hand.played)), len(hand.tricks))


def random_decision(hand: Hand, rng: random.Random, max_plays: int = 48) -> None:
    """Take one uniformly random legal decision for the player to act."""
    engine_random_decision(hand, rng, max_plays)


# ---------------------------------------------------------------------------- scripted hands

KITTY_40 = "SK SK C5 C5 DT D3 D4 D6"


def tractor_last_trick_hand(options: RuleOptions | None = None) -> Hand:
    """Level 2, trump S, dealer 0; the defenders (seat 1) win both tricks, the last with a tractor."""
    hand = Hand.from_deal(["H3 H4 H5 H6 H7", "HA HK HK HQ HQ", "H8 H9 HT HJ C3", "C4 C6 C7 C8 C9"], KITTY_40,
                          level="2", dealer=0, trump="S", rules=options, buried=True)
    for seat, cards in [(0, "H3"), (1, "HA"), (2, "H8"), (3, "C4"),
                        (1, "HK HK HQ HQ"), (2, "H9 HT HJ C3"), (3, "C6 C7 C8 C9"), (0, "H4 H5 H6 H7")]:
        hand.play(seat, cards)
    return hand


def test_kitty_is_multiplied_by_the_last_lead_tractor():
    result = tractor_last_trick_hand().result
    assert result.kitty_points == 40 and result.kitty_multiplier == 16 and result.kitty_bonus == 640
    assert result.trick_points == 35 and result.defender_points == 675
    assert (result.winner, result.levels, result.next_dealer) == ("defenders", 14, 1)


def test_linear_kitty_multiplier_changes_only_the_multiplier():
    default, linear = tractor_last_trick_hand(), tractor_last_trick_hand(RuleOptions(kitty_multiplier="linear"))
    assert linear.result.kitty_multiplier == 8 and linear.result.defender_points == 355
    assert linear.result.levels == 6
    assert [t.plays for t in linear.tricks] == [t.plays for t in default.tricks]


def test_kitty_counts_for_nobody_when_dealers_win_the_last_trick():
    hand = Hand.from_deal(["HA", "H3", "H4", "H5"], KITTY_40, level="2", dealer=0, trump="S", buried=True)
    for seat, cards in [(0, "HA"), (1, "H3"), (2, "H4"), (3, "H5")]:
        hand.play(seat, cards)
    result = hand.result
    assert result.kitty_bonus == 0 and result.defender_points == 0
    assert (result.winner, result.levels, result.next_dealer) == ("dealers", 3, 2)
    assert hand.tricks[0].points == 5 and hand.trick_points == [5, 0]


def test_single_last_trick_doubles_the_kitty():
    hand = Hand.from_deal(["H3", "HA", "H4", "H6"], KITTY_40, level="2", dealer=0, trump="S", buried=True)
    for seat, cards in [(0, "H3"), (1, "HA"), (2, "H4"), (3, "H6")]:
        hand.play(seat, cards)
    assert hand.result.kitty_multiplier == 2 and hand.result.defender_points == 80
    assert hand.result.winner == "defenders" and hand.result.levels == 0


NO_POINTS_KITTY = "D7 D9 DJ DQ S3 S4 S6 S7"


def test_failed_throw_plays_the_forced_component_and_is_public():
    hand = Hand.from_deal(["HA H3", "H9 H4", "C3 C4", "C6 C8"], NO_POINTS_KITTY,
                          level="2", dealer=0, trump="S", buried=True)
    played = hand.play(0, "HA H3")
    assert card_list(played) == ["H3"]
    assert hand.hands[0][parse_cards("HA")[0]] == 1  # HA went back to the hand
    assert hand.failed_throws == [(0, tuple(sorted(parse_cards("HA H3"))))]
    assert hand.throws_attempted[0] == hand.throws_failed[0] == 1
    event = next(e for e in hand.events if e["type"] == "throw_failed")
    assert event["attempted"] == ["H3", "HA"] and event["played"] == ["H3"] and event["penalty"] == 0
    assert hand.lead.n == 1 and hand.current_player == 1
    with pytest.raises(IllegalActionError):
        hand.play(1, "H9 H4")  # the lead is one card now


def dealer_throw_hand(penalty: int) -> Hand:
    """Dealer seat 0 throws HA H3; seat 1's H9 beats H3: one card taken back."""
    hand = Hand.from_deal(["HA H3", "H9 H4", "C3 C4", "C6 C8"], NO_POINTS_KITTY, level="2", dealer=0, trump="S",
                          rules=RuleOptions(throw_penalty=penalty), buried=True)
    for seat, cards in [(0, "HA H3"), (1, "H9"), (2, "C3"), (3, "C6"), (1, "H4"), (2, "C4"), (3, "C8"), (0, "HA")]:
        hand.play(seat, cards)
    return hand


def defender_throw_hand(penalty: int) -> Hand:
    """Dealer seat 1 leads; defender seat 2 wins and throws HA H3; seat 3's H9 beats H3."""
    hand = Hand.from_deal(["C4 D8 D4", "C6 D3 D6", "CA HA H3", "C3 H9 H4"], NO_POINTS_KITTY, level="2", dealer=1,
                          trump="S", rules=RuleOptions(throw_penalty=penalty), buried=True)
    for seat, cards in [(1, "C6"), (2, "CA"), (3, "C3"), (0, "C4"), (2, "HA H3"), (3, "H9"), (0, "D8"), (1, "D3"),
                        (3, "H4"), (0, "D4"), (1, "D6"), (2, "HA")]:
        hand.play(seat, cards)
    return hand


@pytest.mark.parametrize(("make", "penalty", "points", "outcome"), [
    (dealer_throw_hand, 0, 0, ("dealers", 3)),
    (dealer_throw_hand, 10, 10, ("dealers", 2)),
    (dealer_throw_hand, 50, 50, ("dealers", 1)),
    (defender_throw_hand, 0, 0, ("dealers", 3)),
    (defender_throw_hand, 10, -10, ("dealers", 3)),
    (defender_throw_hand, 45, -45, ("dealers", 3)),
])
def test_throw_penalty_per_card_taken_back(make, penalty, points, outcome):
    hand = make(penalty)
    assert hand.penalty_points == penalty
    assert hand.result.defender_points == points and hand.result.penalty_points == penalty
    assert (hand.result.winner, hand.result.levels) == outcome
    assert [t.plays for t in hand.tricks] == [t.plays for t in make(0).tricks]


def test_from_deal_validates_the_deal():
    with pytest.raises(ValueError, match="4 hands"):
        Hand.from_deal(["SA"] * 3, "", level="2", dealer=0, trump="S")
    with pytest.raises(ValueError, match="equal size"):
        Hand.from_deal(["SA", "SK", "SQ", "SJ S9"], "", level="2", dealer=0, trump="S")
    with pytest.raises(ValueError, match="two copies"):
        Hand.from_deal(["SA", "SA", "SA", "SK"], "", level="2", dealer=0, trump="S")
    with pytest.raises(ValueError, match="dealer"):
        Hand.from_deal(["SA", "SK", "SQ", "SJ"], "", level="2", dealer=4, trump="S")
    with pytest.raises(ValueError):
        Hand.from_deal(["SA", "SK", "SQ", "SJ"], "", level="1", dealer=0, trump="S")
    with pytest.raises(ValueError):
        Hand.new(1, level="B")


def test_from_deal_starts_at_the_kitty_exchange():
    hand = Hand.from_deal(["SA", "SK", "SQ", "SJ"], "C2 C3 C4 C5 C6 C7 C8 C9", level="2", dealer=1, trump="S")
    assert hand.phase == Phase.KITTY and hand.current_player == 1 and hand.hand_sizes == [1, 9, 1, 1]
    hand.bury(1, "C2 C3 C4 C5 C6 C7 C8 C9")
    assert hand.phase == Phase.PLAY and hand.current_player == 1 and hand.leader == 1
    assert hand.cards_accounted() == 12


# ---------------------------------------------------------------------------- illegal requests

def hand_at(phase: Phase, seed: int = 3) -> Hand:
    rng = random.Random(seed)
    hand = Hand.new(seed)
    while hand.phase != phase:
        random_decision(hand, rng)
    return hand


def assert_refused(hand: Hand, request, error=IllegalActionError):
    before = snapshot(hand)
    with pytest.raises(error):
        request(hand)
    assert snapshot(hand) == before


def test_illegal_requests_while_bidding_leave_the_state_unchanged():
    hand = hand_at(Phase.DEAL)
    seat = hand.current_player
    other = (seat + 1) % 4
    assert_refused(hand, lambda h: h.pass_bid(other))
    assert_refused(hand, lambda h: h.bid(other, h.bid_options(seat)[0]))
    assert_refused(hand, lambda h: h.bid(seat, Bid(4, None)) if Bid(4, None) not in h.bid_options() else
                   h.bid(seat, Bid(1, 9)))
    assert_refused(hand, lambda h: h.bid(seat, "S2"))
    assert_refused(hand, lambda h: h.play(seat, kinds_of(h.hands[seat])[:1]))
    assert_refused(hand, lambda h: h.bury(seat, kinds_of(h.hands[seat])[:8]))


def test_illegal_requests_at_the_kitty_leave_the_state_unchanged():
    hand = hand_at(Phase.KITTY)
    dealer = hand.dealer
    cards = kinds_of(hand.hands[dealer])
    assert_refused(hand, lambda h: h.bury(dealer, cards[:7]))
    assert_refused(hand, lambda h: h.bury(dealer, cards[:9]))
    assert_refused(hand, lambda h: h.bury((dealer + 1) % 4, kinds_of(h.hands[(dealer + 1) % 4])[:8]))
    missing = next(k for k in range(54) if hand.hands[dealer][k] < 2)
    assert_refused(hand, lambda h: h.bury(dealer, cards[:7] + [missing] * (2 - h.hands[dealer][missing] + 1)))
    assert_refused(hand, lambda h: h.bury(dealer, [missing] * 3 + cards[:5]))
    assert_refused(hand, lambda h: h.play(dealer, cards[:1]))
    assert_refused(hand, lambda h: h.pass_bid(dealer))
    assert_refused(hand, lambda h: h.bury(dealer, cards[:7] + ["XX"]), ValueError)


def test_illegal_requests_in_play_leave_the_state_unchanged():
    rng = random.Random(5)
    hand = hand_at(Phase.PLAY, 5)
    leader = hand.current_player
    cards = kinds_of(hand.hands[leader])
    absent = next(k for k in range(54) if hand.hands[leader][k] == 0)
    two_suits = next([a, b] for a in cards for b in cards if hand.ctx.suit[a] != hand.ctx.suit[b])
    assert_refused(hand, lambda h: h.play(leader, [absent]))
    assert_refused(hand, lambda h: h.play(leader, []))
    assert_refused(hand, lambda h: h.play(leader, two_suits))
    assert_refused(hand, lambda h: h.play((leader + 1) % 4, kinds_of(h.hands[(leader + 1) % 4])[:1]))
    assert_refused(hand, lambda h: h.pass_bid(leader))
    assert_refused(hand, lambda h: h.bid(leader, Bid(1, 0)))
    assert_refused(hand, lambda h: h.bury(leader, cards[:8]))
    assert_refused(hand, lambda h: h.play(leader, ["S1"]), ValueError)
    # A follower: wrong count, and (when the lead suit forces a choice) breaking the follow duty.
    refused_duty = 0
    while hand.phase == Phase.PLAY and len(hand.tricks) < 20:
        if hand.lead is not None:
            seat = hand.current_player
            mine = kinds_of(hand.hands[seat])
            assert_refused(hand, lambda h, s=seat, m=mine: h.play(s, m[: h.lead.n + 1]))
            for _ in range(20):
                attempt = rng.sample(mine, hand.lead.n)
                if follow_error(hand.ctx, hand.hands[seat], attempt, hand.lead) is not None:
                    assert_refused(hand, lambda h, s=seat, a=attempt: h.play(s, a))
                    refused_duty += 1
                    break
        random_decision(hand, rng)
    assert refused_duty > 5


def test_requests_after_the_end_are_refused():
    rng = random.Random(11)
    hand = Hand.new(11)
    while hand.phase != Phase.DONE:
        random_decision(hand, rng)
    assert hand.current_player is None
    assert_refused(hand, lambda h: h.play(0, kinds_of(h.played[0])[:1]))
    assert_refused(hand, lambda h: h.pass_bid(0))


# ---------------------------------------------------------------------------- random complete hands

def check_finished_hand(hand: Hand) -> None:
    """RULES.md section 10 and the scoring of sections 7-8, on a finished hand."""
    ctx = hand.ctx
    assert hand.phase == Phase.DONE and hand.cards_accounted() == 108
    assert sum(hand.hand_sizes) == 0 and len(hand.kitty) == 8
    assert sum(sum(p) for p in hand.played) == 100
    lengths = []
    for trick in hand.tricks:
        assert len(trick.plays) == 4
        n = len(trick.plays[0])
        assert all(len(p) == n for p in trick.plays)
        lengths.append(n)
        assert trick.points == sum(points_of(p) for p in trick.plays)
    assert sum(lengths) == 25 and len(hand.tricks) <= 25
    assert sum(t.points for t in hand.tricks) + points_of(hand.kitty) == 200
    result = hand.result
    defender_tricks = sum(t.points for t in hand.tricks if team_of(t.winner) != team_of(hand.dealer))
    last = hand.tricks[-1]
    multiplier = kitty_multiplier_of(Lead(ctx, last.plays[0]).components, hand.options.kitty_multiplier)
    bonus = 0 if team_of(last.winner) == team_of(hand.dealer) else points_of(hand.kitty) * multiplier
    assert result.trick_points == defender_tricks and result.kitty_bonus == bonus
    assert result.defender_points == defender_tricks + bonus  # no throw penalty by default
    assert (result.winner, result.levels) == score_with(result.defender_points, hand.options)
    assert result.next_dealer == next_dealer(hand.dealer, result.winner == "dealers")
    assert hand.trick_points[team_of(hand.dealer)] + defender_tricks == sum(t.points for t in hand.tricks)


def play_checked_hand(seed: int, options: RuleOptions | None = None) -> Hand:
    """A random hand where every play is first checked against the rules functions.

    Sometimes a random set of the right number of cards is proposed first: the
    engine must accept it exactly when the rules say it is legal, and leave
    the state untouched when it refuses.
    """
    rng = random.Random(seed)
    hand = Hand.new(seed, options)
    while hand.phase != Phase.DONE:
        assert hand.cards_accounted() == 108
        if hand.phase == Phase.PLAY and rng.random() < 0.3:
            seat = hand.current_player
            mine = kinds_of(hand.hands[seat])
            attempt = rng.sample(mine, hand.lead.n if hand.lead else min(len(mine), rng.randint(1, 3)))
            rules_error = (lead_error(hand.ctx, hand.hands[seat], attempt) if hand.lead is None
                           else follow_error(hand.ctx, hand.hands[seat], attempt, hand.lead))
            before = quick_state(hand) if rules_error else None
            try:
                hand.play(seat, attempt)
            except IllegalActionError:
                assert rules_error is not None and quick_state(hand) == before
            else:
                assert rules_error is None
            continue
        if hand.phase == Phase.PLAY:
            seat = hand.current_player
            trick_before = len(hand.tricks)
            random_decision(hand, rng)
            played = hand.trick_plays[-1] if len(hand.tricks) == trick_before else hand.tricks[-1].plays[-1]
            assert len(played) > 0
        else:
            random_decision(hand, rng)
    return hand


def test_random_hands_keep_the_invariants_and_replay_exactly():
    for seed in range(400):
        hand = play_checked_hand(seed)
        check_finished_hand(hand)
        log = json.loads(json.dumps(hand.to_log()))
        replay = Hand.from_log(log)
        assert replay.result == hand.result
        assert replay.tricks == hand.tricks and replay.kitty == hand.kitty and replay.dealer == hand.dealer
        assert replay.to_log() == hand.to_log()


def test_many_more_random_hands_keep_the_invariants():
    for seed in range(1000, 2400):
        rng = random.Random(seed)
        hand = Hand.new(seed)
        while hand.phase != Phase.DONE:
            random_decision(hand, rng, max_plays=16)
        check_finished_hand(hand)


def test_replay_of_a_deal_mode_log():
    hand = tractor_last_trick_hand()
    replay = Hand.from_log(json.loads(json.dumps(hand.to_log())))
    assert replay.result == hand.result and replay.tricks == hand.tricks


def test_replay_refuses_a_tampered_log():
    rng = random.Random(2)
    hand = Hand.new(2)
    while hand.phase != Phase.DONE:
        random_decision(hand, rng)
    log = hand.to_log()
    plays = [d for d in log["decisions"] if d["action"] == "play"]
    plays[-1]["cards"] = ["BJ", "BJ", "BJ"]
    with pytest.raises(IllegalActionError):
        Hand.from_log(log)
    with pytest.raises(ValueError, match="version"):
        Hand.from_log({**hand.to_log(), "version": 99})


def test_same_seed_same_hand():
    a, b = Hand.new(42), Hand.new(42)
    assert a.to_log() == b.to_log() and a.hands == b.hands
    assert Hand.new(43).to_log() != a.to_log()
