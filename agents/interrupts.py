"""Ctrl-C and worker processes: the process that started the workers handles it alone.

A terminal's Ctrl-C sends SIGINT to every process of the foreground group: the
learner of ``train.py`` (or the parent of ``evaluate.py``) and each of its worker
processes. A worker that took it would die with a ``KeyboardInterrupt``
traceback of its own, one per worker, before the parent's clean message. So
workers ignore SIGINT, and the parent, which catches ``KeyboardInterrupt``,
stops them.

Two halves, because a spawned worker spends seconds importing before its own
code runs: the parent starts workers inside :func:`sigint_ignored_while_starting`
(an ignored signal stays ignored across fork and exec, and Python then installs
no ``KeyboardInterrupt`` handler), and the worker's entry point calls
:func:`ignore_sigint` as well, whoever started it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


def _in_main_thread() -> bool:
    """``signal.signal`` works only in the main thread (Ray may run tasks in another)."""
    return threading.current_thread() is threading.main_thread()


def ignore_sigint() -> None:
    """In a worker process: leave Ctrl-C to the parent, which stops this worker."""
    if _in_main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def sigint_ignored_while_starting() -> Iterator[None]:
    """In the parent, around starting worker processes: they are born ignoring SIGINT.

    The parent ignores Ctrl-C only for the instant the workers are forked; its own
    handler is back when the block ends.
    """
    if not _in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        # None: a handler set outside Python; Python's own is the closest to put back.
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """In the learner, around a gradient step: a Ctrl-C inside waits until the step is whole.

    An interrupted ``optimizer.step()`` can leave Adam's state half built (some
    parameters without their moments); the checkpoint saved on Ctrl-C would then
    fail to resume. Inside the block SIGINT is only noted; ``KeyboardInterrupt``
    is raised when the block ends, with the model and the optimizer consistent.
    """
    if not _in_main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt
