"""Periodic snapshots of a training run, kept beside ``latest.pt`` for learning curves and ablations.

``latest.pt`` is overwritten as training goes; a snapshot is a checkpoint that
stays: ``checkpoints/snapshots/frames_<frames>.pt`` (weights, config and
counters; no optimizer state, which evaluation does not need and which would
double the file). Each snapshot is tagged with the frames, hands and training
seconds it was taken at, in its counters and in ``snapshots/index.json``. The
index lets a reader tell a snapshot that went missing from one that was never
taken.

A snapshot is due every ``every_frames`` frames and/or every ``every_minutes``
minutes of training time (counted across resumes, as ``total_minutes`` is),
and one is always taken when training ends (also on Ctrl-C), so the last point
of a curve is the final network. At most ``keep`` are kept: past the cap, the
interior snapshot whose neighbours are closest together is deleted, so the
kept ones stay spread over the whole run (the first and the newest always stay).

A snapshot the disk refuses (no space, read-only, permission) is skipped with a
message and the next one is due a period later: a learning curve with a gap,
never a stopped run (``latest.pt``'s own failures are counted by
:mod:`agents.selfplay.checkpoint_files`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from agents.selfplay.checkpoint import save_checkpoint

INDEX = "index.json"
NAME = re.compile(r"^frames_(\d+)\.pt$")


@dataclass(frozen=True)
class SnapshotSettings:
    """The ``snapshots`` block of conf/train.yaml, validated."""

    every_frames: int | None = None
    every_minutes: float | None = None
    keep: int = 30

    def __post_init__(self) -> None:
        if self.every_frames is not None and (not isinstance(self.every_frames, int) or self.every_frames <= 0):
            raise ValueError(f"snapshots.every_frames must be a positive int or null, got {self.every_frames!r}")
        if self.every_minutes is not None and not self.every_minutes > 0:
            raise ValueError(f"snapshots.every_minutes must be positive or null, got {self.every_minutes!r}")
        if not isinstance(self.keep, int) or self.keep < 1:
            raise ValueError(f"snapshots.keep must be a positive int, got {self.keep!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SnapshotSettings:
        """Build from the plain config block; unknown keys are refused by name."""
        data = dict(data or {})
        unknown = sorted(set(data) - {"every_frames", "every_minutes", "keep"})
        if unknown:
            raise ValueError(f"unknown option(s) in snapshots: {unknown}; known: every_frames, every_minutes, keep")
        return cls(**data)

    @property
    def enabled(self) -> bool:
        """True when any period is set (otherwise no snapshot is taken, not even the final one)."""
        return self.every_frames is not None or self.every_minutes is not None


def snapshot_name(frames: int) -> str:
    """File name of the snapshot taken at ``frames`` (zero-padded so names sort by frames)."""
    return f"frames_{int(frames):012d}.pt"


def snapshot_tags(counters: dict[str, float]) -> dict[str, float]:
    """The tags of a snapshot: frames, hands and training seconds."""
    return {"frames": int(counters["frames"]), "hands": int(counters["episodes"]),
            "train_seconds": float(counters["train_seconds"])}


def read_index(directory: Path) -> list[dict[str, Any]]:
    """The index entries (``file`` plus its tags), oldest first; empty when there is no index."""
    path = Path(directory) / INDEX
    if not path.is_file():
        return []
    entries = json.loads(path.read_text())["snapshots"]
    return sorted(entries, key=lambda e: e["frames"])


def list_snapshot_files(directory: Path) -> list[Path]:
    """Snapshot files present in ``directory``, in order of frames."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if NAME.match(p.name))


def thin(frames: list[int], keep: int) -> list[int]:
    """Which of the sorted ``frames`` to delete so that ``keep`` remain, spread over the run.

    Repeatedly drops the interior snapshot whose removal leaves the smallest gap
    (its neighbours are closest together); with ``keep == 1`` only the newest stays.
    """
    kept = list(frames)
    dropped: list[int] = []
    while len(kept) > keep:
        if keep == 1 or len(kept) < 3:
            dropped.append(kept.pop(0))
            continue
        i = min(range(1, len(kept) - 1), key=lambda j: (kept[j + 1] - kept[j - 1], j))
        dropped.append(kept.pop(i))
    return dropped


class SnapshotKeeper:
    """Takes the snapshots of one training run (train.py calls :meth:`maybe_save` and :meth:`save_final`)."""

    def __init__(self, directory: Path, settings: SnapshotSettings, counters: dict[str, float]):
        self.directory = Path(directory)
        self.settings = settings
        self.entries = read_index(self.directory)
        frames, seconds = int(counters["frames"]), float(counters["train_seconds"])
        every = settings.every_frames
        self.next_frames = (frames // every + 1) * every if every else None
        self.next_seconds = seconds + 60 * settings.every_minutes if settings.every_minutes else None

    def due(self, counters: dict[str, float]) -> bool:
        """True when a period has elapsed since the last snapshot."""
        if self.next_frames is not None and counters["frames"] >= self.next_frames:
            return True
        return self.next_seconds is not None and counters["train_seconds"] >= self.next_seconds

    def maybe_save(self, model: torch.nn.Module, config: dict[str, Any], counters: dict[str, float]) -> Path | None:
        """Take a snapshot if one is due; returns its path or ``None``."""
        if not self.settings.enabled or not self.due(counters):
            return None
        return self._save_or_skip(model, config, counters)

    def save_final(self, model: torch.nn.Module, config: dict[str, Any], counters: dict[str, float]) -> Path | None:
        """The snapshot of the end of training (skipped when one was just taken at these frames)."""
        if not self.settings.enabled:
            return None
        if self.entries and self.entries[-1]["frames"] == int(counters["frames"]):
            return self.directory / self.entries[-1]["file"]
        return self._save_or_skip(model, config, counters)

    def _save_or_skip(self, model: torch.nn.Module, config: dict[str, Any], counters: dict[str, float]) -> Path | None:
        """:meth:`save`, or, when the disk refuses, a message and the next period (``None``)."""
        try:
            return self.save(model, config, counters)
        except OSError as error:
            print(f"\nsnapshot at {int(counters['frames'])} frames not written ({error.strerror or error}); "
                  "training goes on", flush=True)
            self._schedule_after(snapshot_tags(counters))
            return None

    def save(self, model: torch.nn.Module, config: dict[str, Any], counters: dict[str, float]) -> Path:
        """Write a snapshot now, update the index, then delete the ones past the cap."""
        tags = snapshot_tags(counters)
        path = save_checkpoint(self.directory / snapshot_name(tags["frames"]), model=model, optimizer=None,
                               config=config, counters=counters)
        self.entries = [e for e in self.entries if e["frames"] != tags["frames"]] + [{"file": path.name, **tags}]
        self.entries.sort(key=lambda e: e["frames"])
        for frames in thin([e["frames"] for e in self.entries], self.settings.keep):
            (self.directory / snapshot_name(frames)).unlink(missing_ok=True)
            self.entries = [e for e in self.entries if e["frames"] != frames]
        self._write_index()
        self._schedule_after(tags)
        return path

    def _schedule_after(self, tags: dict[str, float]) -> None:
        """The next snapshot is due a period after the one at ``tags``."""
        if self.settings.every_frames:
            every = self.settings.every_frames
            self.next_frames = (tags["frames"] // every + 1) * every
        if self.settings.every_minutes:
            self.next_seconds = tags["train_seconds"] + 60 * self.settings.every_minutes

    def _write_index(self) -> None:
        tmp = self.directory / (INDEX + ".tmp")
        tmp.write_text(json.dumps({"snapshots": self.entries}, indent=1) + "\n")
        os.replace(tmp, self.directory / INDEX)
