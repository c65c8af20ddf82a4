"""Plain-text rendering of hands: the table for ``render_mode="ansi"`` and hand logs."""

from __future__ import annotations

from env.core.cards import display_card
from env.core.hand_base import team_of
from env.standard.hand import Hand, Phase
from env.standard.trump import TrumpContext


def sorted_for_display(ctx: TrumpContext | None, kinds: list[int]) -> list[int]:
    """Cards grouped by effective suit (trump first) and strongest first."""
    if ctx is None:
        return sorted(kinds, reverse=True)
    return sorted(kinds, key=lambda k: (-(ctx.suit[k] + 1) % 5, -ctx.order[k], k))


def cards_text(ctx: TrumpContext | None, kinds) -> str:
    """Display text of cards, sorted for reading."""
    return " ".join(display_card(k) for k in sorted_for_display(ctx, list(kinds)))


def render_table(hand: Hand) -> str:
    """A readable snapshot of the table (all hands shown: for spectators and debugging)."""
    lines = [f"phase {hand.phase.value} | level {hand.level} | team levels {hand.team_levels[0]}/"
             f"{hand.team_levels[1]} | dealer {hand.dealer} | "
             f"{hand.ctx.describe() if hand.ctx else 'trump not fixed'} | defender points {hand.defender_points}"]
    for seat in range(4):
        marker = "*" if seat == hand.current_player else " "
        lines.append(f"{marker} seat {seat} (team {team_of(seat)}): {cards_text(hand.ctx, hand.hand_cards(seat))}")
    if hand.phase == Phase.PLAY and hand.trick_plays:
        plays = " | ".join(f"seat {(hand.leader + i) % 4}: {cards_text(hand.ctx, p)}"
                           for i, p in enumerate(hand.trick_plays))
        lines.append(f"  trick {len(hand.tricks) + 1}: {plays}")
    return "\n".join(lines)


