"""Which policy plays a rule set for an agent: a registry of ``(bot, rule set) -> policy``.

An agent answers a table's decisions through the policy registered for its
name and the table's rule set (:meth:`agents.base.Agent.policy`); ``ANY``
stands for every agent. The standard game's decisions are answered by any
agent's own methods (:class:`agents.base.StandardPolicy`: ``bid``, ``bury``,
``play`` and the RULES.md 9 decisions); 刮风's by the 刮风 rule bots. A policy
is imported on first use, so registering one costs nothing, and a package of
a new rule set registers its bots here the same way (``register_policy``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

ANY = "*"
"""Every agent: a policy that plays a rule set through the agent's own methods."""
PolicyFactory = Callable[[Any], Any]
"""``factory(agent) -> policy``: the policy (with ``act(view)``) an agent plays a rule set with."""

_POLICIES: dict[tuple[str, str], str | PolicyFactory] = {
    (ANY, "standard"): "agents.base:StandardPolicy",
    ("random", "guafeng"): "agents.bots.guafeng.random_policy:for_agent",
    ("greedy", "guafeng"): "agents.bots.guafeng.greedy:for_agent",
    ("expert", "guafeng"): "agents.bots.guafeng.expert:for_agent",
}


def register_policy(bot: str, ruleset: str, factory: str | PolicyFactory) -> None:
    """Register the policy ``bot`` (or :data:`ANY`) plays the rule set ``ruleset`` with: a factory
    ``factory(agent) -> policy`` or its ``"module:function"`` path, imported on first use."""
    if isinstance(factory, str) and ":" not in factory:
        raise ValueError(f"a policy factory is 'module:function', got {factory!r}")
    _POLICIES[(bot, ruleset)] = factory


def unregister_policy(bot: str, ruleset: str) -> None:
    """Forget a registered policy (tests that register their own)."""
    _POLICIES.pop((bot, ruleset), None)


def policy_factory(bot: str, ruleset: str) -> PolicyFactory | None:
    """The factory of ``bot``'s policy for ``ruleset`` (its own, else :data:`ANY`'s), or ``None``."""
    target = _POLICIES.get((bot, ruleset), _POLICIES.get((ANY, ruleset)))
    if isinstance(target, str):
        module, _, function = target.partition(":")
        target = getattr(importlib.import_module(module), function)
    return target


def supported_rulesets(bot: str) -> list[str]:
    """The rule sets ``bot`` has a policy for (its own or :data:`ANY`'s), sorted."""
    return sorted({ruleset for who, ruleset in _POLICIES if who in (bot, ANY)})
