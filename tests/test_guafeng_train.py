"""Training on 刮风 (``python train.py rules=guafeng``): smoke runs in both action modes, resume, the
rule set recorded in checkpoints, the learner's candidates against the engine, a checkpoint at the table."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.dmc import guafeng_plays
from agents.dmc.agent import DMCAgent
from agents.dmc.guafeng_plays import guafeng_decision_candidates, guafeng_learner_plays, guafeng_steps
from agents.dmc.learner_rules import decision_candidates, feature_size
from agents.registry import make_agent
from agents.runner import play_hand
from agents.selfplay.checkpoint import CheckpointError, check_resumable, load_checkpoint, new_model
from agents.selfplay.config import run_config
from env.core.actions import PASS, STOP
from env.core.registry import make_ruleset
from env.guafeng.combos import BOMB, PAIR, RUN, SINGLE, TRACTOR, classify
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengPhase
from env.shengji_env import raw_env
from env.standard.hand import Hand
from tests.test_train import config
from tests.test_train import run_train as run_smoke_train

GUAFENG = make_ruleset("guafeng")


def run_train(tmp: Path, *overrides: str) -> subprocess.CompletedProcess:
    """A smoke run of ``train.py`` on 刮风."""
    return run_smoke_train(tmp, "rules=guafeng", *overrides)


@pytest.fixture(scope="module")
def play_checkpoint(tmp_path_factory) -> Path:
    """A smoke run of the default (``play``) mode, with the expert as teacher."""
    out = tmp_path_factory.mktemp("guafeng_play")
    result = run_train(out, "train.total_frames=1500", "train.final_eval_deals=1")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "training guafeng (play mode)" in result.stdout
    assert "checkpoint vs bots" in result.stdout  # the final evaluation ran on 刮风 deals
    return out / "checkpoints" / "latest.pt"


@pytest.fixture(scope="module")
def card_checkpoint(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("guafeng_card")
    result = run_train(out, "action_mode=card", "train.teacher=none", "train.total_frames=1000",
                       "train.final_eval_deals=0")
    assert result.returncode == 0, result.stderr[-3000:]
    return out / "checkpoints" / "latest.pt"


def test_smoke_runs_record_the_rule_set_and_learn_in_both_modes(play_checkpoint, card_checkpoint):
    for path, mode in ((play_checkpoint, "play"), (card_checkpoint, "card")):
        state = load_checkpoint(path)
        assert state["config"]["rules"]["ruleset"] == "guafeng"
        assert state["config"]["action_mode"] == mode
        assert state["counters"]["learner_steps"] > 0


def test_a_guafeng_checkpoint_resumes_and_refuses_the_standard_game(play_checkpoint, tmp_path):
    frames = int(load_checkpoint(play_checkpoint)["counters"]["frames"])
    result = run_train(tmp_path / "resumed", "resume=true", f"resume_from={play_checkpoint}",
                       f"train.total_frames={frames + 500}", "train.final_eval_deals=0")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "resumed from" in result.stdout
    assert load_checkpoint(tmp_path / "resumed" / "checkpoints" / "latest.pt")["counters"]["frames"] >= frames + 500
    # and the other way round, without a subprocess: each rule set refuses the other's checkpoint
    standard = run_config(config("train=smoke"))
    with pytest.raises(CheckpointError, match="ruleset: 'guafeng' -> 'standard'"):
        check_resumable(load_checkpoint(play_checkpoint), standard, play_checkpoint)
    state = {"model": new_model(standard).state_dict(), "config": config("train=smoke")}
    with pytest.raises(CheckpointError, match="ruleset: 'standard' -> 'guafeng'"):
        check_resumable(state, run_config(config("rules=guafeng", "train=smoke")))


@pytest.fixture
def one_thread():
    """One torch thread, as an actor or evaluation worker has (batch-of-one forwards are slow with more)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_a_guafeng_checkpoint_plays_complete_hands_and_only_guafeng(play_checkpoint, card_checkpoint, one_thread):
    for seed, path in enumerate((play_checkpoint, card_checkpoint)):
        agent = make_agent(str(path), seed=0)
        assert isinstance(agent, DMCAgent)
        hand = play_hand(GUAFENG.new_hand(seed), [agent] * 4)
        assert hand.phase == GuafengPhase.DONE and hand.result is not None
        with pytest.raises(CheckpointError, match="cannot play a 'standard' table"):
            play_hand(Hand.new(0), [agent] * 4)
    standard = run_config(config("train=smoke"))
    with pytest.raises(CheckpointError, match="cannot play a 'guafeng' table"):
        play_hand(GUAFENG.new_hand(0), [DMCAgent(new_model(standard), standard)] * 4)


def _random_positions(hands: int, seed: int = 0):
    """Views of the lead and follow decisions of random 刮风 hands (random legal card steps)."""
    env = raw_env(rules=GUAFENG, start="random", history_len=4)
    rng = random.Random(seed)
    for episode in range(hands):
        env.reset(seed=seed * 1000 + episode)
        while not any(env.terminations.values()):
            composer = env.decision.composer
            if composer.mode in ("lead", "follow"):
                yield composer.view
                plays = composer.view.legal_plays(200).plays
                env.play(rng.choice(plays))
            else:
                env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def test_every_candidate_is_legal_and_every_single_pair_and_bomb_is_a_lead_candidate():
    layout, leads, truncated = "canonical", 0, 0
    width = feature_size(layout, "play", GUAFENG)
    for view in _random_positions(12):
        candidates = decision_candidates(view, layout)
        plays = candidates.moves
        assert candidates.phase == 2 and candidates.rows.shape == (len(plays), width)
        assert len(set(plays)) == len(plays)
        for play in plays:
            assert play == tuple(sorted(play)) and view.play_error(play) is None, (play, view.lead)
        legal = view.legal_plays(guafeng_plays.MAX_FOLLOWS + 1)
        if view.lead is None:
            leads += 1
            basic = {p for p in view.legal_plays().plays
                     if view.first_lead or classify(view.ctx, p).kind in (SINGLE, PAIR, BOMB)}
            assert basic <= set(plays)
        elif not legal.truncated:
            assert set(plays) == set(legal.plays)
        else:
            truncated += 1
            assert len(plays) == guafeng_plays.MAX_FOLLOWS
    assert leads > 50


def test_a_long_follow_keeps_the_cheapest_and_the_winning_plays():
    """A follower void in hearts under a 5-card heart run: thousands of follows, the ideas are kept."""
    view = None
    for view in _random_positions(40, seed=3):
        if view.lead is not None and view.legal_plays(guafeng_plays.MAX_FOLLOWS + 1).truncated:
            break
    else:
        pytest.skip("no long follow in these hands")
    plays = guafeng_learner_plays(view)
    ideas = [p for p in guafeng_plays.follow_ideas(view) if view.play_error(p) is None]
    assert ideas and set(ideas) <= set(plays)


def test_past_the_bound_leads_keep_every_single_pair_and_bomb_and_the_longest_runs(monkeypatch):
    monkeypatch.setattr(guafeng_plays, "MAX_LEADS", 10)
    monkeypatch.setattr(guafeng_plays, "MIN_LONG_LEADS", 4)
    for view in _random_positions(6, seed=5):
        legal = view.legal_plays().plays
        if view.lead is not None or view.first_lead or len(legal) <= 10:
            continue
        plays = guafeng_learner_plays(view)
        kinds = {p: classify(view.ctx, p) for p in legal}
        basic = [p for p in legal if kinds[p].kind in (SINGLE, PAIR, BOMB)]
        others = [p for p in legal if kinds[p].kind in (RUN, TRACTOR)]
        assert set(basic) <= set(plays)
        assert len(plays) == len(basic) + min(len(others), max(4, 10 - len(basic)))
        if others:
            longest = max(kinds[p].length for p in others)
            assert any(kinds[p].length == longest for p in plays if p in others)


def test_fix_give_back_and_burial_are_card_steps_over_the_mask():
    env = raw_env(rules=GUAFENG, start="random", history_len=4)
    seen = set()
    rng = random.Random(1)
    for episode in range(4):
        env.reset(seed=episode)
        while env.decision.composer.mode not in ("lead", "follow"):
            mask = env.action_mask()
            candidates = guafeng_decision_candidates(env.decision.view, "canonical", mask)
            assert candidates.moves == np.flatnonzero(mask).tolist()
            assert candidates.phase == (0 if env.decision.composer.mode == "fix" else 1)
            seen.add(env.decision.composer.mode)
            env.step(int(rng.choice(candidates.moves)))
    assert {"fix", "bury"} <= seen
    fix = Fix.of("BJ", "HA HA")
    assert guafeng_steps(None) == [PASS]
    assert guafeng_steps(fix) == [*fix.jokers, *fix.base, STOP]


def test_the_card_mode_network_scores_guafeng_steps(one_thread):
    run = run_config(config("rules=guafeng", "train=smoke", "action_mode=card", "train.teacher=none"))
    agent = DMCAgent(new_model(run), run, seed=0)
    torch.manual_seed(0)
    hand = play_hand(GUAFENG.new_hand(7), [agent] * 4)
    assert hand.result is not None
