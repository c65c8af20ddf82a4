"""Where the deals of an evaluation are played: in this process, a local process pool, or Ray.

Every backend plays the same tasks with :func:`agents.evaluation.duplicate.play_deal`
and returns the results sorted by (pair, deal), so results do not depend on it.
The Ray backend (:mod:`agents.evaluation.ray_runner`, optional extra ``distributed``)
is imported only when chosen.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence

from agents.evaluation.deals import Deal
from agents.evaluation.duplicate import DealResult, Settings, play_deal
from agents.interrupts import exit_with_parent, ignore_sigint, sigint_ignored_while_starting


def _init_worker() -> None:
    """Set up a worker process: one torch thread, Ctrl-C left to the parent, gone with the parent.

    The parent catches ``KeyboardInterrupt`` (and SIGTERM / SIGHUP, raised as one) and ends
    the pool, whose terminate sends SIGTERM: so a worker ignores only Ctrl-C, which would
    print a traceback each. A worker whose parent died (``kill -9``) exits by itself
    (:mod:`agents.interrupts`).
    """
    exit_with_parent()
    ignore_sigint()
    # One worker per core: a checkpoint's torch must not start a thread per core in every worker
    # (on a loaded 2-core machine that made evaluations of checkpoints many times slower).
    os.environ["OMP_NUM_THREADS"] = "1"
    _one_torch_thread()


def _one_torch_thread() -> None:
    """Torch, when loaded, on one thread."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def _torch_threads() -> int | None:
    """This process's torch threads, when torch is loaded."""
    torch = sys.modules.get("torch")
    return torch.get_num_threads() if torch is not None else None


def _play_deal_one_thread(task: tuple[int, str, str, Deal, Settings]) -> DealResult:
    """:func:`play_deal` with torch on one thread, as in a worker (:func:`_init_worker`): a network's
    small forward passes gain nothing from a second thread, and on a busy machine its waits made an
    in-process evaluation of a checkpoint about ten times slower (measured: 6 -> 90 ms a decision)."""
    _one_torch_thread()  # torch is loaded by the first checkpoint's agent, inside play_deal
    return play_deal(task)


def run_tasks(tasks: Sequence[tuple[int, str, str, Deal, Settings]], workers: int,
              progress: Callable[[Iterator[DealResult], int], Iterator[DealResult]] | None = None,
              backend: str = "local", address: str | None = None) -> list[DealResult]:
    """Play every task (in ``workers`` processes; 1 = in this process), sorted by (pair, deal).

    ``progress`` wraps the result iterator (e.g. a tqdm bar) and is given the total.
    ``backend="ray"`` plays them on Ray instead (cluster at ``address``, else a
    local instance of ``workers`` CPUs; :mod:`agents.evaluation.ray_runner`).
    """
    if backend == "ray":  # Ray hook (issue 7)
        from agents.evaluation.ray_runner import run_tasks_ray

        return run_tasks_ray(tasks, workers, progress, address)
    if backend != "local":
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if workers <= 1:  # in this process, which keeps its Ctrl-C
        results: Iterator[DealResult] = map(_play_deal_one_thread, tasks)
        results = progress(results, len(tasks)) if progress else results
        threads = _torch_threads()
        try:
            collected = list(results)
        finally:
            if threads is not None:  # the caller's torch (train.py's learner) gets its threads back
                sys.modules["torch"].set_num_threads(threads)
    else:
        # spawn, not fork: a forked child of a process that already ran torch (train.py) can deadlock.
        context = multiprocessing.get_context("spawn")
        with sigint_ignored_while_starting():
            pool = context.Pool(workers, initializer=_init_worker)
        with pool:
            chunk = max(1, min(8, len(tasks) // (workers * 8)))
            results = pool.imap_unordered(play_deal, tasks, chunksize=chunk)
            results = progress(results, len(tasks)) if progress else results
            collected = list(results)
    return sorted(collected, key=lambda r: (r.pair, r.deal))
