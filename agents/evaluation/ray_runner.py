"""Duplicate evaluation over Ray workers (``evaluate.py backend=ray``).

The same games as :func:`agents.evaluation.workers.run_tasks`, spread over a
Ray cluster instead of a local process pool: tasks go out in chunks to Ray
remote functions, each running :func:`agents.evaluation.duplicate.play_deal`.
Agents are seeded by deal and seat, never by worker, so the results are
identical to the local runner's; they are returned sorted by (pair, deal).

:func:`start_ray` (attach to a cluster or start a local instance) is shared
with the training actors (:mod:`agents.selfplay.ray_pool`); this module stays free
of torch, like the rest of the evaluation package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import ray

from agents.evaluation.deals import Deal
from agents.evaluation.duplicate import DealResult, Settings, play_deal

Task = tuple[int, str, str, Deal, Settings]


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Attach to the cluster at ``address``, or start a local instance; True when this call started Ray.

    When Ray is already initialised in this process (e.g. by a test or a
    notebook), it is used as it is and not shut down by the caller.
    """
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return True


@ray.remote(num_cpus=1)
def _play_chunk(tasks: list[Task]) -> list[DealResult]:
    """Play a few tasks in one Ray worker (agents stay cached there between chunks)."""
    return [play_deal(task) for task in tasks]


def run_tasks_ray(tasks: Sequence[Task], workers: int,
                  progress: Callable[[Iterator[DealResult], int], Iterator[DealResult]] | None = None,
                  address: str | None = None) -> list[DealResult]:
    """Play every task on Ray, sorted by (pair, deal).

    Attaches to the cluster at ``address`` or, without one, starts a local Ray
    instance with ``workers`` CPUs (shut down again afterwards). ``progress``
    wraps the result iterator as in :func:`~agents.evaluation.workers.run_tasks`.
    """
    owns_ray = start_ray(address, workers if not address else None)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", workers)))
        # small chunks keep every CPU busy to the end; a few tasks each amortise Ray's per-call cost
        size = max(1, min(8, len(tasks) // (cpus * 4)))
        chunks = [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]
        results = _as_completed([_play_chunk.remote(chunk) for chunk in chunks])
        results = progress(results, len(tasks)) if progress else results
        collected = list(results)
    finally:
        if owns_ray:
            ray.shutdown()
    return sorted(collected, key=lambda r: (r.pair, r.deal))


def _as_completed(refs: list[ray.ObjectRef]) -> Iterator[DealResult]:
    """The deal results of the chunks, one by one, in the order the chunks finish."""
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield from ray.get(done[0])
