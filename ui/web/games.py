"""One web game: a :class:`GameSession`, its seat tokens, its connected browsers, and the task that plays the AI seats.

Each human seat has a secret token (in its join link); a browser holds a seat
only through it, and the token is looked up again for every message, so a
link that no longer holds the seat stops acting at once. A browser without a
token is a spectator: it sees what the table shows, never a hand (except in
watch mode, where nobody plays). Everything a browser sends is checked here
(after :mod:`ui.web.protocol`) against the session, which raises before it
changes anything. AI seats move on their own, ``ai_delay`` seconds apart
(twice that after a trick, so people can see it); in watch mode they wait for
``step`` unless ``auto`` is on. After every change the game is handed to
``on_change`` (the server's :class:`ui.web.store.GameStore`).

A person who leaves (their last browser of the seat closes) is *away*. What the room does then is
the creator's choice in the lobby (``away``): ``"wait"`` for them, or ``"ai"``: once they have been
away ``away_after`` seconds, the hint bot plays their seat (:meth:`ui.session.GameSession.hint`, the
expert bot by default) until a browser opens the seat again with its token, which gives it back at
once. A seat nobody has opened yet is waited for either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from fastapi import WebSocket

from env.core.cards import CARD_NAMES
from env.core.errors import IllegalActionError
from ui.record import MatchRecord
from ui.session import GameSession, Selection
from ui.web.state import CARD_DECISIONS, state_json

log = logging.getLogger(__name__)
AWAY_CHOICES = ("wait", "ai")
"""What a room does when a person leaves: wait for them, or let an AI play their seat meanwhile."""


class WebGame:
    """A game held by the server, shared by every browser connected to it."""

    def __init__(self, game_id: str, session: GameSession, ai_delay: float = 0.7,
                 tokens: dict[int, str] | None = None, on_change: Callable[[WebGame], None] | None = None,
                 away: str = "wait", away_after: float = 15.0):
        if away not in AWAY_CHOICES:
            raise ValueError(f"away must be one of {', '.join(AWAY_CHOICES)}, got {away!r}")
        self.id = game_id
        self.away = away
        self.away_after = away_after
        self.left: dict[int, float] = {}
        """When each away seat's last browser left (``time.monotonic``); a seat held again is dropped."""
        self.record = MatchRecord(session)
        self.session = session
        self.ai_delay = ai_delay
        self.tokens = dict(tokens) if tokens is not None else {seat: new_token() for seat in session.humans}
        """The secret of each human seat (its join link's key)."""
        if sorted(self.tokens) != session.humans:
            raise ValueError(f"tokens for seats {sorted(self.tokens)}, but the human seats are {session.humans}")
        self.on_change = on_change
        self.lock = asyncio.Lock()
        self.sockets: dict[WebSocket, int | None] = {}
        self._socket_tokens: dict[WebSocket, str | None] = {}
        self._send_locks: dict[WebSocket, asyncio.Lock] = {}
        self.selections: dict[int, list[int]] = {}
        self.auto = False
        self.version = 0
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.last_active = time.monotonic()

    @property
    def watch(self) -> bool:
        """True when no person plays: everyone connected is a spectator with step/auto controls."""
        return not self.session.humans

    # ------------------------------------------------------------------ seats and connections
    def seat_of(self, token: str | None) -> int | None:
        """The seat a token holds (``None``: no token, a spectator); raises ``PermissionError`` for a wrong one."""
        if token is None or token == "":
            return None
        for seat, secret in self.tokens.items():
            if secrets.compare_digest(secret, token):
                return seat
        raise PermissionError("this link's seat token does not open a seat of this game "
                              "(a spectator link has no token)")

    def holders(self, seat: int) -> list[WebSocket]:
        """The browsers connected to ``seat``."""
        return [socket for socket, held in self.sockets.items() if held == seat]

    def attach(self, socket: WebSocket, token: str | None) -> int | None:
        """Register a browser by its link's token (none: a spectator) and make sure the AI task runs;
        returns its seat. Raises ``PermissionError`` for a token of no seat of this game."""
        seat = self.seat_of(token)
        self.left.pop(seat, None)  # back: the seat is theirs again, whoever played it meanwhile
        self.sockets[socket] = seat
        self._socket_tokens[socket] = token
        self._send_locks[socket] = asyncio.Lock()
        self.last_active = time.monotonic()
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._pump())
        self.wake.set()
        return seat

    def detach(self, socket: WebSocket) -> None:
        """Forget a browser; the AI task stops with the last one (the game stays for a reconnect). A seat
        left without a browser is away from now on."""
        seat = self.sockets.pop(socket, None)
        if seat is not None and not self.holders(seat):
            self.left[seat] = time.monotonic()
            self.wake.set()
        self._socket_tokens.pop(socket, None)
        self._send_locks.pop(socket, None)
        self.last_active = time.monotonic()
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def send(self, socket: WebSocket, message: dict[str, Any]) -> None:
        """Send one message to one browser (sends to a socket never interleave)."""
        lock = self._send_locks.get(socket)
        if lock is None:
            return
        async with lock:
            with contextlib.suppress(RuntimeError, OSError):
                await socket.send_json(message)

    def state_for(self, seat: int | None) -> dict[str, Any]:
        """The state message for one viewer."""
        state = state_json(self.id, self.session, seat, self._selection(seat), self.auto, self.version)
        state["ai_delay"] = self.ai_delay
        state["away"] = self.away
        for entry in state["seats"]:
            entry["away"] = entry["seat"] in self.left
            entry["stand_in"] = entry["away"] and self.away == "ai"
        state["scores"] = self.record.scores()
        return state

    async def send_state(self, socket: WebSocket) -> None:
        """Send a browser its current state."""
        await self.send(socket, self.state_for(self.sockets.get(socket)))

    async def broadcast(self) -> None:
        """Send every browser its state."""
        for socket in list(self.sockets):
            await self.send_state(socket)

    def _selection(self, seat: int | None) -> Selection | None:
        session = self.session
        if seat is None or not session.human_to_act or session.decision(seat) not in CARD_DECISIONS:
            return None
        try:
            return session.selection(seat, self.selections.get(seat, []))
        except IllegalActionError:
            self.selections[seat] = []
            return session.selection(seat, [])

    # ------------------------------------------------------------------ messages
    async def handle(self, socket: WebSocket, message: dict[str, Any]) -> None:
        """Apply one validated message from ``socket``; raises ``IllegalActionError`` when not allowed."""
        seat = self.seat_of(self._socket_tokens.get(socket))  # the token again: every message, not the connection
        kind = message["type"]
        self.last_active = time.monotonic()
        if kind == "state":
            await self.send_state(socket)
            return
        async with self.lock:
            changed = self._apply(seat, kind, message)
            if kind == "hint":
                await self.send(socket, self._hint(seat))
                return
        if changed:
            self.changed()
            await self.broadcast()
            self.wake.set()
        else:
            await self.send_state(socket)

    def changed(self) -> None:
        """A decision was taken: a new version, and the game is stored (``on_change``)."""
        self.version += 1
        if self.on_change is not None:
            self.on_change(self)

    def _apply(self, seat: int | None, kind: str, message: dict[str, Any]) -> bool:
        """Change the game for one message; True when every browser must hear of it."""
        session = self.session
        if kind in ("step", "auto"):
            if not self.watch:
                raise IllegalActionError(f"'{kind}' is for watch mode; people play in this game")
            if kind == "auto":
                self.auto = message["on"]
                return True
            if session.hand_over:
                session.next_hand()
            else:
                session.step_ai()
            return True
        if kind == "next_hand":
            if seat is None and not self.watch:
                raise IllegalActionError("spectators cannot deal the next hand")
            session.next_hand()
            return True
        if seat is None:
            raise IllegalActionError("you watch this game: spectators cannot act")
        if kind == "hint":
            if session.to_act != seat:
                raise IllegalActionError("it is not your turn")
            return False
        if kind == "select":
            self.selections[seat] = list(session.selection(seat, message["cards"]).cards)
            return False
        if kind in CARD_DECISIONS:
            if session.decision(seat) != kind:
                raise IllegalActionError(f"cannot {kind.replace('_', ' ')} in phase {session.hand.phase.value}")
            session.submit(seat, message["cards"])
            self.selections.pop(seat, None)
            return True
        if kind == "pass":
            session.pass_turn(seat)
            return True
        options = session.fix_options(seat) if kind == "fix" else session.bid_options(seat)
        index = message["index"]
        if not 0 <= index < len(options):
            raise IllegalActionError(f"no {kind} {index}: you have {len(options)} {kind} option(s) now")
        if kind == "fix":
            session.fix(seat, options[index])
        else:
            session.bid(seat, options[index])
        return True

    def _hint(self, seat: int) -> dict[str, Any]:
        session = self.session
        decision = session.hint(seat)
        if session.decision(seat) in ("bid", "fix"):
            options = session.fix_options(seat) if session.decision(seat) == "fix" else session.bid_options(seat)
            return {"type": "hint", "bid": None if decision is None else options.index(decision), "cards": []}
        cards = [decision] if isinstance(decision, int) else decision  # a tribute or returned card is one
        return {"type": "hint", "bid": None, "cards": [CARD_NAMES[k] for k in cards]}

    # ------------------------------------------------------------------ the AI seats
    def _stand_in_wait(self) -> float | None:
        """Seconds until an AI plays for the person to act, who is away (``None``: no stand-in is due)."""
        session = self.session
        seat = session.to_act
        if self.away != "ai" or not session.human_to_act or seat not in self.left or self.holders(seat):
            return None
        return max(0.0, self.left[seat] + self.away_after - time.monotonic())

    def _pause(self) -> float | None:
        """Seconds to wait before the next automatic move, ``None`` when none is due."""
        session = self.session
        if (wait := self._stand_in_wait()) is not None:
            return max(self.ai_delay, wait)
        if session.ai_to_act and (not self.watch or self.auto):
            hand = session.hand
            trick_just_won = hand.in_play and not hand.trick_plays and hand.tricks
            return self.ai_delay * (2 if trick_just_won else 1)
        if self.watch and self.auto and session.hand_over and not session.match_over:
            return self.ai_delay * 5
        return None

    async def _pump(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while (pause := self._pause()) is not None:
                await asyncio.sleep(pause)
                async with self.lock:
                    if self._pause() is None:
                        break
                    try:
                        if self.session.hand_over:
                            self.session.next_hand()
                        elif (wait := self._stand_in_wait()) is not None:
                            if wait > 0:
                                continue
                            seat = self.session.to_act
                            decision = await asyncio.to_thread(self.session.hint, seat)
                            if self._stand_in_wait() is None:  # the person came back while it thought:
                                continue                       # the turn stays theirs
                            self.session.apply_for_person(seat, decision)
                        else:
                            # A search thinks for a while: off the event loop, so other games go on.
                            seat, decision = await asyncio.to_thread(self.session.think)
                            self.session.apply_ai(seat, decision)
                    except Exception as error:  # an agent's bug must not kill the game silently
                        log.exception("AI move failed in game %s", self.id)
                        for socket in list(self.sockets):
                            await self.send(socket, {"type": "error", "message": f"AI move failed: {error}"})
                        break
                    self.changed()
                await self.broadcast()


def new_token() -> str:
    """A seat's secret: 128 random bits, URL-safe (``secrets``), so a seat cannot be guessed."""
    return secrets.token_urlsafe(16)
