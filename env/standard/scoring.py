"""Hand scoring: kitty multiplier, the level table, level advance and next dealer.

RULES.md sections 7 and 8, computed in one place for the engine, the
environment's rewards and the public referee API.
"""

from __future__ import annotations

from env.standard.combos import Component
from env.standard.variants import RuleOptions


def kitty_multiplier_of(components: list[Component], variant: str = "exponential") -> int:
    """Kitty multiplier from the components actually led in the last trick (RULES.md 7 and 11).

    The largest component decides: ``exponential`` gives 2**cards (single 2,
    pair 4, 2-pair tractor 16, 3-pair tractor 64, triple 8); ``linear`` gives
    single 2, an m-tuple 2m, any tractor of m-tuples 4m (pair 4, pair tractor 8).
    """
    if not components:
        raise ValueError("kitty multiplier needs a non-empty lead")
    if variant == "exponential":
        return 2 ** max(c.size for c in components)
    if variant == "linear":
        return max((4 if c.is_tractor else 2) * c.cards.count(c.cards[-1]) for c in components)
    raise ValueError(f"kitty_multiplier variant {variant!r} is not 'exponential' or 'linear'")


def score_table(defender_points: int, *, takeover: str = "plain", threshold: int = 80,
                step: int = 40) -> tuple[str, int]:
    """Which team gains how many levels for the defenders' points P.

    Returns ``("dealers", n)`` when the dealers hold (P < threshold): 3 levels for
    P <= 0, 2 below ``threshold - step``, else 1; or ``("defenders", n)`` when the
    defenders take over: ``(P - threshold) // step`` levels, plus one under
    ``takeover="plus_one"``.
    """
    if takeover not in ("plain", "plus_one"):
        raise ValueError(f"takeover variant {takeover!r} is not 'plain' or 'plus_one'")
    if threshold <= 0 or step <= 0:
        raise ValueError("threshold and step must be positive")
    if defender_points < threshold:
        if defender_points <= 0:
            return "dealers", 3
        if defender_points < threshold - step:
            return "dealers", 2
        return "dealers", 1
    levels = (defender_points - threshold) // step
    return "defenders", levels + (1 if takeover == "plus_one" else 0)


def score_with(defender_points: int, options: RuleOptions) -> tuple[str, int]:
    """:func:`score_table` with the thresholds of a rule set."""
    return score_table(defender_points, takeover=options.takeover, threshold=options.threshold, step=options.step)


def advance_level(level: str, steps: int, options: RuleOptions) -> str:
    """The level ``steps`` places up the sequence, never past its top (A)."""
    levels = options.levels
    index = min(levels.index(level) + steps, len(levels) - 1)
    return levels[index]


def next_dealer(dealer: int, dealers_held: bool) -> int:
    """Dealer of the next hand: the partner if the dealers held, else the next seat."""
    return (dealer + 2) % 4 if dealers_held else (dealer + 1) % 4
