"""Weights averaged along a run (``agents.selfplay.averaging``, ``export --average``): the mean itself, the
newest checkpoint's counters, networks of another shape refused with the setting named."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from agents.selfplay.averaging import average_checkpoints
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, new_model, save_checkpoint
from agents.selfplay.config import run_config
from agents.selfplay.export import export

ROOT = Path(__file__).resolve().parents[1]
NETWORK = ROOT / "checkpoints" / "dmc_play_cpu76.pt"


def _shifted(tmp_path: Path, name: str, shift: float, frames: int, config: dict | None = None) -> Path:
    """The shipped network's weights plus ``shift`` (floating tensors), saved with ``frames`` as its counter."""
    state = load_checkpoint(NETWORK)
    config = config or state["config"]
    model = new_model(run_config(config))
    weights = {k: v + shift if v.is_floating_point() else v for k, v in state["model"].items()}
    if config is state["config"]:
        model.load_state_dict(weights)
    path = tmp_path / name
    save_checkpoint(path, model=model, optimizer=None, config=config,
                    counters={**state["counters"], "frames": frames})
    return path


def test_the_mean_of_checkpoints_is_their_weights_mean(tmp_path):
    paths = [_shifted(tmp_path, "a.pt", 0.0, 100), _shifted(tmp_path, "b.pt", 0.3, 300),
             _shifted(tmp_path, "c.pt", 0.6, 200)]
    model, newest = average_checkpoints(paths)
    assert newest["counters"]["frames"] == 300
    original = load_checkpoint(NETWORK)["model"]
    for name, tensor in model.state_dict().items():
        expected = original[name] + 0.3 if original[name].is_floating_point() else original[name]
        torch.testing.assert_close(tensor, expected, rtol=0, atol=1e-6)


def test_another_network_is_refused_with_the_setting_named(tmp_path):
    config = copy.deepcopy(load_checkpoint(NETWORK)["config"])
    config["model"]["obs_hidden"] = [64]
    other = _shifted(tmp_path, "other.pt", 0.0, 50, config)
    with pytest.raises(CheckpointError, match=r"another network.*model"):
        average_checkpoints([NETWORK, other])
    with pytest.raises(ValueError, match="at least one"):
        average_checkpoints([])


def test_export_releases_the_mean_and_names_its_sources(tmp_path):
    a, b = _shifted(tmp_path, "a.pt", 0.0, 100), _shifted(tmp_path, "b.pt", 0.2, 200)
    target = tmp_path / "released.pt"
    card = export(a, target, average=[b])
    released = load_checkpoint(target)
    assert released["optimizer"] is None and card["frames"] == 200 and card["averaged"] == [str(a), str(b)]
    assert json.loads(target.with_suffix(".json").read_text())["averaged"] == [str(a), str(b)]
    original = load_checkpoint(NETWORK)["model"]
    name = next(k for k, v in original.items() if v.is_floating_point())
    torch.testing.assert_close(released["model"][name], original[name] + 0.1, rtol=0, atol=1e-6)


def test_the_export_command_refuses_a_mismatch_without_writing(tmp_path):
    config = copy.deepcopy(load_checkpoint(NETWORK)["config"])
    config["model"]["obs_hidden"] = [64]
    other = _shifted(tmp_path, "other.pt", 0.0, 50, config)
    target = tmp_path / "released.pt"
    done = subprocess.run([sys.executable, "-m", "agents.selfplay.export", str(NETWORK), str(target),
                           "--average", str(other)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "another network" in done.stderr and "Traceback" not in done.stderr
    assert not target.exists()
