"""刮风 kitty value, kitty multiplier, hand score and the level cycle (RULES-guafeng.md 2, 8, 9).

The defenders' points P are their trick points plus or minus V x M, where V is
the kitty's value (its point cards plus 100 per ``BJ`` and 80 per ``LJ``) and M
the card count of the last trick's lead; plus if the defenders win the last trick
(捡底), minus if the stage team does. P may be negative or above 200.
"""

from __future__ import annotations

from collections.abc import Sequence

from env.core.cards import BIG_JOKER, LITTLE_JOKER, POINTS, normalize_rank
from env.guafeng.combos import Combo
from env.guafeng.order import LEVELS

BIG_JOKER_KITTY_VALUE = 100
LITTLE_JOKER_KITTY_VALUE = 80
HOLD_LINE = 80
"""From P = 80 the defenders take the stage."""
STEP = 40
STAGE = "dealers"
DEFENDERS = "defenders"


def kitty_value(kitty: Sequence[int]) -> int:
    """V: the kitty's point cards, plus 100 for each ``BJ`` and 80 for each ``LJ`` in it."""
    value = 0
    for k in kitty:
        if k == BIG_JOKER:
            value += BIG_JOKER_KITTY_VALUE
        elif k == LITTLE_JOKER:
            value += LITTLE_JOKER_KITTY_VALUE
        else:
            value += POINTS[k]
    return value


def kitty_multiplier(lead: Combo) -> int:
    """M: the card count of the last trick's lead (single 1, pair 2 双扣, bomb 4 四扣, run of n n)."""
    return lead.length


def kitty_swing(kitty: Sequence[int], last_lead: Combo, defenders_won_last: bool) -> int:
    """What the kitty adds to P: +V x M if the defenders win the last trick, else -V x M."""
    swing = kitty_value(kitty) * kitty_multiplier(last_lead)
    return swing if defenders_won_last else -swing


def score_hand(defender_points: int) -> tuple[str, int]:
    """``("dealers", n)``: the stage team holds and goes up n; ``("defenders", n)``: they take
    the stage and go up n (section 9, floor division for any integer P).

    P <= 0: stage + floor(|P| / 40) + 3; 0 < P < 40: stage + 2; 40 <= P < 80:
    stage + 1; P >= 80: defenders + floor((P - 80) / 40).
    """
    p = defender_points
    if p <= 0:
        return STAGE, -p // STEP + 3
    if p < STEP:
        return STAGE, 2
    if p < HOLD_LINE:
        return STAGE, 1
    return DEFENDERS, (p - HOLD_LINE) // STEP


def advance_level(level: str, steps: int) -> str:
    """The level ``steps`` up the cycle A 2 3 ... K A (``"10"`` accepted for ``"T"``)."""
    if steps < 0:
        raise ValueError(f"levels only go up, got {steps} steps")
    return LEVELS[(LEVELS.index(normalize_rank(level)) + steps) % len(LEVELS)]
