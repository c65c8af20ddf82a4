"""Decision-time search: consistent sampled worlds, legal choices, the best play in a known world, bad input."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.expert import ExpertAgent
from agents.bots.random_agent import RandomAgent
from agents.registry import make_agent
from agents.search import InconsistentViewError, SearchAgent, SearchConfig, World, WorldSampler, world_hand
from agents.search.candidates import FEW_PLAYS, candidate_plays
from agents.search.worlds import dealt_world, inconsistency
from env.core.cards import NUM_KINDS
from env.core.errors import IllegalActionError
from env.core.suits import TRUMP
from env.standard.hand import Hand, Phase
from env.standard.view import view_of

TINY = SearchConfig(time_budget=30.0, worlds=2, screen_worlds=1, max_candidates=3)


def _position(seed: int, plays: int, bots: str = "expert") -> Hand:
    """A hand after its bidding and kitty, ``plays`` plays into the tricks (fewer if it ends)."""
    rng = random.Random(seed)
    agents = [ExpertAgent(seat) if bots == "expert" or (bots == "mixed" and seat % 2)
              else RandomAgent(rng.randrange(1 << 30)) for seat in range(4)]
    hand = Hand.new(seed)
    while hand.phase != Phase.PLAY:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    for _ in range(plays):
        seat = hand.current_player
        before = view_of(hand, seat)
        hand.act(seat, agents[seat].act(before))
        if hand.phase == Phase.DONE:
            break
    return hand


_true_world = dealt_world


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 95), bots=st.sampled_from(["expert", "random", "mixed"]),
       viewer=st.integers(0, 3))
def test_every_sampled_world_is_consistent(seed, plays, bots, viewer):
    hand = _position(seed, plays, bots)
    if hand.phase != Phase.PLAY:
        return
    view = view_of(hand, viewer)
    sampler = WorldSampler(view)
    rng = random.Random(seed)
    assert inconsistency(view, _true_world(hand)) is None  # the checker accepts the truth
    for _ in range(5):
        world = sampler.sample(rng)
        assert inconsistency(view, world) is None
        assert sum(map(sum, world.hands)) + len(world.kitty) + sum(map(sum, view.played)) == 108
        assert world.hands[viewer] == view.hand
        # Shown bid cards not played since stay with the bidder (or in the kitty the bidder buried).
        if hand.standing is not None and hand.standing.seat != viewer:
            bidder, bid = hand.standing
            for k in set(bid.cards(view.level_rank)):
                need = bid.cards(view.level_rank).count(k) - view.played[bidder][k]
                held = world.hands[bidder][k] + (world.kitty.count(k) if bidder == hand.dealer else 0)
                assert held >= need
        # The world plays on: the engine takes it and the true next play is legal in it.
        world_hand(view, world)


def test_known_voids_are_never_dealt_into():
    """Over many positions, a seat known void in a suit never gets a card of it in any world."""
    checked = 0
    for seed in range(40):
        hand = _position(seed, 70)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        sampler = WorldSampler(view)
        rng = random.Random(seed)
        for _ in range(10):
            world = sampler.sample(rng)
            for seat in range(4):
                for k in range(NUM_KINDS):
                    if world.hands[seat][k] and seat != view.seat:
                        assert not sampler.tracker.void[seat][view.ctx.suit[k]]
        checked += sum(sampler.tracker.void[s][suit] for s in range(4) for suit in range(TRUMP + 1))
    assert checked > 20  # the positions really held voids


def test_uniform_without_constraints():
    """At the first lead (no voids yet, the viewer not the bidder), each unseen card is spread by room."""
    hand = _position(5, 0)
    viewer = next(s for s in range(4) if s != hand.dealer and (hand.standing is None or s != hand.standing.seat))
    view = view_of(hand, viewer)
    sampler = WorldSampler(view)
    rng = random.Random(0)
    kind = next(k for k in range(NUM_KINDS) if sampler.tracker.unseen[k] == 2
                and (hand.standing is None or k not in hand.standing.bid.cards(view.level_rank)))
    in_kitty = sum(sampler.sample(rng).kitty.count(kind) for _ in range(600))
    # Expected copies in the 8-card kitty out of 83 unseen slots: 2 * 8 / 83 per world.
    assert abs(in_kitty / 600 - 2 * 8 / 83) < 0.08


def test_contradictory_views_are_refused_with_the_reason():
    hand = _position(3, 30)
    view = view_of(hand, hand.current_player)
    sizes = list(view.hand_sizes)
    sizes[(view.seat + 1) % 4] += 1
    with pytest.raises(InconsistentViewError, match="unseen"):
        WorldSampler(dataclasses.replace(view, hand_sizes=tuple(sizes)))
    played = [list(p) for p in view.played]
    kind = next(k for k in range(NUM_KINDS) if view.hand[k])
    played[(view.seat + 1) % 4][kind] += 2
    with pytest.raises(InconsistentViewError, match="copies"):
        WorldSampler(dataclasses.replace(view, played=tuple(tuple(p) for p in played)))


def test_voids_that_leave_cards_nowhere_are_refused(monkeypatch):
    """Every other seat void in every suit while the dealer knows the kitty: the unseen cards have no place."""
    import agents.search.worlds as worlds

    class AllVoid(worlds.CardTracker):
        def __init__(self, view):
            super().__init__(view)
            self.void = [[seat != view.seat] * (TRUMP + 1) for seat in range(4)]

    hand = _position(8, 40)
    assert hand.phase == Phase.PLAY
    monkeypatch.setattr(worlds, "CardTracker", AllVoid)
    with pytest.raises(InconsistentViewError, match="can only be in"):
        WorldSampler(view_of(hand, hand.dealer))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 95))
def test_search_returns_legal_plays(seed, plays):
    hand = _position(seed, plays, "mixed")
    if hand.phase != Phase.PLAY:
        return
    seat = hand.current_player
    view = view_of(hand, seat)
    agent = SearchAgent(ExpertAgent(), TINY, seed=seed)
    play = agent.play(view)
    assert view.play_error(list(play)) is None
    for candidate in agent.last.candidates:
        assert view.play_error(list(candidate)) is None
    hand.play(seat, list(play))  # the engine agrees


def test_candidates_keep_the_prior_first_and_are_distinct():
    for seed in range(30):
        hand = _position(seed, seed * 3)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        prior = tuple(sorted(ExpertAgent().play(view)))
        plays = candidate_plays(view, prior, 8)
        assert plays[0] == prior
        assert len(set(plays)) == len(plays)
        assert len(plays) <= max(8, FEW_PLAYS)
        with pytest.raises(ValueError, match="at least one"):
            candidate_plays(view, prior, 0)


def _outcome(hand: Hand, seat: int, play: tuple[int, ...]) -> float:
    """Our team's levels (+ points tie-break) of ``play`` in the true deal, experts playing on."""
    agent = SearchAgent(ExpertAgent(), TINY)
    return agent._play_out(view_of(hand, seat), _true_world(hand), play, 0)


def test_with_the_true_world_it_finds_the_best_endgame_play():
    """Perfect information, the last tricks: the search picks a play no legal play beats."""
    improved = 0
    tried = 0
    for seed in range(60):
        hand = _position(seed, 0)
        while hand.phase == Phase.PLAY and hand.hand_sizes[hand.current_player] > 2 + seed % 3:
            seat = hand.current_player
            hand.play(seat, list(ExpertAgent().play(view_of(hand, seat))))
        if hand.phase != Phase.PLAY:
            continue
        seat = hand.current_player
        view = view_of(hand, seat)
        legal = view.legal_plays(FEW_PLAYS + 1).plays
        if not 2 <= len(legal) <= FEW_PLAYS:
            continue
        tried += 1
        agent = SearchAgent(ExpertAgent(), SearchConfig(time_budget=60.0, max_candidates=50))
        chosen = agent.search(view, worlds=[_true_world(hand)])
        values = {p: _outcome(hand, seat, p) for p in legal}
        assert values[chosen] == max(values.values())
        improved += values[chosen] > values[tuple(sorted(ExpertAgent().play(view)))]
    assert tried >= 20
    assert improved >= 1  # somewhere the expert's own play was worse, and the search found better


def test_a_hand_built_endgame_is_won():
    """Defenders at 70 points, two cards left each, a 15-point kitty; seat 1 (a defender) leads.

    Hearts are trump and nobody else holds one. Leading the pair H3 H3 takes
    the last trick with a pair: the kitty counts x4 (60), 130 points, the
    defenders go up a level. Two single leads win the kitty only x2 (100
    points, no level).
    """
    from env.core.cards import parse_cards
    from env.standard.trump import trump_context
    from env.standard.variants import RuleOptions

    options = RuleOptions()
    ctx = trump_context("2", "H", options)
    hands_cards = [["SA", "SA"], ["H3", "H3"], ["S6", "S7"], ["S8", "S9"]]
    kitty = parse_cards(["SK", "S3", "S3", "S5", "D3", "D3", "D4", "D4"])  # 15 points
    hands = [[0] * NUM_KINDS for _ in range(4)]
    for seat, cards in enumerate(hands_cards):
        for k in parse_cards(cards):
            hands[seat][k] += 1
    played = [[0] * NUM_KINDS for _ in range(4)]
    used = [sum(h[k] for h in hands) + kitty.count(k) for k in range(NUM_KINDS)]
    for k in range(NUM_KINDS):
        played[k % 4][k] = 2 - used[k]
    hand = Hand.from_position(rules=options, level="2", dealer=0, team_levels=("2", "2"), ctx=ctx, standing=None,
                              hands=hands, kitty=kitty, played=played, tricks=[], leader=1, trick_plays=[],
                              defender_points=70)
    view = view_of(hand, 1)
    agent = SearchAgent(ExpertAgent(), SearchConfig(time_budget=60.0))
    chosen = agent.search(view, worlds=[_true_world(hand)])
    assert chosen == tuple(parse_cards(["H3", "H3"]))
    hand.play(1, list(chosen))
    for seat in (2, 3, 0):
        hand.play(seat, list(ExpertAgent().play(view_of(hand, seat))))
    assert hand.result.winner == "defenders"
    assert hand.result.kitty_bonus == 15 * 4


def test_bad_budgets_and_options_are_refused_at_configuration():
    for bad in ({"time_budget": 0}, {"time_budget": -1.0}, {"worlds": 0}, {"max_candidates": 0},
                {"rollout": "oracle"}, {"screen_worlds": 30, "worlds": 10}, {"points_weight": -1}):
        with pytest.raises(ValueError, match=r"search\."):
            SearchConfig.from_dict(bad)
    with pytest.raises(ValueError, match="unknown search option"):
        SearchConfig.from_dict({"budget": 1})
    with pytest.raises(ValueError, match="time_budget"):
        make_agent("search", 0, search={"time_budget": 0})
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("search:grandmaster", 0)


def test_named_search_participants():
    agent = make_agent("search", 3, search={"worlds": 2, "screen_worlds": 1})
    assert isinstance(agent, SearchAgent) and agent.name == "search:expert"
    assert agent.config.worlds == 2
    greedy_prior = make_agent("search:greedy", 3)
    assert greedy_prior.name == "search:greedy"


def test_a_tiny_time_budget_still_returns_a_legal_play():
    hand = _position(11, 10)
    view = view_of(hand, hand.current_player)
    agent = SearchAgent(ExpertAgent(), SearchConfig(time_budget=1e-6), seed=0)
    play = agent.play(view)
    assert view.play_error(list(play)) is None


def test_illegal_world_positions_are_refused_by_the_engine():
    hand = _position(4, 20)
    view = view_of(hand, hand.current_player)
    world = _true_world(hand)
    broken = World(world.hands, world.kitty[:-1])
    with pytest.raises(ValueError, match=r"every card twice|kitty"):
        world_hand(view, broken)
    with pytest.raises(IllegalActionError):
        world_hand(view, world).play((view.seat + 1) % 4, [0])


def test_evaluate_cli_seats_the_search_and_refuses_a_zero_budget(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    base = [sys.executable, "evaluate.py", "num_deals=1", "workers=1", "progress=false",
            f"deals_file={tmp_path / 'deals.json'}", "participants=[search,expert]"]
    fast = ["search.worlds=2", "search.screen_worlds=1", "search.max_candidates=2"]
    done = subprocess.run([*base, *fast, f"hydra.run.dir={tmp_path / 'run'}"], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    pair = json.loads((tmp_path / "run" / "results.json").read_text())["pairs"][0]
    assert (pair["a"], pair["b"]) == ("search", "expert")
    assert len(pair["per_deal_level_change"]) == 1
    refused = subprocess.run([*base, "search.time_budget=0", f"hydra.run.dir={tmp_path / 'bad'}"], cwd=root,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert "time_budget" in refused.stderr


def test_play_cli_watches_searches_and_names_the_default_ai(tmp_path):
    import sys
    from pathlib import Path

    pexpect = pytest.importorskip("pexpect")
    root = Path(__file__).resolve().parents[1]
    args = ["play.py", "ui=terminal", "watch=true", "terminal.auto=true", "terminal.delay=0", "terminal.color=false",
            "episode=match", "max_hands=1", "seed=3", "seats=[ai,random,search,random]", "search.worlds=2",
            "search.screen_worlds=1", "search.max_candidates=2", f"hydra.run.dir={tmp_path}"]
    child = pexpect.spawn(sys.executable, args, cwd=str(root), encoding="utf-8", timeout=120,
                          dimensions=(60, 140), env={"PYTHONUNBUFFERED": "1", "TERM": "dumb", "COLUMNS": "140"})
    child.expect(r"the default AI \(ai\) is search \(2 worlds a decision, at most 1.9 s\)")  # search=strong's clock
    child.expect("The match is over after 1 hand")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_rebuilt_position_is_not_replayed_as_a_log():
    hand = _position(6, 12)
    rebuilt = world_hand(view_of(hand, hand.current_player), _true_world(hand))
    with pytest.raises(ValueError, match="cannot be replayed"):
        Hand.from_log(rebuilt.to_log())
