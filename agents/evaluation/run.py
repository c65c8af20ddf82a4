"""Run a duplicate evaluation or a round-robin tournament and collect its results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.evaluation.deals import Deal
from agents.evaluation.duplicate import DealResult, Settings
from agents.evaluation.journal import Journal
from agents.evaluation.metrics import decision_ms, pair_metrics
from agents.evaluation.stats import Estimate
from agents.evaluation.tournament import rate
from agents.evaluation.workers import run_tasks


@dataclass
class PairResult:
    """The metrics of one pair (A against B) with the per-deal results behind them."""

    a: str
    b: str
    metrics: dict[str, Estimate]
    deals: list[DealResult]


@dataclass
class Evaluation:
    """Everything an evaluation produced: per-pair metrics, decision times, ratings."""

    settings: Settings
    num_deals: int
    pairs: list[PairResult]
    decision_ms: dict[str, float]
    ratings: dict[str, dict[str, float]] = field(default_factory=dict)


def evaluate(pairs: Sequence[tuple[str, str]], deals: Sequence[Deal], settings: Settings, workers: int = 1,
             progress: bool = False, tournament: bool = False, backend: str = "local",
             address: str | None = None, journal: Journal | None = None) -> Evaluation:
    """Play every deal twice (teams swapped) for every pair and compute the metrics.

    ``tournament`` adds OpenSkill ratings over all the games. Deterministic for
    the settings' seed whatever ``workers`` is. ``backend``/``address``: where the
    games run (:func:`~agents.evaluation.workers.run_tasks`). ``journal``: deals it
    holds are taken from it, not played, and each deal played is appended to it as it
    finishes (:mod:`agents.evaluation.journal`), so a stopped run resumes where it stopped.
    """
    if settings.mode not in ("hands", "matches"):
        raise ValueError(f"mode must be 'hands' or 'matches', got {settings.mode!r}")
    if settings.dealer not in ("rotate", "bid"):
        raise ValueError(f"dealer must be 'rotate' or 'bid', got {settings.dealer!r}")
    kept: list[DealResult] = []
    tasks = []
    for i, (a, b) in enumerate(pairs):
        for deal in deals:
            finished = journal.finished(i, deal) if journal is not None else None
            if finished is not None:
                kept.append(finished)
            else:
                tasks.append((i, a, b, deal, settings))
    digests = {deal.index: deal.deck_digest for deal in deals}

    def wrap(results, total):
        if journal is not None:
            results = journal.record(results, digests)
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=total + len(kept), initial=len(kept), unit="deal",
                           desc=f"{settings.mode} ({len(pairs)} pair(s) x {len(deals)} deals)")
        return results
    results = sorted(kept + run_tasks(tasks, workers, wrap, backend, address), key=lambda r: (r.pair, r.deal))
    by_pair: list[list[DealResult]] = [[] for _ in pairs]
    for r in results:
        by_pair[r.pair].append(r)
    pair_results = [PairResult(a, b, pair_metrics(rs, settings.mode), rs) for (a, b), rs in zip(pairs, by_pair)]
    ratings = rate(list(pairs), results) if tournament else {}
    return Evaluation(settings, len(deals), pair_results, decision_ms(results), ratings)
