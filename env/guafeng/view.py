"""What one seat may see of a 刮风 hand (RULES-guafeng.md section 5, "What is public").

A :class:`GuafengView` is a snapshot built from a
:class:`~env.guafeng.hand.GuafengHand` for one seat, the guafeng counterpart of
:class:`env.standard.view.PlayerView` (``env.standard.view.view_of`` returns one for a guafeng
hand). It holds:

- public: every fix's seat, shown jokers and base size, whose fix it ate and
  how many cards were exchanged, the stage team and dealer seat, the kitty
  taker, the tricks, points and levels;
- the seat's own: its hand, the base of each fix it laid or ate (:class:`SeenFix`),
  the cards it took and gave, or received, in a 回牌, with the jokers taken and
  the constant trumps owed (beyond the shown jokers they tell whether the eaten
  base was a joker pair, so the other seats see ``None``); the kitty it picked up and
  the cards it buried (the taker only);
- the trump mode (``ctx`` and ``trump``) only once it is public (the first lead,
  or a step-down) or when the seat laid the standing base; otherwise ``ctx`` is
  ``None`` and ``trump_known`` is False: the seat knows only what it can infer.

Decisions: :meth:`GuafengView.fix_options`, :meth:`GuafengView.give_back_options`,
:meth:`GuafengView.legal_plays`, :meth:`GuafengView.play_error`; the burial is
any ``kitty_size`` held cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from env.core.cards import NUM_KINDS, parse_cards
from env.core.hand_base import TrickRecord, team_of
from env.core.moves import MoveList
from env.core.ruleset import RuleSet
from env.core.view import SeatView
from env.guafeng.combos import Combo
from env.guafeng.fixing import JOKERS, Fix
from env.guafeng.hand import GuafengHand, GuafengPhase, GuafengResult
from env.guafeng.options import GuafengOptions
from env.guafeng.order import GuafengContext


@dataclass(frozen=True)
class SeenFix:
    """One fix of the hand as a seat knows it.

    Attributes:
        seat: who fixed.
        jokers: the shown jokers (public).
        base_size: the number of base cards (public).
        base: the base's cards, for the seat that laid it and the seat that ate it (else ``None``).
        eaten: the seat whose fix this one ate (``None`` for a first fix or 吃自己).
        taken_count: cards taken from ``eaten`` (public).
        taken_jokers: jokers among them, for the eater and the eaten (else ``None``: beyond the shown
            jokers it would tell whether the eaten base was a joker pair).
        taken: the cards taken, for the eater and the eaten (else ``None``).
        given_count: cards given back in the 回牌 (public; 0 while it is pending).
        given: the cards given back, for the eater and the eaten (else ``None``).
    """

    seat: int
    jokers: tuple[int, ...]
    base_size: int
    base: tuple[int, ...] | None
    eaten: int | None
    taken_count: int
    taken_jokers: int | None
    taken: tuple[int, ...] | None
    given_count: int
    given: tuple[int, ...] | None

    @property
    def strength(self) -> tuple[int, int]:
        """(jokers shown, pairs laid), public."""
        return len(self.jokers), self.base_size // 2


@dataclass(frozen=True)
class GuafengView(SeatView):
    """One seat's view of a 刮风 hand at a moment (seats are absolute, 0..3).

    Attributes:
        seat: the viewing seat.
        phase: the hand's phase (:class:`~env.guafeng.hand.GuafengPhase`).
        to_act: the seat to act, or ``None`` when the hand is over.
        options: the rule set's options; ruleset: the rule set (its layout).
        level: the hand's level (the stage team's; the first level before a first hand's first fix).
        team_levels: both teams' levels; stage_run: hands in a row the stage team was on stage before.
        dealer: the stage team's dealer seat (``None`` in a first hand before the first fix).
        first_fixer: the seat of the hand's first fix (public).
        stepped_down: True when nobody fixed and the defenders took the stage (自动下台).
        trump_revealed: the trump mode is public (after the first lead, or after a step-down).
        trump_known: the viewer knows the trump mode (public, or it laid the standing base).
        trump: the trump mode when known (``"S"`` .. ``"D"``, ``None`` for no suit, ``"constants"``); ``None``
            also when unknown (read ``trump_known``).
        ctx: the trump context when the trump mode is known and the fixing is over, else ``None``.
        hand: the viewer's cards, a count vector over the 54 kinds; hand_sizes: cards each seat holds.
        dealt: cards dealt so far (the deal's progress; all of them after the fixing).
        fixes: every fix of the hand as the viewer knows it (:class:`SeenFix`), oldest first.
        standing_seat: the seat whose fix stands (``None``: none yet, or none after the fixing).
        fix_choices: the fixes the viewer may make now (when asked to fix), weakest first.
        give_back_to: the seat receiving the 回牌 now (public); give_back_count: cards to give (public;
            0 outside the 回牌).
        give_back_constants: constant trumps owed in the 回牌 (one a joker taken), for the eater and the
            eaten; ``None`` for the other two seats during a 回牌; 0 outside it.
        givable: for the eater making the 回牌, its cards less its new fix (count vector); else ``None``.
        kitty_taker: the seat that takes the kitty (public, after the fixing).
        kitty_received: the 4 kitty cards the taker picked up, for the taker only.
        kitty: the buried cards, for the taker once it buried and for everyone once the hand is over
            (捡底 shows it); else ``None``.
        buried_by: the seat that buried (public).
        played: for each seat, a count vector of the cards it has played.
        tricks: finished tricks; leader: who leads the current trick; trick_plays: its plays so far.
        lead: the current trick's lead (a :class:`~env.guafeng.combos.Combo`), ``None`` before it.
        trick_points: points won in tricks by each team; defender_points: the defenders' points so far.
        result: the hand's result once it is over.
    """

    seat: int
    phase: GuafengPhase
    to_act: int | None
    options: GuafengOptions
    ruleset: RuleSet
    level: str
    team_levels: tuple[str, str]
    stage_run: int
    dealer: int | None
    first_fixer: int | None
    stepped_down: bool
    trump_revealed: bool
    trump_known: bool
    trump: str | None
    ctx: GuafengContext | None
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    dealt: int
    fixes: tuple[SeenFix, ...]
    standing_seat: int | None
    fix_choices: tuple[Fix, ...]
    give_back_to: int | None
    give_back_count: int
    give_back_constants: int | None
    givable: tuple[int, ...] | None
    kitty_taker: int | None
    kitty_received: tuple[int, ...] | None
    kitty: tuple[int, ...] | None
    buried_by: int | None
    played: tuple[tuple[int, ...], ...]
    tricks: tuple[TrickRecord, ...]
    leader: int | None
    trick_plays: tuple[tuple[int, ...], ...]
    lead: Combo | None
    trick_points: tuple[int, int]
    defender_points: int
    result: GuafengResult | None

    # ------------------------------------------------------------------ names shared with GuafengHand
    @property
    def stage_team(self) -> int | None:
        """The stage team (0 = seats 0 and 2, 1 = seats 1 and 3); ``None`` before a first hand's first fix."""
        return None if self.dealer is None else team_of(self.dealer)

    @property
    def first_lead(self) -> bool:
        """True in play before the hand's first card is led (that lead is one card)."""
        return self.phase == GuafengPhase.PLAY and not self.tricks and not self.trick_plays

    @property
    def acting(self) -> bool:
        """True when the viewer is to act."""
        return self.to_act == self.seat and self.to_act is not None

    @property
    def is_leading(self) -> bool:
        """True when it is the viewer's turn to lead a trick."""
        return self.phase == GuafengPhase.PLAY and self.acting and self.lead is None

    @property
    def decision(self) -> str | None:
        """The decision the viewer must make now: ``"fix"`` (fix or pass), ``"give_back"``, ``"bury"``,
        ``"lead"``, ``"follow"``, or ``None`` when it is not to act."""
        if not self.acting:
            return None
        if self.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
            return "fix"
        if self.phase == GuafengPhase.GIVE_BACK:
            return "give_back"
        if self.phase == GuafengPhase.KITTY:
            return "bury"
        return "lead" if self.lead is None else "follow"

    @property
    def standing_fix(self) -> SeenFix | None:
        """The standing fix as the viewer knows it (its ``base`` is ``None`` unless the viewer laid it)."""
        if self.standing_seat is None:
            return None
        return next(f for f in reversed(self.fixes) if f.seat == self.standing_seat)

    # ------------------------------------------------------------------ decisions
    def fix_options(self) -> list[Fix]:
        """The fixes the viewer may make now (strictly stronger than the standing one); empty when not asked."""
        return list(self.fix_choices)

    def give_back_options(self, chosen: Sequence = ()) -> list[int]:
        """The kinds the viewer may add to a partial 回牌 ``chosen`` so that a legal completion remains."""
        if self.givable is None or not self.acting:
            return []
        return self.ruleset.give_back_choices(self.givable, parse_cards(chosen), self.give_back_count,
                                              self.give_back_constants)

    def give_back_error(self, cards: Sequence) -> str | None:
        """Why the viewer may not give these cards back now, or ``None``."""
        if self.givable is None or not self.acting:
            return "it is not this seat's turn to give cards back"
        return self.ruleset.give_back_error(self.givable, parse_cards(cards), self.give_back_count,
                                            self.give_back_constants)

    def legal_plays(self, max_plays: int | None = None) -> MoveList:
        """Every legal lead or follow for the viewer (the first ``max_plays``); the first lead is one card."""
        if self.phase != GuafengPhase.PLAY or not self.acting:
            return MoveList([], False)
        if self.first_lead:
            singles = [(k,) for k in range(NUM_KINDS) if self.hand[k]]
            cut = singles if max_plays is None else singles[:max_plays]
            return MoveList(cut, len(cut) < len(singles))
        if self.lead is None:
            return self.ruleset.legal_leads(self.ctx, self.hand, max_plays)
        return self.ruleset.legal_follows(self.ctx, self.hand, self.lead, max_plays)

    def play_error(self, kinds: Sequence[int]) -> str | None:
        """Why the viewer may not play these cards now, or ``None``."""
        if self.phase != GuafengPhase.PLAY or not self.acting:
            return "it is not this seat's turn to play"
        kinds = list(kinds)
        if self.first_lead:
            if len(kinds) != 1:
                return f"the first lead of a hand is exactly one card, got {len(kinds)}"
            return None if self.hand[kinds[0]] else "the card is not in hand"
        if self.lead is None:
            return self.ruleset.lead_error(self.ctx, self.hand, kinds)
        return self.ruleset.follow_error(self.ctx, self.hand, kinds, self.lead)


def _seen_fixes(hand: GuafengHand, seat: int) -> tuple[SeenFix, ...]:
    records = hand.fixes
    seen = []
    for i, record in enumerate(records):
        # the fix's base is known to its maker and to whoever ate it (and took its cards)
        eater = records[i + 1].seat if i + 1 < len(records) and records[i + 1].eaten == record.seat else None
        exchange_known = seat in (record.seat, record.eaten) and record.eaten is not None
        seen.append(SeenFix(
            seat=record.seat,
            jokers=record.fix.jokers,
            base_size=len(record.fix.base),
            base=record.fix.base if seat in (record.seat, eater) else None,
            eaten=record.eaten,
            taken_count=len(record.taken),
            taken_jokers=sum(1 for k in record.taken if k in JOKERS) if exchange_known else None,
            taken=record.taken if exchange_known else None,
            given_count=len(record.given),
            given=record.given if exchange_known else None,
        ))
    return tuple(seen)


def guafeng_view_of(hand: GuafengHand, seat: int) -> GuafengView:
    """The view of a 刮风 ``hand`` from ``seat``."""
    acting = hand.current_player == seat
    fixing = hand.phase.is_fixing
    standing = hand.standing
    if hand.trump_revealed or hand.stepped_down:
        trump_known = True
    else:
        trump_known = standing is not None and standing.seat == seat
    ctx = hand.ctx if trump_known and not fixing else None
    taker = hand.kitty_taker
    received = None
    if seat == taker and not fixing:
        event = next((e for e in hand.events if e["type"] == "kitty"), None)
        received = tuple(sorted(parse_cards(event["private"]["cards"]))) if event else None
    giving = hand.phase == GuafengPhase.GIVE_BACK and acting
    givable = tuple(hand.givable(seat)) if giving else None
    return GuafengView(
        seat=seat,
        phase=hand.phase,
        to_act=hand.current_player,
        options=hand.options,
        ruleset=hand.ruleset,
        level=hand.level,
        team_levels=hand.team_levels,
        stage_run=hand.stage_run,
        dealer=hand.dealer,
        first_fixer=hand.first_fixer,
        stepped_down=hand.stepped_down,
        trump_revealed=hand.trump_revealed,
        trump_known=trump_known,
        trump=(standing.fix.trump if fixing and standing is not None else hand.trump) if trump_known else None,
        ctx=ctx,
        hand=tuple(hand.hands[seat]),
        hand_sizes=tuple(hand.hand_sizes),
        dealt=hand._dealt if fixing else hand.ruleset.layout.dealt_cards,
        fixes=_seen_fixes(hand, seat),
        standing_seat=None if standing is None else standing.seat,
        fix_choices=tuple(hand.fix_options(seat)) if acting and hand.phase in (
            GuafengPhase.DEAL, GuafengPhase.FINAL_FIX) else (),
        give_back_to=hand.give_back_to,
        give_back_count=hand.give_back_count,
        give_back_constants=hand.give_back_constants if hand.phase != GuafengPhase.GIVE_BACK or seat in (
            hand.give_back_to, hand.current_player) else None,
        givable=givable,
        kitty_taker=taker,
        kitty_received=received,
        kitty=tuple(hand.kitty) if seat == hand.buried_by or hand.phase == GuafengPhase.DONE else None,
        buried_by=hand.buried_by,
        played=tuple(tuple(p) for p in hand.played),
        tricks=tuple(hand.tricks),
        leader=hand.leader,
        trick_plays=tuple(hand.trick_plays),
        lead=hand.lead,
        trick_points=(hand.trick_points[0], hand.trick_points[1]),
        defender_points=hand.defender_points,
        result=hand.result,
    )
