"""A run's checkpoint files: ``latest.pt`` and the one before it, saves that fail, the checkpoint to resume.

``checkpoints/latest.pt`` is the newest save; ``checkpoints/previous.pt`` is the
save before it, kept so that one damaged file (a truncated copy, a disk error)
costs one save period, not the run. :class:`CheckpointFiles` writes them for
train.py: a save that fails (no space, read-only folder, permission) leaves
both files as they were, says so, and training goes on; after
``train.max_failed_saves`` failures in a row it raises :class:`SavesFailingError`,
and train.py stops cleanly rather than train on with nothing kept.

:func:`resume_candidates` lists the files ``resume=true`` may continue from,
newest first, and :func:`first_loadable` takes the first that loads, naming
every one it skipped and why (truncated, not a checkpoint, another version).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, save_checkpoint

LATEST = "latest.pt"
PREVIOUS = "previous.pt"


class SavesFailingError(RuntimeError):
    """``max_failed_saves`` checkpoint saves in a row failed: training stops rather than go on unsaved."""


class CheckpointFiles:
    """``latest.pt`` and ``previous.pt`` in one folder, and the count of saves that failed in a row."""

    def __init__(self, directory: str | Path, max_failed_saves: int):
        if not isinstance(max_failed_saves, int) or max_failed_saves < 1:
            raise ValueError(f"max_failed_saves must be a positive int, got {max_failed_saves!r}")
        self.directory = Path(directory)
        self.latest = self.directory / LATEST
        self.previous = self.directory / PREVIOUS
        self.max_failed_saves = max_failed_saves
        self.failures = 0
        self.last_good: dict[str, float] | None = None  # the counters of the newest save that worked

    def save(self, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None, config: dict[str, Any],
             counters: dict[str, float]) -> bool:
        """Save ``latest.pt`` (keeping the one it replaces as ``previous.pt``); False when the disk refused.

        A failure is printed with what is still on disk. The ``max_failed_saves``-th
        failure in a row raises :class:`SavesFailingError`.
        """
        try:
            save_checkpoint(self.latest, model=model, optimizer=optimizer, config=config, counters=counters,
                            previous=self.previous)
        except OSError as error:
            self.failures += 1
            print(f"\ncheckpoint save failed ({describe(error)}); {self.kept()} "
                  f"[{self.failures} failed save(s) in a row, stopping at {self.max_failed_saves}]", flush=True)
            if self.failures >= self.max_failed_saves:
                raise SavesFailingError(f"{self.failures} checkpoint saves in a row failed ({describe(error)}); "
                                   f"stopping; {self.kept()}") from error
            return False
        self.failures = 0
        self.last_good = dict(counters)
        return True

    def kept(self) -> str:
        """What is on disk to resume from, in words."""
        if self.last_good is not None:
            return f"kept {self.latest} from {int(self.last_good['frames'])} frames"
        if self.latest.is_file():
            return f"kept {self.latest} as it was (from before this run's first save)"
        return "no checkpoint of this run on disk yet"

    def resume_path(self) -> Path | None:
        """The file to name in the resume hint: ``latest.pt`` when one is on disk."""
        return self.latest if self.latest.is_file() else None


def describe(error: OSError) -> str:
    """An OS error in a few words: its errno's message and the file, e.g. ``No space left on device: latest.pt.tmp``."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"{reason}: {error.filename}" if error.filename else reason


def resume_candidates(source: Path | None, runs_root: Path) -> list[Path]:
    """The checkpoint files ``resume=true`` may continue from, newest first.

    ``source`` (``resume_from``) may be a checkpoint file (a ``latest.pt`` brings
    its ``previous.pt`` as the fallback), a run folder or its ``checkpoints``
    folder; without it, every ``latest.pt`` and ``previous.pt`` under
    ``runs_root`` (``outputs/train/<run_name>``), newest first.
    """
    if source is not None:
        if source.is_dir():
            folder = source / "checkpoints" if (source / "checkpoints").is_dir() else source
            return [folder / LATEST, folder / PREVIOUS]
        if source.name == LATEST:
            return [source, source.with_name(PREVIOUS)]
        return [source]
    found = [p for name in (LATEST, PREVIOUS) for p in runs_root.glob(f"*/checkpoints/{name}") if p.is_file()]
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def first_loadable(candidates: list[Path]) -> tuple[Path, dict[str, Any], list[tuple[Path, str]]]:
    """The first candidate that loads, its state, and the ``(file, reason)`` of each skipped before it.

    A missing fallback (``previous.pt`` before a run's second save) is passed over
    silently; when none loads, :class:`CheckpointError` names every reason.
    """
    skipped: list[tuple[Path, str]] = []
    for index, path in enumerate(candidates):
        if not path.is_file() and index > 0:
            continue
        try:
            return path, load_checkpoint(path), skipped
        except CheckpointError as error:
            skipped.append((path, str(error)))
    reasons = "; ".join(reason for _, reason in skipped) or "no checkpoint files"
    raise CheckpointError(f"no checkpoint to resume from loads: {reasons}")
