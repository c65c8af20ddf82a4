"""A 刮风 match (RULES-guafeng.md sections 2 and 9): the level cycle, the next dealer seat, the stage
count of ``stage_limit``, and the winner after ``match_hands`` hands by levels climbed (draws possible)."""

from __future__ import annotations

import copy
import random

import pytest

from env.core.hand_base import team_of
from env.core.registry import make_ruleset
from env.guafeng.hand import GuafengHand, GuafengResult
from env.guafeng.match import GuafengMatch
from env.guafeng.options import GuafengOptions
from env.guafeng.ruleset import GuafengRules
from tests.test_guafeng_hand import finish_randomly


def finished(match: GuafengMatch, dealer: int, winner: str, levels: int, *, stage_run: int = 1,
             reached: bool = False, stepped_down: bool = False, level: str = "A") -> GuafengHand:
    """The match's next hand, given the outcome to read (dealer seat after any step-down, and its result)."""
    held = winner == "dealers"
    hand = match.new_hand()
    hand.result = GuafengResult(defender_points=0, trick_points=0, kitty_points=0, kitty_multiplier=1,
                                kitty_bonus=0, penalty_points=0, winner=winner, levels=levels,
                                next_dealer=(dealer + (2 if held and not reached else 1)) % 4,
                                stage_run=stage_run, stage_limit_reached=reached)
    hand.dealer, hand.level, hand.stepped_down, hand.trump = dealer, level, stepped_down, "S"
    return hand


def test_levels_go_round_the_cycle_and_the_dealer_seat_follows_the_result():
    match = GuafengMatch(0)
    match.team_levels = ["T", "5"]
    match.record(finished(match, 0, "dealers", 6, level="T"))  # seed case (1): at T, +6 -> 3
    assert match.team_levels == ["3", "5"] and match.dealer == 2 and match.stage_run == 1
    match.record(finished(match, 2, "defenders", 10, stage_run=2, level="3"))  # seed case (5): from 5, +10 -> 2
    assert match.team_levels == ["3", "2"] and match.dealer == 3 and match.stage_run == 0
    assert match.climbed == [6, 10]
    match.record(finished(match, 3, "dealers", 13, level="2"))  # a whole turn of the cycle
    assert match.team_levels == ["3", "2"] and match.climbed == [6, 23]


def test_the_stage_count_passes_to_the_next_hand_and_restarts_with_a_new_stage_team():
    match = GuafengMatch(0)
    match.record(finished(match, 1, "dealers", 2))
    assert (match.dealer, match.stage_run) == (3, 1)
    hand = match.new_hand()
    assert (hand.dealer, hand.stage_run, hand.level) == (3, 1, "3") and hand.team_levels == ("A", "3")
    match.record(finished(match, 3, "dealers", 1, stage_run=2, reached=True))  # stage_limit: off it goes, seat + 1
    assert (match.dealer, match.stage_run, match.team_levels) == (0, 0, ["A", "4"])


def test_the_match_ends_after_match_hands_by_levels_climbed_and_may_be_a_draw():
    rules = GuafengRules(GuafengOptions(match_hands=2))
    match = rules.new_match(0)
    assert isinstance(match, GuafengMatch) and not match.finished
    match.record(finished(match, 0, "dealers", 3))
    match.record(finished(match, 2, "defenders", 3))
    assert match.finished and match.is_draw and match.winner is None
    with pytest.raises(RuntimeError, match="over"):
        match.new_hand()
    match = rules.new_match(0)
    match.record(finished(match, 0, "dealers", 3))
    match.record(finished(match, 2, "dealers", 1))
    assert match.finished and not match.is_draw and match.winner == 0


def test_an_unfinished_hand_or_the_wrong_rules_are_refused():
    match = GuafengMatch(1)
    with pytest.raises(ValueError, match="not finished"):
        match.record(match.new_hand())
    with pytest.raises(ValueError, match="guafeng rule set"):
        GuafengMatch(1, make_ruleset("standard"))


def test_a_hand_counts_once_and_only_if_this_match_dealt_it():
    match = GuafengMatch(0)
    hand = finished(match, 0, "dealers", 3)
    match.record(hand)

    def state() -> dict:
        return {k: v if k.startswith("_") else copy.deepcopy(v) for k, v in vars(match).items()}

    before = state()
    with pytest.raises(ValueError, match="already recorded"):
        match.record(hand)  # the levels would be climbed again
    assert state() == before  # the hands held compare by identity
    other = GuafengMatch(0)
    stranger = finished(other, 1, "dealers", 2)
    with pytest.raises(ValueError, match="not dealt by this match"):
        match.record(stranger)
    assert state() == before
    earlier = match.new_hand()
    match.new_hand()  # dealt again: only the latest counts
    earlier.result = stranger.result
    with pytest.raises(ValueError, match="dealt last"):
        match.record(earlier)
    assert match.hands_played == 1 and match.climbed == [3, 0]


@pytest.mark.parametrize("seed, stage_limit", [(0, 7), (1, 2), (2, 1), (3, 0)])
def test_random_matches_follow_the_rules_of_the_next_hand(seed, stage_limit):
    rules = GuafengRules(GuafengOptions(match_hands=8, stage_limit=stage_limit))
    match = GuafengMatch(seed, rules)
    rng = random.Random(seed)
    previous = None
    while not match.finished:
        planned_dealer, planned_run = match.dealer, match.stage_run
        hand = match.new_hand()
        assert isinstance(hand, GuafengHand) and hand.stage_run == planned_run
        finish_randomly(hand, rng)
        if planned_dealer is None:
            assert hand.dealer in (0, 1) and hand.level == "A"
        elif hand.stepped_down:
            assert hand.dealer == (planned_dealer + 1) % 4 and hand.result.stage_run == 1
        else:
            assert hand.dealer == planned_dealer and hand.result.stage_run == planned_run + 1
        assert hand.level == previous["levels"][team_of(hand.dealer)] if previous else True
        result = match.record(hand)
        if stage_limit:
            assert result.stage_run <= stage_limit
        held = result.winner == "dealers"
        step = 2 if held and not result.stage_limit_reached else 1
        assert match.dealer == (hand.dealer + step) % 4
        assert result.stage_limit_reached == (held and stage_limit > 0 and result.stage_run >= stage_limit)
        previous = {"levels": list(match.team_levels)}
    assert len(match.history) == 8 and sum(match.climbed) == sum(h["levels"] for h in match.history)
    assert match.winner == (None if match.is_draw else int(match.climbed[1] > match.climbed[0]))
