"""Duplicate evaluation: deterministic across workers, symmetric, exact under team swap; stats and ratings."""

from __future__ import annotations

import json
import math

import pytest

from agents.evaluation.deals import check_deal, load_deals, make_deal
from agents.evaluation.duplicate import Settings, play_deal
from agents.evaluation.run import evaluate
from agents.evaluation.stats import ratio_ci
from agents.evaluation.tournament import round_robin
from env.standard.hand import Hand


@pytest.fixture(scope="module")
def deals(tmp_path_factory):
    return load_deals(tmp_path_factory.mktemp("deals") / "deals.json", seed=0, num_deals=8)


def _games(evaluation):
    return [[r.games for r in p.deals] for p in evaluation.pairs]


def test_results_do_not_depend_on_the_number_of_workers(deals):
    settings = Settings(seed=0)
    one = evaluate([("greedy", "random")], deals, settings, workers=1)
    two = evaluate([("greedy", "random")], deals, settings, workers=2)
    assert _games(one) == _games(two)
    assert one.pairs[0].metrics == two.pairs[0].metrics


@pytest.mark.parametrize("name", ["random", "expert"])
def test_a_bot_against_itself_scores_zero(name, deals):
    evaluation = evaluate([(name, name)], deals[:4], Settings(seed=1), workers=1)
    for result in evaluation.pairs[0].deals:
        first, second = result.games
        # Seeds follow the seat, so the swapped game is the same game with the labels exchanged.
        assert first.a_level_change == -second.a_level_change
    level_diff = evaluation.pairs[0].metrics["level_diff"]
    assert level_diff.value == 0
    assert evaluation.pairs[0].metrics["hand_win_rate"].value == 0.5


def test_swapping_participants_mirrors_every_game(deals):
    forward = evaluate([("greedy", "random")], deals[:4], Settings(seed=2), workers=1)
    backward = evaluate([("random", "greedy")], deals[:4], Settings(seed=2), workers=1)
    for f, b in zip(forward.pairs[0].deals, backward.pairs[0].deals):
        assert [g.a_level_change for g in f.games] == [-g.a_level_change for g in reversed(b.games)]
        assert [g.defender_points for g in f.games] == [g.defender_points for g in reversed(b.games)]
    fm, bm = forward.pairs[0].metrics, backward.pairs[0].metrics
    assert fm["level_diff"].value == -bm["level_diff"].value
    assert fm["a_hold_rate"] == bm["b_hold_rate"]
    assert fm["a_defender_points"] == bm["b_defender_points"]


def test_deal_set_is_saved_prefix_consistent_and_checked(tmp_path):
    path = tmp_path / "d.json"
    small = load_deals(path, seed=5, num_deals=3)
    large = load_deals(path, seed=5, num_deals=6)
    assert large[:3] == small
    assert len(json.loads(path.read_text())["deals"]) == 6
    assert load_deals(path, seed=5, num_deals=2) == small[:2]
    assert make_deal(5, 4) == large[4]
    assert [d.dealer for d in large] == [0, 1, 2, 3, 0, 1]
    with pytest.raises(ValueError, match="seed"):
        load_deals(path, seed=6, num_deals=2)
    deal = large[0]
    check_deal(deal, Hand.new(deal.hand_seed, level=deal.level, dealer=deal.dealer))
    with pytest.raises(RuntimeError, match="regenerate"):
        check_deal(deal, Hand.new(deal.hand_seed + 1, level=deal.level, dealer=deal.dealer))


def test_each_participant_deals_once_per_deal(deals):
    result = play_deal((0, "greedy", "random", deals[0], Settings()))
    assert sorted(g.a_is_dealer for g in result.games) == [False, True]


def test_ratio_ci_is_the_mean_interval_with_unit_denominators():
    values = [1.0, 2.0, 3.0, 4.0]
    e = ratio_ci(values)
    sd = math.sqrt(sum((v - 2.5) ** 2 for v in values) / 3)
    assert e.value == 2.5 and e.n == 4
    assert e.high - e.value == pytest.approx(1.959963984540054 * sd / 2)
    ratio = ratio_ci([3, 0, 1], [3, 0, 2])
    assert ratio.value == pytest.approx(4 / 5)
    assert math.isnan(ratio_ci([], []).value)
    assert math.isnan(ratio_ci([1.0]).low)


def test_tournament_ratings_and_match_mode(deals):
    pairs = round_robin(["greedy", "random"])
    assert pairs == [("greedy", "random")]
    with pytest.raises(ValueError, match="duplicates"):
        round_robin(["greedy", "greedy"])
    settings = Settings(mode="matches", seed=0, max_match_hands=4)
    evaluation = evaluate(pairs, deals[:2], settings, workers=1, tournament=True)
    metrics = evaluation.pairs[0].metrics
    assert 0 <= metrics["match_win_rate"].value <= 1
    assert metrics["hands_per_match"].value <= 4
    ratings = evaluation.ratings
    assert set(ratings) == {"greedy", "random"}
    assert ratings["greedy"]["mu"] > ratings["random"]["mu"]


def test_bad_settings_are_refused(deals):
    with pytest.raises(ValueError, match="mode"):
        evaluate([("greedy", "random")], deals[:1], Settings(mode="tricks"))
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate([("greedy", "nobody")], deals[:1], Settings())


def test_an_in_process_evaluation_plays_on_one_torch_thread_and_gives_the_callers_threads_back(monkeypatch):
    """workers=1 plays in this process: torch on one thread while it plays (as the worker processes do),
    the caller's thread count restored afterwards (train.py's learner evaluates in-process)."""
    import torch

    import agents.evaluation.workers as workers_module
    from agents.evaluation.workers import run_tasks

    seen = []
    monkeypatch.setattr(workers_module, "play_deal", lambda task: seen.append(torch.get_num_threads()) or
                        play_deal(task))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        settings = Settings(seed=0)
        deal = make_deal(0, 0, settings.rule_set())
        results = run_tasks([(0, "greedy", "random", deal, settings)] * 2, workers=1)
        assert len(results) == 2 and seen == [1, 1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
