"""Ctrl-C handling helpers (agents.interrupts): a deferred interrupt waits for the end of its block."""

from __future__ import annotations

import os
import signal

import pytest

from agents.interrupts import sigint_deferred


@pytest.fixture
def python_ctrl_c():
    """Python's own SIGINT handler for the test (a suite started in the background may inherit SIG_IGN)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_inside_a_deferred_block_is_raised_when_the_block_is_whole(python_ctrl_c):
    steps = []
    with pytest.raises(KeyboardInterrupt), sigint_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("after the signal")  # the block runs to its end first
    assert steps == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back


def test_a_deferred_block_without_ctrl_c_changes_nothing(python_ctrl_c):
    with sigint_deferred():
        value = 1 + 1
    assert value == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
