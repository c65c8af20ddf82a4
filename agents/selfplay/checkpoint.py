"""Checkpoints: one file with weights, optimizer, config, counters and RNG states.

Saved atomically (write a temporary file, flush it to the disk, then rename) and
loaded with ``torch.load(..., weights_only=True)``: only tensors and plain Python
values, never arbitrary pickles. A save that fails (no space, read-only folder,
permission) raises ``OSError`` and leaves the file it would have replaced, and
the ``previous`` one, as they were. A file that is not a ShengjiZero DMC
checkpoint, or is damaged (e.g. truncated), raises :class:`CheckpointError`
with the reason.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.dmc.learner_rules import feature_size
from agents.dmc.models import build_model
from agents.selfplay.config import RunConfig, run_config

FORMAT = "shengji-zero-dmc"
VERSION = 1
REQUIRED_KEYS = ("format", "version", "model", "config", "counters")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used, with the reason."""


def save_checkpoint(path: str | Path, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None,
                    config: dict[str, Any], counters: dict[str, int | float],
                    rng: dict[str, Any] | None = None, previous: str | Path | None = None) -> Path:
    """Write a checkpoint atomically; returns its path.

    With ``previous``, the checkpoint this one replaces is kept there (the one
    before it is dropped). At every instant ``path`` holds a whole checkpoint,
    old or new; an ``OSError`` (disk full, read-only, permission) leaves both
    files as they were and removes the partial temporary file.
    """
    path = Path(path)
    state = {
        "format": FORMAT, "version": VERSION,
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "config": config, "counters": dict(counters), "rng": rng or capture_rng(),
    }
    data = io.BytesIO()
    torch.save(state, data)  # in memory: a failing disk then shows up as an OSError with its errno
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_synced(tmp, data.getbuffer())
        if previous is not None and path.is_file():
            _keep_as(path, Path(previous))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)
    return path


def _write_synced(path: Path, data: memoryview) -> None:
    """Write ``data`` to ``path`` and flush it to the disk (a rename must never expose a file still in a cache)."""
    with open(path, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def _keep_as(path: Path, previous: Path) -> None:
    """Make ``previous`` a copy of ``path`` without a moment in which ``path`` is missing (a hard link)."""
    staged = previous.with_suffix(previous.suffix + ".tmp")
    staged.unlink(missing_ok=True)
    try:
        os.link(path, staged)
    except OSError:  # a file system without hard links: rename, briefly leaving only previous and the new file
        os.replace(path, previous)
        return
    os.replace(staged, previous)


def _sync_directory(directory: Path) -> None:
    """Flush a folder's entries (the rename) to the disk where the OS allows it."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load and validate a checkpoint (``weights_only=True``)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, EOFError, zipfile.BadZipFile, OSError, ValueError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CheckpointError(f"checkpoint {path} is truncated, corrupt or not a torch file "
                              f"({path.stat().st_size} bytes): {first_line}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a ShengjiZero DMC checkpoint (format {FORMAT!r} expected)")
    missing = [k for k in REQUIRED_KEYS if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {missing}")
    if state["version"] != VERSION:
        raise CheckpointError(f"checkpoint {path} has version {state['version']}, this code reads {VERSION}")
    return state


def model_from_checkpoint(state: dict[str, Any]) -> tuple[torch.nn.Module, RunConfig]:
    """Rebuild the network of a loaded checkpoint and load its weights."""
    run = run_config(state["config"])
    model = new_model(run)
    try:
        model.load_state_dict(state["model"])
    except RuntimeError as exc:
        raise CheckpointError(f"checkpoint weights do not fit its configured model: {exc}") from None
    model.eval()
    return model, run


def resume_mismatches(saved: RunConfig, run: RunConfig) -> list[str]:
    """What makes a checkpoint's network unusable for a run: the settings that shape the network or
    its inputs (rule set, action mode, card layout, history length, rules, model), each as
    ``name: saved -> run``. Another rule set (``standard`` / ``guafeng``) is named as such, not as its options;
    another number of decks (RULES.md 11: other observation and action sizes) as ``decks``."""
    pairs = {"ruleset": (saved.rules.name, run.rules.name)}
    if saved.rules.name == run.rules.name:
        pairs["decks"] = (saved.rules.layout.decks, run.rules.layout.decks)
        pairs["rules"] = (saved.rules.options, run.rules.options)
    pairs |= {"action_mode": (saved.action_mode, run.action_mode), "layout": (saved.layout, run.layout),
              "history_len": (saved.history_len, run.history_len), "model": (saved.model, run.model)}
    return [f"{name}: {a!r} -> {b!r}" for name, (a, b) in pairs.items() if a != b]


def check_resumable(state: dict[str, Any], run: RunConfig, source: str | Path = "checkpoint") -> torch.nn.Module:
    """The checkpoint's network when it fits ``run``; else :class:`CheckpointError` naming every mismatch."""
    model, saved = model_from_checkpoint(state)
    mismatches = resume_mismatches(saved, run)
    if mismatches:
        raise CheckpointError(f"{source} cannot be resumed with this configuration ({'; '.join(mismatches)}); "
                              "resume with the checkpoint's settings or start a new run")
    return model


def new_model(run: RunConfig) -> torch.nn.Module:
    """A freshly initialised network for a run configuration."""
    # The rule set's observation: RULES.md 9 options add a block, 刮风 has its own (and 79 card slots).
    history_shape = run.rules.encoder(run.layout, run.history_len).history_shape
    obs_size = run.rules.observation_size(run.layout)
    return build_model(obs_size, history_shape, feature_size(run.layout, run.action_mode, run.rules), run.model)


def capture_rng() -> dict[str, Any]:
    """RNG states of Python, NumPy and torch (CPU, and CUDA when present)."""
    state = {"python": random.getstate(), "numpy": np.random.get_state()[1].tolist(),
             "numpy_pos": int(np.random.get_state()[2]), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    """Restore what :func:`capture_rng` saved."""
    python_state = state["python"]
    random.setstate((python_state[0], tuple(python_state[1]), python_state[2]))
    np.random.set_state(("MT19937", np.array(state["numpy"], dtype=np.uint32), state["numpy_pos"], 0, 0.0))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
