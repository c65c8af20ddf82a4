"""Ablation studies: snapshots during training, the report over a sweep, intervals, cache, bad input."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.ablation.evaluation import CACHE_FILE, EvalSpec, deal_set, deals_key
from agents.ablation.intervals import sweep_difference, sweep_mean, t_quantile
from agents.ablation.runs import Problems, Run, group_runs, pick_baseline
from agents.evaluation.deals import default_deals_file, load_deals
from agents.selfplay.checkpoint import load_checkpoint
from agents.selfplay.snapshots import SnapshotKeeper, SnapshotSettings, list_snapshot_files, read_index, thin
from env.core.registry import ruleset_from_config
from env.standard.variants import RuleOptions

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("model=lstm", "model=mlp")
GUAFENG = {"ruleset": "guafeng", "match_hands": 13, "stage_limit": 7}  # the rules of conf/rules/guafeng.yaml


def run_report(sweep: Path, out: Path, *overrides: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "report.py", f"sweep={sweep}", f"hydra.run.dir={out}", "num_deals=2",
               "opponents=[random]", "workers=1", "progress=false", f"deals_file={out.parent / 'deals.json'}",
               *overrides]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """A 2 configurations x 2 seeds sweep of the smoke preset (Hydra multirun), two or three snapshots a run."""
    out = tmp_path_factory.mktemp("sweep")
    command = [sys.executable, "train.py", "-m", "train=smoke", f"hydra.sweep.dir={out}", "model=lstm,mlp",
               "seed=1,2", "train.total_frames=1000", "train.final_eval_deals=0", "snapshots.every_frames=500"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def report(sweep, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path_factory.mktemp("report") / "first"
    return run_report(sweep, out, "baseline='model=lstm'"), out


def test_training_keeps_tagged_snapshots_beside_latest(sweep):
    runs = sorted(p.parent.parent for p in sweep.glob("*/checkpoints/latest.pt"))
    assert len(runs) == 4
    for run in runs:
        directory = run / "checkpoints" / "snapshots"
        index = read_index(directory)
        assert [e["file"] for e in index] == [p.name for p in list_snapshot_files(directory)]
        assert len(index) >= 2 and index[0]["frames"] >= 500
        last = load_checkpoint(directory / index[-1]["file"])
        latest = load_checkpoint(run / "checkpoints" / "latest.pt")
        # The last snapshot is the final network, tagged with the counters it was taken at.
        assert last["counters"]["frames"] == latest["counters"]["frames"] == index[-1]["frames"]
        assert index[-1]["hands"] == latest["counters"]["episodes"]
        assert index[-1]["train_seconds"] == pytest.approx(last["counters"]["train_seconds"])
        assert last["optimizer"] is None
        for key, value in latest["model"].items():
            assert torch.equal(value, last["model"][key])


def test_report_end_to_end_has_one_row_per_configuration_with_intervals(report):
    result, out = report
    assert result.returncode == 0, result.stderr[-3000:]
    final = [r for r in read_csv(out / "final.csv") if r["metric"] == "level_diff"]
    assert sorted(r["group"] for r in final) == sorted(CONFIGS)
    for row in final:
        low, value, high = float(row["ci_low"]), float(row["value"]), float(row["ci_high"])
        assert low <= value <= high and math.isfinite(low) and math.isfinite(high)
        assert row["seeds"] == "2" and row["deals"] == "2" and float(row["frames"]) >= 1000
    differences = read_csv(out / "differences.csv")
    assert [(r["group"], r["baseline"]) for r in differences] == [("model=mlp", "model=lstm")]
    assert float(differences[0]["ci_low"]) <= float(differences[0]["value"]) <= float(differences[0]["ci_high"])
    summary = (out / "summary.md").read_text()
    assert "| model=lstm | 2 |" in summary and "| model=mlp | 2 |" in summary
    assert "model=lstm" in result.stdout and "model=mlp" in result.stdout
    for axis in ("frames", "minutes"):
        for suffix in ("png", "svg"):
            assert (out / f"learning_curves_{axis}.{suffix}").stat().st_size > 1000
    data = json.loads((out / "results.json").read_text())
    for group in data["groups"]:
        curves = group["curves"]["random"]
        assert len(curves) == 2 and all(len(c["frames"]) >= 2 for c in curves)
        band = group["bands"]["random"]["frames"]
        assert all(lo <= m <= hi for lo, m, hi in zip(band["low"], band["mean"], band["high"]))
    curve_rows = read_csv(out / "curves.csv")
    assert len({r["run"] for r in curve_rows}) == 4


def test_report_writes_tensorboard_hparams_per_run(report):
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer

    _, out = report
    multiplexer = EventMultiplexer().AddRunsFromDirectory(str(out / "tensorboard"))
    multiplexer.Reload()
    runs = multiplexer.Runs()
    assert len(runs) == 4
    hparams = multiplexer.PluginRunToTagToContent("hparams")
    for run, tags in runs.items():
        assert "_hparams_/session_start_info" in hparams[run]
        assert "final/level_diff_vs_random" in tags["scalars"]
        assert len(multiplexer.Scalars(run, "eval/level_diff_vs_random")) >= 2


def test_a_second_report_evaluates_nothing_new(report, sweep):
    """The same runs, named one by one this time: every evaluation comes from the runs' caches."""
    _, first = report
    runs = ",".join(f"'{p}'" for p in sorted(sweep.iterdir()) if p.is_dir())
    result = run_report(sweep, first.parent / "second", "sweep=null", f"runs=[{runs}]", "baseline=lstm")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "4 run(s) in 2 group(s)" in result.stdout
    snapshots = len(read_csv(first / "curves.csv"))  # one opponent: one row per evaluated snapshot
    assert f"0 played now, {snapshots} from the cache" in result.stdout
    assert read_csv(first / "final.csv") == read_csv(first.parent / "second" / "final.csv")


def test_an_empty_directory_is_reported_by_name(tmp_path):
    empty = tmp_path / "nothing_here"
    empty.mkdir()
    result = run_report(empty, tmp_path / "out")
    assert result.returncode == 1
    assert f"sweep {empty}: holds no training runs" in result.stderr
    assert "holds no training runs" in (tmp_path / "out" / "summary.md").read_text()


def _copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("latest.pt", "tensorboard"))
    return target


def test_bad_runs_and_snapshots_are_named_and_the_rest_is_reported(sweep, tmp_path):
    runs = {p.name.split(",")[0] + "," + p.name.split(",")[1]: p for p in sweep.iterdir() if p.is_dir()}
    bad = tmp_path / "bad_sweep"
    corrupt = _copy_run(runs["model=lstm,seed=1"], bad / "lstm_seed1")
    missing = _copy_run(runs["model=lstm,seed=2"], bad / "lstm_seed2")
    other_rules = _copy_run(runs["model=lstm,seed=2"], bad / "lstm_seed2_linear_kitty")
    _copy_run(runs["model=mlp,seed=1"], bad / "mlp_seed1")
    first = list_snapshot_files(corrupt / "checkpoints" / "snapshots")[0]
    first.write_bytes(b"not a checkpoint")
    gone = list_snapshot_files(missing / "checkpoints" / "snapshots")[0]
    gone.unlink()
    config = other_rules / ".hydra" / "config.yaml"
    config.write_text(config.read_text().replace("kitty_multiplier: exponential", "kitty_multiplier: linear"))

    result = run_report(bad, tmp_path / "out", "baseline=lstm")
    assert result.returncode == 0, result.stderr[-3000:]
    problems = json.loads((tmp_path / "out" / "results.json").read_text())["problems"]
    text = "\n".join(problems)
    assert f"run lstm_seed1: snapshot {first.name} cannot be used" in text and "corrupt" in text
    assert f"run lstm_seed2: snapshot {gone.name} is listed in snapshots/index.json but missing" in text
    assert "run lstm_seed2_linear_kitty: differs from the other runs of its group" in text
    assert 'rules.kitty_multiplier="linear"' in text
    final = {r["group"]: r for r in read_csv(tmp_path / "out" / "final.csv") if r["metric"] == "level_diff"}
    assert set(final) == set(CONFIGS)
    assert final["model=lstm"]["runs"] == "2" and final["model=mlp"]["runs"] == "1"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "## Problems" in summary and "lstm_seed2_linear_kitty" in summary


@pytest.fixture(scope="module")
def guafeng_run(tmp_path_factory) -> Path:
    """A 刮风 run of the smoke preset, a few hundred frames: one snapshot (the final network)."""
    out = tmp_path_factory.mktemp("guafeng") / "run"
    command = [sys.executable, "train.py", "train=smoke", "rules=guafeng", f"hydra.run.dir={out}",
               "train.total_frames=300", "train.final_eval_deals=0"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_a_guafeng_runs_deals_are_its_rule_sets_own(tmp_path):
    """``ruleset: guafeng`` in a run's rules picks 刮风 deals: by default its own saved set, as
    ``evaluate.py`` reads it; the standard game reads its own as before (so its cache keys stay)."""
    guafeng = ruleset_from_config(GUAFENG)
    shipped = load_deals(ROOT / default_deals_file(0, "guafeng"), 0, 3, guafeng)
    spec = EvalSpec(opponents=("random",), num_deals=3, seed=0, deals_root=ROOT)
    assert deal_set(GUAFENG, spec) == shipped
    standard = deal_set({"step": 40}, spec)
    assert standard == load_deals(ROOT / default_deals_file(0), 0, 3, RuleOptions())
    assert deals_key(standard) != deals_key(shipped)
    # One file for every run: the first rule set to use it starts it; the other plays the same recipe in memory.
    shared = replace(spec, deals_file=tmp_path / "deals.json")
    assert deal_set({"step": 40}, shared) == standard
    saved = shared.deals_file.read_bytes()
    assert deal_set(GUAFENG, shared) == shipped and shared.deals_file.read_bytes() == saved


def test_a_guafeng_run_is_reported_on_guafeng_deals(guafeng_run, tmp_path):
    """With the default deals_file, a 刮风 run plays its rule set's saved deals (read from the directory the
    report starts in), with finite numbers; no standard deal file is touched."""
    data = tmp_path / "data"
    data.mkdir()
    own = tmp_path / default_deals_file(0, "guafeng")
    shutil.copy(ROOT / default_deals_file(0, "guafeng"), own)
    command = [sys.executable, str(ROOT / "report.py"), "sweep=null", f"runs=['{guafeng_run}']",
               f"hydra.run.dir={tmp_path / 'out'}", "num_deals=2", "opponents=[random]", "workers=1", "progress=false"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads((tmp_path / "out" / "results.json").read_text())["problems"] == []
    final = [r for r in read_csv(tmp_path / "out" / "final.csv") if r["metric"] == "level_diff"]
    assert len(final) == 1 and final[0]["deals"] == "2"
    assert all(math.isfinite(float(final[0][k])) for k in ("value", "ci_low", "ci_high"))
    entries = json.loads((guafeng_run / CACHE_FILE).read_text())["entries"]
    expected = deals_key(load_deals(own, 0, 2, ruleset_from_config(GUAFENG)))
    assert entries and all(json.loads(k)[-1] == expected for k in entries)
    assert sorted(p.name for p in data.iterdir()) == [own.name]
    assert own.read_bytes() == (ROOT / default_deals_file(0, "guafeng")).read_bytes()


def test_a_report_of_standard_and_guafeng_runs_plays_each_on_its_own_deals(report, sweep, guafeng_run):
    """One report over both rule sets: the 刮风 run is a group of its own and the standard groups' numbers
    are those of a report without it (the same deals)."""
    first, out = report[1], report[1].parent / "mixed"
    result = run_report(sweep, out, f"runs=['{guafeng_run}']")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "5 run(s) in 3 group(s)" in result.stdout
    numbers = ("value", "ci_low", "ci_high")
    before = {(r["group"], r["metric"]): [r[k] for k in numbers] for r in read_csv(first / "final.csv")}
    rows = read_csv(out / "final.csv")
    assert len(rows) == len(before) + 2  # the 刮风 group's level differential and hand win rate
    for row in rows:
        if "rules=guafeng" in row["group"]:
            assert all(math.isfinite(float(row[k])) for k in numbers)
        else:  # labelled "model=lstm,train.total_frames=1000" now: the 刮风 group differs in more overrides
            label = next(g for g in CONFIGS if g in row["group"].split(","))
            assert [row[k] for k in numbers] == before[label, row["metric"]]


def test_snapshot_cap_keeps_the_first_and_newest_spread_over_the_run(tmp_path):
    model = torch.nn.Linear(2, 1)
    keeper = SnapshotKeeper(tmp_path, SnapshotSettings(every_frames=100, keep=4),
                            {"frames": 0, "episodes": 0, "train_seconds": 0.0})
    saved = []
    for frames in range(0, 1201, 50):
        counters = {"frames": frames, "episodes": frames // 10, "train_seconds": frames / 100}
        if keeper.maybe_save(model, {"seed": 0}, counters):
            saved.append(frames)
    keeper.save_final(model, {"seed": 0}, {"frames": 1230, "episodes": 123, "train_seconds": 12.3})
    assert saved == list(range(100, 1201, 100))
    kept = [e["frames"] for e in read_index(tmp_path)]
    assert len(kept) == 4 and kept[0] == 100 and kept[-1] == 1230
    assert [p.name for p in list_snapshot_files(tmp_path)] == [e["file"] for e in read_index(tmp_path)]
    gaps = np.diff(kept)
    assert gaps.max() <= 3 * gaps.min()  # spread, not bunched at the end
    assert thin([0, 10, 20, 30, 100], 3) == [10, 20]  # keeps 0, 30, 100
    assert thin([5, 6, 7], 1) == [5, 6]
    with pytest.raises(ValueError, match=r"snapshots\.keep"):
        SnapshotSettings(every_frames=10, keep=0)


def _run(name: str, *overrides: str, rules: dict | None = None) -> Run:
    return Run(Path(name), name, overrides, {"seed": 0, "rules": rules or {"step": 40}})


def test_runs_group_by_overrides_minus_seed():
    runs = [_run("a1", "train=smoke", "model=lstm", "seed=1"), _run("a2", "train=smoke", "seed=2", "model=lstm"),
            _run("b1", "train=smoke", "model=mlp", "seed=1", "train.eval_workers=4"),
            _run("b2", "train=smoke", "model=mlp", "seed=2")]
    problems = Problems(echo=False)
    groups = group_runs(runs, ["seed", "train.eval_*"], ["rules"], problems)
    assert [(g.label, [r.name for r in g.runs]) for g in groups] == [("model=lstm", ["a1", "a2"]),
                                                                    ("model=mlp", ["b1", "b2"])]
    assert pick_baseline(groups, "model=mlp", problems) is groups[1]
    assert pick_baseline(groups, "lstm", problems) is groups[0]
    assert pick_baseline(groups, "model=gru", problems) is None
    assert problems.items == ["baseline 'model=gru': matches no group (groups: 'model=lstm', 'model=mlp'); "
                              "no differences computed"]


def test_a_guafeng_run_in_a_standard_group_is_left_out():
    runs = [_run("a1", "model=lstm", "seed=1"), _run("a2", "model=lstm", "seed=2"),
            _run("g3", "model=lstm", "seed=3", rules=GUAFENG)]
    problems = Problems(echo=False)
    groups = group_runs(runs, ["seed"], ["rules", "action_mode"], problems)
    assert [[r.name for r in g.runs] for g in groups] == [["a1", "a2"]]
    assert len(problems.items) == 1 and problems.items[0].startswith("run g3: differs from the other runs")
    assert 'rules.ruleset="guafeng"' in problems.items[0]


def test_interval_over_seeds_and_deals_on_a_known_example():
    # Seeds' means 2 and 4, deals' means 2 and 4, no interaction: MS_seed = MS_deal = 4, MS_e = 0,
    # Var = (4 + 4 - 0) / (2 * 2) = 2 with Satterthwaite df = 8**2 / (4**2 / 1 + 4**2 / 1) = 2.
    e = sweep_mean([[1, 3], [3, 5]])
    assert e.value == 3 and e.se == pytest.approx(math.sqrt(2)) and e.df == pytest.approx(2)
    assert e.high - e.value == pytest.approx(4.302653 * math.sqrt(2), rel=1e-6)
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, rel=1e-5)
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, rel=1e-5)
    # One seed: the interval over deals alone, t with N - 1 degrees of freedom.
    one = sweep_mean([[1, 3, 2, 6]])
    assert one.df == 3 and one.se == pytest.approx(np.std([1, 3, 2, 6], ddof=1) / 2)
    # Paired difference: a shared deal effect cancels; each group's seed spread remains (1 + 1).
    diff = sweep_difference([[2, 4], [4, 6]], [[1, 3], [3, 5]])
    assert diff.value == 1 and diff.se == pytest.approx(math.sqrt(2)) and diff.df == pytest.approx(2)
    unpaired = sweep_difference([[2, 4], [4, 6]], [[1, 3], [3, 5]], paired=False)
    assert unpaired.se == pytest.approx(2.0)


def test_interval_covers_the_truth_when_deals_are_shared_by_seeds():
    """Seeds share the deals, so the deal effect does not average out over seeds: the interval must keep it."""
    rng = np.random.default_rng(0)
    covered = naive = 0
    trials = 400
    for _ in range(trials):
        x = 0.3 * rng.normal(size=(3, 1)) + 2.0 * rng.normal(size=(1, 40)) + rng.normal(size=(3, 40))
        e = sweep_mean(x)
        covered += e.low < 0 < e.high
        seed_means = x.mean(axis=1)
        naive += abs(seed_means.mean()) < t_quantile(0.975, 2) * seed_means.std(ddof=1) / math.sqrt(3)
    assert 0.92 <= covered / trials <= 0.98
    assert naive / trials < 0.9  # an interval over seeds alone misses the shared deal luck
