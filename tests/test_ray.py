"""Ray backend: training end to end on a local Ray, actor fault handling, evaluation over Ray.

Skipped when ``ray`` is not installed (the optional ``distributed`` extra).
The in-process tests share one local Ray instance of 2 CPUs (start-up costs
seconds); the end-to-end test runs first, before that instance exists, as
``train.py`` starts and stops its own.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents.bots.random_agent import RandomAgent
from agents.dmc.agent import DMCAgent
from agents.dmc.tables import make_tables
from agents.evaluation.deals import make_deal
from agents.evaluation.duplicate import Settings
from agents.evaluation.run import evaluate
from agents.runner import play_hand
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint, new_model, save_checkpoint
from agents.selfplay.config import run_config
from env.standard.hand import Hand, Phase

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="ray is not installed (optional extra: pip install -e '.[distributed]')")

ROOT = Path(__file__).resolve().parents[1]


def smoke_config(*overrides: str) -> dict:
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["train=smoke", *overrides])
    return OmegaConf.to_container(cfg, resolve=True)


def smoke_run_config(*overrides: str):
    return run_config(smoke_config(*overrides))


def test_smoke_training_on_local_ray_writes_a_checkpoint_that_plays(tmp_path):
    command = [sys.executable, "train.py", "train=smoke", "actors.backend=ray", "actors.num_cpus=2",
               f"hydra.run.dir={tmp_path}", "train.total_frames=1200", "train.total_minutes=null",
               "train.final_eval_deals=0"]
    # Only the frame limit stops this run: a slow Ray start on a loaded machine must not end it early.
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=420)
    assert result.returncode == 0, result.stderr[-3000:]
    path = tmp_path / "checkpoints" / "latest.pt"
    state = load_checkpoint(path)
    assert state["config"]["actors"]["backend"] == "ray"
    assert state["counters"]["frames"] >= 1200
    assert state["counters"]["learner_steps"] > 0
    assert state["counters"]["samples"] == state["counters"]["learner_steps"] * 32
    model, _ = model_from_checkpoint(state)
    assert set(model.state_dict()) == set(new_model(smoke_run_config()).state_dict())
    agents = [DMCAgent.from_checkpoint(path), RandomAgent(1), DMCAgent.from_checkpoint(path), RandomAgent(3)]
    for seed in range(2):
        hand = play_hand(Hand.new(seed), agents)
        assert hand.phase == Phase.DONE and hand.cards_accounted() == 108


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance (2 CPUs) shared by the in-process tests; pools and runners reuse it."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_a_killed_actor_is_replaced_and_batches_keep_coming(local_ray):
    import ray

    from agents.selfplay.ray_pool import RayActorPool

    run = smoke_run_config("train.actors=2")
    pool = RayActorPool(run, new_model(run), seed_offset=0, backend_cfg={"address": None, "num_cpus": 2},
                        make_tables=make_tables)
    try:
        assert not pool.owns_ray
        first = None
        while first is None:
            first = pool.get(timeout=5.0)
        assert len(first) >= run.train.unroll_length and first.frames > 0
        victim = pool.actors[0]
        ray.kill(victim)
        batches, replaced = 0, 0
        deadline = time.monotonic() + 180
        while (batches < 4 or not replaced) and time.monotonic() < deadline:
            pool.publish(new_model(run))  # weights keep flowing while the fleet changes
            batch = pool.get(timeout=1.0)
            batches += batch is not None
            replaced += pool.restart_dead()
        assert replaced == 1 and pool.restarts == 1
        assert batches >= 4
        assert pool.actors[0] is not victim and ray.get(pool.actors[0].ping.remote(), timeout=120)
    finally:
        pool.close()
    assert ray.is_initialized()  # the pool did not start this Ray, so it leaves it running


def test_evaluation_over_ray_matches_the_local_runner(local_ray, tmp_path):
    import ray

    deals = [make_deal(0, i) for i in range(3)]
    small = ("model=mlp", "history_len=0")  # a fast checkpoint: the point is the loader in Ray workers
    checkpoint = save_checkpoint(tmp_path / "model.pt", model=new_model(smoke_run_config(*small)), optimizer=None,
                                 config=smoke_config(*small), counters={"frames": 0})
    pairs = [("greedy", "random"), (str(checkpoint), "greedy")]
    settings = Settings(seed=0)  # Ray workers find the .pt loader in agents.registry.CHECKPOINT_LOADERS
    local = evaluate(pairs, deals, settings, workers=1)
    remote = evaluate(pairs, deals, settings, workers=2, backend="ray")
    assert [[r.games for r in p.deals] for p in remote.pairs] == [[r.games for r in p.deals] for p in local.pairs]
    assert [[(r.pair, r.deal) for r in p.deals] for p in remote.pairs] == [[(i, d) for d in range(3)] for i in (0, 1)]
    assert [p.metrics for p in remote.pairs] == [p.metrics for p in local.pairs]
    assert ray.is_initialized()


def test_unknown_evaluation_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be"):
        evaluate([("random", "random")], [make_deal(0, 0)], Settings(seed=0), backend="dask")
