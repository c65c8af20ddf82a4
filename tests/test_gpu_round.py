"""The GPU machine's prepared run (benchmarks/gpu_round.py) works end to end, here on the CPU at smoke size:
a session lent a GPU for a few minutes must not spend them on a broken script."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("gpu_round", ROOT / "benchmarks" / "gpu_round.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_prepared_round_trains_labels_learns_and_writes_its_figures(tmp_path):
    # 15 s of self-play: 3 s made no frame on a slower machine under the test suite's load
    out, work = tmp_path / "out", tmp_path / "work"
    figures = _script().main(["--out", str(out), "--work", str(work), "--preset", "smoke", "--train-minutes",
                              "0.25", "--labellers", "1", "--label-hands", "1", "--label-seconds", "300",
                              "--learn-steps", "2", "--search", "worlds=2", "screen_worlds=1", "max_candidates=3"])
    assert figures["train"]["frames"] > 0 and figures["train"]["frames_per_second"] > 0
    assert figures["train"]["learner_steps_per_second"] > 0
    assert figures["label"]["hands"] == 1 and figures["label"]["decisions"] > 0
    assert figures["label"]["exit_codes"] == [0] and figures["label"]["worlds_per_candidate"] >= 1
    assert (work / "train" / "checkpoints" / "latest.pt").exists() and not (out / "train").exists()
    assert figures["learn"]["steps"] == 2
    assert json.loads((out / "gpu_round.json").read_text())["label"] == figures["label"]
    table = (out / "gpu_round.md").read_text()
    assert "frames/s" in table and "decisions/s" in table and "steps/s" in table


def test_a_size_that_is_not_positive_or_a_folder_in_use_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _script().arguments(["--out", str(tmp_path / "new"), "--labellers", "0"])
    assert "--labellers must be positive" in capsys.readouterr().err
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "labels").mkdir()
    with pytest.raises(SystemExit):
        _script().arguments(["--out", str(tmp_path / "used")])
    assert "is not empty" in capsys.readouterr().err
