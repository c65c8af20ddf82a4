"""The web server's games on disk: an embedded SQLite database, so a restart loses no game and no seat.

A game is stored as what rebuilds it exactly: how it was opened (seat specs,
seed, rules, episode, hand limit, AI delay), its seat tokens, and the logged
decisions of every hand dealt so far (:meth:`ui.session.GameSession.decisions`).
:meth:`GameStore.save` is called after every decision; a restarted server opens
each stored game with :func:`ui.sessions.open_session` and replays it
(:meth:`ui.session.GameSession.restore`), so every join link opens its game at
the same decision and seat.

The file carries its schema version (``PRAGMA user_version``). A file of another
version, or one that is not a readable SQLite database, is never written to: it
is renamed aside (``<name>.<reason>-<UTC time>``), :attr:`GameStore.set_aside`
says where and why, and a new empty database takes its place.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
"""Bumped whenever the tables change; a database of another version is set aside, not migrated."""

_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    opened TEXT NOT NULL,          -- JSON: seats, seed, rules, episode, max_hands, ai_delay
    tokens TEXT NOT NULL,          -- JSON: {seat: token} of the human seats
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE hands (
    game TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,       -- 1-based hand of the match
    decisions TEXT NOT NULL,       -- JSON: the hand's logged decisions (Hand.decisions)
    PRIMARY KEY (game, number)
);
"""


class StoreError(RuntimeError):
    """The database cannot be used (and was not changed)."""


@dataclass(frozen=True)
class StoredGame:
    """One stored game: how it was opened, its seat tokens, and every hand's decisions."""

    id: str
    opened: dict[str, Any]
    tokens: dict[int, str]
    hands: list[list[dict[str, Any]]]


class GameStore:
    """The games of one server in one SQLite file (created when missing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.set_aside: str | None = None
        """Set when an unusable file was renamed aside: what was found and the new name."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        problem = self._problem()
        if problem is not None:
            self._set_aside(*problem)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")  # WAL: a power cut may lose the last decision, never the file
        if self._db.execute("PRAGMA user_version").fetchone()[0] == 0:  # a new file: the tables and the version
            self._db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")

    def _problem(self) -> tuple[str, str] | None:
        """Why the existing file may not be used (``(reason, message)``), ``None`` when it may (or is new)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return None
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                check = db.execute("PRAGMA quick_check").fetchone()[0]
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            finally:
                db.close()
        except sqlite3.DatabaseError as error:
            return "corrupt", f"{self.path} is not a readable SQLite database ({error})"
        if check != "ok":
            return "corrupt", f"{self.path} failed SQLite's integrity check ({check})"
        if version != SCHEMA_VERSION:
            return f"v{version}", (f"{self.path} holds games of schema version {version}; this server reads version "
                                   f"{SCHEMA_VERSION} only")
        if not {"games", "hands"} <= tables:
            return "corrupt", f"{self.path} lacks the games and hands tables"
        return None

    def _set_aside(self, reason: str, message: str) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}.{reason}-{stamp}")
        self.path.rename(target)
        for suffix in ("-wal", "-shm"):  # SQLite's side files belong to the file set aside
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
        self.set_aside = f"{message}: refused, moved to {target}; starting an empty game database"

    # ------------------------------------------------------------------ writing
    def save(self, game_id: str, opened: dict[str, Any], tokens: dict[int, str],
             hands: list[list[dict[str, Any]]]) -> None:
        """Write a game's state: its opening and tokens, and its hands (only the last may have changed)."""
        now = time.time()
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO games (id, opened, tokens, created, updated) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET tokens = excluded.tokens, updated = excluded.updated",
                (game_id, json.dumps(opened), json.dumps({str(s): t for s, t in tokens.items()}), now, now))
            stored = self._db.execute("SELECT COUNT(*) FROM hands WHERE game = ?", (game_id,)).fetchone()[0]
            for number in range(max(stored, 1), len(hands) + 1):  # the last stored hand and any new ones
                self._db.execute("INSERT OR REPLACE INTO hands (game, number, decisions) VALUES (?, ?, ?)",
                                 (game_id, number, json.dumps(hands[number - 1])))

    def delete(self, game_id: str) -> None:
        """Forget a game."""
        with self._db:
            self._db.execute("DELETE FROM games WHERE id = ?", (game_id,))

    # ------------------------------------------------------------------ reading
    def games(self) -> list[StoredGame]:
        """Every stored game, oldest first."""
        rows = self._db.execute("SELECT id, opened, tokens FROM games ORDER BY created").fetchall()
        found = []
        for game_id, opened, tokens in rows:
            hands = [json.loads(text) for (text,) in self._db.execute(
                "SELECT decisions FROM hands WHERE game = ? ORDER BY number", (game_id,))]
            found.append(StoredGame(game_id, json.loads(opened), {int(s): t for s, t in json.loads(tokens).items()},
                                    hands))
        return found

    def close(self) -> None:
        """Close the database (every save is already committed)."""
        self._db.close()
