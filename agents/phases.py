"""One player made of two or three: the card play of one agent, the bids and the kitty of others.

An ablation participant, ``phases:<player>+<bidder>`` (:func:`agents.registry.make_agent`):
it leads and follows as ``<player>`` and bids, buries, re-bids and pays or returns
tribute as ``<bidder>``; ``phases:<player>+<bidder>+<burier>`` buries as ``<burier>``
instead. Played against a fixed opponent on duplicate deals beside ``<player>`` alone,
it says how many of a network's lost levels its bids, its burial and its card play
each lose, e.g.

    python evaluate.py participants=[phases:checkpoints/dmc_play_cpu76.pt+expert,expert]
    python evaluate.py participants=[phases:plans:x.pt+plans:x.pt+expert,expert]  # the expert's burial only

Only the standard game's decisions are split; the table must be one all parts can sit at.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from env.standard.bidding import Bid
from env.standard.view import PlayerView

PHASES = "phases"
"""The name prefix of a split player: ``phases:<player>+<bidder>`` or ``phases:<player>+<bidder>+<burier>``."""


def phase_parts(name: str) -> tuple[str, ...] | None:
    """``(player, bidder)`` or ``(player, bidder, burier)`` of a split player's name, ``None`` for any other
    name; a name without two or three non-empty parts joined by ``+`` is refused."""
    if not name.startswith(PHASES + ":"):
        return None
    parts = name[len(PHASES) + 1:].split("+")
    if len(parts) not in (2, 3) or not all(parts):
        raise ValueError(f"a split player is named {PHASES}:<player>+<bidder> or {PHASES}:<player>+<bidder>+<burier> "
                         f"(e.g. {PHASES}:checkpoints/x.pt+expert), got {name!r}")
    return tuple(parts)


class PhaseSplitAgent(Agent):
    """Leads and follows as ``player``; buries as ``burier`` (default: ``bidder``); every other decision
    (bids, re-bids, tribute) as ``bidder``."""

    def __init__(self, player: Agent, bidder: Agent, burier: Agent | None = None):
        self.player, self.bidder = player, bidder
        self.burier = bidder if burier is None else burier
        self.name = f"{PHASES}:{player.name}+{bidder.name}" + ("" if burier is None else f"+{burier.name}")

    def _parts(self) -> list[Agent]:
        return [self.player, self.bidder] + ([] if self.burier is self.bidder else [self.burier])

    def reset(self, seed: int | None = None) -> None:
        for part in self._parts():
            part.reset(seed)

    def policy(self, ruleset: Any) -> Any | None:
        """The standard game's decisions through this agent's methods, at a table all parts can play."""
        if not all(part.can_play(ruleset) for part in self._parts()):
            return None
        return super().policy(ruleset)

    def bid(self, view: PlayerView) -> Bid | None:
        return self.bidder.bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        return self.burier.bury(view)

    def rebid(self, view: PlayerView) -> Bid | None:
        return self.bidder.rebid(view)

    def give_tribute(self, view: PlayerView) -> int:
        return self.bidder.give_tribute(view)

    def return_card(self, view: PlayerView) -> int:
        return self.bidder.return_card(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        return self.player.play(view)
