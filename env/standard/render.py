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


def render_hand_log(hand: Hand) -> str:
    """The story of a finished (or running) hand, trick by trick."""
    ctx = hand.ctx
    lines = []
    for event in hand.events:
        kind = event["type"]
        if kind == "bid":
            lines.append(f"seat {event['seat']} bids {event['bid']} ({' '.join(event['cards'])})")
        elif kind == "kitty_turned":
            lines.append(f"no bid: seat {event['dealer']} deals and turns {event['card']} from the kitty")
        elif kind == "trump":
            lines.append(f"dealer seat {event['dealer']}, {ctx.describe()}")
        elif kind == "tribute":
            lines.append(f"seat {event['seat']} gives {event['card']} as tribute to seat {event['to']}")
        elif kind == "tribute_return":
            lines.append(f"seat {event['seat']} returns a card to seat {event['to']}")
        elif kind == "rebid":
            lines.append(f"炒地皮: seat {event['seat']} bids {event['bid']} ({' '.join(event['cards'])}) "
                         f"and buries the kitty again")
        elif kind == "throw_failed":
            lines.append(f"seat {event['seat']} tried to throw {' '.join(event['attempted'])}, "
                         f"must play {' '.join(event['played'])}")
    for number, trick in enumerate(hand.tricks, start=1):
        plays = " | ".join(f"{(trick.leader + i) % 4}: {cards_text(ctx, p)}" for i, p in enumerate(trick.plays))
        lines.append(f"trick {number:2d}  {plays}  -> seat {trick.winner} (+{trick.points})")
    if hand.result is not None:
        r = hand.result
        lines.append(f"kitty {cards_text(ctx, hand.kitty)}: {r.kitty_points} points x{r.kitty_multiplier} "
                     f"-> bonus {r.kitty_bonus}")
        lines.append(f"defender points {r.defender_points}: {r.winner} +{r.levels} level(s); "
                     f"next dealer seat {r.next_dealer}")
    return "\n".join(lines)
