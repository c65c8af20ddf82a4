"""Deep Monte Carlo self-play for Shengji: ``python train.py`` (Hydra: conf/train.yaml).

Reads top to bottom: configuration, set-up (model, optimizer, resume, actor
processes), the learning loop (samples in, gradient steps, weights out), the
logging (TensorBoard, progress bar), checkpoints and evaluation. The moving
parts live in :mod:`agents.dmc` (the algorithm: tables, learner) and
:mod:`agents.selfplay` (actors, checkpoints, snapshots, evaluation); this file wires them.

Stopping: Ctrl-C, SIGTERM and SIGHUP finish the learner step under way, stop the
actors, save ``latest.pt``, print how to resume and exit with status 0
(:mod:`agents.interrupts`). Status 1: the final checkpoint could not be written,
or ``train.max_failed_saves`` saves in a row failed
(:mod:`agents.selfplay.checkpoint_files`).
"""

from __future__ import annotations

import os
import random
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import hydra
import numpy as np
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.dmc.learner import SampleBuffer, make_optimizer, train_step
from agents.dmc.tables import make_tables
from agents.interrupts import sigint_deferred, signal_name, stop_signals_held, stop_signals_raise, stop_words
from agents.selfplay.backends import make_actor_pool
from agents.selfplay.checkpoint import check_resumable, new_model, restore_rng
from agents.selfplay.checkpoint_files import CheckpointFiles, SavesFailingError, first_loadable, resume_candidates
from agents.selfplay.config import TrainSettings, run_config
from agents.selfplay.evaluation import evaluate_checkpoint, print_evaluation
from agents.selfplay.snapshots import SnapshotKeeper, SnapshotSettings


def find_resume_checkpoint(cfg: DictConfig) -> tuple[Path, dict[str, Any]]:
    """The checkpoint to resume and its state: the newest that loads of ``resume_from`` (a file, with
    its ``previous.pt``, or a run folder), else of this run name's runs; every file skipped is named."""
    root = Path(hydra.utils.get_original_cwd()) / "outputs" / "train" / cfg.run_name
    source = Path(hydra.utils.to_absolute_path(cfg.resume_from)) if cfg.resume_from else None
    candidates = resume_candidates(source, root)
    if not candidates:
        raise FileNotFoundError(f"resume=true but no checkpoint under {root}; pass resume_from=PATH")
    path, state, skipped = first_loadable(candidates)
    for skipped_path, reason in skipped:
        print(f"resume: skipped {skipped_path}: {reason}")
    return path, state


def resume_command(checkpoint: Path) -> str:
    """The command that continues this run from ``checkpoint``: this run's overrides, plus the resume."""
    overrides = [o for o in HydraConfig.get().overrides.task if not o.startswith(("resume=", "resume_from="))]
    return shlex.join(["python", "train.py", *overrides, "resume=true", f"resume_from={checkpoint}"])


@hydra.main(version_base=None, config_path="conf", config_name="train")
def main(cfg: DictConfig) -> float:
    # ---- configuration ------------------------------------------------------------------------
    config: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)
    run = run_config(config)
    if run.model.beliefs and not cfg.resume:
        raise ValueError(f"model.beliefs={run.model.beliefs} reads a frozen belief about the unseen cards that a fresh "
                         "network would hold untrained: graft one onto a checkpoint (python -m agents.dmc.beliefs "
                         "CHECKPOINT LOCATION_MODEL OUT) and continue that with resume=true resume_from=OUT")
    settings = run.train
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    checkpoints = CheckpointFiles(out_dir / "checkpoints", settings.max_failed_saves)
    checkpoint_path = checkpoints.latest
    snapshot_settings = SnapshotSettings.from_dict(config.get("snapshots"))
    random.seed(run.seed)
    np.random.seed(run.seed)
    torch.manual_seed(run.seed)
    device = run.resolve_device()
    if device.type == "cpu":  # leave one core per local actor process
        torch.set_num_threads(max(1, (os.cpu_count() or 1) - settings.actors))

    # ---- set-up -------------------------------------------------------------------------------
    model = new_model(run).to(device)
    optimizer = make_optimizer(model, settings)
    counters: dict[str, float] = {"frames": 0, "episodes": 0, "learner_steps": 0, "samples": 0,
                                  "train_seconds": 0.0, "resumes": 0}
    if cfg.resume:
        source, state = find_resume_checkpoint(cfg)
        model.load_state_dict(check_resumable(state, run, source).state_dict())
        if state.get("optimizer") is not None:
            optimizer.load_state_dict(state["optimizer"])
            for group in optimizer.param_groups:  # the configured rate, not the saved one: a resume may change it
                group["lr"] = settings.learning_rate
        counters.update(state["counters"])
        counters["resumes"] += 1
        restore_rng(state["rng"])
        print(f"resumed from {source} at {int(counters['frames'])} frames")
    writer = SummaryWriter(str(out_dir / "tensorboard"))
    writer.add_text("config", "```\n" + OmegaConf.to_yaml(cfg) + "\n```", int(counters["frames"]))
    print(f"training {run.rules.name} ({run.action_mode} mode) on {device} with {settings.actors} actor(s) x "
          f"{settings.envs_per_actor} tables; "
          f"output in {out_dir}")
    pool = make_actor_pool(config["actors"], run, model, seed_offset=int(counters["resumes"]), make_tables=make_tables)
    snapshots = SnapshotKeeper(out_dir / "checkpoints" / "snapshots", snapshot_settings, counters)

    def save() -> bool:
        """A save during training; False when the disk refused it (the previous checkpoint stays)."""
        with sigint_deferred():  # a stop signal waits until the file is whole, then stops the run
            return checkpoints.save(model=model, optimizer=optimizer, config=config, counters=counters)

    # ---- the loop -----------------------------------------------------------------------------
    buffer = SampleBuffer()
    start = time.time()
    base_seconds = counters["train_seconds"]
    last_log = last_save = start
    next_eval = (counters["frames"] // settings.eval_every_frames + 1) * settings.eval_every_frames \
        if settings.eval_every_frames else None
    window = {"frames": 0, "returns": [], "throws": [0, 0], "stats": [], "spreads": [], "versus": [],
              "since": start}
    last_eval = "none yet"
    progress = tqdm(total=settings.total_frames, initial=int(counters["frames"]), unit="frame", dynamic_ncols=True,
                    desc="self-play")
    stopped_by: str | None = None  # the signal that stopped the run, or why it stopped early
    status = 0

    def finished() -> bool:
        if settings.total_frames is not None and counters["frames"] >= settings.total_frames:
            return True
        minutes = (base_seconds + time.time() - start) / 60
        return settings.total_minutes is not None and minutes >= settings.total_minutes

    try:
        with stop_signals_raise():  # SIGTERM and SIGHUP stop the run as Ctrl-C does
            while not finished():
                batch = pool.get(timeout=1.0)
                if batch is None:
                    pool.restart_dead()
                    continue
                for _ in range(settings.sample_reuse):  # each sample is trained on sample_reuse times, spread out
                    buffer.add(batch)
                counters["frames"] += batch.frames
                counters["episodes"] += batch.episodes
                window["frames"] += batch.frames
                window["returns"] += batch.returns
                window["spreads"] += batch.spreads
                window["versus"] += batch.returns_vs_teacher
                window["throws"][0] += batch.throws[0]
                window["throws"][1] += batch.throws[1]
                progress.update(batch.frames)
                while (chunk := buffer.take(settings.batch_size)) is not None:
                    with sigint_deferred():  # a stop signal lands between steps (counted), never inside one
                        window["stats"].append(train_step(model, optimizer, chunk, device, settings))
                        counters["learner_steps"] += 1
                        counters["samples"] += len(chunk)
                    if counters["learner_steps"] % settings.sync_every == 0:
                        pool.publish(model)
                pool.set_epsilon(settings.epsilon(int(counters["frames"])))
                pool.set_teacher_share(settings.teacher_share_at(int(counters["frames"])))
                now = time.time()
                counters["train_seconds"] = base_seconds + now - start
                if now - last_log >= settings.log_every_seconds and window["stats"]:
                    log_window(writer, window, counters, settings, optimizer, progress, last_eval)
                    window = {"frames": 0, "returns": [], "throws": [0, 0], "stats": [], "spreads": [],
                              "versus": [], "since": now}
                    last_log = now
                snapshots.maybe_save(model, config, counters)
                if now - last_save >= settings.save_every_minutes * 60:
                    save()
                    last_save = now
                if next_eval is not None and counters["frames"] >= next_eval:
                    if save():  # the evaluation reads the network from the checkpoint just written
                        results = evaluate_checkpoint(checkpoint_path, settings.eval_opponents, settings.eval_deals,
                                                      run, settings.eval_workers)
                        for opponent, metrics in results.items():
                            for key in ("hand_win_rate", "level_diff"):
                                writer.add_scalar(f"charts/{key}_vs_{opponent}", metrics[key].value,
                                                  int(counters["frames"]))
                        last_eval = ", ".join(f"{o} {m['level_diff'].value:+.2f}" for o, m in results.items())
                    next_eval += settings.eval_every_frames
                pool.restart_dead()
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM / SIGHUP raised as one (agents.interrupts)
        stopped_by = signal_name(interrupt)
        print(f"\n{stop_words(interrupt)}: saving a checkpoint", flush=True)
    except SavesFailingError as failure:
        stopped_by, status = "failed saves", 1
        print(f"\n{failure}", flush=True)
    finally:
        with stop_signals_held("already stopping: the actors are stopped and the checkpoint written first"):
            progress.close()
            pool.close()
            counters["train_seconds"] = base_seconds + time.time() - start
            try:
                saved = checkpoints.save(model=model, optimizer=optimizer, config=config, counters=counters)
            except SavesFailingError:
                saved = False
            snapshots.save_final(model, config, counters)
            writer.flush()
    if saved:
        print(f"checkpoint: {checkpoint_path} ({int(counters['frames'])} frames, {int(counters['episodes'])} hands, "
              f"{int(counters['learner_steps'])} learner steps)")
    else:
        status = 1
        print(f"the final checkpoint could not be written: {checkpoints.kept()}", flush=True)
    if stopped_by is not None:
        resumable = checkpoints.resume_path()
        print(f"to resume: {resume_command(resumable)}" if resumable else "nothing saved to resume from", flush=True)
    if stopped_by is not None or status:  # no final evaluation of a run that did not finish
        writer.close()
        if status:
            sys.exit(status)
        return float("nan")

    # ---- final evaluation ---------------------------------------------------------------------
    score = float("nan")
    if settings.final_eval_deals > 0:
        try:
            with stop_signals_raise():
                results = evaluate_checkpoint(checkpoint_path, settings.final_eval_opponents,
                                              settings.final_eval_deals, run, settings.eval_workers)
        except KeyboardInterrupt as interrupt:  # the training is saved: only the final evaluation is skipped
            print(f"\n{stop_words(interrupt)}: final evaluation skipped; the checkpoint is saved", flush=True)
            writer.close()
            return score
        print_evaluation(results, settings.final_eval_deals)
        for opponent, metrics in results.items():
            writer.add_scalar(f"charts/final_level_diff_vs_{opponent}", metrics["level_diff"].value,
                              int(counters["frames"]))
        score = float(np.mean([m["level_diff"].value for m in results.values()]))
    writer.close()
    return score


def log_window(writer: SummaryWriter, window: dict, counters: dict, settings: TrainSettings,
               optimizer: torch.optim.Optimizer, progress: tqdm, last_eval: str) -> None:
    """Write one period's scalars to TensorBoard and the progress bar."""
    step = int(counters["frames"])
    elapsed = max(1e-6, time.time() - window["since"])
    stats = window["stats"]
    for key in sorted({key for s in stats for key in s}):
        prefix = "losses" if key.endswith("_loss") else "q"
        writer.add_scalar(f"{prefix}/{key}", float(np.mean([s[key] for s in stats if key in s])), step)
    if window["spreads"]:  # the spread of Q between a decision's candidates: an alarm for collapse
        writer.add_scalar("q/candidate_spread", float(np.mean(window["spreads"])), step)
    writer.add_scalar("charts/teacher_share", settings.teacher_share_at(step), step)
    if window["versus"]:  # the learner's team against the teacher's, on the hands where both play
        writer.add_scalar("charts/return_vs_teacher", float(np.mean(window["versus"])), step)
    fps = window["frames"] / elapsed
    writer.add_scalar("perf/frames_per_second", fps, step)
    writer.add_scalar("perf/samples_trained", counters["samples"], step)
    writer.add_scalar("charts/episodes", counters["episodes"], step)
    if window["returns"]:
        writer.add_scalar("charts/mean_return_team0", float(np.mean(window["returns"])), step)
    attempted, failed = window["throws"]
    if attempted:
        writer.add_scalar("charts/throw_success_rate", 1 - failed / attempted, step)
    writer.add_scalar("charts/epsilon", settings.epsilon(step), step)
    writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], step)
    progress.set_postfix(fps=f"{fps:.0f}", loss=f"{np.mean([s['q_loss'] for s in stats]):.3f}",
                         eval=f"level diff vs {last_eval}")


if __name__ == "__main__":
    main()
