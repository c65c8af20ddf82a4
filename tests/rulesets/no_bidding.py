"""A third rule set, registered from the tests alone: the standard game with 24 cards each, a
12-card kitty and no bidding (a card turned from the kitty fixes the trump; the first hand's
dealer is drawn).

It exists to prove the plug-in design (docs/adding_a_rule_set.md walks through it): nothing
in env/, agents/ or ui/ names it, yet it deals, plays through the PettingZoo environment, is
evaluated by ``evaluate``'s duplicate play with the rule bots, learned by the DMC tables and
played in the terminal session. :func:`register` adds it to every registry it needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.dmc.learner_rules import register_learner
from agents.dmc.plays import StandardLearner
from agents.policies import ANY, register_policy
from env.core.layout import DealLayout
from env.core.registry import register_ruleset
from env.standard.bidding import Bid, StandingBid
from env.standard.ruleset import StandardRules
from ui.sessions import register_session

NAME = "no_bidding"


class NoBiddingRules(StandardRules):
    """The standard rules on another layout, with no bid ever available."""

    name = NAME
    referee = "env.standard.referee"
    LAYOUT = DealLayout(players=4, decks=2, hand_size=24, kitty_size=12)

    @property
    def file_tag(self) -> str:
        return NAME

    def bid_kinds(self, level_rank: int) -> frozenset[int]:
        return frozenset()

    def available_bids(self, counts: Sequence[int], level_rank: int, seat: int,
                       standing: StandingBid | None) -> list[Bid]:
        return []


def register() -> None:
    """Register the rule set, its bots' policies (any agent's standard methods), its learner and its session."""
    register_ruleset(NAME, NoBiddingRules)
    register_policy(ANY, NAME, "agents.base:StandardPolicy")
    register_learner(NAME, StandardLearner())
    register_session(NAME, "ui.session:GameSession")
