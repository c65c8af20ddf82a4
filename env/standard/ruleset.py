"""Rule sets: one object that answers every rule question of a hand, as OpenSpiel's Game.

A :class:`RuleSet` owns the deal layout (:class:`DealLayout`: players, decks,
hand size, kitty size and so the number of tricks) and answers the questions a
:class:`~env.game.Hand` asks while it runs: the trump context, the bids, whether
a lead or a follow is legal, the throw check, the trick winner, the kitty
multiplier, the score, the level advance, the next dealer and the match end.
Everything else derives from it: the hand, the burial length of the action
masks (:func:`env.actions.composer_for`), the observation's history length and
scales (:mod:`env.encoding`), the bots, the terminal game and the web page
(which receives the layout with every state).

The standard game of RULES.md, with its variant options
(:class:`~env.variants.RuleOptions`), is the first rule set:
:class:`StandardRules`. 刮风 (:class:`env.guafeng.ruleset.GuafengRules`) is the
second; it fixes its trump by 扣主 instead of bidding, so its hands are another
class: a caller gets the right one with :meth:`RuleSet.new_hand` (or
:attr:`RuleSet.hand_class`, :meth:`RuleSet.new_match`). :func:`make_ruleset`
builds one by name; the names are :data:`RULESETS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from env.bidding import BIG_JOKER_PAIR, LITTLE_JOKER_PAIR, Bid, StandingBid, available_bids
from env.cards import BIG_JOKER, COPIES_PER_KIND, LITTLE_JOKER, NUM_KINDS, NUM_RANKS, SUITS, points_of, suit_of
from env.combos import Component
from env.moves import MoveList, legal_follows, legal_leads
from env.rules import Lead, follow_error, lead_error, throw_check, winning_play
from env.scoring import advance_level, kitty_multiplier_of, next_dealer, score_with
from env.trump import TrumpContext, trump_context
from env.variants import RuleOptions


@dataclass(frozen=True)
class DealLayout:
    """How the cards are dealt: seats, decks, cards per hand and in the kitty.

    Every card is dealt: ``players * hand_size + kitty_size`` is the whole deck
    (``decks`` copies of each of the 54 kinds).
    """

    players: int
    decks: int
    hand_size: int
    kitty_size: int

    def __post_init__(self) -> None:
        for name in ("players", "decks", "hand_size", "kitty_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"deal layout {name} must be a positive int, got {value!r}")
        if self.dealt_cards + self.kitty_size != self.deck_size:
            raise ValueError(f"deal layout does not deal the whole deck: {self.players} players x "
                             f"{self.hand_size} cards + a kitty of {self.kitty_size} != {self.deck_size} cards "
                             f"of {self.decks} deck(s)")

    @property
    def deck_size(self) -> int:
        """Cards in the deck (108 for two decks)."""
        return self.decks * NUM_KINDS

    @property
    def dealt_cards(self) -> int:
        """Cards dealt to the players (the rest is the kitty)."""
        return self.players * self.hand_size

    @property
    def num_tricks(self) -> int:
        """The most tricks a hand can have: every trick takes at least one card from each hand."""
        return self.hand_size

    @property
    def most_cards_held(self) -> int:
        """The largest hand: the dealer's, with the kitty picked up before the burial."""
        return self.hand_size + self.kitty_size

    def deck(self) -> list[int]:
        """The deck as kinds in kind order, before the shuffle."""
        return [k for k in range(NUM_KINDS) for _ in range(self.decks)]

    def to_dict(self) -> dict[str, int]:
        """The layout as a plain dict (JSON-serialisable)."""
        return asdict(self)


class RuleSet(ABC):
    """The rules of one way to play Shengji; a :class:`~env.game.Hand` holds one and asks it.

    Attributes:
        name: the rule set's name, as in :data:`RULESETS` and the ``ruleset``
            keyword of the referee API (:mod:`env.rules`).
        options: the rule set's variant options.
        layout: the deal layout.

    A rule set is built as ``RuleSetClass(options, layout)``: its options
    object (or a dict of them, or ``None`` for the defaults) and a layout
    (``None``: its own). Card sets are count vectors over the 54 kinds (hands)
    or lists of kinds (plays), with the hand's
    :class:`~env.trump.TrumpContext`, as in :mod:`env.rules`.
    """

    name: str = ""
    options: Any
    layout: DealLayout

    # ---------------------------------------------------------------- levels and trump
    @property
    @abstractmethod
    def levels(self) -> tuple[str, ...]:
        """The level ranks a team climbs, lowest first; teams start at the first."""

    @abstractmethod
    def trump_context(self, level: str | int, trump: str | int | None, jokers_only: bool = False) -> TrumpContext:
        """Effective suits and order of the cards for a level rank and trump suit (or ``None``)."""

    # ---------------------------------------------------------------- bidding (RULES.md 4)
    # The standard bidding: a rule set that fixes its trump otherwise (刮风's 扣主)
    # leaves these unanswered, and its own hand class never asks them.
    def bid_kinds(self, level_rank: int) -> frozenset[int]:
        """The kinds whose arrival in a hand can give its holder a new bid (a filter for the deal)."""
        raise self._not_standard("bidding")

    def available_bids(self, counts: Sequence[int], level_rank: int, seat: int,
                       standing: StandingBid | None) -> list[Bid]:
        """The bids ``seat`` can make now with these cards, against the standing bid."""
        raise self._not_standard("bidding")

    def trump_of_bid(self, bid: Bid) -> tuple[str | None, bool]:
        """The trump suit (``"S"`` .. ``"D"`` or ``None``) a winning bid fixes, and whether only jokers are trump."""
        raise self._not_standard("bidding")

    @property
    def redeal_without_bid(self) -> bool:
        """True when a deal in which nobody bid is dealt again (else a kitty card is turned)."""
        raise self._not_standard("bidding")

    def trump_of_turned_card(self, kind: int) -> str | None:
        """The trump suit fixed by a kitty card turned when nobody bid."""
        raise self._not_standard("bidding")

    def _not_standard(self, what: str) -> NotImplementedError:
        return NotImplementedError(f"the {self.name} rule set has no standard {what}; its hands are "
                                   f"{self.hand_class.__module__}.{self.hand_class.__name__} "
                                   f"(make them with ruleset.new_hand)")

    # ---------------------------------------------------------------- variants of the deal (RULES.md 9)
    @property
    def chaodipi(self) -> bool:
        """True when a 炒地皮 re-bidding round follows every burial (off unless a rule set has it)."""
        return False

    @property
    def tribute(self) -> bool:
        """True when a 大光 hand makes the next hand a tribute hand (off unless a rule set has it)."""
        return False

    def tribute_choices(self, counts: Sequence[int], level_rank: int) -> list[int]:
        """The kinds a tribute giver with these cards may give: its highest by the tribute order."""
        raise NotImplementedError(f"the {self.name} rule set has no tribute")

    # ---------------------------------------------------------------- play
    @abstractmethod
    def lead_error(self, ctx: TrumpContext, hand: Sequence[int], play: Sequence[int]) -> str | None:
        """Why a lead attempt is illegal, or ``None``."""

    @abstractmethod
    def follow_error(self, ctx: TrumpContext, hand: Sequence[int], play: Sequence[int], lead: Lead) -> str | None:
        """Why a follow to ``lead`` is illegal, or ``None``."""

    @abstractmethod
    def analyse_lead(self, ctx: TrumpContext, play: Sequence[int]) -> Lead:
        """The lead as the followers and the trick winner see it."""

    def throw_check(self, ctx: TrumpContext, lead: Lead, others: Sequence[Sequence[int]]) -> Component | None:
        """``None`` if the lead stands against the other hands, else the component played instead."""
        raise self._not_standard("throws")

    def throw_penalty(self, cards_taken_back: int) -> int:
        """Points charged to a failed thrower's team."""
        raise self._not_standard("throws")

    @abstractmethod
    def winning_play(self, ctx: TrumpContext, lead: Lead, follows: Sequence[Sequence[int]]) -> int:
        """Index (0 = the lead) of the play that wins the trick."""

    @abstractmethod
    def legal_leads(self, ctx: TrumpContext, hand: Sequence[int], max_plays: int | None = None) -> MoveList:
        """Every legal lead attempt from ``hand`` (the first ``max_plays``)."""

    @abstractmethod
    def legal_follows(self, ctx: TrumpContext, hand: Sequence[int], lead: Lead,
                      max_plays: int | None = None) -> MoveList:
        """Every legal follow to ``lead`` from ``hand`` (the first ``max_plays``)."""

    # ---------------------------------------------------------------- scoring and the match
    @abstractmethod
    def kitty_points(self, kitty: Sequence[int]) -> int:
        """The points of the buried kitty."""

    @abstractmethod
    def kitty_multiplier(self, last_lead: Lead) -> int:
        """How many times the kitty counts for the defenders who take the last trick."""

    @abstractmethod
    def score(self, defender_points: int) -> tuple[str, int]:
        """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points."""

    @abstractmethod
    def advance_level(self, level: str, steps: int) -> str:
        """The level ``steps`` places up from ``level``."""

    @abstractmethod
    def next_dealer(self, dealer: int, dealers_held: bool) -> int:
        """The dealer of the next hand."""

    @abstractmethod
    def match_winner(self, *, hand_level: str, dealer_team: int, dealers_held: bool, gaining_team: int,
                     new_level: str) -> int | None:
        """The team that has won the match after a hand, or ``None`` while it goes on."""

    # ---------------------------------------------------------------- the state machines
    @property
    def hand_class(self) -> type:
        """The class whose objects play one hand of these rules (:class:`env.game.Hand` by default)."""
        from env.game import Hand  # the hand is built on the rule set

        return Hand

    @property
    def match_class(self) -> type:
        """The class that chains hands of these rules into a match (:class:`env.match.Match` by default)."""
        from env.match import Match  # the match is built on the rule set

        return Match

    def new_hand(self, seed: int, **setup: Any) -> Any:
        """A hand of these rules dealt from a seeded shuffle: ``hand_class.new(seed, self, **setup)``.

        The one way to get the right hand class from a rule set; ``setup`` is
        the keywords of that class's ``new`` (dealer, levels, ...).
        """
        return self.hand_class.new(seed, self, **setup)

    def new_match(self, seed: int, **kwargs: Any) -> Any:
        """A match of these rules: ``match_class(seed, self, **kwargs)``."""
        return self.match_class(seed, self, **kwargs)

    def describe(self) -> dict[str, Any]:
        """The rule set as plain data: name, options, layout."""
        return {"name": self.name, "options": self.options.to_dict(), "layout": self.layout.to_dict()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r}, {self.layout!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and type(other) is type(self) and \
            (self.options, self.layout) == (other.options, other.layout)

    def __hash__(self) -> int:
        return hash((type(self), self.options, self.layout))


class StandardRules(RuleSet):
    """The standard game of RULES.md: two decks, 25 cards each, an 8-card kitty, and its variant options.

    ``layout`` may be changed (tests of what derives from it); the rules need
    four players and two decks.
    """

    name = "standard"
    LAYOUT = DealLayout(players=4, decks=2, hand_size=25, kitty_size=8)

    def __init__(self, options: RuleOptions | dict | None = None, layout: DealLayout | None = None):
        if isinstance(options, dict):
            options = RuleOptions.from_dict(options)
        if options is not None and not isinstance(options, RuleOptions):
            raise ValueError(f"the standard rule set takes RuleOptions, got {type(options).__name__}")
        layout = layout or self.LAYOUT
        if layout.players != 4:
            raise ValueError(f"the standard rule set is for 4 players, got layout players={layout.players}")
        if layout.decks != COPIES_PER_KIND:
            raise ValueError(f"the standard rule set plays {COPIES_PER_KIND} decks, got layout decks={layout.decks}")
        self.options = options or RuleOptions()
        self.layout = layout

    # The hot rule questions are the module functions themselves: no extra call per play.
    lead_error = staticmethod(lead_error)
    follow_error = staticmethod(follow_error)
    analyse_lead = staticmethod(Lead)
    throw_check = staticmethod(throw_check)
    winning_play = staticmethod(winning_play)
    available_bids = staticmethod(available_bids)
    legal_leads = staticmethod(legal_leads)
    legal_follows = staticmethod(legal_follows)
    next_dealer = staticmethod(next_dealer)
    kitty_points = staticmethod(points_of)

    @property
    def levels(self) -> tuple[str, ...]:
        return self.options.levels

    def trump_context(self, level: str | int, trump: str | int | None, jokers_only: bool = False) -> TrumpContext:
        return trump_context(level, trump, self.options, jokers_only)

    def bid_kinds(self, level_rank: int) -> frozenset[int]:
        return _BID_KINDS[level_rank]

    def trump_of_bid(self, bid: Bid) -> tuple[str | None, bool]:
        jokers_only = bid.strength == BIG_JOKER_PAIR and self.options.big_joker_pair == "master"
        return (None if bid.strength >= LITTLE_JOKER_PAIR else SUITS[bid.suit]), jokers_only

    @property
    def redeal_without_bid(self) -> bool:
        return self.options.no_bid == "redeal"

    def trump_of_turned_card(self, kind: int) -> str | None:
        return None if kind in (LITTLE_JOKER, BIG_JOKER) else SUITS[suit_of(kind)]

    def throw_penalty(self, cards_taken_back: int) -> int:
        return self.options.throw_penalty * cards_taken_back

    @property
    def chaodipi(self) -> bool:
        return self.options.chaodipi

    @property
    def tribute(self) -> bool:
        return self.options.tribute

    def tribute_choices(self, counts: Sequence[int], level_rank: int) -> list[int]:
        held = [k for k in range(NUM_KINDS) if counts[k]]
        if not held:
            return []
        top = max(tribute_place(k, level_rank, self.options.constant_twos) for k in held)
        return [k for k in held if tribute_place(k, level_rank, self.options.constant_twos) == top]

    def kitty_multiplier(self, last_lead: Lead) -> int:
        return kitty_multiplier_of(last_lead.components, self.options.kitty_multiplier)

    def score(self, defender_points: int) -> tuple[str, int]:
        return score_with(defender_points, self.options)

    def advance_level(self, level: str, steps: int) -> str:
        return advance_level(level, steps, self.options)

    def match_winner(self, *, hand_level: str, dealer_team: int, dealers_held: bool, gaining_team: int,
                     new_level: str) -> int | None:
        top = self.options.top_level
        if self.options.win == "defend_A":
            return dealer_team if dealers_held and hand_level == top else None
        return gaining_team if new_level == top else None


_BID_KINDS = tuple(frozenset(k for k in range(NUM_KINDS) if k >= LITTLE_JOKER or k % NUM_RANKS == rank)
                   for rank in range(NUM_RANKS))
"""By level rank: the jokers and the level cards, the only cards a bid is shown with."""


def tribute_place(kind: int, level_rank: int, constant_twos: bool = False) -> int:
    """Place of a kind in the suit-blind tribute order of RULES.md 9 (higher gives first):
    ``BJ`` > ``LJ`` > level rank > [2s with ``constant_twos``] > A > K > ... > 2."""
    if kind == BIG_JOKER:
        return NUM_RANKS + 3
    if kind == LITTLE_JOKER:
        return NUM_RANKS + 2
    rank = kind % NUM_RANKS
    if rank == level_rank:
        return NUM_RANKS + 1
    if constant_twos and rank == 0:
        return NUM_RANKS
    return rank


RULESETS: dict[str, type[RuleSet]] = {"standard": StandardRules}
"""The rule sets by name; 刮风 (``"guafeng"``) registers itself from :mod:`env.guafeng.ruleset`."""

STANDARD = StandardRules()
"""The standard game with the RULES.md defaults."""


def make_ruleset(name: str = "standard", options: Any = None, layout: DealLayout | dict | None = None) -> RuleSet:
    """The rule set called ``name``, built from its options (a dict or its options object) and layout.

    ``layout=None`` is the rule set's own. Raises ``ValueError`` listing the
    known names when ``name`` is unknown.
    """
    if name not in RULESETS:
        raise ValueError(f"unknown ruleset {name!r}; known rule sets: {', '.join(sorted(RULESETS))}")
    if isinstance(layout, dict):
        layout = DealLayout(**layout)
    return RULESETS[name](options, layout)


def as_ruleset(rules: RuleSet | RuleOptions | None) -> RuleSet:
    """A rule set from a rule set, the standard game's options, or ``None`` (the standard defaults)."""
    if rules is None:
        return STANDARD
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, RuleOptions):
        return StandardRules(rules)
    raise ValueError(f"expected a RuleSet or RuleOptions, got {type(rules).__name__}")


def ruleset_from_config(rules: RuleSet | RuleOptions | dict | str | None) -> RuleSet:
    """The rule set of a config: a rule set, the standard game's options, a rule set's name, or a dict
    of options whose ``ruleset`` key names the rule set (``{"ruleset": "guafeng", "match_hands": 13}``,
    as ``conf/rules/guafeng.yaml``; no key: the standard game)."""
    if isinstance(rules, str):
        return make_ruleset(rules)
    if isinstance(rules, RuleSet | RuleOptions) or rules is None:
        return as_ruleset(rules)
    options = dict(rules)
    name = options.pop("ruleset", "standard")
    if name == "standard":
        return as_ruleset(RuleOptions.from_dict(options))
    return make_ruleset(name, options)

# The 刮风 rule set is built on this module and adds itself to RULESETS on import;
# importing it here makes the name known wherever rule sets are.
import env.guafeng.ruleset  # noqa: E402,F401
