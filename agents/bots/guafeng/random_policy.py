"""Uniformly random guafeng decisions: the floor every other guafeng player must beat."""

from __future__ import annotations

import random
from typing import Any

from agents.bots.guafeng.base import GuafengPolicy
from env.core.cards import kinds_of
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengHand, GuafengPhase


def random_give_back(rng: random.Random, options, count: int) -> list[int]:
    """A random legal 回牌 of ``count`` cards, one card at a time from ``options(chosen)``."""
    chosen: list[int] = []
    for _ in range(count):
        chosen.append(rng.choice(options(chosen)))
    return chosen


class GuafengRandom(GuafengPolicy):
    """Uniform over fixes (pass included), legal 回牌 cards, burials and whole plays.

    ``rng`` is shared with the owning :class:`~agents.bots.random_agent.RandomAgent`,
    so its ``reset(seed)`` reseeds both games.
    """

    def __init__(self, rng: random.Random, max_plays: int = 256):
        self.rng = rng
        self.max_plays = max_plays

    def fix(self, view: Any) -> Fix | None:
        return self.rng.choice([None, *view.fix_options()])

    def give_back(self, view: Any) -> list[int]:
        return random_give_back(self.rng, view.give_back_options, view.give_back_count)

    def bury(self, view: Any) -> list[int]:
        return self.rng.sample(kinds_of(view.hand), view.ruleset.layout.kitty_size)

    def play(self, view: Any) -> tuple[int, ...]:
        return self.rng.choice(view.legal_plays(self.max_plays).plays)


def random_guafeng_decision(hand: GuafengHand, rng: random.Random, max_plays: int = 256) -> None:
    """Take one uniformly random legal decision for the seat to act, straight on the engine
    (the choices of :class:`GuafengRandom` without building a view: benchmarks, property tests)."""
    seat = hand.current_player
    phase = hand.phase
    if phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        decision: Any = rng.choice([None, *hand.fix_options(seat)])
    elif phase == GuafengPhase.GIVE_BACK:
        decision = random_give_back(rng, lambda chosen: hand.give_back_options(seat, chosen), hand.give_back_count)
    elif phase == GuafengPhase.KITTY:
        decision = rng.sample(kinds_of(hand.hands[seat]), hand.ruleset.layout.kitty_size)
    else:
        decision = rng.choice(hand.legal_plays(seat, max_plays).plays)
    hand.act(seat, decision)


def for_agent(agent) -> GuafengRandom:
    """The 刮风 policy of a :class:`~agents.bots.random_agent.RandomAgent` (:mod:`agents.policies`): it shares
    the agent's generator, so the agent's ``reset(seed)`` reseeds both games."""
    return GuafengRandom(agent.rng, agent.max_plays)
