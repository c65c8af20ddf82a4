"""The whole-play learner (``action_mode=play``): candidates, features, teacher tables, losses, agent."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

from agents.bots.expert import ExpertAgent
from agents.bots.heuristics import beats, play_cost, trick_state
from agents.bots.random_agent import RandomAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.candidates import NUM_SPECIAL
from agents.dmc.learner import SampleBuffer, make_optimizer, margin_loss, softmax_imitation_loss, train_step
from agents.dmc.play_tables import PlayTables
from agents.dmc.plays import (
    EXTRA,
    MAX_FOLLOWS,
    decision_candidates,
    learner_plays,
    play_feature_size,
    play_rows,
)
from agents.dmc.tables import make_tables
from agents.runner import play_hand
from agents.search.candidates import lead_ideas
from agents.selfplay.checkpoint import CheckpointError, check_resumable, new_model, save_checkpoint
from agents.selfplay.config import run_config
from agents.selfplay.samples import SampleBatch
from env.core.actions import PASS
from env.core.cards import parse_cards
from env.core.errors import IllegalActionError
from env.core.suits import NUM_EFFECTIVE_SUITS
from env.shengji_env import AGENTS, raw_env
from env.standard.actions import bid_mask, composer_for
from env.standard.hand import Hand, Phase
from env.standard.moves import basic_leads
from env.standard.view import view_of
from tests.test_train import config, small_run

LAYOUT = "canonical"
SLOTS = 73


def random_play_views(seeds: range, agent_factory=RandomAgent, rules=None):
    """Every lead and follow decision of hands played by ``agent_factory`` bots: (hand, view) pairs
    (the standard game, or the rule set ``rules``)."""
    for seed in seeds:
        agents = [agent_factory(seed * 4 + i) for i in range(4)]
        hand = Hand.new(seed) if rules is None else rules.new_hand(seed)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            if hand.phase == Phase.PLAY:
                yield hand, view
            hand.act(seat, agents[seat].act(view))


# ---------------------------------------------------------------------- candidates


def test_candidates_are_legal_distinct_and_hold_every_basic_lead_and_every_small_follow_set():
    follows_checked = 0
    for _, view in random_play_views(range(6)):
        plays = learner_plays(view)
        assert len(plays) == len(set(plays)) and plays
        assert all(view.play_error(list(p)) is None for p in plays)
        assert all(list(p) == sorted(p) for p in plays)
        if view.lead is None:
            basics = {tuple(sorted(p)) for suit in range(NUM_EFFECTIVE_SUITS)
                      for p in basic_leads(view.ctx, view.hand, suit)}
            assert basics <= set(plays)
        else:
            every = view.legal_plays(MAX_FOLLOWS + 1)
            if not every.truncated and len(every.plays) <= MAX_FOLLOWS:
                assert set(plays) == set(every.plays)  # brute force: nothing left out
                follows_checked += 1
            else:
                assert len(plays) <= MAX_FOLLOWS + 10
    assert follows_checked > 100


def test_the_search_lead_ideas_are_among_the_lead_candidates():
    # The learner's leads are built without asking the search (it would cost a tracker per decision);
    # every idea the search would add must already be there.
    leads = 0
    for _, view in random_play_views(range(6), ExpertAgent):
        if view.lead is None:
            leads += 1
            assert {tuple(sorted(idea)) for idea in lead_ideas(view)} <= set(learner_plays(view))
    assert leads >= 100


def test_a_sure_throw_is_a_candidate_and_a_risky_one_is_not():
    # Seat 0 (dealer, on lead) holds S A A K: nobody can top the aces' pair or the K single -> a sure throw.
    # With S A A Q instead, the unseen S K beats the Q: no throw among the candidates.
    def candidates(spades: list[str]) -> set[tuple[int, ...]]:
        hands = [spades + ["H3", "C3"], ["S4", "S5", "H4", "H5", "C4"], ["S6", "S7", "H6", "H7", "C5"],
                 ["S8", "S9", "H8", "H9", "C6"]]
        hand = Hand.from_deal(hands, [], level="2", dealer=0, trump="H", buried=True)
        return set(learner_plays(view_of(hand, 0)))

    assert tuple(sorted(parse_cards(["SA", "SA", "SK"]))) in candidates(["SA", "SA", "SK"])
    assert tuple(sorted(parse_cards(["SA", "SA", "SQ"]))) not in candidates(["SA", "SA", "SQ"])


def test_expert_plays_are_almost_always_among_the_candidates():
    covered = total = 0
    expert = ExpertAgent(0)
    for _, view in random_play_views(range(4), ExpertAgent):
        total += 1
        covered += tuple(sorted(expert.play(view))) in learner_plays(view)
    assert covered / total > 0.97


# ---------------------------------------------------------------------- features


def test_play_rows_encode_the_cards_and_what_the_play_does():
    for _, view in random_play_views(range(3)):
        plays = learner_plays(view)
        rows = play_rows(view, plays, LAYOUT)
        assert rows.shape == (len(plays), play_feature_size(LAYOUT))
        extra = 2 * SLOTS + NUM_SPECIAL
        for play, row in zip(plays, rows, strict=True):
            assert row[:SLOTS].sum() == len(set(play))
            assert row[SLOTS:2 * SLOTS].sum() == len(play) - len(set(play))
            assert row[extra + EXTRA["cards"]] == pytest.approx(len(play) / 8)
            assert row[extra + EXTRA["cost"]] == pytest.approx(play_cost(view.ctx, view.hand, play) / 100)
            if view.lead is None:
                assert row[extra + EXTRA["lead"]] == 1 and row[extra + EXTRA["beats"]] == 0
            else:
                state = trick_state(view)
                assert row[extra + EXTRA["beats"]] == float(beats(view.ctx, view, play, state.best_rank))


def test_bid_and_kitty_candidates_follow_the_masks():
    env = raw_env(start="random")
    env.reset(seed=3)
    seen = {0: 0, 1: 0}
    rng = random.Random(0)
    while not any(env.terminations.values()) and env.hand.phase != Phase.PLAY:
        observation = env.observe(env.agent_selection)
        view = env.view(env.agent_selection)
        candidates = decision_candidates(view, LAYOUT, observation["action_mask"])
        mask = observation["action_mask"]
        if candidates.phase == 0:
            assert candidates.moves == np.flatnonzero(bid_mask(view.bid_options)).tolist()
        else:
            assert candidates.moves == np.flatnonzero(mask[:54]).tolist()
        assert set(candidates.moves) == set(np.flatnonzero(mask).tolist())
        seen[candidates.phase] += 1
        env.step(rng.choice(candidates.moves))
    assert seen[0] > 0 and seen[1] == 8


# ---------------------------------------------------------------------- environment's whole-play view


def test_whole_plays_give_the_same_hand_as_card_steps():
    for seed in range(4):
        whole, steps = raw_env(start="random"), raw_env(start="random")
        whole.reset(seed=seed)
        steps.reset(seed=seed)
        rng = random.Random(seed)
        while not any(whole.terminations.values()):
            if whole.hand.phase == Phase.PLAY:
                play = rng.choice(whole.legal_plays().plays if whole.hand.lead is not None
                                  else whole.legal_plays(60).plays)
                whole.play(play)
                for k in play:
                    steps.step(k)
                if steps.hand.phase == Phase.PLAY and steps.decision is not None and steps.decision.picked:
                    steps.step(54)
            else:
                action = int(rng.choice(np.flatnonzero(whole.action_mask())))
                whole.step(action)
                steps.step(action)
            assert whole.agent_selection == steps.agent_selection
            assert np.array_equal(whole.action_mask(), steps.action_mask())
        assert whole.hand.to_log() == steps.hand.to_log()
        assert whole.rewards == steps.rewards


def test_an_illegal_whole_play_is_refused_and_changes_nothing():
    env = raw_env(start="random")
    env.reset(seed=1)
    while env.hand.phase != Phase.PLAY:
        env.step(int(np.flatnonzero(env.action_mask())[0]))
    before = env.hand.to_log()
    seat = env.hand.current_player
    missing = next(k for k in range(54) if env.hand.hands[seat][k] == 0)
    with pytest.raises(IllegalActionError):
        env.play([missing])
    assert env.hand.to_log() == before and env.agent_selection == AGENTS[seat]
    with pytest.raises(IllegalActionError, match="no lead or follow"):
        bidding = raw_env()
        bidding.reset(seed=0)
        bidding.legal_plays()


# ---------------------------------------------------------------------- learner


def test_margin_loss_on_a_constructed_example():
    # Decision 0: teacher's choice 1.0, best other 0.5 -> satisfied with margin 0.1 (loss 0).
    # Decision 1: teacher's choice 0.0, best other 0.3 -> 0.3 + 0.1 - 0.0 = 0.4.
    # Decision 2: a burial pick with two acceptable cards (0.2 and 0.6) and one other (0.55): 0.65 - 0.6.
    q = torch.tensor([1.0, 0.5, 0.2, 0.0, 0.3, 0.2, 0.6, 0.55])
    owner = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2])
    positive = torch.tensor([True, False, False, True, False, True, True, False])
    loss, agreement = margin_loss(q, owner, positive, 3, margin=0.1)
    assert loss.item() == pytest.approx((0.0 + 0.4 + 0.05) / 3, abs=1e-6)
    assert agreement == pytest.approx(2 / 3)  # the teacher's choice is on top in decisions 0 and 2


def test_softmax_imitation_loss_on_a_constructed_example():
    # Decision 0: choice 1.0 against 0.0 at temperature 1 -> log(e + 1) - 1.
    # Decision 1: a burial pick, two acceptable cards (0.2, 0.6) and one other (0.55).
    # Decision 2: one candidate only -> not counted.
    q = torch.tensor([1.0, 0.0, 0.2, 0.6, 0.55, 0.3], requires_grad=True)
    owner = torch.tensor([0, 0, 1, 1, 1, 2])
    positive = torch.tensor([True, False, True, True, False, True])
    loss, agreement = softmax_imitation_loss(q, owner, positive, 3, temperature=1.0)
    first = math.log(math.e + 1) - 1
    second = math.log(math.exp(0.2) + math.exp(0.6) + math.exp(0.55)) - math.log(math.exp(0.2) + math.exp(0.6))
    assert loss.item() == pytest.approx((first + second) / 2, abs=1e-6)
    assert agreement == 1.0
    loss.backward()
    assert q.grad[0] < 0 < q.grad[1] and q.grad[5] == 0  # up for the teacher's choice, down for the other
    # A temperature of 0.01 makes the same gaps decisive, and adding a constant per decision changes nothing.
    sharp, _ = softmax_imitation_loss(q.detach() + torch.tensor([5.0, 5, -2, -2, -2, 0]), owner, positive, 3, 0.01)
    assert sharp.item() == pytest.approx(math.log(1 + math.exp(-5.0)) / 2, abs=1e-4)


def play_run(*overrides: str):
    return small_run("train.warm_start_frames=1000000", *overrides)


def teacher_batch(run, tables_count: int = 2, min_samples: int = 256) -> SampleBatch:
    model = new_model(run).eval()
    tables = PlayTables(tables_count, 0, run)
    buffer = SampleBuffer()
    while buffer.size < min_samples:
        tables.step(model, 0.0, run.train.teacher_share_at(0))
        batch = tables.collect(1)
        if batch is not None:
            buffer.add(batch)
    return buffer.take(min_samples)


def test_teacher_tables_label_every_choice_and_carry_the_final_reward():
    run = play_run()
    model = new_model(run).eval()
    tables = PlayTables(1, 5, run)
    batch = None
    while batch is None:
        tables.step(model, 0.0, 1.0)
        batch = tables.collect(1)
    assert batch.episodes == 1
    assert set(batch.target.tolist()) == {batch.returns[0], -batch.returns[0]}
    labelled = batch.cand_count > 0
    assert labelled.mean() > 0.95  # only decisions with one candidate go unlabelled
    offsets = np.concatenate([[0], np.cumsum(batch.cand_count)])
    for i in np.flatnonzero(labelled):
        rows = batch.cand_rows[offsets[i]:offsets[i + 1]]
        positive = batch.cand_positive[offsets[i]:offsets[i + 1]]
        assert positive.any()
        assert any(np.array_equal(batch.actions[i], r) for r in rows[positive])  # chosen is a teacher's choice


def test_learner_tables_carry_no_labels_and_report_the_candidate_spread():
    run = small_run("train.teacher=none")
    model = new_model(run).eval()
    tables = PlayTables(2, 1, run)
    batch = None
    while batch is None:
        tables.step(model, 0.1, 0.0)
        batch = tables.collect(64)
    assert batch.teacher_decisions == 0 and batch.spreads and min(batch.spreads) >= 0


def test_teacher_share_puts_the_teacher_on_one_team_of_some_hands():
    run = small_run("train.teacher_share=0.5", "train.warm_start_frames=0")
    tables = PlayTables(8, 2, run)
    tables.teacher_share = 0.5
    for i in range(8):
        tables._reset(i)
    held = [tables.teacher_seats[i] for i in range(8)]
    assert all(h in (frozenset(), frozenset({0, 2}), frozenset({1, 3})) for h in held)
    assert any(held) and not all(held)


def test_imitation_makes_the_network_agree_with_the_teacher():
    torch.manual_seed(0)
    run = play_run()
    batch = teacher_batch(run)
    model = new_model(run)
    optimizer = make_optimizer(model, run.train)
    for group in optimizer.param_groups:
        group["lr"] = 1e-3
    first = train_step(model, optimizer, batch, torch.device("cpu"), run.train)
    for _ in range(60):
        last = train_step(model, optimizer, batch, torch.device("cpu"), run.train)
    assert last["imitation_loss"] < first["imitation_loss"]
    assert last["teacher_agreement"] > first["teacher_agreement"] + 0.3
    assert last["value_loss"] < first["value_loss"]


def test_buffer_splits_ragged_candidates_with_their_decisions():
    run = play_run()
    batch = teacher_batch(run, min_samples=64)
    head, rest = batch.split(20)
    assert len(head) == 20 and len(rest) == len(batch) - 20
    assert len(head.cand_rows) == head.cand_count.sum() and len(rest.cand_rows) == rest.cand_count.sum()
    again = SampleBatch.concatenate([head, rest])
    assert np.array_equal(again.cand_rows, batch.cand_rows) and np.array_equal(again.cand_positive,
                                                                                 batch.cand_positive)


def test_value_head_splits_q_into_value_and_advantage():
    run = small_run()
    model = new_model(run).eval()
    obs = torch.rand(3, model.obs_size)
    history = torch.rand(3, *model.history_shape)
    actions = torch.rand(5, model.action_size)
    index = torch.tensor([0, 0, 1, 2, 2])
    q, value = model.evaluate(obs, history, actions, index)
    state = model.encode_state(obs, history)
    assert torch.allclose(q, model.score(state[index], actions) + value[index], atol=1e-6)
    assert torch.allclose(value, model.value(state).squeeze(1), atol=1e-6)


def test_teacher_needs_the_play_mode_and_bad_teacher_options_are_refused():
    with pytest.raises(ValueError, match="action_mode=play"):
        run_config(config("train=smoke", "action_mode=card"))
    with pytest.raises(ValueError, match=r"train\.teacher must be"):
        small_run("train.teacher=grandmaster")
    with pytest.raises(ValueError, match="teacher_share"):
        small_run("train.teacher_share=1.5")
    with pytest.raises(ValueError, match="action_mode must be"):
        small_run("action_mode=cards")
    with pytest.raises(ValueError, match="imitation must be"):
        small_run("train.imitation=copy")
    with pytest.raises(ValueError, match="sample_reuse"):
        small_run("train.sample_reuse=0")


def test_teacher_share_schedule():
    settings = small_run("train.warm_start_frames=100", "train.teacher_share=0.5",
                         "train.teacher_decay_frames=200").train
    assert [settings.teacher_share_at(f) for f in (0, 99, 100, 200, 300, 1000)] == [1.0, 1.0, 0.5, 0.25, 0.0, 0.0]
    assert small_run("train.teacher=none").train.teacher_share_at(0) == 0.0


# ---------------------------------------------------------------------- agent


def test_play_mode_checkpoint_agent_plays_whole_hands_legally(tmp_path):
    run = small_run()
    assert run.action_mode == "play"
    path = save_checkpoint(tmp_path / "play.pt", model=new_model(run), optimizer=None,
                           config=config("train=smoke"), counters={"frames": 0})
    agents = [DMCAgent.from_checkpoint(path), RandomAgent(1), DMCAgent.from_checkpoint(path, seed=2, epsilon=0.3),
              RandomAgent(3)]
    for seed in range(3):
        hand = play_hand(Hand.new(seed), agents)
        assert hand.phase == Phase.DONE and hand.cards_accounted() == 108


def test_kitty_candidates_come_from_the_composer_as_cards_are_picked():
    hand = Hand.new(4, dealer=0)
    agents = [RandomAgent(i) for i in range(4)]
    while hand.phase != Phase.KITTY:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    view = view_of(hand, hand.current_player)
    composer = composer_for(view)
    for _ in range(3):
        candidates = decision_candidates(view, LAYOUT, composer.mask())
        assert PASS not in candidates.moves and candidates.phase == 1
        assert all(view.hand[k] > composer.counts[k] for k in candidates.moves)
        composer.add(candidates.moves[0])
    with pytest.raises(ValueError, match="mask"):
        decision_candidates(view, LAYOUT)


def test_hands_against_the_teacher_report_the_learner_teams_return():
    run = small_run("train.teacher_share=0.99", "train.warm_start_frames=0")
    tables = PlayTables(1, 4, run)
    held = tables.teacher_seats[0]
    assert len(held) == 2
    model = new_model(run).eval()
    batch = None
    while batch is None:
        tables.step(model, 0.0, 0.99)
        batch = tables.collect(1)
    learner_team = 1 - min(held) % 2
    team0 = batch.returns[0]
    assert batch.returns_vs_teacher == [team0 if learner_team == 0 else -team0]


@pytest.mark.parametrize("teacher_share", [1.0, 0.0])
def test_whole_play_tables_play_hands_with_chaodipi(teacher_share):
    run = small_run("rules=chaodipi", "train.warm_start_frames=1000000" if teacher_share else "train.teacher=none")
    model = new_model(run).eval()
    tables = PlayTables(2, 6, run)
    batch = None
    while batch is None:
        tables.step(model, 0.1, teacher_share)
        batch = tables.collect(1)
    assert batch.episodes >= 1 and batch.obs.shape[1] == model.obs_size
    assert (batch.teacher_decisions > 0) == bool(teacher_share)


@pytest.mark.parametrize("switches", [
    ("action_mode=card", "train.teacher=none"),
    ("train.teacher=none",),
    ("train.warm_start_frames=0", "train.teacher_share=0.5"),
    ("train.imitation=margin",),
    ("train.imitation_weight=0",),
    ("model.value_head=false",),
    ("reward=level_points",),
])
def test_every_ablation_switch_trains_a_few_hundred_frames(switches):
    torch.manual_seed(0)
    run = small_run("train.warm_start_frames=200", *switches)
    model = new_model(run)
    optimizer = make_optimizer(model, run.train)
    tables = make_tables(run, seed=3)
    buffer, frames, steps = SampleBuffer(), 0, 0
    while frames < 300 or steps == 0:
        tables.step(model.eval(), 0.1, run.train.teacher_share_at(frames))
        batch = tables.collect(1)
        if batch is not None:
            frames += batch.frames
            buffer.add(batch)
        while (chunk := buffer.take(32)) is not None:
            stats = train_step(model, optimizer, chunk, torch.device("cpu"), run.train)
            assert np.isfinite(stats["q_loss"]) and np.isfinite(stats["grad_norm"])
            steps += 1
    assert steps > 0 and frames >= 300


def test_resuming_with_another_action_mode_or_model_names_the_mismatch(tmp_path):
    run = small_run()
    state = {"model": new_model(run).state_dict(), "config": config("train=smoke")}
    other = small_run("action_mode=card", "train.teacher=none", "model.value_head=false")
    with pytest.raises(CheckpointError, match=r"action_mode: 'play' -> 'card'.*model:"):
        check_resumable(state, other, "old.pt")
    assert check_resumable(state, run) is not None
