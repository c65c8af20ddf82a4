"""Every snapshot of every run against the chosen opponents, on the same saved deals, cached on disk.

The games are played by :func:`agents.evaluation.run.evaluate` (duplicate
deals, parallel workers or Ray), so a snapshot's numbers are exactly those
``evaluate.py`` would print for it. What is kept is the per-deal value (the
mean of the deal's two swapped games) of the level differential and of the
hand win, because the intervals over seeds and deals need the deals.

The cache is one file per run, ``<run>/report_cache.json``: an entry per
(snapshot file, its size and modification time, opponent, evaluation seed,
deal set), so a re-run plays only the snapshots that are new or changed, and
a different deal count or rule set never reuses numbers of another deal set.

A run's rule set comes from the ``rules`` of its saved config
(:func:`env.core.registry.ruleset_from_config`: ``ruleset: guafeng`` names 刮风), and
its deals are that rule set's, as ``evaluate.py`` plays them (:func:`deal_set`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.ablation.runs import Problems, Run, Snapshot
from agents.evaluation.deals import Deal, default_deals_file, load_deals, make_deal
from agents.evaluation.duplicate import Settings
from agents.evaluation.run import evaluate
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, model_from_checkpoint
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet

CACHE_FILE = "report_cache.json"
CACHE_VERSION = 1


@dataclass(frozen=True)
class EvalSpec:
    """How snapshots are evaluated (the evaluation options of conf/report.yaml)."""

    opponents: tuple[str, ...]
    num_deals: int
    seed: int
    deals_file: Path | None = None  # None: each rule set's own default file under deals_root
    deals_root: Path = Path(".")
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    batch_snapshots: int = 16   # snapshots per evaluate() call: bounds the models a worker holds
    progress: bool = False

    def __post_init__(self) -> None:
        if not self.opponents:
            raise ValueError("opponents must name at least one bot or checkpoint")
        if self.num_deals < 1:
            raise ValueError(f"num_deals must be positive, got {self.num_deals}")


@dataclass
class SnapshotResult:
    """One snapshot's evaluation: its tags and, per opponent, the per-deal level differential and hand win."""

    frames: int
    hands: int
    train_seconds: float
    deals_key: str
    level_diff: dict[str, list[float]] = field(default_factory=dict)
    hand_win: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class EvalCounts:
    """How many (snapshot, opponent) evaluations were played now and how many came from the cache."""

    evaluated: int = 0
    cached: int = 0


def deals_file_of(rule_set: RuleSet, spec: EvalSpec) -> Path:
    """Where a rule set's deals are saved: the configured ``deals_file``, or (``None``) the rule set's own
    default file under ``deals_root`` (``data/eval_deals_seed<seed>.json``, 刮风's
    ``data/eval_deals_guafeng_seed<seed>.json``), as ``evaluate.py`` picks it."""
    if spec.deals_file is not None:
        return spec.deals_file
    return spec.deals_root / default_deals_file(spec.seed, rule_set)


def deal_set(rules: dict[str, Any], spec: EvalSpec) -> list[Deal]:
    """The deals for a run's ``rules`` (its config's): the saved file's (:func:`deals_file_of`) when it
    was made for this rule set and level sequence, else the same recipe in memory.

    Raises ``ValueError`` when ``rules`` names no known rule set or holds unknown options.
    """
    rule_set = ruleset_from_config(rules)
    try:
        return load_deals(deals_file_of(rule_set, spec), spec.seed, spec.num_deals, rule_set)
    except ValueError:  # the file holds other deals: deal i is still a function of (seed, i, rules)
        return [make_deal(spec.seed, i, rule_set) for i in range(spec.num_deals)]


def deals_key(deals: list[Deal]) -> str:
    """A digest of a deal set (equal digests: the same deals, so results pair deal by deal)."""
    text = ";".join(f"{d.index}:{d.hand_seed}:{d.dealer}:{d.level}:{d.deck_digest}" for d in deals)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cache_key(path: Path, opponent: str, spec: EvalSpec, key: str) -> str:
    stat = path.stat()
    return json.dumps([path.name, stat.st_size, stat.st_mtime_ns, opponent, spec.seed, key])


def _load_cache(run: Run) -> dict[str, Any]:
    path = run.path / CACHE_FILE
    try:
        data = json.loads(path.read_text())
        return data["entries"] if data.get("version") == CACHE_VERSION else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _save_cache(run: Run, entries: dict[str, Any], problems: Problems) -> None:
    try:
        (run.path / CACHE_FILE).write_text(json.dumps({"version": CACHE_VERSION, "entries": entries}) + "\n")
    except OSError as exc:
        problems.add(f"run {run.name}", f"cannot write its evaluation cache ({exc})")


def _per_deal(pair) -> tuple[list[float], list[float]]:
    """Per-deal mean level change of A and hand win of A (ties 1/2) over the deal's two games."""
    levels, wins = [], []
    for result in pair.deals:
        changes = [g.a_level_change for g in result.games]
        levels.append(sum(changes) / len(changes))
        wins.append(sum(1.0 if c > 0 else 0.0 if c < 0 else 0.5 for c in changes) / len(changes))
    return levels, wins


@dataclass
class _Pending:
    run: Run
    snapshot: Snapshot
    result: SnapshotResult
    opponents: list[str]


def evaluate_runs(runs: list[Run], spec: EvalSpec, problems: Problems,
                  use_cache: bool = True) -> tuple[dict[Path, list[SnapshotResult]], EvalCounts]:
    """Evaluate every snapshot of ``runs`` (cache first); returns each run's results in order of frames.

    A snapshot that is missing, corrupt or does not rebuild its network is
    reported in ``problems`` and left out; the other snapshots go on.
    """
    counts = EvalCounts()
    caches: dict[Path, dict[str, Any]] = {}
    results: dict[Path, list[SnapshotResult]] = {run.path: [] for run in runs}
    pending: dict[str, list[_Pending]] = {}
    deal_sets: dict[str, list[Deal]] = {}
    for run in runs:
        rules = run.config.get("rules") or {}
        rules_json = json.dumps(rules, sort_keys=True)
        try:
            if rules_json not in deal_sets:
                deal_sets[rules_json] = deal_set(rules, spec)
            deals = deal_sets[rules_json]
        except ValueError as exc:
            problems.add(f"run {run.name}", f"its rules cannot be read ({exc}); left out")
            continue
        key = deals_key(deals)
        caches[run.path] = _load_cache(run) if use_cache else {}
        for snapshot in run.snapshots:
            item = _lookup(run, snapshot, spec, key, caches[run.path], problems)
            if item is None:
                continue
            counts.cached += len(spec.opponents) - len(item.opponents)
            if item.opponents:
                pending.setdefault(rules_json, []).append(item)
            else:
                results[run.path].append(item.result)
    for rules_json, items in pending.items():
        for start in range(0, len(items), spec.batch_snapshots):
            batch = items[start:start + spec.batch_snapshots]
            counts.evaluated += _play(batch, deal_sets[rules_json], json.loads(rules_json), spec, caches, problems)
            for item in batch:
                if all(o in item.result.level_diff for o in spec.opponents):
                    results[item.run.path].append(item.result)
            for run in {id(i.run): i.run for i in batch}.values():
                _save_cache(run, caches[run.path], problems)
    for points in results.values():
        points.sort(key=lambda r: r.frames)
    return results, counts


def _lookup(run: Run, snapshot: Snapshot, spec: EvalSpec, key: str, cache: dict[str, Any],
            problems: Problems) -> _Pending | None:
    """The snapshot's cached results and the opponents still to play; ``None`` if it cannot be used."""
    name = f"snapshot {snapshot.path.name}"
    if not snapshot.path.is_file():
        problems.add(f"run {run.name}", f"{name} is missing; left out")
        return None
    keys = {o: _cache_key(snapshot.path, o, spec, key) for o in spec.opponents}
    result = None
    for opponent, k in keys.items():
        if k in cache:
            entry = cache[k]
            result = result or SnapshotResult(entry["frames"], entry["hands"], entry["train_seconds"], key)
            result.level_diff[opponent], result.hand_win[opponent] = entry["level_diff"], entry["hand_win"]
    missing = [o for o in spec.opponents if keys[o] not in cache]
    if missing:
        try:
            state = load_checkpoint(snapshot.path)
            model_from_checkpoint(state)
        except CheckpointError as exc:
            problems.add(f"run {run.name}", f"{name} cannot be used ({exc}); left out")
            return None
        counters = state["counters"]
        if result is None:
            result = SnapshotResult(int(counters["frames"]), int(counters["episodes"]),
                                    float(counters["train_seconds"]), key)
    return _Pending(run, snapshot, result, missing)


def _play(batch: list[_Pending], deals: list[Deal], rules: dict[str, Any], spec: EvalSpec,
          caches: dict[Path, dict[str, Any]], problems: Problems) -> int:
    """Play the missing (snapshot, opponent) pairs of a batch in one evaluation; store them in the caches."""
    pairs = [(str(item.snapshot.path), o) for item in batch for o in item.opponents]
    owners = [item for item in batch for _ in item.opponents]
    settings = Settings(seed=spec.seed, rules=tuple(sorted(rules.items())))
    try:
        evaluation = evaluate(pairs, deals, settings, workers=spec.workers, progress=spec.progress,
                              backend=spec.backend, address=spec.address)
    except Exception as exc:  # one failing batch (a worker's error) must not stop the report
        names = sorted({item.run.name for item in batch})
        problems.add(f"runs {', '.join(names)}", f"evaluation of {len(batch)} snapshot(s) failed "
                                                  f"({type(exc).__name__}: {exc}); left out")
        return 0
    for item, pair in zip(owners, evaluation.pairs):
        levels, wins = _per_deal(pair)
        result = item.result
        result.level_diff[pair.b], result.hand_win[pair.b] = levels, wins
        k = _cache_key(item.snapshot.path, pair.b, spec, result.deals_key)
        caches[item.run.path][k] = {"frames": result.frames, "hands": result.hands,
                                    "train_seconds": result.train_seconds, "level_diff": levels, "hand_win": wins}
    return len(pairs)
