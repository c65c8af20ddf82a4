"""The GPU machine's one prepared run (issue 25): the ``gpu`` preset's self-play, then a distillation round
with the search's rollouts batched on the GPU, and the figures each gives.

    python -m pytest -q tests/test_devices.py        # on the GPU machine its CUDA tests run (under a minute)
    python benchmarks/gpu_round.py --out $OUT --work /tmp/round     # about 8 minutes on one H200 + 16 cores

1. ``python train.py train=gpu train.teacher=none`` (the network's own self-play from the start, as the
   throughput floor's ``bench_actors.py`` measures it) for ``--train-minutes``, no evaluation: frames,
   samples and learner steps per second of training time, from the checkpoint's counters.
2. ``--labellers`` processes of ``python -m agents.distill.label`` over ``--network`` with the network as
   the search's prior and rollout policy (``search.rollout=network``: all worlds and candidates of a round
   in one forward pass) and ``label.device=auto``, each its own deal seed, until ``--label-hands`` hands
   each or SIGTERM after ``--label-seconds`` (the hand under way is dropped): labelled decisions per second
   of wall-clock, all processes together, start-up included, and the worlds the search sampled per
   candidate (a faster device buys more of them within the search's time budget).
3. ``python -m agents.distill.learn`` on those labels for ``--learn-steps`` steps on ``learn.device=auto``:
   steps per second (start-up included).

The runs go under ``--work`` (checkpoints, labels, TensorBoard); the logs, ``gpu_round.json`` (the figures,
written after each stage, the devices, the settings) and ``gpu_round.md`` (a table for
``benchmarks/RESULTS.md``) under ``--out``. On a machine without CUDA every ``auto`` is the CPU; that is
how it is tested, at smoke size:

    python benchmarks/gpu_round.py --out /tmp/round --preset smoke --train-minutes 0.1 --labellers 1 \
        --label-hands 1 --learn-steps 3 --search worlds=2 screen_worlds=1 max_candidates=3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.distill.labels import read_shard, shard_paths  # noqa: E402
from agents.selfplay.checkpoint import load_checkpoint  # noqa: E402


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of the logs and the figures (new or empty)")
    parser.add_argument("--work", type=Path, default=None, help="folder of the runs (default: --out)")
    parser.add_argument("--preset", default="gpu", help="train.py's system preset (conf/train/)")
    parser.add_argument("--train-minutes", type=float, default=3.0, help="minutes of self-play training")
    parser.add_argument("--network", default="checkpoints/dmc_play_distill3.pt",
                        help="the labelled network, the search's prior and its rollout policy")
    parser.add_argument("--labellers", type=int, default=min(14, max(1, len(os.sched_getaffinity(0)) - 2)),
                        help="labelling processes (one per core this process may use, two left, at most 14)")
    parser.add_argument("--label-seconds", type=float, default=150.0, help="wall-clock of the labellers at most")
    parser.add_argument("--label-hands", type=int, default=100000, help="hands each labeller labels at most")
    parser.add_argument("--learn-steps", type=int, default=300, help="steps of the distillation learner")
    parser.add_argument("--search", nargs="*", default=[], metavar="OPTION=VALUE",
                        help="the labelling search's options beyond conf/search/default.yaml (e.g. worlds=48)")
    args = parser.parse_args(argv)
    for name in ("train_minutes", "label_seconds", "label_hands", "learn_steps", "labellers"):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    args.out = args.out.resolve()  # the runs' commands start in the repository, this one anywhere
    args.work = (args.work or args.out).resolve()
    for folder in {args.out, args.work}:
        if folder.exists() and any(folder.iterdir()):
            parser.error(f"{folder} is not empty: its labels would be resumed and counted (give a new folder)")
        if any(c in str(folder) for c in " ,=~'\"[]"):
            parser.error(f"{folder}: Hydra's overrides take no spaces, commas, '=', '~', quotes or brackets")
    return args


def _run(command: list[str], log: Path) -> float:
    """Run ``command`` in the repository to its end, its output in ``log``; its wall-clock seconds."""
    start = time.perf_counter()
    with log.open("w") as stream:
        done = subprocess.run(command, cwd=ROOT, stdout=stream, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed ({done.returncode}); see {log}")
    return time.perf_counter() - start


def train(args: argparse.Namespace) -> dict[str, Any]:
    """The preset's self-play for a few minutes, no evaluation: its frames per second of training time."""
    folder = args.work / "train"
    seconds = _run([sys.executable, "train.py", f"train={args.preset}", f"train.total_minutes={args.train_minutes}",
                    "train.teacher=none", "train.total_frames=null", "train.eval_every_frames=0",
                    "train.final_eval_deals=0", f"hydra.run.dir={folder}"], args.out / "train.log")
    counters = load_checkpoint(folder / "checkpoints" / "latest.pt")["counters"]
    taken = float(counters["train_seconds"])
    return {"wall_seconds": round(seconds, 1), "train_seconds": round(taken, 1), "frames": int(counters["frames"]),
            "frames_per_second": round(counters["frames"] / taken, 1),
            "samples_per_second": round(counters.get("samples", 0) / taken, 1),
            "learner_steps": int(counters["learner_steps"]),
            "learner_steps_per_second": round(counters["learner_steps"] / taken, 2)}


def label(args: argparse.Namespace) -> dict[str, Any]:
    """Labellers side by side until their hands are done or the wall-clock is up (SIGTERM: each keeps its
    whole shards); one that fails is reported by its exit code and the others' shards still count."""
    folders = [args.work / "labels" / f"l{i:02d}" for i in range(args.labellers)]
    logs = [(args.out / f"label{i:02d}.log").open("w") for i in range(args.labellers)]
    start = time.perf_counter()
    processes = [subprocess.Popen([sys.executable, "-m", "agents.distill.label", f"label.network={args.network}",
                                   f"label.prior={args.network}", "label.play_by=network",
                                   f"label.hands={args.label_hands}", "label.hands_per_shard=1",
                                   f"label.seed={900 + i}", f"label.out={folder}",
                                   "label.device=auto", "search.rollout=network",
                                   *[f"search.{option}" for option in args.search],
                                   f"hydra.run.dir={args.work / 'hydra' / f'l{i:02d}'}"],
                                  cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
                 for i, (folder, log) in enumerate(zip(folders, logs))]
    try:
        deadline = start + args.label_seconds
        while time.perf_counter() < deadline and any(p.poll() is None for p in processes):
            time.sleep(1.0)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        codes = [process.wait() for process in processes]
        for log in logs:
            log.close()
    seconds = time.perf_counter() - start
    labels = [read_shard(path)[1] for folder in folders for path in shard_paths(folder)]
    decisions = sum(len(part) for part in labels)
    worlds = [part.cand_worlds for part in labels if len(part)]
    # a labeller stopped before its handler was installed (still importing) dies of SIGTERM: -15, no failure
    failed = sum(code not in (0, -signal.SIGTERM) for code in codes)
    return {"processes": args.labellers, "exit_codes": codes, "failed": failed, "wall_seconds": round(seconds, 1),
            "hands": len(labels), "decisions": decisions, "decisions_per_second": round(decisions / seconds, 2),
            "worlds_per_candidate": round(float(np.concatenate(worlds).mean()), 1) if worlds else 0.0,
            "folders": [str(f) for f in folders]}


def learn(args: argparse.Namespace, folders: list[str]) -> dict[str, Any]:
    """The distillation learner on the round's labels: its steps per second (start-up included)."""
    kept = [f for f in folders if shard_paths(Path(f))]
    if not kept:
        raise SystemExit(f"no labels were written in {args.label_seconds} s (see {args.out}/label*.log)")
    seconds = _run([sys.executable, "-m", "agents.distill.learn", f"learn.checkpoint={args.network}",
                    f"learn.labels=[{','.join(kept)}]", f"learn.steps={args.learn_steps}", "learn.device=auto",
                    "learn.holdout=0", f"learn.eval_every={args.learn_steps}", f"learn.save_every={args.learn_steps}",
                    f"learn.out={args.work / 'learn'}", f"hydra.run.dir={args.work / 'hydra' / 'learn'}"],
                   args.out / "learn.log")
    steps = int(load_checkpoint(args.work / "learn" / "latest.pt")["counters"]["distill_steps"])
    return {"steps": steps, "wall_seconds": round(seconds, 1), "steps_per_second": round(steps / seconds, 2)}


def machine() -> dict[str, Any]:
    """What ran it: the GPU (or none), the cores this process may use, the versions."""
    return {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(), "torch": torch.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def table(figures: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    t, lab, le, m = figures["train"], figures["label"], figures["learn"], figures["machine"]
    return "\n".join([
        f"Machine: {m['gpu'] or 'no GPU'}, {m['cores']} cores, Python {m['python']}, torch {m['torch']}, {m['date']}.",
        "",
        "| stage | figure | details |",
        "| --- | ---: | --- |",
        f"| self-play, `train={figures['settings']['preset']} train.teacher=none` | {t['frames_per_second']:,.0f} "
        f"frames/s | {t['frames']:,} frames in {t['train_seconds']} s of training; {t['samples_per_second']:,.0f} "
        f"samples/s and {t['learner_steps_per_second']:,.2f} steps/s into the learner |",
        f"| labelling, `search.rollout=network`, `label.device=auto` | {lab['decisions_per_second']:,.2f} "
        f"decisions/s | {lab['decisions']:,} decisions, {lab['hands']} hands, {lab['processes']} processes "
        f"({lab['failed']} failed), {lab['wall_seconds']} s, {lab['worlds_per_candidate']} worlds a candidate |",
        f"| learning, `learn.device=auto` | {le['steps_per_second']:,.2f} steps/s | {le['steps']} steps in "
        f"{le['wall_seconds']} s (start-up included) |",
    ]) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = arguments(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    figures: dict[str, Any] = {"machine": machine(), "settings": {k: str(v) for k, v in vars(args).items()}}

    def keep() -> None:  # after every stage: a failure later still leaves the figures so far
        figures["wall_seconds"] = round(time.perf_counter() - started, 1)
        (args.out / "gpu_round.json").write_text(json.dumps(figures, indent=2) + "\n")

    figures["train"] = train(args)
    keep()
    print(f"self-play: {figures['train']['frames_per_second']:,.0f} frames/s", flush=True)
    figures["label"] = label(args)
    keep()
    print(f"labelling: {figures['label']['decisions_per_second']:,.2f} decisions/s", flush=True)
    figures["learn"] = learn(args, figures["label"]["folders"])
    keep()
    print(f"learning: {figures['learn']['steps_per_second']:,.2f} steps/s", flush=True)
    (args.out / "gpu_round.md").write_text(table(figures))
    print(table(figures), flush=True)
    return figures


if __name__ == "__main__":
    main()
