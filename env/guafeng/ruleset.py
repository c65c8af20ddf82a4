"""The 刮风 rule set (``ruleset: guafeng``): its options and the object a hand asks every rule question.

:class:`GuafengRules` is a :class:`~env.ruleset.RuleSet`: it owns the deal
layout (two decks, 26 cards each, a 4-card kitty) and answers the play
questions with the 刮风 rules modules (:mod:`env.guafeng.order`,
:mod:`env.guafeng.combos`, :mod:`env.guafeng.scoring`) and the fixing
questions with :mod:`env.guafeng.fixing`. It has no standard bidding and no
throws (those questions of :class:`~env.ruleset.RuleSet` raise
``NotImplementedError``); its hands are :class:`~env.guafeng.hand.GuafengHand`
and its matches :class:`~env.guafeng.match.GuafengMatch`, made with
``rules.new_hand(seed, ...)`` and ``rules.new_match(seed)``.

Options (:class:`GuafengOptions`, RULES-guafeng.md sections 2 and 9):
``match_hands`` (default 13), the hands of a match, and ``stage_limit`` (default
7, 0 = off), the hands in a row after which the stage team steps down.
Importing this module registers the rule set as ``RULESETS["guafeng"]``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from env.guafeng import combos, fixing, scoring
from env.guafeng.order import LEVELS, GuafengContext, guafeng_context, is_constant_trump
from env.ruleset import RULESETS, DealLayout, RuleSet


@dataclass(frozen=True)
class GuafengOptions:
    """The options of the 刮风 rule set, validated on construction.

    Attributes:
        match_hands: the hands of a match (>= 1); the team that climbed more
            levels in them wins (equal: a draw).
        stage_limit: a team on stage this many hands in a row steps down after
            the last of them even if it held (连续七轮强制换台); 0 turns it off.
    """

    match_hands: int = 13
    stage_limit: int = 7

    def __post_init__(self) -> None:
        for name, least in (("match_hands", 1), ("stage_limit", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                kind = "a positive int" if least else "a non-negative int (0 turns it off)"
                raise ValueError(f"guafeng option {name} must be {kind}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the options (JSON-serialisable)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> GuafengOptions:
        """Build options from a dict (e.g. a Hydra config), rejecting unknown keys."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown guafeng option(s) {unknown}; known: {sorted(known)}")
        return cls(**data)


class GuafengRules(RuleSet):
    """The 刮风 rules (RULES-guafeng.md): the questions a :class:`~env.guafeng.hand.GuafengHand` asks.

    Card sets are count vectors (hands) or lists of kinds (plays) with the
    hand's :class:`~env.guafeng.order.GuafengContext`; a lead is a
    :class:`~env.guafeng.combos.Combo`.
    """

    name = "guafeng"
    LAYOUT = DealLayout(players=4, decks=2, hand_size=26, kitty_size=4)

    def __init__(self, options: GuafengOptions | dict | None = None, layout: DealLayout | None = None):
        if isinstance(options, dict):
            options = GuafengOptions.from_dict(options)
        if options is not None and not isinstance(options, GuafengOptions):
            raise ValueError(f"the guafeng rule set takes GuafengOptions, got {type(options).__name__}")
        if layout is not None and layout != self.LAYOUT:
            raise ValueError(f"the guafeng rule set deals {self.LAYOUT} only, got {layout}")
        self.options = options or GuafengOptions()
        self.layout = self.LAYOUT

    # ---------------------------------------------------------------- levels and trump
    @property
    def levels(self) -> tuple[str, ...]:
        return LEVELS

    def trump_context(self, level: str | int, trump: str | int | None, jokers_only: bool = False) -> GuafengContext:
        """The context of a level and trump mode: ``"S"`` .. ``"D"``, ``None`` (no suit) or ``"constants"``."""
        if jokers_only:
            raise ValueError("the guafeng rule set has no jokers-only trump")
        return guafeng_context(level, trump)

    # ---------------------------------------------------------------- fixing (section 5)
    fix_options = staticmethod(fixing.fix_options)
    fix_error = staticmethod(fixing.fix_error)
    give_back_error = staticmethod(fixing.give_back_error)
    give_back_choices = staticmethod(fixing.give_back_choices)
    is_constant_trump = staticmethod(is_constant_trump)

    # ---------------------------------------------------------------- play (sections 4 and 7)
    lead_error = staticmethod(combos.lead_error)
    follow_error = staticmethod(combos.follow_error)
    analyse_lead = staticmethod(combos.classify)
    winning_play = staticmethod(combos.trick_winner)
    legal_leads = staticmethod(combos.legal_leads)
    legal_follows = staticmethod(combos.legal_follows)

    # ---------------------------------------------------------------- scoring and the match (sections 8, 9)
    kitty_points = staticmethod(scoring.kitty_value)
    kitty_multiplier = staticmethod(scoring.kitty_multiplier)
    kitty_swing = staticmethod(scoring.kitty_swing)
    score = staticmethod(scoring.score_hand)
    advance_level = staticmethod(scoring.advance_level)

    def next_dealer(self, dealer: int, dealers_held: bool) -> int:
        """Dealer seat + 2 when the stage team held, + 1 when the defenders take the stage (section 9)."""
        return (dealer + (2 if dealers_held else 1)) % self.layout.players

    def match_winner(self, *, hand_level: str, dealer_team: int, dealers_held: bool, gaining_team: int,
                     new_level: str) -> int | None:
        """Never after one hand: a 刮风 match ends after ``match_hands`` hands (see GuafengMatch)."""
        return None

    # ---------------------------------------------------------------- the state machines
    @property
    def hand_class(self) -> type:
        from env.guafeng.hand import GuafengHand  # the hand is built on the rule set

        return GuafengHand

    @property
    def match_class(self) -> type:
        from env.guafeng.match import GuafengMatch  # the match is built on the rule set

        return GuafengMatch


RULESETS[GuafengRules.name] = GuafengRules
