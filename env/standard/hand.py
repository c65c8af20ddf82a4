"""The state machine of one hand of Shengji, and of a match across hands.

A :class:`Hand` runs: the deal, one card at a time, stopping at the bidding
decision points of RULES.md 4; the final bidding round; no-bid handling; the
kitty exchange; the tricks; scoring. Only decisions stop the machine: ``bid`` or
``pass_bid`` while bidding, ``bury`` for the kitty, ``play`` for tricks. Each is
checked against the rules first and raises :class:`IllegalActionError` without
changing anything when illegal.

Everything is deterministic from a seed (or from a given deal). The JSON log
(:meth:`Hand.to_log`) holds the setup and every decision; :meth:`Hand.from_log`
replays it exactly. A :class:`Match` chains hands: levels, dealer rotation and
the match end (RULES.md 8).

The two options of RULES.md 9 add decision points. ``tribute``: in a tribute
hand (a :class:`Match` makes one after a 大光) each defender gives its highest
card by the tribute order (``give_tribute``, ``Phase.TRIBUTE``) and the dealer
returns one card to each giver (``return_tribute``, ``Phase.TRIBUTE_RETURN``),
after the bidding and before the kitty. ``chaodipi``: after every burial a
re-bidding round runs (``rebid`` / ``pass_rebid``, ``Phase.REBID``); a bid takes
up the kitty and buries it again (``Phase.KITTY``, by the bidder). A seat
without a legal re-bid passes without being asked (as in the deal's bidding).

Every rule question is the hand's :class:`~env.core.ruleset.RuleSet`'s to answer
(``hand.ruleset``), and so is the deal layout: how many cards each seat is
dealt, the kitty size, the number of tricks.
"""

from __future__ import annotations

import random
from typing import Any

from env.core.cards import CARD_NAMES, NUM_KINDS, RANKS, card_list, counts_of, normalize_rank, parse_cards
from env.core.errors import IllegalActionError
from env.core.hand_base import HandBase, HandResult, TrickRecord, team_of
from env.core.registry import make_ruleset, ruleset_from_config
from env.core.ruleset import RuleSet
from env.standard.bidding import Bid, StandingBid
from env.standard.deal_variants import DealVariants
from env.standard.layout import LAYOUT
from env.standard.phases import BIDDING_PHASES, Phase
from env.standard.tricks import Lead
from env.standard.trump import TrumpContext
from env.standard.variants import RuleOptions

# The standard layout, for code written before rule sets; new code asks ``hand.ruleset.layout``.
NUM_PLAYERS = LAYOUT.players
HAND_SIZE = LAYOUT.hand_size
KITTY_SIZE = LAYOUT.kitty_size
NUM_TRICKS = LAYOUT.num_tricks
LOG_VERSION = 1


class Hand(DealVariants, HandBase):
    """One hand, from the first dealt card to the score. Create with :meth:`new` or :meth:`from_deal`.

    Wherever a hand is made, ``rules`` is its :class:`~env.core.ruleset.RuleSet`,
    or the standard game's :class:`~env.standard.variants.RuleOptions`, or ``None`` for
    the standard defaults. ``hand.ruleset`` is the rule set; ``hand.options``
    its options.
    """

    DEAL_PHASE = Phase.DEAL
    FINAL_PHASE = Phase.FINAL_BID
    PLAY_PHASE = Phase.PLAY
    DONE_PHASE = Phase.DONE
    LOG_VERSION = LOG_VERSION
    ctx: TrumpContext | None
    standing: StandingBid | None
    lead: Lead | None
    result: HandResult | None

    def __init__(self, rules: RuleSet | RuleOptions | None, level: str, dealer: int | None,
                 team_levels: tuple[str, str], tribute: bool = False):
        ruleset = ruleset_from_config(rules)
        if ruleset.hand_class is not Hand:
            raise ValueError(f"a standard Hand plays the standard rule set, not {ruleset.name!r}: make its hands "
                             f"with ruleset.new_hand")
        super().__init__(ruleset, dealer)
        self.level = level
        self.level_rank = RANKS.index(level)
        self.team_levels = team_levels
        self.failed_throws: list[tuple[int, tuple[int, ...]]] = []  # public: (seat, attempted kinds)
        self._bid_kinds = ruleset.bid_kinds(self.level_rank)
        # RULES.md 9: the tribute and 炒地皮 (public unless said otherwise).
        if tribute and not ruleset.tribute:
            raise ValueError("a tribute hand needs the rule option tribute=true")
        if tribute and dealer is None:
            raise ValueError("a tribute hand needs a dealer (it follows a hand of the match)")
        self.tribute_hand = tribute
        self.tribute_cards: list[tuple[int, int]] = []      # (giver, kind), in giving order
        self.returned_cards: list[tuple[int, int]] = []     # (giver, kind): the dealer and the giver only
        self._givers: list[int] = []
        self.buried_by: int | None = None                   # who buried the kitty last
        self.rebids: list[tuple[int, Bid | None]] = []       # 炒地皮: (seat, bid or None for a pass)
        self.rebid_passes = 0                                # passes in a row in the 炒地皮 phase
        self._rebid_seat = 0                                 # the next seat to have a turn

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, seed: int, rules: RuleSet | RuleOptions | None = None, *, level: str | None = None,
            dealer: int | None = None, team_levels: tuple[str, str] | None = None, tribute: bool = False) -> Hand:
        """A hand dealt from a seeded shuffle; ``dealer=None`` is a first hand (抢庄).

        ``tribute``: a tribute hand (RULES.md 9; needs the ``tribute`` option and a dealer).
        """
        ruleset = ruleset_from_config(rules)
        levels = ruleset.levels
        level = level or levels[0]
        if level not in levels:
            raise ValueError(f"level {level!r} is not in the level sequence {levels}")
        if dealer is not None and dealer not in range(ruleset.layout.players):
            raise ValueError(f"dealer must be a seat 0..{ruleset.layout.players - 1} or None, got {dealer!r}")
        hand = cls(ruleset, level, dealer, team_levels or (level, level), tribute)
        hand._rng = random.Random(seed)
        hand._setup = {"mode": "seed", "seed": seed, "level": level, "dealer": dealer,
                       "team_levels": list(hand.team_levels)}
        if tribute:
            hand._setup["tribute"] = True
        hand._start_seat = dealer if dealer is not None else 0
        hand._shuffle()
        hand._advance()
        return hand

    @classmethod
    def from_deal(cls, hands: list, kitty, *, level: str, dealer: int, trump: str | None,
                  rules: RuleSet | RuleOptions | None = None, buried: bool = False,
                  team_levels: tuple[str, str] | None = None, jokers_only: bool = False) -> Hand:
        """A hand from a given deal (tests, scenarios, replays).

        ``hands`` are one card list per seat and ``kitty`` the kitty's cards
        (a deal may be smaller than the layout's, for scenarios); the hand
        starts at the kitty exchange, or at the first lead when ``buried``
        (then the kitty is the already buried cards).
        """
        ruleset = ruleset_from_config(rules)
        layout = ruleset.layout
        parsed = [parse_cards(h) for h in hands]
        kitty_kinds = parse_cards(kitty)
        if len(parsed) != layout.players:
            raise ValueError(f"a deal needs {layout.players} hands, got {len(parsed)}")
        if any(len(h) != len(parsed[0]) for h in parsed):
            raise ValueError(f"hands must be of equal size, got {[len(h) for h in parsed]}")
        total = counts_of([k for h in parsed for k in h] + kitty_kinds)
        if any(c > layout.decks for c in total):
            bad = [CARD_NAMES[k] for k, c in enumerate(total) if c > layout.decks]
            raise ValueError(f"more than {_copies(layout.decks)} of {bad} in the deal")
        if dealer not in range(layout.players):
            raise ValueError(f"dealer must be a seat 0..{layout.players - 1}, got {dealer!r}")
        level = normalize_rank(level)
        hand = cls(ruleset, level, dealer, team_levels or (level, level))
        hand.ctx = ruleset.trump_context(level, trump, jokers_only)
        hand._setup = {"mode": "deal", "hands": [card_list(h) for h in parsed], "kitty": card_list(kitty_kinds),
                       "level": level, "dealer": dealer, "trump": trump, "buried": buried,
                       "jokers_only": jokers_only, "team_levels": list(hand.team_levels)}
        for seat, cards in enumerate(parsed):
            for k in cards:
                hand.hands[seat][k] += 1
            hand.hand_sizes[seat] = len(cards)
        hand.kitty = list(kitty_kinds)
        if buried:
            hand.buried_by = dealer
            hand._start_play()
        else:
            hand._start_kitty()
        return hand

    @classmethod
    def from_position(cls, *, rules: RuleSet | RuleOptions | None, level: str, dealer: int,
                      team_levels: tuple[str, str],
                      ctx: TrumpContext, standing: StandingBid | None, hands: list[list[int]], kitty: list[int],
                      played: list[list[int]], tricks: list[TrickRecord], leader: int,
                      trick_plays: list[tuple[int, ...]], defender_points: int,
                      failed_throws: list[tuple[int, tuple[int, ...]]] = ()) -> Hand:
        """A hand in the play phase, rebuilt from a position: every hand known (search over sampled deals).

        ``hands`` are four count vectors, ``kitty`` the buried kinds, ``played``
        what each seat has played so far; the current trick is ``trick_plays``
        from ``leader``. Every card of the deck must be accounted for, else
        ``ValueError`` names the kinds that are not. The hand's log holds no
        replayable setup (its decisions start mid-hand).
        """
        hand = cls(rules, level, dealer, team_levels)
        layout = hand.ruleset.layout
        totals = [sum(h[k] for h in hands) + sum(p[k] for p in played) for k in range(NUM_KINDS)]
        for k in kitty:
            totals[k] += 1
        wrong = [f"{CARD_NAMES[k]} x{c}" for k, c in enumerate(totals) if c != layout.decks]
        if wrong:
            every = "twice" if layout.decks == 2 else f"{layout.decks} times"
            raise ValueError(f"a position must hold every card {every}; counted {', '.join(wrong)}")
        if len(kitty) != layout.kitty_size:
            raise ValueError(f"the kitty holds {layout.kitty_size} cards, got {len(kitty)}")
        hand.ctx = ctx
        hand.standing = standing
        hand._setup = {"mode": "position"}
        hand.hands = [list(h) for h in hands]
        hand.hand_sizes = [sum(h) for h in hands]
        hand.kitty = sorted(kitty)
        hand.buried_by = dealer
        hand.played = [list(p) for p in played]
        hand.tricks = list(tricks)
        for trick in tricks:
            hand.trick_points[team_of(trick.winner)] += trick.points
        hand.failed_throws = list(failed_throws)
        hand.defender_points = defender_points
        hand.phase = Phase.PLAY
        hand.leader = leader
        hand.trick_plays = [tuple(p) for p in trick_plays]
        hand.lead = hand.ruleset.analyse_lead(ctx, trick_plays[0]) if trick_plays else None
        hand.current_player = (leader + len(trick_plays)) % hand.num_players
        return hand

    @classmethod
    def from_log(cls, log: dict[str, Any]) -> Hand:
        """Replay a hand from its JSON log; raises if a decision no longer applies."""
        if log.get("version") != LOG_VERSION:
            raise ValueError(f"unsupported hand log version {log.get('version')!r}")
        ruleset = make_ruleset(log.get("ruleset", "standard"), log["options"], log.get("layout"))
        setup = log["setup"]
        if setup["mode"] not in ("seed", "deal"):
            raise ValueError(f"a hand log of mode {setup['mode']!r} cannot be replayed")
        team_levels = tuple(setup["team_levels"])
        if setup["mode"] == "seed":
            hand = cls.new(setup["seed"], ruleset, level=setup["level"], dealer=setup["dealer"],
                           team_levels=team_levels, tribute=setup.get("tribute", False))
        else:
            hand = cls.from_deal(setup["hands"], setup["kitty"], level=setup["level"], dealer=setup["dealer"],
                                 trump=setup["trump"], rules=ruleset, buried=setup["buried"],
                                 team_levels=team_levels, jokers_only=setup.get("jokers_only", False))
        for decision in log["decisions"]:
            hand.apply_decision(decision)
        return hand

    def act(self, seat: int, decision) -> None:
        """Apply an agent's decision for ``seat`` by phase: a Bid or ``None`` (pass) while
        bidding or re-bidding, the cards to bury, one card (or a one-card list) to give or
        return as tribute, or the cards to play."""
        if self.phase.is_bidding:
            if decision is None:
                self.pass_bid(seat)
            else:
                self.bid(seat, decision)
        elif self.phase == Phase.REBID:
            if decision is None:
                self.pass_rebid(seat)
            else:
                self.rebid(seat, decision)
        elif self.phase == Phase.TRIBUTE:
            self.give_tribute(seat, decision)
        elif self.phase == Phase.TRIBUTE_RETURN:
            self.return_tribute(seat, decision)
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
        elif action == "rebid":
            self.rebid(seat, Bid(decision["strength"], decision["suit"]))
        elif action == "rebid_pass":
            self.pass_rebid(seat)
        elif action == "tribute":
            self.give_tribute(seat, decision["cards"])
        elif action == "return":
            self.return_tribute(seat, decision["cards"])
        elif action == "play":
            self.play(seat, decision["cards"])
        else:
            raise ValueError(f"unknown decision {action!r}")

    # ------------------------------------------------------------------ dealing and bidding
    def _shuffle(self) -> None:
        self._deck = self.ruleset.layout.deck()
        self._rng.shuffle(self._deck)
        self._dealt = 0
        self.events.append({"type": "shuffle", "deck": card_list(self._deck)})

    def bid_options(self, seat: int | None = None) -> list[Bid]:
        """Bids ``seat`` (default: the player to act) could make now."""
        seat = self.current_player if seat is None else seat
        if seat is None or not self.phase.is_bidding:
            return []
        return self.ruleset.available_bids(self.hands[seat], self.level_rank, seat, self.standing)

    def _has_deal_options(self, seat: int) -> bool:
        return bool(self.bid_options(seat))

    def _deal_one(self) -> None:
        seat = (self._start_seat + self._dealt) % self.num_players
        kind = self._deck[self._dealt]
        self._dealt += 1
        hand = self.hands[seat]
        is_bid_card = kind in self._bid_kinds
        available_bids = self.ruleset.available_bids
        before = set(available_bids(hand, self.level_rank, seat, self.standing)) if is_bid_card else set()
        hand[kind] += 1
        self.hand_sizes[seat] += 1
        if is_bid_card and set(available_bids(hand, self.level_rank, seat, self.standing)) - before:
            self._pending.append(seat)

    def bid(self, seat: int, bid: Bid) -> None:
        """Make a bid at a decision point."""
        self._check_turn(seat, BIDDING_PHASES, "bid")
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
        self._ask_after(seat)

    def pass_bid(self, seat: int) -> None:
        """Decline to bid at a decision point."""
        self._pass_deal_decision(seat)

    def _finish_deal(self) -> None:
        """The end of the bidding: the trump (a bid's, or a turned kitty card's), or a redeal."""
        rules, layout = self.ruleset, self.ruleset.layout
        if self.standing is not None:
            seat, bid = self.standing
            if self.dealer is None:
                self.dealer = seat
            trump, jokers_only = rules.trump_of_bid(bid)
        else:
            if rules.redeal_without_bid:
                self.hands = [[0] * NUM_KINDS for _ in range(layout.players)]
                self.hand_sizes = [0] * layout.players
                self.phase = Phase.DEAL
                self.events.append({"type": "redeal"})
                self._shuffle()
                self._advance()
                return
            if self.dealer is None:
                self.dealer = self._rng.randrange(layout.players)
            turned = self._deck[layout.dealt_cards + self._rng.randrange(layout.kitty_size)]
            trump = rules.trump_of_turned_card(turned)
            jokers_only = False
            self.events.append({"type": "kitty_turned", "card": CARD_NAMES[turned], "dealer": self.dealer})
        self.ctx = rules.trump_context(self.level, trump, jokers_only)
        self.kitty = self._deck[layout.dealt_cards:]
        self.events.append({"type": "trump", "trump": trump, "jokers_only": jokers_only, "dealer": self.dealer})
        if self.tribute_hand:
            self._start_tribute()
        else:
            self._start_kitty()

    # ------------------------------------------------------------------ kitty
    def _start_kitty(self, seat: int | None = None) -> None:
        """``seat`` (default: the dealer) takes up the kitty to bury it."""
        seat = self.dealer if seat is None else seat
        self.phase = Phase.KITTY
        for k in self.kitty:
            self.hands[seat][k] += 1
        self.hand_sizes[seat] += len(self.kitty)
        self.kitty = []
        self.current_player = seat

    def bury(self, seat: int, cards) -> None:
        """The dealer (or a 炒地皮 bidder) buries the kitty's number of cards as the new kitty (扣底)."""
        self._check_turn(seat, (Phase.KITTY,), "bury the kitty")
        kinds = parse_cards(cards)
        kitty_size = self.ruleset.layout.kitty_size
        if len(kinds) != kitty_size:
            raise IllegalActionError(f"the kitty takes exactly {kitty_size} cards, got {len(kinds)}")
        need = counts_of(kinds)
        missing = [CARD_NAMES[k] for k in range(NUM_KINDS) if need[k] > self.hands[seat][k]]
        if missing:
            raise IllegalActionError(f"not in hand: {' '.join(missing)}")
        for k in kinds:
            self.hands[seat][k] -= 1
        self.hand_sizes[seat] -= kitty_size
        self.kitty = sorted(kinds)
        self.decisions.append({"seat": seat, "action": "bury", "cards": card_list(kinds)})
        self.events.append({"type": "bury", "seat": seat})
        self.buried_by = seat
        if self.ruleset.chaodipi:
            self.phase = Phase.REBID
            self.rebid_passes = 0
            self._rebid_seat = (seat + 1) % self.num_players
            self._advance_rebid()
        else:
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
            return self.ruleset.lead_error(self.ctx, self.hands[seat], kinds)
        return self.ruleset.follow_error(self.ctx, self.hands[seat], kinds, self.lead)

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
        if len(self.trick_plays) < self.num_players:
            self.current_player = (seat + 1) % self.num_players
        else:
            self._finish_trick()
        return tuple(kinds)

    def _resolve_lead(self, seat: int, kinds: list[int]) -> list[int]:
        rules = self.ruleset
        lead = rules.analyse_lead(self.ctx, kinds)
        if lead.is_throw:
            self.throws_attempted[seat] += 1
            players = self.num_players
            others = [self.hands[(seat + i) % players] for i in range(1, players)]
            forced = rules.throw_check(self.ctx, lead, others)
            if forced is not None:
                self.throws_failed[seat] += 1
                self.failed_throws.append((seat, tuple(sorted(kinds))))
                taken_back = len(kinds) - forced.size
                penalty = rules.throw_penalty(taken_back)
                self.penalty_points += penalty
                self.defender_points += penalty if self.is_dealer_team(seat) else -penalty
                self.events.append({"type": "throw_failed", "seat": seat, "attempted": card_list(sorted(kinds)),
                                    "played": card_list(forced.cards), "penalty": penalty})
                kinds = list(forced.cards)
                lead = rules.analyse_lead(self.ctx, kinds)
        self.lead = lead
        return kinds

    def _score(self, last_winner: int, last_lead: Lead) -> None:
        rules = self.ruleset
        kitty_points = rules.kitty_points(self.kitty)
        multiplier = rules.kitty_multiplier(last_lead)
        bonus = 0 if self.is_dealer_team(last_winner) else kitty_points * multiplier
        self.defender_points += bonus
        winner, levels = rules.score(self.defender_points)
        self.result = HandResult(
            defender_points=self.defender_points, trick_points=sum(t.points for t in self.tricks
                                                                   if not self.is_dealer_team(t.winner)),
            kitty_points=kitty_points, kitty_multiplier=multiplier, kitty_bonus=bonus,
            penalty_points=self.penalty_points, winner=winner, levels=levels,
            next_dealer=rules.next_dealer(self.dealer, winner == "dealers"))
        self.phase = Phase.DONE
        self.current_player = None
        self.events.append({"type": "score", "defender_points": self.defender_points, "kitty_bonus": bonus,
                            "winner": winner, "levels": levels})


def _copies(n: int) -> str:
    """``"two copies"``: how many copies of each kind the deck holds, in words."""
    return {1: "one copy", 2: "two copies"}.get(n, f"{n} copies")
