"""Self-play throughput of the actor backends: frames/s against the number of actors.

Runs the actors alone (no learner: this process only drains their batches and
republishes the same weights every ``sync_batches`` batches, as a learner
would after ``sync_every`` steps) for the ``local`` and ``ray`` backends with
1 and 2 actors, model and table counts from a training preset (default
``cpu``). A *frame* is one environment decision at one table.

Batches arrive in lumps (one per few finished hands), so the rate is taken
between the first batch and the last: frames of every batch after the first,
divided by the time between them. Actor start-up (process spawn, Ray start,
the first hand) is therefore not counted. Frames per CPU-second of the actor
processes (from /proc) are printed too: on a shared machine they show the
per-core rate that wall-clock frames/s hides.

The actors start at frame 0 of the preset's schedule, so the ``cpu`` preset's
warm start puts the teacher on every seat (no forward pass at all). Pure
self-play with a trained network, the case the learner spends its time in:

    python benchmarks/bench_actors.py --seconds 30 --actors 1 2 --backends local ray
    python benchmarks/bench_actors.py --actors 1 --backends local \
        --checkpoint checkpoints/dmc_play_cpu60.pt --override train.teacher=none
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents.dmc.tables import make_tables
from agents.selfplay.actor_pool import ActorPool
from agents.selfplay.backends import make_actor_pool
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint, new_model
from agents.selfplay.config import RunConfig, run_config

ROOT = Path(__file__).resolve().parents[1]


def load_run(preset: str, actors: int, overrides: list[str]) -> RunConfig:
    """The run configuration of a training preset with ``actors`` actors and Hydra ``overrides``."""
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=[f"train={preset}", f"train.actors={actors}", *overrides])
    return run_config(OmegaConf.to_container(cfg, resolve=True))


def actor_model(run: RunConfig, checkpoint: Path | None) -> tuple[torch.nn.Module, RunConfig]:
    """A fresh network of ``run``, or a checkpoint's network and run with ``run``'s training settings
    (actors, tables, teacher)."""
    if checkpoint is None:
        return new_model(run), run
    model, trained = model_from_checkpoint(load_checkpoint(checkpoint))
    return model, dataclasses.replace(trained, train=run.train)


def actor_pids(pool: ActorPool) -> list[int]:
    """Process ids of the pool's actors (local processes, or Ray actors' ``ping``)."""
    if hasattr(pool, "processes"):
        return [p.pid for p in pool.processes]
    import ray

    return ray.get([actor.ping.remote() for actor in pool.actors])


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of these processes (Linux /proc), so a shared machine's load drops out."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


def measure(pool: ActorPool, model, seconds: float, sync_batches: int) -> dict[str, float]:
    """Frames/s and samples/s delivered by ``pool`` over ``seconds`` after its first batch, and frames per
    CPU-second of the actor processes."""
    first = None
    while first is None:
        first = pool.get(timeout=5.0)
    pids = actor_pids(pool)
    cpu_start = cpu_seconds(pids)
    start = last = time.perf_counter()
    frames = samples = batches = 0
    while time.perf_counter() - start < seconds:
        batch = pool.get(timeout=1.0)
        pool.restart_dead()
        if batch is None:
            continue
        last = time.perf_counter()
        frames += batch.frames
        samples += len(batch)
        batches += 1
        if batches % sync_batches == 0:
            pool.publish(model)
    elapsed = max(last - start, 1e-9)
    cpu = max(cpu_seconds(pids) - cpu_start, 1e-9)
    return {"frames_per_s": frames / elapsed, "samples_per_s": samples / elapsed, "batches": batches,
            "seconds": elapsed, "frames_per_cpu_s": frames / cpu, "actor_cpu_share": cpu / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time per configuration")
    parser.add_argument("--actors", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--backends", nargs="+", default=["local", "ray"], choices=["local", "ray"])
    parser.add_argument("--preset", default="cpu", help="training preset (conf/train/*.yaml) for model and tables")
    parser.add_argument("--sync-batches", type=int, default=4, help="batches between weight publications")
    parser.add_argument("--checkpoint", type=Path, help="play with this checkpoint's network (default: a fresh one)")
    parser.add_argument("--override", nargs="*", default=[], help="Hydra overrides, e.g. train.teacher=none")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args()

    rows = []
    print(f"load average before: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; preset {args.preset} "
          f"{' '.join(args.override)}; network {args.checkpoint or 'fresh'}")
    for backend in args.backends:
        for actors in args.actors:
            model, run = actor_model(load_run(args.preset, actors, args.override), args.checkpoint)
            cores = os.cpu_count() or 1
            pool = make_actor_pool({"backend": backend, "address": None, "num_cpus": cores}, run, model, 0,
                                   make_tables)
            try:
                result = measure(pool, model, args.seconds, args.sync_batches)
            finally:
                pool.close()
            row = {"backend": backend, "actors": actors, "tables_per_actor": run.train.envs_per_actor,
                   **result, "load_after": os.getloadavg()[0]}
            rows.append(row)
            print(f"{backend:5s} {actors} actor(s) x {run.train.envs_per_actor} tables: "
                  f"{row['frames_per_s']:8.1f} frames/s ({row['frames_per_s'] / actors:7.1f} per actor), "
                  f"{row['frames_per_cpu_s']:7.1f} per actor CPU-second (actors got {row['actor_cpu_share']:.2f} "
                  f"cores), {row['batches']} batches in {row['seconds']:.1f} s, "
                  f"load {row['load_after']:.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
