"""The state machine of one 刮风 hand (RULES-guafeng.md sections 1, 5-9).

A :class:`GuafengHand` runs: the deal, one card at a time from the dealer seat,
stopping at the fixing decision points (扣主, section 5); 回牌 after a fix eats
another player's; the final fixing round; then a redeal (first hand, nobody
fixed), a step-down (later hands, no fix standing) or the fix's trump mode; the
kitty taker's burial; the tricks, the first lead being one card that makes the
trump mode public; 捡底 and the score.

Decisions, each checked first (an illegal one raises
:class:`~env.core.errors.IllegalActionError` and changes nothing), each with an
enumerator for masks:

============  ================================  =============================
phase         decision                          options
============  ================================  =============================
deal,         ``fix(seat, fix)`` /              ``fix_options(seat)``
final_fix     ``pass_fix(seat)``                (see ``fixing.FIX_TABLE``)
give_back     ``give_back(seat, cards)``        ``give_back_options(seat, chosen)``
kitty         ``bury(seat, cards)`` (4 cards)   any 4 held cards
play          ``play(seat, cards)``             ``legal_plays(seat)``
============  ================================  =============================

The public surface is :class:`env.standard.hand.Hand`'s wherever the concept is the
same (``phase``, ``current_player``, ``hands``, ``hand_sizes``, ``kitty``,
``ctx``, ``dealer``, ``leader``, ``lead``, ``trick_plays``, ``tricks``,
``defender_points``, ``result``, ``decisions``, ``events``, ``to_log`` /
``from_log``, ``act``). ``dealer`` is the stage team's dealer seat (``None``
in a first hand until the first fix); ``is_dealer_team`` means the stage team.

What a seat may know (for a view): ``ctx`` is set when the fixing ends but is
public only once ``trump_revealed``; ``standing``'s seat, shown jokers and base
size are public, its base only to its maker. An event with ``known_to`` holds
private fields under ``"private"``, known to those seats only
(:meth:`visible_events`); other events are public.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from env.core.cards import (
    BIG_JOKER,
    CARD_NAMES,
    LITTLE_JOKER,
    NUM_KINDS,
    RANKS,
    card_list,
    counts_of,
    normalize_rank,
    parse_cards,
)
from env.core.errors import IllegalActionError
from env.core.hand_base import HandBase, HandResult, team_of
from env.core.moves import MoveList
from env.core.registry import make_ruleset
from env.core.ruleset import RuleSet
from env.guafeng.combos import Combo
from env.guafeng.fixing import Fix, StandingFix, as_fix
from env.guafeng.options import NAME

LOG_VERSION = 1


class GuafengPhase(StrEnum):
    """Where a 刮风 hand stands (values shared with :class:`env.standard.hand.Phase` where the concept is the same)."""

    DEAL = "deal"            # dealing, with fixing decision points
    FINAL_FIX = "final_fix"  # one more fixing round after the deal
    GIVE_BACK = "give_back"  # 回牌: the eater of a fix gives cards back, at once
    KITTY = "kitty"          # the kitty taker buries 4 cards
    PLAY = "play"            # the tricks
    DONE = "done"            # scored

    @property
    def is_fixing(self) -> bool:
        """The deal's fixing: dealing, 回牌 and the final round (cards may still be undealt)."""
        return self in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX, GuafengPhase.GIVE_BACK)

    @property
    def is_bidding(self) -> bool:
        """:attr:`is_fixing`, under the name shared code asks (:attr:`env.standard.hand.Phase.is_bidding`)."""
        return self.is_fixing


@dataclass(frozen=True)
class GuafengResult(HandResult):
    """The outcome of a 刮风 hand: :class:`~env.core.hand_base.HandResult` (``winner`` ``"dealers"`` is the stage
    team; ``kitty_points`` is V, ``kitty_bonus`` the signed V x M) plus the stage count.

    ``stage_run``: hands in a row the stage team has been on stage, this one
    included; ``stage_limit_reached``: it held but steps down by ``stage_limit``.
    """

    stage_run: int
    stage_limit_reached: bool


@dataclass
class FixRecord:
    """One fix of the hand: who, what, whose fix it ate and the cards exchanged (回牌)."""

    seat: int
    fix: Fix
    eaten: int | None = None            # the seat whose fix it ate; None for a first fix or 吃自己
    taken: tuple[int, ...] = ()         # the eaten fix's cards, taken by ``seat``
    given: tuple[int, ...] = ()         # the cards ``seat`` gave back to ``eaten``


class GuafengHand(HandBase):
    """One 刮风 hand, from the first dealt card to the score.

    Create with :meth:`new` (a seeded shuffle), :meth:`from_deck` (a given deal
    order), :meth:`from_deal` (hands and kitty given, from the burial or the
    first lead) or :meth:`from_log`; or ``rules.new_hand(seed, ...)``.
    """

    DEAL_PHASE = GuafengPhase.DEAL
    FINAL_PHASE = GuafengPhase.FINAL_FIX
    PLAY_PHASE = GuafengPhase.PLAY
    DONE_PHASE = GuafengPhase.DONE
    LOG_VERSION = LOG_VERSION
    standing: StandingFix | None
    lead: Combo | None
    result: GuafengResult | None

    def __init__(self, rules: RuleSet | None, dealer: int | None, team_levels: tuple[str, str],
                 stage_run: int = 0):
        rules = rules if rules is not None else make_ruleset(NAME)
        if getattr(rules, "hand_class", None) is not GuafengHand:
            raise ValueError(f"a guafeng hand needs the guafeng rule set, got {type(rules).__name__}")
        layout = rules.layout
        if dealer is not None and dealer not in range(layout.players):
            raise ValueError(f"dealer must be a seat 0..{layout.players - 1} or None, got {dealer!r}")
        try:  # "10" is T, as wherever a level is given (guafeng_context, the referee)
            levels = tuple(normalize_rank(level) for level in team_levels)
        except ValueError:
            levels = ()
        if len(levels) != 2 or any(level not in rules.levels for level in levels):
            raise ValueError(f"team_levels must be two levels of {rules.levels} ('10' for T), got {team_levels!r}")
        team_levels = levels
        if not isinstance(stage_run, int) or stage_run < 0:
            raise ValueError(f"stage_run must be a non-negative int, got {stage_run!r}")
        super().__init__(rules, dealer)              # penalty_points stays 0: no penalties in 刮风
        self.team_levels = (team_levels[0], team_levels[1])
        self.stage_run = stage_run                   # hands in a row the stage team was on stage before
        self.level = team_levels[team_of(dealer)] if dealer is not None else rules.levels[0]
        self.trump: str | None = None                # the trump mode's name once the fixing ends
        self.trump_revealed = False                  # public from the first lead (section 7)
        self.first_fixer: int | None = None
        self.fixes: list[FixRecord] = []
        self.stepped_down = False
        self.kitty_taker: int | None = None
        self.buried_by: int | None = None
        self._start_seat = dealer if dealer is not None else 0
        self._resume_phase = GuafengPhase.DEAL       # the fixing phase a 回牌 interrupts

    @property
    def level_rank(self) -> int:
        """Index of the level rank in :data:`env.core.cards.RANKS`."""
        return RANKS.index(self.level)

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, seed: int, rules: RuleSet | None = None, *, dealer: int | None = None,
            team_levels: tuple[str, str] | None = None, stage_run: int = 0) -> GuafengHand:
        """A hand dealt from a seeded shuffle; ``dealer=None`` is a first hand (抢台, at level A).

        ``team_levels``: both teams' levels (default: both at the first level);
        ``stage_run``: hands in a row the stage team has already been on stage.
        """
        hand = cls(rules, dealer, tuple(team_levels or ("A", "A")), stage_run)
        hand._rng = random.Random(seed)
        hand._setup = {"mode": "seed", "seed": seed, "dealer": dealer, "team_levels": list(hand.team_levels),
                       "stage_run": stage_run}
        hand._shuffle()
        hand._advance()
        return hand

    @classmethod
    def from_deck(cls, deck, rules: RuleSet | None = None, *, dealer: int | None = None,
                  team_levels: tuple[str, str] | None = None, stage_run: int = 0, seed: int = 0) -> GuafengHand:
        """A hand dealt from ``deck`` in this order (the 108 cards; the last 4 are the kitty).

        ``seed`` only drives the reshuffle of a first hand in which nobody fixes.
        """
        hand = cls(rules, dealer, tuple(team_levels or ("A", "A")), stage_run)
        kinds = parse_cards(deck)
        if sorted(kinds) != hand.ruleset.layout.deck():
            raise ValueError(f"a deck is the {hand.ruleset.layout.deck_size} cards of two decks, each once")
        hand._rng = random.Random(seed)
        hand._setup = {"mode": "deck", "deck": card_list(kinds), "seed": seed, "dealer": dealer,
                       "team_levels": list(hand.team_levels), "stage_run": stage_run}
        hand._deck = kinds
        hand.events.append({"type": "shuffle", "known_to": [], "private": {"deck": card_list(kinds)}})
        hand._advance()
        return hand

    @classmethod
    def from_deal(cls, hands: list, kitty, *, dealer: int, trump: str | None, rules: RuleSet | None = None,
                  team_levels: tuple[str, str] | None = None, kitty_taker: int | None = None,
                  buried: bool = False, stage_run: int = 0) -> GuafengHand:
        """A hand after the fixing, from given hands and kitty (tests, scenarios; may be smaller than 26 each).

        It starts at the burial by ``kitty_taker`` (default: the dealer seat),
        or at the first lead when ``buried`` (``kitty`` is then the buried cards).
        """
        hand = cls(rules, dealer, tuple(team_levels or ("A", "A")), stage_run)
        parsed = [parse_cards(h) for h in hands]
        kitty_kinds = parse_cards(kitty)
        if len(parsed) != hand.num_players or any(len(h) != len(parsed[0]) for h in parsed):
            raise ValueError(f"a deal is {hand.num_players} hands of equal size, got {[len(h) for h in parsed]}")
        if any(c > hand.ruleset.layout.decks for c in counts_of([k for h in parsed for k in h] + kitty_kinds)):
            raise ValueError("a deal holds each card at most twice")
        taker = dealer if kitty_taker is None else kitty_taker
        hand._setup = {"mode": "deal", "hands": [card_list(h) for h in parsed], "kitty": card_list(kitty_kinds),
                       "dealer": dealer, "trump": trump, "team_levels": list(hand.team_levels),
                       "kitty_taker": taker, "buried": buried, "stage_run": stage_run}
        for seat, cards in enumerate(parsed):
            hand.hands[seat] = counts_of(cards)
            hand.hand_sizes[seat] = len(cards)
        hand.trump = trump
        hand.ctx = hand.ruleset.trump_context(hand.level, trump)
        hand.kitty_taker = taker
        hand.kitty = list(kitty_kinds)
        if buried:
            hand.kitty = sorted(kitty_kinds)
            hand.buried_by = taker
            hand._start_play()
        else:
            hand._start_kitty()
        return hand

    @classmethod
    def from_log(cls, log: dict[str, Any]) -> GuafengHand:
        """Replay a hand from its JSON log; raises if a decision no longer applies."""
        if log.get("version") != LOG_VERSION:
            raise ValueError(f"unsupported guafeng hand log version {log.get('version')!r}")
        rules = make_ruleset(log.get("ruleset", "standard"), log["options"], log.get("layout"))
        if rules.hand_class is not cls:
            raise ValueError(f"a guafeng hand log has ruleset 'guafeng', got {log.get('ruleset')!r}")
        setup = dict(log["setup"])
        mode = setup.pop("mode")
        setup["team_levels"] = tuple(setup["team_levels"])
        if mode == "seed":
            hand = cls.new(setup.pop("seed"), rules, **setup)
        elif mode == "deck":
            hand = cls.from_deck(setup.pop("deck"), rules, **setup)
        elif mode == "deal":
            hand = cls.from_deal(setup.pop("hands"), setup.pop("kitty"), rules=rules, **setup)
        else:
            raise ValueError(f"a guafeng hand log of mode {mode!r} cannot be replayed")
        for decision in log["decisions"]:
            hand.apply_decision(decision)
        return hand

    # ------------------------------------------------------------------ decisions by phase
    def act(self, seat: int, decision: Any) -> None:
        """Apply an agent's decision for ``seat`` by phase: a fix or ``None`` (pass) while fixing,
        the cards to give back, to bury, or to play."""
        if self.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
            if decision is None:
                self.pass_fix(seat)
            else:
                self.fix(seat, decision)
        elif self.phase == GuafengPhase.GIVE_BACK:
            self.give_back(seat, decision)
        elif self.phase == GuafengPhase.KITTY:
            self.bury(seat, decision)
        else:
            self.play(seat, decision)

    def apply_decision(self, decision: dict[str, Any]) -> None:
        """Apply one logged decision (``{"seat", "action", ...}``)."""
        action, seat = decision["action"], decision["seat"]
        if action == "fix":
            self.fix(seat, {"jokers": decision["jokers"], "base": decision["base"]})
        elif action == "pass":
            self.pass_fix(seat)
        elif action == "give_back":
            self.give_back(seat, decision["cards"])
        elif action == "bury":
            self.bury(seat, decision["cards"])
        elif action == "play":
            self.play(seat, decision["cards"])
        else:
            raise ValueError(f"unknown guafeng decision {action!r}")

    @staticmethod
    def _kinds(cards: Any, what: str) -> list[int]:
        try:
            return parse_cards(cards)
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"{what}: {exc}") from None

    # ------------------------------------------------------------------ the deal and the fixing (section 5)
    def _shuffle(self) -> None:
        self._deck = self.ruleset.layout.deck()
        self._rng.shuffle(self._deck)
        self._dealt = 0
        self.events.append({"type": "shuffle", "known_to": [], "private": {"deck": card_list(self._deck)}})

    def fix_options(self, seat: int | None = None) -> list[Fix]:
        """The fixes ``seat`` (default: the player to act) could make now, strictly stronger than the standing one."""
        seat = self.current_player if seat is None else seat
        if seat is None or self.phase not in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
            return []
        return self.ruleset.fix_options(self.hands[seat], self.standing)

    def _has_deal_options(self, seat: int) -> bool:
        return bool(self.fix_options(seat))

    def _deal_one(self) -> None:
        seat = (self._start_seat + self._dealt) % self.num_players
        kind = self._deck[self._dealt]
        self._dealt += 1
        hand = self.hands[seat]
        # Only a joker, or a card that completes a pair, can bring a new fix, and only beside a joker.
        new_pair = kind in (LITTLE_JOKER, BIG_JOKER) or hand[kind] == 1
        if new_pair and (hand[LITTLE_JOKER] or hand[BIG_JOKER] or kind >= LITTLE_JOKER):
            before = set(self.ruleset.fix_options(hand, self.standing))
            hand[kind] += 1
            if set(self.ruleset.fix_options(hand, self.standing)) - before:
                self._pending.append(seat)
        else:
            hand[kind] += 1
        self.hand_sizes[seat] += 1

    def fix(self, seat: int, fix: Fix | dict | tuple) -> None:
        """Fix the trump at a decision point (扣主): show jokers and lay a base; eats the standing fix.

        ``fix`` is a :class:`~env.guafeng.fixing.Fix`, a ``{"jokers", "base"}``
        dict or a ``(jokers, base)`` pair of cards. Eating another player's fix
        takes its cards and makes this seat give cards back at once (回牌).
        """
        self._check_turn(seat, (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX), "fix")
        try:
            fix = as_fix(fix)
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"seat {seat} cannot fix: {exc}") from None
        error = self.ruleset.fix_error(self.hands[seat], fix, self.standing)
        if error:
            raise IllegalActionError(f"seat {seat} cannot fix: {error}")
        eaten = self.standing.seat if self.standing is not None and self.standing.seat != seat else None
        old = self.standing
        self.decisions.append({"seat": seat, "action": "fix", **fix.to_dict()})
        if self.first_fixer is None:
            self.first_fixer = seat
            if self.dealer is None:  # 抢台: the first fixing team takes the stage, dealt first by seat 0 or 1
                self.dealer = team_of(seat)
                self.level = self.team_levels[team_of(seat)]
                self.events.append({"type": "stage", "team": team_of(seat), "dealer": self.dealer})
        self.standing = StandingFix(seat, fix)
        self.fixes.append(FixRecord(seat, fix, eaten))
        self.events.append({"type": "fix", "seat": seat, "jokers": card_list(fix.jokers),
                            "base_size": len(fix.base), "strength": list(fix.strength),
                            "eats": None if old is None else old.seat,
                            "known_to": [seat], "private": {"base": card_list(fix.base)}})
        if eaten is None:
            self._ask_after(seat)
            return
        taken = old.fix.cards
        for k in taken:
            self.hands[eaten][k] -= 1
            self.hands[seat][k] += 1
        self.hand_sizes[eaten] -= len(taken)
        self.hand_sizes[seat] += len(taken)
        self.fixes[-1].taken = taken
        # The jokers taken are private: beyond the shown ones they tell whether the base was a joker pair.
        self.events.append({"type": "take", "seat": seat, "from": eaten, "count": len(taken),
                            "known_to": [eaten, seat],
                            "private": {"cards": card_list(taken),
                                        "jokers": sum(1 for k in taken if k in (LITTLE_JOKER, BIG_JOKER))}})
        self._resume_phase = self.phase
        self.phase = GuafengPhase.GIVE_BACK

    def pass_fix(self, seat: int) -> None:
        """Decline to fix at a decision point."""
        self._pass_deal_decision(seat)

    # ------------------------------------------------------------------ 回牌
    @property
    def give_back_to(self) -> int | None:
        """The seat whose fix was eaten and who receives the 回牌 (``None`` outside it)."""
        return self.fixes[-1].eaten if self.phase == GuafengPhase.GIVE_BACK else None

    @property
    def give_back_count(self) -> int:
        """How many cards the 回牌 gives: as many as were taken (0 outside it)."""
        return len(self.fixes[-1].taken) if self.phase == GuafengPhase.GIVE_BACK else 0

    @property
    def give_back_constants(self) -> int:
        """The constant trumps the 回牌 must hold: one for each joker taken (0 outside it)."""
        if self.phase != GuafengPhase.GIVE_BACK:
            return 0
        return sum(1 for k in self.fixes[-1].taken if k in (LITTLE_JOKER, BIG_JOKER))

    def givable(self, seat: int) -> list[int]:
        """The cards the eater may give in its 回牌: its hand less its new fix (the standing one)."""
        locked = counts_of(self.standing.fix.cards)
        return [self.hands[seat][k] - locked[k] for k in range(NUM_KINDS)]

    def give_back_options(self, seat: int | None = None, chosen=()) -> list[int]:
        """The kinds ``seat`` (default: the player to act) may add to a partial 回牌 ``chosen``
        so that a legal completion remains (to compose it one card at a time)."""
        seat = self.current_player if seat is None else seat
        if self.phase != GuafengPhase.GIVE_BACK or seat != self.current_player:
            return []
        return self.ruleset.give_back_choices(self.givable(seat), parse_cards(chosen), self.give_back_count,
                                              self.give_back_constants)

    def give_back(self, seat: int, cards: Any) -> None:
        """回牌: the eater gives the eaten player as many cards as it took, with at least one
        constant trump for each joker taken, none of its new fix."""
        self._check_turn(seat, (GuafengPhase.GIVE_BACK,), "give cards back")
        kinds = self._kinds(cards, "回牌")
        error = self.ruleset.give_back_error(self.givable(seat), kinds, self.give_back_count,
                                             self.give_back_constants)
        if error:
            raise IllegalActionError(f"seat {seat} cannot give back {' '.join(CARD_NAMES[k] for k in kinds)}: "
                                     f"{error}")
        to = self.give_back_to
        for k in kinds:
            self.hands[seat][k] -= 1
            self.hands[to][k] += 1
        self.hand_sizes[seat] -= len(kinds)
        self.hand_sizes[to] += len(kinds)
        self.fixes[-1].given = tuple(sorted(kinds))
        self.decisions.append({"seat": seat, "action": "give_back", "cards": card_list(sorted(kinds))})
        self.events.append({"type": "give_back", "seat": seat, "to": to, "count": len(kinds),
                            "known_to": [to, seat], "private": {"cards": card_list(sorted(kinds))}})
        self.phase = self._resume_phase
        self._ask_after(seat)

    # ------------------------------------------------------------------ the end of the fixing
    def _finish_deal(self) -> None:
        """The end of the fixing: a redeal, a step-down, or the standing fix's trump mode."""
        layout = self.ruleset.layout
        if self.standing is None:
            if self.dealer is None:  # a first hand without a fix: shuffle and deal again
                self.hands = [[0] * NUM_KINDS for _ in range(layout.players)]
                self.hand_sizes = [0] * layout.players
                self.phase = GuafengPhase.DEAL
                self.events.append({"type": "redeal"})
                self._shuffle()
                self._advance()
                return
            # 自动下台: the defenders take the stage for this deal, at their level, with no trump suit.
            self.stepped_down = True
            self.dealer = (self.dealer + 1) % layout.players
            self.level = self.team_levels[team_of(self.dealer)]
            self.trump_revealed = True  # nothing is hidden: everyone knows no fix stood
            self.events.append({"type": "step_down", "dealer": self.dealer, "level": self.level})
            taker = self.dealer
        else:
            self.trump = self.standing.fix.trump
            fixer = self.standing.seat
            taker = (fixer + 2) % layout.players if self.is_dealer_team(fixer) else self.dealer
        self.ctx = self.ruleset.trump_context(self.level, self.trump)
        self.kitty = self._deck[layout.dealt_cards:]
        self.kitty_taker = taker
        self.events.append({"type": "fixing_over", "standing": None if self.standing is None else self.standing.seat,
                            "dealer": self.dealer, "kitty_taker": taker})
        self._start_kitty()

    # ------------------------------------------------------------------ the kitty (section 6)
    def _start_kitty(self) -> None:
        taker = self.kitty_taker
        self.phase = GuafengPhase.KITTY
        for k in self.kitty:
            self.hands[taker][k] += 1
        self.hand_sizes[taker] += len(self.kitty)
        self.events.append({"type": "kitty", "seat": taker, "known_to": [taker],
                            "private": {"cards": card_list(self.kitty)}})
        self.kitty = []
        self.current_player = taker

    def bury(self, seat: int, cards: Any) -> None:
        """The kitty taker buries exactly 4 cards face down (扣底, 暗底)."""
        self._check_turn(seat, (GuafengPhase.KITTY,), "bury the kitty")
        kinds = self._kinds(cards, "a burial")
        size = self.ruleset.layout.kitty_size
        if len(kinds) != size:
            raise IllegalActionError(f"the kitty takes exactly {size} cards, got {len(kinds)}")
        missing = [CARD_NAMES[k] for k, n in enumerate(counts_of(kinds)) if n > self.hands[seat][k]]
        if missing:
            raise IllegalActionError(f"not in hand: {' '.join(missing)}")
        for k in kinds:
            self.hands[seat][k] -= 1
        self.hand_sizes[seat] -= size
        self.kitty = sorted(kinds)
        self.buried_by = seat
        self.decisions.append({"seat": seat, "action": "bury", "cards": card_list(self.kitty)})
        self.events.append({"type": "bury", "seat": seat, "known_to": [seat],
                            "private": {"cards": card_list(self.kitty)}})
        self._start_play()

    # ------------------------------------------------------------------ play (sections 7, 8)
    def _start_play(self) -> None:
        self.phase = GuafengPhase.PLAY
        self.leader = self.current_player = self.kitty_taker

    @property
    def stage_team(self) -> int | None:
        """The stage team (0 = seats 0 and 2, 1 = seats 1 and 3); ``None`` before a first hand's first fix."""
        return None if self.dealer is None else team_of(self.dealer)

    def is_dealer_team(self, seat: int) -> bool:
        """True for the stage team's seats (the dealers of :class:`env.standard.hand.Hand`)."""
        return self.dealer is not None and team_of(seat) == team_of(self.dealer)

    @property
    def first_lead(self) -> bool:
        """True before the hand's first card is led: that lead is one card (section 7)."""
        return not self.tricks and not self.trick_plays

    def play_error(self, seat: int, kinds: list[int]) -> str | None:
        """Why ``seat`` may not play these cards now, or ``None`` if it may."""
        if self.phase != GuafengPhase.PLAY:
            return f"cannot play cards in phase {self.phase.value}"
        if seat != self.current_player:
            return f"seat {seat} cannot play: it is seat {self.current_player}'s turn"
        if self.lead is None:
            if self.first_lead and len(kinds) != 1:
                return f"the first lead of a hand is exactly one card (it makes the trump mode public), " \
                       f"got {len(kinds)}"
            return self.ruleset.lead_error(self.ctx, self.hands[seat], kinds)
        return self.ruleset.follow_error(self.ctx, self.hands[seat], kinds, self.lead)

    def legal_plays(self, seat: int | None = None, max_plays: int | None = None) -> MoveList:
        """Every legal lead or follow for ``seat`` (default: the player to act), the first ``max_plays``."""
        seat = self.current_player if seat is None else seat
        if self.phase != GuafengPhase.PLAY or seat != self.current_player:
            return MoveList([], False)
        hand = self.hands[seat]
        if self.first_lead:
            singles = [(k,) for k in range(NUM_KINDS) if hand[k]]
            cut = singles if max_plays is None else singles[:max_plays]
            return MoveList(cut, len(cut) < len(singles))
        if self.lead is None:
            return self.ruleset.legal_leads(self.ctx, hand, max_plays)
        return self.ruleset.legal_follows(self.ctx, hand, self.lead, max_plays)

    def play(self, seat: int, cards: Any) -> tuple[int, ...]:
        """Play cards (a lead or a follow); returns them sorted."""
        kinds = self._kinds(cards, "a play")
        error = self.play_error(seat, kinds)
        if error:
            raise IllegalActionError(error)
        kinds = sorted(kinds)
        self.decisions.append({"seat": seat, "action": "play", "cards": card_list(kinds)})
        if self.lead is None:
            self.lead = self.ruleset.analyse_lead(self.ctx, kinds)
        hand, played = self.hands[seat], self.played[seat]
        for k in kinds:
            hand[k] -= 1
            played[k] += 1
        self.hand_sizes[seat] -= len(kinds)
        self.trick_plays.append(tuple(kinds))
        self.events.append({"type": "play", "seat": seat, "cards": card_list(kinds)})
        if not self.trump_revealed:
            self.trump_revealed = True
            self.events.append({"type": "trump", "trump": self.trump, "level": self.level})
        if len(self.trick_plays) < self.num_players:
            self.current_player = (seat + 1) % self.num_players
        else:
            self._finish_trick()
        return tuple(kinds)

    def _score(self, last_winner: int, last_lead: Combo) -> None:
        """捡底 (section 8) and the table of section 9, with the stage count of ``stage_limit``."""
        rules = self.ruleset
        defenders_last = not self.is_dealer_team(last_winner)
        value, multiplier = rules.kitty_points(self.kitty), rules.kitty_multiplier(last_lead)
        swing = rules.kitty_swing(self.kitty, last_lead, defenders_last)
        trick_points = self.defender_points
        self.defender_points += swing
        winner, levels = rules.score(self.defender_points)
        held = winner == "dealers"
        run = 1 if self.stepped_down else self.stage_run + 1
        limit = self.options.stage_limit
        reached = held and limit > 0 and run >= limit
        self.result = GuafengResult(
            defender_points=self.defender_points, trick_points=trick_points, kitty_points=value,
            kitty_multiplier=multiplier, kitty_bonus=swing, penalty_points=0, winner=winner, levels=levels,
            next_dealer=rules.next_dealer(self.dealer, held and not reached), stage_run=run,
            stage_limit_reached=reached)
        self.phase = GuafengPhase.DONE
        self.current_player = None
        self.events.append({"type": "score", "defender_points": self.defender_points, "kitty_bonus": swing,
                            "winner": winner, "levels": levels, "stage_limit_reached": reached,
                            "kitty": card_list(self.kitty)})

    # ------------------------------------------------------------------ reading the state
    def visible_events(self, seat: int) -> list[dict[str, Any]]:
        """The events as ``seat`` knows them: private fields only where it is in ``known_to``."""
        seen = []
        for event in self.events:
            if "private" in event and seat not in event["known_to"]:
                event = {k: v for k, v in event.items() if k != "private"}
            seen.append(event)
        return seen
