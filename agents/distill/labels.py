"""The search's labels on disk: decisions with the value of every candidate the search examined.

A label set is a directory of shards ``labels-00000.npz``, ``labels-00001.npz``, ...
(numpy's ``.npz``, read with ``allow_pickle=False``). Each shard holds the
decisions of a few whole hands and a JSON **header** naming what the arrays
mean, so a shard of another rule set, card layout, history length, feature
width or format version is refused with the mismatch named (:func:`read_shard`).

Arrays (``N`` decisions, ``M`` candidate rows in all):

* ``obs`` ``(N, obs_size)`` float16 and ``history`` ``(N, K, row)`` float16:
  the deciding seat's observation as the network sees it (``env.standard.encoding``);
* ``phase`` ``(N,)`` int8 (2: play) and ``seat`` ``(N,)`` int8;
* ``hand`` ``(N,)`` int32: the hand's number in the label set (splits by hand);
* ``ret`` ``(N,)`` float32: the deciding team's reward at the hand's end (the
  run's reward scheme): the Monte Carlo return that trains ``V``;
* ``cand_count`` ``(N,)`` int32: candidate rows per decision, in order;
* ``cand_rows`` ``(M, feature_size)`` float16: each candidate's play features
  (:func:`agents.dmc.plays.play_rows`), the search prior's play first;
* ``cand_value`` ``(M,)`` float32: the search's mean outcome of the candidate
  (levels plus ``points_weight`` levels per 40 points, our team's side), over
  ``cand_worlds`` ``(M,)`` int32 sampled worlds (successive halving gives the
  dropped candidates fewer);
* ``chosen`` ``(N,)`` int32: the index (within the decision) of the search's choice.

Only decisions where the search examined at least two candidates are kept.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "shengji-search-labels"
VERSION = 1
ARRAYS = ("obs", "history", "phase", "seat", "hand", "ret", "cand_count", "cand_rows", "cand_value",
          "cand_worlds", "chosen")
MATCHED = ("format", "version", "ruleset", "rules", "layout", "history_len", "action_mode", "reward",
           "obs_size", "history_shape", "feature_size")
"""Header fields that must agree between shards of one set and with the network that learns from them."""


class LabelError(ValueError):
    """A label file that cannot be used, with the reason."""


@dataclass
class Labels:
    """Decisions and the search's candidate values (the arrays of the module docstring)."""

    obs: np.ndarray
    history: np.ndarray
    phase: np.ndarray
    seat: np.ndarray
    hand: np.ndarray
    ret: np.ndarray
    cand_count: np.ndarray
    cand_rows: np.ndarray
    cand_value: np.ndarray
    cand_worlds: np.ndarray
    chosen: np.ndarray

    def __post_init__(self) -> None:
        n, m = len(self.obs), int(self.cand_count.sum())
        for name in ("history", "phase", "seat", "hand", "ret", "cand_count", "chosen"):
            if len(getattr(self, name)) != n:
                raise LabelError(f"labels: {name} has {len(getattr(self, name))} rows, obs has {n}")
        for name in ("cand_rows", "cand_value", "cand_worlds"):
            if len(getattr(self, name)) != m:
                raise LabelError(f"labels: {name} has {len(getattr(self, name))} rows, cand_count sums to {m}")
        if n and (self.cand_count.min() < 1 or np.any(self.chosen < 0) or np.any(self.chosen >= self.cand_count)):
            raise LabelError("labels: a decision has no candidates or its chosen index is out of range")

    def __len__(self) -> int:
        return len(self.obs)

    @property
    def offsets(self) -> np.ndarray:
        """Index of each decision's first candidate row (length ``N + 1``)."""
        return np.concatenate([[0], np.cumsum(self.cand_count)]).astype(np.int64)

    def select(self, decisions: np.ndarray) -> Labels:
        """The given decisions (indices), with their candidate rows."""
        offsets = self.offsets
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in decisions]) if len(decisions) \
            else np.zeros(0, dtype=np.int64)
        return Labels(self.obs[decisions], self.history[decisions], self.phase[decisions], self.seat[decisions],
                      self.hand[decisions], self.ret[decisions], self.cand_count[decisions], self.cand_rows[rows],
                      self.cand_value[rows], self.cand_worlds[rows], self.chosen[decisions])

    def kept_by_margin(self) -> np.ndarray:
        """Boolean mask of the decisions where the search kept its prior's play (row 0) although another
        examined candidate had the higher mean: the prior stood by the search's margin (a challenger must
        lead by ``min_advantage_se`` standard errors), not by the values, so the label says "the prior's
        play" where the search could not tell the plays apart."""
        if not len(self):
            return np.zeros(0, dtype=bool)
        values = self.cand_value.astype(np.float64)  # a copy: the priors' rows are masked below
        starts = self.offsets[:-1]
        first = values[starts]
        values[starts] = -np.inf
        best_other = np.maximum.reduceat(values, starts)
        return (self.chosen == 0) & (best_other > first)

    @staticmethod
    def concatenate(parts: list[Labels]) -> Labels:
        """One set holding the decisions of several, in order."""
        return Labels(*(np.concatenate([getattr(p, name) for p in parts]) for name in ARRAYS))


def label_header(run, search: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The header of shards labelled for a run configuration (:class:`agents.selfplay.config.RunConfig`)."""
    from agents.dmc.learner_rules import feature_size

    return {"format": FORMAT, "version": VERSION, "ruleset": run.rules.name, "rules": _plain(run.rules.options),
            "layout": run.layout, "history_len": run.history_len, "action_mode": run.action_mode,
            "reward": run.reward, "obs_size": run.rules.observation_size(run.layout),
            "history_shape": list(run.rules.encoder(run.layout, run.history_len).history_shape),
            "feature_size": feature_size(run.layout, run.action_mode, run.rules), "search": search, **extra}


def _plain(options: Any) -> Any:
    """Rule options as JSON-comparable values (a dataclass becomes a dict)."""
    from dataclasses import asdict, is_dataclass

    value = asdict(options) if is_dataclass(options) else options
    return json.loads(json.dumps(value, default=str))


def mismatches(header: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """The :data:`MATCHED` fields where ``header`` differs from ``expected``, as ``name: file -> expected``."""
    return [f"{name}: {header.get(name)!r} -> {expected.get(name)!r}" for name in MATCHED
            if header.get(name) != expected.get(name)]


def write_shard(path: str | Path, header: dict[str, Any], labels: Labels) -> Path:
    """Write one shard atomically (a temporary file, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    arrays = {name: getattr(labels, name) for name in ARRAYS}
    np.savez_compressed(tmp, header=np.array(json.dumps(header, sort_keys=True)), **arrays)
    os.replace(tmp, path)
    return path


def read_shard(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[dict[str, Any], Labels]:
    """A shard's header and labels; :class:`LabelError` for a file that is not one, is damaged, or whose
    header differs from ``expected`` in a :data:`MATCHED` field (each mismatch named)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            if "header" not in data.files:
                raise LabelError(f"{path} is not a search label file (no header)")
            header = json.loads(str(data["header"]))
            if header.get("format") != FORMAT:
                raise LabelError(f"{path} is not a search label file (format {header.get('format')!r}, "
                                 f"expected {FORMAT!r})")
            if header.get("version") != VERSION:
                raise LabelError(f"{path} has label format version {header.get('version')!r}, "
                                 f"this code reads {VERSION}")
            if expected is not None and (wrong := mismatches(header, expected)):
                raise LabelError(f"{path} does not match ({'; '.join(wrong)})")
            missing = [name for name in ARRAYS if name not in data.files]
            if missing:
                raise LabelError(f"{path} lacks the arrays {missing}")
            labels = Labels(*(data[name] for name in ARRAYS))
    except (OSError, ValueError, json.JSONDecodeError) as exc:
        if isinstance(exc, LabelError):
            raise
        raise LabelError(f"{path} is damaged or not a search label file: {exc}") from None
    width = header["feature_size"]
    if labels.cand_rows.ndim != 2 or labels.cand_rows.shape[1] != width or labels.obs.shape[1:] != \
            (header["obs_size"],) or list(labels.history.shape[1:]) != header["history_shape"]:
        raise LabelError(f"{path}: array shapes do not match its header")
    return header, labels


def shard_paths(directory: str | Path) -> list[Path]:
    """The shards of a label set, in order."""
    return sorted(Path(directory).glob("labels-[0-9][0-9][0-9][0-9][0-9].npz"))


def shard_path(directory: str | Path, index: int) -> Path:
    """Where shard ``index`` of a label set lives."""
    return Path(directory) / f"labels-{index:05d}.npz"


def read_labels(directories: list[str | Path], expected: dict[str, Any]) -> Labels:
    """Every shard of the given label sets, checked against ``expected``; hand numbers kept distinct."""
    parts, offset = [], 0
    for directory in directories:
        paths = shard_paths(directory)
        if not paths:
            raise LabelError(f"no label shards (labels-NNNNN.npz) in {directory}")
        top = 0
        for path in paths:
            _, labels = read_shard(path, expected)
            labels.hand = labels.hand + offset
            top = max(top, int(labels.hand.max()) + 1 if len(labels) else top)
            parts.append(labels)
        offset = top
    return Labels.concatenate(parts)
