"""The 刮风 rule set (``ruleset: guafeng``): its options and the object a hand asks every rule question.

:class:`GuafengRules` is a :class:`~env.core.ruleset.RuleSet`: it owns the deal
layout (two decks, 26 cards each, a 4-card kitty) and answers the play
questions with the 刮风 rules modules (:mod:`env.guafeng.order`,
:mod:`env.guafeng.combos`, :mod:`env.guafeng.scoring`) and the fixing
questions with :mod:`env.guafeng.fixing`. It has no standard bidding and no
throws (those questions of :class:`~env.core.ruleset.RuleSet` raise
``NotImplementedError``); its hands are :class:`~env.guafeng.hand.GuafengHand`
and its matches :class:`~env.guafeng.match.GuafengMatch`, made with
``rules.new_hand(seed, ...)`` and ``rules.new_match(seed)``.

Options (:class:`GuafengOptions`, RULES-guafeng.md sections 2 and 9):
``match_hands`` (default 13), the hands of a match, and ``stage_limit`` (default
7, 0 = off), the hands in a row after which the stage team steps down.
The rule set is registered as ``"guafeng"`` in :mod:`env.core.registry`.
"""

from __future__ import annotations

from typing import Any

from env.core.layout import DealLayout
from env.core.ruleset import RuleSet
from env.guafeng import combos, fixing, moves, scoring
from env.guafeng.options import LAYOUT, GuafengOptions
from env.guafeng.order import LEVELS, GuafengContext, guafeng_context, is_constant_trump


class GuafengRules(RuleSet):
    """The 刮风 rules (RULES-guafeng.md): the questions a :class:`~env.guafeng.hand.GuafengHand` asks.

    Card sets are count vectors (hands) or lists of kinds (plays) with the
    hand's :class:`~env.guafeng.order.GuafengContext`; a lead is a
    :class:`~env.guafeng.combos.Combo`.
    """

    name = "guafeng"
    referee = "env.guafeng.referee"
    options_class = GuafengOptions
    LAYOUT = LAYOUT

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
    legal_leads = staticmethod(moves.legal_leads)
    legal_follows = staticmethod(moves.legal_follows)

    # ---------------------------------------------------------------- scoring and the match (sections 8, 9)
    kitty_points = staticmethod(scoring.kitty_value)
    kitty_multiplier = staticmethod(scoring.kitty_multiplier)
    kitty_swing = staticmethod(scoring.kitty_swing)
    score = staticmethod(scoring.score_hand)
    advance_level = staticmethod(scoring.advance_level)

    def next_dealer(self, dealer: int, dealers_held: bool) -> int:
        """Dealer seat + 2 when the stage team held, + 1 when the defenders take the stage (section 9)."""
        return (dealer + (2 if dealers_held else 1)) % self.layout.players

    # ---------------------------------------------------------------- the state machines
    @property
    def hand_class(self) -> type:
        from env.guafeng.hand import GuafengHand  # the hand is built on the rule set

        return GuafengHand

    @property
    def match_class(self) -> type:
        from env.guafeng.match import GuafengMatch  # the match is built on the rule set

        return GuafengMatch

    def new_match(self, seed: int, max_hands: int | None = None, **kwargs: Any) -> Any:
        """A match of ``match_hands`` hands (its length is fixed: ``max_hands`` has no effect)."""
        return self.match_class(seed, self, **kwargs)

    def hand_from_deal(self, deal: dict[str, Any]) -> Any:
        """A hand after the fixing from ``hands``, ``kitty``, ``dealer``, ``trump`` and optional
        ``team_levels``, ``kitty_taker``, ``buried``."""
        levels = deal.get("team_levels")
        return self.hand_class.from_deal(deal["hands"], deal["kitty"], dealer=deal["dealer"], trump=deal.get("trump"),
                                         rules=self, team_levels=tuple(levels) if levels else None,
                                         kitty_taker=deal.get("kitty_taker"), buried=deal.get("buried", False))

    def view_of(self, hand: Any, seat: int) -> Any:
        from env.guafeng.view import guafeng_view_of

        return guafeng_view_of(hand, seat)

    def encoder(self, layout: str = "canonical", history_len: int | None = None) -> Any:
        from env.guafeng.encoding import GuafengEncoder

        return GuafengEncoder(layout, history_len)

    def observation_size(self, layout: str = "canonical") -> int:
        from env.guafeng.encoding import observation_size

        return observation_size(layout)

    def decision(self, hand: Any, seat: int) -> Any:
        from env.guafeng.actions import GuafengDecision

        return GuafengDecision(hand, seat)

    def hand_rewards(self, hand: Any, scheme: str) -> tuple[float, float]:
        from env.guafeng.rewards import hand_rewards

        return hand_rewards(hand.result, hand.dealer, scheme)

    def encoding_source(self, hand: Any, seat: int, decision: Any | None) -> Any:
        """The seat's view (刮风's encoder reads views): the acting seat's decision holds it already."""
        return decision.view if decision is not None else self.view_of(hand, seat)

    def render(self, hand: Any) -> str:
        from env.guafeng.render import render_table

        return render_table(hand)
