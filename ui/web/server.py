"""The web game: a FastAPI app serving one static page, a WebSocket per game, and hand logs.

Routes:

* ``GET /``: the page (``ui/web/static/index.html``); ``/static/...`` its script and style;
  ``/favicon.ico`` its icon.
* ``GET /api/options``: the seat choices a browser may offer and the defaults; checkpoints
  as ``{"name", "label", "frames", "strength"}`` (:mod:`ui.web.checkpoints`); the deck counts
  of the server's rules as ``{"decks", "text"}`` (RULES.md 11).
* ``POST /api/games``: a new room ``{"seats": [4 specs], "watch": bool, "seed": int|null,
  "episode": "match"|"hand", "rules": "standard"|"guafeng", "options": {RuleOptions name: value}}``
  (all optional; ``rules`` picks the rule set, with the server's options when it is the server's
  own; ``options`` are rule options on top; ``ai_speed``: ``"none"|"normal"|"slow"``, the pause before each
  AI move; ``away``: ``"wait"|"ai"``, what a seat whose person has left does, see :mod:`ui.web.games`)
  -> ``{"id", "seats", "seed", "links", "spectate"}``:
  one join link per human seat (``#game=ID&token=T``, its secret token the seat's only key)
  and a spectator link (``#game=ID``). 503 when the server holds ``max_games`` games all in use.
* ``GET /api/games``: the games held (ids and seats, never a token).
* ``GET /api/games/{id}/log?hand=N``: the JSON log of finished hand N (1-based; default the
  last), as a download. Only finished hands: a log shows every card.
* ``GET /api/games/{id}/replay?hand=N``: finished hand N trick by trick, for the page's replay
  (:meth:`ui.record.MatchRecord.replay`); the same hands as the logs.
* ``WS /ws/{id}?token=T``: the game's messages (:mod:`ui.web.protocol`) for the seat the token
  holds; no token: a spectator (read-only; hands hidden unless nobody plays). A wrong token or
  an unknown game gets one ``{"type": "error", "fatal": true}`` and the socket is closed (4403,
  4404). A seat opened again (a reload, another device) moves to the new connection; the old
  one is told so and closed (4409).

A browser may choose only ``human``, ``ai``, the bot names and the checkpoints found
in the checkpoint folder, by name: never a path (a checkpoint file can run code), and
no server path is ever sent to it (seats are shown by name).

With ``WebSettings.database`` set, every game is kept in that SQLite file
(:mod:`ui.web.store`) after each decision and reopened when the server starts.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Body, FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from env.core.errors import IllegalActionError
from env.core.registry import ruleset_from_config
from ui.seats import DEFAULT_AI, HUMAN, resolve_seats
from ui.sessions import open_session
from ui.web.checkpoints import CheckpointChoice, checkpoint_choices, public_seat_name, seat_spec
from ui.web.games import AWAY_CHOICES, WebGame
from ui.web.protocol import ProtocolError, parse_message
from ui.web.store import GameStore, StoredGame
from ui.words import layout_text

STATIC = Path(__file__).parent / "static"
UNEXPECTED = "the server could not handle this message (its log says why)"
log = logging.getLogger(__name__)
KNOWN_BOTS = ("search", "expert", "greedy", "random")
RULE_SETS = ("standard", "guafeng")
"""The rule sets a browser may choose for a new game."""


@dataclass
class WebSettings:
    """How the server makes games (from ``conf/play.yaml``'s top level and ``web`` group)."""

    seats: tuple[str, ...] = (HUMAN, DEFAULT_AI, DEFAULT_AI, DEFAULT_AI)
    watch: bool = False
    seed: int | None = None
    episode: str = "match"
    max_hands: int = 200
    rules: dict[str, Any] = field(default_factory=dict)
    checkpoint_dir: str = "checkpoints"
    hint_bot: str = "expert"
    ai_delay: float = 0.7
    """Seconds before each AI move at the lobby's normal speed."""
    slow_ai_delay: float = 1.6
    """... at its slow speed (its "none" is no pause at all)."""
    away_after: float = 15.0
    """Seconds a person may be gone before an AI plays their seat, in a room that chose so."""
    max_games: int = 64
    database: str | None = None
    """The SQLite file the games are kept in (``None``: in memory only, lost with the server)."""


def _bots() -> list[str]:
    """The agents a browser may seat by name: the search and the rule bots, strongest first."""
    try:
        from agents.registry import BOTS, SEARCH
    except ImportError:
        return ["random"]
    return sorted([SEARCH, *BOTS], key=lambda b: (KNOWN_BOTS.index(b) if b in KNOWN_BOTS else len(KNOWN_BOTS), b))


def _deck_choices(rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The deck counts a browser may choose with these rules (RULES.md 11: 1 to 4), each with its deal in words;
    a count the rule set refuses (a kitty size that does not fit it, a rule set of a fixed deal) is left out."""
    choices = []
    for decks in range(1, 5):
        try:
            layout = ruleset_from_config({**rules, "decks": decks}).layout
        except (TypeError, ValueError):
            continue
        choices.append({"decks": decks, "text": layout_text(layout.decks, layout.hand_size, layout.kitty_size)})
    return choices


def _ai_speeds(settings: WebSettings) -> dict[str, float]:
    """The lobby's AI speeds: the seconds of pause before each AI move."""
    return {"none": 0.0, "normal": settings.ai_delay, "slow": max(settings.slow_ai_delay, settings.ai_delay)}


def _checkpoints(directory: str) -> dict[str, CheckpointChoice]:
    """The checkpoint folder's files by the name a browser uses (a name never shadows a bot or ``ai``)."""
    return checkpoint_choices(directory, reserved={HUMAN, DEFAULT_AI, "default", *_bots()})


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """The app; its games are kept in ``settings.database`` when set (and reopened from it now)."""
    settings = settings or WebSettings()
    store = GameStore(settings.database) if settings.database else None
    if store is not None and store.set_aside:
        log.warning("%s", store.set_aside)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        for game in list(games.values()):
            if game.task is not None:
                game.task.cancel()
        if store is not None:
            store.close()

    app = FastAPI(title="ShengjiZero", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.settings = settings
    app.state.store = store
    games: dict[str, WebGame] = {}
    app.state.games = games
    app.state.not_restored = []
    """Stored games that could not be reopened: ``(id, reason)`` (left in the database, untouched)."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def allowed_specs() -> set[str]:
        choices = _checkpoints(settings.checkpoint_dir)
        return {HUMAN, DEFAULT_AI, *_bots(), *choices, *(p.name for c in choices.values() for p in c.players)}

    def public_seats(specs: list[str]) -> list[str]:
        choices = _checkpoints(settings.checkpoint_dir)
        return [public_seat_name(spec, choices) for spec in specs]

    def game_rules(name: Any, options: Any) -> dict[str, Any]:
        """The rules of a new game: the server's, or the defaults of another rule set the browser chose,
        with the browser's rule options on top (checked by the rule set, whose error names the option)."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise HTTPException(400, 'options must be an object of rule options, e.g. {"kitty_multiplier": "linear"}')
        if name is None or name == ruleset_from_config(settings.rules).name:
            rules = dict(settings.rules)
        elif name not in RULE_SETS:
            raise HTTPException(400, f"rules must be one of {', '.join(RULE_SETS)}")
        else:
            rules = {"ruleset": name}
        rules.update(options)
        try:
            ruleset_from_config(rules)
        except (TypeError, ValueError) as error:
            raise HTTPException(400, f"rule options: {error}") from None
        return rules

    def keep(game: WebGame, opened: dict[str, Any]) -> None:
        """Hold a game, stored after every decision when there is a database."""
        if store is not None:
            def save(changed: WebGame) -> None:
                store.save(changed.id, opened, changed.tokens, changed.session.decisions())

            game.on_change = save
            save(game)
        games[game.id] = game

    def reopen(stored: StoredGame) -> None:
        opened = stored.opened
        session = open_session(opened["seats"], seed=opened["seed"], rules=opened["rules"],
                               episode=opened["episode"], max_hands=opened["max_hands"], hint_bot=settings.hint_bot)
        session.restore(stored.hands)
        keep(WebGame(stored.id, session, opened["ai_delay"], stored.tokens, away=opened.get("away", "wait"),
                     away_after=settings.away_after), opened)

    for stored in store.games() if store is not None else ():
        try:
            reopen(stored)
        except Exception as error:  # a game that no longer opens (a checkpoint gone...) stays stored, untouched
            log.warning("stored game %s not reopened: %s", stored.id, error)
            app.state.not_restored.append((stored.id, str(error)))

    def new_game(body: dict[str, Any]) -> WebGame:
        if not isinstance(body, dict):
            raise HTTPException(400, "the body must be a JSON object")
        seats = body.get("seats") or list(settings.seats)
        watch = body.get("watch", settings.watch)
        seed = body.get("seed", settings.seed)
        episode = body.get("episode", settings.episode)
        rules = game_rules(body.get("rules"), body.get("options"))
        speeds = _ai_speeds(settings)
        speed, away = body.get("ai_speed", "normal"), body.get("away", "wait")
        if speed not in speeds:
            raise HTTPException(400, f"ai_speed must be one of {', '.join(speeds)}")
        if away not in AWAY_CHOICES:
            raise HTTPException(400, f"away must be one of {', '.join(AWAY_CHOICES)}")
        if not isinstance(seats, list) or len(seats) != 4 or not all(isinstance(s, str) for s in seats):
            raise HTTPException(400, "seats must be a list of 4 names")
        if body.get("seats"):  # a browser's choice: names only, checkpoints mapped to their files here
            unknown = [s for s in seats if s not in allowed_specs()]
            if unknown:
                raise HTTPException(400, f"unknown seat(s) {unknown}: choose from {sorted(allowed_specs())}")
            checkpoints = _checkpoints(settings.checkpoint_dir)
            seats = [seat_spec(s, checkpoints) or s for s in seats]
        if not isinstance(watch, bool):
            raise HTTPException(400, "watch must be true or false")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise HTTPException(400, "seed must be a non-negative integer or null")
        if episode not in ("match", "hand"):
            raise HTTPException(400, "episode must be 'match' or 'hand'")
        if watch:
            seats = [DEFAULT_AI if s == HUMAN else s for s in seats]
        specs = resolve_seats(seats, settings.checkpoint_dir, ruleset_from_config(rules).name)
        seed = random.randrange(10**9) if seed is None else seed
        if not _make_room(games, settings.max_games, store):
            raise HTTPException(503, f"the server is full: it holds {settings.max_games} games, each with a browser "
                                     "connected; try again later")
        try:
            session = open_session(specs, seed=seed, rules=rules, episode=episode,
                                   max_hands=settings.max_hands, hint_bot=settings.hint_bot)
        except ValueError as error:  # e.g. a seat whose agent does not play these rules
            raise HTTPException(400, str(error)) from None
        game = WebGame(uuid.uuid4().hex[:12], session, speeds[speed], away=away, away_after=settings.away_after)
        keep(game, {"seats": session.seats, "seed": seed, "rules": rules, "episode": episode,
                    "max_hands": settings.max_hands, "ai_delay": speeds[speed], "away": away})
        return game

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        choices = _checkpoints(settings.checkpoint_dir)
        return {"bots": _bots(), "checkpoints": [c.public() for c in choices.values()],
                "default_seats": public_seats(list(settings.seats)), "watch": settings.watch,
                "rules": ruleset_from_config(settings.rules).name, "rule_sets": list(RULE_SETS),
                "rule_options": ruleset_from_config(settings.rules).options.to_dict(),
                "deck_choices": _deck_choices(settings.rules), "ai_speeds": _ai_speeds(settings),
                "away_choices": list(AWAY_CHOICES)}

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.post("/api/games")
    def create(body: dict[str, Any] = Body(default_factory=dict)) -> dict[str, Any]:  # noqa: B008 - FastAPI style
        game = new_game(body)
        session = game.session
        links = [{"seat": seat, "label": session.label_for(None, seat).split(" (")[0], "token": token,
                  "link": f"#game={game.id}&token={token}"} for seat, token in sorted(game.tokens.items())]
        return {"id": game.id, "seats": public_seats(session.seats), "seed": session.seed, "links": links,
                "spectate": f"#game={game.id}"}

    @app.get("/api/games")
    def list_games() -> list[dict[str, Any]]:
        return [{"id": g.id, "seats": public_seats(g.session.seats), "hand": g.session.hand_number,
                 "over": g.session.match_over, "connected": len(g.sockets)} for g in games.values()]

    def finished(game_id: str, what: str) -> tuple[WebGame, list[dict[str, Any]]]:
        """The game and its finished hands' logs; 404 without the game, 409 before a hand has finished
        (a running hand's ``what`` would show every card)."""
        game = games.get(game_id)
        if game is None:
            raise HTTPException(404, f"no game {game_id!r}")
        logs = game.session.hand_logs
        if not logs:
            raise HTTPException(409, f"no hand has finished yet (a running hand's {what} would show every card)")
        return game, logs

    @app.get("/api/games/{game_id}/log")
    def hand_log(game_id: str, hand: int = 0) -> JSONResponse:
        _, logs = finished(game_id, "log")
        number = hand or len(logs)
        if not 1 <= number <= len(logs):
            raise HTTPException(404, f"no finished hand {number}: {len(logs)} finished")
        name = f"shengji_{game_id}_hand{number}.json"
        return JSONResponse(logs[number - 1], headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str, hand: int = 0) -> dict[str, Any]:  # on the loop, as the game's record
        game, logs = finished(game_id, "replay")
        try:
            return game.record.replay(hand or len(logs))
        except KeyError as error:
            raise HTTPException(404, str(error.args[0])) from None

    @app.websocket("/ws/{game_id}")
    async def play(socket: WebSocket, game_id: str) -> None:
        await socket.accept()
        game = games.get(game_id)
        if game is None:
            await _refuse(socket, 4404, f"no game {game_id!r} on this server (it may have ended, or the link is "
                                        "mistyped)")
            return
        if "seat" in socket.query_params:
            await _refuse(socket, 4403, "a seat is opened by its join link (its token), not by a seat number")
            return
        try:
            seat = game.attach(socket, socket.query_params.get("token"))
        except PermissionError as error:
            await _refuse(socket, 4403, str(error))
            return
        try:
            if seat is not None:  # the seat moves to this connection (a reload, another device)
                for other in game.holders(seat):
                    if other is not socket:
                        game.detach(other)
                        await _refuse(other, 4409, "your seat was opened in another window or device; "
                                                   "reload this page to take it back here")
            await game.send_state(socket)
            while True:
                frame = await _receive_frame(socket)
                try:
                    await game.handle(socket, parse_message(frame))
                except (ProtocolError, IllegalActionError) as error:
                    await game.send(socket, {"type": "error", "message": str(error)})
                except PermissionError as error:  # the token no longer holds a seat
                    await _refuse(socket, 4403, str(error))
                    return
                except Exception:  # a message must never end the connection; the log keeps the bug
                    log.exception("game %s: unexpected error handling %s", game.id, repr(frame)[:200])
                    await game.send(socket, {"type": "error", "message": UNEXPECTED})
        except WebSocketDisconnect:
            pass
        finally:
            game.detach(socket)

    return app


async def _receive_frame(socket: WebSocket) -> str | bytes | None:
    """The next message, from a text or a binary frame (``None``: a frame without data).

    ``receive_text`` would raise on a binary frame and end the connection; a
    browser's bad frame gets an error reply like any other bad message.
    """
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    return text if text is not None else message.get("bytes")


async def _refuse(socket: WebSocket, code: int, message: str) -> None:
    """Tell a browser why it cannot go on (the page shows it and opens the lobby), then close."""
    try:
        await socket.send_json({"type": "error", "message": message, "fatal": True})
        await socket.close(code=code)
    except (RuntimeError, OSError):  # it has gone already
        pass


def _make_room(games: dict[str, WebGame], max_games: int, store: GameStore | None) -> bool:
    """Drop the least recently used unconnected games until a new one fits; False when none can go."""
    idle = sorted((g for g in games.values() if not g.sockets), key=lambda g: (not g.session.match_over,
                                                                               g.last_active))
    while len(games) >= max_games and idle:
        dropped = games.pop(idle.pop(0).id)
        if store is not None:
            store.delete(dropped.id)
    return len(games) < max_games
