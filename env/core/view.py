"""What every seat's view answers, whatever the rule set.

A rule set's view (:class:`env.standard.view.PlayerView`,
:class:`env.guafeng.view.GuafengView`) is a snapshot of one seat's side of a
hand: its own cards and the public record, never another seat's hidden cards.
"""

from __future__ import annotations

from env.core.cards import RANKS


class SeatView:
    """The names every seat's view answers whatever the rule set (:class:`PlayerView`,
    :class:`env.guafeng.view.GuafengView`): those a :class:`~env.standard.hand.Hand` has too, read
    from the view's ``seat``, ``to_act``, ``level``, ``dealer`` and ``tricks``."""

    @property
    def current_player(self) -> int | None:
        """The seat to act (the :class:`Hand` attribute's name)."""
        return self.to_act

    @property
    def level_rank(self) -> int:
        """Index 0..12 of the level rank in :data:`env.core.cards.RANKS`."""
        return RANKS.index(self.level)

    @property
    def trick_number(self) -> int:
        """0-based number of the current trick."""
        return len(self.tricks)

    def is_dealer_team(self, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: the viewer) is on the dealer's team (刮风: the stage team)."""
        seat = self.seat if seat is None else seat
        return self.dealer is not None and (seat - self.dealer) % 2 == 0
