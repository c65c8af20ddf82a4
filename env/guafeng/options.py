"""The 刮风 rule set's options and deal layout (RULES-guafeng.md sections 2 and 9)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from env.core.layout import DealLayout

NAME = "guafeng"
"""The rule set's registered name (:mod:`env.core.registry`)."""
LAYOUT = DealLayout(players=4, decks=2, hand_size=26, kitty_size=4)
"""Two decks, 26 cards each, a 4-card kitty."""


@dataclass(frozen=True)
class GuafengOptions:
    """The options of the 刮风 rule set, validated on construction.

    Attributes:
        match_hands: the hands of a match (>= 1); the team that climbed more
            levels in them wins (equal: a draw).
        stage_limit: a team on stage this many hands in a row steps down after
            the last of them even if it held (连续七轮强制换台); 0 turns it off.
    """

    match_hands: int = 13
    stage_limit: int = 7

    def __post_init__(self) -> None:
        for name, least in (("match_hands", 1), ("stage_limit", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                kind = "a positive int" if least else "a non-negative int (0 turns it off)"
                raise ValueError(f"guafeng option {name} must be {kind}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the options (JSON-serialisable)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> GuafengOptions:
        """Build options from a dict (e.g. a Hydra config), rejecting unknown keys.

        ``decks`` (an option of the standard game, RULES.md 11) is accepted at 2 and refused otherwise:
        刮风 is a two-deck game.
        """
        data = dict(data or {})
        decks = data.pop("decks", LAYOUT.decks)
        if decks != LAYOUT.decks:
            raise ValueError(f"guafeng is played with {LAYOUT.decks} decks: option decks={decks!r} does not apply")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown guafeng option(s) {unknown}; known: {sorted(known)}")
        return cls(**data)
