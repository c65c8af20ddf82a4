"""The evaluation journal: deals on disk as they finish, and a stopped run resumed to the very same results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation.deals import make_deal
from agents.evaluation.duplicate import DealResult, GameRecord, MatchRecord, Settings
from agents.evaluation.journal import Journal, JournalError, journal_header, result_from_json, result_to_json
from agents.evaluation.run import evaluate

ROOT = Path(__file__).resolve().parents[1]
PAIRS = [("greedy", "random")]
SETTINGS = Settings(seed=3)


def _deals(n: int):
    return [make_deal(SETTINGS.seed, i, SETTINGS.rule_set()) for i in range(n)]


def _stop_after(count: int):
    """A progress wrapper that lets ``count`` results through and then stops the run as Ctrl-C would."""
    def wrap(results, total):
        for i, result in enumerate(results):
            if i == count:
                raise KeyboardInterrupt
            yield result
    return wrap


def test_a_deal_result_round_trips_through_a_journal_line():
    hands = DealResult(0, 7, (GameRecord(0, 1, "defenders", 2, 125, (1, 0), (0, 0)),
                              GameRecord(1, 1, "dealers", 1, 40, (0, 2), (0, 1))), {"a": 0.5, "b": 0.25}, {"a": 9})
    matches = DealResult(1, 2, (MatchRecord(0, 1.0, 12, 3), MatchRecord(1, 0.5, 200, 0)), {"a": 1.0}, {"a": 3})
    for result in (hands, matches):
        line = json.loads(json.dumps(result_to_json(result, "abc")))
        assert line["deck_digest"] == "abc"
        back = result_from_json(line)
        assert back == result
        assert (back.decision_seconds, back.decisions) == (result.decision_seconds, result.decisions)


def test_a_stopped_evaluation_resumes_to_the_results_of_an_uninterrupted_one(tmp_path, monkeypatch):
    deals = _deals(6)
    whole = evaluate(PAIRS, deals, SETTINGS)
    header = journal_header(PAIRS, SETTINGS)
    path = tmp_path / "deals.jsonl"
    import agents.evaluation.run as run_module

    real = run_module.run_tasks

    def stopped(tasks, workers, wrap, *rest):
        return real(tasks, workers, lambda results, total: _stop_after(4)(wrap(results, total), total), *rest)
    monkeypatch.setattr(run_module, "run_tasks", stopped)
    with pytest.raises(KeyboardInterrupt):
        evaluate(PAIRS, deals, SETTINGS, journal=Journal(path, header))
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == header and len(lines) == 1 + 5  # the fifth was written when the stop came

    played = []
    monkeypatch.setattr(run_module, "run_tasks",
                        lambda tasks, *rest: played.extend(t[3].index for t in tasks) or real(tasks, *rest))
    resumed = evaluate(PAIRS, deals, SETTINGS, journal=Journal(path, header))
    assert played == [5]  # only the deal the journal lacked
    assert [r.games for r in resumed.pairs[0].deals] == [r.games for r in whole.pairs[0].deals]
    assert resumed.pairs[0].metrics == whole.pairs[0].metrics
    assert len(path.read_text().splitlines()) == 1 + 6


def test_a_journal_of_another_evaluation_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "deals.jsonl"
    evaluate(PAIRS, _deals(2), SETTINGS, journal=Journal(path, journal_header(PAIRS, SETTINGS)))
    before = path.read_bytes()
    with pytest.raises(JournalError, match="pairs"):
        Journal(path, journal_header([("expert", "random")], SETTINGS))
    with pytest.raises(JournalError, match="settings"):
        Journal(path, journal_header(PAIRS, Settings(seed=3, mode="matches")))
    with pytest.raises(JournalError, match="files"):
        Journal(path, journal_header(PAIRS, SETTINGS, {"checkpoints/x.pt": "00"}))
    other_deals = [make_deal(4, i, SETTINGS.rule_set()) for i in range(2)]  # the same indices, other deals
    with pytest.raises(JournalError, match="deal 0 was another deal"):
        evaluate(PAIRS, other_deals, SETTINGS, journal=Journal(path, journal_header(PAIRS, SETTINGS)))
    assert path.read_bytes() == before
    (tmp_path / "junk.jsonl").write_text("not json\n")
    with pytest.raises(JournalError, match="not an evaluation journal"):
        Journal(tmp_path / "junk.jsonl", journal_header(PAIRS, SETTINGS))


def test_a_last_line_cut_short_is_dropped_and_its_deal_played_again(tmp_path):
    path = tmp_path / "deals.jsonl"
    header = journal_header(PAIRS, SETTINGS)
    deals = _deals(3)
    evaluate(PAIRS, deals, SETTINGS, journal=Journal(path, header))
    whole = path.read_text().splitlines()
    path.write_text("\n".join(whole[:3]) + "\n" + whole[3][: len(whole[3]) // 2])  # killed mid-write
    journal = Journal(path, header)
    assert sorted(deal for _, deal in journal.done) == [0, 1]
    assert path.read_text().splitlines() == whole[:3]
    evaluate(PAIRS, deals, SETTINGS, journal=journal)
    again = path.read_text().splitlines()
    assert [_games(line) for line in again[1:]] == [_games(line) for line in whole[1:]]  # times aside
    path.write_text("\n".join([whole[0], "{broken", *whole[2:]]) + "\n")  # damage in the middle is not a cut
    with pytest.raises(JournalError, match="line 2"):
        Journal(path, header)


def _games(line: str) -> tuple:
    entry = json.loads(line)
    return entry["pair"], entry["deal"], entry["deck_digest"], entry["games"]


def _cli(tmp_path: Path, *overrides: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "evaluate.py", "progress=false", "workers=1", "participants=[greedy,random]",
               f"deals_file={tmp_path / 'deals.json'}", *overrides]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_resume_extends_a_finished_run_in_its_own_directory(tmp_path):
    run = tmp_path / "run"
    first = _cli(tmp_path, "num_deals=2", f"hydra.run.dir={run}")
    assert first.returncode == 0, first.stderr[-3000:]
    assert len((run / "deals.jsonl").read_text().splitlines()) == 1 + 2
    more = _cli(tmp_path, "num_deals=3", f"resume={run}", f"hydra.run.dir={tmp_path / 'other'}")
    assert more.returncode == 0, more.stderr[-3000:]
    assert "resuming: 2 deal result(s)" in more.stdout
    data = json.loads((run / "results.json").read_text())
    assert data["num_deals"] == 3 and len(data["pairs"][0]["per_deal_level_change"]) == 3
    assert len((run / "deals.jsonl").read_text().splitlines()) == 1 + 3
    fresh = _cli(tmp_path, "num_deals=3", f"hydra.run.dir={tmp_path / 'fresh'}")
    assert fresh.returncode == 0, fresh.stderr[-3000:]
    assert json.loads((tmp_path / "fresh" / "results.json").read_text())["pairs"] == data["pairs"]
    refused = _cli(tmp_path, "num_deals=3", "+rules.kitty_multiplier=linear", f"resume={run}",
                   f"hydra.run.dir={tmp_path / 'x'}")
    assert refused.returncode != 0 and "belongs to another evaluation" in refused.stderr
    missing = _cli(tmp_path, "num_deals=3", f"resume={tmp_path / 'nowhere'}", f"hydra.run.dir={tmp_path / 'y'}")
    assert missing.returncode != 0 and "no deals.jsonl there to resume" in missing.stderr
