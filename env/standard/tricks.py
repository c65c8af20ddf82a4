"""The standard game's rules of play: leads, following, throws, ruffs, the trick winner.

Functions work on kinds (ints) and count vectors with a
:class:`~env.standard.trump.TrumpContext`; a :class:`Lead` is analysed once per
trick and reused for every follower. The string referee over them is
:mod:`env.standard.referee` (through :mod:`env.rules`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from env.core.cards import CARD_NAMES, counts_of
from env.core.errors import IllegalActionError
from env.core.suits import EFFECTIVE_SUIT_NAMES, TRUMP
from env.standard import tuples
from env.standard.combos import (
    Component,
    decompose_suit,
    has_run,
    matches_format,
    matching_key,
    pair_counts,
    profile,
    shape_of,
)
from env.standard.trump import TrumpContext

NOT_A_WINNER = 0
FOLLOWS_SHAPE = 1
RUFFS = 2
_THROW_TOP = 1 << 20


class Lead:
    """A lead analysed once per trick: suit, length, components and format."""

    __slots__ = ("cards", "components", "is_throw", "n", "pairs", "rank", "requirements", "suit", "tractor_lengths")

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
        if ctx.decks == 2:
            self.components = decompose_suit(ctx, counts_of(cards), self.suit)
            self.tractor_lengths, self.pairs, _ = shape_of(self.components)
            self.requirements = None
        else:  # RULES.md 11: tuples of up to d copies; the format is its requirements
            self.components = tuples.decompose(ctx, counts_of(cards), self.suit)
            self.requirements = tuples.requirements(self.components)
            self.tractor_lengths = tuple(k for m, k in self.requirements if k >= 2)
            self.pairs = sum(1 for m, k in self.requirements if k == 1)
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
    if ctx.decks != 2:
        return _tuple_follow_error(ctx, hand, play, lead)
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


def lead_requirements(lead: Lead) -> tuple[tuples.Shape, ...]:
    """The lead's requirements in RULES.md 11's reading (two-deck leads compute them on demand)."""
    return lead.requirements if lead.requirements is not None else tuples.requirements(lead.components)


def _tuple_follow_error(ctx: TrumpContext, hand: Sequence[int], play: Sequence[int], lead: Lead) -> str | None:
    """The shape duty of RULES.md 11 for a follower who holds more than the lead's count of its suit."""
    reqs = lead_requirements(lead)
    required = tuples.profile(tuples.stacks_of(ctx, hand, lead.suit), reqs)
    achieved = tuples.profile(tuples.stacks_of(ctx, counts_of(play), lead.suit), reqs)
    if achieved == required:
        return None
    return f"must match the lead's shape as far as you can: {describe_tuple_duty(required, reqs)}"


def shape_words(m: int, k: int) -> str:
    """``"a triple"``, ``"a tractor of 2 triples"``."""
    word = tuples.COPY_WORDS.get(m, f"{m}-tuple")
    return f"a {word}" if k == 1 else f"a tractor of {k} {word}s"


def describe_tuple_duty(required: tuple[int, ...], reqs: tuple[tuples.Shape, ...]) -> str:
    """The duty a required record sets, in words: what must be in the follow."""
    parts, pos, queue = [], 0, list(reqs)
    while queue and pos < len(required):
        m, k = queue.pop(0)
        if k >= 2:
            met, t = required[pos], required[pos + 1]
            pos += 2
            if met:
                parts.append(shape_words(m, k))
                continue
            if t:
                parts.append(f"{t} {tuples.COPY_WORDS.get(m, str(m))}(s) for {shape_words(m, k)}")
            missing = k - t
        else:
            met = required[pos]
            pos += 1
            if met:
                parts.append(shape_words(m, 1))
                continue
            missing = 1
        queue = list(tuples.degraded(tuple(queue), m, missing))
    return (", ".join(parts) or "no tuple") + " of the lead suit"


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
    if ctx.decks != 2:
        return _tuple_throw_check(ctx, lead, others)
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


def _tuple_throw_check(ctx: TrumpContext, lead: Lead, others: Iterable[Sequence[int]]) -> Component | None:
    """The throw check of RULES.md 11: a component is beaten by a unit of its shape above it (tuples may be broken)."""
    suit, order = lead.suit, ctx.order
    holdings = [(tuples.stacks_of(ctx, hand, suit),
                 max((order[k] for k in ctx.suit_kinds[suit] if hand[k]), default=-1)) for hand in others]
    beatable = [c for c in lead.components if any(tuples.beaten_by(st, high, c) for st, high in holdings)]
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
    if ctx.decks != 2:
        return _tuple_play_rank(ctx, lead, play)
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


def _tuple_play_rank(ctx: TrumpContext, lead: Lead, play: Sequence[int]) -> tuple[int, int]:
    """:func:`play_rank` in RULES.md 11's reading (a unit of the lead's shape, or a ruff matching its format)."""
    suit, lead_suit = ctx.suit, lead.suit
    if all(suit[k] == lead_suit for k in play):
        if lead.is_throw:
            return NOT_A_WINNER, -1
        comps = tuples.decompose(ctx, counts_of(play), lead_suit)
        if len(comps) == 1 and tuples.shape_of(comps[0]) == tuples.shape_of(lead.components[0]):
            return FOLLOWS_SHAPE, comps[0].top
        return NOT_A_WINNER, -1
    if lead_suit == TRUMP or not all(suit[k] == TRUMP for k in play):
        return NOT_A_WINNER, -1
    stacks = tuples.stacks_of(ctx, counts_of(play), TRUMP)
    reqs = lead_requirements(lead)
    if not tuples.matches_format(stacks, reqs):
        return NOT_A_WINNER, -1
    return RUFFS, tuples.matching_key(stacks, reqs, max(ctx.order[k] for k in play))


def winning_play(ctx: TrumpContext, lead: Lead, follows: Sequence[Sequence[int]]) -> int:
    """Index (0 = the lead) of the play that wins a trick; equal plays: the earlier wins."""
    best, best_rank = 0, lead.rank
    for i, play in enumerate(follows, start=1):
        rank = play_rank(ctx, lead, play)
        if rank[0] != NOT_A_WINNER and rank > best_rank:
            best, best_rank = i, rank
    return best
