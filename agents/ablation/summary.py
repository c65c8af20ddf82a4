"""From evaluated snapshots to the answer of an ablation: final table, differences to a baseline, curves.

Per group (one configuration, several seeds) and opponent:

* the *final* level differential and hand win rate: each run's last evaluated
  snapshot, the seeds x deals matrix of per-deal values, its mean and 95%
  interval over seeds and deals (:mod:`agents.ablation.intervals`);
* frames and minutes of training of those final snapshots (means over seeds);
* the difference to the baseline group, paired by deal when both were
  played on the same deals;
* learning curves: each run's mean level differential per snapshot, against
  frames and against minutes, and the group's line and band on a common grid.
  Runs take snapshots at slightly different frames, so each run's curve is
  linearly interpolated onto the union of the snapshot positions that all of
  the group's runs cover; the line is the mean over seeds and the band spans
  the lowest to the highest seed (with few seeds a range says more than a
  standard error).

A hand win rate's interval is clipped to [0, 1] (the normal approximation can
step outside it with few deals).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from agents.ablation.evaluation import SnapshotResult
from agents.ablation.intervals import SweepEstimate, sweep_difference, sweep_mean
from agents.ablation.runs import Group, Problems

AXES = ("frames", "minutes")


@dataclass
class Band:
    """A group's curve on a common grid: mean over seeds and the range of the seeds."""

    x: list[float]
    mean: list[float]
    low: list[float]
    high: list[float]


@dataclass
class RunCurve:
    """One run's learning curve against one opponent: per snapshot, frames, minutes, mean level differential."""

    run: str
    seed: int | None
    frames: list[int]
    minutes: list[float]
    level_diff: list[float]
    hand_win_rate: list[float]


@dataclass
class GroupSummary:
    """Everything the report says about one group."""

    label: str
    overrides: tuple[str, ...]
    runs: list[str]
    seeds: list[int | None]
    frames: float
    minutes: float
    deals_key: str
    final: dict[str, dict[str, SweepEstimate]] = field(default_factory=dict)
    difference: dict[str, SweepEstimate] = field(default_factory=dict)
    curves: dict[str, list[RunCurve]] = field(default_factory=dict)
    bands: dict[str, dict[str, Band]] = field(default_factory=dict)


def band(curves: list[RunCurve], axis: str) -> Band | None:
    """Mean and range over seeds of the curves on the grid all of them cover (``None`` when there is none)."""
    series = [(np.asarray(getattr(c, axis), float), np.asarray(c.level_diff, float)) for c in curves if c.level_diff]
    if not series:
        return None
    start = max(float(x[0]) for x, _ in series)
    stop = min(float(x[-1]) for x, _ in series)
    grid = sorted({float(v) for x, _ in series for v in x if start <= v <= stop})
    if not grid:
        return None
    values = np.array([np.interp(grid, x, y) for x, y in series])
    return Band(grid, values.mean(axis=0).tolist(), values.min(axis=0).tolist(), values.max(axis=0).tolist())


def _clip_rate(e: SweepEstimate) -> SweepEstimate:
    return replace(e, low=max(0.0, e.low), high=min(1.0, e.high)) if e.low == e.low else e


def _curve(name: str, seed: int | None, points: list[SnapshotResult], opponent: str) -> RunCurve:
    return RunCurve(name, seed, [p.frames for p in points], [p.train_seconds / 60 for p in points],
                    [float(np.mean(p.level_diff[opponent])) for p in points],
                    [float(np.mean(p.hand_win[opponent])) for p in points])


def summarise_group(group: Group, results: dict[Path, list[SnapshotResult]], opponents: tuple[str, ...],
                    problems: Problems) -> GroupSummary | None:
    """The group's final estimates and curves; ``None`` (reported) when none of its runs has results."""
    evaluated = [(run, results.get(run.path, [])) for run in group.runs]
    for run, points in evaluated:
        if not points:
            problems.add(f"run {run.name}", "no snapshot could be evaluated; left out of its group")
    evaluated = [(run, points) for run, points in evaluated if points]
    if not evaluated:
        problems.add(f"group {group.label}", "no run with evaluated snapshots; not in the tables")
        return None
    # Runs of one group must have been played on one deal set for their deals to line up.
    majority, _ = Counter(points[-1].deals_key for _, points in evaluated).most_common(1)[0]
    for run, points in evaluated:
        if points[-1].deals_key != majority:
            problems.add(f"run {run.name}", "was evaluated on other deals than the rest of its group "
                                            "(other rules?); left out of its group")
    evaluated = [(run, points) for run, points in evaluated if points[-1].deals_key == majority]
    finals = [points[-1] for _, points in evaluated]
    summary = GroupSummary(group.label, group.key, [r.name for r, _ in evaluated], [r.seed for r, _ in evaluated],
                           float(np.mean([p.frames for p in finals])),
                           float(np.mean([p.train_seconds for p in finals])) / 60, majority)
    for opponent in opponents:
        summary.final[opponent] = {
            "level_diff": sweep_mean([p.level_diff[opponent] for p in finals]),
            "hand_win_rate": _clip_rate(sweep_mean([p.hand_win[opponent] for p in finals])),
        }
        summary.curves[opponent] = [_curve(run.name, run.seed, points, opponent) for run, points in evaluated]
        summary.bands[opponent] = {axis: band(summary.curves[opponent], axis) for axis in AXES}
    return summary


def final_matrix(summary: GroupSummary, results: dict[Path, list[SnapshotResult]], group: Group,
                 opponent: str) -> list[list[float]]:
    """The seeds x deals matrix of final per-deal level differentials of a summarised group."""
    by_name = {run.name: results[run.path] for run in group.runs if run.name in summary.runs}
    return [by_name[name][-1].level_diff[opponent] for name in summary.runs]


def summarise(groups: list[Group], results: dict[Path, list[SnapshotResult]], opponents: tuple[str, ...],
              baseline: Group | None, problems: Problems) -> list[GroupSummary]:
    """Summaries of every group with results, each with its difference to ``baseline`` (when given)."""
    summaries: list[tuple[Group, GroupSummary]] = []
    for group in groups:
        summary = summarise_group(group, results, opponents, problems)
        if summary is not None:
            summaries.append((group, summary))
    base = next(((g, s) for g, s in summaries if baseline is not None and g is baseline), None)
    if baseline is not None and base is None:
        problems.add(f"baseline {baseline.label}", "has no evaluated runs; no differences computed")
    if base is not None:
        base_group, base_summary = base
        for group, summary in summaries:
            if group is base_group:
                continue
            paired = summary.deals_key == base_summary.deals_key
            for opponent in opponents:
                summary.difference[opponent] = sweep_difference(
                    final_matrix(summary, results, group, opponent),
                    final_matrix(base_summary, results, base_group, opponent), paired=paired)
    return [s for _, s in summaries]
