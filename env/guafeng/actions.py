"""刮风 decisions composed card by card over the action table of :mod:`env.standard.actions`, with exact masks.

The table is the standard one (``Discrete(66)``: cards 0..53, ``STOP``, ``PASS``,
bids unused). A :class:`GuafengComposer` builds one seat's decision one card
per step from its :class:`~env.guafeng.view.GuafengView`:

===========  ===============================================================
decision     steps and mask
===========  ===============================================================
fix          ``PASS`` (only before a pick) declines; else pick the shown jokers
             and the base cards, then ``STOP``. A card is allowed iff the picks
             stay inside the cards of some fix of ``fix_options``; ``STOP`` iff
             they are exactly one. The only card set with two fixes, ``LJ LJ
             BJ BJ`` (show one pair, lay the other), shows the kind picked first.
give_back    ``give_back_count`` picks (回牌), masked by ``give_back_options``.
bury         ``kitty_size`` picks of held cards.
lead         the first lead of a hand: one pick of any held card. Later: picks
             then ``STOP``; a card iff the picks stay part of a held
             combination (:func:`env.guafeng.moves.can_complete_lead`), ``STOP``
             iff they are one (:func:`env.guafeng.combos.classify`; no throws).
follow       the lead's length in picks; a card iff the picks stay part of a
             legal follow (:class:`env.guafeng.moves.FollowDuty`).
===========  ===============================================================

So every masked sequence ends in a legal decision and every legal decision is
reachable. :meth:`GuafengComposer.decision` is what to apply to the hand
(``hand.act(seat, ...)``) once :attr:`~GuafengComposer.complete`.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from env.core.actions import NUM_ACTIONS, PASS, STOP
from env.core.cards import NUM_KINDS
from env.core.decisions import Decision
from env.guafeng.combos import classify
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengHand
from env.guafeng.moves import can_complete_lead, follow_duty
from env.guafeng.view import GuafengView, guafeng_view_of

MODES = ("fix", "give_back", "bury", "lead", "follow")


class GuafengComposer:
    """One seat's 刮风 decision built card by card (see the module docstring).

    ``mode`` is the view's :attr:`~env.guafeng.view.GuafengView.decision`;
    ``picked`` the cards picked so far; ``passed`` is set by a ``PASS``.
    """

    def __init__(self, view: GuafengView):
        mode = view.decision
        if mode not in MODES:
            raise ValueError(f"seat {view.seat} has no card decision to make now (phase {view.phase.value})")
        self.mode = mode
        self.view = view
        self.hand = view.hand
        self.picked: list[int] = []
        self.counts = [0] * NUM_KINDS
        self.passed = False
        self.stopped = False
        self._fixes: list[tuple[Counter, Fix]] = []
        self._duty = None
        if mode == "fix":
            self._fixes = [(Counter(f.cards), f) for f in view.fix_options()]
            self.target = None
        elif mode == "give_back":
            self.target = view.give_back_count
        elif mode == "bury":
            self.target = view.ruleset.layout.kitty_size
        elif mode == "lead":
            self.target = 1 if view.first_lead else None
        else:
            self.target = view.lead.length
            self._duty = follow_duty(view.ctx, view.hand, view.lead)

    @property
    def complete(self) -> bool:
        """True when the decision is whole: a pass, a ``STOP``, or the last of a fixed number of picks."""
        return self.passed or self.stopped or (self.target is not None and len(self.picked) == self.target)

    def _stop_allowed(self) -> bool:
        if self.mode == "fix":
            picked = Counter(self.picked)
            return any(cards == picked for cards, _ in self._fixes)
        if self.mode == "lead" and self.target is None:
            return bool(self.picked) and classify(self.view.ctx, self.picked) is not None
        return False

    def _card_allowed(self, kind: int) -> bool:
        """Whether ``kind`` may be picked next (the hand holds one more of it; checked by the caller)."""
        trial = [*self.picked, kind]
        if self.mode == "fix":
            picked = Counter(trial)
            return any(all(cards[k] >= n for k, n in picked.items()) for cards, _ in self._fixes)
        if self.mode == "lead":
            return self.target == 1 or can_complete_lead(self.view.ctx, self.hand, trial)
        if self.mode == "follow":
            return self._duty.allows(trial)
        return True  # bury; give_back is masked by its options below

    def mask(self) -> np.ndarray:
        """Mask over the action table for the next step (all zero once complete)."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.complete:
            return mask
        if self.mode == "give_back":
            for k in self.view.give_back_options(self.picked):
                mask[k] = 1
            return mask
        for k in range(NUM_KINDS):
            if self.hand[k] > self.counts[k] and self._card_allowed(k):
                mask[k] = 1
        if self._stop_allowed():
            mask[STOP] = 1
        if self.mode == "fix" and not self.picked:
            mask[PASS] = 1
        return mask

    def step(self, action: int) -> None:
        """Record one action (the caller has checked it against :meth:`mask`)."""
        if action == PASS:
            self.passed = True
        elif action == STOP:
            self.stopped = True
        else:
            self.picked.append(action)
            self.counts[action] += 1

    def fix(self) -> Fix | None:
        """The fix the picks make (``None`` for a pass); the ``LJ LJ BJ BJ`` set shows the kind picked first."""
        if self.passed:
            return None
        picked = Counter(self.picked)
        matches = [f for cards, f in self._fixes if cards == picked]
        if not matches:
            raise ValueError(f"the picks {sorted(self.picked)} are not a fix")
        return next((f for f in matches if f.jokers[0] == self.picked[0]), matches[0])

    def decision(self):
        """The whole decision for ``hand.act``: a fix or ``None`` (pass), else the picked cards."""
        if self.mode == "fix":
            return self.fix()
        return list(self.picked)


class GuafengDecision(Decision):
    """A seat's 刮风 decision as the environment steps it (:class:`~env.core.decisions.Decision`):
    a :class:`GuafengComposer` over the seat's view, applied with ``hand.act`` once complete."""

    def __init__(self, hand: GuafengHand, seat: int):
        self.hand, self.seat = hand, seat
        self.composer = GuafengComposer(guafeng_view_of(hand, seat))
        self.picked = self.composer.picked

    @property
    def view(self) -> GuafengView:
        """The seat's view, the composer's own."""
        return self.composer.view

    @property
    def takes_plays(self) -> bool:
        return self.composer.mode != "fix"

    def mask(self) -> np.ndarray:
        return self.composer.mask()

    def step(self, action: int) -> bool:
        composer = self.composer
        composer.step(action)
        if not composer.complete:
            return False
        self.hand.act(self.seat, composer.decision())
        return True

    def play(self, cards: list[int]) -> None:
        if not self.takes_plays:
            super().play(cards)
        self.hand.act(self.seat, cards)  # a 回牌, a burial, a lead or a follow, checked first

    def apply(self, decision) -> None:
        if self.takes_plays:
            self.play(list(decision))
        else:
            self.hand.act(self.seat, decision)  # a fix or None (pass), checked first
