"""Make any participant by name: a rule bot (``random``, ``greedy``, ``expert``), a checkpoint path,
a search over either (``search`` = ``search:expert``, ``search:checkpoints/x.pt``), a critic
(``critic:<checkpoint>``), a network burying whole planned burials (``plans:<checkpoint>``), a network
averaged over the plain suits' renamings (``relabel:<network>``) or a split
player (``phases:<player>+<bidder>[+<burier>]``, :mod:`agents.phases`).

Checkpoints are loaded by the function :data:`CHECKPOINT_LOADERS` names for
their file suffix, imported on first use: evaluation, the environment and user
interfaces all name participants the same way without this module importing
torch, and nothing has to register itself (spawned workers included).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from typing import Any

from agents.base import Agent
from agents.bots import BOTS
from agents.phases import PHASES, PhaseSplitAgent, phase_parts

SEARCH = "search"
"""Name of the decision-time search agent; ``search:<prior>`` searches over another prior."""
_SEARCH_DEFAULTS: dict[str, Any] = {}
CRITIC = "critic"
"""``critic:<checkpoint>``: ExpertAgent whose plays the checkpoint may overrule (:mod:`agents.dmc.critic`)."""
PLANS = "plans"
"""``plans:<checkpoint>``: the network alone, burying the better by its ``V(s)`` of its own burial and the expert
planner's whole burial (:class:`agents.dmc.agent.DMCAgent`, ``burial="plans"``)."""

RELABEL = "relabel"
"""``relabel:<network>``: the network (a checkpoint or ``plans:<checkpoint>``) with its ``Q`` averaged over
:data:`RELABELINGS` renamings of the plain suits at the burial and in the play (:mod:`agents.dmc.relabel`)."""
RELABELINGS = 6
"""Suit renamings a ``relabel:`` network averages over: all six that keep a trump suit."""

CheckpointLoader = Callable[[str, int | None], Agent]
CHECKPOINT_LOADERS: dict[str, str] = {".pt": "agents.dmc.agent:load_dmc_agent"}
"""Checkpoint loaders by file suffix, as ``"module:function"``; ``function(path, seed)`` returns the agent."""


def checkpoint_loader(path: str) -> CheckpointLoader | None:
    """The loader of :data:`CHECKPOINT_LOADERS` for ``path``'s suffix (imported now), or ``None``."""
    for suffix, target in CHECKPOINT_LOADERS.items():
        if path.endswith(suffix):
            module, _, function = target.partition(":")
            return getattr(importlib.import_module(module), function)
    return None


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


def critic_network(name: str) -> str | None:
    """The checkpoint of a critic name (``critic:<checkpoint>``), or ``None`` when ``name`` is no critic."""
    return name[len(CRITIC) + 1:] if name.startswith(CRITIC + ":") else None


def plans_network(name: str) -> str | None:
    """The checkpoint of a planned-burial name (``plans:<checkpoint>``), or ``None`` for any other name."""
    return name[len(PLANS) + 1:] if name.startswith(PLANS + ":") else None


def relabel_network(name: str) -> str | None:
    """The network of a renamed-suits name (``relabel:<network>``), or ``None`` for any other name."""
    return name[len(RELABEL) + 1:] if name.startswith(RELABEL + ":") else None


def wrapped_participant(name: str) -> str | None:
    """The participant a wrapper's name is built around (a search's prior, ``search`` = ``expert``; a critic's,
    a planned burial's or a renamed-suits network), or ``None`` for any other name."""
    return search_prior(name) or critic_network(name) or plans_network(name) or relabel_network(name)


def is_checkpoint(name: str) -> bool:
    """True when ``name`` looks like a checkpoint path rather than a bot name (or a wrapper over one)."""
    if name.startswith(PHASES + ":"):
        return False  # two players, each named on its own (checkpoint_paths)
    inner = wrapped_participant(name)
    if inner is not None:
        return is_checkpoint(inner)
    return name not in BOTS and ("/" in name or "." in name)


def checkpoint_paths(name: str) -> list[str]:
    """The existing checkpoint files behind a participant's name: itself, a search's prior, a critic's
    network, both parts of a split player (``phases:``); none for a bot."""
    parts = phase_parts(name)
    if parts is not None:
        return sorted({path for part in parts for path in checkpoint_paths(part)})
    inner = wrapped_participant(name)
    if inner is not None:
        return checkpoint_paths(inner)
    return [name] if is_checkpoint(name) and os.path.isfile(name) else []


def make_agent(name_or_path: str, seed: int | None = None, search: Mapping[str, Any] | None = None) -> Agent:
    """The agent for a bot name, a checkpoint path or a search name, seeded.

    ``search`` holds the search options (:class:`agents.search.SearchConfig`
    fields) for a search name; by default those of :func:`configure_search`.
    Raises ``ValueError`` for an unknown name (listing the choices), for a
    checkpoint whose suffix has no loader and for bad search options.
    """
    network = relabel_network(name_or_path)
    if network is not None:
        from agents.dmc.agent import DMCAgent

        path = plans_network(network) or network
        if not path.endswith(".pt") or wrapped_participant(path) is not None:
            raise ValueError(f"{RELABEL}: needs a network checkpoint (.pt) or {PLANS}:<checkpoint>, "
                             f"got {name_or_path!r}")
        return DMCAgent.from_checkpoint(path, seed, burial="plans" if path != network else "cards",
                                        relabel=RELABELINGS)
    parts = phase_parts(name_or_path)
    if parts is not None:
        return PhaseSplitAgent(*(make_agent(part, seed, search) for part in parts))
    prior = search_prior(name_or_path)
    if prior is not None:
        from agents.search import SearchAgent, SearchConfig

        if not prior or search_prior(prior) is not None:
            raise ValueError(f"a search needs a prior that is a bot or a checkpoint, got {name_or_path!r}")
        config = SearchConfig.from_dict(dict(_SEARCH_DEFAULTS if search is None else search))
        value_network = make_agent(config.value_network, seed) if config.value_network else None
        return SearchAgent(make_agent(prior, seed), config, seed, value_network=value_network)
    network = critic_network(name_or_path)
    if network is not None:
        from agents.dmc.critic import CriticAgent

        agent = make_agent(network, seed) if is_checkpoint(network) else None
        if agent is None or not hasattr(agent, "play_values"):
            raise ValueError(f"a critic needs a checkpoint of the play action mode, got {name_or_path!r}")
        return CriticAgent(BOTS["expert"](seed), agent)
    network = plans_network(name_or_path)
    if network is not None:
        from agents.dmc.agent import DMCAgent

        if not network.endswith(".pt"):
            raise ValueError(f"{PLANS}: needs a network checkpoint (.pt), got {name_or_path!r}")
        return DMCAgent.from_checkpoint(network, seed, burial="plans")
    if name_or_path in BOTS:
        return BOTS[name_or_path](seed)
    loader = checkpoint_loader(name_or_path)
    if loader is not None:
        return loader(name_or_path, seed)
    if is_checkpoint(name_or_path):
        known = ", ".join(sorted(CHECKPOINT_LOADERS)) or "none"
        raise ValueError(f"no checkpoint loader for {name_or_path!r} (known suffixes: {known}; "
                         "see agents.registry.CHECKPOINT_LOADERS)")
    raise ValueError(f"unknown agent {name_or_path!r}: choose one of {', '.join(sorted(BOTS))}, {SEARCH}, "
                     f"{SEARCH}:<bot or checkpoint>, {CRITIC}:<checkpoint>, {PLANS}:<checkpoint>, "
                     f"{RELABEL}:<checkpoint or {PLANS}:checkpoint>, {PHASES}:<player>+<bidder> "
                     "or a checkpoint path (e.g. checkpoints/model.pt)")
