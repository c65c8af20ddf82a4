"""What a 刮风 play is, what a follower owes, and who wins a trick (RULES-guafeng.md 4 and 7).

A play is exactly one of five combinations (牌型): single, pair, tractor (连对),
bomb (雷) or run (雨, 一条龙); anything else is invalid, and there are no throws
(不能撇牌). :func:`classify` names a play's combination, with its effective suit
and its *size* (what two plays of one type and length compare by).

Following is computed on the follower's cards of the lead suit *by their own
effective suit* (H_L): a trump standing in for a plain card inside a tractor or
run never joins H_L. The duties (刮风 for pairs and tractors, 打雷 for bombs, none
for runs) are :func:`follow_error`'s; :mod:`env.guafeng.moves` enumerates the
plays they allow and answers whether a partly picked play can still become one.

Hands and plays are count vectors or lists of card kinds (:mod:`env.core.cards`), and
every function takes the hand's :class:`~env.guafeng.order.GuafengContext`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from env.core.cards import BIG_JOKER, CARD_NAMES, LITTLE_JOKER, NUM_RANKS, counts_of
from env.core.suits import EFFECTIVE_SUIT_NAMES, TRUMP
from env.guafeng.order import GuafengContext

SINGLE, PAIR, TRACTOR, BOMB, RUN = "single", "pair", "tractor", "bomb", "run"
COMBO_TYPES = (SINGLE, PAIR, TRACTOR, BOMB, RUN)
MIN_RUN = 5
"""A run (雨) has at least five cards."""
MAX_SPAN = 13
"""A tractor or run covers at most the 13 printed ranks (A is high or low, never both)."""
FOUR_JOKERS = (LITTLE_JOKER, LITTLE_JOKER, BIG_JOKER, BIG_JOKER)
RUFF = 2
FOLLOWS_SUIT = 1


@dataclass(frozen=True, slots=True)
class Combo:
    """One combination: ``kind`` (its type, one of :data:`COMBO_TYPES`), ``suit`` (0..3 or
    ``TRUMP``), ``length`` (cards), ``size`` (section 4) and ``cards`` (kinds, sorted)."""

    kind: str
    suit: int
    length: int
    size: int
    cards: tuple[int, ...]

    @property
    def pairs(self) -> int:
        """Pairs in the combination: k for a tractor of k pairs, 1 for a pair, else 0."""
        return self.length // 2 if self.kind in (PAIR, TRACTOR) else 0

    def describe(self) -> str:
        """E.g. ``"tractor of 2 pairs of H"``, ``"bomb"``, ``"run of 5 of trump"``."""
        name = EFFECTIVE_SUIT_NAMES[self.suit]
        if self.kind == TRACTOR:
            return f"tractor of {self.pairs} pairs of {name}"
        if self.kind == RUN:
            return f"run of {self.length} of {name}"
        if self.kind == BOMB:
            return "bomb"
        return f"{self.kind} of {name}"


# ---------------------------------------------------------------------------
# Printed-rank sequences: tractors and runs
# ---------------------------------------------------------------------------

def sequence_top(ranks: Sequence[int]) -> int | None:
    """Size of a set of distinct printed ranks (indices 0..12, sorted) if they are consecutive.

    Consecutive with every A high, or with every A low (K-A and A-2 are, K-A-2 is
    not). The size is the highest rank value: A = 14 when counted high, 1 when low;
    all 13 ranks are counted A high (size 14). ``None`` if not consecutive.
    """
    if ranks[-1] - ranks[0] == len(ranks) - 1:
        return ranks[-1] + 2
    # A counted low: A, 2, 3, ... with no gap.
    if ranks[-1] == NUM_RANKS - 1 and ranks[-2] == len(ranks) - 2:
        return ranks[-2] + 2
    return None


def held_values(ctx: GuafengContext, hand: Sequence[int], printed_suit: int, need: int,
                suit: int | None = None) -> list[bool]:
    """``present[v]`` for rank values v = 0..14 of one printed suit: ``hand`` holds at least
    ``need`` of the kind at value v (and, with ``suit``, that kind's effective suit is ``suit``)."""
    kinds = ctx.value_kinds[printed_suit]
    eff = ctx.suit
    present = [False] * 15
    for v in range(1, 15):
        k = kinds[v]
        present[v] = hand[k] >= need and (suit is None or eff[k] == suit)
    return present


def longest_stretch(present: Sequence[bool]) -> int:
    """Longest run of consecutive present values (capped at the 13 ranks)."""
    best = run = 0
    for p in present:
        run = run + 1 if p else 0
        best = max(best, run)
    return min(best, MAX_SPAN)


def window_starts(present: Sequence[bool], length: int) -> list[int]:
    """Start values of every window of ``length`` consecutive present values."""
    if length > MAX_SPAN:
        return []
    starts = []
    run = 0
    for v, p in enumerate(present):
        run = run + 1 if p else 0
        if run >= length:
            starts.append(v - length + 1)
    return starts


def printed_suits_of(suit: int) -> range:
    """The printed suits whose cards can be of effective suit ``suit``."""
    return range(4) if suit == TRUMP else range(suit, suit + 1)


def holds_tractor(ctx: GuafengContext, hand: Sequence[int], suit: int, pairs: int) -> bool:
    """True if the hand's cards of effective suit ``suit`` include a tractor of ``pairs`` pairs."""
    return any(longest_stretch(held_values(ctx, hand, s, 2, suit)) >= pairs for s in printed_suits_of(suit))


# ---------------------------------------------------------------------------
# classify
# ---------------------------------------------------------------------------

def classify(ctx: GuafengContext, kinds: Sequence[int]) -> Combo | None:
    """The combination a play is (section 4), or ``None`` if it is invalid."""
    n = len(kinds)
    if n == 0:
        return None
    cards = tuple(sorted(kinds))
    first = cards[0]
    if n == 1:
        return Combo(SINGLE, ctx.suit[first], 1, ctx.order[first], cards)
    if n == 2:
        if first != cards[1]:
            return None
        return Combo(PAIR, ctx.suit[first], 2, ctx.order[first], cards)
    if n == 4 and _is_bomb(ctx, cards):
        return Combo(BOMB, TRUMP, 4, min(ctx.order[k] for k in cards), cards)
    last = cards[-1]
    if last >= LITTLE_JOKER or first // NUM_RANKS != last // NUM_RANKS:
        return None
    if n >= MIN_RUN and len(set(cards)) == n:
        size = sequence_top([k % NUM_RANKS for k in cards])
        kind = RUN
    elif n % 2 == 0 and cards[0::2] == cards[1::2] and len(set(cards)) == n // 2:
        size = sequence_top([k % NUM_RANKS for k in cards[0::2]])
        kind = TRACTOR
    else:
        return None
    if size is None:
        return None
    is_trump = ctx.is_trump
    suit = TRUMP if all(is_trump[k] for k in cards) else first // NUM_RANKS
    return Combo(kind, suit, n, size, cards)


def _is_bomb(ctx: GuafengContext, cards: tuple[int, ...]) -> bool:
    """Four sorted cards: one of each suit of a bomb rank, or the four jokers."""
    if cards == FOUR_JOKERS:
        return True
    if cards[-1] >= LITTLE_JOKER:
        return False
    rank = cards[0] % NUM_RANKS
    return rank in ctx.bomb_ranks and cards == (rank, rank + NUM_RANKS, rank + 2 * NUM_RANKS, rank + 3 * NUM_RANKS)


# ---------------------------------------------------------------------------
# Leads and follows
# ---------------------------------------------------------------------------

def _names(kinds) -> str:
    return " ".join(CARD_NAMES[k] for k in sorted(kinds))


def missing_cards(hand: Sequence[int], play: Sequence[int]) -> list[int]:
    """The kinds of ``play`` that ``hand`` (a count vector) does not hold often enough."""
    need = counts_of(play)
    return sorted(k for k in set(play) if need[k] > hand[k])


def lead_error(ctx: GuafengContext, hand: Sequence[int], play: Sequence[int]) -> str | None:
    """Why a lead is illegal, or ``None``: a lead is any one combination from the hand.

    The single-card first lead of a hand (section 7) is the hand's rule, not checked here.
    """
    if not play:
        return "a lead needs at least one card"
    missing = missing_cards(hand, play)
    if missing:
        return f"not in hand: {_names(missing)}"
    if classify(ctx, play) is None:
        return (f"{_names(play)} is not a combination: a lead is one single, pair, tractor, bomb or run "
                "(no throws, 不能撇牌)")
    return None


def suit_cards(ctx: GuafengContext, hand: Sequence[int], suit: int) -> list[tuple[int, int]]:
    """``(kind, count)`` of the hand's cards of effective suit ``suit`` (H_L), weakest first."""
    return [(k, hand[k]) for k in ctx.suit_kinds[suit] if hand[k]]


def highest_cut(ctx: GuafengContext, items: Sequence[tuple[int, int]], m: int) -> tuple[int, int]:
    """Where the ``m`` highest cards of ``items`` (``(kind, count)``, weakest first) stop.

    Returns ``(t, above)``: ``t`` is the order index of the m-th highest card and
    ``above`` the number of cards strictly above it. A set of m cards is "the m
    highest" iff it holds every card above ``t`` and ``m - above`` cards at ``t``
    (cards of equal index are interchangeable). Needs at least m cards.
    """
    order = ctx.order
    taken = 0
    for k, c in reversed(items):
        t = order[k]
        if taken + c >= m:
            above = sum(c2 for k2, c2 in items if order[k2] > t)
            return t, above
        taken += c
    raise ValueError(f"fewer than {m} cards")


def is_highest(ctx: GuafengContext, items: Sequence[tuple[int, int]], play: Sequence[int]) -> bool:
    """True if ``play`` (kinds, all from ``items``) is ``len(play)`` highest cards of ``items``."""
    t, above = highest_cut(ctx, items, len(play))
    order = ctx.order
    at = sum(1 for k in play if order[k] == t)
    high = sum(1 for k in play if order[k] > t)
    return high == above and at == len(play) - above


def pair_kinds(items: Sequence[tuple[int, int]]) -> list[int]:
    """The kinds held at least twice (each a pair) among ``(kind, count)`` items."""
    return [k for k, c in items if c >= 2]


def follow_error(ctx: GuafengContext, hand: Sequence[int], play: Sequence[int], lead: Combo) -> str | None:
    """Why a follow to ``lead`` is illegal (section 7), or ``None`` if it is legal."""
    n = lead.length
    if len(play) != n:
        return f"must play exactly {n} card(s), got {len(play)}"
    missing = missing_cards(hand, play)
    if missing:
        return f"not in hand: {_names(missing)}"
    suit = lead.suit
    name = EFFECTIVE_SUIT_NAMES[suit]
    items = suit_cards(ctx, hand, suit)
    held = sum(c for _, c in items)
    eff = ctx.suit
    played = sum(1 for k in play if eff[k] == suit)
    if held <= n:
        if played < held:
            return f"must play all {held} of your {name} card(s)"
        return None
    if played < n:
        return f"must play {n} {name} cards: you hold {held}"
    kind = lead.kind
    if kind in (SINGLE, RUN):
        return None
    if kind == PAIR:
        if pair_kinds(items):
            if play[0] != play[1]:
                return f"must follow with a pair of {name} (刮风): you hold one"
        elif not is_highest(ctx, items, play):
            return f"must play your two highest {name} cards (刮风): you hold no {name} pair"
        return None
    if kind == BOMB:
        combo = classify(ctx, play)
        if (combo is None or combo.kind != BOMB) and not is_highest(ctx, items, play):
            return "must follow a bomb with a bomb or your four highest trumps (打雷)"
        return None
    return _tractor_follow_error(ctx, hand, items, play, suit, lead.pairs)


def _tractor_follow_error(ctx: GuafengContext, hand: Sequence[int], items: list[tuple[int, int]],
                          play: Sequence[int], suit: int, k: int) -> str | None:
    """The 刮风 duty to a tractor of k pairs, for a follow already all of the lead suit."""
    name = EFFECTIVE_SUIT_NAMES[suit]
    if holds_tractor(ctx, hand, suit, k):
        combo = classify(ctx, play)
        if combo is None or combo.kind != TRACTOR:
            return f"must follow with a tractor of {k} pairs of {name} (刮风): you hold one"
        return None
    pairs = pair_kinds(items)
    counts = counts_of(play)
    if len(pairs) >= k:
        if any(counts[c] != 2 for c in set(play)):
            return f"must follow with {k} pairs of {name} (刮风): you hold {len(pairs)}"
        return None
    if any(counts[p] != 2 for p in pairs):
        return f"must play all {len(pairs)} of your {name} pair(s), then your highest {name} cards (刮风)"
    pair_set = set(pairs)
    rest = [(c, n) for c, n in items if c not in pair_set]
    if not is_highest(ctx, rest, [c for c in play if c not in pair_set]):
        return f"must fill with your highest {name} cards after your {len(pairs)} pair(s) (刮风)"
    return None


def standing(ctx: GuafengContext, lead: Combo, play: Sequence[int]) -> tuple[int, int] | None:
    """A follow's standing in the trick (section 7), or ``None`` if it cannot win.

    ``(1, size)`` for a combination of the lead's type, length and suit; ``(2, size)``
    for one of trump over a plain-suit lead (a ruff).
    """
    combo = classify(ctx, play)
    if combo is None or combo.kind != lead.kind or combo.length != lead.length:
        return None
    if combo.suit == lead.suit:
        return FOLLOWS_SUIT, combo.size
    if combo.suit == TRUMP:
        return RUFF, combo.size
    return None


def trick_winner(ctx: GuafengContext, lead: Combo, follows: Sequence[Sequence[int]]) -> int:
    """Index of the play that wins the trick (0 = the lead, i = ``follows[i - 1]``).

    A later play takes the trick only with a strictly higher standing (先而出者为大).
    """
    best, best_standing = 0, (FOLLOWS_SUIT, lead.size)
    for i, play in enumerate(follows, start=1):
        got = standing(ctx, lead, play)
        if got is not None and got > best_standing:
            best, best_standing = i, got
    return best
