"""One player made of two: the card play of one agent, the bids and the kitty of another.

An ablation participant, ``phases:<player>+<bidder>`` (:func:`agents.registry.make_agent`):
it leads and follows as ``<player>`` and bids, buries, re-bids and pays or returns
tribute as ``<bidder>``. Played against a fixed opponent on duplicate deals beside
``<player>`` alone, it says how many of a network's lost levels its bids and burial
lose and how many its card play does, e.g.

    python evaluate.py participants=[phases:checkpoints/dmc_play_cpu76.pt+expert,expert]

Only the standard game's decisions are split; the table must be one both parts can sit at.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from env.standard.bidding import Bid
from env.standard.view import PlayerView

PHASES = "phases"
"""The name prefix of a split player: ``phases:<player>+<bidder>``."""


def phase_parts(name: str) -> tuple[str, str] | None:
    """``(player, bidder)`` of a split player's name, ``None`` for any other name; a name without exactly
    one ``+`` between two non-empty parts is refused."""
    if not name.startswith(PHASES + ":"):
        return None
    parts = name[len(PHASES) + 1:].split("+")
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"a split player is named {PHASES}:<player>+<bidder> (e.g. "
                         f"{PHASES}:checkpoints/x.pt+expert), got {name!r}")
    return parts[0], parts[1]


class PhaseSplitAgent(Agent):
    """Leads and follows as ``player``; every other decision (bids, the kitty, tribute) as ``bidder``."""

    def __init__(self, player: Agent, bidder: Agent):
        self.player, self.bidder = player, bidder
        self.name = f"{PHASES}:{player.name}+{bidder.name}"

    def reset(self, seed: int | None = None) -> None:
        self.player.reset(seed)
        self.bidder.reset(seed)

    def policy(self, ruleset: Any) -> Any | None:
        """The standard game's decisions through this agent's methods, at a table both parts can play."""
        if not (self.player.can_play(ruleset) and self.bidder.can_play(ruleset)):
            return None
        return super().policy(ruleset)

    def bid(self, view: PlayerView) -> Bid | None:
        return self.bidder.bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        return self.bidder.bury(view)

    def rebid(self, view: PlayerView) -> Bid | None:
        return self.bidder.rebid(view)

    def give_tribute(self, view: PlayerView) -> int:
        return self.bidder.give_tribute(view)

    def return_card(self, view: PlayerView) -> int:
        return self.bidder.return_card(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        return self.player.play(view)
