"""A rule bot whose plays a trained network may overrule: ``critic:<checkpoint>``.

The network alone is about 0.2 levels per hand short of ExpertAgent
(benchmarks/RESULTS.md), yet its Q values know things the expert's rules do
not. :class:`CriticAgent` keeps the expert's play unless the network scores
another of its candidates higher by more than :data:`DEFAULT_MARGIN` levels;
then it plays that one. Bids, the burial and the RULES.md 9 decisions are the
bot's. The margin was chosen on deal seed 0 among 0 to 0.5 (at 0 the network
overrules half the plays and loses to the expert; at 0.2 it overrules about
1.5% of them and wins) and confirmed on deal seed 1 (benchmarks/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.dmc.agent import DMCAgent
from env.standard.view import PlayerView

DEFAULT_MARGIN = 0.2
"""How many levels of Q the network's best play must be ahead of the bot's to replace it."""


class CriticAgent(Agent):
    """``bot`` plays; ``network`` (a ``play``-mode checkpoint) overrules a lead or follow it is sure about."""

    def __init__(self, bot: Agent, network: DMCAgent, margin: float = DEFAULT_MARGIN):
        if network.run.action_mode != "play":
            raise ValueError("a critic needs a checkpoint of the play action mode (whole plays)")
        self.bot = bot
        self.network = network
        self.margin = margin
        self.name = f"critic:{network.name}"
        self.overruled = 0
        self.plays = 0
        if not self.can_play(network.run.rules):
            raise ValueError(f"a critic criticises the standard game's plays; the checkpoint is of "
                             f"{network.run.rules.name!r}")

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)
        self.network.reset(seed)

    def policy(self, ruleset: Any) -> Any | None:
        """The standard game's decisions through this agent's methods (leads and follows criticised,
        :meth:`play`; the rest the bot's), at a table of the checkpoint's rule set (and decks) only."""
        return super().policy(ruleset) if self.network.can_play(ruleset) else None

    def bid(self, view: PlayerView):
        return self.bot.bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        return self.bot.bury(view)

    def rebid(self, view: PlayerView):
        return self.bot.rebid(view)

    def give_tribute(self, view: PlayerView) -> int:
        return self.bot.give_tribute(view)

    def return_card(self, view: PlayerView) -> int:
        return self.bot.return_card(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        """The bot's play, unless the network's best candidate beats it by more than the margin."""
        choice = tuple(sorted(self.bot.play(view)))
        moves, q = self.network.play_values(view, (choice,))
        if len(moves) == 1:
            return choice
        self.plays += 1
        best = int(q.argmax())
        if q[best] - q[moves.index(choice)] > self.margin:
            self.overruled += 1
            return moves[best]
        return choice
