"""Training: smoke run end to end, resume, learning signal, checkpoint agent, bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents.bots.random_agent import RandomAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.learner import SampleBuffer, make_optimizer, train_step
from agents.dmc.tables import SelfPlayTables
from agents.registry import make_agent
from agents.runner import play_hand
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, new_model, save_checkpoint
from agents.selfplay.config import run_config
from env.standard.hand import Hand, Phase

ROOT = Path(__file__).resolve().parents[1]


def config(*overrides: str) -> dict:
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=list(overrides))
    return OmegaConf.to_container(cfg, resolve=True)


def run_train(tmp: Path, *overrides: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "train.py", "train=smoke", f"hydra.run.dir={tmp}", *overrides]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("smoke")
    result = run_train(out, "train.total_frames=1500", "train.final_eval_deals=1")
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_smoke_training_writes_checkpoint_and_tensorboard(smoke_run):
    state = load_checkpoint(smoke_run / "checkpoints" / "latest.pt")
    assert state["counters"]["frames"] >= 1500
    assert state["counters"]["learner_steps"] > 0
    assert state["counters"]["samples"] == state["counters"]["learner_steps"] * 32
    events = list((smoke_run / "tensorboard").glob("events.out.tfevents.*"))
    assert events and events[0].stat().st_size > 0


def test_resume_continues_the_counters(smoke_run, tmp_path):
    first = load_checkpoint(smoke_run / "checkpoints" / "latest.pt")["counters"]
    result = run_train(tmp_path, "resume=true", f"resume_from={smoke_run / 'checkpoints' / 'latest.pt'}",
                       f"train.total_frames={int(first['frames']) + 1000}", "train.final_eval_deals=0",
                       "train.learning_rate=0.000123")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "resumed from" in result.stdout
    state = load_checkpoint(tmp_path / "checkpoints" / "latest.pt")
    second = state["counters"]
    assert second["frames"] >= first["frames"] + 1000
    assert second["learner_steps"] > first["learner_steps"]
    assert second["resumes"] == first["resumes"] + 1
    # the optimizer's state goes on, at the learning rate the resumed run was given
    assert [g["lr"] for g in state["optimizer"]["param_groups"]] == [0.000123]


def test_ctrl_c_saves_a_checkpoint_without_tracebacks_and_it_resumes(tmp_path, press_ctrl_c):
    """Ctrl-C in a terminal reaches the learner and every actor process (one process group).

    Only the learner may react: it stops the actors, saves and says so once. An actor
    that took the interrupt itself would print a ``KeyboardInterrupt`` traceback.
    """
    out = tmp_path / "interrupted"
    command = [sys.executable, "train.py", "train=smoke", f"hydra.run.dir={out}", "train.actors=2",
               "train.total_frames=1000000000", "train.total_minutes=60", "train.final_eval_deals=0"]
    # Ready once the learner has samples (the progress bar counts frames): the actors are in their loop.
    returncode, output = press_ctrl_c(command, ready=r"\| *[1-9]\d*/1000000000")
    assert returncode == 0, output[-3000:]
    assert "interrupted: saving a checkpoint" in output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    assert not re.search(r"^Process [\w-]+:$", output, re.MULTILINE), output[-3000:]  # a dying worker's header
    first = load_checkpoint(out / "checkpoints" / "latest.pt")["counters"]
    assert first["frames"] > 0

    result = run_train(tmp_path / "resumed", "resume=true", f"resume_from={out / 'checkpoints' / 'latest.pt'}",
                       f"train.total_frames={int(first['frames']) + 500}", "train.final_eval_deals=0")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "resumed from" in result.stdout
    second = load_checkpoint(tmp_path / "resumed" / "checkpoints" / "latest.pt")["counters"]
    assert second["frames"] >= first["frames"] + 500
    assert second["resumes"] == first["resumes"] + 1


def test_bad_config_fails_with_a_clear_message(tmp_path):
    result = run_train(tmp_path, "train.optimizer=sgd")
    assert result.returncode != 0
    assert "train.optimizer must be one of" in result.stderr
    with pytest.raises(ValueError, match="unknown option"):
        run_config(config("+train.colour=red"))
    with pytest.raises(ValueError, match=r"model\.history"):
        run_config(config("model.history=gru"))


def small_run(*overrides: str):
    return run_config(config("train=smoke", *overrides))


def card_run(*overrides: str):
    """The card-step learner (``action_mode=card``), which has no teacher."""
    return small_run("action_mode=card", "train.teacher=none", *overrides)


def test_loss_on_a_fixed_batch_goes_down():
    torch.manual_seed(0)
    run = card_run()
    model = new_model(run)
    tables = SelfPlayTables(4, 0, run.rules, run.layout, run.history_len, run.reward)
    buffer = SampleBuffer()
    while buffer.size < 256:
        tables.step(model.eval(), 0.1)
        batch = tables.collect(1)
        if batch is not None:
            buffer.add(batch)
    fixed = buffer.take(256)
    optimizer = make_optimizer(model, run.train)
    for group in optimizer.param_groups:
        group["lr"] = 1e-3
    losses = [train_step(model, optimizer, fixed, torch.device("cpu"), run.train)["q_loss"] for _ in range(60)]
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("model_name", ["lstm", "transformer", "mlp"])
def test_every_model_variant_trains_a_step(model_name):
    run = card_run(f"model={model_name}", "model.per_phase=true" if model_name == "mlp" else "model.per_phase=false")
    model = new_model(run)
    tables = SelfPlayTables(2, 1, run.rules, run.layout, run.history_len, run.reward)
    batch = None
    while batch is None:
        tables.step(model.eval(), 0.5)
        batch = tables.collect(16)
    stats = train_step(model, make_optimizer(model, run.train), batch, torch.device("cpu"), run.train)
    assert stats["q_loss"] > 0 and torch.isfinite(torch.tensor(stats["grad_norm"]))


def test_samples_carry_the_deciding_teams_final_reward():
    run = card_run()
    tables = SelfPlayTables(1, 3, run.rules, run.layout, run.history_len, run.reward)
    model = new_model(run).eval()
    batch = None
    while batch is None:
        tables.step(model, 1.0)
        batch = tables.collect(1)
    assert batch.episodes == 1 and len(batch) == batch.frames
    assert set(batch.target.tolist()) == {batch.returns[0], -batch.returns[0]}


def test_checkpoint_agent_plays_complete_hands_legally(tmp_path):
    run = small_run()
    path = save_checkpoint(tmp_path / "model.pt", model=new_model(run), optimizer=None,
                           config=config("train=smoke"), counters={"frames": 0})
    agents = [make_agent(str(path), seed=0), RandomAgent(1), DMCAgent.from_checkpoint(path), RandomAgent(3)]
    for seed in range(3):
        hand = play_hand(Hand.new(seed), agents)
        assert hand.phase == Phase.DONE and hand.cards_accounted() == 108


def test_corrupt_or_foreign_checkpoints_are_refused(tmp_path):
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(garbage)
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {"w": torch.zeros(2)}}, foreign)
    with pytest.raises(CheckpointError, match="not a ShengjiZero"):
        load_checkpoint(foreign)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt")
    run = small_run()
    path = save_checkpoint(tmp_path / "ok.pt", model=new_model(run), optimizer=None, config=config("train=smoke"),
                           counters={"frames": 0})
    state = torch.load(path, weights_only=True)
    state["config"]["model"]["obs_hidden"] = [64, 32]
    torch.save(state, tmp_path / "mismatch.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        DMCAgent.from_checkpoint(tmp_path / "mismatch.pt")
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(CheckpointError):
        load_checkpoint(truncated)


def test_registry_loads_pt_checkpoints_without_setup(tmp_path):
    from agents.dmc.agent import load_dmc_agent
    from agents.registry import checkpoint_loader

    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(str(tmp_path / "missing.pt"))
    assert checkpoint_loader("model.pt") is load_dmc_agent


def test_export_writes_a_loadable_weights_only_checkpoint_and_card(smoke_run, tmp_path):
    import json

    from agents.selfplay.export import export

    target = tmp_path / "released.pt"
    card = export(smoke_run / "checkpoints" / "latest.pt", target, {"vs_random": {"level_diff": 0.1}}, "test")
    state = load_checkpoint(target)
    assert state["optimizer"] is None and state["counters"]["frames"] == card["frames"] >= 1500
    assert json.loads(target.with_suffix(".json").read_text())["evaluation"]["vs_random"]["level_diff"] == 0.1
    assert isinstance(make_agent(str(target), seed=0), DMCAgent)


def test_multirun_sweep_runs_one_job_per_model(tmp_path):
    command = [sys.executable, "train.py", "-m", "train=smoke", "model=lstm,mlp", "train.total_frames=200",
               "train.final_eval_deals=0", f"hydra.sweep.dir={tmp_path}"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    checkpoints = sorted(tmp_path.glob("*/checkpoints/latest.pt"))
    assert len(checkpoints) == 2
    histories = {load_checkpoint(p)["config"]["model"]["history"] for p in checkpoints}
    assert histories == {"lstm", "none"}


def test_evaluation_reloads_a_checkpoint_rewritten_in_place(tmp_path):
    """Training evaluates latest.pt again and again: each evaluation must see the new weights."""
    import os

    from agents.evaluation.duplicate import _agent

    run = small_run()
    path = tmp_path / "latest.pt"
    save_checkpoint(path, model=new_model(run), optimizer=None, config=config("train=smoke"), counters={"frames": 1})
    first = _agent(str(path), 0).agent
    save_checkpoint(path, model=new_model(run), optimizer=None, config=config("train=smoke"), counters={"frames": 2})
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1_000_000))
    second = _agent(str(path), 0).agent
    assert first is not second
    assert _agent(str(path), 0).agent is second
