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

Another rule set (刮风: a :class:`~env.guafeng.view.GuafengView`) asks other
questions: an agent answers every rule set through the policy that
:mod:`agents.policies` registers for its name and the table's rule set
(:meth:`Agent.policy`; for the standard game, :class:`StandardPolicy` over the
methods above), and refuses a table it has no policy for.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from agents.policies import policy_factory
from env.core.suits import TRUMP
from env.standard.bidding import Bid
from env.standard.hand import Phase
from env.standard.view import PlayerView

Decision = Any
"""What an agent returns: for the standard game a Bid, ``None`` (pass), a tuple or list of kinds or one
kind; another rule set's policy returns what that rule set's hand takes."""


class Agent(ABC):
    """Base class of every player. Subclasses implement the standard game's decisions."""

    name: str = "agent"

    def act(self, view: Any) -> Decision:
        """The decision of ``view``'s seat, from this agent's policy for the view's rule set."""
        policy = self.policy(view.ruleset)
        if policy is None:
            raise ValueError(f"agent {self.name!r} does not play the {view.ruleset.name} rule set")
        return policy.act(view)

    def policy(self, ruleset: Any) -> Any | None:
        """The policy this agent plays ``ruleset`` with (:mod:`agents.policies`), or ``None``; made once
        per rule set and kept (a policy may share the agent's state, as its random generator)."""
        policies = self.__dict__.setdefault("_policies", {})
        if ruleset.name not in policies:
            factory = policy_factory(self.name, ruleset.name)
            policies[ruleset.name] = None if factory is None else factory(self)
        return policies[ruleset.name]

    def can_play(self, ruleset: Any) -> bool:
        """Whether this agent can sit at a table of ``ruleset``."""
        return self.policy(ruleset) is not None

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


class StandardPolicy:
    """The standard game through an agent's own methods: by phase to :meth:`Agent.bid`, :meth:`Agent.bury`,
    :meth:`Agent.play` or a RULES.md 9 decision."""

    def __init__(self, agent: Agent):
        self.agent = agent

    def act(self, view: PlayerView) -> Decision:
        agent, phase = self.agent, view.phase
        if phase.is_bidding:
            return agent.bid(view)
        if phase == Phase.KITTY:
            return agent.bury(view)
        if phase == Phase.PLAY:
            return agent.play(view)
        if phase == Phase.REBID:
            return agent.rebid(view)
        if phase == Phase.TRIBUTE:
            return agent.give_tribute(view)
        if phase == Phase.TRIBUTE_RETURN:
            return agent.return_card(view)
        raise ValueError(f"no decision to take in phase {phase}")


def least_valued(view: PlayerView, kinds) -> int:
    """The kind of ``kinds`` worth least in the hand's trump: plain before trump, then the lowest in its suit."""
    ctx = view.ctx
    return min(kinds, key=lambda k: (ctx.suit[k] == TRUMP, ctx.order[k], k))
