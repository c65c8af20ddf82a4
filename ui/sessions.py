"""Which session class plays a rule set: a table of rule-set names to lazily imported classes.

The terminal and the web page open every table with :func:`open_session`; the
session class of the table's rule set (:class:`ui.session.GameSession` for the
standard game, :class:`ui.guafeng_session.GuafengSession` for 刮风) knows its
decisions and words. A new rule set's package registers its session here
(:func:`register_session`), as its rules in :mod:`env.core.registry`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from env.core.registry import ruleset_from_config

_SESSIONS: dict[str, str] = {
    "standard": "ui.session:GameSession",
    "guafeng": "ui.guafeng_session:GuafengSession",
}


def register_session(ruleset: str, target: str) -> None:
    """Register the session class (``"module:Class"``, imported on first use) of the rule set ``ruleset``."""
    if ":" not in target:
        raise ValueError(f"a session class is 'module:Class', got {target!r}")
    _SESSIONS[ruleset] = target


def session_class(ruleset: Any) -> type:
    """The session class of a rule set; ``ValueError`` naming the rule sets with one when it has none."""
    target = _SESSIONS.get(ruleset.name)
    if target is None:
        raise ValueError(f"no session plays the {ruleset.name!r} rule set (sessions: {', '.join(sorted(_SESSIONS))}; "
                         "see ui.sessions.register_session)")
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def open_session(seats: Sequence[str], *, rules: Any = None, **kwargs: Any) -> Any:
    """A session of the class the rule set needs (:class:`~ui.session.GameSession`'s keywords)."""
    ruleset = ruleset_from_config(rules)
    return session_class(ruleset)(seats, rules=ruleset, **kwargs)
