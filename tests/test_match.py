"""Matches: levels, dealer rotation and the match end (RULES.md section 8)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents.bots.random_agent import RandomAgent
from agents.runner import play_hand
from env.core.cards import points_of
from env.core.hand_base import HandResult, team_of
from env.standard.match import Match
from env.standard.variants import RuleOptions


def finished(dealer: int, level: str, winner: str, levels: int) -> SimpleNamespace:
    """A stand-in for a finished Hand: only what Match.record reads."""
    held = winner == "dealers"
    result = HandResult(defender_points=0 if held else 100, trick_points=0, kitty_points=0, kitty_multiplier=2,
                        kitty_bonus=0, penalty_points=0, winner=winner, levels=levels,
                        next_dealer=(dealer + 2) % 4 if held else (dealer + 1) % 4)
    return SimpleNamespace(result=result, dealer=dealer, level=level)


def test_dealers_hold_and_advance_partner_deals_next():
    match = Match(0)
    match.record(finished(1, "2", "dealers", 2))
    assert match.team_levels == ["2", "4"] and match.dealer == 3 and match.winner is None


def test_defenders_take_over_and_advance_next_seat_deals():
    match = Match(0)
    match.record(finished(0, "2", "defenders", 1))
    assert match.team_levels == ["2", "3"] and match.dealer == 1


def test_takeover_with_zero_levels_only_changes_the_dealer():
    match = Match(0)
    match.record(finished(2, "2", "defenders", 0))
    assert match.team_levels == ["2", "2"] and match.dealer == 3


def test_level_never_passes_a():
    match = Match(0)
    match.team_levels = ["Q", "2"]
    match.record(finished(0, "Q", "dealers", 3))
    assert match.team_levels == ["A", "2"] and match.winner is None


def test_defend_a_holding_at_a_wins():
    match = Match(0)
    match.team_levels = ["A", "5"]
    match.record(finished(2, "A", "dealers", 1))
    assert match.winner == 0 and match.team_levels == ["A", "5"]
    with pytest.raises(RuntimeError, match="over"):
        match.new_hand()


def test_defend_a_losing_at_a_does_not_end_the_match():
    match = Match(0)
    match.team_levels = ["A", "5"]
    match.record(finished(0, "A", "defenders", 1))
    assert match.winner is None and match.team_levels == ["A", "6"] and match.dealer == 1


def test_defend_a_reaching_a_is_not_yet_a_win():
    match = Match(0)
    match.team_levels = ["K", "5"]
    match.record(finished(0, "K", "dealers", 2))
    assert match.team_levels == ["A", "5"] and match.winner is None


def test_reach_a_first_team_to_reach_a_wins():
    match = Match(0, RuleOptions(win="reach_A"))
    match.team_levels = ["K", "5"]
    match.record(finished(0, "K", "dealers", 1))
    assert match.winner == 0
    other = Match(0, RuleOptions(win="reach_A"))
    other.team_levels = ["5", "Q"]
    other.record(finished(0, "5", "defenders", 3))
    assert other.winner == 1 and other.team_levels == ["5", "A"]


def test_5_t_k_room_top_level_plays_the_role_of_a():
    options = RuleOptions(level_sequence=("5", "T", "K"))
    match = Match(0, options)
    assert match.team_levels == ["5", "5"]
    match.record(finished(0, "5", "dealers", 1))
    assert match.team_levels == ["T", "5"]
    match.record(finished(2, "T", "dealers", 3))
    assert match.team_levels == ["K", "5"] and match.winner is None
    match.record(finished(0, "K", "dealers", 1))
    assert match.winner == 0


def test_first_hand_has_no_dealer_and_seeds_follow_the_match_seed():
    match = Match(7)
    hand = match.new_hand()
    assert hand.dealer is None and hand.level == "2"
    assert hand.to_log()["setup"]["seed"] == 7000


def test_a_match_is_finished_at_its_hand_limit_without_a_winner():
    match = play_random_match(5, max_hands=2)
    assert match.winner is None and match.hands_played == 2 and match.finished


def test_record_refuses_an_unfinished_hand():
    match = Match(0)
    with pytest.raises(ValueError):
        match.record(match.new_hand())


def play_random_match(seed: int, options: RuleOptions | None = None, max_hands: int = 200) -> Match:
    match = Match(seed, options, max_hands=max_hands)
    agents = [RandomAgent(seed * 10 + i, max_plays=32) for i in range(4)]
    while match.winner is None and match.hands_played < match.max_hands:
        assert not match.finished
        team_levels = list(match.team_levels)
        dealer = match.dealer
        hand = play_hand(match.new_hand(), agents)
        if dealer is not None:
            assert hand.dealer == dealer and hand.level == team_levels[team_of(dealer)]
        assert hand.cards_accounted() == 108
        assert sum(t.points for t in hand.tricks) + points_of(hand.kitty) == 200
        match.record(hand)
        order = match.options.levels
        assert all(order.index(a) >= order.index(b) for a, b in zip(match.team_levels, team_levels))
    return match


@pytest.mark.parametrize(("seed", "options"), [
    (1, RuleOptions(level_sequence=("5", "T", "K"))),
    (2, RuleOptions(level_sequence=("5", "T", "K"), win="reach_A")),
    (3, RuleOptions()),
    (4, RuleOptions(win="reach_A", takeover="plus_one")),
])
def test_complete_random_matches_end_with_a_winner(seed, options):
    match = play_random_match(seed, options)
    assert match.winner in (0, 1) and match.finished
    top = options.top_level
    assert match.team_levels[match.winner] == top
    last = match.history[-1]
    if options.win == "defend_A":
        assert last["winner"] == "dealers" and last["level"] == top and team_of(last["dealer"]) == match.winner
    assert match.history[-1]["team_levels"] == match.team_levels
