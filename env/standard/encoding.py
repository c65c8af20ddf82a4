"""Observation encoding of one seat's view: a flat feature vector and a trick history.

Card sets are encoded as binary planes over *slots*, one per copy a game can
hold: with ``d`` decks plane ``j`` says ``>= j + 1`` copies (two decks: ``>= 1``
copy, ``2`` copies; RULES.md 11 games carry ``d`` planes, :func:`count_planes`).
Two slot layouts:

* ``canonical`` (default, 73 slots): the trump block first (21 slots, strongest
  first: ``BJ``, ``LJ``, level card of the trump suit, off-suit level cards,
  [2s], then the trump suit from its ace down), then one 13-slot block per plain
  suit in the fixed order S, H, C, D skipping the trump suit, each from its ace
  down. The network sees strength, not printed suit and rank. While bidding
  (no trump yet) the layout of a no-trump hand at the level is used.
* ``raw`` (54 slots): the kinds in kind order, for ablations.

Everything is from the viewing seat's side: seat features are ordered by
relative seat (0 = self, 1 = next, 2 = partner, 3 = previous) and only public
information plus the seat's own cards (and the kitty it buried, for the
dealer) is read. See :data:`FEATURES` for the vector's table.

The deal layout comes from the hand's rule set (:mod:`env.standard.ruleset`): the
history holds its number of tricks by default, and the counts of the scalar
features (picks left at the burial, lead length, trick number, hand sizes,
deal progress) are scaled by its kitty size, hand size and number of tricks; points
by the points in play (100 a deck), the history's card counts by the decks. The bid
strength one-hot has a place for each strength of the rule set's bid ladder (five
up to two decks; RULES.md 11 adds three a deck). With two decks every number is
the two-deck encoding's, byte for byte.

With a variant of RULES.md 9 on (``chaodipi`` or ``tribute``), the vector
ends with a block (see :func:`observation_size`): two card sets, the public
tribute cards and the returned cards the seat knows, then
:data:`VARIANT_FEATURES`: the variant phase, who buried last, the 炒地皮 round's
passes in a row and bids made. Without them the observation is exactly the
standard one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from env.core import slots
from env.core.cards import NUM_KINDS, NUM_SUITS, POINTS, RANKS
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet
from env.core.slots import PLAIN_SLOTS, canonical_suit_index
from env.standard.hand import Hand, Phase
from env.standard.tricks import RUFFS, play_rank, winning_play
from env.standard.trump import TrumpContext
from env.standard.view import PlayerView

TRUMP_SLOTS = 21
CANONICAL_SLOTS = TRUMP_SLOTS + NUM_SUITS * PLAIN_SLOTS
NUM_CARD_PLANES = 12
HISTORY_SEAT_FEATURES = 4
NUM_LEVELS = len(RANKS)
PHASES = (Phase.DEAL, Phase.FINAL_BID, Phase.KITTY, Phase.PLAY, Phase.DONE)

# Feature table of the flat observation (name, size per slot-set or scalar count).
CARD_SET_NAMES = (
    "own_hand", "picked", "played_self", "played_next", "played_partner", "played_prev",
    "trick_self", "trick_next", "trick_partner", "trick_prev", "unseen", "own_kitty",
)
SCALAR_FEATURES = (
    ("phase", 5), ("leading", 1), ("picks_left", 1),
    ("lead_suit", 6), ("lead_length", 1), ("lead_tractors", 1), ("lead_pairs", 1), ("lead_singles", 1),
    ("lead_longest_tractor", 1), ("lead_is_throw", 1),
    ("trick_winner", 5), ("trick_points", 1), ("trick_winner_ruffs", 1),
    ("voids", 20), ("trump_suit", 5), ("jokers_only", 1),
    ("level", NUM_LEVELS), ("own_team_level", NUM_LEVELS), ("other_team_level", NUM_LEVELS),
    ("dealer", 5), ("own_team_deals", 1),
    ("bid_strength", 5), ("bidder", 5), ("bid_suit", 5),
    ("defender_points", 1), ("trick_number", 1), ("hand_sizes", 4), ("cards_dealt", 1),
)
NUM_SCALARS = sum(size for _, size in SCALAR_FEATURES)
"""Scalars of a game of up to two decks (more decks have more bid strengths: :func:`scalar_features`)."""
VARIANT_PHASES = (Phase.TRIBUTE, Phase.TRIBUTE_RETURN, Phase.REBID)
VARIANT_CARD_SETS = ("tribute_cards", "returned_cards")
VARIANT_FEATURES = (("variant_phase", 3), ("buried_by", 5), ("rebid_passes", 1), ("rebids_made", 1))
"""Scalars appended (after the two card sets of :data:`VARIANT_CARD_SETS`) when a RULES.md 9 option is on."""
NUM_VARIANT_SCALARS = sum(size for _, size in VARIANT_FEATURES)


def count_planes(ruleset: RuleSet | None) -> int:
    """Binary planes per card set: the decks of the rule set's layout (two for the standard game)."""
    return ruleset_from_config(ruleset).layout.decks


def bid_strengths(ruleset: RuleSet | None) -> int:
    """Places of the ``bid_strength`` one-hot: no bid (0) and each strength of the ladder (at least 5)."""
    bids = getattr(ruleset_from_config(ruleset), "bids", ())
    return max(5, max((bid.strength for bid in bids), default=0) + 1)


def scalar_features(ruleset: RuleSet | None = None) -> tuple[tuple[str, int], ...]:
    """The scalar feature table of a rule set: :data:`SCALAR_FEATURES` with its bid ladder's strengths."""
    strengths = bid_strengths(ruleset)
    return tuple((name, strengths if name == "bid_strength" else size) for name, size in SCALAR_FEATURES)


def has_variant_features(ruleset: RuleSet | None) -> bool:
    """Whether observations under ``ruleset`` carry the RULES.md 9 block (炒地皮 or tribute on)."""
    return ruleset is not None and (ruleset.chaodipi or ruleset.tribute)


def observation_size(layout: str = "canonical", ruleset: RuleSet | None = None) -> int:
    """Length of the standard flat observation vector for a layout (and rule set: its RULES.md 9 options
    add a block). Any rule set's: ``ruleset.observation_size(layout)``."""
    planes = count_planes(ruleset)
    size = NUM_CARD_PLANES * planes * slots_of_layout(layout) + sum(n for _, n in scalar_features(ruleset))
    if has_variant_features(ruleset):
        size += len(VARIANT_CARD_SETS) * planes * slots_of_layout(layout) + NUM_VARIANT_SCALARS
    return size


def history_row_size(layout: str = "canonical") -> int:
    """Length of one trick row of the history tensor."""
    return 4 * slots_of_layout(layout) + 4 + 4 + 1


_ROTATIONS = tuple([(seat + rel) % 4 for rel in range(4)] for seat in range(4))


def _count_row(kinds) -> list[int]:
    row = [0] * NUM_KINDS
    for k in kinds:
        row[k] += 1
    return row


@lru_cache(maxsize=8)
def slots_of_layout(layout: str) -> int:
    """Number of card slots of a layout (:func:`env.core.slots.slots_of_layout` with the standard trump block;
    cached: asked at every decision)."""
    return slots.slots_of_layout(layout, TRUMP_SLOTS)


@lru_cache(maxsize=1024)
def slot_table(ctx: TrumpContext, layout: str) -> np.ndarray:
    """Slot of every kind in a layout: :func:`env.core.slots.slot_table` with the standard trump block (the
    same cached array)."""
    return slots.slot_table(ctx, layout, TRUMP_SLOTS)


Source = Hand | PlayerView


def own_cards(source: Source, seat: int):
    """The seat's own count vector, from a hand or from the seat's view."""
    return source.hand if isinstance(source, PlayerView) else source.hands[seat]


def own_kitty(source: Source, seat: int):
    """The kitty the seat buried (dealer only, once buried), else ``None``."""
    if isinstance(source, PlayerView):
        return source.kitty
    if seat == source.buried_by and source.phase in (Phase.REBID, Phase.PLAY, Phase.DONE):
        return source.kitty
    return None


def bidding_context(hand: Source) -> TrumpContext:
    """The context used to lay out cards before the trump is fixed (no-trump at the level)."""
    return hand.ctx or hand.ruleset.trump_context(hand.level_rank, None)


_SEEN_SIGNS = np.array([-1, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0, -1], dtype=np.int8)
"""Per card set (:data:`CARD_SET_NAMES`): -1 for the sets whose cards a seat has seen (own hand, each
seat's played cards, own kitty), which the unseen count leaves out."""


@lru_cache(maxsize=1024)
def _plane_index(ctx: TrumpContext, layout: str, count_planes: int = 2) -> np.ndarray:
    """Per card set and kind: the observation index of the set's first plane at the kind's slot."""
    planes = np.arange(NUM_CARD_PLANES)[:, None] * count_planes * slots_of_layout(layout)
    index = planes + slot_table(ctx, layout)[None, :]
    index.setflags(write=False)
    return index


class ObservationEncoder:
    """Encodes a seat's view of a :class:`Hand` into ``(observation, history)`` arrays.

    ``history_len`` tricks are kept (default: all the tricks of the rule set's
    layout; ``ruleset`` default: the standard game). Work that only changes
    at the end of a trick (voids, history rows) is cached per hand and trick
    count.
    """

    def __init__(self, layout: str = "canonical", history_len: int | None = None,
                 ruleset: RuleSet | None = None):
        self.layout = layout
        self.slots = slots_of_layout(layout)
        if history_len is None:
            history_len = ruleset_from_config(ruleset).layout.num_tricks
        self.history_len = history_len
        self.variants = has_variant_features(ruleset)
        rules = ruleset_from_config(ruleset)
        self.decks = count_planes(rules)
        self.bid_strengths = bid_strengths(rules)
        self.num_scalars = sum(n for _, n in scalar_features(rules))
        self.size = observation_size(layout, ruleset)
        self.history_shape = (history_len, history_row_size(layout))
        self._cache_last_trick: object = None
        self._voids = np.zeros((4, 5), dtype=np.float32)
        self._tricks_seen = 0
        self._history = np.zeros((4, *self.history_shape), dtype=np.float32)
        # Scales of the counts and points (two decks: 1/2 a card, 100 and 200 points)
        self._copy_share = 1.0 / self.decks
        self._trick_points = 50.0 * self.decks
        self._all_points = 100.0 * self.decks

    def _refresh_trick_cache(self, hand: Source, ctx: TrumpContext, table: np.ndarray) -> None:
        """Bring voids and per-seat history up to date; runs once per finished trick.

        The cache follows one hand by the identity of the last trick record it
        read (records are shared between a :class:`Hand` and the views made
        from it, and between the hands a search deals from one position, which
        part after it): a hand whose record at that place is another object, or
        that has fewer tricks, is read again from its first trick. So one
        encoder may serve many hands in turn and never mixes their tricks.
        """
        tricks = hand.tricks
        seen = self._tricks_seen
        if seen and (len(tricks) < seen or tricks[seen - 1] is not self._cache_last_trick):
            self._voids[:] = 0.0
            self._history[:] = 0.0
            self._tricks_seen = seen = 0
        if len(tricks) == seen:
            return
        suit_index = canonical_suit_index(ctx)
        s = self.slots
        for trick in tricks[seen:]:
            self._note_voids(ctx, suit_index, trick.leader, trick.plays, self._voids)
            by_seat = np.zeros((4, s), dtype=np.float32)
            for i, play in enumerate(trick.plays):
                row = by_seat[(trick.leader + i) % 4]
                for k in play:
                    row[table[k]] += self._copy_share
            if self.history_len:
                history = self._history
                history[:, :-1] = history[:, 1:]
                for seat in range(4):
                    line = history[seat, -1]
                    line[:] = 0.0
                    line[:4 * s] = by_seat[_ROTATIONS[seat]].reshape(-1)
                    line[4 * s + (trick.leader - seat) % 4] = 1.0
                    line[4 * s + 4 + (trick.winner - seat) % 4] = 1.0
                    line[4 * s + 8] = trick.points / self._trick_points
        self._tricks_seen = len(tricks)
        self._cache_last_trick = tricks[-1]

    @staticmethod
    def _note_voids(ctx, suit_index, leader, plays, voids) -> None:
        lead_suit = ctx.suit[plays[0][0]]
        n = len(plays[0])
        for i in range(1, len(plays)):
            if sum(1 for k in plays[i] if ctx.suit[k] == lead_suit) < n:
                voids[(leader + i) % 4, suit_index[lead_suit]] = 1.0

    def history(self, hand: Source, seat: int) -> np.ndarray:
        """The last ``history_len`` tricks from ``seat``'s side, oldest first, zero-padded in front."""
        if hand.ctx is None:
            return np.zeros(self.history_shape, dtype=np.float32)
        self._refresh_trick_cache(hand, hand.ctx, slot_table(hand.ctx, self.layout))
        return self._history[seat].copy()

    def encode(self, hand: Source, seat: int, picked: list[int] | None = None) -> np.ndarray:
        """The flat observation of ``seat`` (see :data:`CARD_SET_NAMES` and :data:`SCALAR_FEATURES`).

        ``hand`` is the :class:`Hand` or the seat's :class:`PlayerView` (both give
        the same vector); ``picked`` are the cards already chosen in the seat's
        current multi-card decision.
        """
        ctx = bidding_context(hand)
        table = slot_table(ctx, self.layout)
        if hand.ctx is not None:
            self._refresh_trick_cache(hand, hand.ctx, table)
        s = self.slots
        empty = [0] * NUM_KINDS
        played = hand.played
        trick_rows = [empty, empty, empty, empty]
        for i, play in enumerate(hand.trick_plays):
            trick_rows[(hand.leader + i - seat) % 4] = _count_row(play)
        kitty = own_kitty(hand, seat)
        # one byte per count (0 to the decks), joined then viewed: several times faster than np.array on the lists
        counts = np.frombuffer(bytearray().join([
            bytes(own_cards(hand, seat)), bytes(_count_row(picked)) if picked else bytes(NUM_KINDS),
            bytes(played[seat]), bytes(played[(seat + 1) % 4]), bytes(played[(seat + 2) % 4]),
            bytes(played[(seat + 3) % 4]), *map(bytes, trick_rows), bytes(NUM_KINDS),
            bytes(_count_row(kitty)) if kitty else bytes(NUM_KINDS)]), dtype=np.int8).reshape(12, NUM_KINDS)
        d = self.decks
        if hand.phase.is_bidding:
            counts[10] = d - counts[0]  # everything else is unseen while dealing
        else:
            counts[10] = d + _SEEN_SIGNS @ counts  # d - own - played by each seat - own kitty
        obs = np.zeros(self.size, dtype=np.float32)
        index = _plane_index(ctx, self.layout, d)
        for plane in range(d):  # plane j of each card set: at least j + 1 copies
            obs[index[counts >= plane + 1] + plane * s] = 1.0
        base = NUM_CARD_PLANES * d * s
        self._encode_scalars(obs[base:base + self.num_scalars], hand, seat, ctx, picked or [])
        if self.variants:
            self._encode_variants(obs[base + self.num_scalars:], hand, seat, table)
        return obs

    def _encode_variants(self, out: np.ndarray, hand: Source, seat: int, table: np.ndarray) -> None:
        """The RULES.md 9 block: tribute and returned cards, variant phase, last burier, 炒地皮 record."""
        s = self.slots
        returned = hand.returned_cards if isinstance(hand, PlayerView) else \
            [(g, k) for g, k in hand.returned_cards if seat in (g, hand.dealer)]
        rows = np.array([_count_row(k for _, k in hand.tribute_cards), _count_row(k for _, k in returned)],
                        dtype=np.int8)
        d = self.decks
        planes = out[:len(VARIANT_CARD_SETS) * d * s].reshape(len(VARIANT_CARD_SETS), d, s)
        for plane in range(d):
            planes[:, plane, table] = rows >= plane + 1
        i = len(VARIANT_CARD_SETS) * d * s
        if hand.phase in VARIANT_PHASES:
            out[i + VARIANT_PHASES.index(hand.phase)] = 1.0
        i += 3
        out[i + (4 if hand.buried_by is None else (hand.buried_by - seat) % 4)] = 1.0
        i += 5
        out[i] = hand.rebid_passes / 4.0
        out[i + 1] = sum(1 for _, bid in hand.rebids if bid is not None) / 4.0

    def _encode_scalars(self, out: np.ndarray, hand: Source, seat: int, ctx: TrumpContext,
                        picked: list[int]) -> None:
        i = 0
        phase = hand.phase
        if phase in PHASES:  # the phases of RULES.md 9 have their own flags (_encode_variants)
            out[i + PHASES.index(phase)] = 1.0
        i += 5
        lead = hand.lead
        leading = phase == Phase.PLAY and lead is None and hand.current_player == seat
        out[i] = float(leading)
        i += 1
        deal = hand.ruleset.layout
        if phase == Phase.KITTY:
            out[i] = (deal.kitty_size - len(picked)) / deal.kitty_size
        elif phase == Phase.PLAY and lead is not None and hand.current_player == seat:
            out[i] = (lead.n - len(picked)) / 8.0
        i += 1
        suit_index = canonical_suit_index(ctx)
        if lead is not None:
            out[i + suit_index[lead.suit]] = 1.0
            tractors = lead.tractor_lengths
            out[i + 6] = lead.n / deal.hand_size
            out[i + 7] = len(tractors) / 4.0
            out[i + 8] = lead.pairs / 8.0
            if lead.requirements is None:  # two decks: pairs and tractors of pairs
                in_tuples = 2 * lead.pairs + 2 * sum(tractors)
            else:  # RULES.md 11: the cards of the lead's tuples and tractors (m, k)
                in_tuples = sum(m * k for m, k in lead.requirements)
            out[i + 9] = (lead.n - in_tuples) / 8.0
            out[i + 10] = (tractors[0] if tractors else 0) / 8.0
            out[i + 11] = float(lead.is_throw)
        else:
            out[i + 5] = 1.0
        i += 12
        if lead is None:
            out[i + 4] = 1.0
        else:
            best = winning_play(hand.ctx, lead, hand.trick_plays[1:])
            out[i + (hand.leader + best - seat) % 4] = 1.0
            if best:
                out[i + 6] = float(play_rank(hand.ctx, lead, hand.trick_plays[best])[0] == RUFFS)
        i += 5
        out[i] = sum(POINTS[k] for p in hand.trick_plays for k in p) / self._trick_points
        i += 2
        if hand.ctx is not None:
            voids = self._voids.copy()
            if hand.trick_plays:
                self._note_voids(hand.ctx, suit_index, hand.leader, hand.trick_plays, voids)
            out[i:i + 20] = voids[_ROTATIONS[seat]].reshape(-1)
        i += 20
        if hand.ctx is not None:
            out[i + (4 if hand.ctx.trump_suit is None else hand.ctx.trump_suit)] = 1.0
            out[i + 5] = float(hand.ctx.jokers_only)
        i += 6
        out[i + hand.level_rank] = 1.0
        i += NUM_LEVELS
        own, other = hand.team_levels[seat % 2], hand.team_levels[1 - seat % 2]
        out[i + RANKS.index(own)] = 1.0
        i += NUM_LEVELS
        out[i + RANKS.index(other)] = 1.0
        i += NUM_LEVELS
        if hand.dealer is None:
            out[i + 4] = 1.0
        else:
            out[i + (hand.dealer - seat) % 4] = 1.0
            out[i + 5] = float((hand.dealer - seat) % 2 == 0)
        i += 6
        standing = hand.standing
        b = self.bid_strengths
        if standing is None:
            out[i] = 1.0
            out[i + b + 4] = 1.0
            out[i + b + 5 + 4] = 1.0
        else:
            out[i + standing.bid.strength] = 1.0
            out[i + b + (standing.seat - seat) % 4] = 1.0
            out[i + b + 5 + (4 if standing.bid.suit is None else standing.bid.suit)] = 1.0
        i += b + 10
        out[i] = hand.defender_points / self._all_points
        out[i + 1] = len(hand.tricks) / deal.num_tricks
        for rel in range(4):
            out[i + 2 + rel] = hand.hand_sizes[(seat + rel) % 4] / deal.most_cards_held
        out[i + 6] = sum(hand.hand_sizes) / deal.dealt_cards if phase.is_bidding else 1.0
