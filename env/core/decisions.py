"""One seat's decision over the shared action table, as the environment steps it.

A rule set's :meth:`~env.core.ruleset.RuleSet.decision` gives the
:class:`Decision` a seat is at. The PettingZoo environment knows nothing else
of the rules: it asks the decision for its mask, feeds it card steps
(:meth:`Decision.step`), whole plays (:meth:`Decision.play`) or an agent's whole
decision (:meth:`Decision.single_action` / :meth:`Decision.apply`), and the
decision applies itself to the hand once complete.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from env.core.errors import IllegalActionError


class Decision(ABC):
    """The decision ``seat`` is at in ``hand``, composed one action at a time.

    Attributes:
        hand: the hand it applies to.
        seat: the deciding seat.
        picked: the cards picked so far (empty until the first card step).
    """

    hand: Any
    seat: int
    picked: list[int]

    @property
    @abstractmethod
    def takes_plays(self) -> bool:
        """True when :meth:`play` can apply a whole set of cards (a lead, a follow, a burial)."""

    @abstractmethod
    def mask(self) -> np.ndarray:
        """The legal actions now: 1 iff the action extends to a legal decision."""

    @abstractmethod
    def step(self, action: int) -> bool:
        """Take one legal action; True once the decision is complete and applied to the hand."""

    @property
    def view(self) -> Any:
        """The deciding seat's view (:meth:`~env.core.ruleset.RuleSet.view_of`), built once when asked for."""
        view = self.__dict__.get("_view")
        if view is None:
            view = self.__dict__["_view"] = self.hand.ruleset.view_of(self.hand, self.seat)
        return view

    def single_action(self, decision: Any) -> int | None:
        """The one action an agent's whole ``decision`` is (a bid, a pass, one card), or ``None``
        when it is applied whole with :meth:`apply`."""
        return None

    def play(self, cards: list[int]) -> None:
        """Apply a whole set of cards (checked first: an illegal one raises and changes nothing)."""
        raise IllegalActionError("play() needs a fresh card decision (not bidding, nothing picked yet)")

    def apply(self, decision: Any) -> None:
        """Apply an agent's whole decision that is no single action (checked first)."""
        self.play(list(decision))
