"""Duplicate evaluation of a training checkpoint against rule bots (used by train.py).

The deals and tables are those of the run's rule set: a 刮风 run is evaluated on
duplicate 刮风 deals (:func:`agents.evaluation.deals.make_deal` with the rule set,
``ruleset: guafeng`` in the evaluation settings), as ``evaluate.py rules=guafeng`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from agents.evaluation.deals import make_deal
from agents.evaluation.duplicate import Settings
from agents.evaluation.run import evaluate
from agents.evaluation.stats import Estimate
from agents.selfplay.config import RunConfig

EVAL_SEED_OFFSET = 7_777


def evaluate_checkpoint(path: Path, opponents: Sequence[str], num_deals: int, run: RunConfig,
                        workers: int = 1) -> dict[str, dict[str, Estimate]]:
    """Metrics of the checkpoint against each opponent over ``num_deals`` duplicate deals."""
    rules = run.rules
    seed = run.seed + EVAL_SEED_OFFSET
    deals = [make_deal(seed, i, rules) for i in range(num_deals)]
    named = {"ruleset": rules.file_tag} if rules.file_tag else {}  # the standard settings as before
    settings = Settings(seed=seed, rules=tuple(sorted((named | rules.options.to_dict()).items())))
    evaluation = evaluate([(str(path), o) for o in opponents], deals, settings, workers=workers)
    return {pair.b: pair.metrics for pair in evaluation.pairs}


def print_evaluation(results: dict[str, dict[str, Estimate]], num_deals: int) -> None:
    """A rich table of level differential and hand win rate, with 95% intervals."""
    table = Table(title=f"checkpoint vs bots ({num_deals} duplicate deals = {2 * num_deals} hands)")
    for column in ("opponent", "level diff / hand", "95% CI", "hand win rate", "95% CI"):
        table.add_column(column)
    for opponent, metrics in results.items():
        diff, win = metrics["level_diff"], metrics["hand_win_rate"]
        table.add_row(opponent, f"{diff.value:+.3f}", f"[{diff.low:+.3f}, {diff.high:+.3f}]", f"{win.value:.3f}",
                      f"[{win.low:.3f}, {win.high:.3f}]")
    Console().print(table)
