"""A 刮风 table as text (the environment's ``render``)."""

from __future__ import annotations

from env.core.cards import format_cards
from env.guafeng.hand import GuafengHand


def render_table(hand: GuafengHand) -> str:
    """The phase, level, trump (once revealed), dealer, points, every seat's cards and the trick."""
    trump = hand.trump if hand.trump_revealed else "hidden"
    lines = [f"guafeng {hand.phase.value}: level {hand.level}, trump {trump}, dealer {hand.dealer}, "
             f"defender points {hand.defender_points}"]
    for seat in range(hand.num_players):
        mark = ">" if seat == hand.current_player else " "
        lines.append(f"{mark} seat {seat}: {format_cards(hand.hand_cards(seat))}")
    if hand.trick_plays:
        lines.append("  trick: " + " | ".join(format_cards(p) for p in hand.trick_plays))
    return "\n".join(lines)
