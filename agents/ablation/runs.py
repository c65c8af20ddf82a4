"""The runs of a sweep: found on disk, read (overrides, config, snapshots) and grouped by configuration.

A *run* is a training output directory: ``.hydra/overrides.yaml`` (the
command-line overrides Hydra saved), ``.hydra/config.yaml`` and
``checkpoints/`` (``snapshots/`` with its index, and ``latest.pt``). A sweep
directory (``multirun/train/<run_name>/<date-time>/``, or any folder) holds runs
at any depth. Runs are grouped by their overrides minus the ones that do not
change what is learned (the seed first of all; the list is ``ignore_overrides``
in conf/report.yaml), so a group is one configuration trained with several seeds.

Nothing here raises on bad input: each problem (no runs, a run without
checkpoints, a snapshot listed but missing, runs of different rules in one
group) is recorded in :class:`Problems` with the run it concerns, and the run
or snapshot is left out.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from agents.selfplay.checkpoint import CheckpointError, load_checkpoint
from agents.selfplay.snapshots import NAME, list_snapshot_files, read_index

NO_OVERRIDES = "(defaults)"


class Problems:
    """Problems met while building a report, each naming what it concerns; printed as they come."""

    def __init__(self, echo: bool = True):
        self.items: list[str] = []
        self.echo = echo

    def add(self, subject: str, message: str) -> None:
        """Record (and print to stderr) ``subject: message``."""
        text = f"{subject}: {message}"
        self.items.append(text)
        if self.echo:
            print(f"warning: {text}", file=sys.stderr)

    def __len__(self) -> int:
        return len(self.items)


@dataclass
class Snapshot:
    """One snapshot file of a run and the frames it was taken at (-1: unknown until the file is read).

    Its other tags (hands, training seconds) are read from the file when it is evaluated.
    """

    path: Path
    frames: int


@dataclass
class Run:
    """One training run: where it is, how it was configured, its snapshots."""

    path: Path
    name: str
    overrides: tuple[str, ...]
    config: dict[str, Any]
    snapshots: list[Snapshot] = field(default_factory=list)

    @property
    def seed(self) -> int | None:
        """The training seed (from the saved config)."""
        seed = self.config.get("seed")
        return int(seed) if seed is not None else None


@dataclass
class Group:
    """Runs of one configuration (the same overrides once the ignored ones are removed)."""

    key: tuple[str, ...]
    runs: list[Run]
    label: str = ""


def override_key(override: str) -> str:
    """The option an override sets (``+a.b=1`` -> ``a.b``)."""
    return override.split("=", 1)[0].lstrip("+~")


def is_training_run(path: Path) -> bool:
    """True for a directory with ``checkpoints/``, or one Hydra made for ``train.py`` (even if it saved nothing).

    Other Hydra outputs (``evaluate.py``, ``report.py`` directories) are not runs.
    """
    if (path / "checkpoints").is_dir():
        return True
    hydra_file = path / ".hydra" / "hydra.yaml"
    if not hydra_file.is_file():
        return False
    job = OmegaConf.to_container(OmegaConf.load(hydra_file), resolve=False).get("hydra", {}).get("job", {})
    return job.get("config_name") == "train"


def find_run_dirs(root: Path) -> list[Path]:
    """Directories under ``root`` (itself included) that are training runs, sorted."""
    found = []
    for here, dirs, _ in os.walk(root):
        path = Path(here)
        if is_training_run(path):
            found.append(path)
            dirs.clear()  # a run's own folders hold no further runs
        else:
            dirs[:] = sorted(d for d in dirs if d not in ("tensorboard", ".hydra"))
    return sorted(found)


def _read_config(path: Path) -> dict[str, Any]:
    config_file = path / ".hydra" / "config.yaml"
    if not config_file.is_file():
        return {}
    return OmegaConf.to_container(OmegaConf.load(config_file), resolve=False)


def read_snapshots(run: Run, problems: Problems) -> list[Snapshot]:
    """The run's snapshots in order of frames; ``latest.pt`` alone when it has none.

    A snapshot listed in ``snapshots/index.json`` whose file is gone is reported and left out.
    """
    directory = run.path / "checkpoints" / "snapshots"
    try:
        index = {e["file"]: e for e in read_index(directory)}
    except (ValueError, KeyError, TypeError) as exc:
        problems.add(f"run {run.name}", f"snapshots/index.json is unreadable ({exc}); using the files alone")
        index = {}
    files = {p.name: p for p in list_snapshot_files(directory)}
    for name in sorted(set(index) - set(files)):
        problems.add(f"run {run.name}", f"snapshot {name} is listed in snapshots/index.json but missing; left out")
    snapshots = [Snapshot(path, int(NAME.match(name).group(1))) for name, path in files.items()]
    if not snapshots:
        latest = run.path / "checkpoints" / "latest.pt"
        if latest.is_file():
            problems.add(f"run {run.name}", "no snapshots (trained without snapshots.every_*); "
                                            "its latest.pt is its only point")
            snapshots.append(Snapshot(latest, -1))  # frames read from the file
        else:
            problems.add(f"run {run.name}", f"no checkpoints under {run.path / 'checkpoints'}; left out")
    return sorted(snapshots, key=lambda s: s.frames)


def find_runs(sweep: Path | None, run_dirs: list[Path], problems: Problems) -> list[Run]:
    """The runs of a sweep directory and/or of run directories given one by one, each with its snapshots."""
    paths: list[tuple[Path, Path]] = []  # (run directory, what its name is relative to)
    if sweep is not None:
        if not sweep.is_dir():
            problems.add(f"sweep {sweep}", "is not a directory")
        else:
            found = find_run_dirs(sweep)
            if not found:
                problems.add(f"sweep {sweep}", "holds no training runs (a run directory has checkpoints/, "
                                               "or .hydra/ of a train.py run)")
            paths += [(p, sweep) for p in found]
    for path in run_dirs:
        if not path.is_dir():
            problems.add(f"run {path}", "is not a directory")
        elif not is_training_run(path):
            problems.add(f"run {path}", "is not a training run (no checkpoints/, no .hydra/ of train.py)")
        else:
            paths.append((path, path.parent))
    unique: dict[Path, tuple[Path, Path]] = {}
    for path, base in paths:
        unique.setdefault(path.resolve(), (path, base))
    runs = []
    for path, base in unique.values():
        name = str(path.relative_to(base)) if path != base else path.name
        overrides_file = path / ".hydra" / "overrides.yaml"
        overrides: tuple[str, ...] = ()
        if overrides_file.is_file():
            overrides = tuple(str(o) for o in OmegaConf.load(overrides_file))
        else:
            problems.add(f"run {name}", "has no .hydra/overrides.yaml; grouped as if run with no overrides")
        run = Run(path, name, overrides, _read_config(path))
        run.snapshots = read_snapshots(run, problems)
        if not run.config and run.snapshots:  # no .hydra/config.yaml: the checkpoint holds the config too
            with contextlib.suppress(CheckpointError):  # a bad file is reported when it is evaluated
                run.config = load_checkpoint(run.snapshots[-1].path)["config"]
        if run.snapshots:
            runs.append(run)
    names = Counter(run.name for run in runs)
    for run in runs:  # runs given one by one may share a folder name
        if names[run.name] > 1:
            run.name = str(run.path)
    return runs


def _differences(a: Any, b: Any, prefix: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{prefix}.{k}")]
    return [] if a == b else [f"{prefix}={json.dumps(a)} (others: {json.dumps(b)})"]


def group_runs(runs: list[Run], ignore: list[str], consistent: list[str], problems: Problems) -> list[Group]:
    """Group runs by their overrides minus those matching ``ignore`` (glob patterns on the option name).

    Within a group every run must agree on the ``consistent`` config keys
    (rules, action mode): runs that differ from the group's majority are reported and left out.
    Labels keep only the overrides that tell groups apart.
    """
    by_key: dict[tuple[str, ...], list[Run]] = {}
    for run in runs:
        key = tuple(sorted(o for o in run.overrides
                           if not any(fnmatch.fnmatchcase(override_key(o), p) for p in ignore)))
        by_key.setdefault(key, []).append(run)
    groups = []
    for key, members in sorted(by_key.items()):
        signature = {id(r): json.dumps([r.config.get(k) for k in consistent], sort_keys=True) for r in members}
        majority, _ = Counter(signature[id(r)] for r in members).most_common(1)[0]
        reference = next(r for r in members if signature[id(r)] == majority)
        kept = []
        for run in members:
            if signature[id(run)] == majority:
                kept.append(run)
                continue
            diffs = [d for k in consistent for d in _differences(run.config.get(k), reference.config.get(k), k)]
            problems.add(f"run {run.name}", f"differs from the other runs of its group ({', '.join(diffs)}); "
                                            "left out of the group")
        groups.append(Group(key, kept))
    common = set.intersection(*(set(g.key) for g in groups)) if len(groups) > 1 else set()
    for group in groups:
        distinct = [o for o in group.key if o not in common]
        group.label = ",".join(distinct) if distinct else NO_OVERRIDES
    return groups


def pick_baseline(groups: list[Group], baseline: str | None, problems: Problems) -> Group | None:
    """The group named by ``baseline``, else the first group.

    ``baseline`` is the group's label, or overrides it contains (``model=lstm``;
    on Hydra's command line quoted: ``"baseline='model=lstm'"``), or values of
    the overrides that tell groups apart (``baseline=lstm``), comma-separated.
    """
    if not groups:
        return None
    if not baseline:
        return groups[0]
    wanted = [o.strip() for o in str(baseline).split(",") if o.strip()]

    def named(group: Group) -> bool:
        values = {o.split("=", 1)[-1] for o in group.label.split(",")}
        return all(w in group.key if "=" in w else w in values for w in wanted)

    matches = [g for g in groups if g.label == baseline or named(g)]
    if len(matches) == 1:
        return matches[0]
    labels = ", ".join(repr(g.label) for g in groups)
    reason = "matches no group" if not matches else f"matches {len(matches)} groups"
    problems.add(f"baseline {baseline!r}", f"{reason} (groups: {labels}); no differences computed")
    return None
