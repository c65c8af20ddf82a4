"""Two evaluations on the same deals compared deal by deal, and pairs pooled over seeds (evaluation/paired.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation.paired import Run, load_run, main, paired_difference, pooled_difference, run_from_results
from agents.evaluation.stats import Z95

ROOT = Path(__file__).resolve().parents[1]


def _evaluate(tmp_path: Path, name: str, *overrides: str) -> Path:
    out = tmp_path / name
    command = [sys.executable, "evaluate.py", "num_deals=4", "progress=false", "workers=1",
               f"hydra.run.dir={out}", f"deals_file={tmp_path / 'deals.json'}", *overrides]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two finished runs on the same four deals: expert and greedy against random."""
    tmp_path = tmp_path_factory.mktemp("paired")
    return (_evaluate(tmp_path, "a", "participants=[expert,random]"),
            _evaluate(tmp_path, "b", "participants=[greedy,random]"))


def test_the_difference_of_two_real_runs_is_taken_deal_by_deal(real_runs):
    a, b = real_runs
    results_a = json.loads((a / "results.json").read_text())
    results_b = json.loads((b / "results.json").read_text())
    result = paired_difference(load_run(a / "results.json"), load_run(b / "results.json"))
    per_a = [sum(g) / 2 for g in results_a["pairs"][0]["per_deal_level_change"]]
    per_b = [sum(g) / 2 for g in results_b["pairs"][0]["per_deal_level_change"]]
    diffs = [x - y for x, y in zip(per_a, per_b)]
    mean = sum(diffs) / 4
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 3 / 4)
    assert (result.a, result.b, result.opponent) == ("expert", "greedy", "random")
    assert result.difference.n == 4
    assert result.difference.value == pytest.approx(mean)
    assert result.difference.low == pytest.approx(mean - Z95 * se)
    assert result.a_value.value == pytest.approx(results_a["pairs"][0]["metrics"]["level_diff"]["value"])


def test_a_journal_reads_as_its_finished_run_and_a_stopped_one_as_the_deals_it_holds(real_runs, tmp_path):
    a, b = real_runs
    from_journal, from_results = load_run(a), load_run(a / "results.json")  # a run directory reads its journal
    assert from_journal.per_deal == from_results.per_deal
    assert sorted(from_journal.digests) == [0, 1, 2, 3]
    assert paired_difference(load_run(a), load_run(b)) == paired_difference(from_results, load_run(b / "results.json"))
    # Stopped after two deals, killed in the middle of writing the third: the third is left out.
    lines = (a / "deals.jsonl").read_text().splitlines()
    stopped = tmp_path / "deals.jsonl"
    stopped.write_text("\n".join(lines[:3] + [lines[3][:40]]) + "\n")
    run = load_run(stopped)
    assert run.per_deal == {i: from_results.per_deal[i] for i in (0, 1)}
    result = paired_difference(run, load_run(b))
    assert result.difference.n == 2
    assert result.a_value.value == pytest.approx((from_results.per_deal[0] + from_results.per_deal[1]) / 2)
    # A journal of matches (no level change per hand) is refused by its header.
    header = json.loads(lines[0])
    header["settings"]["mode"] = "matches"
    stopped.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    with pytest.raises(ValueError, match="one pair in hands mode"):
        load_run(stopped)
    # A line of a hands journal without the hands of its deal (none, or a match's record) is damage too.
    for games in ([], [{"kind": "match", **dict.fromkeys(("a_team", "a_score", "hands", "level_gap"), 0)}]):
        damaged = json.loads(lines[2])
        damaged["games"] = games
        stopped.write_text("\n".join(lines[:2] + [json.dumps(damaged)] + lines[3:]) + "\n")
        with pytest.raises(ValueError, match="line 3: not the hands of a deal"):
            load_run(stopped)
    # A line cut short anywhere but at the end is damage, not a stop.
    stopped.write_text("\n".join(lines[:2] + [lines[2][:40]] + lines[3:]) + "\n")
    with pytest.raises(ValueError, match="line 3: not a deal result"):
        load_run(stopped)


def test_journals_with_another_deck_under_a_deal_index_are_refused(real_runs, tmp_path):
    a, b = real_runs
    lines = (b / "deals.jsonl").read_text().splitlines()
    line = json.loads(lines[2])
    line["deck_digest"] = "0" * len(line["deck_digest"])
    other = tmp_path / "deals.jsonl"
    other.write_text("\n".join(lines[:2] + [json.dumps(line)] + lines[3:]) + "\n")
    with pytest.raises(ValueError, match=f"deal {line['deal']} is another deck"):
        paired_difference(load_run(a), load_run(other))
    # A journal does not name its deal file: beside a results.json of a deal file of its own, refused.
    with pytest.raises(ValueError, match="deals_file differs"):
        paired_difference(load_run(a), load_run(b / "results.json"))
    # The same deals pooled twice, even as other deal indices, are refused by their decks.
    shifted = []
    for run in (a, b):
        run_lines = (run / "deals.jsonl").read_text().splitlines()
        shifted.append(tmp_path / f"shifted_{run.name}.jsonl")
        moved = [json.dumps({**json.loads(x), "deal": 10 + json.loads(x)["deal"]}) for x in run_lines[1:]]
        shifted[-1].write_text("\n".join(run_lines[:1] + moved) + "\n")
    with pytest.raises(ValueError, match="same deals"):
        pooled_difference([(load_run(a), load_run(b)), (load_run(shifted[0]), load_run(shifted[1]))])


def _results(per_deal, seed=0, opponent="expert", search=None, a="search") -> dict:
    return {"config": {"seed": seed, "mode": "hands", "dealer": "rotate", "rules": {"decks": 2},
                       "deals_file": None, "search": search or {}},
            "pairs": [{"a": a, "b": opponent, "per_deal_level_change": per_deal}]}


def _run(per_deal, **kwargs) -> Run:
    return run_from_results(_results(per_deal, **kwargs))


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


def test_pairs_on_two_seeds_pool_deal_by_deal():
    seed6 = (_run([[2, 0], [0, 0], [1, 1]], seed=6, search={"inference": "locations"}),
             _run([[0, 0], [0, 0], [1, 1], [3, 3]], seed=6, search={"inference": "none"}))
    seed9 = (_run([[0, 2], [4, 4]], seed=9, search={"inference": "locations"}),
             _run([[0, 0], [1, 1]], seed=9, search={"inference": "none"}))
    pooled = pooled_difference([seed6, seed9])
    # Shared deals: three of seed 6, two of seed 9; A's per deal 1, 0, 1 | 1, 4 and B's 0, 0, 1 | 0, 1.
    assert pooled.difference.n == 5
    assert pooled.difference.value == pytest.approx((1 + 0 + 0 + 1 + 3) / 5)
    assert pooled.a_value.value == pytest.approx((1 + 0 + 1 + 1 + 4) / 5)
    assert pooled.b_value.value == pytest.approx((0 + 0 + 1 + 0 + 1) / 5)
    diffs = [1, 0, 0, 1, 3]
    se = math.sqrt(sum((d - 1) ** 2 for d in diffs) / 4 / 5)
    assert pooled.difference.high == pytest.approx(1 + Z95 * se)
    assert pooled.search_changes == {"inference": ("locations", "none")}


@pytest.mark.parametrize(("second", "named"), [
    ((_run([[1, 1]] * 3, seed=6), _run([[0, 0]] * 3, seed=6)), "same deals"),
    ((_run([[1, 1]] * 3, seed=9, a="expert"), _run([[0, 0]] * 3, seed=9)), "same participants"),
    ((_run([[1, 1]] * 3, seed=9, search={"worlds": 96}), _run([[0, 0]] * 3, seed=9)), "same two searches"),
])
def test_pooling_refuses_a_seed_twice_or_other_agents(second, named):
    first = (_run([[1, 1]] * 3, seed=6), _run([[0, 0]] * 3, seed=6))
    with pytest.raises(ValueError, match=named):
        pooled_difference([first, second])


def test_the_command_prints_the_difference_pools_pairs_and_refuses_bad_input(tmp_path, capsys):
    files = {}
    for name, per_deal, seed in [("a6", [[1, 1], [0, 0], [1, 0]], 6), ("b6", [[0, 0]] * 3, 6),
                                 ("a9", [[2, 2], [0, 0]], 9), ("b9", [[0, 0]] * 2, 9)]:
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(_results(per_deal, seed=seed)))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main([str(files["a6"]), str(files["b6"])]) == 0
    assert "A - B (paired by deal): +0.500" in capsys.readouterr().out
    assert main([str(files[n]) for n in ("a6", "b6", "a9", "b9")]) == 0
    out = capsys.readouterr().out
    assert "pooled over 2 deal seeds, deal by deal: against expert, 5 shared deals" in out
    assert "A - B (paired by deal): +0.700" in out
    assert main([str(files["a6"]), str(bad)]) == 2
    assert "cannot read evaluation results" in capsys.readouterr().err
    assert main([str(files["a6"]), str(files["b6"]), str(files["a9"])]) == 2
    assert "name them in pairs" in capsys.readouterr().err
