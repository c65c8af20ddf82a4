"""The decisions of a 刮风 seat, dispatched by phase (RULES-guafeng.md sections 5-7).

What a policy returns is what :meth:`env.guafeng.hand.GuafengHand.act` takes:

* ``deal`` / ``final_fix``: a :class:`~env.guafeng.fixing.Fix` from ``view.fix_options``, or ``None`` to pass;
* ``give_back`` (回牌): the kinds to give back (``view.give_back_count`` of them, at least
  ``view.give_back_constants`` constant trumps, none of the eater's new fix);
* ``kitty``: the 4 kinds to bury (the trump is not known yet);
* ``play``: a whole play, a tuple of kinds (the first lead of a hand is one card).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengPhase


class GuafengPolicy(ABC):
    """A player of guafeng hands: one method per decision type."""

    def act(self, view: Any) -> Fix | list[int] | tuple[int, ...] | None:
        """Dispatch on the phase of the guafeng seat view."""
        phase = view.phase
        if phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
            return self.fix(view)
        if phase == GuafengPhase.GIVE_BACK:
            return self.give_back(view)
        if phase == GuafengPhase.KITTY:
            return self.bury(view)
        if phase == GuafengPhase.PLAY:
            return self.play(view)
        raise ValueError(f"no guafeng decision to take in phase {phase}")

    @abstractmethod
    def fix(self, view: Any) -> Fix | None:
        """A fix from ``view.fix_options``, or ``None`` to pass."""

    @abstractmethod
    def give_back(self, view: Any) -> list[int]:
        """The 回牌: ``view.give_back_count`` kinds the seat may give, with the constants owed."""

    @abstractmethod
    def bury(self, view: Any) -> list[int]:
        """The 4 kinds of the hand to bury."""

    @abstractmethod
    def play(self, view: Any) -> tuple[int, ...]:
        """A legal lead or follow."""
