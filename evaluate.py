"""Duplicate evaluation of bots and checkpoints: `python evaluate.py` (options: conf/evaluate.yaml).

Plays a fixed, saved set of deals twice each with the teams swapped, for one
pair of participants or every pair of a tournament pool, and writes a table
to the terminal and results.json / results.csv / results.png into the Hydra
run directory. ``rules=guafeng`` plays the 刮风 rule set (conf/rules/guafeng.yaml)
on its own deal set.

Stopping: Ctrl-C, SIGTERM or SIGHUP stops the workers and writes no results
(:mod:`agents.interrupts`); the exit status is 0 after Ctrl-C (as before),
128 + the signal's number after SIGTERM (143) or SIGHUP (129), as a shell
reports a process the signal ended.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf

from agents.evaluation.deals import default_deals_file, load_deals
from agents.evaluation.duplicate import Settings
from agents.evaluation.report import print_table, write_chart, write_csv, write_json
from agents.evaluation.run import evaluate
from agents.evaluation.tournament import round_robin
from agents.interrupts import StopSignal, exit_status, stop_signals_raise, stop_words
from agents.registry import make_agent


@hydra.main(version_base="1.3", config_path="conf", config_name="evaluate")
def main(cfg: DictConfig) -> None:
    """Evaluate, then write the table, JSON, CSV and chart."""
    out = Path(HydraConfig.get().runtime.output_dir)
    pool = [str(p) for p in cfg.pool]
    if pool:
        if len(pool) < 2:
            raise ValueError(f"a tournament pool needs at least two participants, got {pool}")
        pairs = round_robin(pool)
    else:
        if len(cfg.participants) != 2:
            raise ValueError(f"participants must be two names (A, B), got {list(cfg.participants)}")
        pairs = [(str(cfg.participants[0]), str(cfg.participants[1]))]
    search = OmegaConf.to_container(cfg.search, resolve=True) or {}
    for name in {n for pair in pairs for n in pair}:
        make_agent(name, 0, search=search)  # fail early on an unknown name, a missing loader or bad options
    rules = OmegaConf.to_container(cfg.rules, resolve=True) or {}
    settings = Settings(mode=str(cfg.mode), dealer=str(cfg.dealer), seed=int(cfg.seed),
                        rules=tuple(sorted(rules.items())), max_match_hands=int(cfg.max_match_hands),
                        search=tuple(sorted(search.items())))
    rule_set = settings.rule_set()  # refuses unknown options now
    deals_file = cfg.deals_file or default_deals_file(int(cfg.seed), rule_set)
    deals = load_deals(to_absolute_path(str(deals_file)), int(cfg.seed), int(cfg.num_deals), rule_set)
    try:
        with stop_signals_raise():  # SIGTERM and SIGHUP stop it as Ctrl-C does
            evaluation = evaluate(pairs, deals, settings, workers=int(cfg.workers), progress=bool(cfg.progress),
                                  tournament=bool(pool), backend=str(cfg.backend), address=cfg.ray_address)
    except KeyboardInterrupt as interrupt:  # the workers leave it to this process; leaving the pool ends them
        print(f"\n{stop_words(interrupt)}: no results written")
        if isinstance(interrupt, StopSignal):
            sys.exit(exit_status(interrupt))
        return
    print_table(evaluation)
    config = OmegaConf.to_container(cfg, resolve=True)
    write_json(evaluation, out / "results.json", config)
    write_csv(evaluation, out / "results.csv")
    write_chart(evaluation, out / "results.png")
    print(f"results written to {out}")


if __name__ == "__main__":
    main()
