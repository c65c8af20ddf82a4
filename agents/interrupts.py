"""Stop signals and worker lifetimes: the process that started the workers stops them, and outlives them.

Three signals mean "stop cleanly": SIGINT (a terminal's Ctrl-C), SIGTERM (what
``kill``, ``timeout``, SLURM preemption, Kubernetes and systemd send) and SIGHUP
(the terminal went away). In the main process, :func:`stop_signals_raise` turns
SIGTERM and SIGHUP into a :class:`StopSignal`, a ``KeyboardInterrupt`` that
remembers its signal, so the one ``except KeyboardInterrupt`` that stops a run
cleanly on Ctrl-C handles all three.

A terminal's Ctrl-C, and a SIGTERM sent to a process group (``timeout``,
systemd), reach the main process and each of its workers. A worker that took it
would die on its own, one traceback each, possibly in the middle of handing a
batch over. So workers leave the stop signals to the parent, which stops them:

* the parent starts workers inside :func:`sigint_ignored_while_starting` (an
  ignored signal stays ignored across fork and exec, and Python then installs
  no ``KeyboardInterrupt`` handler, so a Ctrl-C while a spawned worker imports
  does not reach it);
* the worker's entry point calls :func:`ignore_sigint` (evaluation workers, which
  the pool ends with SIGTERM) or :func:`ignore_stop_signals` (self-play actors,
  which the learner ends with its stop event and, past a grace period, SIGKILL).

Inside a learner step, :func:`sigint_deferred` holds every stop signal back until
the step is whole. A stop signal the process was started ignoring (``nohup``'s
SIGHUP) stays ignored throughout.

A parent that dies without stopping its workers (``kill -9``, the OOM killer, a
crash in C) must not leave them running as orphans: each worker calls
:func:`exit_with_parent` first, which ends it when its parent is gone, within
:data:`PARENT_CHECK_SECONDS` at worst. On Linux the kernel sends the worker
SIGKILL the moment its parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere, a
watch thread waits on multiprocessing's parent sentinel (a pipe whose other end
the parent holds: its end of file means the parent is gone) or, without one,
compares ``os.getppid()`` with the parent's pid.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.process
import os
import signal
import sys
import threading
from collections.abc import Iterator

# SIGHUP does not exist on Windows; there a SIGTERM is the only stop signal besides Ctrl-C.
STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM) + (
    (signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())
RAISING_SIGNALS = tuple(s for s in STOP_SIGNALS if s != signal.SIGINT)
# How often the portable watch compares the parent pid when no parent sentinel exists.
PARENT_CHECK_SECONDS = 0.5
# Exit status of a worker that ended because its parent was gone.
PARENT_GONE_STATUS = 3
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class StopSignal(KeyboardInterrupt):
    """A SIGTERM or SIGHUP, raised where Ctrl-C raises ``KeyboardInterrupt`` so the same clean stop runs."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        """The signal's name, e.g. ``SIGTERM``."""
        return signal.Signals(self.signum).name


def signal_name(interrupt: KeyboardInterrupt) -> str:
    """The signal behind an interrupt: ``SIGTERM`` / ``SIGHUP`` for a :class:`StopSignal`, else ``SIGINT``."""
    return interrupt.name if isinstance(interrupt, StopSignal) else "SIGINT"


def stop_words(interrupt: KeyboardInterrupt) -> str:
    """How a stop is announced: ``interrupted`` (Ctrl-C) or ``stopped by SIGTERM`` / ``stopped by SIGHUP``."""
    return "interrupted" if not isinstance(interrupt, StopSignal) else f"stopped by {interrupt.name}"


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """The shell's status for a process ended by the signal: 128 + its number (SIGTERM 143, SIGHUP 129)."""
    return 128 + (interrupt.signum if isinstance(interrupt, StopSignal) else signal.SIGINT)


def _in_main_thread() -> bool:
    """``signal.signal`` works only in the main thread (Ray may run tasks in another)."""
    return threading.current_thread() is threading.main_thread()


def _not_ignored(signals: tuple[signal.Signals, ...]) -> list[signal.Signals]:
    """The signals this process does not ignore: one it was started ignoring (``nohup``'s SIGHUP, a
    background job's SIGINT) stays ignored, as its starter asked."""
    return [s for s in signals if signal.getsignal(s) is not signal.SIG_IGN]


def _raise_stop(signum: int, frame: object) -> None:
    raise StopSignal(signum)


@contextlib.contextmanager
def stop_signals_raise() -> Iterator[None]:
    """In a main process (train.py, evaluate.py, report.py): SIGTERM and SIGHUP raise :class:`StopSignal`.

    Ctrl-C keeps Python's own ``KeyboardInterrupt``; the previous handlers are back when the block ends.
    """
    if not _in_main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_stop) for s in _not_ignored(RAISING_SIGNALS)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


def ignore_sigint() -> None:
    """In a worker process: leave Ctrl-C to the parent, which stops this worker."""
    if _in_main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def ignore_stop_signals() -> None:
    """In a self-play actor: leave Ctrl-C, SIGTERM and SIGHUP to the learner, which stops this actor.

    An actor that died of a SIGTERM sent to the whole group could do so in the
    middle of putting a batch on the queue the learner drains while stopping.
    """
    if _in_main_thread():
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_IGN)


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
    """In the learner, around a gradient step: a stop signal inside waits until the step is whole.

    An interrupted ``optimizer.step()`` can leave Adam's state half built (some
    parameters without their moments); the checkpoint saved on the interrupt would
    then fail to resume. Inside the block SIGINT, SIGTERM and SIGHUP are only
    noted; the first is raised when the block ends (``KeyboardInterrupt`` for
    Ctrl-C, :class:`StopSignal` for the others), with the model and the optimizer
    consistent.
    """
    if not _in_main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in _not_ignored(STOP_SIGNALS)}
    try:
        yield
    finally:
        _restore(previous)
    if caught:
        if caught[0] == signal.SIGINT:
            raise KeyboardInterrupt
        raise StopSignal(caught[0])


def _restore(previous: dict) -> None:
    """Put back the handlers a context replaced (one installed outside Python: the default action)."""
    for s, handler in previous.items():
        fallback = signal.default_int_handler if s == signal.SIGINT else signal.SIG_DFL
        signal.signal(s, handler if handler is not None else fallback)


@contextlib.contextmanager
def stop_signals_held(message: str) -> Iterator[None]:
    """While stopping (the final checkpoint): a further stop signal prints ``message`` and is otherwise ignored.

    A second Ctrl-C or a repeated SIGTERM must not cut the final save short; the
    save is atomic anyway, but the run's last minutes would be lost.
    """
    if not _in_main_thread():
        yield
        return

    def note(signum: int, frame: object) -> None:
        print(f"\n{signal.Signals(signum).name}: {message}", flush=True)

    previous = {s: signal.signal(s, note) for s in _not_ignored(STOP_SIGNALS)}
    try:
        yield
    finally:
        _restore(previous)


def _set_parent_death_signal() -> bool:
    """Linux: ask the kernel to SIGKILL this process when its parent dies; False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: multiprocessing.process.BaseProcess, parent_pid: int) -> None:
    """Watch thread body: end this process as soon as the parent is gone."""
    try:
        parent.join()  # returns only when the parent's end of the sentinel pipe closes: it died
    except (ValueError, OSError):  # no sentinel to wait on: compare the parent pid instead
        stopped = threading.Event()
        while os.getppid() == parent_pid:
            stopped.wait(PARENT_CHECK_SECONDS)
    os._exit(PARENT_GONE_STATUS)


def exit_with_parent() -> None:
    """In a worker process (a multiprocessing child): exit when the parent dies, however it dies.

    Call it first thing in the worker. The parent must be the process that
    started this one (spawn, as train.py and evaluate.py use).
    """
    parent = multiprocessing.parent_process()
    if parent is None:  # not a multiprocessing child: nothing to watch
        return
    parent_pid = parent.pid if parent.pid is not None else os.getppid()
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the kernel was asked to tell
        os._exit(PARENT_GONE_STATUS)
    threading.Thread(target=_watch_parent, args=(parent, parent_pid), daemon=True, name="parent-watch").start()
