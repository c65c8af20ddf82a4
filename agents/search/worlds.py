"""Sampled worlds: deals of the unseen cards that agree with everything one seat knows.

Perfect Information Monte Carlo search needs complete deals to play out. A
:class:`WorldSampler` reads what a seat may know from its
:class:`~env.standard.view.PlayerView` and deals the cards it cannot see to the other
three hands and (when the seat did not bury it) the kitty, so that every world
is consistent with:

* the seat's own hand, every card played, the hand sizes and the kitty size,
  with ``d`` copies of every kind in a game of ``d`` decks (RULES.md 11);
* the kitty itself, for the dealer who buried it;
* known voids (a follower who played fewer cards of the led effective suit
  than were led holds none of it, :class:`~agents.bots.card_tracker.CardTracker`);
* the cards of the standing bid (亮主): the bidder showed them, so those it has
  not played since are still in its hand (or in the kitty, when the bidder
  is the dealer who may have buried them);
* failed throws (甩牌失败): the thrower showed the attempted cards; those it
  has not played since are still in its hand.

At the burial (the dealer holding the kitty's cards, before the first trick) a
world deals the other three hands only: each candidate burial makes the kitty
of its own position (:func:`burial_hand`).

How the sampling is biased. Cards are dealt one at a time, the most
constrained first, each to a place allowed for it with probability
proportional to the room left there, never to a place that would leave a later
card nowhere to go (Hall's condition over the at most four places, kept
exactly). Without voids or shown cards this is a uniform shuffle; with them it
is close to, but not exactly, uniform among the consistent worlds. Two
inferences are used only softly: "no pairs left" (a follower who could not
match the lead's pairs) is met by resampling a few times, then accepted; and
a failed throw's proof (some other seat held a beating component at the time)
is not imposed, since the hands have changed since then.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agents.bots.card_tracker import CardTracker
from env.core.cards import CARD_NAMES, NUM_KINDS
from env.core.suits import EFFECTIVE_SUIT_NAMES
from env.standard.hand import NUM_PLAYERS, Hand, Phase
from env.standard.view import PlayerView, first_lead_refusal

KITTY = NUM_PLAYERS
"""Place index of the kitty (places 0..3 are the seats)."""
SUBSETS = 1 << (NUM_PLAYERS + 1)
"""Bitmasks over the places (four seats and the kitty)."""
PAIR_RESAMPLES = 8
"""Resamples tried to meet the "no pairs left" inferences before a world is accepted anyway."""


class InconsistentViewError(ValueError):
    """The view's information cannot all be true (e.g. more cards claimed than are unseen)."""


@dataclass(frozen=True)
class World:
    """One complete deal of the hidden cards: four hands (count vectors) and the kitty (kinds)."""

    hands: tuple[tuple[int, ...], ...]
    kitty: tuple[int, ...]


class WorldSampler:
    """Deals the unseen cards of one view into worlds; build once per decision, sample many.

    Raises :class:`InconsistentViewError` at construction when the view cannot
    be completed: card counts that do not add up, or voids and shown cards
    that leave some card nowhere to go.

    ``place_weights[kind][place]`` (places 0..3 the seats, 4 the kitty), when given, multiplies
    the room-left weight of each card at each place: learnt odds of where the card is
    (:mod:`agents.search.locations`). Only the weights among the allowed places change, so every
    world is as consistent as without them; all weights 1.0 draw exactly the same worlds.
    """

    def __init__(self, view: PlayerView, place_weights: Sequence[Sequence[float]] | None = None):
        burying = view.phase == Phase.KITTY
        if (view.phase != Phase.PLAY and not burying) or view.ctx is None:
            raise ValueError(f"worlds are sampled in the play phase or for the burial, not in phase {view.phase}")
        self.view = view
        self.place_weights = place_weights
        tracker = CardTracker(view)
        self.tracker = tracker
        unseen = list(tracker.unseen)  # d copies of each kind less what the seat has seen
        bad = [CARD_NAMES[k] for k in range(NUM_KINDS) if unseen[k] < 0]
        if bad:
            raise InconsistentViewError(f"more than {view.ruleset.layout.decks} copies of {', '.join(bad)} are "
                                        "accounted for (hand, kitty and played cards)")
        me = view.seat
        self.places = [s for s in range(NUM_PLAYERS) if s != me]
        # The burier holds the kitty's cards; what it buries is its own choice, not a place to deal to.
        kitty_known = burying or (view.kitty is not None and len(view.kitty) > 0)
        if view.kitty is not None and not kitty_known:
            raise InconsistentViewError("the dealer's view holds an empty kitty in the play phase")
        if not kitty_known:
            self.places.append(KITTY)
        room = [0] * (NUM_PLAYERS + 1)
        for s in self.places:
            room[s] = view.ruleset.layout.kitty_size if s == KITTY else view.hand_sizes[s]
        self.room = room
        if sum(unseen) != sum(room):
            raise InconsistentViewError(
                f"{sum(unseen)} cards are unseen but the other hands{'' if kitty_known else ' and the kitty'} "
                f"hold {sum(room)} (hand sizes {list(view.hand_sizes)})")
        # Where each unseen copy may go: (kind, bitmask of places), the shown copies first.
        allowed_by_suit = []
        for suit in range(len(EFFECTIVE_SUIT_NAMES)):
            mask = 0
            for s in self.places:
                if s == KITTY or not tracker.void[s][suit]:
                    mask |= 1 << s
            allowed_by_suit.append(mask)
        cards: list[tuple[int, int]] = []
        left = list(unseen)
        for kind, count, mask, why in self._shown_cards(view, kitty_known):
            allowed = mask & allowed_by_suit[view.ctx.suit[kind]]
            if count > left[kind] or not allowed:
                raise InconsistentViewError(
                    f"{why} shows {count} x {CARD_NAMES[kind]}, but only {left[kind]} is unseen"
                    if count > left[kind] else f"{why} shows {CARD_NAMES[kind]}, but its holder is void in that suit")
            cards += [(kind, allowed)] * count
            left[kind] -= count
        for kind in range(NUM_KINDS):
            cards += [(kind, allowed_by_suit[view.ctx.suit[kind]])] * left[kind]
        self.cards = cards
        self._check_hall()

    @staticmethod
    def _shown_cards(view: PlayerView, kitty_known: bool) -> list[tuple[int, int, int, str]]:
        """(kind, copies still held, places, who showed them) for bid cards and failed throws."""
        shown: list[tuple[int, int, int, str]] = []
        held_by: dict[tuple[int, int], int] = {}
        # After a tribute (RULES.md 9) a bid card may have changed hands: the bid then tells nothing sure.
        if view.standing_bid is not None and view.standing_bid.seat != view.seat and not view.tribute_cards:
            bidder, bid = view.standing_bid
            places = 1 << bidder
            burier = view.dealer if view.buried_by is None else view.buried_by
            if bidder == burier and not kitty_known:
                places |= 1 << KITTY  # the dealer may have buried its bid cards
            for k, c in Counter(bid.cards(view.level_rank)).items():
                still = c - view.played[bidder][k]
                if still > 0:
                    shown.append((k, still, places, f"seat {bidder}'s bid"))
                    held_by[(bidder, k)] = still
        for seat, attempted in view.failed_throws:
            if seat == view.seat:
                continue
            for k, c in Counter(attempted).items():
                # Played-since is bounded by played-ever: a weaker, always valid, requirement.
                still = c - view.played[seat][k] - held_by.get((seat, k), 0)
                if still > 0:
                    shown.append((k, still, 1 << seat, f"seat {seat}'s failed throw"))
                    held_by[(seat, k)] = held_by.get((seat, k), 0) + still
        return shown

    def _check_hall(self) -> None:
        """Every set of places has room for the cards that can go nowhere else.

        Keeps ``self.slack[S]``: the room in the places of bitmask ``S`` minus the
        cards that can only go into ``S``; dealing starts from it.
        """
        need = [0] * SUBSETS
        for _, mask in self.cards:
            need[mask] += 1
        self.slack = [0] * SUBSETS
        for subset in range(1, SUBSETS):
            demand = sum(n for mask, n in enumerate(need) if n and mask & ~subset == 0)
            supply = sum(self.room[s] for s in range(NUM_PLAYERS + 1) if subset >> s & 1)
            self.slack[subset] = supply - demand
            if demand > supply:
                names = [("kitty" if s == KITTY else f"seat {s}") for s in range(NUM_PLAYERS + 1) if subset >> s & 1]
                raise InconsistentViewError(f"{demand} unseen cards can only be in {', '.join(names) or 'nowhere'}, "
                                            f"which hold {supply} (known voids and shown cards disagree)")

    def sample(self, rng: random.Random) -> World:
        """One world; resampled a few times to meet the "no pairs left" inferences."""
        world = self._deal(rng)
        for _ in range(PAIR_RESAMPLES):
            if self._pairs_ok(world):
                break
            world = self._deal(rng)
        return world

    def _deal(self, rng: random.Random) -> World:
        order = self.cards[:]
        rng.shuffle(order)
        order.sort(key=lambda card: card[1].bit_count())  # most constrained first (a stable sort)
        room = self.room[:]
        slack = self.slack[:]  # kept exact as cards are dealt (see _check_hall)
        subsets = range(1, SUBSETS)
        tight_cache: list[int] = [s for s in subsets if slack[s] == 0]
        hands = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        kitty: list[int] = []
        guide = self.place_weights
        for kind, mask in order:
            options = []
            weights = []
            for place in self.places:
                if not (mask >> place & 1) or room[place] == 0:
                    continue
                # Placing here lowers the slack of every set holding this place and not the whole mask.
                if any(subset >> place & 1 and mask & ~subset for subset in tight_cache):
                    continue
                options.append(place)
                weights.append(room[place] if guide is None else room[place] * guide[kind][place])
            place = options[0] if len(options) == 1 else rng.choices(options, weights)[0]
            room[place] -= 1
            changed = False
            for subset in subsets:
                delta = (1 if mask & ~subset == 0 else 0) - (1 if subset >> place & 1 else 0)
                if delta:
                    slack[subset] += delta
                    changed = True
            if changed:
                tight_cache = [s for s in subsets if slack[s] == 0]
            if place == KITTY:
                kitty.append(kind)
            else:
                hands[place][kind] += 1
        view = self.view
        if view.kitty:  # (the burier's world has no kitty yet: each candidate burial makes its own)
            kitty = list(view.kitty)
        hands[view.seat] = list(view.hand)
        return World(tuple(tuple(h) for h in hands), tuple(sorted(kitty)))

    def _pairs_ok(self, world: World) -> bool:
        no_pairs, suit_of = self.tracker.no_pairs, self.view.ctx.suit
        for seat in self.places:
            if seat == KITTY:
                continue
            hand = world.hands[seat]
            for k in range(NUM_KINDS):
                if hand[k] >= 2 and no_pairs[seat][suit_of[k]]:
                    return False
        return True


def dealt_world(hand: Hand) -> World:
    """The hand's own deal as a world: every seat's cards and the kitty as they really lie.

    A play's outcome in it is one draw from the true distribution of the hidden cards given all that the
    deciding seat has seen (the deal, and every play so far, came from that distribution), where sampled
    worlds approximate that distribution: the labeller's ``label.worlds=dealt``. What the seat may not
    know reaches only a label, never a network's input.
    """
    return World(tuple(tuple(cards) for cards in hand.hands), tuple(sorted(hand.kitty)))


def world_hand(view: PlayerView, world: World) -> Hand:
    """The engine's :class:`Hand` at the view's position, with the world's hidden cards."""
    return Hand.from_position(
        rules=view.ruleset, level=view.level, dealer=view.dealer, team_levels=view.team_levels, ctx=view.ctx,
        standing=view.standing_bid, hands=[list(h) for h in world.hands], kitty=list(world.kitty),
        played=[list(p) for p in view.played], tricks=list(view.tricks), leader=view.leader,
        trick_plays=list(view.trick_plays), defender_points=view.defender_points,
        failed_throws=list(view.failed_throws))


def burial_hand(view: PlayerView, world: World, burial: tuple[int, ...]) -> Hand:
    """The engine's :class:`Hand` at the first lead after the burier of ``view`` buries ``burial`` in
    ``world`` (a world sampled at the burial: the other hands dealt, no kitty yet). The burier must be the
    dealer, who leads the first trick (RULES.md 6); a 炒地皮 re-bid round is not modelled."""
    refusal = first_lead_refusal(view)
    if refusal is not None:
        raise ValueError(refusal)
    hands = [list(h) for h in world.hands]
    for k in burial:
        hands[view.seat][k] -= 1
    return Hand.from_position(
        rules=view.ruleset, level=view.level, dealer=view.dealer, team_levels=view.team_levels, ctx=view.ctx,
        standing=view.standing_bid, hands=hands, kitty=list(burial), played=[[0] * NUM_KINDS for _ in hands],
        tricks=[], leader=view.dealer, trick_plays=[], defender_points=0, failed_throws=[])


def inconsistency(view: PlayerView, world: World) -> str | None:
    """Why ``world`` disagrees with ``view`` (own hand and kitty, hand sizes, voids, card counts), or ``None``."""
    tracker = CardTracker(view)
    if tuple(world.hands[view.seat]) != tuple(view.hand):
        return "the viewer's own hand changed"
    for seat in range(NUM_PLAYERS):
        if sum(world.hands[seat]) != view.hand_sizes[seat]:
            return f"seat {seat} holds {sum(world.hands[seat])} cards, not {view.hand_sizes[seat]}"
        if seat == view.seat:
            continue
        for k in range(NUM_KINDS):
            if world.hands[seat][k] and tracker.void[seat][view.ctx.suit[k]]:
                return f"seat {seat} holds {CARD_NAMES[k]} in a suit it is known void in"
    if len(world.kitty) != (0 if view.phase == Phase.KITTY else view.ruleset.layout.kitty_size):
        return f"the kitty holds {len(world.kitty)} cards"
    totals = [sum(h[k] for h in world.hands) + sum(p[k] for p in view.played) for k in range(NUM_KINDS)]
    for k in world.kitty:
        totals[k] += 1
    decks = view.ruleset.layout.decks
    wrong = [CARD_NAMES[k] for k in range(NUM_KINDS) if totals[k] != decks]
    if wrong:
        return f"cards not dealt exactly {'twice' if decks == 2 else f'{decks} times'}: {', '.join(wrong)}"
    if view.kitty and tuple(sorted(view.kitty)) != tuple(world.kitty):
        return "the dealer's own kitty changed"
    return None
