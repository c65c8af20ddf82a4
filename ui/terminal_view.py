"""The table drawn with rich: seats around the current trick, the scores, the last trick, a hand.

Pure rendering: every function takes a :class:`ui.session.GameSession` and
returns rich renderables; nothing here reads input or changes the game.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from env.core.cards import BIG_JOKER, LITTLE_JOKER, display_card, suit_of
from env.core.hand_base import team_of
from env.core.suits import EFFECTIVE_SUIT_NAMES, TRUMP
from ui.session import GameSession

_RED_SUITS = (1, 3)  # hearts, diamonds
_GROUP_LABELS = {"S": "♠ spades", "H": "♥ hearts", "C": "♣ clubs", "D": "♦ diamonds", "trump": "★ trump"}


def card_text(kind: int, trump: bool = False) -> Text:
    """One card, coloured by suit (red hearts, diamonds and big joker), trump in bold."""
    if kind == BIG_JOKER:
        style = "bold red"
    elif kind == LITTLE_JOKER:
        style = "bold"
    else:
        style = "red" if suit_of(kind) in _RED_SUITS else "bright_white"
        if trump:
            style += " bold"
    return Text(display_card(kind), style=style)


def cards_line(session: GameSession, kinds: Iterable[int]) -> Text:
    """Cards in display order, space separated."""
    ctx = session.display_context()
    line = Text()
    for i, kind in enumerate(session.in_display_order(kinds)):
        if i:
            line.append(" ")
        line.append_text(card_text(kind, ctx.is_trump[kind]))
    return line


def hand_panel(session: GameSession, seat: int, title: str | None = None) -> Panel:
    """A seat's hand, one line per effective suit (trump first), strongest first."""
    hand = session.hand
    ctx = session.display_context()
    kinds = hand.hand_cards(seat)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    for suit in (TRUMP, 3, 2, 1, 0):
        group = [k for k in kinds if ctx.suit[k] == suit]
        if group:
            label = _GROUP_LABELS[EFFECTIVE_SUIT_NAMES[suit]]
            grid.add_row(f"{label} ({len(group)})", cards_line(session, group))
    if not kinds:
        grid.add_row("", Text("(no cards)", style="dim"))
    return Panel(grid, title=title or f"{session.seat_label(seat)}: {len(kinds)} cards", title_align="left",
                 border_style="cyan")


def _seat_cell(session: GameSession, seat: int) -> Text:
    hand = session.hand
    text = Text()
    style = "bold yellow" if seat == session.to_act else "bold"
    text.append(session.seat_label(seat), style=style)
    text.append(f" · {hand.hand_sizes[seat]} cards", style="dim")
    if hand.dealer == seat:
        text.append(" · dealer", style="magenta")
    if seat == session.to_act:
        text.append(" ◀ to act", style="yellow")
    text.append("\n")
    if hand.in_play and hand.leader is not None:
        index = (seat - hand.leader) % 4
        if index < len(hand.trick_plays):
            text.append_text(cards_line(session, hand.trick_plays[index]))
            if index == 0:
                text.append("  (led)", style="dim")
    return text


def _short(session: GameSession, seat: int) -> str:
    label = session.seat_label(seat)
    return label if label == "You" else label.split(" (")[0]


def _team(session: GameSession, seat: int) -> str:
    return f"{_short(session, seat)} & {_short(session, (seat + 2) % 4)}"


def _header(session: GameSession) -> Text:
    hand = session.hand
    me = session.perspective
    text = Text()
    text.append(f"Hand {session.hand_number}", style="bold")
    text.append(f" · {session.decks_text()}")
    text.append(f" · level {hand.level} · trump: {session.trump_text()}")
    text.append(session.header_text(session.seat_label))
    text.append("\n")
    ours, theirs = _team(session, me), _team(session, (me + 1) % 4)
    text.append(f"Levels: {ours} {hand.team_levels[team_of(me)]}  |  {theirs} "
                f"{hand.team_levels[1 - team_of(me)]}\n")
    if hand.dealer is not None:
        defenders = _team(session, (hand.dealer + 1) % 4)
        text.append(f"Defenders ({defenders}): {hand.defender_points} points", style="bold green")
        text.append(f"  ·  {session.trick_counter()}")
        text.append(f"  ·  points won: {ours} {hand.trick_points[team_of(me)]}, "
                    f"{theirs} {hand.trick_points[1 - team_of(me)]}")
    return text


def _last_trick(session: GameSession) -> Text:
    hand = session.hand
    text = Text("Last trick: ", style="dim")
    if not hand.tricks:
        text.append("none yet", style="dim")
        return text
    trick = hand.tricks[-1]
    for i, play in enumerate(trick.plays):
        seat = (trick.leader + i) % 4
        if i:
            text.append("  |  ", style="dim")
        text.append(f"{session.seat_label(seat)}: ")
        text.append_text(cards_line(session, play))
    text.append(f"  → {session.seat_label(trick.winner)} (+{trick.points})", style="bold")
    return text


def table_panel(session: GameSession) -> Panel:
    """The table: header, North/West/East/South with their plays in this trick, the last trick."""
    me = session.perspective
    north, east, west = (me + 2) % 4, (me + 1) % 4, (me + 3) % 4
    seats = Table.grid(expand=True)
    for _ in range(3):
        seats.add_column(ratio=1, justify="center")
    seats.add_row("", _seat_cell(session, north), "")
    seats.add_row(_seat_cell(session, west), "", _seat_cell(session, east))
    seats.add_row("", _seat_cell(session, me), "")
    body = Group(_header(session), Text(""), seats, Text(""), _last_trick(session))
    return Panel(body, title="ShengjiZero", border_style="green")


def messages_panel(lines: list[str]) -> Panel:
    """The latest things that happened."""
    return Panel(Text("\n".join(lines) or "-", style="italic"), title="What happened", title_align="left",
                 border_style="dim")


def screen(session: GameSession, show_all: bool = False, news: int = 6) -> Group:
    """The whole screen: recent messages, the table and the hand(s) worth showing."""
    parts = [messages_panel(session.messages[-news:]), table_panel(session)]
    if show_all:
        parts.extend(hand_panel(session, seat) for seat in range(4))
    else:
        seat = session.to_act if session.human_to_act else session.perspective
        label = session.seat_label(seat)
        owner = "Your hand" if label == "You" else f"Hand of {label}"
        parts.append(hand_panel(session, seat, f"{owner}: {session.hand.hand_sizes[seat]} cards"))
    return Group(*parts)
