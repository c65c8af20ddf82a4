"""The plays a search compares: a few distinct, legal ideas per decision, the prior's choice first.

A long suit has thousands of legal leads and follows, most of them the same
idea with different low cards. Search time goes to plays that differ in what
they do:

Leads, per effective suit held: the lowest pointless single, the highest
single, the highest and lowest pair, every tractor's highest form (with other
than two decks: every tuple and tractor of the suit's components), and the
largest throw that no unseen cards could beat (by counting).

Follows, chosen from the expert's follow list (the bounded legal list plus its
built ruffs and shaped plays): the cheapest discard, the richest feed (贴分),
the cheapest, the strongest and the richest play that takes the trick, and the
play of least keeping value.

With few legal plays (:data:`FEW_PLAYS`, as in the endgame) every one of them is a
candidate. Every candidate is checked with ``view.play_error``, so all are legal.
"""

from __future__ import annotations

from collections.abc import Iterable

from agents.bots.card_tracker import CardTracker
from agents.bots.expert_play import candidates as expert_follows
from agents.bots.heuristics import card_values, play_cost, play_points, trick_state
from env.core.cards import POINTS
from env.core.suits import NUM_EFFECTIVE_SUITS
from env.standard import tuples
from env.standard.combos import decompose_suit
from env.standard.tricks import NOT_A_WINNER, play_rank
from env.standard.view import PlayerView

FEW_PLAYS = 12
"""With at most this many legal leads or follows, all of them are candidates (whatever the limit)."""


def candidate_plays(view: PlayerView, prior: tuple[int, ...] | None, limit: int) -> list[tuple[int, ...]]:
    """Distinct legal plays for the seat to act, ``prior`` (when legal) first.

    Every legal play when there are at most :data:`FEW_PLAYS`, else up to ``limit`` ideas.
    """
    if limit < 1:
        raise ValueError(f"a search needs at least one candidate, got limit={limit}")
    few = view.legal_plays(FEW_PLAYS + 1)
    if not few.truncated and len(few.plays) <= FEW_PLAYS:
        ideas: Iterable[tuple[int, ...]] = few.plays
        limit = len(few.plays)
    else:
        ideas = lead_ideas(view) if view.lead is None else follow_ideas(view)
    found: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for play in ([prior] if prior is not None else []) + list(ideas):
        play = tuple(sorted(play))
        if play in seen or view.play_error(list(play)) is not None:
            continue
        seen.add(play)
        found.append(play)
        if len(found) == limit:
            break
    if not found:  # the prior was illegal and no idea applied: any legal play
        found.append(view.legal_plays(1).plays[0])
    return found


def lead_ideas(view: PlayerView) -> Iterable[tuple[int, ...]]:
    """Distinct lead ideas per effective suit held (see the module docstring), suits interleaved."""
    ctx, hand = view.ctx, view.hand
    tracker = CardTracker(view)
    by_suit: list[list[tuple[int, ...]]] = []
    for suit in range(NUM_EFFECTIVE_SUITS):
        kinds = [k for k in ctx.suit_kinds[suit] if hand[k]]
        if not kinds:
            continue
        ideas: list[tuple[int, ...]] = []
        # RULES.md 11: with other than two decks a component is an m-tuple or a tractor (m, k)
        components = decompose_suit(ctx, hand, suit) if ctx.decks == 2 else tuples.decompose(ctx, hand, suit)
        sure = [c for c in components if not tracker.can_beat(c, suit)]
        if len(sure) > 1:
            throw = tuple(sorted(k for c in sure for k in c.cards))
            if tracker.is_sure(throw):
                ideas.append(throw)
        ideas.append((max(kinds, key=lambda k: ctx.order[k]),))
        ideas.append((min(kinds, key=lambda k: (POINTS[k] > 0, ctx.order[k])),))
        multi = [c for c in components if c.size >= 2]
        ideas += [c.cards for c in sorted(multi, key=lambda c: (-c.size, -c.top))]
        pairs = [c for c in multi if c.size == 2]
        if len(pairs) > 1:
            ideas.append(min(pairs, key=lambda c: (any(POINTS[k] for k in c.cards), c.top)).cards)
        by_suit.append(ideas)
    # Interleave the suits so that a limit keeps each suit's best ideas.
    depth = max((len(ideas) for ideas in by_suit), default=0)
    return [ideas[i] for i in range(depth) for ideas in by_suit if i < len(ideas)]


def follow_ideas(view: PlayerView) -> Iterable[tuple[int, ...]]:
    """Distinct follow ideas (see the module docstring), from the expert's follow list."""
    ctx, hand = view.ctx, view.hand
    plays = expert_follows(view)
    state = trick_state(view)
    # Each play's points, cost and standing, computed once (a long suit has up to 160 follows).
    points = [play_points(p) for p in plays]
    costs = [play_cost(ctx, hand, p) for p in plays]
    ranks = [play_rank(ctx, view.lead, p) for p in plays]
    every = range(len(plays))
    ideas = [
        plays[min(every, key=lambda i: (points[i], costs[i], plays[i]))],
        plays[max(every, key=lambda i: (3 * points[i] - 2 * costs[i], plays[i]))],
    ]
    winners = [i for i in every if ranks[i][0] != NOT_A_WINNER and ranks[i] > state.best_rank]
    if winners:
        ideas.append(plays[min(winners, key=lambda i: (costs[i] - points[i], plays[i]))])
        ideas.append(plays[max(winners, key=lambda i: (ranks[i], -costs[i], plays[i]))])
        ideas.append(plays[max(winners, key=lambda i: (points[i], -costs[i], plays[i]))])
    values = card_values(ctx)
    ideas.append(min(plays, key=lambda p: (sum(values[k] for k in p), p)))
    return ideas
