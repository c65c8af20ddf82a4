"""Candidate plays for the expert bot: the legal list, completed by plays built on purpose.

``PlayerView.legal_plays`` is bounded, and its order (weakest kinds first)
means a long holding can hide the strongest follows and the trump ruffs past
the bound. The builders here add the plays a policy cares about (cheapest
ruff, strongest ruff, highest tractor, lowest discard, richest feed), each
checked with ``view.play_error`` so a candidate is always legal.

Decks (RULES.md 11): with other than two decks the shaped plays are built unit by
unit from the lead's requirements (m, k) (a tractor of triples, a triple, a pair),
each m-tuple from a kind with at least m copies left (exactly m preferred, so a
quad is not broken for a triple when a triple is held).
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.bots.heuristics import card_value
from env.core.cards import NUM_KINDS, POINTS
from env.core.suits import TRUMP
from env.standard.combos import pair_counts
from env.standard.tricks import effective_suit_count, lead_requirements
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

MAX_ENUMERATED = 160


def _pair_kinds_by_index(ctx: TrumpContext, hand: Sequence[int], suit: int) -> dict[int, list[int]]:
    pairs: dict[int, list[int]] = {}
    for k in ctx.suit_kinds[suit]:
        if hand[k] >= 2:
            pairs.setdefault(ctx.order[k], []).append(k)
    return pairs


def _take_run(ctx: TrumpContext, left: list[int], suit: int, length: int, highest: bool) -> list[int] | None:
    """Take ``length`` consecutive pairs of ``suit`` out of ``left`` (lowest or highest run)."""
    pc = pair_counts(ctx, left, suit)
    pairs = _pair_kinds_by_index(ctx, left, suit)
    starts = [i - length + 1 for i in range(length - 1, len(pc)) if all(pc[j] for j in range(i - length + 1, i + 1))]
    if not starts:
        return None
    start = max(starts) if highest else min(starts)
    cards = []
    for i in range(start, start + length):
        kinds = sorted(pairs[i], key=lambda k: card_value(ctx, k))
        k = kinds[0]
        left[k] -= 2
        cards += [k, k]
    return cards


def _take_unit(ctx: TrumpContext, left: list[int], suit: int, m: int, k: int, highest: bool) -> list[int] | None:
    """Take a unit (m, k) (k consecutive m-tuples) of ``suit`` out of ``left`` (lowest or highest run)."""
    at: dict[int, list[int]] = {}
    for kind in ctx.suit_kinds[suit]:
        if left[kind] >= m:
            at.setdefault(ctx.order[kind], []).append(kind)
    tops = [i for i in at if all(j in at for j in range(i - k + 1, i))]
    if not tops:
        return None
    top = max(tops) if highest else min(tops)
    cards = []
    for i in range(top - k + 1, top + 1):
        kind = min(at[i], key=lambda q: (left[q] > m, card_value(ctx, q)))
        left[kind] -= m
        cards += [kind] * m
    return cards


def build_shaped(view: PlayerView, suit: int, highest: bool) -> tuple[int, ...] | None:
    """Cards of ``suit`` matching the lead's format (tractors, pairs, singles), lowest or highest.

    Used for ruffs (``suit`` = trump) and for strong follows in the lead suit.
    Returns ``None`` when the holding cannot match the format.
    """
    ctx, lead = view.ctx, view.lead
    left = list(view.hand)
    cards: list[int] = []
    if ctx.decks != 2:
        for m, k in lead_requirements(lead):
            unit = _take_unit(ctx, left, suit, m, k, highest)
            if unit is None:
                return None
            cards += unit
        return _add_singles(ctx, left, suit, cards, len(lead.cards), highest)
    for length in lead.tractor_lengths:
        run = _take_run(ctx, left, suit, length, highest)
        if run is None:
            return None
        cards += run
    for _ in range(lead.pairs):
        run = _take_run(ctx, left, suit, 1, highest)
        if run is None:
            return None
        cards += run
    return _add_singles(ctx, left, suit, cards, len(lead.cards), highest)


def _add_singles(ctx: TrumpContext, left: list[int], suit: int, cards: list[int], n: int,
                 highest: bool) -> tuple[int, ...] | None:
    """``cards`` completed to ``n`` cards with singles of ``suit`` from ``left``, or ``None`` if too few."""
    singles = n - len(cards)
    pool = [k for k in ctx.suit_kinds[suit] for _ in range(left[k])]
    if len(pool) < singles:
        return None
    # Singles: unpaired cards first, then the cheapest (or strongest) of the rest.
    pool.sort(key=lambda k: (left[k] >= 2, -card_value(ctx, k) if highest else card_value(ctx, k)))
    cards += pool[:singles]
    return tuple(sorted(cards))


def build_fill(view: PlayerView, feed: bool) -> tuple[int, ...] | None:
    """A follow that plays what the lead suit demands, filling the rest cheaply.

    With ``feed`` the fill prefers point cards (for a partner who wins), else it
    avoids them. Only when the lead suit is short (every card of it must go).
    """
    ctx, hand, lead = view.ctx, view.hand, view.lead
    held = effective_suit_count(ctx, hand, lead.suit)
    if held >= lead.n:
        return None
    forced = [k for k in ctx.suit_kinds[lead.suit] for _ in range(hand[k])]
    others = [k for k in range(NUM_KINDS) for _ in range(hand[k]) if ctx.suit[k] != lead.suit]
    if feed:
        others.sort(key=lambda k: (-POINTS[k], ctx.suit[k] == TRUMP, card_value(ctx, k)))
    else:
        others.sort(key=lambda k: (POINTS[k] > 0, ctx.suit[k] == TRUMP, card_value(ctx, k), hand[k] >= 2))
    return tuple(sorted(forced + others[:lead.n - held]))


def candidates(view: PlayerView) -> list[tuple[int, ...]]:
    """Legal follows worth considering: the bounded legal list plus the built ones."""
    plays = view.legal_plays(MAX_ENUMERATED)
    found = set(plays.plays)
    ctx, lead = view.ctx, view.lead
    built: list[tuple[int, ...] | None] = [build_fill(view, True), build_fill(view, False)]
    if effective_suit_count(ctx, view.hand, lead.suit) == 0 and lead.suit != TRUMP:
        built += [build_shaped(view, TRUMP, False), build_shaped(view, TRUMP, True)]
    elif plays.truncated:
        built += [build_shaped(view, lead.suit, True), build_shaped(view, lead.suit, False)]
    for play in built:
        if play is not None and play not in found and view.play_error(list(play)) is None:
            found.add(play)
            plays.plays.append(play)
    return plays.plays
