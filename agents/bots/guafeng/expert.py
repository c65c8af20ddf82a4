"""The expert bot's guafeng policy: the strongest hand-written guafeng player of the project.

Decision by decision (each rule explained where it is coded):

Fixing (:func:`agents.bots.guafeng.setup.choose_fix`)
    Fix with the option whose trump suit is longest in hand, the strongest fix of it;
    eat opponents, never the partner; on stage fix at the latest in the final round;
    defenders fix first only with a very good suit (else the stage team may step down).
回牌 (:func:`~agents.bots.guafeng.setup.choose_give_back`)
    Only the constants owed, the cheapest; then cheap pointless cards under the new trump.
Burial (:func:`~agents.bots.guafeng.setup.choose_burial`)
    The trump is unknown: bury low pointless cards that are trump in no mode, from short suits.
First lead (:func:`~agents.bots.guafeng.setup.choose_first_lead`)
    A plain ace, else a low pointless card of a short suit.
Leads and follows (:mod:`agents.bots.guafeng.play`)
    Card counting (:class:`~agents.bots.guafeng.tracker.GuafengTracker`); the whole hand as the
    last trick when it is one combination; the endgame keeps the lead and saves the biggest
    sure combination (a bomb, a pair) for the last trick; cash sure plain combinations; shed
    runs and tractors; draw trumps when long; feed a partner who is safe; win when it pays,
    the last trick counting the kitty times its multiplier.
"""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.base import GuafengPolicy
from agents.bots.guafeng.play import expert_follow, expert_lead
from agents.bots.guafeng.setup import choose_burial, choose_first_lead, choose_fix, choose_give_back
from agents.bots.guafeng.tracker import GuafengTracker
from env.guafeng.fixing import Fix


class GuafengExpert(GuafengPolicy):
    """Rule-based guafeng player with card counting and last-trick (捡底) planning."""

    def fix(self, view: Any) -> Fix | None:
        return choose_fix(view)

    def give_back(self, view: Any) -> list[int]:
        return choose_give_back(view)

    def bury(self, view: Any) -> list[int]:
        return choose_burial(view)

    def play(self, view: Any) -> tuple[int, ...]:
        if view.first_lead:
            return choose_first_lead(view)
        tracker = GuafengTracker(view)
        if view.lead is None:
            return expert_lead(view, tracker)
        return expert_follow(view, tracker)


def for_agent(agent) -> GuafengExpert:
    """The 刮风 policy of an :class:`~agents.bots.expert.ExpertAgent` (:mod:`agents.policies`)."""
    return GuafengExpert()
