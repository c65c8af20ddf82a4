"""Suit relabelings of a position: the plain suits are interchangeable, so the network may ask all of them.

Nothing in the rules tells one plain suit from another: renaming the suits
that are not trump (spades for clubs, say) turns a position into one worth
exactly the same, with every play renamed alike. The network is not built to
know that; it learns each renamed position from its own samples, and its
values for two renamings of one position differ by its error. Averaging its
``Q`` over the renamings of a position is the ensemble that the game's own
symmetry gives for free: one forward pass over a batch of them, no search.

The canonical observation lays the plain suits out in blocks in printed order
(without the trump suit) and the off-suit level cards in the same order, so a
renaming that keeps the trump suit moves each card's slot to its renamed
card's slot: an index permutation of every slot-indexed feature (the card sets,
the trick history's rows, a candidate's count planes) and of the two scalar
blocks indexed by the canonical suit (the lead's suit, each seat's voids).
:func:`relabelings` are the renamings of a trump context that keep its trump
suit; :func:`observation_gather` and friends give, for one of them, the index
``g`` such that ``encoded[g]`` is the renamed position's encoding (tested
equal to encoding the renamed hand).

Bids name suits, so a bid is not renamed: only the kitty and the play are.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np

from env.core.cards import LITTLE_JOKER, NUM_KINDS, NUM_SUITS, RANKS, SUITS, kind_of, rank_of, suit_of
from env.core.ruleset import RuleSet
from env.core.slots import canonical_suit_index
from env.standard.encoding import (
    CARD_SET_NAMES,
    NUM_LEVELS,
    VARIANT_CARD_SETS,
    count_planes,
    has_variant_features,
    history_row_size,
    observation_size,
    scalar_features,
    slot_table,
    slots_of_layout,
)
from env.standard.trump import TrumpContext

Relabeling = tuple[int, int, int, int]
"""A renaming of the printed suits: ``relabeling[s]`` is the suit that suit ``s`` becomes."""
IDENTITY: Relabeling = (0, 1, 2, 3)


def relabelings(ctx: TrumpContext, limit: int | None = None) -> list[Relabeling]:
    """The renamings of the printed suits that keep ``ctx``'s trump suit, the identity first (6 with a trump
    suit, 24 without); at most ``limit`` of them (a fixed choice: the first in lexicographic order)."""
    fixed = ctx.trump_suit
    found = [tuple(p) for p in permutations(range(NUM_SUITS)) if fixed is None or p[fixed] == fixed]
    return found[:limit] if limit is not None else found  # type: ignore[return-value]


def renamed_kind(relabeling: Relabeling, kind: int) -> int:
    """The kind a card becomes under a renaming (jokers stay)."""
    if kind >= LITTLE_JOKER:
        return kind
    return kind_of(relabeling[suit_of(kind)], rank_of(kind))


@lru_cache(maxsize=4096)
def slot_gather(ctx: TrumpContext, layout: str, relabeling: Relabeling) -> np.ndarray:
    """Per slot of the renamed position, the slot of the original it comes from (unused slots stay)."""
    table = slot_table(ctx, layout)
    gather = np.arange(slots_of_layout(layout))
    for kind in range(NUM_KINDS):
        gather[table[renamed_kind(relabeling, kind)]] = table[kind]
    gather.setflags(write=False)
    return gather


def _suit_gather(ctx: TrumpContext, relabeling: Relabeling) -> np.ndarray:
    """Per canonical suit index (0 trump, 1..4 plain blocks) of the renamed position, the original index."""
    index = canonical_suit_index(ctx)
    gather = np.arange(5)
    for suit in range(NUM_SUITS):
        if suit != ctx.trump_suit:
            gather[index[relabeling[suit]]] = index[suit]
    return gather


def _planes_gather(slots: np.ndarray, planes: int, offset: int = 0) -> np.ndarray:
    """The gather of ``planes`` consecutive slot planes starting at ``offset``."""
    s = len(slots)
    return np.concatenate([offset + p * s + slots for p in range(planes)])


@lru_cache(maxsize=64)
def _scalar_starts(ruleset: RuleSet, layout: str) -> tuple[dict[str, int], int]:
    """Where each scalar feature starts in the flat observation of ``ruleset`` in ``layout``, and where the
    scalars end (the card sets come first; read-only by convention: the result is cached)."""
    offset = len(CARD_SET_NAMES) * count_planes(ruleset) * slots_of_layout(layout)
    starts = {}
    for name, width in scalar_features(ruleset):
        starts[name] = offset
        offset += width
    return starts, offset


@lru_cache(maxsize=4096)
def observation_gather(ctx: TrumpContext, layout: str, relabeling: Relabeling, ruleset: RuleSet) -> np.ndarray:
    """Index ``g`` with ``obs[g]`` the renamed position's flat observation (:mod:`env.standard.encoding`'s
    under ``ruleset``: its decks' planes a card set, its scalar table, its RULES.md 9 block)."""
    slots = slot_gather(ctx, layout, relabeling)
    s = len(slots)
    gather = np.arange(observation_size(layout, ruleset))
    card_sets = len(CARD_SET_NAMES) * ctx.decks
    gather[:card_sets * s] = _planes_gather(slots, card_sets)
    suits = _suit_gather(ctx, relabeling)
    starts, end = _scalar_starts(ruleset, layout)
    lead = starts["lead_suit"]
    gather[lead:lead + 5] = lead + suits
    for seat in range(4):
        voids = starts["voids"] + 5 * seat
        gather[voids:voids + 5] = voids + suits
    if has_variant_features(ruleset):  # the RULES.md 9 block's card sets, after the scalars
        variant_sets = len(VARIANT_CARD_SETS) * ctx.decks
        gather[end:end + variant_sets * s] = _planes_gather(slots, variant_sets, end)
    gather.setflags(write=False)
    return gather


@lru_cache(maxsize=4096)
def history_gather(ctx: TrumpContext, layout: str, relabeling: Relabeling) -> np.ndarray:
    """Index ``g`` with ``row[g]`` a renamed trick-history row (four seats' plays over the slots, then
    leader, winner and points, which a renaming keeps)."""
    slots = slot_gather(ctx, layout, relabeling)
    gather = np.arange(history_row_size(layout))
    gather[:4 * len(slots)] = _planes_gather(slots, 4)
    gather.setflags(write=False)
    return gather


@lru_cache(maxsize=4096)
def row_gather(ctx: TrumpContext, layout: str, relabeling: Relabeling, planes: int, row_size: int) -> np.ndarray:
    """Index ``g`` with ``row[g]`` a renamed candidate row (its first ``planes`` slot planes renamed: a play's
    count planes, a card step's slot; the special actions and the named features, such as points or beats,
    stay)."""
    slots = slot_gather(ctx, layout, relabeling)
    gather = np.arange(row_size)
    gather[:planes * len(slots)] = _planes_gather(slots, planes)
    gather.setflags(write=False)
    return gather


def renamed_inputs(ctx: TrumpContext, layout: str, renamings: list[Relabeling], ruleset: RuleSet, obs: np.ndarray,
                   history: np.ndarray, rows: np.ndarray, planes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A decision's observation, trick history and candidate rows (``planes`` slot planes first) under each
    renaming: observations and histories stacked, rows concatenated renaming by renaming."""
    obs_all = np.stack([obs[observation_gather(ctx, layout, r, ruleset)] for r in renamings])
    history_all = np.stack([history[:, history_gather(ctx, layout, r)] for r in renamings])
    rows_all = np.concatenate([rows[:, row_gather(ctx, layout, r, planes, rows.shape[1])] for r in renamings])
    return obs_all, history_all, rows_all


def encoded_context(obs: np.ndarray, ruleset: RuleSet, layout: str) -> TrumpContext | None:
    """The trump context of an encoded decision, read back from its observation's ``trump_suit``,
    ``jokers_only`` and ``level`` scalars: what a stored decision (a label) keeps of its position, so it
    can be renamed without the hand it came from. ``None`` before the trump is fixed (no trump one-hot)."""
    starts = _scalar_starts(ruleset, layout)[0]
    trump = obs[starts["trump_suit"]:starts["trump_suit"] + 5]
    if not trump.any():
        return None
    suit = int(np.argmax(trump))
    level = int(np.argmax(obs[starts["level"]:starts["level"] + NUM_LEVELS]))
    # by their names, as a hand builds its context, so the cached context is the hand's own
    return ruleset.trump_context(RANKS[level], None if suit == 4 else SUITS[suit], bool(obs[starts["jokers_only"]]))


def renamed_encoding(ruleset: RuleSet, layout: str, obs: np.ndarray, history: np.ndarray, rows: np.ndarray,
                     planes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stored decision's observation, trick history and candidate rows under one renaming drawn at random
    from those keeping its trump suit (the identity among them), so a learner sees each labelled position
    in any of the suit names it could have been dealt in; a decision without a trump is returned as it is."""
    ctx = encoded_context(obs, ruleset, layout)
    if ctx is None:
        return obs, history, rows
    choices = relabelings(ctx)
    renaming = choices[int(rng.integers(len(choices)))]
    if renaming == IDENTITY:
        return obs, history, rows
    return (obs[observation_gather(ctx, layout, renaming, ruleset)], history[:, history_gather(ctx, layout, renaming)],
            rows[:, row_gather(ctx, layout, renaming, planes, rows.shape[1])])
