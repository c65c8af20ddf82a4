"""Words both rule sets' narrations use (:mod:`ui.narrate`, :mod:`ui.guafeng_words`)."""

from __future__ import annotations

from collections.abc import Callable

SUIT_WORDS = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
Label = Callable[[int], str]


def team_text(seat: int, label: Label) -> str:
    """A team named by its two seats."""
    return f"{label(seat)} & {label((seat + 2) % 4)}"



def decks_text(decks: int) -> str:
    """``"1 deck"``, ``"3 decks"``."""
    return f"{decks} deck{'s' if decks != 1 else ''}"


def layout_text(decks: int, hand_size: int, kitty_size: int) -> str:
    """The deal in words (RULES.md 11): ``"3 decks · 39 cards a hand · kitty of 6"``."""
    return f"{decks_text(decks)} · {hand_size} cards a hand · kitty of {kitty_size}"
