"""evaluate.py end to end with tiny settings: the table, JSON, CSV and PNG in the Hydra run directory."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, *overrides: str) -> Path:
    out = tmp_path / "run"
    command = [sys.executable, "evaluate.py", "num_deals=2", "progress=false", f"hydra.run.dir={out}",
               f"deals_file={tmp_path / 'deals.json'}", *overrides]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_cli_pair_evaluation_writes_every_output(tmp_path):
    out = _run(tmp_path, "workers=1", "participants=[greedy,random]")
    data = json.loads((out / "results.json").read_text())
    assert data["num_deals"] == 2 and data["hands_per_pair"] == 4
    pair = data["pairs"][0]
    assert (pair["a"], pair["b"]) == ("greedy", "random")
    assert set(pair["metrics"]["level_diff"]) == {"value", "low", "high", "n"}
    assert len(pair["per_deal_level_change"]) == 2
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["metric"] for r in rows} >= {"level_diff", "hand_win_rate", "a_hold_rate", "a_throw_success"}
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_tournament_in_match_mode(tmp_path):
    out = _run(tmp_path, "workers=2", "pool=[greedy,random,expert]", "mode=matches", "max_match_hands=2")
    data = json.loads((out / "results.json").read_text())
    assert len(data["pairs"]) == 3
    assert set(data["ratings"]) == {"greedy", "random", "expert"}
    assert "match_win_rate" in data["pairs"][0]["metrics"]
    assert (out / "results.png").exists()


def test_cli_refuses_an_unknown_participant(tmp_path):
    command = [sys.executable, "evaluate.py", "num_deals=1", "participants=[greedy,nobody]",
               f"hydra.run.dir={tmp_path}", f"deals_file={tmp_path / 'deals.json'}"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "unknown agent 'nobody'" in done.stderr


def test_ctrl_c_stops_the_workers_without_tracebacks(tmp_path, press_ctrl_c):
    """Ctrl-C reaches evaluate.py and its worker processes: one clean line, no worker traceback."""
    out = tmp_path / "run"
    command = [sys.executable, "evaluate.py", "num_deals=300", "workers=2", "progress=true",
               "participants=[greedy,random]", f"hydra.run.dir={out}", f"deals_file={tmp_path / 'deals.json'}"]
    returncode, output = press_ctrl_c(command, ready=r"\| *[1-9]\d*/300")  # a first deal came back
    assert returncode == 0, output[-3000:]
    assert "interrupted: no results written" in output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    assert not re.search(r"^Process [\w-]+:$", output, re.MULTILINE), output[-3000:]  # a dying worker's header
    assert not (out / "results.json").exists()
    journal = (out / "deals.jsonl").read_text().splitlines()  # the deals finished before the stop are kept
    assert len(journal) >= 2 and f"resume={out}" in output
