"""The web server through FastAPI's TestClient: a whole hand over the WebSocket, validation, several games."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from omegaconf import OmegaConf

from env.game import Hand
from ui.web.server import WebSettings, create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client() -> TestClient:
    app = create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0))
    return TestClient(app)


def _new_game(client: TestClient, **body) -> str:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def _until_turn(ws) -> dict:
    """Read messages until it is our decision or the hand is over; returns that state."""
    while True:
        message = ws.receive_json()
        assert message["type"] == "state", message
        if message["your_turn"] or message["result"]:
            return message


def _act(ws, state: dict) -> str:
    """Take the decision a state asks for the way a person clicks: first offered bid, first allowed cards."""
    if state["phase"] in ("deal", "final_bid"):
        ws.send_json({"type": "bid", "index": 0} if state["bid_options"] else {"type": "pass"})
        return "bid"
    selection = state["selection"]
    while not selection["complete"] or (selection["needed"] is None and not selection["cards"]):
        ws.send_json({"type": "select", "cards": [*selection["cards"], selection["addable"][0]]})
        reply = ws.receive_json()
        assert reply["type"] == "state", reply
        selection = reply["selection"]
    ws.send_json({"type": selection["action"], "cards": selection["cards"]})
    return selection["action"]


def _play_hand(ws) -> tuple[dict, list[str]]:
    actions = []
    state = _until_turn(ws)
    while not state["result"]:
        actions.append(_act(ws, state))
        state = _until_turn(ws)
    return state, actions


def test_full_hand_over_the_websocket(client: TestClient) -> None:
    game = _new_game(client, seed=5, episode="hand")
    assert client.get(f"/api/games/{game}/log").status_code == 409  # no finished hand: its log shows every card
    with client.websocket_connect(f"/ws/{game}") as ws:
        state, actions = _play_hand(ws)
    assert actions.count("play") == 25
    assert "bury" in actions  # seed 5: our first bid makes us the dealer
    assert state["match"]["over"] and state["logs"] == 1
    assert "Defenders took" in state["result"]["summary"]
    response = client.get(f"/api/games/{game}/log?hand=1")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    log = response.json()
    replayed = Hand.from_log(log)
    assert replayed.result.defender_points == state["result"]["defender_points"]


def test_state_shows_only_our_cards(client: TestClient) -> None:
    game = _new_game(client, seed=1)
    with client.websocket_connect(f"/ws/{game}") as ws:
        state = ws.receive_json()
    assert state["you"] == 0 and state["hands"] == {}
    assert len(state["hand"]) == state["seats"][0]["cards"]
    assert [s["position"] for s in state["seats"]] == ["south", "east", "north", "west"]
    assert "deck" not in json.dumps(state)


BAD_MESSAGES = [
    ("not json", "malformed JSON"),
    ("[1, 2]", "JSON object"),
    ('{"type": "teleport"}', "unknown message type"),
    ('{"type": "play", "cards": "SA"}', "list of card names"),
    ('{"type": "play", "cards": [1, 2]}', "list of card names"),
    ('{"type": "select", "cards": ["ZZ"]}', "malformed card token"),
    ('{"type": "bid", "index": "0"}', "index"),
    ('{"type": "bid", "index": 7}', ""),
    ('{"type": "auto", "on": "yes"}', "true or false"),
    ('{"type": "step"}', "watch mode"),
    ('{"type": "next_hand"}', "still being played"),
    ('{"type": "bury", "cards": ["SA", "SA", "SA", "SA", "SA", "SA", "SA", "SA"]}', ""),
    ('{"type": "play", "cards": ["SA", "SA", "SA"]}', ""),
    ('{"type": "select", "cards": ["SA", "SA", "SA"]}', ""),
    ("x" * 5000, "longer than"),
]


def test_malformed_and_illegal_messages_change_nothing(client: TestClient) -> None:
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(f"/ws/{game}") as ws:
        checked_phases = set()
        state = _until_turn(ws)
        while len(checked_phases) < 3 and not state["result"]:
            if state["phase"] not in checked_phases:
                checked_phases.add(state["phase"])
                for text, reason in BAD_MESSAGES:
                    ws.send_text(text)
                    reply = ws.receive_json()
                    assert reply["type"] == "error", (text, reply)
                    assert reason in reply["message"], (text, reply["message"])
                    ws.send_json({"type": "state"})
                    assert ws.receive_json() == state, text
            _act(ws, state)
            state = _until_turn(ws)
    assert checked_phases == {"deal", "kitty", "play"}


def test_follow_refuses_cards_that_break_the_duty(client: TestClient) -> None:
    """While following, a card outside every legal play is refused with the rules' reason."""
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(f"/ws/{game}") as ws:
        state = _until_turn(ws)
        while not (state["phase"] == "play" and state["selection"]["needed"]):
            _act(ws, state)
            state = _until_turn(ws)
        held = {c["c"] for c in state["hand"]}
        refused = sorted(held - set(state["selection"]["addable"]))
        assert refused, "seed 5: the first follow has a duty to follow suit"
        ws.send_json({"type": "select", "cards": [refused[0]]})
        reply = ws.receive_json()
        assert reply["type"] == "error" and "no legal play contains" in reply["message"]
        ws.send_json({"type": "play", "cards": [refused[0]] * state["selection"]["needed"]})
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "state"})
        assert ws.receive_json() == state


def test_several_games_at_once(client: TestClient) -> None:
    first, second = _new_game(client, seed=5, episode="hand"), _new_game(client, seed=6, episode="hand")
    assert first != second
    with client.websocket_connect(f"/ws/{first}") as ws1, client.websocket_connect(f"/ws/{second}") as ws2:
        state1, state2 = _until_turn(ws1), _until_turn(ws2)
        assert state1["game"] == first and state2["game"] == second
        _act(ws1, state1)
        state1 = _until_turn(ws1)
        ws2.send_json({"type": "state"})
        assert ws2.receive_json() == state2  # the other game did not move
    listed = {g["id"] for g in client.get("/api/games").json()}
    assert {first, second} <= listed


def test_watch_mode_step_and_auto(client: TestClient) -> None:
    game = _new_game(client, seed=3, episode="hand", watch=True, seats=["random"] * 4)
    with client.websocket_connect(f"/ws/{game}") as ws:
        state = ws.receive_json()
        assert state["watch"] and state["you"] is None and len(state["hands"]) == 4
        ws.send_json({"type": "step"})
        stepped = ws.receive_json()
        assert stepped["version"] == state["version"] + 1
        ws.send_json({"type": "play", "cards": ["SA"]})
        assert "spectators cannot act" in ws.receive_json()["message"]
        ws.send_json({"type": "auto", "on": True})
        while not (state := ws.receive_json())["result"]:
            pass
    assert state["match"]["over"]


def test_game_creation_and_connection_are_validated(client: TestClient) -> None:
    assert client.post("/api/games", json={"seats": ["human", "/etc/passwd", "ai", "ai"]}).status_code == 400
    assert client.post("/api/games", json={"seats": ["human"]}).status_code == 400
    assert client.post("/api/games", json={"seed": -1}).status_code == 400
    assert client.post("/api/games", json={"episode": "forever"}).status_code == 400
    assert client.get("/api/games/nope/log").status_code == 404
    game = _new_game(client, seed=1)
    with client.websocket_connect(f"/ws/{game}?seat=1") as ws:
        assert "not a human seat" in ws.receive_json()["message"]
    with client.websocket_connect("/ws/nope") as ws:
        assert "no game" in ws.receive_json()["message"]


def test_page_and_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/app.js").status_code == 200


def test_server_binds_to_localhost_by_default() -> None:
    cfg = OmegaConf.load(ROOT / "conf" / "play.yaml")
    assert cfg.web.host == "127.0.0.1"
