"""What one seat may see of a hand: its own cards and the public record.

A :class:`PlayerView` is a snapshot built from a :class:`~env.standard.hand.Hand` for
one seat. It never holds the other seats' hands (nor the kitty unless the seat
is the dealer who buried it), so an agent given a view cannot peek. Bots, the
environment's encoder and the user interfaces all read the game through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from env.core.hand_base import TrickRecord
from env.core.moves import MoveList
from env.core.ruleset import RuleSet
from env.core.view import SeatView
from env.standard.bidding import Bid, StandingBid
from env.standard.hand import Hand, Phase
from env.standard.tricks import Lead
from env.standard.trump import TrumpContext
from env.standard.variants import RuleOptions


@dataclass(frozen=True)
class PlayerView(SeatView):
    """One seat's view of a hand at a moment (seats are absolute, 0..3).

    Attributes:
        seat: the viewing seat.
        phase: the hand's phase.
        to_act: the seat to act, or ``None`` when the hand is over.
        options: the rule variants.
        ruleset: the rule set (its layout: hand size, kitty size, number of tricks).
        level: the hand's level rank (``"2"``..``"A"``); team_levels: both teams' levels.
        dealer: the dealer seat (``None`` while a first hand's bidding is open).
        ctx: the trump context (``None`` until the trump is fixed).
        standing_bid: the standing bid while bidding, and the final one after.
        hand: the seat's own cards as a count vector over the 54 kinds.
        hand_sizes: number of cards each seat holds.
        bid_options: bids the seat can make now (when it is asked to bid).
        kitty: the buried kitty, for the dealer only (else ``None``); empty before burial.
        played: for each seat, a count vector of the cards it has played.
        tricks: finished tricks (public).
        leader: who leads the current trick; trick_plays: its plays so far.
        lead: the current trick's analysed lead (``None`` before the lead).
        defender_points: the defenders' points so far (public).
        failed_throws: public record of failed throws: (seat, attempted kinds).
        rebid_passes: passes in a row in the 炒地皮 phase (public).
        buried_by: who buried the kitty last (public; ``None`` before the first burial).
        rebids: the 炒地皮 phase's public record: (seat, bid, or ``None`` for a pass).
        tribute_cards: the public tribute cards: (giver, kind).
        returned_cards: the returned cards the viewer knows: all of them for the
            dealer, the one it received for a giver, none for the others.
        tribute_options: the kinds the viewer may give (tribute) or return now.
        return_to: the giver the dealer returns a card to now (``None`` otherwise).
    """

    seat: int
    phase: Phase
    to_act: int | None
    options: RuleOptions
    ruleset: RuleSet
    level: str
    team_levels: tuple[str, str]
    dealer: int | None
    ctx: TrumpContext | None
    standing_bid: StandingBid | None
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    bid_options: tuple[Bid, ...]
    kitty: tuple[int, ...] | None
    played: tuple[tuple[int, ...], ...]
    tricks: tuple[TrickRecord, ...]
    leader: int | None
    trick_plays: tuple[tuple[int, ...], ...]
    lead: Lead | None
    defender_points: int
    failed_throws: tuple[tuple[int, tuple[int, ...]], ...]
    buried_by: int | None = None
    rebid_passes: int = 0
    rebids: tuple[tuple[int, Bid | None], ...] = ()
    tribute_cards: tuple[tuple[int, int], ...] = ()
    returned_cards: tuple[tuple[int, int], ...] = ()
    tribute_options: tuple[int, ...] = ()
    return_to: int | None = None

    @property
    def standing(self) -> StandingBid | None:
        """The standing bid (the :class:`Hand` attribute's name)."""
        return self.standing_bid

    @property
    def is_leading(self) -> bool:
        """True when it is this seat's turn to lead a trick."""
        return self.phase == Phase.PLAY and self.to_act == self.seat and self.lead is None

    def legal_plays(self, max_plays: int | None = None) -> MoveList:
        """Every legal lead attempt or follow for the viewer (bounded by ``max_plays``)."""
        if self.phase != Phase.PLAY or self.to_act != self.seat:
            return MoveList([], False)
        if self.lead is None:
            return self.ruleset.legal_leads(self.ctx, self.hand, max_plays)
        return self.ruleset.legal_follows(self.ctx, self.hand, self.lead, max_plays)

    def play_error(self, kinds: list[int]) -> str | None:
        """Why the viewer may not play these cards now, or ``None``."""
        if self.phase != Phase.PLAY or self.to_act != self.seat:
            return "it is not this seat's turn to play"
        if self.lead is None:
            return self.ruleset.lead_error(self.ctx, self.hand, kinds)
        return self.ruleset.follow_error(self.ctx, self.hand, kinds, self.lead)


def view_of(hand: Hand, seat: int) -> PlayerView:
    """The view of a standard ``hand`` from ``seat`` (any rule set's: ``hand.ruleset.view_of``)."""
    bidding = hand.phase.is_bidding
    acting = hand.current_player == seat
    if bidding and acting:
        bid_options = tuple(hand.bid_options(seat))
    elif hand.phase == Phase.REBID and acting:
        bid_options = tuple(hand.rebid_options(seat))
    else:
        bid_options = ()
    if hand.phase == Phase.TRIBUTE and acting:
        card_options = tuple(hand.tribute_options(seat))
    elif hand.phase == Phase.TRIBUTE_RETURN and acting:
        card_options = tuple(hand.return_options(seat))
    else:
        card_options = ()
    sees_kitty = seat == hand.buried_by and hand.phase in (Phase.REBID, Phase.PLAY, Phase.DONE)
    return PlayerView(
        seat=seat,
        phase=hand.phase,
        to_act=hand.current_player,
        options=hand.options,
        ruleset=hand.ruleset,
        level=hand.level,
        team_levels=hand.team_levels,
        dealer=hand.dealer,
        ctx=hand.ctx,
        standing_bid=hand.standing,
        hand=tuple(hand.hands[seat]),
        hand_sizes=tuple(hand.hand_sizes),
        bid_options=bid_options,
        kitty=tuple(hand.kitty) if sees_kitty else None,
        played=tuple(tuple(p) for p in hand.played),
        tricks=tuple(hand.tricks),
        leader=hand.leader,
        trick_plays=tuple(hand.trick_plays),
        lead=hand.lead,
        defender_points=hand.defender_points,
        failed_throws=tuple(hand.failed_throws),
        buried_by=hand.buried_by,
        rebid_passes=hand.rebid_passes,
        rebids=tuple(hand.rebids),
        tribute_cards=tuple(hand.tribute_cards),
        # RULES.md 9's records are empty unless its options are on: no work for them on the hot path then.
        returned_cards=tuple((g, k) for g, k in hand.returned_cards if seat in (g, hand.dealer))
        if hand.returned_cards else (),
        tribute_options=card_options,
        return_to=hand.return_to() if hand.phase == Phase.TRIBUTE_RETURN else None,
    )


def first_lead_refusal(view: PlayerView) -> str | None:
    """Why the position at the first lead after this view's burial cannot be known yet, or ``None`` when it
    can: only the dealer burying at the kitty leads next (RULES.md 6), and not at a 炒地皮 table, where a
    re-bid round (and perhaps another burier) follows the burial."""
    if view.phase != Phase.KITTY:
        return f"no burial in phase {view.phase.value}"
    if view.seat != view.dealer or view.to_act != view.seat:
        return "the burier is not the dealer (a 炒地皮 re-bid)"
    if view.ruleset.chaodipi:
        return "a 炒地皮 re-bid round follows the burial: the first lead is not known"
    return None


def view_after_burial(view: PlayerView, burial: Sequence[int]) -> PlayerView:
    """The burier's own view at the first lead after burying ``burial`` (kinds) from ``view`` at the kitty.

    Everything in it is the burier's to know, so an agent can value whole burials
    before it buries one. It is the view :meth:`Hand.bury` leads to: the dealer
    leads the first trick (RULES.md 6) and sees the kitty it buried. Where the first
    lead is not known (:func:`first_lead_refusal`), and for a burial of another size
    or of cards not held, it raises ``ValueError``.
    """
    refusal = first_lead_refusal(view)
    if refusal is not None:
        raise ValueError(refusal)
    kitty_size = view.ruleset.layout.kitty_size
    if len(burial) != kitty_size:
        raise ValueError(f"the kitty takes exactly {kitty_size} cards, got {len(burial)}")
    hand = list(view.hand)
    for kind in burial:
        if not 0 <= kind < len(hand) or hand[kind] == 0:
            raise ValueError(f"card kind {kind} is not in the burier's hand")
        hand[kind] -= 1
    sizes = list(view.hand_sizes)
    sizes[view.seat] -= kitty_size
    return replace(view, phase=Phase.PLAY, to_act=view.dealer, hand=tuple(hand), hand_sizes=tuple(sizes),
                   kitty=tuple(sorted(burial)), leader=view.dealer, buried_by=view.seat)
