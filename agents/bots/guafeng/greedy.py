"""The greedy bot's guafeng policy: one-trick lookahead, no memory."""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.base import GuafengPolicy
from agents.bots.guafeng.judgement import blind_value, is_special, level_rank_of, trick_so_far, wins_over
from agents.bots.guafeng.play import follow_candidates
from agents.bots.guafeng.setup import best_fix, choose_give_back
from agents.bots.heuristics import greedy_follow, greedy_lead
from env.core.cards import NUM_KINDS, POINTS
from env.core.hand_base import team_of
from env.guafeng.fixing import Fix


class GuafengGreedy(GuafengPolicy):
    """A guafeng player that only looks at the current trick.

    * Fixing: fixes (or eats an opponent) with the option whose trump suit it holds most,
      whenever its team has no fix standing.
    * 回牌: the constants owed and the cheapest other cards.
    * Burial: its lowest pointless cards that are trump in no mode.
    * Leading: the first lead is its lowest such card; then the top card of a plain suit (an ace)
      if it holds one, else its cheapest plain single.
    * Following: feeds points to a partner who is winning; takes the trick with its cheapest
      winning play when points are on the table or it costs little; else its cheapest play.
    """

    def fix(self, view: Any) -> Fix | None:
        standing = view.standing_seat
        if standing is not None and team_of(standing) == team_of(view.seat):
            return None
        choice = best_fix(view)
        return None if choice is None else choice[0]

    def give_back(self, view: Any) -> list[int]:
        return choose_give_back(view)

    def bury(self, view: Any) -> list[int]:
        hand, level_rank = view.hand, level_rank_of(view.level)
        pool = sorted((k for k in range(NUM_KINDS) for _ in range(hand[k])),
                      key=lambda k: (is_special(k, level_rank), POINTS[k] > 0, blind_value(k, level_rank), k))
        return pool[:view.ruleset.layout.kitty_size]

    def play(self, view: Any) -> tuple[int, ...]:
        if view.first_lead:
            level_rank = level_rank_of(view.level)
            held = [k for k in range(NUM_KINDS) if view.hand[k]]
            return (min(held, key=lambda k: (is_special(k, level_rank), POINTS[k] > 0, blind_value(k, level_rank))),)
        if view.lead is None:
            return self._lead(view)
        return self._follow(view)

    def _lead(self, view: Any) -> tuple[int, ...]:
        return greedy_lead(view.ctx, view.hand)

    def _follow(self, view: Any) -> tuple[int, ...]:
        trick = trick_so_far(view)
        return greedy_follow(view.ctx, view.hand, follow_candidates(view), trick.winner == (view.seat + 2) % 4,
                             trick.points, lambda p: wins_over(view, p, trick.best))


def for_agent(agent) -> GuafengGreedy:
    """The 刮风 policy of a :class:`~agents.bots.greedy.GreedyAgent` (:mod:`agents.policies`)."""
    return GuafengGreedy()
