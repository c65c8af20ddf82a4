"""The state machine of one hand of Shengji, and of a match across hands.

A :class:`Hand` runs: the deal, one card at a time, stopping at the bidding
decision points of RULES.md 4; the final bidding round; no-bid handling; the
kitty exchange; 25 tricks; scoring. Only decisions stop the machine: ``bid`` or
``pass_bid`` while bidding, ``bury`` for the kitty, ``play`` for tricks. Each is
checked against the rules first and raises :class:`IllegalActionError` without
changing anything when illegal.

Everything is deterministic from a seed (or from a given deal). The JSON log
(:meth:`Hand.to_log`) holds the setup and every decision; :meth:`Hand.from_log`
replays it exactly. A :class:`Match` chains hands: levels, dealer rotation and
the match end (RULES.md 8).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from env.bidding import BIG_JOKER_PAIR, LITTLE_JOKER_PAIR, Bid, StandingBid, available_bids
from env.cards import (
    BIG_JOKER,
    CARD_NAMES,
    DECK_SIZE,
    LITTLE_JOKER,
    NUM_KINDS,
    RANKS,
    SUITS,
    card_list,
    counts_of,
    parse_cards,
    points_of,
    rank_of,
    suit_of,
    two_decks,
)
from env.errors import IllegalActionError
from env.rules import Lead, follow_error, lead_error, throw_check, winning_play
from env.scoring import kitty_multiplier_of, next_dealer, score_with
from env.trump import TrumpContext, trump_context
from env.variants import RuleOptions, normalize_rank

NUM_PLAYERS = 4
HAND_SIZE = 25
KITTY_SIZE = 8
NUM_TRICKS = 25
LOG_VERSION = 1


class Phase(StrEnum):
    """Where a hand stands."""

    DEAL = "deal"            # dealing, with bidding decision points
    FINAL_BID = "final_bid"  # one more bidding round after the deal
    KITTY = "kitty"          # the dealer buries 8 cards
    PLAY = "play"            # 25 tricks
    DONE = "done"            # scored


def team_of(seat: int) -> int:
    """Team of a seat: 0 for seats {0, 2}, 1 for seats {1, 3}."""
    return seat % 2


@dataclass(frozen=True)
class TrickRecord:
    """A finished trick: who led, the four plays in seat order from the leader, the winner."""

    leader: int
    plays: tuple[tuple[int, ...], ...]
    winner: int
    points: int


@dataclass(frozen=True)
class HandResult:
    """The outcome of a hand (RULES.md 7 and 8)."""

    defender_points: int
    trick_points: int
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    penalty_points: int
    winner: str          # "dealers" or "defenders"
    levels: int          # levels gained by the winner
    next_dealer: int


class Hand:
    """One hand, from the first dealt card to the score. Create with :meth:`new` or :meth:`from_deal`."""

    def __init__(self, options: RuleOptions, level: str, dealer: int | None, team_levels: tuple[str, str]):
        self.options = options
        self.level = level
        self.level_rank = RANKS.index(level)
        self.dealer = dealer
        self.team_levels = team_levels
        self.phase = Phase.DEAL
        self.current_player: int | None = None
        self.hands = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        self.hand_sizes = [0] * NUM_PLAYERS
        self.kitty: list[int] = []
        self.ctx: TrumpContext | None = None
        self.standing: StandingBid | None = None
        self.played = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        self.tricks: list[TrickRecord] = []
        self.leader: int | None = None
        self.lead: Lead | None = None
        self.trick_plays: list[tuple[int, ...]] = []
        self.trick_points = [0, 0]
        self.defender_points = 0
        self.penalty_points = 0
        self.result: HandResult | None = None
        self.throws_attempted = [0] * NUM_PLAYERS
        self.throws_failed = [0] * NUM_PLAYERS
        self.failed_throws: list[tuple[int, tuple[int, ...]]] = []  # public: (seat, attempted kinds)
        self.events: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        self._setup: dict[str, Any] = {}
        self._rng = random.Random()
        self._deck: list[int] = []
        self._dealt = 0
        self._start_seat = 0
        self._pending: deque[int] = deque()
        self._final_order: list[int] = []

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, seed: int, options: RuleOptions | None = None, *, level: str | None = None,
            dealer: int | None = None, team_levels: tuple[str, str] | None = None) -> Hand:
        """A hand dealt from a seeded shuffle; ``dealer=None`` is a first hand (抢庄)."""
        options = options or RuleOptions()
        level = level or options.levels[0]
        if level not in options.levels:
            raise ValueError(f"level {level!r} is not in the level sequence {options.levels}")
        if dealer is not None and dealer not in range(NUM_PLAYERS):
            raise ValueError(f"dealer must be a seat 0..3 or None, got {dealer!r}")
        hand = cls(options, level, dealer, team_levels or (level, level))
        hand._rng = random.Random(seed)
        hand._setup = {"mode": "seed", "seed": seed, "level": level, "dealer": dealer,
                       "team_levels": list(hand.team_levels)}
        hand._start_seat = dealer if dealer is not None else 0
        hand._shuffle()
        hand._advance()
        return hand

    @classmethod
    def from_deal(cls, hands: list, kitty, *, level: str, dealer: int, trump: str | None,
                  options: RuleOptions | None = None, buried: bool = False,
                  team_levels: tuple[str, str] | None = None, jokers_only: bool = False) -> Hand:
        """A hand from a given deal (tests, scenarios, replays).

        ``hands`` are four card lists and ``kitty`` eight cards; the hand starts
        at the kitty exchange, or at the first lead when ``buried`` (then the
        kitty is the already buried cards).
        """
        options = options or RuleOptions()
        parsed = [parse_cards(h) for h in hands]
        kitty_kinds = parse_cards(kitty)
        if len(parsed) != NUM_PLAYERS:
            raise ValueError(f"a deal needs 4 hands, got {len(parsed)}")
        if any(len(h) != len(parsed[0]) for h in parsed):
            raise ValueError(f"hands must be of equal size, got {[len(h) for h in parsed]}")
        total = counts_of([k for h in parsed for k in h] + kitty_kinds)
        if any(c > 2 for c in total):
            bad = [CARD_NAMES[k] for k, c in enumerate(total) if c > 2]
            raise ValueError(f"more than two copies of {bad} in the deal")
        if dealer not in range(NUM_PLAYERS):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        level = normalize_rank(level)
        hand = cls(options, level, dealer, team_levels or (level, level))
        hand.ctx = trump_context(level, trump, options, jokers_only)
        hand._setup = {"mode": "deal", "hands": [card_list(h) for h in parsed], "kitty": card_list(kitty_kinds),
                       "level": level, "dealer": dealer, "trump": trump, "buried": buried,
                       "jokers_only": jokers_only, "team_levels": list(hand.team_levels)}
        for seat, cards in enumerate(parsed):
            for k in cards:
                hand.hands[seat][k] += 1
            hand.hand_sizes[seat] = len(cards)
        hand.kitty = list(kitty_kinds)
        if buried:
            hand._start_play()
        else:
            hand._start_kitty()
        return hand

    @classmethod
    def from_position(cls, *, options: RuleOptions, level: str, dealer: int, team_levels: tuple[str, str],
                      ctx: TrumpContext, standing: StandingBid | None, hands: list[list[int]], kitty: list[int],
                      played: list[list[int]], tricks: list[TrickRecord], leader: int,
                      trick_plays: list[tuple[int, ...]], defender_points: int,
                      failed_throws: list[tuple[int, tuple[int, ...]]] = ()) -> Hand:
        """A hand in the play phase, rebuilt from a position: every hand known (search over sampled deals).

        ``hands`` are four count vectors, ``kitty`` the buried kinds, ``played``
        what each seat has played so far; the current trick is ``trick_plays``
        from ``leader``. The 108 cards must all be accounted for, else
        ``ValueError`` names the kinds that are not. The hand's log holds no
        replayable setup (its decisions start mid-hand).
        """
        hand = cls(options, level, dealer, team_levels)
        totals = [sum(h[k] for h in hands) + sum(p[k] for p in played) for k in range(NUM_KINDS)]
        for k in kitty:
            totals[k] += 1
        wrong = [f"{CARD_NAMES[k]} x{c}" for k, c in enumerate(totals) if c != 2]
        if wrong:
            raise ValueError(f"a position must hold every card twice; counted {', '.join(wrong)}")
        if len(kitty) != KITTY_SIZE:
            raise ValueError(f"the kitty holds {KITTY_SIZE} cards, got {len(kitty)}")
        hand.ctx = ctx
        hand.standing = standing
        hand._setup = {"mode": "position"}
        hand.hands = [list(h) for h in hands]
        hand.hand_sizes = [sum(h) for h in hands]
        hand.kitty = sorted(kitty)
        hand.played = [list(p) for p in played]
        hand.tricks = list(tricks)
        for trick in tricks:
            hand.trick_points[team_of(trick.winner)] += trick.points
        hand.failed_throws = list(failed_throws)
        hand.defender_points = defender_points
        hand.phase = Phase.PLAY
        hand.leader = leader
        hand.trick_plays = [tuple(p) for p in trick_plays]
        hand.lead = Lead(ctx, trick_plays[0]) if trick_plays else None
        hand.current_player = (leader + len(trick_plays)) % NUM_PLAYERS
        return hand

    @classmethod
    def from_log(cls, log: dict[str, Any]) -> Hand:
        """Replay a hand from its JSON log; raises if a decision no longer applies."""
        if log.get("version") != LOG_VERSION:
            raise ValueError(f"unsupported hand log version {log.get('version')!r}")
        options = RuleOptions.from_dict(log["options"])
        setup = log["setup"]
        team_levels = tuple(setup["team_levels"])
        if setup["mode"] not in ("seed", "deal"):
            raise ValueError(f"a hand log of mode {setup['mode']!r} cannot be replayed")
        if setup["mode"] == "seed":
            hand = cls.new(setup["seed"], options, level=setup["level"], dealer=setup["dealer"],
                           team_levels=team_levels)
        else:
            hand = cls.from_deal(setup["hands"], setup["kitty"], level=setup["level"], dealer=setup["dealer"],
                                 trump=setup["trump"], options=options, buried=setup["buried"],
                                 team_levels=team_levels, jokers_only=setup.get("jokers_only", False))
        for decision in log["decisions"]:
            hand.apply_decision(decision)
        return hand

    def to_log(self) -> dict[str, Any]:
        """JSON-serialisable log: setup, decisions (for replay) and events (for reading)."""
        return {"version": LOG_VERSION, "options": self.options.to_dict(), "setup": dict(self._setup),
                "decisions": [dict(d) for d in self.decisions], "events": [dict(e) for e in self.events]}

    def act(self, seat: int, decision) -> None:
        """Apply an agent's decision for ``seat`` by phase: a Bid or ``None`` (pass) while
        bidding, the 8 cards to bury, or the cards to play."""
        if self.phase in (Phase.DEAL, Phase.FINAL_BID):
            if decision is None:
                self.pass_bid(seat)
            else:
                self.bid(seat, decision)
        elif self.phase == Phase.KITTY:
            self.bury(seat, list(decision))
        else:
            self.play(seat, list(decision))

    def apply_decision(self, decision: dict[str, Any]) -> None:
        """Apply one logged decision (``{"seat", "action", ...}``)."""
        action, seat = decision["action"], decision["seat"]
        if action == "pass":
            self.pass_bid(seat)
        elif action == "bid":
            self.bid(seat, Bid(decision["strength"], decision["suit"]))
        elif action == "bury":
            self.bury(seat, decision["cards"])
        elif action == "play":
            self.play(seat, decision["cards"])
        else:
            raise ValueError(f"unknown decision {action!r}")

    # ------------------------------------------------------------------ dealing and bidding
    def _shuffle(self) -> None:
        self._deck = two_decks()
        self._rng.shuffle(self._deck)
        self._dealt = 0
        self.events.append({"type": "shuffle", "deck": card_list(self._deck)})

    def bid_options(self, seat: int | None = None) -> list[Bid]:
        """Bids ``seat`` (default: the player to act) could make now."""
        seat = self.current_player if seat is None else seat
        if seat is None or self.phase not in (Phase.DEAL, Phase.FINAL_BID):
            return []
        return available_bids(self.hands[seat], self.level_rank, seat, self.standing)

    def _advance(self) -> None:
        """Run the deal until the next decision point (or past bidding)."""
        while True:
            while self._pending:
                seat = self._pending[0]
                if self.bid_options(seat):
                    self.current_player = seat
                    return
                self._pending.popleft()
            if self.phase == Phase.DEAL:
                if self._dealt < NUM_PLAYERS * HAND_SIZE:
                    self._deal_one()
                    continue
                self.phase = Phase.FINAL_BID
                self._final_order = [(self._start_seat + i) % NUM_PLAYERS for i in range(NUM_PLAYERS)]
                self.events.append({"type": "final_round"})
            if self.phase == Phase.FINAL_BID:
                if self._final_order:
                    self._pending.append(self._final_order.pop(0))
                    continue
                self._finish_bidding()
                return

    def _deal_one(self) -> None:
        seat = (self._start_seat + self._dealt) % NUM_PLAYERS
        kind = self._deck[self._dealt]
        self._dealt += 1
        hand = self.hands[seat]
        is_bid_card = kind >= LITTLE_JOKER or rank_of(kind) == self.level_rank
        before = set(available_bids(hand, self.level_rank, seat, self.standing)) if is_bid_card else set()
        hand[kind] += 1
        self.hand_sizes[seat] += 1
        if is_bid_card and set(available_bids(hand, self.level_rank, seat, self.standing)) - before:
            self._pending.append(seat)

    def _check_turn(self, seat: int, phases: tuple[Phase, ...], what: str) -> None:
        if self.phase not in phases:
            raise IllegalActionError(f"cannot {what} in phase {self.phase.value}")
        if seat != self.current_player:
            raise IllegalActionError(f"seat {seat} cannot {what}: it is seat {self.current_player}'s turn")

    def bid(self, seat: int, bid: Bid) -> None:
        """Make a bid at a decision point."""
        self._check_turn(seat, (Phase.DEAL, Phase.FINAL_BID), "bid")
        try:
            bid = Bid(*bid)
        except TypeError:
            raise IllegalActionError(f"a bid is (strength, suit), got {bid!r}") from None
        if bid not in self.bid_options(seat):
            raise IllegalActionError(f"seat {seat} cannot bid {bid} now (options: "
                                     f"{', '.join(map(str, self.bid_options(seat))) or 'none'})")
        self.standing = StandingBid(seat, bid)
        self.decisions.append({"seat": seat, "action": "bid", "strength": bid.strength, "suit": bid.suit})
        self.events.append({"type": "bid", "seat": seat, "bid": str(bid),
                            "cards": card_list(bid.cards(self.level_rank))})
        # Everyone else who can now overturn it is asked, in seat order after the bidder.
        self._pending = deque((seat + i) % NUM_PLAYERS for i in range(1, NUM_PLAYERS))
        self._advance()

    def pass_bid(self, seat: int) -> None:
        """Decline to bid at a decision point."""
        self._check_turn(seat, (Phase.DEAL, Phase.FINAL_BID), "pass")
        self._pending.popleft()
        self.decisions.append({"seat": seat, "action": "pass"})
        self._advance()

    def _finish_bidding(self) -> None:
        if self.standing is not None:
            seat, bid = self.standing
            if self.dealer is None:
                self.dealer = seat
            jokers_only = bid.strength == BIG_JOKER_PAIR and self.options.big_joker_pair == "master"
            trump = None if bid.strength >= LITTLE_JOKER_PAIR else SUITS[bid.suit]
        else:
            if self.options.no_bid == "redeal":
                self.hands = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
                self.hand_sizes = [0] * NUM_PLAYERS
                self.phase = Phase.DEAL
                self.events.append({"type": "redeal"})
                self._shuffle()
                self._advance()
                return
            if self.dealer is None:
                self.dealer = self._rng.randrange(NUM_PLAYERS)
            turned = self._deck[NUM_PLAYERS * HAND_SIZE + self._rng.randrange(KITTY_SIZE)]
            trump = None if turned in (LITTLE_JOKER, BIG_JOKER) else SUITS[suit_of(turned)]
            jokers_only = False
            self.events.append({"type": "kitty_turned", "card": CARD_NAMES[turned], "dealer": self.dealer})
        self.ctx = trump_context(self.level, trump, self.options, jokers_only)
        self.kitty = self._deck[NUM_PLAYERS * HAND_SIZE:]
        self.events.append({"type": "trump", "trump": trump, "jokers_only": jokers_only, "dealer": self.dealer})
        self._start_kitty()

    # ------------------------------------------------------------------ kitty
    def _start_kitty(self) -> None:
        self.phase = Phase.KITTY
        for k in self.kitty:
            self.hands[self.dealer][k] += 1
        self.hand_sizes[self.dealer] += len(self.kitty)
        self.kitty = []
        self.current_player = self.dealer

    def bury(self, seat: int, cards) -> None:
        """The dealer buries 8 cards as the new kitty (扣底)."""
        self._check_turn(seat, (Phase.KITTY,), "bury the kitty")
        kinds = parse_cards(cards)
        if len(kinds) != KITTY_SIZE:
            raise IllegalActionError(f"the kitty takes exactly {KITTY_SIZE} cards, got {len(kinds)}")
        need = counts_of(kinds)
        missing = [CARD_NAMES[k] for k in range(NUM_KINDS) if need[k] > self.hands[seat][k]]
        if missing:
            raise IllegalActionError(f"not in hand: {' '.join(missing)}")
        for k in kinds:
            self.hands[seat][k] -= 1
        self.hand_sizes[seat] -= KITTY_SIZE
        self.kitty = sorted(kinds)
        self.decisions.append({"seat": seat, "action": "bury", "cards": card_list(kinds)})
        self.events.append({"type": "bury", "seat": seat})
        self._start_play()

    # ------------------------------------------------------------------ play
    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self.leader = self.dealer
        self.current_player = self.dealer

    def is_dealer_team(self, seat: int) -> bool:
        """True for the dealer and the dealer's partner."""
        return team_of(seat) == team_of(self.dealer)

    def play_error(self, seat: int, kinds: list[int]) -> str | None:
        """Why ``seat`` may not play these cards now, or ``None`` if it may."""
        if self.phase != Phase.PLAY:
            return f"cannot play cards in phase {self.phase.value}"
        if seat != self.current_player:
            return f"seat {seat} cannot play: it is seat {self.current_player}'s turn"
        if self.lead is None:
            return lead_error(self.ctx, self.hands[seat], kinds)
        return follow_error(self.ctx, self.hands[seat], kinds, self.lead)

    def play(self, seat: int, cards) -> tuple[int, ...]:
        """Play cards; returns the cards actually played (a failed throw plays fewer)."""
        kinds = parse_cards(cards)
        error = self.play_error(seat, kinds)
        if error:
            raise IllegalActionError(error)
        self.decisions.append({"seat": seat, "action": "play", "cards": card_list(kinds)})
        if self.lead is None:
            kinds = self._resolve_lead(seat, kinds)
        hand, played = self.hands[seat], self.played[seat]
        for k in kinds:
            hand[k] -= 1
            played[k] += 1
        self.hand_sizes[seat] -= len(kinds)
        self.trick_plays.append(tuple(sorted(kinds)))
        self.events.append({"type": "play", "seat": seat, "cards": card_list(kinds)})
        if len(self.trick_plays) < NUM_PLAYERS:
            self.current_player = (seat + 1) % NUM_PLAYERS
        else:
            self._finish_trick()
        return tuple(kinds)

    def _resolve_lead(self, seat: int, kinds: list[int]) -> list[int]:
        lead = Lead(self.ctx, kinds)
        if lead.is_throw:
            self.throws_attempted[seat] += 1
            others = [self.hands[(seat + i) % NUM_PLAYERS] for i in range(1, NUM_PLAYERS)]
            forced = throw_check(self.ctx, lead, others)
            if forced is not None:
                self.throws_failed[seat] += 1
                self.failed_throws.append((seat, tuple(sorted(kinds))))
                taken_back = len(kinds) - forced.size
                penalty = self.options.throw_penalty * taken_back
                self.penalty_points += penalty
                self.defender_points += penalty if self.is_dealer_team(seat) else -penalty
                self.events.append({"type": "throw_failed", "seat": seat, "attempted": card_list(sorted(kinds)),
                                    "played": card_list(forced.cards), "penalty": penalty})
                kinds = list(forced.cards)
                lead = Lead(self.ctx, kinds)
        self.lead = lead
        return kinds

    def _finish_trick(self) -> None:
        winner_index = winning_play(self.ctx, self.lead, self.trick_plays[1:])
        winner = (self.leader + winner_index) % NUM_PLAYERS
        points = sum(points_of(p) for p in self.trick_plays)
        self.trick_points[team_of(winner)] += points
        if not self.is_dealer_team(winner):
            self.defender_points += points
        self.tricks.append(TrickRecord(self.leader, tuple(self.trick_plays), winner, points))
        self.events.append({"type": "trick", "winner": winner, "points": points})
        last_lead = self.lead
        self.trick_plays = []
        self.lead = None
        self.leader = winner
        self.current_player = winner
        if self.hand_sizes[winner] == 0:
            self._score(winner, last_lead)

    def _score(self, last_winner: int, last_lead: Lead) -> None:
        kitty_points = points_of(self.kitty)
        multiplier = kitty_multiplier_of(last_lead.components, self.options.kitty_multiplier)
        bonus = 0 if self.is_dealer_team(last_winner) else kitty_points * multiplier
        self.defender_points += bonus
        winner, levels = score_with(self.defender_points, self.options)
        self.result = HandResult(
            defender_points=self.defender_points, trick_points=sum(t.points for t in self.tricks
                                                                   if not self.is_dealer_team(t.winner)),
            kitty_points=kitty_points, kitty_multiplier=multiplier, kitty_bonus=bonus,
            penalty_points=self.penalty_points, winner=winner, levels=levels,
            next_dealer=next_dealer(self.dealer, winner == "dealers"))
        self.phase = Phase.DONE
        self.current_player = None
        self.events.append({"type": "score", "defender_points": self.defender_points, "kitty_bonus": bonus,
                            "winner": winner, "levels": levels})

    # ------------------------------------------------------------------ views
    def hand_cards(self, seat: int) -> list[int]:
        """The kinds in a seat's hand, sorted."""
        return [k for k in range(NUM_KINDS) for _ in range(self.hands[seat][k])]

    def cards_accounted(self) -> int:
        """Cards in hands + kitty + played, plus the undealt rest while bidding (always 108)."""
        if self.phase in (Phase.DEAL, Phase.FINAL_BID):
            return sum(self.hand_sizes) + DECK_SIZE - self._dealt
        return sum(self.hand_sizes) + len(self.kitty) + sum(sum(p) for p in self.played)
