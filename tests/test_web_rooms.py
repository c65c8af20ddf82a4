"""Rooms: one secret token per human seat, spectators by game id, each reader's own words, reconnects."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator

import httpx
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from conftest import serve_app
from starlette.websockets import WebSocketDisconnect

from ui.session import GameSession
from ui.web.server import WebSettings, create_app

FRIENDS = ["human", "greedy", "human", "greedy"]


@pytest.fixture
def client() -> Iterator[TestClient]:
    """One event loop for all the client's requests and sockets, as a server has (tests/test_web_record.py)."""
    with TestClient(create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0))) as held:
        yield held


def _room(client: TestClient, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_each_human_seat_gets_its_own_unguessable_link(client: TestClient) -> None:
    room = _room(client, seats=FRIENDS, seed=5, episode="hand")
    links = room["links"]
    assert [link["seat"] for link in links] == [0, 2] and [link["label"] for link in links] == ["South", "North"]
    tokens = [link["token"] for link in links]
    assert len(set(tokens)) == 2 and all(len(t) >= 20 for t in tokens)
    assert all(link["link"] == f"#game={room['id']}&token={link['token']}" for link in links)
    assert room["spectate"] == f"#game={room['id']}" and all(t not in room["spectate"] for t in tokens)
    assert not any(t in client.get("/api/games").text for t in tokens)  # the listing never shows a token
    other = _room(client, seats=FRIENDS, seed=5, episode="hand")
    assert not {link["token"] for link in other["links"]} & set(tokens)


def test_the_token_opens_its_seat_and_the_game_id_alone_only_watches(client: TestClient) -> None:
    room = _room(client, seats=FRIENDS, seed=5, episode="hand")
    game, (south, north) = room["id"], [link["token"] for link in room["links"]]
    with client.websocket_connect(f"/ws/{game}?token={north}") as ws:
        state = ws.receive_json()
        assert state["you"] == 2 and state["seats"][2]["label"] == "You" and state["seats"][2]["position"] == "south"
        assert state["seats"][0]["label"] == "North (human)" and len(state["hand"]) == state["seats"][2]["cards"]
    with client.websocket_connect(f"/ws/{game}") as ws:  # the address a friend might copy: a spectator
        state = ws.receive_json()
        assert state["you"] is None and state["hand"] == [] and state["hands"] == {}
        assert "You" not in [s["label"] for s in state["seats"]]
        for message in ({"type": "bid", "index": 0}, {"type": "pass"}, {"type": "hint"}, {"type": "next_hand"}):
            ws.send_json(message)
            reply = ws.receive_json()
            assert reply["type"] == "error" and "spectator" in reply["message"], (message, reply)
        ws.send_json({"type": "state"})
        assert ws.receive_json()["version"] == state["version"]  # nothing moved
    with client.websocket_connect(f"/ws/{game}?token={south}") as ws:
        assert ws.receive_json()["you"] == 0


@pytest.mark.parametrize("path, code, reason", [
    ("/ws/{game}?token=guessed", 4403, "token"),
    ("/ws/{game}?token={other}", 4403, "token"),  # another game's seat
    ("/ws/{game}?seat=0", 4403, "join link"),
    ("/ws/nosuchgame?token={token}", 4404, "no game"),
])
def test_a_wrong_link_is_refused_with_its_reason(client: TestClient, path: str, code: int, reason: str) -> None:
    room, other = _room(client, seats=FRIENDS), _room(client, seats=FRIENDS)
    url = path.format(game=room["id"], token=room["links"][0]["token"], other=other["links"][0]["token"])
    with client.websocket_connect(url) as ws:
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["fatal"] is True and reason in reply["message"], reply
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == code


@pytest.fixture
def live_server() -> Iterator[str]:
    """The server on a real 127.0.0.1 socket (uvicorn in a thread): one event loop for every connection."""
    yield from serve_app(create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0)))


def test_a_reload_gets_the_seat_back_and_the_old_window_is_told(live_server: str) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from tests.test_web_store import _act_real, _receive_state, _settled

    room = httpx.post(f"http://{live_server}/api/games", json={"seed": 5, "episode": "hand"}).json()
    url = f"ws://{live_server}/ws/{room['id']}?token={room['links'][0]['token']}"
    with connect(url) as first:
        _act_real(first, _settled(first))
        moved = _settled(first)
        with connect(url) as second:  # a reload, or the same link on a phone
            again = _receive_state(second)
            assert again["you"] == 0 and again["version"] == moved["version"] and again["hand"] == moved["hand"]
            told = json.loads(first.recv(timeout=10))
            assert told["type"] == "error" and told["fatal"] and "another window" in told["message"]
            with pytest.raises(ConnectionClosed) as closed:
                first.recv(timeout=10)
            assert closed.value.rcvd.code == 4409
            _act_real(second, again)  # the seat plays on from the new connection
            assert _settled(second)["version"] > again["version"]
    with connect(url) as third:  # and after both closed, the seat is still there
        assert _receive_state(third)["you"] == 0


def test_creating_a_game_in_a_full_server_is_refused_with_a_message() -> None:
    client = TestClient(create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0,
                                               max_games=1)))
    room = _room(client)
    with client.websocket_connect(f"/ws/{room['id']}?token={room['links'][0]['token']}") as ws:
        ws.receive_json()
        refused = client.post("/api/games", json={})
        assert refused.status_code == 503 and "full" in refused.json()["detail"]
    assert client.post("/api/games", json={}).status_code == 200  # nobody connected: the idle game makes room


def test_rule_options_from_the_lobby_are_checked_and_used(client: TestClient) -> None:
    room = _room(client, seed=1, options={"kitty_multiplier": "linear", "throw_penalty": 10, "chaodipi": True})
    options = client.app.state.games[room["id"]].session.ruleset.options
    assert (options.kitty_multiplier, options.throw_penalty, options.chaodipi) == ("linear", 10, True)
    bad = client.post("/api/games", json={"options": {"kitty_multiplier": "cubic"}})
    assert bad.status_code == 400 and "kitty_multiplier" in bad.json()["detail"]
    unknown = client.post("/api/games", json={"options": {"teleport": True}})
    assert unknown.status_code == 400 and "teleport" in unknown.json()["detail"]
    assert client.get("/api/options").json()["rule_options"]["kitty_multiplier"] == "exponential"


def _play_until_trick(session: GameSession, tricks: int) -> None:
    """Both people take the hint bot's decision until ``tricks`` tricks are won."""
    while len(session.hand.tricks) < tricks:
        if session.ai_to_act:
            session.step_ai()
            continue
        seat = session.to_act
        decision = session.hint(seat)
        if session.decision(seat) == "bid":
            session.bid(seat, decision)
        else:
            session.submit(seat, list(decision))


def test_every_person_reads_the_table_talk_in_their_own_words() -> None:
    session = GameSession(FRIENDS, seed=5, episode="hand", hint_bot="greedy")
    _play_until_trick(session, 3)
    south, north, spectator = session.messages_for(0), session.messages_for(2), session.messages_for(None)
    assert len(south) == len(north) == len(spectator)
    winners = [t.winner for t in session.hand.tricks]
    for number, winner in enumerate(winners, start=1):
        said = {seat: next(m for m in session.messages_for(seat) if f"won trick {number} " in m) for seat in (0, 2)}
        for reader in (0, 2):
            expected = "You" if winner == reader else session.label_for(reader, winner)
            assert said[reader].startswith(f"{expected} won trick {number} "), (reader, said)
    assert not any(m.startswith("South (human)") for m in north)  # seat 2 never reads itself as South
    assert not any(m.startswith("You ") for m in spectator)
    assert any(a != b for a, b in zip(south, north))


def test_the_favicon_and_a_one_hand_games_words(client: TestClient) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
    room = _room(client, seed=5, episode="hand")
    with client.websocket_connect(f"/ws/{room['id']}?token={room['links'][0]['token']}") as ws:
        state = ws.receive_json()
    assert state["episode"] == "hand" and state["trick_total"] is None  # tricks end when the cards do


def test_the_hint_comes_from_the_expert_bot_by_default() -> None:
    """The strongest agent that answers within 100 ms (benchmarks/RESULTS.md: 0.14 ms mean, 15 ms at most)."""
    from agents.bots.expert import ExpertAgent

    session = GameSession(["human", "greedy", "greedy", "greedy"], seed=5, episode="hand")
    while session.to_act != 0:
        session.step_ai()
    session.hint(0)
    assert isinstance(session._hint_agent, ExpertAgent)
    assert WebSettings().hint_bot == "expert"


def test_a_persons_pass_is_in_their_own_record_only() -> None:
    session = GameSession(FRIENDS, seed=5, episode="hand")
    while session.to_act not in (0, 2):
        session.step_ai()
    seat = session.to_act
    told = len(session.messages_for(seat))
    session.pass_turn(seat)
    assert session.messages_for(seat)[told:].count("You pass.") == 1
    assert "You pass." not in session.messages_for(2 - seat) and "You pass." not in session.messages_for(None)
