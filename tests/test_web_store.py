"""The web server's SQLite store: games reopened at the same decision and seat, bad files set aside, SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from tests.test_web import _act, until_turn
from ui.web.server import WebSettings, create_app
from ui.web.store import SCHEMA_VERSION, GameStore

ROOT = Path(__file__).resolve().parents[1]


def _app(database: Path):
    return create_app(WebSettings(seats=("human", "greedy", "human", "greedy"), ai_delay=0.0,
                                  database=str(database)))


def _comparable(state: dict) -> dict:
    """A state without its version (a reopened game counts versions afresh)."""
    return {k: v for k, v in state.items() if k != "version"}


def test_a_reopened_server_has_every_game_at_the_same_decision_and_seat(tmp_path: Path) -> None:
    database = tmp_path / "games.sqlite"
    client = TestClient(_app(database))
    room = client.post("/api/games", json={"seed": 5}).json()
    finished = client.post("/api/games", json={"seed": 6, "seats": ["human", "greedy", "greedy", "greedy"],
                                               "episode": "hand"}).json()
    south, north = (f"/ws/{room['id']}?token={link['token']}" for link in room["links"])
    with client.websocket_connect(south) as ws:
        before = _drive(ws, decisions=6)
    with client.websocket_connect(north) as ws:
        north_before = ws.receive_json()
    with client.websocket_connect(f"/ws/{finished['id']}?token={finished['links'][0]['token']}") as ws:
        state = until_turn(ws)
        while not state["result"]:
            _act(ws, state)
            state = until_turn(ws)
        finished_before = state
    client.app.state.store.close()

    reopened = TestClient(_app(database))
    assert set(reopened.app.state.games) == {room["id"], finished["id"]}
    with reopened.websocket_connect(south) as ws:
        assert _comparable(ws.receive_json()) == _comparable(before)
    with reopened.websocket_connect(north) as ws:
        assert _comparable(ws.receive_json()) == _comparable(north_before)
    with reopened.websocket_connect(f"/ws/{finished['id']}?token={finished['links'][0]['token']}") as ws:
        assert _comparable(ws.receive_json()) == _comparable(finished_before)
    assert reopened.get(f"/api/games/{finished['id']}/log").json()["decisions"]  # the finished hand's log is back
    with reopened.websocket_connect(f"/ws/{room['id']}?token=not-the-token") as ws:
        assert ws.receive_json()["fatal"]  # the tokens came back too, and only they open a seat


def _drive(ws, decisions: int) -> dict:
    """South takes up to ``decisions`` decisions (the AIs move between), stopping when it is North's (a person
    not connected here); returns the state then, a person's decision."""
    taken = 0
    while True:
        state = ws.receive_json()
        assert state["type"] == "state", state
        if state["to_act"] == 2 or (state["your_turn"] and taken == decisions):
            return state
        if state["your_turn"]:
            _act(ws, state)
            taken += 1


def _write_foreign(path: Path, version: int) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE games (id TEXT)")
    db.execute("INSERT INTO games VALUES ('old')")
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["older", "corrupt"])
def test_an_older_or_corrupt_database_is_refused_and_set_aside(tmp_path: Path, kind: str) -> None:
    database = tmp_path / "games.sqlite"
    if kind == "older":
        content = _write_foreign(database, SCHEMA_VERSION - 1)
    else:
        content = b"SQLite format 3\x00" + os.urandom(3000)  # a header, then garbage: a damaged file
        database.write_bytes(content)
    store = GameStore(database)
    assert store.set_aside is not None and "refused" in store.set_aside
    assert ("schema version" in store.set_aside) if kind == "older" else ("not a readable" in store.set_aside
                                                                          or "integrity" in store.set_aside)
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("games.sqlite.") and not p.name.endswith(("-wal",
                                                                                                           "-shm"))]
    assert len(kept) == 1 and kept[0].read_bytes() == content  # set aside untouched, never overwritten
    assert str(kept[0]) in store.set_aside
    assert store.games() == []  # a new, empty database in its place
    store.close()
    assert GameStore(database).set_aside is None  # which opens as ours next time


def test_a_stored_game_that_no_longer_replays_is_left_in_the_database(tmp_path: Path) -> None:
    database = tmp_path / "games.sqlite"
    client = TestClient(_app(database))
    room = client.post("/api/games", json={"seed": 5}).json()
    client.app.state.store.close()
    db = sqlite3.connect(database)
    db.execute("UPDATE hands SET decisions = ? WHERE game = ?",
               ('[{"seat": 3, "action": "play", "cards": ["SA"]}]', room["id"]))
    db.commit()
    db.close()
    reopened = _app(database)
    assert room["id"] not in reopened.state.games
    assert [game_id for game_id, _ in reopened.state.not_restored] == [room["id"]]
    assert [g.id for g in reopened.state.store.games()] == [room["id"]]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_server(port: int, database: Path) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "play.py", "ui=web", f"web.port={port}", f"web.database={database}", "web.ai_delay=0",
         "seats=[human,greedy,greedy,greedy]", f"hydra.run.dir={database.parent / 'run'}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            if server.poll() is not None:
                raise AssertionError(f"the server ended: {server.stdout.read()}") from None
            time.sleep(0.2)
    server.kill()
    raise AssertionError("the server did not start listening")


def test_sigterm_stops_the_server_cleanly_and_the_game_is_back_through_its_link(tmp_path: Path) -> None:
    """A real play.py on a real socket: a game in progress, SIGTERM, a restart, the same link, the same decision."""
    import httpx
    from websockets.sync.client import connect

    database = tmp_path / "games.sqlite"
    port = _free_port()
    server = _start_server(port, database)
    try:
        room = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"seed": 5}).json()
        url = f"ws://127.0.0.1:{port}/ws/{room['id']}?token={room['links'][0]['token']}"
        with connect(url) as ws:
            decisions = 0
            while decisions < 4:  # take a few decisions over the real socket
                state = _receive_state(ws)
                if state["your_turn"]:
                    _act_real(ws, state)
                    decisions += 1
            before = _settled(ws)
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 128 + signal.SIGTERM, output
    assert "stopped by SIGTERM" in output and str(database) in output

    server = _start_server(port, database)
    try:
        with connect(url) as ws:
            after = _receive_state(ws)
        assert _comparable(after) == _comparable(before)
        assert after["you"] == 0 and after["your_turn"]
        server.send_signal(signal.SIGHUP)
        output, _ = server.communicate(timeout=30)
        assert server.returncode == 128 + signal.SIGHUP and "1 reopened" in output, output
    finally:
        if server.poll() is None:
            server.kill()


def _receive_state(ws) -> dict:
    import json

    while True:
        message = json.loads(ws.recv(timeout=30))
        if message["type"] == "state":
            return message
        assert message["type"] != "error", message


def _act_real(ws, state: dict) -> None:
    """The first offered bid or pass, or the first allowed cards, over a real socket."""
    import json

    if state["decision"] == "bid":
        ws.send(json.dumps({"type": "bid", "index": 0} if state["bid_options"] else {"type": "pass"}))
        return
    selection = state["selection"]
    while not selection["complete"] or (selection["needed"] is None and not selection["cards"]):
        ws.send(json.dumps({"type": "select", "cards": [*selection["cards"], selection["addable"][0]]}))
        selection = _receive_state(ws)["selection"]
    ws.send(json.dumps({"type": selection["action"], "cards": selection["cards"]}))


def _settled(ws) -> dict:
    """The state once the AIs have moved and it is our decision again."""
    while True:
        state = _receive_state(ws)
        if state["your_turn"] or state["result"]:
            return state
