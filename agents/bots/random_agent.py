"""RandomAgent: uniform over legal choices; the floor every other agent must beat."""

from __future__ import annotations

import random

from agents.base import Agent
from env.core.cards import kinds_of
from env.standard.bidding import Bid
from env.standard.hand import Hand, Phase
from env.standard.view import PlayerView


class RandomAgent(Agent):
    """Picks uniformly among legal bids (pass included), kitty choices and whole plays.

    Lead attempts are drawn from the first ``max_plays`` generated plays (every
    single, pair and tractor comes first, then throws), which keeps a long
    trump suit from costing thousands of enumerated subsets per decision.
    """

    name = "random"

    def __init__(self, seed: int | None = None, max_plays: int = 256):
        self.rng = random.Random(seed)
        self.max_plays = max_plays

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def bid(self, view: PlayerView) -> Bid | None:
        return self.rng.choice([None, *view.bid_options])

    def bury(self, view: PlayerView) -> list[int]:
        return self.rng.sample(kinds_of(view.hand), view.ruleset.layout.kitty_size)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        return self.rng.choice(view.legal_plays(self.max_plays).plays)

    def give_tribute(self, view: PlayerView) -> int:
        return self.rng.choice(view.tribute_options)

    def return_card(self, view: PlayerView) -> int:
        return self.rng.choice(view.tribute_options)


def random_decision(hand: Hand, rng: random.Random, max_plays: int = 256) -> None:
    """Take one uniformly random legal decision for the seat to act, straight on the engine.

    The same choices as :class:`RandomAgent` without building a view (benchmarks, property tests).
    """
    seat = hand.current_player
    if hand.phase.is_bidding:
        decision = rng.choice([None, *hand.bid_options(seat)])
    elif hand.phase == Phase.REBID:
        decision = rng.choice([None, *hand.rebid_options(seat)])
    elif hand.phase == Phase.TRIBUTE:
        decision = rng.choice(hand.tribute_options(seat))
    elif hand.phase == Phase.TRIBUTE_RETURN:
        decision = rng.choice(hand.return_options(seat))
    elif hand.phase == Phase.KITTY:
        decision = rng.sample(kinds_of(hand.hands[seat]), hand.ruleset.layout.kitty_size)
    elif hand.lead is None:
        decision = rng.choice(hand.ruleset.legal_leads(hand.ctx, hand.hands[seat], max_plays).plays)
    else:
        decision = rng.choice(hand.ruleset.legal_follows(hand.ctx, hand.hands[seat], hand.lead, max_plays).plays)
    hand.act(seat, decision)
