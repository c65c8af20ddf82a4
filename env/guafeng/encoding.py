"""Observation encoding of one seat's view of a 刮风 hand: a flat vector and a trick history.

The guafeng counterpart of :mod:`env.standard.encoding` (whose standard observation is
unchanged; :func:`env.standard.encoding.observation_size` gives this one's size for a
guafeng rule set). Everything is read from the seat's
:class:`~env.guafeng.view.GuafengView`, so nothing hidden can leak: the trump
mode only once the seat knows it, another seat's base never.

Card sets are two binary planes (>= 1 copy, 2 copies) over *slots*:

* ``canonical`` (79 slots): the trump block first (27 slots, strongest first:
  jokers, level cards, 5s, 3s, 2s, the trump suit's other cards), then one
  13-slot block per plain suit, S H C D without the trump suit, strongest first.
  Until the seat knows the trump mode the no-suit order of the level is used.
* ``raw`` (54 slots): the kinds in kind order.

The card sets are :data:`CARD_SETS`; the scalars :data:`SCALAR_FEATURES`
(seats relative to the viewer: 0 = self, 1 = next, 2 = partner, 3 = previous,
4 = none). The history holds the last ``history_len`` tricks (default 26),
oldest first: each relative seat's cards, the leader, the winner, the points.
"""

from __future__ import annotations

import numpy as np

from env.core import slots
from env.core.cards import NUM_KINDS, NUM_SUITS, POINTS, SUITS, counts_of
from env.guafeng.combos import COMBO_TYPES, RUFF, classify, standing, trick_winner
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.options import LAYOUT
from env.guafeng.order import LEVELS, TRUMP_MODES, GuafengContext, guafeng_context
from env.guafeng.scoring import kitty_value
from env.guafeng.view import GuafengView, guafeng_view_of

TRUMP_SLOTS = 27
PHASES = tuple(GuafengPhase)
DECISIONS = ("fix", "give_back", "bury", "lead", "follow")
MAX_KITTY_VALUE = 360  # BJ BJ LJ LJ

CARD_SETS = (
    "own_hand", "picked", "played_self", "played_next", "played_partner", "played_prev",
    "trick_self", "trick_next", "trick_partner", "trick_prev", "unseen", "own_kitty", "kitty_received",
    "standing_base", "taken", "given", "received",
)
"""Card sets: ``own_kitty`` the buried cards (the taker), ``kitty_received`` the 4 it picked up,
``standing_base`` the standing fix's base when the viewer knows it, ``taken`` / ``given`` the cards
the viewer took and gave as an eater (回牌), ``received`` the cards given back to it."""

SCALAR_FEATURES = (
    ("phase", len(PHASES)), ("decision", len(DECISIONS)), ("picks_left", 1),
    ("lead_type", len(COMBO_TYPES) + 1), ("lead_suit", 6), ("lead_length", 1),
    ("trick_winner", 5), ("trick_winner_ruffs", 1), ("trick_points", 1), ("voids", 20),
    ("trump_known", 1), ("trump_revealed", 1), ("trump_mode", len(TRUMP_MODES) + 1), ("trump_suit", NUM_SUITS),
    ("level", len(LEVELS)), ("own_team_level", len(LEVELS)), ("other_team_level", len(LEVELS)),
    ("dealer", 5), ("own_team_on_stage", 1), ("stage_run", 1), ("stepped_down", 1), ("first_fixer", 5),
    ("standing_fixer", 5), ("standing_jokers", 1), ("standing_pairs", 1), ("fixes_made", 1),
    ("give_back_to", 5), ("give_back_count", 1), ("give_back_constants", 1),
    ("kitty_taker", 5), ("own_kitty_value", 1),
    ("defender_points", 2), ("team_trick_points", 2), ("trick_number", 1), ("hand_sizes", 4), ("cards_dealt", 1),
)
"""Scalars: ``trump_mode`` suit / none / constants / unknown; ``defender_points`` is P / 200 split in
its positive and negative parts (each clipped to 2); ``fixes_made`` counts the hand's fixes / 8."""
NUM_SCALARS = sum(size for _, size in SCALAR_FEATURES)


def slots_of_layout(layout: str) -> int:
    """Number of card slots of a layout (:func:`env.standard.encoding.slots_of_layout` with 刮风's trump block)."""
    return slots.slots_of_layout(layout, TRUMP_SLOTS)


def observation_size(layout: str = "canonical") -> int:
    """Length of the flat guafeng observation vector."""
    return len(CARD_SETS) * 2 * slots_of_layout(layout) + NUM_SCALARS


def history_row_size(layout: str = "canonical") -> int:
    """Length of one trick row of the history."""
    return 4 * slots_of_layout(layout) + 4 + 4 + 1


def slot_table(ctx: GuafengContext, layout: str) -> np.ndarray:
    """Slot of every kind in a layout (an int array of 54): :func:`env.standard.encoding.slot_table` with 刮风's
    trump block."""
    return slots.slot_table(ctx, layout, TRUMP_SLOTS)


def layout_context(view: GuafengView) -> GuafengContext:
    """The context that lays out the cards: the trump mode's once the viewer knows it, else no suit."""
    if view.ctx is not None:
        return view.ctx
    if view.trump_known:
        return guafeng_context(view.level, view.trump)
    return guafeng_context(view.level, None)


def _count_row(kinds) -> list[int]:
    """The count vector of a card collection that may be absent (``None``: no cards)."""
    return counts_of(kinds or ())


def _rel(seat: int | None, viewer: int) -> int:
    return 4 if seat is None else (seat - viewer) % 4


class GuafengEncoder:
    """Encodes a seat's :class:`~env.guafeng.view.GuafengView` (or a hand and a seat) into arrays."""

    def __init__(self, layout: str = "canonical", history_len: int | None = None):
        self.layout = layout
        self.slots = slots_of_layout(layout)
        self.history_len = LAYOUT.num_tricks if history_len is None else history_len
        self.size = observation_size(layout)
        self.history_shape = (self.history_len, history_row_size(layout))

    @staticmethod
    def _view(source: GuafengHand | GuafengView, seat: int) -> GuafengView:
        return source if isinstance(source, GuafengView) else guafeng_view_of(source, seat)

    def encode(self, source: GuafengHand | GuafengView, seat: int, picked: list[int] | None = None) -> np.ndarray:
        """The flat observation of ``seat``; ``picked``: the cards chosen so far in its current decision."""
        view = self._view(source, seat)
        ctx = layout_context(view)
        table = slot_table(ctx, self.layout)
        empty = [0] * NUM_KINDS
        rows = [list(view.hand), _count_row(picked)]
        rows += [view.played[(seat + rel) % 4] for rel in range(4)]
        trick_rows = [empty] * 4
        for i, play in enumerate(view.trick_plays):
            trick_rows[(view.leader + i - seat) % 4] = _count_row(play)
        rows += trick_rows
        rows.append(empty)
        rows.append(_count_row(view.kitty) if view.buried_by == seat and view.kitty else empty)
        rows.append(_count_row(view.kitty_received))
        standing_fix = view.standing_fix
        rows.append(_count_row(standing_fix.base if standing_fix is not None else None))
        taken, given, received = [], [], []
        for fix in view.fixes:
            if fix.seat == seat and fix.taken:
                taken += fix.taken
                given += fix.given or ()
            elif fix.eaten == seat and fix.given:
                received += fix.given
        rows += [_count_row(taken), _count_row(given), _count_row(received)]
        counts = np.array(rows, dtype=np.int8)
        unseen = 2 - counts[0] - counts[2:6].sum(axis=0) - counts[11]
        counts[10] = np.clip(unseen, 0, 2)
        obs = np.zeros(self.size, dtype=np.float32)
        s = self.slots
        planes = obs[:len(CARD_SETS) * 2 * s].reshape(len(CARD_SETS), 2, s)
        planes[:, 0, table] = counts >= 1
        planes[:, 1, table] = counts >= 2
        self._scalars(obs[len(CARD_SETS) * 2 * s:], view, seat, ctx, picked or [])
        return obs

    def _scalars(self, out: np.ndarray, view: GuafengView, seat: int, ctx: GuafengContext,
                 picked: list[int]) -> None:
        i = 0
        out[i + PHASES.index(view.phase)] = 1.0
        i += len(PHASES)
        decision = view.decision
        if decision is not None:
            out[i + DECISIONS.index(decision)] = 1.0
        i += len(DECISIONS)
        if decision == "give_back":
            out[i] = (view.give_back_count - len(picked)) / max(1, view.give_back_count)
        elif decision == "bury":
            out[i] = (LAYOUT.kitty_size - len(picked)) / LAYOUT.kitty_size
        elif decision == "follow":
            out[i] = (view.lead.length - len(picked)) / view.lead.length
        i += 1
        lead = view.lead
        index = slots.canonical_suit_index(ctx)
        if lead is None:
            out[i + len(COMBO_TYPES)] = 1.0
            out[i + len(COMBO_TYPES) + 1 + 5] = 1.0
        else:
            out[i + COMBO_TYPES.index(lead.kind)] = 1.0
            out[i + len(COMBO_TYPES) + 1 + index[lead.suit]] = 1.0
            out[i + len(COMBO_TYPES) + 1 + 6] = lead.length / LAYOUT.hand_size
        i += len(COMBO_TYPES) + 1 + 6 + 1
        if lead is None:
            out[i + 4] = 1.0
        else:
            best = trick_winner(view.ctx, lead, view.trick_plays[1:])
            out[i + (view.leader + best - seat) % 4] = 1.0
            if best:
                held = standing(view.ctx, lead, view.trick_plays[best])
                out[i + 5] = float(held is not None and held[0] == RUFF)
        i += 6
        out[i] = sum(POINTS[k] for p in view.trick_plays for k in p) / 100.0
        i += 1
        if view.ctx is not None:
            out[i:i + 20] = self._voids(view, index)[[(seat + rel) % 4 for rel in range(4)]].reshape(-1)
        i += 20
        out[i] = float(view.trump_known)
        out[i + 1] = float(view.trump_revealed)
        i += 2
        if view.trump_known:
            mode = "constants" if view.trump == "constants" else "none" if view.trump is None else "suit"
            out[i + TRUMP_MODES.index(mode)] = 1.0
            if mode == "suit":
                out[i + len(TRUMP_MODES) + 1 + SUITS.index(view.trump)] = 1.0
        else:
            out[i + len(TRUMP_MODES)] = 1.0
        i += len(TRUMP_MODES) + 1 + NUM_SUITS
        out[i + LEVELS.index(view.level)] = 1.0
        i += len(LEVELS)
        out[i + LEVELS.index(view.team_levels[seat % 2])] = 1.0
        i += len(LEVELS)
        out[i + LEVELS.index(view.team_levels[1 - seat % 2])] = 1.0
        i += len(LEVELS)
        out[i + _rel(view.dealer, seat)] = 1.0
        out[i + 5] = float(view.is_dealer_team())
        out[i + 6] = min(view.stage_run, 10) / 10.0
        out[i + 7] = float(view.stepped_down)
        out[i + 8 + _rel(view.first_fixer, seat)] = 1.0
        i += 13
        out[i + _rel(view.standing_seat, seat)] = 1.0
        if standing_fix := view.standing_fix:
            out[i + 5] = len(standing_fix.jokers) / 2.0
            out[i + 6] = standing_fix.base_size / 26.0
        out[i + 7] = min(len(view.fixes), 16) / 8.0
        i += 8
        out[i + _rel(view.give_back_to, seat)] = 1.0
        out[i + 5] = view.give_back_count / 8.0
        out[i + 6] = (view.give_back_constants or 0) / 4.0  # None: a bystander of the 回牌 does not know
        i += 7
        out[i + _rel(view.kitty_taker, seat)] = 1.0
        if view.buried_by == seat and view.kitty:
            out[i + 5] = kitty_value(view.kitty) / MAX_KITTY_VALUE
        i += 6
        points = view.defender_points / 200.0
        out[i] = min(max(points, 0.0), 2.0)
        out[i + 1] = min(max(-points, 0.0), 2.0)
        out[i + 2] = view.trick_points[seat % 2] / 200.0
        out[i + 3] = view.trick_points[1 - seat % 2] / 200.0
        out[i + 4] = len(view.tricks) / LAYOUT.num_tricks
        for rel in range(4):
            out[i + 5 + rel] = min(view.hand_sizes[(seat + rel) % 4], 40) / 30.0
        out[i + 9] = view.dealt / LAYOUT.dealt_cards
        assert i + 10 == NUM_SCALARS, (i, NUM_SCALARS)

    @staticmethod
    def _voids(view: GuafengView, index: tuple[int, ...]) -> np.ndarray:
        """Seats known to hold no card of an effective suit: they played fewer of it than a
        single, pair, tractor or run lead asked (a bomb's duty is by strength, not suit)."""
        voids = np.zeros((4, 5), dtype=np.float32)
        ctx = view.ctx
        tricks = [(t.leader, t.plays) for t in view.tricks]
        if view.trick_plays:
            tricks.append((view.leader, view.trick_plays))
        for leader, plays in tricks:
            lead = classify(ctx, plays[0])
            if lead is None or lead.kind == "bomb":
                continue
            for i in range(1, len(plays)):
                if sum(1 for k in plays[i] if ctx.suit[k] == lead.suit) < lead.length:
                    voids[(leader + i) % 4, index[lead.suit]] = 1.0
        return voids

    def history(self, source: GuafengHand | GuafengView, seat: int) -> np.ndarray:
        """The last ``history_len`` tricks from ``seat``'s side, oldest first, zero-padded in front."""
        out = np.zeros(self.history_shape, dtype=np.float32)
        view = self._view(source, seat)
        if not view.tricks or not self.history_len:
            return out
        table = slot_table(view.ctx, self.layout)
        s = self.slots
        tricks = view.tricks[-self.history_len:]
        offset = self.history_len - len(tricks)
        for row, trick in zip(out[offset:], tricks, strict=True):
            for i, play in enumerate(trick.plays):
                rel = (trick.leader + i - seat) % 4
                for k in play:
                    row[rel * s + table[k]] += 0.5
            row[4 * s + (trick.leader - seat) % 4] = 1.0
            row[4 * s + 4 + (trick.winner - seat) % 4] = 1.0
            row[4 * s + 8] = trick.points / 100.0
        return out
