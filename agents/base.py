"""The one agent interface used everywhere: bots, trained checkpoints and humans.

An agent is asked to act only when its seat has a decision, and is given that
seat's :class:`~env.view.PlayerView` (never the hidden cards of others). What
it returns depends on the phase:

* bidding (``Phase.DEAL`` / ``Phase.FINAL_BID``): a :class:`~env.bidding.Bid`
  from ``view.bid_options``, or ``None`` to pass;
* ``Phase.KITTY``: the kinds to bury (``view.ruleset.layout.kitty_size`` of them);
* ``Phase.PLAY``: a whole play, a tuple of kinds (the environment applies it
  card by card when needed).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from env.bidding import Bid
from env.game import Phase
from env.view import PlayerView

Decision = Bid | None | tuple[int, ...] | list[int]


class Agent(ABC):
    """Base class of every player. Subclasses implement the three decisions."""

    name: str = "agent"

    def act(self, view: PlayerView) -> Decision:
        """Dispatch on the phase to :meth:`bid`, :meth:`bury` or :meth:`play`."""
        if view.phase in (Phase.DEAL, Phase.FINAL_BID):
            return self.bid(view)
        if view.phase == Phase.KITTY:
            return self.bury(view)
        if view.phase == Phase.PLAY:
            return self.play(view)
        raise ValueError(f"no decision to take in phase {view.phase}")

    @abstractmethod
    def bid(self, view: PlayerView) -> Bid | None:
        """A bid from ``view.bid_options``, or ``None`` to pass."""

    @abstractmethod
    def bury(self, view: PlayerView) -> list[int]:
        """The kitty's number of kinds from ``view.hand`` to bury as the kitty."""

    @abstractmethod
    def play(self, view: PlayerView) -> tuple[int, ...]:
        """A legal lead attempt or follow (a tuple of kinds)."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each hand; stateful agents reseed or clear memory here."""
