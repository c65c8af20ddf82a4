"""Rules of play: leads, following, throws, ruffs, trick winner, and the referee API.

Internal functions work on kinds (ints) and count vectors with a
:class:`~env.trump.TrumpContext`; a :class:`Lead` is analysed once per trick
and reused for every follower. The bottom of the module is the public referee
API, a contract for outside tools: cards as strings, plain Python results,
and a ``ruleset`` keyword naming the rule set that answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from env.cards import CARD_NAMES, counts_of, parse_cards
from env.combos import Component, decompose_suit, has_run, matches_format, matching_key, pair_counts, profile, shape_of
from env.errors import IllegalActionError
from env.trump import EFFECTIVE_SUIT_NAMES, TRUMP, TrumpContext

if TYPE_CHECKING:
    from env.ruleset import RuleSet

NOT_A_WINNER = 0
FOLLOWS_SHAPE = 1
RUFFS = 2
_THROW_TOP = 1 << 20


class Lead:
    """A lead analysed once per trick: suit, length, components and format."""

    __slots__ = ("cards", "components", "is_throw", "n", "pairs", "rank", "suit", "tractor_lengths")

    def __init__(self, ctx: TrumpContext, cards: Sequence[int]):
        if not cards:
            raise IllegalActionError("a lead needs at least one card")
        suits = {ctx.suit[k] for k in cards}
        if len(suits) != 1:
            names = sorted(EFFECTIVE_SUIT_NAMES[s] for s in suits)
            raise IllegalActionError(f"a lead must be of one effective suit, got {', '.join(names)}")
        self.cards = tuple(cards)
        self.suit = suits.pop()
        self.n = len(cards)
        self.components = decompose_suit(ctx, counts_of(cards), self.suit)
        self.tractor_lengths, self.pairs, _ = shape_of(self.components)
        self.is_throw = len(self.components) > 1
        # The lead's own standing in the trick: a throw cannot be beaten by following.
        self.rank = (FOLLOWS_SHAPE, _THROW_TOP if self.is_throw else self.components[0].top)


def effective_suit_count(ctx: TrumpContext, counts: Sequence[int], suit: int) -> int:
    """Number of cards of an effective suit in a count vector."""
    return sum(map(counts.__getitem__, ctx.suit_kinds[suit]))


def _missing_cards(hand: Sequence[int], play: Sequence[int]) -> list[int]:
    need = counts_of(play)
    return [k for k in set(play) if need[k] > hand[k]]


def lead_error(ctx: TrumpContext, hand: Sequence[int], play: Sequence[int]) -> str | None:
    """Why a lead attempt is illegal, or ``None`` if it is a legal attempt.

    Any non-empty set of held cards of one effective suit may be led (a throw is
    then checked against the other hands).
    """
    if not play:
        return "a lead needs at least one card"
    missing = _missing_cards(hand, play)
    if missing:
        return f"not in hand: {' '.join(CARD_NAMES[k] for k in sorted(missing))}"
    if len({ctx.suit[k] for k in play}) != 1:
        return "a lead must be all of one effective suit (all trump, or all one plain suit)"
    return None


def follow_error(ctx: TrumpContext, hand: Sequence[int], play: Sequence[int], lead: Lead) -> str | None:
    """Why a follow is illegal (RULES.md 6), or ``None`` if it is legal."""
    if len(play) != lead.n:
        return f"must play exactly {lead.n} card(s), got {len(play)}"
    missing = _missing_cards(hand, play)
    if missing:
        return f"not in hand: {' '.join(CARD_NAMES[k] for k in sorted(missing))}"
    suit = lead.suit
    held = effective_suit_count(ctx, hand, suit)
    played = sum(1 for k in play if ctx.suit[k] == suit)
    name = EFFECTIVE_SUIT_NAMES[suit]
    if held <= lead.n:
        if played < held:
            return f"must play all {held} of your {name} card(s) first"
        return None
    if played < lead.n:
        return f"must play {lead.n} {name} card(s): you hold {held}"
    if not lead.tractor_lengths and not lead.pairs:
        return None
    required = profile(tuple(pair_counts(ctx, hand, suit)), lead.tractor_lengths, lead.pairs)
    achieved = profile(tuple(pair_counts(ctx, counts_of(play), suit)), lead.tractor_lengths, lead.pairs)
    if achieved != required:
        return f"must match the lead's shape as far as you can: {_describe_duty(required, lead)}"
    return None


def _describe_duty(required: tuple[int, ...], lead: Lead) -> str:
    parts = []
    for i, _ in enumerate(lead.tractor_lengths):
        has_tractor, m = required[2 * i], required[2 * i + 1]
        parts.append(f"a tractor of {m} pairs" if has_tractor else f"{m} pair(s) for a tractor")
    if lead.pairs:
        parts.append(f"{required[-1]} pair(s)")
    return ", ".join(parts) + " of the lead suit"


def is_legal_follow(ctx: TrumpContext, hand: Sequence[int], play: Sequence[int], lead: Lead) -> bool:
    """True if ``play`` is a legal follow to ``lead`` from count vector ``hand``."""
    return follow_error(ctx, hand, play, lead) is None


def throw_check(ctx: TrumpContext, lead: Lead, others: Iterable[Sequence[int]]) -> Component | None:
    """Check a throw against the other players' hands (count vectors).

    Returns ``None`` if every component stands, else the component that must be
    played instead: the lowest-ranking beatable one by its highest card, the
    smaller shape at equal rank (RULES.md 6, seed 001).
    """
    if not lead.is_throw:
        return None
    suit = lead.suit
    order = ctx.order
    highs, pcs = [], []
    for hand in others:
        highs.append(max((order[k] for k in ctx.suit_kinds[suit] if hand[k]), default=-1))
        pcs.append(pair_counts(ctx, hand, suit))
    beatable = []
    for comp in lead.components:
        if comp.size == 1:
            beaten = any(h > comp.top for h in highs)
        else:
            beaten = any(has_run(pc, comp.size // 2, comp.top) for pc in pcs)
        if beaten:
            beatable.append(comp)
    if not beatable:
        return None
    return min(beatable, key=lambda c: (c.top, c.size))


def play_rank(ctx: TrumpContext, lead: Lead, play: Sequence[int]) -> tuple[int, int]:
    """How a follow competes for the trick: ``(category, key)``.

    Category ``RUFFS`` (all trump, plain lead, matching the lead's format),
    ``FOLLOWS_SHAPE`` (lead suit, same single/pair/tractor shape as a non-throw
    lead) or ``NOT_A_WINNER``. A higher category wins; within one, a strictly
    higher key.
    """
    suit = ctx.suit
    lead_suit = lead.suit
    if all(suit[k] == lead_suit for k in play):
        if lead.is_throw:
            return NOT_A_WINNER, -1
        n = len(play)
        if n == lead.n <= 2:  # a single, or a pair (two copies of one card): its card's order, no decomposition
            return (FOLLOWS_SHAPE, ctx.order[play[0]]) if n == 1 or play[0] == play[1] else (NOT_A_WINNER, -1)
        comps = decompose_suit(ctx, counts_of(play), lead_suit)
        if len(comps) == 1 and comps[0].size == lead.n:
            return FOLLOWS_SHAPE, comps[0].top
        return NOT_A_WINNER, -1
    if lead_suit == TRUMP or not all(suit[k] == TRUMP for k in play):
        return NOT_A_WINNER, -1
    counts = counts_of(play)
    pc = pair_counts(ctx, counts, TRUMP)
    if not matches_format(tuple(pc), lead.tractor_lengths, lead.pairs):
        return NOT_A_WINNER, -1
    high = max(ctx.order[k] for k in play)
    return RUFFS, matching_key(pc, lead.tractor_lengths, lead.pairs, high)


def winning_play(ctx: TrumpContext, lead: Lead, follows: Sequence[Sequence[int]]) -> int:
    """Index (0 = the lead) of the play that wins a trick; equal plays: the earlier wins."""
    best, best_rank = 0, lead.rank
    for i, play in enumerate(follows, start=1):
        rank = play_rank(ctx, lead, play)
        if rank[0] != NOT_A_WINNER and rank > best_rank:
            best, best_rank = i, rank
    return best


# ---------------------------------------------------------------------------
# Public referee API: strings in, plain Python values out.
#
# Every function takes ``ruleset``: ``"standard"`` (the default) asks that rule
# set (:mod:`env.ruleset`) the question, and the other keywords are its variant
# options (RuleOptions' names); ``"guafeng"`` is answered by
# :mod:`env.guafeng.referee` (RULES-guafeng.md 11: ``trump`` may also be
# ``"constants"``, and there are no throws). ``classify``, ``kitty_points`` and
# ``advance_level`` were added for guafeng and default to it.
# ---------------------------------------------------------------------------

CardsArg = str | Sequence[str]
GUAFENG = "guafeng"


def _guafeng():
    from env.guafeng import referee  # imported here: env.guafeng is built on env.moves, which imports this module

    return referee


def _ruleset(name: str, variant: dict) -> RuleSet:
    from env.ruleset import make_ruleset  # imported here: the rule sets are built on this module

    return make_ruleset(name, variant or None)


def _names_high_first(ctx: TrumpContext, kinds: Iterable[int]) -> list[str]:
    return [CARD_NAMES[k] for k in sorted(kinds, key=lambda k: (-ctx.order[k], k))]


def decompose(cards: CardsArg, *, level: str, trump: str | None, ruleset: str = "standard",
              **variant) -> list[list[str]]:
    """Canonical components of ``cards`` (largest first), each listed high to low.

    Cards of several effective suits are decomposed suit by suit.
    """
    if ruleset == GUAFENG:
        return _guafeng().decompose(cards, level=level, trump=trump, **variant)
    ctx = _ruleset(ruleset, variant).trump_context(level, trump)
    counts = counts_of(parse_cards(cards))
    components: list[Component] = []
    for suit in range(5):
        components += decompose_suit(ctx, counts, suit)
    components.sort(key=lambda c: (-c.size, -c.top))
    return [_names_high_first(ctx, c.cards) for c in components]


def is_legal_play(hand: CardsArg, play: CardsArg, *, level: str, trump: str | None,
                  lead: CardsArg | None = None, ruleset: str = "standard", **variant) -> bool:
    """Whether ``play`` from ``hand`` is legal; ``lead=None`` means the player leads.

    A lead is legal when it is non-empty, held, and of one effective suit (a
    throw attempt is legal; whether it stands is :func:`resolve_throw`'s job).
    """
    if ruleset == GUAFENG:
        return _guafeng().is_legal_play(hand, play, level=level, trump=trump, lead=lead, **variant)
    rules = _ruleset(ruleset, variant)
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
                  ruleset: str = "standard", **variant) -> list[str]:
    """The cards actually led when ``play`` is attempted against the three ``others``."""
    if ruleset == GUAFENG:
        return _guafeng().resolve_throw(play, others, level=level, trump=trump, **variant)
    rules = _ruleset(ruleset, variant)
    ctx = rules.trump_context(level, trump)
    kinds = parse_cards(play)
    need = rules.layout.players - 1
    if len(others) != need:
        count = ("one", "two", "three", "four", "five")[need - 1] if need <= 5 else str(need)
        raise ValueError(f"others must be the other {count} players' hands, got {len(others)}")
    lead = rules.analyse_lead(ctx, kinds)
    forced = rules.throw_check(ctx, lead, [counts_of(parse_cards(h)) for h in others])
    return _names_high_first(ctx, kinds if forced is None else forced.cards)


def trick_winner(plays: Sequence[CardsArg], *, level: str, trump: str | None, ruleset: str = "standard",
                 **variant) -> int:
    """Index of the winning play; ``plays[0]`` is the lead."""
    if ruleset == GUAFENG:
        return _guafeng().trick_winner(plays, level=level, trump=trump, **variant)
    rules = _ruleset(ruleset, variant)
    ctx = rules.trump_context(level, trump)
    kinds = [parse_cards(p) for p in plays]
    if not kinds:
        raise ValueError("a trick needs at least the lead")
    lead = rules.analyse_lead(ctx, kinds[0])
    for i, p in enumerate(kinds[1:], start=1):
        if len(p) != lead.n:
            raise ValueError(f"play {i} has {len(p)} cards, the lead has {lead.n}")
    return rules.winning_play(ctx, lead, kinds[1:])


def kitty_multiplier(lead: CardsArg, *, level: str, trump: str | None, variant: str = "exponential",
                     ruleset: str = "standard") -> int:
    """Kitty multiplier for the last trick's lead (what was actually led)."""
    if ruleset == GUAFENG:  # the lead's card count; ``variant`` has no meaning there
        return _guafeng().kitty_multiplier(lead, level=level, trump=trump)
    rules = _ruleset(ruleset, {"kitty_multiplier": variant})
    return rules.kitty_multiplier(rules.analyse_lead(rules.trump_context(level, trump), parse_cards(lead)))


def score_hand(defender_points: int, *, takeover: str = "plain", threshold: int = 80,
               step: int = 40, ruleset: str = "standard") -> tuple[str, int]:
    """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points."""
    if ruleset == GUAFENG:  # RULES-guafeng.md 9: ``takeover``, ``threshold`` and ``step`` are ignored
        return _guafeng().score_hand(defender_points)
    return _ruleset(ruleset, {"takeover": takeover, "threshold": threshold, "step": step}).score(defender_points)


def classify(cards: CardsArg, *, level: str, trump: str | None, ruleset: str = GUAFENG, **variant) -> str:
    """The guafeng combination of ``cards``: ``"single"``, ``"pair"``, ``"tractor"``, ``"bomb"``,
    ``"run"`` or ``"invalid"`` (RULES-guafeng.md 4). Only guafeng names its plays this way."""
    if ruleset != GUAFENG:
        raise ValueError(f"classify is answered by ruleset='guafeng' only, got {ruleset!r}")
    return _guafeng().classify(cards, level=level, trump=trump, **variant)


def kitty_points(kitty: CardsArg, *, ruleset: str = GUAFENG, **variant) -> int:
    """The kitty's value before the multiplier: for guafeng V (point cards + 100 per ``BJ`` + 80
    per ``LJ``, RULES-guafeng.md 8), for the standard game its point cards."""
    if ruleset == GUAFENG:
        _guafeng().check_options(variant)
        return _guafeng().kitty_points(kitty)
    return _ruleset(ruleset, variant).kitty_points(parse_cards(kitty))


def advance_level(level: str, steps: int, *, ruleset: str = GUAFENG, **variant) -> str:
    """The level ``steps`` levels up: for guafeng the cycle A 2 ... K A (RULES-guafeng.md 2), for the
    standard game its level table."""
    if ruleset == GUAFENG:
        _guafeng().check_options(variant)
        return _guafeng().advance_level(level, steps)
    return _ruleset(ruleset, variant).advance_level(level, steps)
