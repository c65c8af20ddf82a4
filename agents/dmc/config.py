"""Typed, validated training configuration built from the Hydra config."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any

import torch

from agents.models import ModelConfig
from env.variants import RuleOptions

OPTIMIZERS = ("rmsprop", "adam")


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

    def epsilon(self, frames: int) -> float:
        """Linear exploration schedule over frames."""
        if self.epsilon_decay_frames <= 0:
            return self.epsilon_end
        fraction = min(1.0, frames / self.epsilon_decay_frames)
        return self.epsilon_start + fraction * (self.epsilon_end - self.epsilon_start)


@dataclass(frozen=True)
class RunConfig:
    """Everything a training run needs, validated."""

    seed: int
    device: str
    layout: str
    history_len: int
    reward: str
    start: str
    rules: RuleOptions
    model: ModelConfig
    train: TrainSettings

    def resolve_device(self) -> torch.device:
        """``auto``: CUDA when present, else CPU."""
        if self.device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        device = torch.device(self.device)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device={self.device!r} requested but CUDA is not available")
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
    from env.encoding import slots_of_layout
    from env.rewards import REWARD_SCHEMES

    slots_of_layout(cfg["layout"])
    if cfg["reward"] not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {cfg['reward']!r}")
    if cfg["start"] not in ("first", "random"):
        raise ValueError(f"start must be 'first' or 'random', got {cfg['start']!r}")
    if not isinstance(cfg["history_len"], int) or cfg["history_len"] < 0:
        raise ValueError(f"history_len must be a non-negative int, got {cfg['history_len']!r}")
    return RunConfig(
        seed=int(cfg["seed"]), device=str(cfg["device"]), layout=cfg["layout"], history_len=cfg["history_len"],
        reward=cfg["reward"], start=cfg["start"], rules=RuleOptions.from_dict(cfg.get("rules")),
        model=_build(ModelConfig, cfg["model"], "model"), train=_build(TrainSettings, cfg["train"], "train"))
