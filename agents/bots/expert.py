"""ExpertAgent: the strongest hand-written policy of the project, built on card counting.

The policy, decision by decision (each rule explained where it is coded):

Bidding and kitty (:mod:`agents.bots.expert_setup`)
    Bid by trump count and strength (jokers, level cards, pairs, the ace of the
    suit) relative to the cards dealt so far; strengthen our own single (自保);
    never overturn the partner; overcall the opponents (反主) with a lower bar,
    with a joker pair when no suit is good. Bury to void short plain suits,
    keep points, pairs, aces and trumps.

Card counting (:mod:`agents.bots.card_tracker`)
    From the public record only: the unseen cards, known voids and known
    "no pairs left" per seat and effective suit.

Leading
    1. With one effective suit left, lead it all if the throw is safe.
    2. Defenders near the end keep a sure trump pair or tractor for the last
       trick (the kitty is paid x4 or more on it); the dealer's team with the
       lead at the end cashes its sure trumps to protect the kitty.
    3. Cash sure winners in plain suits: the largest throw (甩牌) that no unseen
       card set could beat, when no opponent is likely to ruff it.
    4. Draw trumps (调主) when long in trump against what is unseen: sure trump
       components first, else a low trump pair or single.
    5. Lead a suit the partner is void in (and can ruff), low.
    6. Otherwise a low, pointless tractor, else pair, of a plain suit no
       opponent is known to ruff (it makes the opponents break their pairs;
       measured +0.06 levels per hand over singles), else a low, pointless
       single from a short plain suit (towards a void).

Following
    * Partner winning and safe (nobody after can beat it, by counting): feed
      points (贴分), paying as little keeping value as possible. Also when the
      partner plays last and is known to ruff this plain suit.
    * Else take the trick with the cheapest play that nobody after us can beat
      (ruff, or over-ruff (盖毙) an opponent) when it gains 5 points or more or
      costs nothing extra (winning pointless tricks at a price measured worse);
      with 10 points on the table and no sure winner, try the strongest winner.
      The last trick is worth the kitty as well (its points times the multiplier).
    * Else discard: no points, low value, no broken pairs, trumps kept.

Decks (RULES.md 11)
    With other than two decks a "pair" above is any tuple (a triple, a quad) and a
    tractor any tractor (m, k): holdings are read by the rules' decomposition
    (a triple stays a triple, a run of triples is led as one tractor), safety is
    asked of the tuple reading, a low tuple is led whole, and the counts tuned for
    the 25-card hand (the endgame, the trump draw, the kitty guess) scale with the
    layout (:func:`~agents.bots.heuristics.scaled`). Two decks play as before.

Everything a decision uses comes from the seat's :class:`~env.standard.view.PlayerView`.
"""

from __future__ import annotations

from agents.base import Agent
from agents.bots.card_tracker import CardTracker
from agents.bots.expert_play import candidates
from agents.bots.expert_setup import choose_bid, choose_burial, choose_rebid, choose_return
from agents.bots.heuristics import (
    TrickState,
    card_value,
    play_cost,
    play_points,
    richest_feed,
    scaled,
    suit_components,
    trick_state,
)
from env.core.cards import NUM_KINDS, POINTS
from env.core.suits import TRUMP
from env.standard import tuples
from env.standard.bidding import Bid
from env.standard.combos import Component
from env.standard.layout import LAYOUT
from env.standard.tricks import FOLLOWS_SHAPE, NOT_A_WINNER, RUFFS, lead_requirements, play_rank
from env.standard.view import PlayerView

ENDGAME_CARDS = 6
"""Cards left in hand at which the last-trick (kitty) plans start (in a 25-card hand: scaled to the layout's)."""
KITTY_GUESS = 10
"""Kitty points assumed by a seat that did not bury it (of an 8-card kitty: scaled to the layout's)."""


class ExpertAgent(Agent):
    """Rule-based player: card counting, safe throws, trump drawing, partner-aware ruffs and feeding."""

    name = "expert"

    def __init__(self, seed: int | None = None):
        self.seed = seed  # the policy is deterministic; the seed is kept for the registry's signature

    def bid(self, view: PlayerView) -> Bid | None:
        return choose_bid(view)

    def bury(self, view: PlayerView) -> list[int]:
        return choose_burial(view)

    def rebid(self, view: PlayerView) -> Bid | None:
        return choose_rebid(view)

    def return_card(self, view: PlayerView) -> int:
        return choose_return(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        tracker = CardTracker(view)
        if view.lead is None:
            return self._lead(view, tracker)
        return self._follow(view, tracker)

    # ------------------------------------------------------------------ leading
    def _lead(self, view: PlayerView, tr: CardTracker) -> tuple[int, ...]:
        ctx, hand = view.ctx, view.hand
        opponents = ((view.seat + 1) % 4, (view.seat + 3) % 4)
        held = [k for k in range(NUM_KINDS) if hand[k]]
        suits = sorted({ctx.suit[k] for k in held})
        everything = tuple(k for k in held for _ in range(hand[k]))
        if len(suits) == 1 and (len(everything) == 1 or tr.is_sure(everything)):
            return everything
        components = {s: suit_components(ctx, hand, s) for s in suits}
        sure_trump = [c for c in components.get(TRUMP, ()) if not tr.can_beat(c, TRUMP)]
        endgame = self._endgame_lead(view, held, sure_trump)
        if endgame is not None:
            return endgame
        cash = self._cash_plain(view, tr, components, opponents)
        if cash is not None:
            return cash
        if TRUMP in components and self._draw_trumps(view, tr, opponents):
            return self._trump_lead(view, held, components[TRUMP], sure_trump)
        return self._low_lead(view, tr, held, components, opponents)

    def _endgame_lead(self, view: PlayerView, held: list[int], sure_trump: list[Component]) -> tuple[int, ...] | None:
        """Last tricks: the dealer's team cashes sure trumps (keeps the lead, protects the kitty);
        defenders keep a sure trump pair or tractor for the last trick (the kitty x4 or more)."""
        n_cards = sum(view.hand)
        if n_cards > scaled(ENDGAME_CARDS, view.ruleset.layout.hand_size) or not sure_trump:
            return None
        big = max(sure_trump, key=lambda c: (c.size, c.top))
        if view.is_dealer_team():
            return big.cards
        if big.size >= 2 and n_cards > big.size:
            rest = [k for k in held if k not in big.cards]
            if rest:
                return (min(rest, key=lambda k: (POINTS[k] > 0, card_value(view.ctx, k))),)
        return None

    def _trump_lead(self, view: PlayerView, held: list[int], trumps: list[Component],
                    sure_trump: list[Component]) -> tuple[int, ...]:
        """调主: the biggest sure trump component, else the lowest pointless trump pair, else a low trump."""
        ctx = view.ctx
        if sure_trump:
            return max(sure_trump, key=lambda c: (c.size, c.top)).cards
        pairs = [c for c in trumps if c.size >= 2 and POINTS[c.cards[0]] == 0]
        if pairs:
            return min(pairs, key=lambda c: c.top).cards
        return (min((k for k in held if ctx.suit[k] == TRUMP), key=lambda k: (POINTS[k] > 0, ctx.order[k])),)

    def _low_lead(self, view: PlayerView, tr: CardTracker, held: list[int], components: dict[int, list[Component]],
                  opponents: tuple[int, int]) -> tuple[int, ...]:
        """No sure winner to cash and no trumps to draw: feed the partner's ruff, else lead low.

        Low tractors, then low pairs, come before singles: they force the
        opponents to break their own pairs (measured +0.06 levels per hand).
        A low tuple is led whole (with more decks: a triple, not a pair of it).
        """
        ctx, hand = view.ctx, view.hand
        partner = (view.seat + 2) % 4
        plain = [s for s in components if s != TRUMP]
        for s in plain:
            if tr.void[partner][s] and not tr.void[partner][TRUMP] and not any(tr.void[o][s] for o in opponents):
                return (min((k for k in held if ctx.suit[k] == s), key=lambda k: (POINTS[k] > 0, ctx.order[k])),)
        tractors = [c for s in plain for c in components[s]
                    if c.is_tractor and not any(POINTS[k] for k in c.cards)
                    and not any(tr.void[o][s] and not tr.void[o][TRUMP] for o in opponents)]
        if tractors:
            return min(tractors, key=lambda c: c.top).cards
        if plain:
            low = min((k for k in held if ctx.suit[k] in plain), key=lambda k: self._low_lead_key(view, tr, k))
            if hand[low] >= 2 and not POINTS[low]:
                return (low,) * hand[low]
            return (low,)
        return (min(held, key=lambda k: (POINTS[k] > 0, ctx.order[k])),)

    def _low_lead_key(self, view: PlayerView, tr: CardTracker, kind: int) -> tuple:
        """Order of preference for an ordinary low lead (smaller is better): no points, no ruff, pairs (larger
        tuples first), short suits."""
        ctx, hand = view.ctx, view.hand
        suit = ctx.suit[kind]
        length = sum(hand[k] for k in ctx.suit_kinds[suit])
        ruffable = any(tr.void[o][suit] and not tr.void[o][TRUMP] for o in ((view.seat + 1) % 4, (view.seat + 3) % 4))
        return (POINTS[kind] > 0, ruffable, -hand[kind], length, ctx.order[kind])

    def _cash_plain(self, view: PlayerView, tr: CardTracker, components: dict[int, list[Component]],
                    opponents: tuple[int, int]) -> tuple[int, ...] | None:
        """The biggest safe lead of sure winners in a plain suit no opponent is known to ruff."""
        best, best_key = None, None
        for suit, comps in components.items():
            if suit == TRUMP or tr.ruff_risk(suit, opponents):
                continue
            sure = [c for c in comps if not tr.can_beat(c, suit)]
            if not sure:
                continue
            cards = tuple(sorted(k for c in sure for k in c.cards))
            if len(sure) > 1 and not tr.is_sure(cards):
                top = max(sure, key=lambda c: (c.size, c.top))
                cards = top.cards
            key = (len(cards), sum(POINTS[k] for k in cards))
            if best_key is None or key > best_key:
                best, best_key = cards, key
        return best

    def _draw_trumps(self, view: PlayerView, tr: CardTracker, opponents: tuple[int, int]) -> bool:
        """调主: worth leading trump when long in it against the unseen ones the opponents may hold."""
        if all(tr.void[o][TRUMP] for o in opponents):
            return False
        mine = sum(view.hand[k] for k in view.ctx.suit_kinds[TRUMP])
        out = tr.unseen_in(TRUMP)
        size = view.ruleset.layout.hand_size
        if view.is_dealer_team():
            return mine >= scaled(4, size) and mine * 2 >= out
        return mine >= scaled(6, size) and mine >= out

    # ------------------------------------------------------------------ following
    def _follow(self, view: PlayerView, tr: CardTracker) -> tuple[int, ...]:
        ctx, hand, me = view.ctx, view.hand, view.seat
        plays = candidates(view)
        if len(plays) == 1:
            return plays[0]
        state = trick_state(view)
        partner = (me + 2) % 4
        opponents_after = [s for s in state.after if s != partner]
        stake = state.points + self._kitty_stake(view, state)
        if state.winner == partner and not self._can_be_beaten(view, tr, state.best_rank, opponents_after):
            return richest_feed(view.ctx, view.hand, plays)
        if self._partner_will_ruff(view, tr, state, opponents_after):
            return richest_feed(view.ctx, view.hand, plays)
        cheapest = min(plays, key=lambda p: (play_points(p), play_cost(ctx, hand, p), p))
        rank = {p: play_rank(ctx, view.lead, p) for p in plays}  # each play's standing, once
        winners = [p for p in plays if rank[p][0] != NOT_A_WINNER and rank[p] > state.best_rank]
        if winners:
            safe = [p for p in winners if not self._can_be_beaten(view, tr, rank[p], opponents_after)]
            if safe:
                win = min(safe, key=lambda p: (play_cost(ctx, hand, p) - play_points(p), p))
                extra = play_cost(ctx, hand, win) - play_cost(ctx, hand, cheapest)
                worth = stake + play_points(win) - play_points(cheapest)
                if worth >= 5 or extra <= 0:
                    return win
            elif state.winner != partner and stake >= 10:
                return max(winners, key=lambda p: (rank[p], -play_cost(ctx, hand, p), p))
        return cheapest

    def _partner_will_ruff(self, view: PlayerView, tr: CardTracker, state: TrickState,
                           opponents_after: list[int]) -> bool:
        """The partner plays last, is known void in the plain lead suit and has trumps: it can ruff."""
        partner = (view.seat + 2) % 4
        suit = view.lead.suit
        if suit == TRUMP or not state.after or state.after[-1] != partner or view.lead.is_throw:
            return False
        if not tr.void[partner][suit] or tr.void[partner][TRUMP] or state.best_rank[0] == RUFFS:
            return False
        return not any(tr.void[o][suit] for o in opponents_after)

    def _kitty_stake(self, view: PlayerView, state: TrickState) -> int:
        """Points the last trick carries on top of the table: the kitty, multiplied."""
        if sum(view.hand) != view.lead.n:
            return 0
        kitty = view.ruleset.kitty_points(view.kitty) if view.kitty else \
            scaled(KITTY_GUESS, view.ruleset.layout.kitty_size, LAYOUT.kitty_size)
        return kitty * view.ruleset.kitty_multiplier(view.lead)

    def _can_be_beaten(self, view: PlayerView, tr: CardTracker, rank: tuple[int, int],
                       seats: list[int]) -> bool:
        """Could one of ``seats`` (still to play) beat a play of this rank, by what is unseen?"""
        if not seats:
            return False
        if view.ctx.decks != 2:
            return self._can_be_beaten_tuples(view, tr, rank, seats)
        lead = view.lead
        suit = lead.suit
        category, key = rank
        for s in seats:
            may_ruff = suit != TRUMP and not tr.void[s][TRUMP] and (tr.void[s][suit] or tr.unseen_in(suit) == 0)
            if category == FOLLOWS_SHAPE:
                if not lead.is_throw and tr.can_beat(Component(lead.n, key, ()), suit, [s]):
                    return True
                if may_ruff:
                    return True
            elif category == RUFFS and may_ruff:
                main = lead.tractor_lengths[0] * 2 if lead.tractor_lengths else (2 if lead.pairs else 1)
                if tr.can_beat(Component(main, key, ()), TRUMP, [s]):
                    return True
        return False

    def _can_be_beaten_tuples(self, view: PlayerView, tr: CardTracker, rank: tuple[int, int],
                              seats: list[int]) -> bool:
        """:meth:`_can_be_beaten` in RULES.md 11's reading: a unit of the lead's shape above ours, or a ruff
        whose unit of the lead's most important shape is higher."""
        lead = view.lead
        suit = lead.suit
        category, key = rank
        reqs = lead_requirements(lead)
        for s in seats:
            may_ruff = suit != TRUMP and not tr.void[s][TRUMP] and (tr.void[s][suit] or tr.unseen_in(suit) == 0)
            if category == FOLLOWS_SHAPE:
                if not lead.is_throw and tr.can_beat_shape(tuples.shape_of(lead.components[0]), key, suit, [s]):
                    return True
                if may_ruff:
                    return True
            elif category == RUFFS and may_ruff and tr.can_beat_shape(reqs[0] if reqs else (1, 1), key, TRUMP, [s]):
                return True
        return False
