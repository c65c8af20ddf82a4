"""Make any participant by name: a rule bot (``random``, ``greedy``, ``expert``), a checkpoint path,
or a search over either (``search`` = ``search:expert``, ``search:checkpoints/x.pt``).

Checkpoints are loaded by functions registered per file suffix; training
installs its loader with ``register_loader(".pt", load_fn)``, so evaluation,
the environment and user interfaces all name participants the same way
without this module importing torch. Loaders registered in a parent process
are not seen by spawned workers: list the module that registers them in
``loader_modules`` (see :func:`import_loader_modules`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

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

SEARCH = "search"
"""Name of the decision-time search agent; ``search:<prior>`` searches over another prior."""
_SEARCH_DEFAULTS: dict[str, Any] = {}

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


def configure_search(options: Mapping[str, Any] | None) -> None:
    """Set the search options (``conf/search``) used when ``make_agent`` is not given any."""
    from agents.search import SearchConfig

    SearchConfig.from_dict(dict(options or {}))  # refuse bad options now, not at the first decision
    _SEARCH_DEFAULTS.clear()
    _SEARCH_DEFAULTS.update(options or {})


def search_prior(name: str) -> str | None:
    """The prior of a search name (``search`` -> ``expert``), or ``None`` when ``name`` is no search."""
    if name == SEARCH:
        return "expert"
    if name.startswith(SEARCH + ":"):
        return name[len(SEARCH) + 1:]
    return None


def is_checkpoint(name: str) -> bool:
    """True when ``name`` looks like a checkpoint path rather than a bot name (or a search over one)."""
    prior = search_prior(name)
    if prior is not None:
        return is_checkpoint(prior)
    return name not in BOTS and ("/" in name or "." in name)


def make_agent(name_or_path: str, seed: int | None = None, search: Mapping[str, Any] | None = None) -> Agent:
    """The agent for a bot name, a checkpoint path or a search name, seeded.

    ``search`` holds the search options (:class:`agents.search.SearchConfig`
    fields) for a search name; by default those of :func:`configure_search`.
    Raises ``ValueError`` for an unknown name (listing the choices), for a
    checkpoint whose suffix has no registered loader and for bad search options.
    """
    prior = search_prior(name_or_path)
    if prior is not None:
        from agents.search import SearchAgent, SearchConfig

        if not prior or search_prior(prior) is not None:
            raise ValueError(f"a search needs a prior that is a bot or a checkpoint, got {name_or_path!r}")
        config = SearchConfig.from_dict(dict(_SEARCH_DEFAULTS if search is None else search))
        return SearchAgent(make_agent(prior, seed), config, seed)
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
    raise ValueError(f"unknown agent {name_or_path!r}: choose one of {', '.join(sorted(BOTS))}, {SEARCH}, "
                     f"{SEARCH}:<bot or checkpoint> or a checkpoint path (e.g. checkpoints/model.pt)")
