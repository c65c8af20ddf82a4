"""Ablation report over a training sweep: `python report.py sweep=DIR` (options: conf/report.yaml).

Reads top to bottom: find the runs and group them by configuration
(:mod:`agents.ablation.runs`), evaluate every snapshot against the opponents
on the same deals with an on-disk cache (:mod:`agents.ablation.evaluation`),
summarise each group over seeds and deals (:mod:`agents.ablation.summary`),
then print and write the tables, curves and TensorBoard HParams. Bad input
(no runs, a corrupt snapshot, mixed rules in a group) is reported by name and
left out; the rest of the report is still written. Exits with status 1 when
nothing at all could be reported.

Stopping: Ctrl-C, SIGTERM or SIGHUP stops the evaluation workers and writes no
report; the evaluations finished before it are in each run's cache, so the
same command continues where it stopped. The exit status is 0 after Ctrl-C,
128 + the signal's number after SIGTERM (143) or SIGHUP (129).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import hydra
import torch
from hydra.core.hydra_config import HydraConfig
from hydra.utils import to_absolute_path
from omegaconf import DictConfig

from agents.ablation.evaluation import EvalSpec, evaluate_runs
from agents.ablation.figures import write_curves
from agents.ablation.hparams import write_hparams
from agents.ablation.output import print_report, write_files
from agents.ablation.runs import Problems, find_runs, group_runs, pick_baseline
from agents.ablation.summary import summarise
from agents.interrupts import StopSignal, exit_status, stop_signals_raise, stop_words
from agents.registry import make_agent


@hydra.main(version_base=None, config_path="conf", config_name="report")
def main(cfg: DictConfig) -> None:
    """Find, group, evaluate, summarise, write."""
    # ---- configuration ------------------------------------------------------------------------
    out = Path(HydraConfig.get().runtime.output_dir)
    sweep = Path(to_absolute_path(str(cfg.sweep))) if cfg.sweep else None
    run_dirs = [Path(to_absolute_path(str(p))) for p in cfg.runs]
    if sweep is None and not run_dirs:
        raise ValueError("nothing to report on: give sweep=DIR (a sweep directory) or runs=[DIR,...]")
    spec = EvalSpec(opponents=tuple(str(o) for o in cfg.opponents), num_deals=int(cfg.num_deals),
                    seed=int(cfg.seed),
                    deals_file=Path(to_absolute_path(str(cfg.deals_file))) if cfg.deals_file else None,
                    deals_root=Path(to_absolute_path(".")),
                    workers=int(cfg.workers), backend=str(cfg.backend), address=cfg.ray_address,
                    batch_snapshots=int(cfg.batch_snapshots), progress=bool(cfg.progress))
    # A player scores one decision at a time: torch's own threads only fight the other workers for
    # the cores (5x slower on a busy 2-core machine). Spawned workers read the variable when importing torch.
    os.environ["OMP_NUM_THREADS"] = str(int(cfg.torch_threads))
    torch.set_num_threads(int(cfg.torch_threads))
    for opponent in spec.opponents:
        make_agent(opponent, 0)  # fail early on an unknown opponent

    # ---- runs and groups ----------------------------------------------------------------------
    problems = Problems()
    runs = find_runs(sweep, run_dirs, problems)
    groups = group_runs(runs, list(cfg.ignore_overrides), list(cfg.consistent), problems)
    baseline = pick_baseline(groups, cfg.baseline, problems)
    print(f"{len(runs)} run(s) in {len(groups)} group(s): " + "; ".join(
        f"{g.label} ({len(g.runs)} run(s))" for g in groups))

    # ---- evaluation ---------------------------------------------------------------------------
    grouped = [run for group in groups for run in group.runs]
    try:
        with stop_signals_raise():  # SIGTERM and SIGHUP stop it as Ctrl-C does
            results, counts = evaluate_runs(grouped, spec, problems, use_cache=bool(cfg.cache))
    except KeyboardInterrupt as interrupt:  # the workers leave it to this process; leaving the pool ends them
        kept = ("; the evaluations finished so far are cached and the same command continues from them"
                if cfg.cache else "")
        print(f"\n{stop_words(interrupt)}: no report written{kept}")
        if isinstance(interrupt, StopSignal):
            sys.exit(exit_status(interrupt))
        return
    print(f"evaluations (snapshot x opponent): {counts.evaluated} played now, {counts.cached} from the cache")

    # ---- summary and outputs ------------------------------------------------------------------
    summaries = summarise(groups, results, spec.opponents, baseline, problems)
    settings = {"sources": [str(p) for p in ([sweep] if sweep else []) + run_dirs],
                "opponents": list(spec.opponents), "num_deals": spec.num_deals, "seed": spec.seed,
                "baseline_group": baseline.label if baseline else None,
                "evaluated_now": counts.evaluated, "from_cache": counts.cached}
    print_report(summaries, spec.opponents, settings["baseline_group"], spec.num_deals, problems.items)
    write_files(summaries, settings, problems.items, out)
    if summaries:
        write_curves(summaries, spec.opponents, out)
        if cfg.hparams:
            write_hparams(summaries, grouped, out / "tensorboard")
    print(f"report written to {out}")
    if not summaries:
        sys.exit(1)


if __name__ == "__main__":
    main()
