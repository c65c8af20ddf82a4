"""Two evaluations on the same deals compared deal by deal (agents/evaluation/paired.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation.paired import load_run, main, paired_difference
from agents.evaluation.stats import Z95

ROOT = Path(__file__).resolve().parents[1]


def _evaluate(tmp_path: Path, name: str, *overrides: str) -> Path:
    out = tmp_path / name
    command = [sys.executable, "evaluate.py", "num_deals=4", "progress=false", "workers=1",
               f"hydra.run.dir={out}", f"deals_file={tmp_path / 'deals.json'}", *overrides]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / "results.json"


def test_the_difference_of_two_real_runs_is_taken_deal_by_deal(tmp_path):
    a = _evaluate(tmp_path, "a", "participants=[expert,random]")
    b = _evaluate(tmp_path, "b", "participants=[greedy,random]")
    run_a, run_b = load_run(a), load_run(b)
    result = paired_difference(run_a, run_b)
    per_a = [sum(g) / 2 for g in run_a["pairs"][0]["per_deal_level_change"]]
    per_b = [sum(g) / 2 for g in run_b["pairs"][0]["per_deal_level_change"]]
    diffs = [x - y for x, y in zip(per_a, per_b)]
    mean = sum(diffs) / 4
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 3 / 4)
    assert (result.a, result.b, result.opponent) == ("expert", "greedy", "random")
    assert result.difference.n == 4
    assert result.difference.value == pytest.approx(mean)
    assert result.difference.low == pytest.approx(mean - Z95 * se)
    assert result.a_value.value == pytest.approx(run_a["pairs"][0]["metrics"]["level_diff"]["value"])


def _run(per_deal, seed=0, opponent="expert", search=None) -> dict:
    return {"config": {"seed": seed, "mode": "hands", "dealer": "rotate", "rules": {"decks": 2},
                       "deals_file": None, "search": search or {}},
            "pairs": [{"a": "search", "b": opponent, "per_deal_level_change": per_deal}]}


def test_runs_of_different_lengths_share_their_first_deals_and_name_the_search_changes():
    a = _run([[1, 0], [0, 1], [2, 0], [5, 5]], search={"worlds": 48, "leaf_tricks": 2})
    b = _run([[0, 0], [0, 0], [1, 1]], search={"worlds": 24})
    result = paired_difference(a, b)
    assert result.difference.n == 3
    assert result.difference.value == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert result.search_changes == {"leaf_tricks": (2, None), "worlds": (48, 24)}


@pytest.mark.parametrize(("other", "named"), [(_run([[0, 0]] * 3, seed=1), "seed differs"),
                                              (_run([[0, 0]] * 3, opponent="greedy"), "opponents differ"),
                                              (_run([[0, 0]]), "share 1 deal")])
def test_runs_not_on_the_same_deals_are_refused_with_the_setting_named(other, named):
    with pytest.raises(ValueError, match=named):
        paired_difference(_run([[0, 0]] * 3), other)


def test_the_command_prints_the_difference_and_refuses_bad_files(tmp_path, capsys):
    a, b, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "bad.json"
    a.write_text(json.dumps(_run([[1, 1], [0, 0], [1, 0]])))
    b.write_text(json.dumps(_run([[0, 0], [0, 0], [0, 0]])))
    bad.write_text("{not json")
    assert main([str(a), str(b)]) == 0
    assert "A - B (paired by deal): +0.500" in capsys.readouterr().out
    assert main([str(a), str(bad)]) == 2
    assert "cannot read evaluation results" in capsys.readouterr().err
