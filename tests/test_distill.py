"""Search distillation: the label file format, the targets the network learns, a round end to end, bad input."""

from __future__ import annotations

import itertools
import json
import math
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.distill.label import Labeller, labels_of, make_labeller, run_labelling
from agents.distill.labels import (
    FORMAT,
    LabelError,
    Labels,
    label_header,
    read_labels,
    read_shard,
    shard_path,
    shard_paths,
    write_shard,
)
from agents.distill.learn import Batch, check_learn, learn, renamed_labels, training_decisions
from agents.distill.targets import distill_loss, distill_weight, keep_loss, search_policy
from agents.dmc.agent import DMCAgent
from agents.dmc.plays import play_rows
from agents.search.worlds import dealt_world, inconsistency
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_search import _position, _true_world

ROOT = Path(__file__).resolve().parent.parent
NETWORK = str(ROOT / "checkpoints" / "dmc_play_cpu76.pt")
TINY_SEARCH = {"time_budget": 30.0, "worlds": 2, "screen_worlds": 1, "max_candidates": 3, "rollout": "greedy",
               "points_weight": 1.0, "min_advantage_se": 1.0, "recheck_worlds": 0, "recheck_z": 1.645,
               "recheck_time": 0.5}


def _config(tmp: Path, **label) -> dict:
    return {"search": dict(TINY_SEARCH),
            "label": {"network": NETWORK, "prior": "greedy", "play_by": "search", "hands": 1, "hands_per_shard": 1,
                      "seed": 3, "out": str(tmp / "labels"), **label},
            "learn": {"checkpoint": NETWORK, "labels": [str(tmp / "labels")], "out": str(tmp / "learn"),
                      "resume": False, "steps": 3, "batch_size": 8, "learning_rate": 1e-4, "max_grad_norm": 40.0,
                      "target": "softmax", "temperature": 0.25, "target_temperature": 0.25, "distill_weight": 1.0,
                      "distill_floor": 0.25, "anneal_steps": 2, "value_weight": 1.0, "q_weight": 0.5,
                      "selfplay_every": 0, "selfplay_tables": 2, "holdout": 0.0, "eval_every": 2, "save_every": 2,
                      "seed": 0}}


def _run():
    return model_from_checkpoint(load_checkpoint(NETWORK))[1]


def _labels(n: int, width: int, obs: int, history: tuple[int, int], seed: int = 0) -> Labels:
    rng = np.random.default_rng(seed)
    counts = rng.integers(2, 6, n).astype(np.int32)
    m = int(counts.sum())
    return Labels(obs=rng.random((n, obs)).astype(np.float16), history=rng.random((n, *history)).astype(np.float16),
                  phase=np.full(n, 2, np.int8), seat=rng.integers(0, 4, n).astype(np.int8),
                  hand=np.arange(n, dtype=np.int32) // 3, ret=rng.normal(size=n).astype(np.float32),
                  cand_count=counts, cand_rows=rng.random((m, width)).astype(np.float16),
                  cand_value=rng.normal(size=m).astype(np.float32), cand_worlds=rng.integers(1, 9, m).astype(np.int32),
                  chosen=np.array([rng.integers(0, c) for c in counts], np.int32))


def _foreign_checkpoint(path: Path, *overrides: str) -> Path:
    """An untrained checkpoint of the smoke preset with ``overrides`` (another rule set or action mode)."""
    from agents.selfplay.checkpoint import new_model, save_checkpoint
    from agents.selfplay.config import run_config
    from tests.test_train import config as train_config

    cfg = train_config("train=smoke", *overrides)
    return save_checkpoint(path, model=new_model(run_config(cfg)), optimizer=None, config=cfg, counters={"frames": 0})


def _header():
    return label_header(_run(), dict(TINY_SEARCH), prior="greedy", play_by="search", seed=0)


def test_labels_round_trip_through_the_file_format(tmp_path):
    header = _header()
    labels = _labels(7, header["feature_size"], header["obs_size"], tuple(header["history_shape"]))
    path = write_shard(shard_path(tmp_path, 0), {**header, "first_hand": 0, "hands": 3}, labels)
    saved, back = read_shard(path, header)
    assert saved["format"] == FORMAT and saved["version"] == 1 and saved["ruleset"] == "standard"
    assert saved["layout"] == "canonical" and saved["hands"] == 3
    for name in ("obs", "history", "cand_rows", "cand_value", "cand_worlds", "cand_count", "chosen", "ret", "hand"):
        np.testing.assert_array_equal(getattr(back, name), getattr(labels, name))
    assert back.select(np.array([2])).cand_count.tolist() == [labels.cand_count[2]]
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically


@pytest.mark.parametrize(("field", "value"), [("layout", "raw"), ("ruleset", "guafeng"), ("history_len", 3),
                                               ("version", 2), ("format", "something-else"), ("feature_size", 5)])
def test_mismatched_label_files_are_refused_with_the_mismatch_named(tmp_path, field, value):
    header = _header()
    labels = _labels(3, header["feature_size"], header["obs_size"], tuple(header["history_shape"]))
    path = write_shard(shard_path(tmp_path, 0), {**header, field: value, "first_hand": 0, "hands": 1}, labels)
    with pytest.raises(LabelError, match=field):
        read_shard(path, header)
    with pytest.raises(LabelError):
        read_labels([tmp_path], header)


def test_damaged_or_foreign_files_are_refused(tmp_path):
    header = _header()
    (tmp_path / "labels-00000.npz").write_bytes(b"not a zip at all")
    with pytest.raises(LabelError, match="damaged"):
        read_shard(tmp_path / "labels-00000.npz", header)
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(LabelError, match="no header"):
        read_shard(tmp_path / "other.npz", header)
    with pytest.raises(LabelError, match="no label shards"):
        read_labels([tmp_path / "empty"], header)


def test_the_networks_targets_are_what_the_search_computed():
    """A position from a seeded hand, the search over two known worlds: the label row holds the search's
    means of exactly the candidates it examined, and the training target is softmax(mean / T) of them."""
    config = _config(Path("/nonexistent"))
    config["search"] = {**TINY_SEARCH, "worlds": 2, "screen_worlds": 2, "max_candidates": 4}
    labeller, _ = make_labeller(config)
    for seed in range(20):
        hand = _position(seed, 8 + seed)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        if len(view.legal_plays(3).plays) < 2:
            continue
        worlds = [_true_world(hand), _true_world(hand)]
        _, row = labeller.label_decision(view, worlds)
        stats = labeller.search.last
        if row is None:
            continue
        examined = [i for i, m in enumerate(stats.means) if m is not None]
        plays = [stats.candidates[i] for i in examined]
        assert row[4] == [stats.means[i] for i in examined]
        assert row[5] == [2] * len(examined)  # every candidate over both given worlds
        np.testing.assert_array_equal(row[3], play_rows(view, plays, "canonical"))
        # The search's means are its rollouts' outcomes in those worlds (the true deal twice).
        for play, value in zip(plays, row[4], strict=True):
            outcomes = [labeller.search._play_out(view, w, play, 0) for w in worlds]
            assert min(outcomes) - 1e-9 <= value <= max(outcomes) + 1e-9
        labels = labels_of([row], (1.0, -1.0), 0, labeller.encoder, labeller.run)
        assert labels.ret[0] == (1.0 if view.seat % 2 == 0 else -1.0)
        batch = Batch(labels)
        target = search_policy(batch.values, batch.owner, 1, 0.25).numpy()
        expected = np.exp(np.array(row[4]) / 0.25)
        np.testing.assert_allclose(target, expected / expected.sum(), rtol=1e-5)
        assert int(batch.best) == int(np.argmax(row[4]))
        return
    pytest.fail("no position with a real choice found")


def test_distill_loss_is_lowest_at_the_search_ordering_and_ignores_a_shared_value():
    values = torch.tensor([1.0, 0.0, -0.5, 0.2, 0.4])
    owner = torch.tensor([0, 0, 0, 1, 1])
    for kind in ("softmax", "advantage"):
        good = distill_loss(values.clone(), values, owner, 2, kind, 0.25, 0.25)
        shifted = distill_loss(values + torch.tensor([3.0, 3.0, 3.0, -1.0, -1.0]), values, owner, 2, kind, 0.25, 0.25)
        bad = distill_loss(-values, values, owner, 2, kind, 0.25, 0.25)
        assert float(good) == pytest.approx(float(shifted), abs=1e-5)
        assert float(good) < float(bad)
    with pytest.raises(ValueError, match=r"must be one of .*choice.*got 'other'"):
        distill_loss(values, values, owner, 2, "other", 1.0, 1.0)


def test_the_choice_target_is_the_cross_entropy_towards_the_searchs_chosen_play():
    q = torch.tensor([1.0, 0.0, -0.5, 0.2, 0.4])
    owner = torch.tensor([0, 0, 0, 1, 1])
    values = torch.zeros(5)  # the values play no part: only the chosen rows
    chosen = torch.tensor([1, 4])
    loss = distill_loss(q, values, owner, 2, "choice", 0.5, 0.1, chosen)
    first = -torch.log_softmax(q[:3] / 0.5, 0)[1]
    second = -torch.log_softmax(q[3:] / 0.5, 0)[1]
    assert float(loss) == pytest.approx(float((first + second) / 2), abs=1e-6)
    # raising the chosen play's Q lowers the loss; raising another's raises it
    def moved(bump: list[float]) -> float:
        return float(distill_loss(q + torch.tensor(bump), values, owner, 2, "choice", 0.5, 0.1, chosen))

    assert moved([0, 1.0, 0, 0, 0]) < float(loss)
    assert moved([1.0, 0, 0, 0, 0]) > float(loss)
    with pytest.raises(ValueError, match="chosen rows"):
        distill_loss(q, values, owner, 2, "choice", 0.5, 0.1)


def test_the_keep_term_is_the_kl_from_the_starting_networks_candidate_distribution():
    before = torch.tensor([1.0, 0.0, -0.5, 0.2, 0.4])
    owner = torch.tensor([0, 0, 0, 1, 1])
    # no change, or a change shared by a decision's candidates, keeps the distribution: nothing to pay
    assert float(keep_loss(before.clone(), before, owner, 2, 0.5)) == pytest.approx(0.0, abs=1e-7)
    shifted = before + torch.tensor([2.0, 2.0, 2.0, -1.0, -1.0])
    assert float(keep_loss(shifted, before, owner, 2, 0.5)) == pytest.approx(0.0, abs=1e-6)
    now = torch.tensor([0.0, 1.0, -0.5, 0.4, 0.2])
    expected = 0.0
    for rows in (slice(0, 3), slice(3, 5)):
        p = torch.softmax(before[rows] / 0.5, 0)
        expected += float(torch.sum(p * (torch.log(p) - torch.log_softmax(now[rows] / 0.5, 0))))
    assert float(keep_loss(now, before, owner, 2, 0.5)) == pytest.approx(expected / 2, rel=1e-5)
    assert float(keep_loss(now, before, owner, 2, 0.5)) > 0


def test_the_keep_term_holds_the_ordering_near_the_start_while_the_labels_pull(tmp_path):
    """The same labels and steps, with and without keep_weight: with it, the learnt network's candidate
    distribution ends nearer the starting network's (KL over the labelled decisions)."""
    config = _config(tmp_path, hands=2, hands_per_shard=2)
    run_labelling(config)
    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    batch = Batch(read_labels([tmp_path / "labels"], label_header(run, {})))
    with torch.no_grad():
        q_start = batch.forward(model.eval())[0]
    drift = {}
    for weight in (0.0, 5.0):
        config["learn"].update(steps=40, target="choice", learning_rate=1e-3, batch_size=64, eval_every=40,
                               save_every=40, temperature=0.1, distill_floor=1.0, q_weight=0.0, value_weight=0.0,
                               keep_weight=weight, out=str(tmp_path / f"learn{weight}"))
        learn(config)
        trained = model_from_checkpoint(load_checkpoint(tmp_path / f"learn{weight}" / "latest.pt"))[0].eval()
        with torch.no_grad():
            drift[weight] = float(keep_loss(batch.forward(trained)[0], q_start, batch.owner, batch.n, 0.1))
    assert drift[0.0] > 0 and drift[5.0] < drift[0.0]
    config["learn"]["keep_weight"] = -1.0
    with pytest.raises(ValueError, match="keep_weight"):
        learn(config)


def test_decisions_kept_by_the_search_margin_are_those_where_another_candidate_had_the_higher_mean():
    labels = _labels(4, 3, 5, (2, 3))
    labels.cand_count = np.array([3, 2, 2, 3], np.int32)
    labels.cand_rows = np.zeros((10, 3), np.float16)
    labels.cand_worlds = np.full(10, 4, np.int32)
    #                       prior first in each decision
    labels.cand_value = np.array([0.5, 0.7, 0.1,  0.3, 0.2,  0.0, 0.4,  -0.1, -0.1, -0.3], np.float32)
    labels.chosen = np.array([0, 0, 1, 0], np.int32)
    # 0: kept although 0.7 > 0.5; 1: kept, the prior's mean the best; 2: the challenger chosen; 3: a tie, not higher
    assert labels.kept_by_margin().tolist() == [True, False, False, False]
    assert labels.select(np.array([0, 2])).kept_by_margin().tolist() == [True, False]


def test_skip_margin_kept_trains_on_the_other_decisions_only(tmp_path, monkeypatch):
    config = _config(tmp_path, hands=2, hands_per_shard=2)
    run_labelling(config)
    labels = read_labels([tmp_path / "labels"], label_header(_run(), {}))
    seen: list[int] = []
    original = Labels.select

    def spying(self, decisions):
        seen.extend(np.asarray(decisions).tolist())
        return original(self, decisions)

    monkeypatch.setattr(Labels, "select", spying)
    config["learn"].update(steps=20, batch_size=8, skip_margin_kept=True)
    learn(config)
    skipped = set(np.flatnonzero(labels.kept_by_margin()).tolist())
    assert skipped and len(skipped) < len(labels)  # the labels hold both kinds
    assert seen and not skipped & set(seen)  # holdout 0: every selection is a training batch


def test_override_repeat_draws_the_searchs_overrides_that_many_times_as_often():
    labels = _labels(5, 3, 5, (2, 3))
    labels.cand_count = np.full(5, 2, np.int32)
    labels.cand_rows = np.zeros((10, 3), np.float16)
    labels.cand_worlds = np.full(10, 4, np.int32)
    labels.cand_value = np.array([0.1, 0.5,  0.3, 0.2,  0.0, 0.4,  0.2, 0.1,  0.6, 0.0], np.float32)
    labels.chosen = np.array([0, 0, 1, 0, 1], np.int32)  # 0: kept by the margin; 2 and 4: overrides
    train = np.array([0, 1, 2, 3])  # decision 4 held out
    drawn = training_decisions(labels, train, {"skip_margin_kept": True, "override_repeat": 3})
    assert drawn.tolist() == [1, 2, 2, 2, 3]
    assert training_decisions(labels, train, {"override_repeat": 1}).tolist() == [0, 1, 2, 3]
    assert training_decisions(labels, train, {"override_repeat": 2}).tolist() == [0, 1, 2, 2, 3]
    config = {"target": "choice", "steps": 1, "batch_size": 1, "eval_every": 1, "save_every": 1,
              "selfplay_tables": 1, "temperature": 0.1, "target_temperature": 0.1, "learning_rate": 1e-4,
              "distill_weight": 1.0, "distill_floor": 0.0, "value_weight": 0.0, "q_weight": 0.0,
              "anneal_steps": 0, "selfplay_every": 0, "holdout": 0.0}
    for bad in (0, 1.5):
        with pytest.raises(ValueError, match="override_repeat"):
            check_learn({**config, "override_repeat": bad})


def test_renamings_show_the_learner_each_decision_under_a_renaming_of_its_plain_suits(tmp_path, monkeypatch):
    """learn.renamings: every drawn batch is renamed decision by decision (values, choices and candidate counts
    kept, inputs moved), a round runs with it, and a network whose decisions have no renamings is refused."""
    config = _config(tmp_path, hands=1)
    run_labelling(config)
    run = _run()
    labels = read_labels([tmp_path / "labels"], label_header(run, {}))
    renamed = renamed_labels(labels, run, np.random.default_rng(0))
    for name in ("phase", "seat", "hand", "ret", "cand_count", "cand_value", "cand_worlds", "chosen"):
        np.testing.assert_array_equal(getattr(renamed, name), getattr(labels, name))
    moved = (renamed.obs != labels.obs).any(axis=1)
    assert 0 < moved.sum() < len(labels)  # the identity is one of the renamings drawn
    assert np.array_equal(np.sort(renamed.obs, axis=1), np.sort(labels.obs, axis=1))  # a permutation of each row
    bids = replace(labels, phase=np.zeros_like(labels.phase))  # as a bid's decisions: never renamed
    assert np.array_equal(renamed_labels(bids, run, np.random.default_rng(0)).obs, labels.obs)
    drawn: list[int] = []
    original = renamed_labels

    def spying(labels, run, rng):
        drawn.append(len(labels))
        return original(labels, run, rng)

    monkeypatch.setattr("agents.distill.learn.renamed_labels", spying)
    config["learn"]["renamings"] = True
    learn(config)
    assert len(drawn) == config["learn"]["steps"]
    with pytest.raises(ValueError, match="renamings"):
        check_learn({**config["learn"], "renamings": "yes"})
    config["learn"]["checkpoint"] = str(_foreign_checkpoint(tmp_path / "guafeng.pt", "rules=guafeng"))
    with pytest.raises(ValueError, match="guafeng"):
        learn(config)


def test_the_distillation_weight_never_falls_below_its_floor():
    weights = [distill_weight(step, 1.0, 0.25, 100) for step in range(0, 500, 10)]
    assert weights[0] == 1.0 and min(weights) == 0.25 and weights[-1] == 0.25
    assert all(a >= b for a, b in itertools.pairwise(weights))
    assert distill_weight(10, 0.1, 0.25, 0) == 0.25


def test_a_round_runs_end_to_end_and_resumes(tmp_path):
    config = _config(tmp_path, hands=1)
    hands, decisions, stopped = run_labelling(config)
    assert (hands, stopped) == (1, False) and decisions > 5
    config["label"]["hands"] = 2  # a rerun resumes after the written shard
    assert run_labelling(config)[0] == 2
    assert len(shard_paths(tmp_path / "labels")) == 2
    other = _config(tmp_path, hands=3)
    other["search"]["worlds"] = 3
    with pytest.raises(LabelError, match="search"):
        run_labelling(other)
    config["learn"]["holdout"] = 0.5
    figures = learn(config)
    assert 0.0 <= figures["agreement_best"] <= 1.0 and figures["value_error"] >= 0
    state = load_checkpoint(tmp_path / "learn" / "latest.pt")
    assert state["counters"]["distill_steps"] == 3
    best = load_checkpoint(tmp_path / "learn" / "best.pt")  # the lowest held-out distillation loss
    assert best["counters"]["distill_best_loss"] <= figures["distill_loss"]
    assert best["counters"]["distill_steps"] in (2, 3)
    assert (tmp_path / "learn" / "tensorboard").is_dir()
    agent = DMCAgent.from_checkpoint(tmp_path / "learn" / "latest.pt")
    assert agent.run.layout == "canonical"
    config["learn"].update(resume=True, steps=5)
    learn(config)
    assert load_checkpoint(tmp_path / "learn" / "latest.pt")["counters"]["distill_steps"] == 5


@pytest.mark.parametrize(("target", "figure"), [("softmax", "agreement_best"), ("choice", "agreement_choice")])
def test_learning_moves_the_network_towards_the_search(tmp_path, target, figure):
    """On a fixed label set, a few steps raise the agreement with the search's best candidate (the values'
    target) or with its choice (the choice target)."""
    config = _config(tmp_path, hands=2, hands_per_shard=2)
    run_labelling(config)
    config["learn"].update(steps=60, target=target, learning_rate=1e-3, batch_size=64, eval_every=60, save_every=60,
                           target_temperature=0.05, temperature=0.05, distill_floor=1.0, q_weight=0.0,
                           value_weight=0.0)
    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    labels = read_labels([tmp_path / "labels"], label_header(run, {}))
    from agents.distill.learn import holdout_figures

    before = holdout_figures(model, Batch(labels))[figure]
    learn(config)  # holdout 0: figures on the training decisions themselves
    trained = model_from_checkpoint(load_checkpoint(tmp_path / "learn" / "latest.pt"))[0]
    after = holdout_figures(trained, Batch(labels))[figure]
    assert after > before


def test_bad_settings_are_refused_at_start(tmp_path):
    with pytest.raises(ValueError, match="play_by"):
        make_labeller(_config(tmp_path, play_by="nobody"))
    with pytest.raises(ValueError, match="hands"):
        make_labeller(_config(tmp_path, hands=0))
    config = _config(tmp_path)
    config["search"]["worlds"] = 0
    with pytest.raises(ValueError, match="worlds"):
        make_labeller(config)
    config = _config(tmp_path)
    config["learn"]["target"] = "imitate"
    with pytest.raises(ValueError, match=r"learn\.target"):
        learn(config)


def test_labelling_stops_cleanly_on_sigterm_and_keeps_whole_shards(tmp_path):
    out = tmp_path / "labels"
    command = [sys.executable, "-m", "agents.distill.label", f"hydra.run.dir={tmp_path / 'hydra'}",
               f"label.network={NETWORK}", "label.prior=greedy", "label.hands=50", f"label.out={out}",
               *[f"search.{k}={v}" for k, v in TINY_SEARCH.items()]]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 240
    while not shard_paths(out) and time.time() < deadline and process.poll() is None:
        time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    assert "stopped:" in output and "Traceback" not in output
    header = json.loads(json.dumps(read_shard(shard_paths(out)[0])[0]))
    for path in shard_paths(out):
        read_shard(path, header)
    assert not list(out.glob("*.tmp*"))


def test_labeller_plays_with_the_network_when_asked(tmp_path):
    labeller, header = make_labeller(_config(tmp_path, play_by="network"))
    assert isinstance(labeller, Labeller) and labeller.actor is not None and header["play_by"] == "network"
    labels = labeller.label_hand(0)
    assert len(labels) > 0 and np.all(labels.cand_count >= 2)
    assert not math.isnan(float(labels.cand_value.sum()))


@pytest.mark.parametrize("play_by", ["search", "network"])
def test_the_networks_own_play_is_among_the_labelled_candidates(tmp_path, play_by):
    """network_candidate: at every labelled decision the learner's choice has a search value, and with
    play_by=network it is also the move played."""
    labeller, header = make_labeller(_config(tmp_path, play_by=play_by, network_candidate=True))
    assert header["network_candidate"] is True and labeller.network is not None
    network = DMCAgent(*model_from_checkpoint(load_checkpoint(NETWORK)), seed=0)
    seen = 0
    for seed in range(12):
        hand = _position(seed, 8 + seed)
        if hand.phase != Phase.PLAY:
            continue
        view = view_of(hand, hand.current_player)
        own = tuple(sorted(network.play(view)))
        chosen, row = labeller.label_decision(view, [_true_world(hand)] * 2, extra=(own,))
        if row is None:
            continue
        stats = labeller.search.last
        examined = [stats.candidates[i] for i, m in enumerate(stats.means) if m is not None]
        assert own in examined and chosen in examined
        np.testing.assert_array_equal(row[3][examined.index(own)], play_rows(view, [own], "canonical")[0])
        seen += 1
    assert seen >= 3
    labels = labeller.label_hand(0)
    assert len(labels) > 0 and np.all(labels.cand_count >= 2)
    with pytest.raises(ValueError, match="not a legal play"):
        labeller.search.search(view, [_true_world(hand)], extra=((view.hand.index(0),),))  # a kind not held


def test_pair_labels_compare_only_the_networks_play_with_the_priors_where_they_differ(tmp_path):
    labeller, header = make_labeller(_config(tmp_path, play_by="network", network_candidate=True,
                                             candidates="pair"))
    assert header["candidates"] == "pair"
    network = DMCAgent(*model_from_checkpoint(load_checkpoint(NETWORK)), seed=0)
    labels = labeller.label_hand(0)
    assert len(labels) > 0 and np.all(labels.cand_count == 2)
    # Replay the hand: the labelled decisions are exactly those where the two plays differ.
    hand = labeller.new_hand(0)
    rows = play_rows  # the rows of (prior's play, network's play) at each disagreement, in order
    expected = []
    while hand.phase != Phase.DONE:
        view = view_of(hand, hand.current_player)
        if hand.phase != Phase.PLAY:
            hand.act(view.seat, network.act(view))
            continue
        own = tuple(sorted(network.play(view)))
        legal = view.legal_plays(2)
        if not (len(legal.plays) == 1 and not legal.truncated):
            prior = tuple(sorted(labeller.search.prior.play(view)))
            if prior != own:
                expected.append(rows(view, [prior, own], "canonical"))
        hand.act(view.seat, own)
    np.testing.assert_array_equal(labels.cand_rows, np.concatenate(expected).astype(np.float16))
    with pytest.raises(ValueError, match="network_candidate"):
        make_labeller(_config(tmp_path, network_candidate=False, candidates="pair"))
    with pytest.raises(ValueError, match=r"label\.candidates"):
        make_labeller(_config(tmp_path, candidates="all"))


def test_dealt_world_labels_play_every_candidate_once_in_the_hands_own_deal(tmp_path, monkeypatch):
    """label.worlds=dealt: each decision's candidates are played out once, in the deal as it really lies
    (consistent with the seat's view), and each label is that outcome."""
    labeller, header = make_labeller(_config(tmp_path, play_by="network", network_candidate=True, worlds="dealt"))
    assert header["worlds"] == "dealt"
    search, calls = labeller.search.search, []

    def spy(view, worlds=None, extra=(), candidates=None):
        assert worlds == [dealt_world(labeller.env.hand)] and inconsistency(view, worlds[0]) is None
        chosen = search(view, worlds, extra, candidates)
        stats = labeller.search.last
        examined = [i for i, mean in enumerate(stats.means) if mean is not None]
        calls.append([(view, worlds[0], stats.candidates[i], stats.means[i]) for i in examined])
        return chosen

    monkeypatch.setattr(labeller.search, "search", spy)
    labels = labeller.label_hand(0)
    assert len(labels) > 5 and np.all(labels.cand_worlds == 1)
    assert len(calls) >= len(labels) and sum(len(c) for c in calls if len(c) >= 2) == len(labels.cand_value)
    # greedy rollouts are deterministic: the label is the candidate's outcome in the deal, whatever the seed
    for view, world, play, mean in [row for call in calls[:6] for row in call]:
        assert labeller.search._play_out(view, world, play, seed=12345) == pytest.approx(mean)
    with pytest.raises(ValueError, match=r"label\.worlds"):
        make_labeller(_config(tmp_path, worlds="imagined"))


def test_a_label_set_is_not_resumed_with_the_other_kind_of_worlds(tmp_path):
    run_labelling(_config(tmp_path, play_by="network", network_candidate=True))
    with pytest.raises(LabelError, match="worlds"):
        run_labelling(_config(tmp_path, play_by="network", network_candidate=True, worlds="dealt", hands=2))


def test_selfplay_batches_train_alongside_the_labels(tmp_path):
    """With selfplay_every, the network's own self-play trains Q and V between distillation steps."""
    config = _config(tmp_path, hands=1)
    run_labelling(config)
    config["learn"].update(steps=2, selfplay_every=1, selfplay_tables=2, eval_every=2, save_every=2)
    before = load_checkpoint(NETWORK)["model"]
    learn(config)
    after = load_checkpoint(tmp_path / "learn" / "latest.pt")
    assert after["counters"]["distill_steps"] == 2 and after["counters"]["selfplay_batches"] == 2
    assert any(not torch.equal(before[k], after["model"][k]) for k in before)


def test_a_network_the_search_cannot_label_for_is_refused(tmp_path):
    """A card-mode checkpoint or a 刮风 one: refused at start-up, the rule set and mode named."""
    for overrides, named in ((("action_mode=card", "train.teacher=none"), "card"), (("rules=guafeng",), "guafeng")):
        path = _foreign_checkpoint(tmp_path / f"{named}.pt", *overrides)
        with pytest.raises(ValueError, match=named):
            make_labeller(_config(tmp_path, network=str(path)))


def test_the_labeller_runs_torch_on_its_configured_threads(tmp_path):
    """Two threads on a busy core mostly wait for each other; the labeller uses ``label.torch_threads``."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        config = _config(tmp_path, hands=1)
        config["label"]["torch_threads"] = 1
        run_labelling(config)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_the_shipped_defaults_make_a_labeller_and_a_learner_of_one_network():
    """conf/distill.yaml as the documented round runs it: its learn options pass the learner's checks, its
    labeller builds (the network plays its own positions), and the labels it would write fit the network it
    starts the learning from (the header every shard is checked against)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from agents.distill.labels import MATCHED, label_header
    from agents.distill.learn import check_learn

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = OmegaConf.to_container(compose(config_name="distill"), resolve=True)
    check_learn(cfg["learn"])
    cfg["label"]["network"] = str(ROOT / cfg["label"]["network"])  # the path as the repository's root reads it
    labeller, header = make_labeller(cfg)
    assert labeller.actor is not None and header["play_by"] == "network"
    start = model_from_checkpoint(load_checkpoint(ROOT / cfg["learn"]["checkpoint"]))[1]
    expected = label_header(start, cfg["search"])
    assert {k: header[k] for k in MATCHED} == {k: expected[k] for k in MATCHED}


@pytest.mark.parametrize(("network", "sets", "decisions", "hands"), [
    ("dmc_play_distill2.pt", ("d2_21", "d2_22"), 22_435 + 22_607, 418 + 410),
    ("dmc_play_distill3.pt", ("d3_31", "d3_32"), 16_218 + 16_122, 294 + 296),
    ("dmc_play_distill3.pt", ("d3L_61", "d3L_62"), 8_382 + 8_245, 152 + 150),
    ("dmc_play_distill3.pt", ("d3L_63", "d3L_64"), 12_680 + 12_446, 230 + 224),
    ("dmc_play_distill3.pt", ("d3N_71", "d3N_72"), 30_798 + 31_702, 558 + 582),
    ("dmc_play_distill3.pt", ("d3R_81", "d3R_82"), 28_629 + 28_848, 522 + 528),
    ("dmc_play_distill3.pt", ("d3N_73", "d3N_74"), 26_067 + 21_695, 478 + 394),
    ("dmc_play_distill3.pt", ("d3I_91", "d3I_92"), 24_264 + 17_931, 472 + 330),
    ("dmc_play_distill3.pt", ("d3D_201", "d3D_202"), 102_728 + 103_494, 1_840 + 1_860),
    ("dmc_play_distill3.pt", ("d3D_201t", "d3D_202t"), 4_365 + 4_362, 80 + 80),
])
def test_the_label_sets_kept_in_git_still_read_for_the_network_whose_positions_they_are(network, sets, decisions,
                                                                                       hands):
    """data/labels/README.md: the kept sets must stay readable by this code (format version, header) and
    match the network they were labelled for, or a later round cannot learn from them."""
    kept = [ROOT / "data" / "labels" / name for name in sets]
    run = model_from_checkpoint(load_checkpoint(ROOT / "checkpoints" / network))[1]
    labels = read_labels(kept, label_header(run, {}))
    assert len(labels) == decisions
    assert labels.cand_count.min() >= 2 and len(np.unique(labels.hand)) == hands


def test_the_agreement_split_counts_where_the_network_plays_the_searchs_choice(tmp_path, capsys):
    """agents.distill.agreement: labels whose choice is the network's own best play agree everywhere; moved
    to another candidate they agree nowhere, and overrides and kept decisions are counted apart."""
    from agents.distill.agreement import agreement, best_candidates, main, split

    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    config = _config(tmp_path, hands=2, hands_per_shard=2)
    run_labelling(config)
    labels = read_labels([tmp_path / "labels"], label_header(run, {}))
    best = best_candidates(model, labels)
    assert best.shape == (len(labels),) and np.all((best >= 0) & (best < labels.cand_count))
    mine = replace(labels, chosen=best.astype(np.int32))
    figures = agreement(model, mine)
    assert (figures.decisions, figures.overrides) == (len(labels), int((best != 0).sum()))
    assert figures.on_kept == 1.0 and figures.on_overrides == (1.0 if figures.overrides else 0.0)
    other = replace(labels, chosen=((best + 1) % labels.cand_count).astype(np.int32))
    moved = agreement(model, other)
    assert moved.on_overrides == 0.0 and moved.on_kept == 0.0
    train, held = split(labels, 0.5, 0, None)
    assert len(train) + len(held) == len(labels) - int(labels.kept_by_margin().sum())
    assert not set(train.hand.tolist()) & set(held.hand.tolist())
    main([NETWORK, "--labels", str(tmp_path / "labels"), "--holdout", "0.5", "--renamings"])
    printed = capsys.readouterr().out
    assert "training hands" in printed and "held-out hands" in printed and "renaming" in printed
    with pytest.raises(SystemExit):
        main([NETWORK, "--labels", str(tmp_path / "labels"), "--holdout", "1.5"])
    foreign = _foreign_checkpoint(tmp_path / "guafeng.pt", "rules=guafeng")
    with pytest.raises(SystemExit, match="does not match"):
        main([NETWORK, str(foreign), "--labels", str(tmp_path / "labels"), "--holdout", "0.5"])


def test_the_gain_over_the_prior_is_the_label_value_of_the_networks_best_play_less_the_priors(monkeypatch, capsys,
                                                                                              tmp_path):
    """holdout_figures' gain_over_prior and agreement's gains_over_prior: a network whose Q is the labels' values
    gains each decision's best value over its first candidate's; one whose Q is their negation, the worst's."""
    import agents.distill.agreement as agreement
    from agents.distill.learn import holdout_figures

    labels = _labels(12, 5, 7, (2, 3), seed=4)
    first = labels.offsets[:-1]
    spans = [labels.cand_value[a:b] for a, b in zip(first, labels.offsets[1:])]
    best = np.array([v.max() for v in spans]) - labels.cand_value[first]
    worst = np.array([v.min() for v in spans]) - labels.cand_value[first]
    for sign, expected in ((1.0, best), (-1.0, worst)):
        monkeypatch.setattr(Batch, "forward", lambda self, model, s=sign: (s * self.values, self.ret * 0))
        figures = holdout_figures(torch.nn.Identity(), Batch(labels))
        assert figures["gain_over_prior"] == pytest.approx(float(expected.mean()), abs=1e-6)
        np.testing.assert_allclose(agreement.gains_over_prior(torch.nn.Identity(), labels), expected, atol=1e-6)
    assert best.mean() > 0 > worst.mean()
    # The command line: every hand held out, the second network paired against the first.
    run = _run()
    header = {**label_header(run, {}), "first_hand": 0, "hands": 4}
    test = _labels(12, header["feature_size"], header["obs_size"], tuple(header["history_shape"]))
    write_shard(shard_path(tmp_path / "test", 0), header, test)
    monkeypatch.setattr(agreement, "best_candidates", lambda model, labels: np.zeros(len(labels), np.int64))
    agreement.main([NETWORK, NETWORK, "--labels", str(tmp_path / "test"), "--holdout", "1"])
    printed = capsys.readouterr().out
    held = len(test) - int(test.kept_by_margin().sum())  # the margin's ties left out, as the learner does
    assert "training hands" not in printed and f"held-out hands: {held} decisions" in printed
    assert "less the prior's +0.0000 +- 0.0000; less" in printed and "paired: +0.0000 +- 0.0000" in printed
