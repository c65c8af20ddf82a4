"""Typed, validated training configuration built from the Hydra config."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any

import torch

from agents.dmc.models import ModelConfig
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet

OPTIMIZERS = ("rmsprop", "adam")
ACTION_MODES = ("card", "play")
TEACHERS = ("none", "random", "greedy", "expert")
IMITATION_LOSSES = ("softmax", "margin")


@dataclass(frozen=True)
class TrainSettings:
    """The ``train/`` group: system sizes, optimisation and schedules (values: conf/train/*.yaml)."""

    actors: int
    envs_per_actor: int
    batch_size: int
    optimizer: str
    learning_rate: float
    rmsprop_alpha: float
    rmsprop_eps: float
    adam_eps: float
    max_grad_norm: float
    epsilon_start: float
    epsilon_end: float
    epsilon_decay_frames: int
    total_frames: int | None
    total_minutes: float | None
    sync_every: int
    unroll_length: int
    queue_size: int
    save_every_minutes: float
    eval_every_frames: int
    eval_deals: int
    eval_opponents: tuple[str, ...]
    final_eval_deals: int
    final_eval_opponents: tuple[str, ...]
    eval_workers: int
    log_every_seconds: float
    sample_reuse: int = 1
    max_failed_saves: int = 3  # saves failing in a row before training stops (agents.selfplay.checkpoint_files)
    # Rule-bot teacher (``action_mode=play`` only); the defaults switch it off, as in older checkpoints.
    warm_start_frames: int = 0
    teacher: str = "none"
    teacher_share: float = 0.0
    teacher_decay_frames: int = 0
    imitation: str = "softmax"
    imitation_weight: float = 1.0
    imitation_temperature: float = 0.03
    imitation_margin: float = 0.1
    value_weight: float = 1.0
    td_lambda: float = 1.0  # 1: the Monte Carlo return (DouZero's); < 1: TD(lambda) over V (a value head)

    def __post_init__(self) -> None:
        positive = ("actors", "envs_per_actor", "batch_size", "sync_every", "unroll_length", "queue_size")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"train.{name} must be a positive int, got {value!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"train.optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if not self.learning_rate > 0:
            raise ValueError(f"train.learning_rate must be positive, got {self.learning_rate!r}")
        for name in ("epsilon_start", "epsilon_end"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"train.{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.total_frames is None and self.total_minutes is None:
            raise ValueError("set train.total_frames or train.total_minutes (or both): training must stop")
        if not isinstance(self.max_failed_saves, int) or self.max_failed_saves < 1:
            raise ValueError(f"train.max_failed_saves must be an int >= 1, got {self.max_failed_saves!r}")
        if not isinstance(self.sample_reuse, int) or self.sample_reuse < 1:
            raise ValueError(f"train.sample_reuse must be an int >= 1, got {self.sample_reuse!r}")
        for name in ("warm_start_frames", "teacher_decay_frames"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"train.{name} must be a non-negative int, got {value!r}")
        if self.teacher not in TEACHERS:
            raise ValueError(f"train.teacher must be one of {TEACHERS}, got {self.teacher!r}")
        if not 0.0 <= self.teacher_share <= 1.0:
            raise ValueError(f"train.teacher_share must be in [0, 1], got {self.teacher_share!r}")
        if self.imitation not in IMITATION_LOSSES:
            raise ValueError(f"train.imitation must be one of {IMITATION_LOSSES}, got {self.imitation!r}")
        if not self.imitation_temperature > 0:
            raise ValueError(f"train.imitation_temperature must be positive, got {self.imitation_temperature!r}")
        for name in ("imitation_weight", "imitation_margin", "value_weight"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"train.{name} must be >= 0, got {getattr(self, name)!r}")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ValueError(f"train.td_lambda must be in [0, 1], got {self.td_lambda!r}")

    @property
    def uses_teacher(self) -> bool:
        """Whether rule-bot games take part (warm start or teacher-held seats)."""
        return self.teacher != "none" and (self.warm_start_frames > 0 or self.teacher_share > 0)

    def teacher_share_at(self, frames: int) -> float:
        """Share of tables where the teacher holds seats: all four during the warm start, then one
        team on ``teacher_share`` of the tables, decaying linearly to none over ``teacher_decay_frames``
        (no decay when it is 0); 0 with ``teacher=none``."""
        if not self.uses_teacher:
            return 0.0
        if frames < self.warm_start_frames:
            return 1.0
        if self.teacher_decay_frames <= 0:
            return self.teacher_share
        fraction = (frames - self.warm_start_frames) / self.teacher_decay_frames
        return self.teacher_share * max(0.0, 1.0 - fraction)

    def epsilon(self, frames: int) -> float:
        """Linear exploration schedule over frames."""
        if self.epsilon_decay_frames <= 0:
            return self.epsilon_end
        fraction = min(1.0, frames / self.epsilon_decay_frames)
        return self.epsilon_start + fraction * (self.epsilon_end - self.epsilon_start)


@dataclass(frozen=True)
class RunConfig:
    """Everything a training run needs, validated.

    ``rules`` is the rule set the run plays (the standard game with its options, or 刮风), built from
    the ``rules/`` group by :func:`env.core.registry.ruleset_from_config` (``ruleset: guafeng`` names 刮风).
    """

    seed: int
    device: str
    layout: str
    history_len: int
    reward: str
    start: str
    rules: RuleSet
    model: ModelConfig
    train: TrainSettings
    action_mode: str = "card"

    def resolve_device(self) -> torch.device:
        """``auto``: CUDA when present, else CPU (:func:`resolve_device`)."""
        return resolve_device(self.device)


def resolve_device(name: str, option: str = "device") -> torch.device:
    """The torch device of a ``device`` setting: ``auto`` is CUDA when present, else the CPU; a CUDA
    device on a machine without one, or a name torch does not know, is refused with ``option`` named."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise ValueError(f"{option}={name!r} is not a device (auto, cpu, cuda or cuda:N)")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{option}={name!r} requested but CUDA is not available")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise ValueError(f"{option}={name!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return device


def _build(cls, data: dict[str, Any], group: str):
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown option(s) in {group}/: {unknown}; known: {sorted(known)}")
    missing = sorted(f.name for f in fields(cls) if f.init and f.name not in data
                     and f.default is MISSING and f.default_factory is MISSING)
    if missing:
        raise ValueError(f"missing option(s) in {group}/: {missing}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**values)


def run_config(cfg: dict[str, Any]) -> RunConfig:
    """Validate a plain-dict Hydra config into a :class:`RunConfig`."""
    from env.core.rewards import REWARD_SCHEMES
    from env.core.slots import check_layout

    check_layout(cfg["layout"])
    if cfg["reward"] not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {cfg['reward']!r}")
    if cfg["start"] not in ("first", "random"):
        raise ValueError(f"start must be 'first' or 'random', got {cfg['start']!r}")
    if not isinstance(cfg["history_len"], int) or cfg["history_len"] < 0:
        raise ValueError(f"history_len must be a non-negative int, got {cfg['history_len']!r}")
    action_mode = cfg.get("action_mode", "card")  # checkpoints from before whole plays are card mode
    if action_mode not in ACTION_MODES:
        raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {action_mode!r}")
    train = _build(TrainSettings, cfg["train"], "train")
    if train.uses_teacher and action_mode != "play":
        raise ValueError("the rule-bot teacher (warm start, teacher-held seats) needs action_mode=play; "
                         "for the card mode add train.teacher=none")
    model = _build(ModelConfig, cfg["model"], "model")
    if train.td_lambda < 1.0 and (action_mode != "play" or not model.value_head):
        raise ValueError(f"train.td_lambda={train.td_lambda} bootstraps from V(s): it needs action_mode=play and "
                         f"model.value_head=true (got action_mode={action_mode}, "
                         f"model.value_head={model.value_head}); train.td_lambda=1 is the Monte Carlo return")
    return RunConfig(
        seed=int(cfg["seed"]), device=str(cfg["device"]), layout=cfg["layout"], history_len=cfg["history_len"],
        reward=cfg["reward"], start=cfg["start"], rules=ruleset_from_config(dict(cfg.get("rules") or {})),
        model=model, train=train, action_mode=action_mode)
