"""Make any participant by name: a rule bot (``random``, ``greedy``, ``expert``) or a checkpoint path.

Checkpoints are loaded by functions registered per file suffix; training
installs its loader with ``register_loader(".pt", load_fn)``, so evaluation,
the environment and user interfaces all name participants the same way
without this module importing torch. Loaders registered in a parent process
are not seen by spawned workers: list the module that registers them in
``loader_modules`` (see :func:`import_loader_modules`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent

BOTS: dict[str, Callable[[int | None], Agent]] = {
    "random": lambda seed: RandomAgent(seed),
    "greedy": lambda seed: GreedyAgent(seed),
    "expert": lambda seed: ExpertAgent(seed),
}
"""Rule bots by name; each factory takes a seed."""

CheckpointLoader = Callable[[str, int | None], Agent]
_LOADERS: dict[str, CheckpointLoader] = {}


def register_loader(suffix: str, loader: CheckpointLoader) -> None:
    """Install ``loader(path, seed) -> Agent`` for paths ending in ``suffix`` (e.g. ``".pt"``)."""
    if not suffix.startswith("."):
        raise ValueError(f"a checkpoint suffix starts with a dot, got {suffix!r}")
    _LOADERS[suffix] = loader


def import_loader_modules(modules: Iterable[str]) -> None:
    """Import modules whose import registers checkpoint loaders (e.g. in worker processes)."""
    for module in modules:
        importlib.import_module(module)


def is_checkpoint(name: str) -> bool:
    """True when ``name`` looks like a checkpoint path rather than a bot name."""
    return name not in BOTS and ("/" in name or "." in name)


def make_agent(name_or_path: str, seed: int | None = None) -> Agent:
    """The agent for a bot name or a checkpoint path, seeded.

    Raises ``ValueError`` for an unknown name (listing the choices) and for a
    checkpoint whose suffix has no registered loader.
    """
    if name_or_path in BOTS:
        return BOTS[name_or_path](seed)
    if name_or_path.endswith(".pt") and ".pt" not in _LOADERS:
        # The training checkpoints' loader, installed on first use (also in spawned workers).
        register_loader(".pt", importlib.import_module("agents.dmc_agent").load_dmc_agent)
    for suffix, loader in _LOADERS.items():
        if name_or_path.endswith(suffix):
            return loader(name_or_path, seed)
    if is_checkpoint(name_or_path):
        installed = ", ".join(sorted(_LOADERS)) or "none"
        raise ValueError(f"no checkpoint loader installed for {name_or_path!r} (installed suffixes: {installed}); "
                         "training registers one with agents.registry.register_loader")
    raise ValueError(f"unknown agent {name_or_path!r}: choose one of {', '.join(sorted(BOTS))} "
                     "or a checkpoint path (e.g. checkpoints/model.pt)")
