"""TensorBoard's HParams view of a sweep: one TensorBoard run per training run.

Each training run's overrides are its hyperparameters (plus its group and
seed; an option a run did not override shows as ``(default)``, so every run
has the same columns), its final evaluation against each opponent is its
metrics (``final/level_diff_vs_<opponent>``, ``final/hand_win_rate_vs_<opponent>``),
and its snapshots' evaluations are scalars over frames
(``eval/level_diff_vs_<opponent>``). Open with ``tensorboard --logdir <report dir>/tensorboard``.
"""

from __future__ import annotations

import re
from pathlib import Path

from agents.ablation.runs import Run, override_key
from agents.ablation.summary import GroupSummary

DEFAULT = "(default)"


def _value(text: str) -> bool | int | float | str:
    """An override's value as TensorBoard takes it (a number or a boolean when it reads as one)."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=,+-]", "_", name)


def write_hparams(summaries: list[GroupSummary], runs: list[Run], log_dir: Path) -> int:
    """Write the HParams runs under ``log_dir``; returns how many were written."""
    from torch.utils.tensorboard import SummaryWriter

    by_name = {run.name: run for run in runs}
    columns = sorted({override_key(o) for run in runs for o in run.overrides})
    written = 0
    for summary in summaries:
        for i, name in enumerate(summary.runs):
            run = by_name[name]
            values = {override_key(o): _value(o.split("=", 1)[1]) for o in run.overrides if "=" in o}
            hparams: dict[str, bool | int | float | str] = {k: values.get(k, DEFAULT) for k in columns}
            hparams["group"] = summary.label
            hparams["seed"] = -1 if summary.seeds[i] is None else int(summary.seeds[i])
            metrics = {}
            writer = SummaryWriter(str(log_dir / _safe(name)))
            for opponent, curves in summary.curves.items():
                curve = curves[i]
                for frames, level in zip(curve.frames, curve.level_diff):
                    writer.add_scalar(f"eval/level_diff_vs_{opponent}", level, frames)
                metrics[f"final/level_diff_vs_{opponent}"] = curve.level_diff[-1]
                metrics[f"final/hand_win_rate_vs_{opponent}"] = curve.hand_win_rate[-1]
            writer.add_hparams(hparams, metrics, run_name=".")
            writer.close()
            written += 1
    return written
