"""The one agent interface used everywhere: bots, trained checkpoints and humans.

An agent is asked to act only when its seat has a decision, and is given that
seat's :class:`~env.standard.view.PlayerView` (never the hidden cards of others). What
it returns depends on the phase:

* bidding (``Phase.DEAL`` / ``Phase.FINAL_BID``): a :class:`~env.standard.bidding.Bid`
  from ``view.bid_options``, or ``None`` to pass;
* ``Phase.KITTY``: the kinds to bury (``view.ruleset.layout.kitty_size`` of them);
* ``Phase.PLAY``: a whole play, a tuple of kinds (the environment applies it
  card by card when needed);
* the decisions of RULES.md 9 (options ``chaodipi`` and ``tribute``):
  ``Phase.REBID``, a 炒地皮 bid from ``view.bid_options`` or ``None``
  (:meth:`Agent.rebid`, by default the agent's :meth:`Agent.bid`);
  ``Phase.TRIBUTE``, the kind to give from ``view.tribute_options``
  (:meth:`Agent.give_tribute`); ``Phase.TRIBUTE_RETURN``, the kind to return
  from ``view.tribute_options`` (:meth:`Agent.return_card`). A 炒地皮 bidder's
  burial is ``Phase.KITTY`` as the dealer's.

A 刮风 hand (``view.ruleset.name == "guafeng"``, a :class:`~env.guafeng.view.GuafengView`)
asks other questions: an agent answers them through its :attr:`Agent.guafeng` policy
(:class:`agents.bots.guafeng.base.GuafengPolicy`: fix or pass, 回牌, burial, play),
and refuses the table when it has none.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from env.core.suits import TRUMP
from env.standard.bidding import Bid
from env.standard.hand import Phase
from env.standard.view import PlayerView

Decision = Bid | None | tuple[int, ...] | list[int] | int
GUAFENG = "guafeng"
"""The name of the 刮风 rule set (``RuleSet.name``)."""


class Agent(ABC):
    """Base class of every player. Subclasses implement the three decisions."""

    name: str = "agent"
    guafeng: Any = None
    """The policy taking this agent's decisions in 刮风 hands (a ``GuafengPolicy``); ``None``: no 刮风."""

    def act(self, view: PlayerView) -> Decision:
        """Dispatch on the phase to :meth:`bid`, :meth:`bury`, :meth:`play`, or a RULES.md 9 decision;
        a 刮风 view goes to :attr:`guafeng`."""
        if view.ruleset.name == GUAFENG:
            if self.guafeng is None:
                raise ValueError(f"agent {self.name!r} does not play the {GUAFENG} rule set")
            return self.guafeng.act(view)
        if view.phase.is_bidding:
            return self.bid(view)
        if view.phase == Phase.KITTY:
            return self.bury(view)
        if view.phase == Phase.PLAY:
            return self.play(view)
        if view.phase == Phase.REBID:
            return self.rebid(view)
        if view.phase == Phase.TRIBUTE:
            return self.give_tribute(view)
        if view.phase == Phase.TRIBUTE_RETURN:
            return self.return_card(view)
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

    def rebid(self, view: PlayerView) -> Bid | None:
        """A 炒地皮 bid from ``view.bid_options``, or ``None`` to pass; by default as in the deal."""
        return self.bid(view)

    def give_tribute(self, view: PlayerView) -> int:
        """The tribute card among ``view.tribute_options`` (all of equal place): by default the least valued."""
        return least_valued(view, view.tribute_options)

    def return_card(self, view: PlayerView) -> int:
        """The card returned to ``view.return_to`` among ``view.tribute_options``: by default the least valued."""
        return least_valued(view, view.tribute_options)

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each hand; stateful agents reseed or clear memory here."""


def least_valued(view: PlayerView, kinds) -> int:
    """The kind of ``kinds`` worth least in the hand's trump: plain before trump, then the lowest in its suit."""
    ctx = view.ctx
    return min(kinds, key=lambda k: (ctx.suit[k] == TRUMP, ctx.order[k], k))
