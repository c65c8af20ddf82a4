"""The guafeng bots' decisions before the tricks: fix or pass (扣主, 吃), 回牌, the blind burial, the first lead.

Shared by the greedy and the expert policy; each choice is explained where it is coded.
"""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.judgement import blind_value, is_special, level_rank_of
from agents.bots.heuristics import card_value
from env.core.cards import NUM_KINDS, NUM_RANKS, POINTS, SUITS
from env.core.hand_base import team_of
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengPhase
from env.guafeng.order import CONSTANTS, guafeng_context, is_constant_trump

GOOD_SUIT = 6.0
"""Trump-suit length (non-special cards of the suit, scaled to a full 26-card hand) that makes a suit worth fixing."""


def fix_level(view: Any) -> str:
    """The level the hand will be played at: the stage team's, or the viewer's own in a first hand."""
    return view.level if view.dealer is not None else view.team_levels[team_of(view.seat)]


def suit_length(hand, suit: int, level_rank: int) -> int:
    """Cards of printed ``suit`` that become trump only through the trump suit (not jokers, 5, 3, 2, R)."""
    return sum(hand[k] for k in range(suit * NUM_RANKS, (suit + 1) * NUM_RANKS) if not is_special(k, level_rank))


def mode_score(view: Any, fix: Fix) -> float:
    """How good a fix's trump mode is for the viewer's hand: the trump suit's length scaled to a whole
    hand, plus its pairs and aces (打常主 scores the level cards it makes plain as a loss)."""
    hand = view.hand
    level_rank = level_rank_of(fix_level(view))
    held = max(1, sum(hand))
    scale = view.ruleset.layout.hand_size / held
    if fix.trump == CONSTANTS:
        return -scale * sum(hand[s * NUM_RANKS + level_rank] for s in range(4))
    suit = SUITS.index(fix.trump)
    first = suit * NUM_RANKS
    pairs = sum(1 for k in range(first, first + NUM_RANKS) if hand[k] == 2 and not is_special(k, level_rank))
    aces = hand[first + NUM_RANKS - 1] if level_rank != NUM_RANKS - 1 else 0
    return scale * (suit_length(hand, suit, level_rank) + 0.5 * pairs + 0.3 * aces)


def best_fix(view: Any) -> tuple[Fix, float] | None:
    """The option with the best trump mode for the viewer, the strongest fix of it (hardest to eat)."""
    options = view.fix_options()
    if not options:
        return None
    scored = [(mode_score(view, f), f.strength, f) for f in options]
    score, _, fix = max(scored, key=lambda t: (t[0], t[1]))
    return fix, score


def choose_fix(view: Any, good_suit: float = GOOD_SUIT) -> Fix | None:
    """扣主 and 吃, the expert's way.

    * Never eat the partner's fix, nor re-fix over our own.
    * Eat an opponent's fix whenever possible with a suit of at least average length: it takes
      the opponent's jokers and base (and gives back cheap constants) and makes the trump ours.
    * On stage with no fix standing: fix with a good suit at once; else wait for the full hand
      and fix in the final round anyway (without a fix the stage team steps down).
    * In a first hand (the first fix takes the stage): fix with a good suit.
    * Defenders fix first only with a very good suit: passing lets the stage team step down.
    """
    choice = best_fix(view)
    if choice is None:
        return None
    fix, score = choice
    standing = view.standing_seat
    me = view.seat
    if standing is not None and team_of(standing) == team_of(me):
        return None
    if standing is not None:
        return fix if score >= 4.0 else None
    final = view.phase == GuafengPhase.FINAL_FIX
    if view.dealer is None:
        return fix if score >= good_suit or (final and score >= 4.0) else None
    if view.is_dealer_team():
        return fix if score >= good_suit or final else None
    return fix if score >= good_suit + 3 else None


def choose_give_back(view: Any) -> list[int]:
    """回牌: exactly the constant trumps owed (the cheapest, jokers last), then the cheapest other
    cards under the viewer's own new trump: no points, no broken pairs, low cards first."""
    ctx = guafeng_context(view.level, view.trump)
    givable = list(view.givable)
    hand = view.hand
    pool = [k for k in range(NUM_KINDS) for _ in range(givable[k])]

    def key(k: int) -> tuple:
        return (POINTS[k] > 0, hand[k] >= 2, card_value(ctx, k), k)

    constants = sorted((k for k in pool if is_constant_trump(k)), key=key)[:view.give_back_constants]
    rest = list(pool)
    for k in constants:
        rest.remove(k)
    others = sorted((k for k in rest if not is_constant_trump(k)), key=key)
    chosen = constants + others[:view.give_back_count - len(constants)]
    if len(chosen) < view.give_back_count:  # only constants left to give
        left = sorted(rest, key=key)
        for k in chosen[len(constants):]:
            left.remove(k)
        chosen += left[:view.give_back_count - len(chosen)]
    return chosen


def choose_burial(view: Any) -> list[int]:
    """Bury 4 cards without knowing the trump (扣底, 暗底): never a joker, a constant or a level card
    (trump in every mode), no points (a kitty the defenders pick up is paid x M), no pairs; low
    cards of short suits first, towards a void. After a step-down the trump is known and used."""
    hand = view.hand
    size = view.ruleset.layout.kitty_size
    level_rank = level_rank_of(view.level)
    lengths = [suit_length(hand, s, level_rank) for s in range(4)]
    ctx = view.ctx

    def key(k: int) -> tuple:
        special = ctx.is_trump[k] if ctx is not None else is_special(k, level_rank)
        value = card_value(ctx, k) if ctx is not None else blind_value(k, level_rank)
        suit = k // NUM_RANKS if k < 4 * NUM_RANKS else 4
        short = lengths[suit] if suit < 4 else 99
        return (special, POINTS[k] > 0, hand[k] >= 2, value + 1.5 * short, k)

    pool = sorted((k for k in range(NUM_KINDS) for _ in range(hand[k])), key=key)
    return pool[:size]


def choose_first_lead(view: Any) -> tuple[int, ...]:
    """The single-card first lead with the trump still hidden: an unpaired plain ace if held (it wins
    unless its suit is trump), else the lowest pointless non-special card of a short suit; pairs kept."""
    hand = view.hand
    level_rank = level_rank_of(view.level)
    held = [k for k in range(NUM_KINDS) if hand[k]]
    lengths = [suit_length(hand, s, level_rank) for s in range(4)]
    aces = [k for k in held if k < 4 * NUM_RANKS and k % NUM_RANKS == NUM_RANKS - 1 and hand[k] == 1
            and not is_special(k, level_rank)]
    if aces:
        return (min(aces, key=lambda k: lengths[k // NUM_RANKS]),)
    plain = [k for k in held if not is_special(k, level_rank)]
    if not plain:
        return (min(held, key=lambda k: blind_value(k, level_rank)),)
    return (min(plain, key=lambda k: (POINTS[k] > 0, hand[k] >= 2,
                                      blind_value(k, level_rank) + 1.5 * lengths[k // NUM_RANKS])),)
