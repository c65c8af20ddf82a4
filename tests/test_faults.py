"""Fault injection on real runs: what a signal, a dead process or a bad disk costs a long job.

Each test starts the real script (``train.py`` at smoke size, ``evaluate.py``) as
a subprocess, does to it what machines and clusters do (SIGTERM, SIGINT,
SIGKILL of the learner or of one actor, a disk that is full, a truncated
checkpoint) with real signals and real files, and asserts what was lost: the
frames in the checkpoint against those the learner had counted, the processes
left behind, whether the run goes on or resumes. The processes are read from
``/proc``, so these tests need Linux (CI's runner); the full disk is
``/dev/full``, which answers every write with ENOSPC.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents.dmc.learner import make_optimizer
from agents.interrupts import StopSignal, exit_status, sigint_deferred, stop_signals_raise, stop_words
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, new_model, save_checkpoint
from agents.selfplay.checkpoint_files import CheckpointFiles, SavesFailingError, first_loadable, resume_candidates
from agents.selfplay.config import run_config

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes from /proc (Linux)")

# A smoke-size run that goes on until it is stopped; no periodic save unless a test asks for one.
ENDLESS = ("train=smoke", "train.total_frames=1000000000", "train.total_minutes=60", "train.final_eval_deals=0",
           "train.save_every_minutes=60", "snapshots.every_minutes=null")
FRAMES = re.compile(rb"\| *(\d+)/1000000000")
PARENT_GONE_LIMIT_S = 5.0  # what the issue allows a worker to outlive its parent


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C at its default action, as in a terminal (a background suite ignores it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Job:
    """A script running in a process group of its own, its output (stdout and stderr) gathered as it comes."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen([sys.executable, *args], cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_sigint)
        self.output = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while chunk := os.read(self.process.stdout.fileno(), 4096):
            self.output.extend(chunk)

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")

    def frames(self) -> int:
        """The frames the learner's progress bar showed last."""
        found = FRAMES.findall(bytes(self.output))
        return int(found[-1]) if found else 0

    def wait_until(self, condition, what: str, limit_s: float = 300) -> None:
        """Poll ``condition`` while the job runs (the limit guards a hung job; it is no measurement)."""
        deadline = time.monotonic() + limit_s
        while not condition():
            assert self.process.poll() is None, f"ended before {what}:\n{self.text[-3000:]}"
            assert time.monotonic() < deadline, f"never {what}:\n{self.text[-3000:]}"
            time.sleep(0.1)

    def finish(self, limit_s: float = 120) -> int:
        """Wait for the exit status."""
        status = self.process.wait(timeout=limit_s)
        self.reader.join(timeout=30)
        return status

    def kill_all(self, pids: list[int] = ()) -> None:
        """Clean-up: SIGKILL the group and any process of ``pids`` still alive."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def train(run_dir: Path, *overrides: str) -> Job:
    return Job("train.py", *ENDLESS, f"hydra.run.dir={run_dir}", *overrides)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def actors_of(pid: int) -> list[int]:
    """The learner's actor processes (its spawned children other than multiprocessing's resource tracker)."""
    def is_actor(child: int) -> bool:
        try:
            command = (Path("/proc") / str(child) / "cmdline").read_bytes()
        except OSError:
            return False
        return b"spawn_main" in command
    return [child for child in descendants(pid) if alive(child) and is_actor(child)]


def seconds_until_gone(pids: list[int], limit_s: float = 30) -> float:
    """Seconds until every process of ``pids`` is gone (``inf`` past ``limit_s``)."""
    start = time.monotonic()
    while any(alive(p) for p in pids):
        if time.monotonic() - start > limit_s:
            return float("inf")
        time.sleep(0.05)
    return time.monotonic() - start


def counters(path: Path) -> dict[str, float]:
    return load_checkpoint(path)["counters"]


@pytest.mark.parametrize("stop", ["SIGTERM to the learner", "SIGINT to the group"])
def test_a_stop_signal_saves_at_the_signal_and_the_printed_resume_continues(tmp_path, stop):
    """SIGTERM (``kill``, SLURM, Kubernetes) to the learner alone, or Ctrl-C to the whole group: the learner
    stops the actors and saves what it counted. Lost: only the frames the actors played but had not sent."""
    out = tmp_path / "stopped"
    job = train(out)
    pids: list[int] = []
    try:
        job.wait_until(lambda: job.frames() >= 200 and actors_of(job.process.pid), "training")  # a few steps
        pids = descendants(job.process.pid)
        counted = job.frames()
        if stop.startswith("SIGTERM"):
            os.kill(job.process.pid, signal.SIGTERM)
        else:
            os.killpg(job.process.pid, signal.SIGINT)
        status = job.finish()
    finally:
        job.kill_all(pids)
    assert status == 0, job.text[-3000:]
    assert ("stopped by SIGTERM: saving a checkpoint" if stop.startswith("SIGTERM")
            else "interrupted: saving a checkpoint") in job.text
    assert "Traceback" not in job.text, job.text[-3000:]
    assert seconds_until_gone(pids) < PARENT_GONE_LIMIT_S, [p for p in pids if alive(p)]
    latest = out / "checkpoints" / "latest.pt"
    first = counters(latest)
    assert first["frames"] >= counted > 0  # the checkpoint holds every frame counted before the signal
    assert first["learner_steps"] > 0
    if stop.startswith("SIGINT"):
        return  # resuming after Ctrl-C: tests/test_train.py

    # the printed command resumes it; its counters go on from the checkpoint's
    printed = re.search(r"^to resume: (.+)$", job.text, re.MULTILINE)
    assert printed, job.text[-3000:]
    command = shlex.split(printed.group(1))
    assert command[:2] == ["python", "train.py"] and f"resume_from={latest}" in command
    args = [a for a in command[2:] if not a.startswith(("train.total_frames=", "train.save_every_minutes="))]
    resumed = subprocess.run([sys.executable, "train.py", *args, f"train.total_frames={int(first['frames']) + 300}",
                              f"hydra.run.dir={tmp_path / 'resumed'}"], cwd=ROOT, capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resumed from {latest} at {int(first['frames'])} frames" in resumed.stdout
    second = counters(tmp_path / "resumed" / "checkpoints" / "latest.pt")
    assert second["frames"] >= first["frames"] + 300
    assert second["learner_steps"] > first["learner_steps"]
    assert second["episodes"] > first["episodes"]
    assert second["resumes"] == first["resumes"] + 1


def test_a_killed_actor_is_replaced_and_a_killed_learner_leaves_no_process_behind(tmp_path):
    """SIGKILL of an actor: a new one takes its place and frames keep coming. SIGKILL of the learner (the OOM
    killer, ``kill -9``): its actors and helpers are gone within 5 s; lost: the frames since the last save."""
    out = tmp_path / "killed"
    job = train(out, "train.save_every_minutes=0.02")
    pids: list[int] = []
    try:
        job.wait_until(lambda: job.frames() > 0 and actors_of(job.process.pid), "training")
        (actor,) = actors_of(job.process.pid)
        os.kill(actor, signal.SIGKILL)
        job.wait_until(lambda: any(a != actor for a in actors_of(job.process.pid)), "a new actor")
        (replacement,) = actors_of(job.process.pid)
        after_kill = job.frames()
        job.wait_until(lambda: job.frames() > after_kill, "frames from the new actor")
        latest = out / "checkpoints" / "latest.pt"
        job.wait_until(latest.is_file, "a checkpoint")
        pids = descendants(job.process.pid)
        assert replacement in pids
        counted = job.frames()
        os.kill(job.process.pid, signal.SIGKILL)
        job.finish()
        gone_after = seconds_until_gone(pids)
    finally:
        job.kill_all(pids)
    assert gone_after < PARENT_GONE_LIMIT_S, [p for p in pids if alive(p)]
    saved = counters(latest)  # whole, never torn: written to a temporary file and renamed
    assert 0 < saved["frames"] <= counted + 10_000  # the learner may have counted a batch more than it showed


def command_line(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed (the distributed extra)")
def test_ray_actors_die_with_a_killed_driver(tmp_path):
    """``actors.backend=ray`` on a Ray that train.py started: SIGKILL of the driver takes its self-play actors
    along within 5 s (they are not detached). Ray's own dashboard and runtime-env agents notice later (about a
    minute, benchmarks/RESULTS.md); this test kills whatever is left once it has measured."""
    job = train(tmp_path, "actors.backend=ray", "actors.num_cpus=2")
    pids: list[int] = []
    try:
        def actors() -> list[int]:
            return [p for p in descendants(job.process.pid) if b"SelfPlayActor" in command_line(p) and alive(p)]
        job.wait_until(lambda: job.frames() > 0 and actors(), "training on Ray")
        ray_actors = actors()
        pids = descendants(job.process.pid)
        os.kill(job.process.pid, signal.SIGKILL)
        job.finish()
        gone_after = seconds_until_gone(ray_actors)
    finally:
        job.kill_all(pids)
    assert gone_after < PARENT_GONE_LIMIT_S


def test_a_full_disk_keeps_the_earlier_checkpoint_and_the_run_goes_on_until_saves_keep_failing(tmp_path):
    """A save into a full disk (the temporary file is a link to /dev/full: ENOSPC from the kernel) fails and
    says so; latest.pt stays the earlier save and training goes on. Once the disk writes again, the next save
    works. With saves failing ``max_failed_saves`` times in a row, the run stops cleanly with status 1."""
    out = tmp_path / "full"
    checkpoints = out / "checkpoints"
    latest, temporary = checkpoints / "latest.pt", checkpoints / "latest.pt.tmp"
    job = train(out, "train.save_every_minutes=0.02", "train.max_failed_saves=2")
    pids: list[int] = []

    def make(fault) -> bool:
        try:  # the learner may be writing the temporary file right now: try again on the next poll
            fault()
            return True
        except FileExistsError:
            return False

    try:
        job.wait_until(latest.is_file, "a first checkpoint")
        job.wait_until(lambda: make(lambda: temporary.symlink_to("/dev/full")), "the full disk in place")
        job.wait_until(lambda: "checkpoint save failed (No space left on device" in job.text, "a failed save")
        failed_at = job.text.index("checkpoint save failed")
        kept = re.compile(rf"kept {re.escape(str(latest))} from (\d+) frames").search(job.text, failed_at)
        assert kept, job.text[-3000:]
        assert not temporary.is_symlink()  # the failed save removed its partial file (here: the link)
        # the disk works again (the link is gone): a later save goes through and training went on
        job.wait_until(lambda: counters_or_none(latest) > int(kept.group(1)), "a save after the failure")
        assert load_checkpoint(checkpoints / "previous.pt")["counters"]["frames"] <= counters_or_none(latest)

        pids = descendants(job.process.pid)
        job.wait_until(lambda: make(temporary.mkdir), "a save that cannot work")  # EISDIR until it is removed
        status = job.finish()
    finally:
        job.kill_all(pids)
    assert status == 1, job.text[-3000:]
    assert "2 checkpoint saves in a row failed" in job.text
    assert "the final checkpoint could not be written: kept" in job.text
    assert "to resume:" in job.text and "Traceback" not in job.text, job.text[-3000:]
    assert seconds_until_gone(pids) < PARENT_GONE_LIMIT_S
    assert counters(latest)["frames"] > int(kept.group(1))  # the last good save is intact


def counters_or_none(path: Path) -> int:
    """Frames of the checkpoint at ``path``, -1 while there is none (it is replaced by rename, so never torn)."""
    try:
        return int(counters(path)["frames"])
    except CheckpointError:
        return -1


def smoke_config(*overrides: str) -> dict:
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["train=smoke", *overrides])
    return OmegaConf.to_container(cfg, resolve=True)


def two_saves(folder: Path, frames: tuple[int, int] = (1000, 2000)) -> CheckpointFiles:
    """``latest.pt`` and ``previous.pt`` of a smoke run, as train.py writes them."""
    config = smoke_config()
    run = run_config(config)
    model = new_model(run)
    files = CheckpointFiles(folder, max_failed_saves=3)
    for n in frames:
        assert files.save(model=model, optimizer=make_optimizer(model, run.train), config=config,
                          counters={"frames": n, "episodes": n // 50, "learner_steps": n // 100, "samples": n,
                                    "train_seconds": n / 100, "resumes": 0})
    return files


def test_a_truncated_latest_checkpoint_resumes_from_the_previous_one(tmp_path):
    """A truncated latest.pt (a copy cut short, a disk that lost its end): resume names it, says why, and
    continues from previous.pt. Lost: one save period."""
    files = two_saves(tmp_path / "run" / "checkpoints")
    data = files.latest.read_bytes()
    files.latest.write_bytes(data[: len(data) // 2])
    result = subprocess.run([sys.executable, "train.py", "train=smoke", "train.final_eval_deals=0",
                             "train.total_frames=1200", "snapshots.every_minutes=null", "resume=true",
                             f"resume_from={files.latest}", f"hydra.run.dir={tmp_path / 'resumed'}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"resume: skipped {files.latest}: checkpoint {files.latest} is truncated" in result.stdout
    assert f"resumed from {files.previous} at 1000 frames" in result.stdout
    resumed = counters(tmp_path / "resumed" / "checkpoints" / "latest.pt")
    assert resumed["frames"] >= 1200 and resumed["resumes"] == 1


def test_resume_takes_the_newest_checkpoint_that_loads_and_names_each_it_skipped(tmp_path):
    files = two_saves(tmp_path / "a" / "checkpoints")
    assert counters(files.latest)["frames"] == 2000 and counters(files.previous)["frames"] == 1000
    files.latest.write_bytes(b"not a checkpoint at all")
    torch.save({"format": "something else"}, files.previous)
    older = two_saves(tmp_path / "b" / "checkpoints", frames=(300, 400))
    old_time = time.time() - 3600
    os.utime(older.latest, (old_time, old_time))
    os.utime(older.previous, (old_time - 60, old_time - 60))
    candidates = resume_candidates(None, tmp_path)
    assert candidates[:2] == [files.previous, files.latest] or candidates[:2] == [files.latest, files.previous]
    path, state, skipped = first_loadable(candidates)
    assert path == older.latest and state["counters"]["frames"] == 400
    reasons = dict(skipped)
    assert "truncated, corrupt or not a torch file" in reasons[files.latest]
    assert "is not a ShengjiZero DMC checkpoint" in reasons[files.previous]
    older.latest.write_bytes(b"")
    older.previous.write_bytes(b"")
    with pytest.raises(CheckpointError, match="no checkpoint to resume from loads"):
        first_loadable(resume_candidates(None, tmp_path))


def test_a_save_the_disk_refuses_leaves_both_files_and_the_count_stops_the_run(tmp_path, capsys):
    files = two_saves(tmp_path / "checkpoints")
    before = (files.latest.read_bytes(), files.previous.read_bytes())
    (tmp_path / "checkpoints" / "latest.pt.tmp").mkdir()  # the temporary file cannot be written: EISDIR
    config = smoke_config()
    model = new_model(run_config(config))
    state = {"model": model, "optimizer": None, "config": config,
             "counters": {"frames": 3000, "episodes": 1, "learner_steps": 1, "samples": 1, "train_seconds": 1.0,
                          "resumes": 0}}
    assert files.save(**state) is False and files.save(**state) is False
    assert "kept" in capsys.readouterr().out
    with pytest.raises(SavesFailingError, match="3 checkpoint saves in a row failed"):
        files.save(**state)
    assert (files.latest.read_bytes(), files.previous.read_bytes()) == before
    (tmp_path / "checkpoints" / "latest.pt.tmp").rmdir()
    assert files.save(**state) and files.failures == 0  # a save that works resets the count
    assert counters(files.latest)["frames"] == 3000 and counters(files.previous)["frames"] == 2000


def test_save_checkpoint_without_previous_replaces_in_place(tmp_path):
    config = smoke_config()
    model = new_model(run_config(config))
    path = tmp_path / "model.pt"
    for frames in (1, 2):
        save_checkpoint(path, model=model, optimizer=None, config=config, counters={"frames": frames})
    assert counters(path)["frames"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


@pytest.mark.parametrize("fault", ["SIGKILL", "SIGTERM"])
def test_evaluation_workers_stop_with_their_parent(tmp_path, fault):
    """evaluate.py with worker processes: SIGTERM stops it with status 143 and no results; SIGKILL of the
    parent leaves no worker behind for more than 5 s."""
    out = tmp_path / "run"
    job = Job("evaluate.py", "participants=[greedy,random]", "num_deals=300", "workers=2", "progress=true",
              f"hydra.run.dir={out}", f"deals_file={tmp_path / 'deals.json'}")
    pids: list[int] = []
    try:
        job.wait_until(lambda: re.search(rb"\| *[1-9]\d*/300", bytes(job.output)), "a first deal")
        pids = descendants(job.process.pid)
        assert len([p for p in pids if alive(p)]) >= 2
        os.kill(job.process.pid, getattr(signal, fault))
        status = job.finish()
        gone_after = seconds_until_gone(pids)
    finally:
        job.kill_all(pids)
    assert gone_after < PARENT_GONE_LIMIT_S, [p for p in pids if alive(p)]
    if fault == "SIGTERM":
        assert status == 128 + signal.SIGTERM, job.text[-3000:]
        assert "stopped by SIGTERM: no results written" in job.text
        assert "Traceback" not in job.text
        assert not (out / "results.json").exists()


def test_sigterm_and_sighup_raise_a_stop_signal_that_a_deferred_block_holds_until_it_is_whole():
    steps, before = [], signal.getsignal(signal.SIGTERM)
    with pytest.raises(StopSignal) as caught, stop_signals_raise(), sigint_deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        steps.append("after the signal")  # the block runs to its end first
    assert steps == ["after the signal"]
    assert caught.value.signum == signal.SIGTERM and exit_status(caught.value) == 143
    assert stop_words(caught.value) == "stopped by SIGTERM" and stop_words(KeyboardInterrupt()) == "interrupted"
    assert signal.getsignal(signal.SIGTERM) == before  # the handlers are back
    inherited = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # a terminal's SIGHUP (the suite may run under nohup)
    try:
        with pytest.raises(StopSignal) as caught, stop_signals_raise():
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(5)  # the handler raises here, well before the end
    finally:
        signal.signal(signal.SIGHUP, inherited)
    assert caught.value.signum == signal.SIGHUP and exit_status(caught.value) == 129
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup: it stays ignored
    try:
        with stop_signals_raise(), sigint_deferred():
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.2)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
