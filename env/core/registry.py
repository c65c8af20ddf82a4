"""Rule sets by name, imported on first use: the core never imports a rule set.

A rule set is registered as ``"module:Class"`` (:func:`register_ruleset`); the
built-in ones are in :data:`BUILTIN`. :func:`make_ruleset` imports the module
only when the name is first asked for, so the core, the environment and the
tools above it know every rule set by name without depending on any (as
OpenSpiel's ``pyspiel.load_game``). A test or a plug-in package registers its
own rule set the same way.
"""

from __future__ import annotations

import importlib
from typing import Any

from env.core.layout import DealLayout
from env.core.ruleset import RuleSet

DEFAULT = "standard"
"""The rule set of a configuration that names none."""
BUILTIN: dict[str, str] = {
    "standard": "env.standard.ruleset:StandardRules",
    "guafeng": "env.guafeng.ruleset:GuafengRules",
}
_REGISTERED: dict[str, str] = dict(BUILTIN)
_CLASSES: dict[str, type[RuleSet]] = {}


def register_ruleset(name: str, target: str | type[RuleSet]) -> None:
    """Register a rule set class (or its ``"module:Class"`` path, imported on first use) under ``name``."""
    if not name or not isinstance(name, str):
        raise ValueError(f"a rule set's name must be a non-empty string, got {name!r}")
    if isinstance(target, type):
        if not issubclass(target, RuleSet):
            raise ValueError(f"{target.__name__} is not a RuleSet")
        _CLASSES[name] = target
        _REGISTERED[name] = f"{target.__module__}:{target.__qualname__}"
        return
    if ":" not in target:
        raise ValueError(f"a rule set target is 'module:Class', got {target!r}")
    _REGISTERED[name] = target
    _CLASSES.pop(name, None)


def unregister_ruleset(name: str) -> None:
    """Forget a registered rule set (tests that register their own); the built-in ones stay."""
    if name in BUILTIN:
        raise ValueError(f"the built-in rule set {name!r} cannot be unregistered")
    _REGISTERED.pop(name, None)
    _CLASSES.pop(name, None)


def ruleset_names() -> list[str]:
    """The registered rule sets' names, sorted."""
    return sorted(_REGISTERED)


def ruleset_class(name: str) -> type[RuleSet]:
    """The class of the rule set called ``name`` (its module is imported now); ``ValueError`` when unknown."""
    if name not in _REGISTERED:
        raise ValueError(f"unknown ruleset {name!r}; known rule sets: {', '.join(ruleset_names())}")
    if name not in _CLASSES:
        module, _, cls = _REGISTERED[name].partition(":")
        _CLASSES[name] = getattr(importlib.import_module(module), cls)
    return _CLASSES[name]


def make_ruleset(name: str = DEFAULT, options: Any = None, layout: DealLayout | dict | None = None) -> RuleSet:
    """The rule set called ``name``, built from its options (a dict or its options object) and layout.

    ``layout=None`` is the rule set's own. Raises ``ValueError`` listing the
    known names when ``name`` is unknown.
    """
    cls = ruleset_class(name)
    if isinstance(layout, dict):
        layout = DealLayout(**layout)
    return cls(options, layout)


def default_ruleset() -> RuleSet:
    """The default rule set with its default options."""
    return make_ruleset(DEFAULT)


def ruleset_from_config(rules: RuleSet | dict | str | None) -> RuleSet:
    """The rule set of a config: a rule set, a rule set's name, ``None`` (the default), an options
    object of a rule set (its ``from_options``), or a dict of options whose ``ruleset`` key names the
    rule set (``{"ruleset": "guafeng", "match_hands": 13}``, as ``conf/rules/guafeng.yaml``; no key:
    the default rule set)."""
    if isinstance(rules, RuleSet):
        return rules
    if rules is None:
        return default_ruleset()
    if isinstance(rules, str):
        return make_ruleset(rules)
    if isinstance(rules, dict):
        options = dict(rules)
        name = options.pop("ruleset", DEFAULT)
        return make_ruleset(name, options)
    for name in _REGISTERED:  # an options object: the rule set whose options class it is
        cls = ruleset_class(name)
        if isinstance(rules, getattr(cls, "options_class", ())):
            return cls(rules)
    raise ValueError(f"expected a RuleSet, a rule set's name, its options or a dict of them, "
                     f"got {type(rules).__name__}")
