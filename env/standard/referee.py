"""The standard game's answers of the string referee (:mod:`env.rules`): strings in, plain values out.

Every function takes the standard game's variant options as keywords
(:class:`~env.standard.variants.RuleOptions`' names) and asks the rule set
built from them (:class:`~env.standard.ruleset.StandardRules`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from env.core.cards import CARD_NAMES, counts_of, parse_cards
from env.core.errors import IllegalActionError
from env.standard.combos import Component, decompose_suit
from env.standard.ruleset import StandardRules
from env.standard.trump import TrumpContext

CardsArg = str | Sequence[str]


def _rules(variant: dict) -> StandardRules:
    return StandardRules(variant or None)


def _names_high_first(ctx: TrumpContext, kinds: Iterable[int]) -> list[str]:
    return [CARD_NAMES[k] for k in sorted(kinds, key=lambda k: (-ctx.order[k], k))]


def decompose(cards: CardsArg, *, level: str, trump: str | None, **variant) -> list[list[str]]:
    """Canonical components of ``cards`` (largest first), each listed high to low; cards of several
    effective suits are decomposed suit by suit."""
    ctx = _rules(variant).trump_context(level, trump)
    counts = counts_of(parse_cards(cards))
    components: list[Component] = []
    for suit in range(5):
        components += decompose_suit(ctx, counts, suit)
    components.sort(key=lambda c: (-c.size, -c.top))
    return [_names_high_first(ctx, c.cards) for c in components]


def is_legal_play(hand: CardsArg, play: CardsArg, *, level: str, trump: str | None,
                  lead: CardsArg | None = None, **variant) -> bool:
    """Whether ``play`` from ``hand`` is legal; ``lead=None`` means the player leads (a throw attempt
    of one effective suit is a legal lead; whether it stands is :func:`resolve_throw`'s job)."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    hand_counts = counts_of(parse_cards(hand))
    play_kinds = parse_cards(play)
    if lead is None:
        return rules.lead_error(ctx, hand_counts, play_kinds) is None
    lead_kinds = parse_cards(lead)
    try:
        analysed = rules.analyse_lead(ctx, lead_kinds)
    except IllegalActionError as exc:
        raise ValueError(f"the given lead is not a legal lead: {exc}") from None
    return rules.follow_error(ctx, hand_counts, play_kinds, analysed) is None


def resolve_throw(play: CardsArg, others: Sequence[CardsArg], *, level: str, trump: str | None,
                  **variant) -> list[str]:
    """The cards actually led when ``play`` is attempted against the three ``others``."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    kinds = parse_cards(play)
    need = rules.layout.players - 1
    if len(others) != need:
        count = ("one", "two", "three", "four", "five")[need - 1] if need <= 5 else str(need)
        raise ValueError(f"others must be the other {count} players' hands, got {len(others)}")
    lead = rules.analyse_lead(ctx, kinds)
    forced = rules.throw_check(ctx, lead, [counts_of(parse_cards(h)) for h in others])
    return _names_high_first(ctx, kinds if forced is None else forced.cards)


def trick_winner(plays: Sequence[CardsArg], *, level: str, trump: str | None, **variant) -> int:
    """Index of the winning play; ``plays[0]`` is the lead."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    kinds = [parse_cards(p) for p in plays]
    if not kinds:
        raise ValueError("a trick needs at least the lead")
    lead = rules.analyse_lead(ctx, kinds[0])
    for i, p in enumerate(kinds[1:], start=1):
        if len(p) != lead.n:
            raise ValueError(f"play {i} has {len(p)} cards, the lead has {lead.n}")
    return rules.winning_play(ctx, lead, kinds[1:])


def kitty_multiplier(lead: CardsArg, *, level: str, trump: str | None, variant: str = "exponential") -> int:
    """Kitty multiplier for the last trick's lead (what was actually led), under the ``variant``
    of the option ``kitty_multiplier``."""
    rules = _rules({"kitty_multiplier": variant})
    return rules.kitty_multiplier(rules.analyse_lead(rules.trump_context(level, trump), parse_cards(lead)))


def score_hand(defender_points: int, *, takeover: str = "plain", threshold: int = 80,
               step: int = 40) -> tuple[str, int]:
    """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points."""
    return _rules({"takeover": takeover, "threshold": threshold, "step": step}).score(defender_points)


def kitty_points(kitty: CardsArg, **variant) -> int:
    """The point cards of the kitty."""
    return _rules(variant).kitty_points(parse_cards(kitty))


def advance_level(level: str, steps: int, **variant) -> str:
    """The level ``steps`` levels up the level table."""
    return _rules(variant).advance_level(level, steps)
