"""The 刮风 answers of the public referee API (RULES-guafeng.md section 11): strings in, plain values out.

:mod:`env.rules`'s public functions send ``ruleset="guafeng"`` here (the rule set's :attr:`referee`). ``level`` is
``"2"``..``"A"`` (``"10"`` accepted), ``trump`` is ``"S" "H" "C" "D"``, ``None`` (no
suit) or ``"constants"`` (打常主); cards are strings or lists of card tokens as in
RULES.md. Malformed cards, levels, trumps and impossible plays raise ``ValueError``, as
do cards that the two decks cannot hold at once: more than two copies of a card in
one argument, or across the arguments that hold different players' cards (the hand
and the lead of ``is_legal_play``, the play and the others of ``resolve_throw``,
the plays of a trick).
The rule set's own options (``match_hands``, ``stage_limit``) change no answer here
and are accepted and ignored; any other keyword is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from env.core.cards import CARD_NAMES, COPIES_PER_KIND, counts_of, parse_cards
from env.guafeng import combos, scoring
from env.guafeng.combos import RUN, TRACTOR, Combo
from env.guafeng.order import GuafengContext, guafeng_context

CardsArg = str | Sequence[str]
OPTIONS = ("match_hands", "stage_limit")
"""The guafeng rule set's options: accepted by every function, they change no answer."""
OTHER_PLAYERS = 3


def check_options(options: dict) -> None:
    """Refuse keywords that are not guafeng options (the standard game's variants have no meaning here),
    and a deck count other than two (刮风 is a two-deck game, RULES.md 11)."""
    decks = options.pop("decks", COPIES_PER_KIND)
    if decks != COPIES_PER_KIND:
        raise ValueError(f"guafeng is played with {COPIES_PER_KIND} decks: decks={decks!r} is not one of its options")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown guafeng option(s) {', '.join(unknown)}; guafeng options: {', '.join(OPTIONS)}")


def _kinds(cards: CardsArg) -> list[int]:
    kinds = parse_cards(cards)
    counts = counts_of(kinds)
    over = [CARD_NAMES[k] for k, c in enumerate(counts) if c > COPIES_PER_KIND]
    if over:
        raise ValueError(f"more than {COPIES_PER_KIND} copies of {', '.join(over)} (two decks)")
    return kinds


def _disjoint(card_sets: Sequence[Sequence[int]], what: str) -> None:
    """Refuse card sets of different players that hold more than two copies of a card together."""
    counts = counts_of(k for kinds in card_sets for k in kinds)
    over = [CARD_NAMES[k] for k, c in enumerate(counts) if c > COPIES_PER_KIND]
    if over:
        raise ValueError(f"more than {COPIES_PER_KIND} copies of {', '.join(over)} in {what} together "
                         f"(two decks; they are different players' cards)")


def _combo(ctx: GuafengContext, cards: CardsArg, what: str) -> Combo:
    kinds = _kinds(cards)
    combo = combos.classify(ctx, kinds)
    if combo is None:
        names = " ".join(CARD_NAMES[k] for k in kinds) or "(no cards)"
        raise ValueError(f"{what} {names} is not a combination (single, pair, tractor, bomb or run)")
    return combo


def high_to_low(ctx: GuafengContext, combo: Combo) -> list[str]:
    """A combination's cards high to low: tractors and runs by rank value in the combination
    (an A counted low comes last), the others by order index."""
    if combo.kind in (TRACTOR, RUN):
        ace_low = combo.size < 14

        def value(k: int) -> int:
            return min(ctx.kind_values[k]) if ace_low else max(ctx.kind_values[k])

        ordered = sorted(combo.cards, key=lambda k: -value(k))
    else:
        ordered = sorted(combo.cards, key=lambda k: (-ctx.order[k], k))
    return [CARD_NAMES[k] for k in ordered]


def classify(cards: CardsArg, *, level: str, trump: str | None, **options) -> str:
    """``"single"``, ``"pair"``, ``"tractor"``, ``"bomb"``, ``"run"`` or ``"invalid"`` (section 4)."""
    check_options(options)
    combo = combos.classify(guafeng_context(level, trump), _kinds(cards))
    return "invalid" if combo is None else combo.kind


def decompose(cards: CardsArg, *, level: str, trump: str | None, **options) -> list[list[str]]:
    """``[cards]`` high to low when the cards are one combination; ``ValueError`` otherwise (no throws)."""
    check_options(options)
    ctx = guafeng_context(level, trump)
    return [high_to_low(ctx, _combo(ctx, cards, "cards"))]


def is_legal_play(hand: CardsArg, play: CardsArg, *, level: str, trump: str | None,
                  lead: CardsArg | None = None, **options) -> bool:
    """Whether ``play`` from ``hand`` is legal: a held combination as a lead, else the duties of section 7."""
    check_options(options)
    ctx = guafeng_context(level, trump)
    hand_kinds = _kinds(hand)
    hand_counts = counts_of(hand_kinds)
    kinds = _kinds(play)
    if lead is None:
        return combos.lead_error(ctx, hand_counts, kinds) is None
    lead_combo = _combo(ctx, lead, "the given lead")
    _disjoint([hand_kinds, lead_combo.cards], "the hand and the lead")  # the lead was another seat's
    return combos.follow_error(ctx, hand_counts, kinds, lead_combo) is None


def resolve_throw(play: CardsArg, others: Sequence[CardsArg], *, level: str, trump: str | None,
                  **options) -> list[str]:
    """``play`` (high to low) when it is one combination; ``ValueError`` otherwise (不能撇牌)."""
    check_options(options)
    if len(others) != OTHER_PLAYERS:
        raise ValueError(f"others must be the other three players' hands, got {len(others)}")
    hands = [_kinds(hand) for hand in others]
    ctx = guafeng_context(level, trump)
    combo = _combo(ctx, play, "the play")
    _disjoint([combo.cards, *hands], "the play and the other hands")
    return high_to_low(ctx, combo)


def trick_winner(plays: Sequence[CardsArg], *, level: str, trump: str | None, **options) -> int:
    """Index of the winning play (section 7); ``plays[0]`` is the lead and must be a combination."""
    check_options(options)
    if not plays:
        raise ValueError("a trick needs at least the lead")
    ctx = guafeng_context(level, trump)
    lead = _combo(ctx, plays[0], "the lead")
    follows = [_kinds(p) for p in plays[1:]]
    for i, p in enumerate(follows, start=1):
        if len(p) != lead.length:
            raise ValueError(f"play {i} has {len(p)} cards, the lead has {lead.length}")
    _disjoint([lead.cards, *follows], "the trick's plays")
    return combos.trick_winner(ctx, lead, follows)


def kitty_multiplier(lead: CardsArg, *, level: str, trump: str | None, variant: str = "exponential",
                     **options) -> int:
    """M of section 8: the card count of the last trick's lead (which must be a combination);
    ``variant`` (the standard game's multiplier option) is ignored."""
    check_options(options)
    ctx = guafeng_context(level, trump)
    return scoring.kitty_multiplier(_combo(ctx, lead, "the lead"))


def kitty_points(kitty: CardsArg, **options) -> int:
    """V of section 8: point cards + 100 per ``BJ`` + 80 per ``LJ``."""
    check_options(options)
    return scoring.kitty_value(_kinds(kitty))


def score_hand(defender_points: int, *, takeover: str = "plain", threshold: int | None = None,
               step: int | None = None, decks: int = COPIES_PER_KIND) -> tuple[str, int]:
    """``("dealers", n)`` (the stage team holds, +n) or ``("defenders", n)`` (section 9; the standard
    game's ``takeover``, ``threshold`` and ``step`` are ignored)."""
    check_options({"decks": decks})
    if isinstance(defender_points, bool) or not isinstance(defender_points, int):
        raise ValueError(f"defender_points must be an integer, got {defender_points!r}")
    return scoring.score_hand(defender_points)


def advance_level(level: str, steps: int, **options) -> str:
    """The level ``steps`` up the cycle A 2 ... K A (section 2)."""
    check_options(options)
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise ValueError(f"steps must be an integer, got {steps!r}")
    return scoring.advance_level(level, steps)
