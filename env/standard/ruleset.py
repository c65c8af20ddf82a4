"""Rule sets: one object that answers every rule question of a hand, as OpenSpiel's Game.

A :class:`RuleSet` owns the deal layout (:class:`DealLayout`: players, decks,
hand size, kitty size and so the number of tricks) and answers the questions a
:class:`~env.standard.hand.Hand` asks while it runs: the trump context, the bids, whether
a lead or a follow is legal, the throw check, the trick winner, the kitty
multiplier, the score, the level advance, the next dealer and the match end.
Everything else derives from it: the hand, the burial length of the action
masks (:func:`env.standard.actions.composer_for`), the observation's history length and
scales (:mod:`env.standard.encoding`), the bots, the terminal game and the web page
(which receives the layout with every state).

The standard game of RULES.md, with its variant options
(:class:`~env.standard.variants.RuleOptions`), is the first rule set:
:class:`StandardRules`. 刮风 (:class:`env.guafeng.ruleset.GuafengRules`) is the
second; it fixes its trump by 扣主 instead of bidding, so its hands are another
class: a caller gets the right one with :meth:`RuleSet.new_hand` (or
:attr:`RuleSet.hand_class`, :meth:`RuleSet.new_match`). :func:`make_ruleset`
builds one by name; the names are :data:`RULESETS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_KINDS, NUM_RANKS, SUITS, points_of, suit_of
from env.core.layout import DealLayout
from env.core.ruleset import RuleSet
from env.standard.actions import num_actions
from env.standard.bidding import Bid, StandingBid, available_bids, bids_for
from env.standard.decisions import decision_of
from env.standard.layout import LAYOUT
from env.standard.moves import legal_follows, legal_leads
from env.standard.scoring import advance_level, kitty_multiplier_of, next_dealer, score_with
from env.standard.tricks import Lead, follow_error, lead_error, throw_check, winning_play
from env.standard.trump import TrumpContext, trump_context
from env.standard.variants import DEFAULT_KITTY, RuleOptions
from env.standard.view import view_of


class StandardRules(RuleSet):
    """The standard game of RULES.md: by default two decks, 25 cards each, an 8-card kitty, and its variant options.

    The options' ``decks`` and ``kitty_size`` (RULES.md 11) give the layout;
    ``layout`` may be given instead (tests of what derives from it) if it
    agrees with them. The rules need four players.
    """

    name = "standard"
    referee = "env.standard.referee"
    options_class = RuleOptions
    file_tag = ""
    """The standard game's deal files and saved settings predate rule-set names: they carry none."""
    LAYOUT = LAYOUT

    def __init__(self, options: RuleOptions | dict | None = None, layout: DealLayout | None = None):
        if isinstance(options, dict):
            options = RuleOptions.from_dict(options)
        if options is not None and not isinstance(options, RuleOptions):
            raise ValueError(f"the standard rule set takes RuleOptions, got {type(options).__name__}")
        options = options or RuleOptions()
        if layout is None:
            table_kitty = options.kitty_size == DEFAULT_KITTY[options.decks]
            layout = self.LAYOUT if options.decks == self.LAYOUT.decks and table_kitty else \
                DealLayout(players=4, decks=options.decks, hand_size=options.hand_size, kitty_size=options.kitty_size)
        if layout.players != 4:
            raise ValueError(f"the standard rule set is for 4 players, got layout players={layout.players}")
        if layout.decks != options.decks:
            raise ValueError(f"the layout deals {layout.decks} deck(s) but rule option decks={options.decks}")
        self.options = options
        self.layout = layout
        self.bids = bids_for(options.decks)

    # The hot rule questions are the module functions themselves: no extra call per play.
    lead_error = staticmethod(lead_error)
    follow_error = staticmethod(follow_error)
    analyse_lead = staticmethod(Lead)
    throw_check = staticmethod(throw_check)
    winning_play = staticmethod(winning_play)
    legal_leads = staticmethod(legal_leads)
    legal_follows = staticmethod(legal_follows)
    next_dealer = staticmethod(next_dealer)
    kitty_points = staticmethod(points_of)

    def available_bids(self, counts: Sequence[int], level_rank: int, seat: int,
                       standing: StandingBid | None) -> list[Bid]:
        """The bids of this deck count's ladder that ``seat`` can make now (RULES.md 4 and 11)."""
        return available_bids(counts, level_rank, seat, standing, self.bids)

    @property
    def levels(self) -> tuple[str, ...]:
        return self.options.levels

    def trump_context(self, level: str | int, trump: str | int | None, jokers_only: bool = False) -> TrumpContext:
        return trump_context(level, trump, self.options, jokers_only)

    def bid_kinds(self, level_rank: int) -> frozenset[int]:
        return _BID_KINDS[level_rank]

    def trump_of_bid(self, bid: Bid) -> tuple[str | None, bool]:
        jokers_only = bid.joker == BIG_JOKER and self.options.big_joker_pair == "master"
        return (None if bid.is_joker else SUITS[bid.suit]), jokers_only

    @property
    def num_actions(self) -> int:
        return num_actions(self.options.decks)

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

    # ---------------------------------------------------------------- what is built on the rules
    @property
    def hand_class(self) -> type:
        from env.standard.hand import Hand  # the hand is built on the rule set

        return Hand

    @property
    def match_class(self) -> type:
        from env.standard.match import Match  # the match is built on the rule set

        return Match

    def new_hand(self, seed: int, *, dealer: int | None = None, team_levels: tuple[str, str] | None = None,
                 **setup: Any) -> Any:
        """A hand at the dealer team's level (``team_levels[dealer % 2]``) unless ``level`` is given."""
        if team_levels is not None and dealer is not None and "level" not in setup:
            setup["level"] = team_levels[dealer % 2]
        return self.hand_class.new(seed, self, dealer=dealer, team_levels=team_levels, **setup)

    def hand_from_deal(self, deal: dict[str, Any]) -> Any:
        """A hand from ``hands``, ``kitty``, ``level``, ``dealer``, ``trump`` and optional ``buried``."""
        return self.hand_class.from_deal(deal["hands"], deal["kitty"], level=deal["level"], dealer=deal["dealer"],
                                         trump=deal.get("trump"), rules=self, buried=deal.get("buried", False))

    def view_of(self, hand: Any, seat: int) -> Any:
        return view_of(hand, seat)

    def encoder(self, layout: str = "canonical", history_len: int | None = None) -> Any:
        from env.standard.encoding import ObservationEncoder

        return ObservationEncoder(layout, history_len, self)

    def observation_size(self, layout: str = "canonical") -> int:
        from env.standard.encoding import observation_size

        return observation_size(layout, self)

    def decision(self, hand: Any, seat: int) -> Any:
        return decision_of(hand, seat)

    def hand_rewards(self, hand: Any, scheme: str) -> tuple[float, float]:
        from env.standard.rewards import hand_rewards

        return hand_rewards(hand.result, hand.dealer, self.options, scheme)

    def action_name(self, action: int) -> str:
        from env.standard.actions import action_name

        return action_name(action)

    def render(self, hand: Any) -> str:
        from env.standard.render import render_table

        return render_table(hand)


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


STANDARD = StandardRules()
"""The standard game with the RULES.md defaults."""


def as_ruleset(rules: RuleSet | RuleOptions | None) -> RuleSet:
    """A rule set from a rule set, the standard game's options, or ``None`` (the standard defaults)."""
    if rules is None:
        return STANDARD
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, RuleOptions):
        return StandardRules(rules)
    raise ValueError(f"expected a RuleSet or RuleOptions, got {type(rules).__name__}")
