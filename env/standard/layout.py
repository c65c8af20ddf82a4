"""The standard game's deal layout: four players, two decks, 25 cards each and an 8-card kitty."""

from __future__ import annotations

from env.core.layout import DealLayout

LAYOUT = DealLayout(players=4, decks=2, hand_size=25, kitty_size=8)
"""The layout of RULES.md (a test may give the rule set another one)."""
