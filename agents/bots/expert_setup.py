"""The expert bot's decisions before the first trick: the trump bid (亮主/反主) and the kitty (扣底).

Bidding weighs how good each possible trump would be for this hand
(:func:`agents.bots.heuristics.trump_strength_for`) against the cards dealt so far;
the burial searches which plain suits to void and fills the rest with the
cheapest cards, pricing points and pairs so they stay in hand.

Decks (RULES.md 11): the bids are the ladder's (more cards beat fewer; a bid's
``count`` cards are shown), a triple or quad is priced as that many pairs' worth
in the burial, and the card counts tuned for the 25-card hand (when to start
bidding, the joker bid's trumps, the 炒地皮 margin) scale with the layout's hand.
"""

from __future__ import annotations

from itertools import combinations

from agents.bots.heuristics import card_value, scaled, trump_count_for, trump_strength_for
from env.core.cards import NUM_KINDS, NUM_SUITS, POINTS, RANKS
from env.core.suits import TRUMP
from env.standard.bidding import Bid
from env.standard.layout import LAYOUT
from env.standard.view import PlayerView

BID_SHARE = 0.33
"""Bid when the strength score of a trump reaches this share of the cards held."""
OVERCALL_SHARE = 0.30
"""A lower bar to overturn an opponents' bid (反主): it also takes their trump away."""
MIN_CARDS_TO_BID = 6
"""Early in the deal a good share means little: wait for this many cards (of 25: scaled to the hand)."""
JOKER_BID_TRUMPS = 5
"""Trumps (of 25 cards: scaled to the hand) that make a no-trump overcall worth it."""
VOID_BONUS = 40
"""Value of a plain suit emptied by the burial: it can be ruffed from the first trick."""
POINT_WEIGHT = 2
"""Buried points are paid back multiplied if the defenders take the last trick."""
REBID_MARGIN = 3.0
"""炒地皮: overcall only when the new trump's strength score beats the current trump's by this much."""


def _answer_to_own_side(view: PlayerView) -> tuple[bool, Bid | None]:
    """``(True, answer)`` when the bid is settled before any judgement: nothing to bid (pass), our own
    standing bid (strengthen it: the only option left to us), our partner's (never overturn it)."""
    options = view.bid_options
    if not options:
        return True, None
    standing = view.standing_bid
    if standing is not None and standing.seat == view.seat:
        return True, options[0]
    if standing is not None and (standing.seat - view.seat) % 2 == 0:
        return True, None
    return False, None


def choose_bid(view: PlayerView) -> Bid | None:
    """The bid to make, or ``None`` to pass.

    * Strengthen our own standing bid (自保: a single to a pair, from three decks a pair to a
      triple) whenever we can.
    * Never overturn the partner's bid.
    * Otherwise bid the best option whose trump strength reaches ``BID_SHARE``
      of the cards held (``OVERCALL_SHARE`` against an opponents' bid), once
      ``MIN_CARDS_TO_BID`` cards are dealt (or in the final round).
    * A joker pair (no-trump) is bid against an opponents' bid when no suit of
      ours is good enough but we hold level cards and jokers.
    """
    settled, answer = _answer_to_own_side(view)
    if settled:
        return answer
    options, standing = view.bid_options, view.standing_bid
    hand = view.hand
    held = sum(hand)
    hand_size = view.ruleset.layout.hand_size
    if held < scaled(MIN_CARDS_TO_BID, hand_size):
        return None
    level = RANKS.index(view.level)
    share = OVERCALL_SHARE if standing is not None else BID_SHARE
    best, best_score = None, 0.0
    for option in options:
        if option.is_joker:
            continue
        score = trump_strength_for(hand, level, option.suit) / held
        if score >= share and (score, option.strength) > (best_score, best.strength if best else 0):
            best, best_score = option, score
    if best is not None or standing is None:
        return best
    jokers = [o for o in options if o.is_joker]
    if jokers and trump_count_for(hand, level, None) >= scaled(JOKER_BID_TRUMPS, hand_size):
        return jokers[0]
    return None


def choose_rebid(view: PlayerView) -> Bid | None:
    """The 炒地皮 bid to make (RULES.md 9), or ``None`` to pass.

    * Reinforce our own standing single (加固) whenever we can.
    * Never overturn the partner's bid.
    * Otherwise overcall with the suit whose trump strength beats the current
      trump's by ``REBID_MARGIN`` and reaches ``OVERCALL_SHARE`` of the cards
      held: the kitty comes with it, but so does a burial the others may punish.
    """
    settled, answer = _answer_to_own_side(view)
    if settled:
        return answer
    options = view.bid_options
    hand, held = view.hand, sum(view.hand)
    level = RANKS.index(view.level)
    current = trump_strength_for(hand, level, view.ctx.trump_suit if view.ctx is not None else None)
    best, best_score = None, current + REBID_MARGIN * view.ruleset.layout.hand_size / LAYOUT.hand_size
    for option in options:
        if option.is_joker:
            continue
        score = trump_strength_for(hand, level, option.suit)
        if score >= best_score and score >= OVERCALL_SHARE * held:
            best, best_score = option, score
    return best


def choose_return(view: PlayerView) -> int:
    """The card to return to a tribute giver: the cheapest to part with by the burial's prices."""
    return min(view.tribute_options, key=lambda k: (_bury_price(view, k), k))


def _bury_price(view: PlayerView, kind: int, point_weight: float = POINT_WEIGHT) -> float:
    """What burying one copy of ``kind`` loses: its value, its points, a pair (a tuple of m: m - 1 pairs'
    worth), a top card."""
    ctx, hand = view.ctx, view.hand
    price = float(card_value(ctx, kind)) + point_weight * POINTS[kind]
    if hand[kind] >= 2:
        price += 8 * (hand[kind] - 1)
    suit = ctx.suit[kind]
    if suit != TRUMP and ctx.order[kind] == ctx.suit_size[suit] - 1:
        price += 10
    return price


def burial_plans(view: PlayerView, point_weight: float = POINT_WEIGHT) -> list[tuple[float, list[int]]]:
    """Every burial the expert considers, as ``(cost, cards)``, cheapest first (ties in the order tried).

    Every set of plain suits short enough to bury whole is tried; each emptied
    suit earns ``VOID_BONUS``; the rest of the kitty is filled with the lowest
    priced plain cards (trumps only when nothing else is left). ``point_weight``
    prices a buried point (the expert's own is :data:`POINT_WEIGHT`; a search
    asks for dearer points to get burials that keep them in hand).
    """
    ctx, hand = view.ctx, view.hand
    kitty_size = view.ruleset.layout.kitty_size
    held = [k for k in range(NUM_KINDS) if hand[k]]
    price = {k: _bury_price(view, k, point_weight) for k in held}
    plain_by_suit = {s: [k for k in held if ctx.suit[k] == s] for s in range(NUM_SUITS)}
    plain_by_suit = {s: ks for s, ks in plain_by_suit.items() if ks}
    lengths = {s: sum(hand[k] for k in ks) for s, ks in plain_by_suit.items()}
    short = [s for s in plain_by_suit if lengths[s] <= kitty_size]
    pool = sorted((k for k in held for _ in range(hand[k])),
                  key=lambda k: (ctx.suit[k] == TRUMP, price[k], k))
    plans: list[tuple[float, list[int]]] = []
    for size in range(len(short) + 1):
        for voided in combinations(short, size):
            if sum(lengths[s] for s in voided) > kitty_size:
                continue
            chosen = [k for s in voided for k in plain_by_suit[s] for _ in range(hand[k])]
            rest = [k for k in pool if ctx.suit[k] not in voided]
            chosen += rest[:kitty_size - len(chosen)]
            total = sum(price[k] for k in chosen) + 100 * sum(ctx.suit[k] == TRUMP for k in chosen)
            plans.append((total - VOID_BONUS * size, chosen))
    return sorted(plans, key=lambda plan: plan[0])  # a stable sort: the first tried wins a tie


def choose_burial(view: PlayerView) -> list[int]:
    """The kitty's cards to bury: void short plain suits where it pays, then the cheapest cards
    (the cheapest of :func:`burial_plans`)."""
    return burial_plans(view)[0][1]
