"""The mean of several checkpoints' weights (stochastic weight averaging) along one training run.

Self-play's Q and V targets are Monte Carlo returns, noisy to a level or more,
so at a low learning rate consecutive snapshots scatter around the weights the
run is converging to. Their mean sits nearer that centre than any one of them
(Izmailov et al., 2018, "Averaging Weights Leads to Wider Optima and Better
Generalization"). ``python -m agents.selfplay.export`` releases such a mean with
``--average`` (the snapshots a run keeps in ``checkpoints/snapshots/``).

Only checkpoints of one network can be averaged: the rule set, deck count,
action mode, card layout, history length and model must match, and every
checkpoint must hold the same tensors; a mismatch is refused with the setting
named (:func:`agents.selfplay.checkpoint.resume_mismatches`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, model_from_checkpoint, resume_mismatches
from agents.selfplay.config import run_config


def average_checkpoints(paths: Sequence[str | Path]) -> tuple[torch.nn.Module, dict[str, Any]]:
    """The network whose weights are the mean of ``paths``' (each loaded with ``weights_only=True``), and the
    loaded state of the checkpoint with the most frames (its configuration and counters describe the mean)."""
    if not paths:
        raise ValueError("averaging needs at least one checkpoint")
    states = [load_checkpoint(path) for path in paths]
    newest = max(range(len(states)), key=lambda i: int(states[i]["counters"].get("frames", 0)))
    reference = run_config(states[newest]["config"])
    for path, state in zip(paths, states):
        mismatches = resume_mismatches(run_config(state["config"]), reference)
        if mismatches:
            raise CheckpointError(f"{path} is another network than {paths[newest]} ({'; '.join(mismatches)})")
        if state["model"].keys() != states[newest]["model"].keys():
            raise CheckpointError(f"{path} holds other tensors than {paths[newest]}")
    model, _ = model_from_checkpoint(states[newest])
    mean = {}
    for name, tensor in states[newest]["model"].items():
        if not tensor.is_floating_point():  # counters such as a batch norm's steps are not averaged
            mean[name] = tensor
            continue
        mean[name] = torch.stack([state["model"][name].to(torch.float64) for state in states]).mean(0).to(tensor.dtype)
    model.load_state_dict(mean)
    return model.eval(), states[newest]
