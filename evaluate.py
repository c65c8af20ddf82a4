"""Duplicate evaluation of bots and checkpoints: `python evaluate.py` (options: conf/evaluate.yaml).

Plays a fixed, saved set of deals twice each with the teams swapped, for one
pair of participants or every pair of a tournament pool, and writes a table
to the terminal and results.json / results.csv / results.png into the Hydra
run directory. ``rules=guafeng`` plays the 刮风 rule set (conf/rules/guafeng.yaml)
on its own deal set.

Every finished deal is appended to ``deals.jsonl`` in the run directory as it
comes back (:mod:`agents.evaluation.journal`). ``resume=<run directory>`` takes
the deals that run's journal holds and plays only the rest, writing the results
into that directory: the same results as an uninterrupted run; a larger
``num_deals`` extends a finished run the same way.

Stopping: Ctrl-C, SIGTERM or SIGHUP stops the workers and writes no results
(:mod:`agents.interrupts`), only the journal of the deals already finished; the
exit status is 0 after Ctrl-C (as before), 128 + the signal's number after
SIGTERM (143) or SIGHUP (129), as a shell reports a process the signal ended.
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
from agents.evaluation.journal import NAME as JOURNAL
from agents.evaluation.journal import Journal, journal_header, participant_files
from agents.evaluation.report import print_table, write_chart, write_csv, write_json
from agents.evaluation.run import evaluate
from agents.evaluation.tournament import round_robin
from agents.interrupts import StopSignal, exit_status, stop_signals_raise, stop_words
from agents.registry import make_agent


@hydra.main(version_base="1.3", config_path="conf", config_name="evaluate")
def main(cfg: DictConfig) -> None:
    """Evaluate, then write the table, JSON, CSV and chart."""
    out = Path(to_absolute_path(str(cfg.resume))) if cfg.resume else Path(HydraConfig.get().runtime.output_dir)
    if cfg.resume and not (out / JOURNAL).is_file():
        raise ValueError(f"resume={cfg.resume}: no {JOURNAL} there to resume (a run directory of evaluate.py)")
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
    names = sorted({n for pair in pairs for n in pair} | ({search["value_network"]} if search.get("value_network")
                                                           else set()))
    journal = Journal(out / JOURNAL, journal_header(pairs, settings, participant_files(names)))
    if journal.done:
        print(f"resuming: {len(journal.done)} deal result(s) in {journal.path}")
    try:
        with stop_signals_raise():  # SIGTERM and SIGHUP stop it as Ctrl-C does
            evaluation = evaluate(pairs, deals, settings, workers=int(cfg.workers), progress=bool(cfg.progress),
                                  tournament=bool(pool), backend=str(cfg.backend), address=cfg.ray_address,
                                  journal=journal)
    except KeyboardInterrupt as interrupt:  # the workers leave it to this process; leaving the pool ends them
        print(f"\n{stop_words(interrupt)}: no results written; the finished deals are kept in {journal.path} "
              f"(resume={out})")
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
