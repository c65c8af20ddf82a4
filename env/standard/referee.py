"""The standard game's answers of the string referee (:mod:`env.rules`): strings in, plain values out.

Every function takes the standard game's variant options as keywords
(:class:`~env.standard.variants.RuleOptions`' names, ``decks`` among them) and
asks the rule set built from them (:class:`~env.standard.ruleset.StandardRules`).
An argument holding more copies of a card than there are decks is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from env.core.cards import CARD_NAMES, RANKS, counts_of, normalize_rank, parse_cards
from env.core.errors import IllegalActionError
from env.standard import tuples
from env.standard.bidding import bid_of_cards, reinforces
from env.standard.combos import Component, decompose_suit
from env.standard.ruleset import StandardRules
from env.standard.trump import TrumpContext

CardsArg = str | Sequence[str]


def _rules(variant: dict) -> StandardRules:
    return StandardRules(variant or None)


def _kinds(cards: CardsArg, rules: StandardRules, what: str) -> list[int]:
    """Parsed cards, refused when they hold more copies of a card than the rule set's decks."""
    kinds = parse_cards(cards)
    decks = rules.options.decks
    over = [CARD_NAMES[k] for k, c in enumerate(counts_of(kinds)) if c > decks]
    if over:
        raise ValueError(f"{what} holds more than {decks} cop{'y' if decks == 1 else 'ies'} of "
                         f"{', '.join(over)}, but decks={decks}")
    return kinds


def _names_high_first(ctx: TrumpContext, kinds: Iterable[int]) -> list[str]:
    return [CARD_NAMES[k] for k in sorted(kinds, key=lambda k: (-ctx.order[k], k))]


def decompose(cards: CardsArg, *, level: str, trump: str | None, **variant) -> list[list[str]]:
    """Canonical components of ``cards`` (largest first), each listed high to low; cards of several
    effective suits are decomposed suit by suit."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    counts = counts_of(_kinds(cards, rules, "cards"))
    components: list[Component] = []
    if rules.options.decks == 2:
        for suit in range(5):
            components += decompose_suit(ctx, counts, suit)
        components.sort(key=lambda c: (-c.size, -c.top))
    else:  # RULES.md 11: most important first (tractors, more copies, longer), then higher
        for suit in range(5):
            components += tuples.decompose(ctx, counts, suit)
        components.sort(key=lambda c: (tuples.importance(tuples.shape_of(c)), c.top), reverse=True)
    return [_names_high_first(ctx, c.cards) for c in components]


def is_legal_play(hand: CardsArg, play: CardsArg, *, level: str, trump: str | None,
                  lead: CardsArg | None = None, **variant) -> bool:
    """Whether ``play`` from ``hand`` is legal; ``lead=None`` means the player leads (a throw attempt
    of one effective suit is a legal lead; whether it stands is :func:`resolve_throw`'s job)."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    hand_counts = counts_of(_kinds(hand, rules, "the hand"))
    play_kinds = _kinds(play, rules, "the play")
    if lead is None:
        return rules.lead_error(ctx, hand_counts, play_kinds) is None
    lead_kinds = _kinds(lead, rules, "the lead")
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
    kinds = _kinds(play, rules, "the play")
    need = rules.layout.players - 1
    if len(others) != need:
        count = ("one", "two", "three", "four", "five")[need - 1] if need <= 5 else str(need)
        raise ValueError(f"others must be the other {count} players' hands, got {len(others)}")
    lead = rules.analyse_lead(ctx, kinds)
    forced = rules.throw_check(ctx, lead, [counts_of(_kinds(h, rules, "a hand of others")) for h in others])
    return _names_high_first(ctx, kinds if forced is None else forced.cards)


def trick_winner(plays: Sequence[CardsArg], *, level: str, trump: str | None, **variant) -> int:
    """Index of the winning play; ``plays[0]`` is the lead."""
    rules = _rules(variant)
    ctx = rules.trump_context(level, trump)
    kinds = [_kinds(p, rules, f"play {i}") for i, p in enumerate(plays)]
    if not kinds:
        raise ValueError("a trick needs at least the lead")
    lead = rules.analyse_lead(ctx, kinds[0])
    for i, p in enumerate(kinds[1:], start=1):
        if len(p) != lead.n:
            raise ValueError(f"play {i} has {len(p)} cards, the lead has {lead.n}")
    return rules.winning_play(ctx, lead, kinds[1:])


def kitty_multiplier(lead: CardsArg, *, level: str, trump: str | None, variant: str = "exponential",
                     decks: int = 2) -> int:
    """Kitty multiplier for the last trick's lead (what was actually led), under the ``variant``
    of the option ``kitty_multiplier``."""
    rules = _rules({"kitty_multiplier": variant, "decks": decks})
    ctx = rules.trump_context(level, trump)
    return rules.kitty_multiplier(rules.analyse_lead(ctx, _kinds(lead, rules, "the lead")))


def score_hand(defender_points: int, *, takeover: str = "plain", threshold: int | None = None,
               step: int | None = None, decks: int = 2) -> tuple[str, int]:
    """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points (``threshold`` and
    ``step`` default to 40 and 20 per deck)."""
    return _rules({"takeover": takeover, "threshold": threshold, "step": step, "decks": decks}).score(defender_points)


def kitty_points(kitty: CardsArg, **variant) -> int:
    """The point cards of the kitty."""
    rules = _rules(variant)
    return rules.kitty_points(_kinds(kitty, rules, "the kitty"))


def advance_level(level: str, steps: int, **variant) -> str:
    """The level ``steps`` levels up the level table."""
    return _rules(variant).advance_level(level, steps)


def bid_beats(bid: CardsArg, standing: CardsArg | None, *, level: str, same_player: bool, decks: int = 2) -> bool:
    """Whether the bid shown with ``bid``'s cards stands over ``standing`` (RULES.md 4 and 11).

    Strength is the ladder of :mod:`env.standard.bidding`: more cards win, then
    big jokers over little jokers over a suit; equal strength never overturns.
    With ``same_player`` only a reinforcement (more copies of the same card) counts.
    """
    rules = _rules({"decks": decks})
    rank = RANKS.index(normalize_rank(level))
    made = bid_of_cards(_kinds(bid, rules, "the bid"), rank, decks)
    if standing is None:
        return True
    before = bid_of_cards(_kinds(standing, rules, "the standing bid"), rank, decks)
    if same_player:
        return reinforces(made, before)
    return made.strength > before.strength
