"""Training samples as actors ship them to the learner: one row per decision, plus episode statistics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass
class SampleBatch:
    """Training samples (one per decision) and the episode statistics that produced them.

    ``obs``, ``history``, ``actions`` (the chosen action's feature row), ``phase``
    and ``target`` (the deciding team's final reward, or its TD(lambda) return: :func:`lambda_returns`)
    have one row per decision.
    Decisions taken by a rule-bot teacher (``action_mode=play``) also carry all
    their candidates for the imitation loss: ``cand_count[i]`` rows of
    ``cand_rows`` belong to decision ``i`` (0 for the learner's own decisions)
    and ``cand_positive`` marks the teacher's choices among them.
    """

    obs: np.ndarray
    history: np.ndarray
    actions: np.ndarray
    phase: np.ndarray
    target: np.ndarray
    cand_count: np.ndarray | None = None
    cand_rows: np.ndarray | None = None
    cand_positive: np.ndarray | None = None
    frames: int = 0
    episodes: int = 0
    returns: list[float] = field(default_factory=list)
    throws: tuple[int, int] = (0, 0)
    spreads: list[float] = field(default_factory=list)
    returns_vs_teacher: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.cand_count is None:
            self.cand_count = np.zeros(len(self.target), dtype=np.int32)
            self.cand_rows = np.zeros((0, self.actions.shape[1]), dtype=self.actions.dtype)
            self.cand_positive = np.zeros(0, dtype=bool)

    def __len__(self) -> int:
        return len(self.target)

    @property
    def teacher_decisions(self) -> int:
        """How many of the decisions carry the teacher's candidates."""
        return int(np.count_nonzero(self.cand_count))

    def split(self, n: int) -> tuple[SampleBatch, SampleBatch]:
        """The first ``n`` decisions and the rest (statistics stay with neither)."""
        rows = int(self.cand_count[:n].sum())

        def part(a: slice, b: slice) -> SampleBatch:
            return SampleBatch(self.obs[a], self.history[a], self.actions[a], self.phase[a], self.target[a],
                               self.cand_count[a], self.cand_rows[b], self.cand_positive[b])

        return part(slice(None, n), slice(None, rows)), part(slice(n, None), slice(rows, None))

    @staticmethod
    def concatenate(batches: list[SampleBatch]) -> SampleBatch:
        """One batch holding the samples and statistics of several."""
        def cat(name: str) -> np.ndarray:
            return np.concatenate([getattr(b, name) for b in batches])

        return SampleBatch(
            obs=cat("obs"), history=cat("history"), actions=cat("actions"), phase=cat("phase"), target=cat("target"),
            cand_count=cat("cand_count"), cand_rows=cat("cand_rows"), cand_positive=cat("cand_positive"),
            frames=sum(b.frames for b in batches), episodes=sum(b.episodes for b in batches),
            returns=[r for b in batches for r in b.returns],
            throws=(sum(b.throws[0] for b in batches), sum(b.throws[1] for b in batches)),
            spreads=[x for b in batches for x in b.spreads],
            returns_vs_teacher=[x for b in batches for x in b.returns_vs_teacher])


def collect_finished(finished: list[SampleBatch], frames: int, min_samples: int) -> SampleBatch | None:
    """The samples of finished hands as one batch carrying the ``frames`` played since the last
    collect, once at least ``min_samples`` are ready (else ``None``: keep playing)."""
    if not finished or sum(len(b) for b in finished) < min_samples:
        return None
    batch = SampleBatch.concatenate(finished)
    batch.frames = frames
    return batch


def as_half(array: np.ndarray) -> np.ndarray:
    """``array`` as float16, the samples' storage type. Converted by torch: numpy's conversion has no
    vector path and took 2% of self-play; both round to nearest even."""
    return torch.from_numpy(array).to(torch.float16).numpy()


def lambda_returns(seats: Sequence[int], values: Sequence[float | None], team_reward: tuple[float, float],
                   td_lambda: float) -> np.ndarray:
    """The TD(lambda) target of each decision of one hand, in the order taken.

    Decision ``t`` of a seat whose next decision is ``t'`` gets ``(1 - lambda) V(t') + lambda target(t')``;
    a seat's last decision gets its team's reward; a later decision without a value (a teacher's, not
    scored by the network) passes its own target through unchanged. ``lambda = 1`` is the Monte Carlo
    return (DouZero's target): every decision gets its team's reward. A smaller ``lambda`` trades the
    deal's luck still to come, which the return carries in full, for the bias of the network's own ``V``.
    """
    if not 0.0 <= td_lambda <= 1.0:
        raise ValueError(f"td_lambda must be in [0, 1], got {td_lambda!r}")
    targets = np.empty(len(seats), dtype=np.float32)
    later: dict[int, tuple[float, float | None]] = {}  # per seat: its next decision's target and value
    for t in range(len(seats) - 1, -1, -1):
        seat = seats[t]
        if seat not in later:
            target = team_reward[seat % 2]
        else:
            next_target, next_value = later[seat]
            target = next_target if next_value is None else \
                (1.0 - td_lambda) * next_value + td_lambda * next_target
        targets[t] = target
        later[seat] = (target, values[t])
    return targets


def hand_samples(decisions: list[tuple], team_reward: tuple[float, float], hand,
                 target: np.ndarray | None = None, **extra) -> SampleBatch:
    """The samples of one finished hand: each decision ``(obs, history, action row, phase, seat, ...)``
    gets the deciding seat's team reward as target (or ``target``, one per decision: :func:`lambda_returns`);
    ``extra`` sets the other fields (candidates, stats)."""
    if target is None:
        target = np.array([team_reward[d[4] % 2] for d in decisions], dtype=np.float32)
    return SampleBatch(
        obs=as_half(np.stack([d[0] for d in decisions])),
        history=as_half(np.stack([d[1] for d in decisions])),
        actions=as_half(np.stack([d[2] for d in decisions])),
        phase=np.array([d[3] for d in decisions], dtype=np.int8),
        target=target,
        episodes=1, returns=[team_reward[0]],  # 刮风 has no throws
        throws=(sum(hand.throws_attempted), sum(hand.throws_failed)),
        **extra)
