"""Card counting for the guafeng bots, from what one seat may know (a :class:`~env.guafeng.view.GuafengView`).

* ``unseen[k]``: copies of kind ``k`` neither in the viewer's hand, nor played,
  nor buried by the viewer: the cards the three other seats (and a kitty the
  viewer did not bury) may hold.
* ``void[seat][suit]``: the seat is known to hold no card of the effective suit.
  Under the 刮风 duties a follower holding n or more cards of the lead suit
  plays n of them, so any card of another suit in a follow shows the suit is
  exhausted.

:meth:`GuafengTracker.beaters` answers "could a seat still to play beat this
standing?", by building every combination of the lead's type and length
from the unseen cards (a seat's real holding is a subset, so the answer errs
towards caution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from env.core.cards import NUM_KINDS
from env.core.suits import NUM_EFFECTIVE_SUITS, TRUMP
from env.guafeng.combos import RUFF, Combo, classify, standing
from env.guafeng.moves import legal_leads


class GuafengTracker:
    """Unseen cards and known voids of one seat's view (play phase, trump known)."""

    def __init__(self, view: Any):
        self.view = view
        self.ctx = ctx = view.ctx
        unseen = [2 - view.hand[k] for k in range(NUM_KINDS)]
        for seat_played in view.played:
            for k in range(NUM_KINDS):
                unseen[k] -= seat_played[k]
        if view.kitty is not None and view.buried_by == view.seat:
            for k in view.kitty:
                unseen[k] -= 1
        self.unseen = unseen
        self.void = [[False] * NUM_EFFECTIVE_SUITS for _ in range(4)]
        for trick in view.tricks:
            self._learn(trick.leader, trick.plays)
        if view.trick_plays:
            self._learn(view.leader, view.trick_plays)
        self._suit_unseen = [sum(unseen[k] for k in ctx.suit_kinds[s]) for s in range(NUM_EFFECTIVE_SUITS)]
        self._combos: dict[int, list[tuple[int, ...]]] | None = None

    def _learn(self, leader: int, plays: Sequence[tuple[int, ...]]) -> None:
        suit = self.ctx.suit
        lead_suit = classify(self.ctx, plays[0]).suit
        for i, play in enumerate(plays[1:], start=1):
            if any(suit[k] != lead_suit for k in play):
                self.void[(leader + i) % 4][lead_suit] = True

    def unseen_in(self, suit: int) -> int:
        """Unseen cards of an effective suit."""
        return self._suit_unseen[suit]

    def holders(self, suit: int, seats: Sequence[int]) -> list[int]:
        """The seats of ``seats`` not known to be void in ``suit``."""
        return [s for s in seats if not self.void[s][suit]]

    def _unseen_combos(self, length: int) -> list[tuple[int, ...]]:
        """Every combination the unseen cards hold, of ``length`` cards (built once)."""
        if self._combos is None:
            self._combos = {}
            for play in legal_leads(self.ctx, self.unseen).plays:
                self._combos.setdefault(len(play), []).append(play)
        return self._combos.get(length, [])

    def beaters(self, lead: Combo, best: tuple[int, int], seats: Sequence[int]) -> bool:
        """Whether one of ``seats`` may hold a play beating ``best`` (a standing) in a trick led by ``lead``.

        A seat follows suit with a higher combination of the lead's suit unless
        known void in it; it ruffs a plain lead with a trump combination when known
        void in the lead suit (or nobody can hold that suit) and not known void in trump.
        """
        if not seats:
            return False
        suit = lead.suit
        followers = self.holders(suit, seats)
        ruffers = [] if suit == TRUMP else [
            s for s in seats if not self.void[s][TRUMP] and (self.void[s][suit] or self.unseen_in(suit) == 0)]
        if not followers and not ruffers:
            return False
        for play in self._unseen_combos(lead.length):
            got = standing(self.ctx, lead, play)
            if got is None or got <= best:
                continue
            if got[0] == RUFF:
                if ruffers:
                    return True
            elif followers:
                return True
        return False
