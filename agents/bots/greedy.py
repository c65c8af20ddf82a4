"""GreedyAgent: one-trick lookahead, no memory. Simple, fast, and clearly better than random."""

from __future__ import annotations

from agents.base import Agent
from agents.bots.heuristics import beats, greedy_follow, greedy_lead, lowest_cards, trick_state, trump_count_for
from env.core.cards import NUM_KINDS, RANKS
from env.core.suits import TRUMP
from env.standard.bidding import Bid
from env.standard.view import PlayerView


class GreedyAgent(Agent):
    """A bot that only looks at the current trick.

    * Bidding: bids when the bid's trump would make at least ``bid_share`` of its
      cards trump (the strongest such bid).
    * Kitty: buries its cheapest plain, non-point cards.
    * Leading: a plain-suit card that is the top of its suit (an ace) if it holds
      one, else its cheapest plain single.
    * Following: when the partner is winning, adds the most points it can for the
      least value; otherwise takes the trick with its cheapest winning play when
      that costs little more than losing would (or when points are on the table);
      otherwise plays its cheapest, pointless cards.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, bid_share: float = 0.36, max_plays: int = 200):
        self.bid_share = bid_share
        self.max_plays = max_plays

    def bid(self, view: PlayerView) -> Bid | None:
        level = RANKS.index(view.level)
        held = sum(view.hand)
        best, best_count = None, -1
        for option in view.bid_options:
            count = trump_count_for(view.hand, level, option.suit)
            if count >= max(3, self.bid_share * held) and (count, option.strength) > (best_count, -1):
                best, best_count = option, count
        return best

    def rebid(self, view: PlayerView) -> Bid | None:
        """炒地皮: as in the deal, but never against the partner's standing bid."""
        standing = view.standing_bid
        if standing is not None and standing.seat != view.seat and (standing.seat - view.seat) % 2 == 0:
            return None
        return self.bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        ctx, hand = view.ctx, view.hand
        kinds = [k for k in range(NUM_KINDS) if hand[k]]
        plain = [k for k in kinds if ctx.suit[k] != TRUMP]
        kitty_size = view.ruleset.layout.kitty_size
        chosen = lowest_cards(ctx, hand, plain, kitty_size)
        if len(chosen) < kitty_size:
            chosen += lowest_cards(ctx, hand, [k for k in kinds if ctx.suit[k] == TRUMP], kitty_size - len(chosen))
        return chosen

    def play(self, view: PlayerView) -> tuple[int, ...]:
        if view.lead is None:
            return self._lead(view)
        return self._follow(view)

    def _lead(self, view: PlayerView) -> tuple[int, ...]:
        return greedy_lead(view.ctx, view.hand)

    def _follow(self, view: PlayerView) -> tuple[int, ...]:
        ctx = view.ctx
        state = trick_state(view)
        return greedy_follow(ctx, view.hand, view.legal_plays(self.max_plays).plays,
                             state.winner == (view.seat + 2) % 4, state.points,
                             lambda p: beats(ctx, view, p, state.best_rank))
