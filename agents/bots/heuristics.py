"""Small shared judgements of the rule bots: card value, trump strength, the trick so far.

Nothing here decides a rule; trick winners and play ranks come from
:mod:`env.rules`. These are the bots' *opinions* (how much a card is worth
keeping, how strong a trump holding is), kept in one place so the greedy and
the expert bot price cards the same way.

Decks (RULES.md 11): a "pair" here is any tuple (a kind held twice or more);
with two decks that is a pair. Counts tuned on the two-deck hand of 25 cards are
scaled to the layout's hand by :func:`scaled`, which leaves them unchanged there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_KINDS, NUM_SUITS, POINTS, kind_of
from env.core.suits import TRUMP
from env.standard import tuples
from env.standard.combos import Component, decompose_suit
from env.standard.layout import LAYOUT
from env.standard.tricks import NOT_A_WINNER, play_rank, winning_play
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

TWO_DECKS = 2
"""The deck count the bots were written and tuned for; other counts take the general readings."""

TRUMP_BASE = 20
"""Keeping value of the weakest trump: above every plain card (a plain A is 11 or 12)."""
PAIR_BREAK = 6
"""Extra value lost when a play splits a pair."""


def scaled(count: int, size: int, base: int = LAYOUT.hand_size) -> int:
    """A count tuned for ``base`` (the two-deck hand of 25 cards) scaled to ``size``, rounded half up
    (``count`` itself when ``size == base``)."""
    return (2 * count * size + base) // (2 * base)


def suit_components(ctx: TrumpContext, counts: Sequence[int], suit: int) -> list[Component]:
    """The components of one effective suit of a holding as the rules read a lead of it: pairs and tractors of
    pairs with two decks (:func:`env.standard.combos.decompose_suit`), m-tuples and tractors (m, k) otherwise
    (:func:`env.standard.tuples.decompose`: a triple stays a triple)."""
    if ctx.decks == TWO_DECKS:
        return decompose_suit(ctx, counts, suit)
    return tuples.decompose(ctx, counts, suit)


def card_value(ctx: TrumpContext, kind: int) -> int:
    """How much a card is worth keeping: its order index, trumps above all plain cards."""
    if ctx.suit[kind] == TRUMP:
        return TRUMP_BASE + ctx.order[kind]
    return ctx.order[kind]


def give_away_key(ctx: TrumpContext, hand: Sequence[int], kind: int) -> tuple[bool, int, int]:
    """Sort key of the cards cheapest to give away (discards, fills, 回牌): no points first, then low
    keeping value, a card of a held pair counting :data:`PAIR_BREAK` more."""
    return POINTS[kind] > 0, card_value(ctx, kind) + (PAIR_BREAK if hand[kind] >= 2 else 0), kind


@lru_cache(maxsize=1024)
def card_values(ctx: TrumpContext) -> tuple[int, ...]:
    """:func:`card_value` of every kind under ``ctx`` (asked for hundreds of thousands of cards a minute)."""
    return tuple(card_value(ctx, k) for k in range(NUM_KINDS))


def play_cost(ctx: TrumpContext, hand: Sequence[int], play: Sequence[int]) -> int:
    """Keeping value spent by a play: card values plus a charge for every pair it splits."""
    values = card_values(ctx)
    return sum(values[k] for k in play) + PAIR_BREAK * split_pairs(hand, play)


def split_pairs(hand: Sequence[int], play: Sequence[int]) -> int:
    """How many of the hand's pairs (tuples) the play splits: plays some but not all of their copies."""
    return sum(1 for k in set(play) if hand[k] >= 2 and 0 < play.count(k) < hand[k])


def richest_feed(ctx: TrumpContext, hand: Sequence[int], plays: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """贴分: of ``plays``, the one that gives the most points for the least keeping value."""
    return max(plays, key=lambda p: (3 * play_points(p) - 2 * play_cost(ctx, hand, p), p))


def play_points(play: Sequence[int]) -> int:
    """Points carried by the cards of a play."""
    return sum(POINTS[k] for k in play)


def trump_count_for(hand: Sequence[int], level: int, suit: int | None) -> int:
    """How many of ``hand``'s cards would be trump with this level rank and trump suit."""
    count = hand[LITTLE_JOKER] + hand[BIG_JOKER]
    for s in range(NUM_SUITS):
        count += hand[kind_of(s, level)]
        if s == suit:
            count += sum(hand[kind_of(s, r)] for r in range(13) if r != level)
    return count


def trump_strength_for(hand: Sequence[int], level: int, suit: int | None) -> float:
    """A bidding score for a trump choice: trump count, jokers and level cards weigh more, pairs add
    (a tuple of m copies as m - 1 pairs' worth)."""
    score = float(trump_count_for(hand, level, suit))
    score += 1.0 * hand[BIG_JOKER] + 0.7 * hand[LITTLE_JOKER]
    for s in range(NUM_SUITS):
        score += 0.4 * hand[kind_of(s, level)]
        if s == suit:
            score += sum(0.5 * (hand[kind_of(s, r)] - 1) for r in range(13) if r != level and hand[kind_of(s, r)] >= 2)
            score += 0.3 * hand[kind_of(s, 12)] if level != 12 else 0.0
    return score


class TrickState(NamedTuple):
    """The current trick seen from the player to act.

    ``winner``: the seat now winning; ``best_rank``: its ``(category, key)`` as
    :func:`env.standard.tricks.play_rank` orders plays; ``points``: points on the table;
    ``position``: how many plays came before ours (1..3); ``after``: seats still
    to play after us.
    """

    winner: int
    best_rank: tuple[int, int]
    points: int
    position: int
    after: tuple[int, ...]


def trick_state(view: PlayerView) -> TrickState:
    """Who is winning the current trick and what is on the table (call only when following)."""
    ctx, lead, plays = view.ctx, view.lead, view.trick_plays
    best = winning_play(ctx, lead, plays[1:])
    rank = lead.rank if best == 0 else play_rank(ctx, lead, plays[best])
    winner = (view.leader + best) % 4
    position = len(plays)
    after = tuple((view.seat + i) % 4 for i in range(1, 4 - position))
    return TrickState(winner, rank, sum(play_points(p) for p in plays), position, after)


def beats(ctx: TrumpContext, view: PlayerView, play: Sequence[int], best_rank: tuple[int, int]) -> bool:
    """True if ``play`` would take the trick from the play now winning it."""
    rank = play_rank(ctx, view.lead, play)
    return rank[0] != NOT_A_WINNER and rank > best_rank


def lowest_cards(ctx: TrumpContext, hand: Sequence[int], kinds: Sequence[int], n: int) -> list[int]:
    """The ``n`` cheapest cards among ``kinds`` (with repeats as held): no points, low value first."""
    pool = [k for k in kinds for _ in range(hand[k])]
    pool.sort(key=lambda k: (POINTS[k] > 0, card_value(ctx, k), POINTS[k], k))
    return pool[:n]


def greedy_lead(ctx: TrumpContext, hand: Sequence[int]) -> tuple[int]:
    """The greedy bots' lead (any rule set): the top card of a plain suit (an ace) if held, else the
    cheapest plain single (a trump only when no plain card is left)."""
    held = [k for k in range(NUM_KINDS) if hand[k]]
    plain = [k for k in held if ctx.suit[k] != TRUMP]
    tops = [k for k in plain if ctx.order[k] == ctx.suit_size[ctx.suit[k]] - 1]
    if tops:
        return (tops[0],)
    pool = plain or held
    return (min(pool, key=lambda k: (POINTS[k] > 0, card_value(ctx, k), k)),)


def greedy_follow(ctx: TrumpContext, hand: Sequence[int], plays: Sequence[tuple[int, ...]], partner_winning: bool,
                  trick_points: int, wins: Callable[[tuple[int, ...]], bool]) -> tuple[int, ...]:
    """The greedy bots' follow (any rule set) among the legal ``plays``: the most points for the least
    value when the partner is winning; else the cheapest play that ``wins`` the trick when points are on
    the table (``trick_points`` and its own) or it costs little more than losing; else the cheapest loss."""
    if partner_winning:
        return max(plays, key=lambda p: (play_points(p), -play_cost(ctx, hand, p)))
    cheapest_loss = min(plays, key=lambda p: (play_points(p), play_cost(ctx, hand, p)))
    winners = [p for p in plays if wins(p)]
    if winners:
        win = min(winners, key=lambda p: (play_cost(ctx, hand, p), -play_points(p)))
        extra = play_cost(ctx, hand, win) - play_cost(ctx, hand, cheapest_loss)
        if trick_points + play_points(win) >= 10 or extra <= 8:
            return win
    return cheapest_loss
