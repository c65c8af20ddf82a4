"""The greedy bot's guafeng policy: one-trick lookahead, no memory."""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.base import GuafengPolicy
from agents.bots.guafeng.judgement import blind_value, is_special, level_rank_of, trick_so_far, wins_over
from agents.bots.guafeng.play import follow_candidates
from agents.bots.guafeng.setup import best_fix, choose_give_back
from agents.bots.heuristics import card_value, play_cost, play_points
from env.cards import NUM_KINDS, POINTS
from env.game import team_of
from env.guafeng.fixing import Fix
from env.trump import TRUMP


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
        ctx, hand = view.ctx, view.hand
        held = [k for k in range(NUM_KINDS) if hand[k]]
        plain = [k for k in held if ctx.suit[k] != TRUMP]
        tops = [k for k in plain if ctx.order[k] == ctx.suit_size[ctx.suit[k]] - 1]
        if tops:
            return (tops[0],)
        pool = plain or held
        return (min(pool, key=lambda k: (POINTS[k] > 0, card_value(ctx, k), k)),)

    def _follow(self, view: Any) -> tuple[int, ...]:
        ctx, hand = view.ctx, view.hand
        plays = follow_candidates(view)
        trick = trick_so_far(view)
        if trick.winner == (view.seat + 2) % 4:
            return max(plays, key=lambda p: (play_points(p), -play_cost(ctx, hand, p)))
        cheapest_loss = min(plays, key=lambda p: (play_points(p), play_cost(ctx, hand, p)))
        winners = [p for p in plays if wins_over(view, p, trick.best)]
        if winners:
            win = min(winners, key=lambda p: (play_cost(ctx, hand, p), -play_points(p)))
            extra = play_cost(ctx, hand, win) - play_cost(ctx, hand, cheapest_loss)
            if trick.points + play_points(win) >= 10 or extra <= 8:
                return win
        return cheapest_loss
