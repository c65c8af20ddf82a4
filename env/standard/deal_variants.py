"""The decisions RULES.md 9 adds to a standard hand: the tribute (进贡) and 炒地皮.

:class:`DealVariants` is a part of :class:`env.standard.hand.Hand`: with the
``tribute`` option, a tribute hand starts with the defenders' tribute cards and
the dealer's returned cards; with ``chaodipi``, every burial is followed by a
re-bidding round in which a stronger bid takes the kitty and buries again. The
state they read and write is the hand's.
"""

from __future__ import annotations

from env.core.cards import CARD_NAMES, NUM_KINDS, card_list, counts_of, parse_cards
from env.core.errors import IllegalActionError
from env.standard.bidding import Bid, StandingBid
from env.standard.phases import Phase


class DealVariants:
    """The tribute and 炒地皮 decisions of a standard hand (mixed into :class:`~env.standard.hand.Hand`)."""

    # ------------------------------------------------------------------ tribute (RULES.md 9)
    def _start_tribute(self) -> None:
        players = self.num_players
        self._givers = [(self.dealer + i) % players for i in range(1, players) if i % 2]
        self.phase = Phase.TRIBUTE
        self.current_player = self._givers[0]

    def tribute_options(self, seat: int | None = None) -> list[int]:
        """The kinds ``seat`` (default: the player to act) may give as tribute now: its highest by the tribute order."""
        seat = self.current_player if seat is None else seat
        if self.phase != Phase.TRIBUTE or seat != self.current_player:
            return []
        return self.ruleset.tribute_choices(self.hands[seat], self.level_rank)

    def return_options(self, seat: int | None = None) -> list[int]:
        """The kinds the dealer may return now: any it holds, but not a tribute card."""
        seat = self.current_player if seat is None else seat
        if self.phase != Phase.TRIBUTE_RETURN or seat != self.current_player:
            return []
        locked = counts_of([k for _, k in self.tribute_cards])
        return [k for k in range(NUM_KINDS) if self.hands[seat][k] > locked[k]]

    def return_to(self) -> int | None:
        """The giver the dealer returns a card to next (``None`` outside the return)."""
        if self.phase != Phase.TRIBUTE_RETURN:
            return None
        return self._givers[len(self.returned_cards)]

    def _one_card(self, cards, what: str) -> int:
        if isinstance(cards, int | str):
            cards = [cards]
        try:
            kinds = parse_cards(cards)
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"{what}: {exc}") from None
        if len(kinds) != 1:
            raise IllegalActionError(f"{what} is exactly one card, got {len(kinds)}")
        return kinds[0]

    def give_tribute(self, seat: int, card) -> None:
        """A defender of a tribute hand gives its highest card by the tribute order to the dealer."""
        self._check_turn(seat, (Phase.TRIBUTE,), "give a tribute card")
        kind = self._one_card(card, "a tribute")
        options = self.tribute_options(seat)
        if kind not in options:
            held = "not in hand" if not self.hands[seat][kind] else "not the giver's highest card"
            raise IllegalActionError(f"seat {seat} cannot give {CARD_NAMES[kind]} as tribute: {held} "
                                     f"(options: {' '.join(CARD_NAMES[k] for k in options)})")
        self.hands[seat][kind] -= 1
        self.hand_sizes[seat] -= 1
        self.hands[self.dealer][kind] += 1
        self.hand_sizes[self.dealer] += 1
        self.tribute_cards.append((seat, kind))
        self.decisions.append({"seat": seat, "action": "tribute", "cards": [CARD_NAMES[kind]]})
        self.events.append({"type": "tribute", "seat": seat, "card": CARD_NAMES[kind], "to": self.dealer})
        if len(self.tribute_cards) < len(self._givers):
            self.current_player = self._givers[len(self.tribute_cards)]
        else:
            self.phase = Phase.TRIBUTE_RETURN
            self.current_player = self.dealer

    def return_tribute(self, seat: int, card) -> None:
        """The dealer returns one card, not a tribute card, to the next giver (in giving order)."""
        self._check_turn(seat, (Phase.TRIBUTE_RETURN,), "return a card")
        kind = self._one_card(card, "a returned card")
        if kind not in self.return_options(seat):
            if any(k == kind for _, k in self.tribute_cards) and self.hands[seat][kind]:
                raise IllegalActionError(f"the dealer cannot return {CARD_NAMES[kind]}: it is a tribute card")
            raise IllegalActionError(f"the dealer cannot return {CARD_NAMES[kind]}: not in hand")
        giver = self.return_to()
        self.hands[seat][kind] -= 1
        self.hand_sizes[seat] -= 1
        self.hands[giver][kind] += 1
        self.hand_sizes[giver] += 1
        self.returned_cards.append((giver, kind))
        self.decisions.append({"seat": seat, "action": "return", "cards": [CARD_NAMES[kind]]})
        self.events.append({"type": "tribute_return", "seat": seat, "to": giver})
        if len(self.returned_cards) == len(self._givers):
            self._start_kitty()

    # ------------------------------------------------------------------ 炒地皮 (RULES.md 9)
    def rebid_options(self, seat: int | None = None) -> list[Bid]:
        """The 炒地皮 bids ``seat`` (default: the player to act) could make now (strictly stronger;
        the standing bidder only reinforces)."""
        seat = self.current_player if seat is None else seat
        if seat is None or self.phase != Phase.REBID:
            return []
        return self.ruleset.available_bids(self.hands[seat], self.level_rank, seat, self.standing)

    def _advance_rebid(self) -> None:
        """Seats without a legal bid pass on their own; stop at one who has a choice, or end the phase."""
        players = self.num_players
        while self.rebid_passes < players:
            seat = self._rebid_seat
            if self.ruleset.available_bids(self.hands[seat], self.level_rank, seat, self.standing):
                self.current_player = seat
                return
            self._record_rebid_pass(seat)
        self._start_play()

    def _record_rebid_pass(self, seat: int) -> None:
        self.rebids.append((seat, None))
        self.rebid_passes += 1
        self._rebid_seat = (seat + 1) % self.num_players
        self.events.append({"type": "rebid_pass", "seat": seat})

    def rebid(self, seat: int, bid: Bid) -> None:
        """A 炒地皮 bid: the trump changes, and the bidder takes up the kitty to bury it again."""
        self._check_turn(seat, (Phase.REBID,), "re-bid")
        try:
            bid = Bid(*bid)
        except TypeError:
            raise IllegalActionError(f"a bid is (strength, suit), got {bid!r}") from None
        options = self.rebid_options(seat)
        if bid not in options:
            raise IllegalActionError(f"seat {seat} cannot re-bid {bid} now: a 炒地皮 bid must be strictly "
                                     f"stronger than the standing one, and its bidder may only reinforce "
                                     f"(options: {', '.join(map(str, options)) or 'none'})")
        self.standing = StandingBid(seat, bid)
        trump, jokers_only = self.ruleset.trump_of_bid(bid)
        self.ctx = self.ruleset.trump_context(self.level, trump, jokers_only)
        self.rebids.append((seat, bid))
        self.rebid_passes = 0
        self.decisions.append({"seat": seat, "action": "rebid", "strength": bid.strength, "suit": bid.suit})
        self.events.append({"type": "rebid", "seat": seat, "bid": str(bid),
                            "cards": card_list(bid.cards(self.level_rank))})
        self.events.append({"type": "trump", "trump": trump, "jokers_only": jokers_only, "dealer": self.dealer})
        self._start_kitty(seat)

    def pass_rebid(self, seat: int) -> None:
        """Decline to bid on a 炒地皮 turn."""
        self._check_turn(seat, (Phase.REBID,), "pass")
        self.decisions.append({"seat": seat, "action": "rebid_pass"})
        self._record_rebid_pass(seat)
        self._advance_rebid()
