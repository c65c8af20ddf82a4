"""Shared test helpers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which the browser tests drive through Playwright."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

ROOT = Path(__file__).resolve().parents[1]


def _copy_into(stream, output: bytearray) -> None:
    """Copy a pipe into ``output`` as it comes (tqdm redraws with carriage returns, not lines)."""
    while chunk := os.read(stream.fileno(), 4096):
        output.extend(chunk)


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C back at its default action, as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _press_ctrl_c(command: Sequence[str], ready: str, wait_s: float = 600) -> tuple[int, str]:
    """Run ``command``, and once its output matches the regex ``ready``, press Ctrl-C.

    The command runs in a process group of its own and the interrupt goes to the
    whole group, as a terminal's Ctrl-C reaches the main process and every worker.
    Returns the exit status and the output (stdout and stderr together).
    """
    # A terminal's process starts with Ctrl-C at its default action; a suite run in the background of a
    # non-interactive shell inherits it ignored (and Python then installs no KeyboardInterrupt handler).
    process = subprocess.Popen(list(command), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True, preexec_fn=_default_sigint)
    output = bytearray()
    reader = threading.Thread(target=_copy_into, args=(process.stdout, output), daemon=True)
    reader.start()
    pattern = re.compile(ready.encode())
    try:
        deadline = time.monotonic() + wait_s  # only a guard against a hung run, never a measurement
        while not pattern.search(bytes(output)):
            assert process.poll() is None, "ended before it was ready:\n" + output.decode(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "never ready:\n" + output.decode(errors="replace")[-3000:]
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)
        returncode = process.wait(timeout=wait_s)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    reader.join(timeout=30)
    return returncode, output.decode(errors="replace")


def _usable_cores() -> int:
    """The cores this process may run on (its affinity, which a container may narrow), at least one."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, give each worker its share of the cores as torch threads.

    torch starts as many threads as there are cores; two workers doing so on two cores
    oversubscribe them, and OpenMP's waiting threads then make a small training loop
    ten times slower. A worker's scripts (train.py, evaluate.py) inherit the share
    through ``OMP_NUM_THREADS``, as the project's own evaluation workers do
    (agents/evaluation/workers.py). A single-process run (``-n 0``) is left as it is.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if not workers:
        return
    threads = max(1, _usable_cores() // workers)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    import torch

    torch.set_num_threads(threads)


@pytest.fixture
def press_ctrl_c() -> Callable[..., tuple[int, str]]:
    """:func:`_press_ctrl_c`: run a command and interrupt it as a person at the terminal would."""
    return _press_ctrl_c


def serve_app(app) -> Iterator[str]:
    """Serve an ASGI ``app`` with uvicorn in a thread on a free 127.0.0.1 port; yields ``"127.0.0.1:port"``
    once it accepts connections, and stops it after."""
    import socket

    import uvicorn

    # The server is handed the socket it listens on, already bound to a port of its own: with pytest-xdist's
    # workers, a port probed free and then bound a moment later could be taken by the other worker in between.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    listener.close()


# The tests' own third rule set (tests/rulesets/no_bidding.py): registered for the whole suite, so
# the conformance suite (tests/test_conformance.py) runs over it with the built-in rule sets.
from rulesets.no_bidding import register as _register_no_bidding  # noqa: E402

_register_no_bidding()


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module (each page may open its own context)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
