"""Words both rule sets' narrations use (:mod:`ui.narrate`, :mod:`ui.guafeng_words`)."""

from __future__ import annotations

from collections.abc import Callable

SUIT_WORDS = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
Label = Callable[[int], str]


def team_text(seat: int, label: Label) -> str:
    """A team named by its two seats."""
    return f"{label(seat)} & {label((seat + 2) % 4)}"
