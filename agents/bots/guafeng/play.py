"""The guafeng bots' choice of plays: follow candidates, and the expert's leads and follows.

A free follow (a follower short of the lead suit) can be any n cards, so
:func:`follow_candidates` adds to the first plays of the move generator the
two plays that matter whatever it enumerated: the cheapest legal follow and
every trump combination of the lead's type (the ruffs).
"""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.judgement import trick_so_far, wins_over
from agents.bots.guafeng.tracker import GuafengTracker
from agents.bots.heuristics import give_away_key, play_cost, play_points, richest_feed
from env.core.cards import NUM_KINDS, POINTS
from env.core.suits import TRUMP
from env.guafeng.combos import BOMB, PAIR, RUN, SINGLE, TRACTOR, Combo, classify, follow_error, standing
from env.guafeng.moves import legal_leads

MAX_PLAYS = 200
"""Plays taken from the move generator per decision (a free follow has thousands)."""
ENDGAME_CARDS = 8
"""Cards left in hand at which the expert starts planning the last trick (捡底)."""
KITTY_GUESS = 10
"""Kitty value assumed by a seat that did not bury it (the bots bury no points)."""


def cheapest_cards(ctx, hand, n: int) -> tuple[int, ...]:
    """The ``n`` cards of ``hand`` cheapest to give away: no points, low value, pairs kept."""
    pool = [k for k in range(NUM_KINDS) for _ in range(hand[k])]
    pool.sort(key=lambda k: give_away_key(ctx, hand, k))
    return tuple(sorted(pool[:n]))


def follow_candidates(view: Any, max_plays: int = MAX_PLAYS) -> list[tuple[int, ...]]:
    """Legal follows to consider: the generator's first ``max_plays``, the cheapest follow that keeps
    the duties (all the lead suit's cards owed and the rest cheapest, or the cheapest of the suit when
    any will do) and every trump ruff of the lead's shape."""
    ctx, hand, lead = view.ctx, view.hand, view.lead
    moves = view.legal_plays(max_plays)
    plays = list(moves.plays)
    if not moves.truncated:
        return plays
    seen = set(plays)
    extra = []
    owed = [k for k in ctx.suit_kinds[lead.suit] for _ in range(hand[k])]
    if len(owed) <= lead.length:
        rest = list(hand)
        for k in owed:
            rest[k] -= 1
        extra.append(tuple(sorted(owed + list(cheapest_cards(ctx, rest, lead.length - len(owed))))))
    elif lead.kind in (SINGLE, RUN):  # any cards of the suit: the cheapest of them
        suit_only = [hand[k] if ctx.suit[k] == lead.suit else 0 for k in range(NUM_KINDS)]
        extra.append(cheapest_cards(ctx, suit_only, lead.length))
    if lead.suit != TRUMP and not owed:
        trumps = [hand[k] if ctx.is_trump[k] else 0 for k in range(NUM_KINDS)]
        for play in legal_leads(ctx, trumps).plays:
            if len(play) == lead.length:
                extra.append(play)
    for play in extra:
        if play not in seen and follow_error(ctx, hand, play, lead) is None:
            seen.add(play)
            plays.append(play)
    return plays


def kitty_stake(view: Any) -> int:
    """What the last trick carries besides its cards: the kitty's value times the multiplier (捡底)."""
    lead = view.lead
    if sum(view.hand) != lead.length:
        return 0
    value = view.ruleset.kitty_points(view.kitty) if view.kitty is not None else KITTY_GUESS
    return value * view.ruleset.kitty_multiplier(lead)


# ---------------------------------------------------------------------------- following

def expert_follow(view: Any, tracker: GuafengTracker) -> tuple[int, ...]:
    """Feed a safe partner, win cheaply when it pays and nobody after can beat us, else discard cheaply."""
    ctx, hand = view.ctx, view.hand
    plays = follow_candidates(view)
    if len(plays) == 1:
        return plays[0]
    trick = trick_so_far(view)
    partner = (view.seat + 2) % 4
    opponents_after = [s for s in trick.after if s != partner]
    stake = trick.points + kitty_stake(view)
    if trick.winner == partner and not tracker.beaters(view.lead, trick.best, opponents_after):
        return richest_feed(view.ctx, view.hand, plays)
    cheapest = min(plays, key=lambda p: (play_points(p), play_cost(ctx, hand, p), p))
    winners = [p for p in plays if wins_over(view, p, trick.best)]
    if winners:
        safe = [p for p in winners
                if not tracker.beaters(view.lead, standing(ctx, view.lead, p), opponents_after)]
        if safe:
            win = min(safe, key=lambda p: (play_cost(ctx, hand, p) - play_points(p), p))
            extra = play_cost(ctx, hand, win) - play_cost(ctx, hand, cheapest)
            worth = stake + play_points(win) - play_points(cheapest)
            if worth >= 5 or extra <= 0 or worth * 2 >= extra:
                return win
        elif trick.winner != partner and stake >= 10:
            return max(winners, key=lambda p: (standing(ctx, view.lead, p), -play_cost(ctx, hand, p), p))
    return cheapest


# ---------------------------------------------------------------------------- leading

def _combos(view: Any) -> list[Combo]:
    return [classify(view.ctx, p) for p in legal_leads(view.ctx, view.hand).plays]


def expert_lead(view: Any, tracker: GuafengTracker) -> tuple[int, ...]:
    """The expert's lead (after the first trick), in this order:

    1. the whole hand if it is one combination (the last trick, paid x its length);
    2. in the endgame, keep the lead: cash sure combinations, the longest last;
    3. cash sure plain-suit combinations (nobody can follow higher or ruff), longest and richest first;
    4. shed a plain run (雨) or tractor: they are beaten only by a higher one of the suit or a trump one;
    5. draw trumps with sure trump combinations when long in trump;
    6. lead a plain suit the partner is void in, low;
    7. else a low pointless pair (刮风 breaks the followers' pairs), else a low single of a short suit.
    """
    ctx, hand = view.ctx, view.hand
    others = [s for s in range(4) if s != view.seat]
    opponents = [(view.seat + 1) % 4, (view.seat + 3) % 4]
    combos = _combos(view)
    n_cards = sum(hand)
    whole = [c for c in combos if c.length == n_cards]
    if whole:
        return whole[0].cards
    sure = [c for c in combos if not tracker.beaters(c, (1, c.size), opponents if c.suit == TRUMP else others)]
    if n_cards <= ENDGAME_CARDS and sure:
        biggest = max(sure, key=lambda c: (c.length, c.suit == TRUMP, c.size))
        rest = [c for c in sure if not set(c.cards) & set(biggest.cards)]
        if rest:
            return min(rest, key=lambda c: (c.length, -play_points(c.cards), c.size)).cards
        if biggest.length == 1 or n_cards == biggest.length:
            return biggest.cards
    plain_sure = [c for c in sure if c.suit != TRUMP and c.kind != BOMB]
    if plain_sure:
        return max(plain_sure, key=lambda c: (c.length, play_points(c.cards), c.size)).cards
    sheds = [c for c in combos if c.suit != TRUMP and c.kind in (RUN, TRACTOR)
             and not any(tracker.void[o][c.suit] and not tracker.void[o][TRUMP] for o in opponents)]
    if sheds:
        return max(sheds, key=lambda c: (c.length, -c.size)).cards
    trumps = sum(hand[k] for k in ctx.suit_kinds[TRUMP])
    trump_sure = [c for c in sure if c.suit == TRUMP and c.kind != BOMB]
    if trump_sure and trumps * (1 if view.is_dealer_team() else 2) >= tracker.unseen_in(TRUMP) // 2 \
            and not all(tracker.void[o][TRUMP] for o in opponents):
        return max(trump_sure, key=lambda c: (c.length, c.size)).cards
    partner = (view.seat + 2) % 4
    plain_suits = {c.suit for c in combos if c.suit != TRUMP}
    for suit in plain_suits:
        if tracker.void[partner][suit] and not tracker.void[partner][TRUMP] and \
                not any(tracker.void[o][suit] for o in opponents):
            return (min((k for k in ctx.suit_kinds[suit] if hand[k]), key=lambda k: (POINTS[k] > 0, ctx.order[k])),)
    return low_lead(view, tracker, combos, opponents)


def low_lead(view: Any, tracker: GuafengTracker, combos: list[Combo], opponents: list[int]) -> tuple[int, ...]:
    """A low pointless plain pair, else a low single from a short plain suit (towards a void), else the lowest trump."""
    ctx, hand = view.ctx, view.hand
    length = [sum(hand[k] for k in ctx.suit_kinds[s]) for s in range(5)]

    def ruffable(suit: int) -> bool:
        return any(tracker.void[o][suit] and not tracker.void[o][TRUMP] for o in opponents)

    pairs = [c for c in combos if c.kind == PAIR and c.suit != TRUMP and not POINTS[c.cards[0]]
             and not ruffable(c.suit)]
    if pairs:
        return min(pairs, key=lambda c: c.size).cards
    singles = [c for c in combos if c.kind == SINGLE and c.suit != TRUMP]
    if singles:
        return min(singles, key=lambda c: (POINTS[c.cards[0]] > 0, ruffable(c.suit), hand[c.cards[0]] >= 2,
                                           length[c.suit], c.size)).cards
    singles = [c for c in combos if c.kind == SINGLE]
    return min(singles, key=lambda c: (POINTS[c.cards[0]] > 0, c.size)).cards
