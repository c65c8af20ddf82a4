"""The record of a match (score history, replays), the kitty marks before a burial, the lobby's AI speed and
what a room does when a person leaves; seat labels that keep their ``search:`` / ``critic:`` prefix."""

from __future__ import annotations

import json
import time
import warnings
from collections import Counter
from collections.abc import Iterator

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from env.core.cards import parse_cards
from ui.record import MatchRecord
from ui.seats import display_name
from ui.sessions import open_session
from ui.web.checkpoints import public_seat_name
from ui.web.server import WebSettings, create_app
from ui.web.state import hand_json

FRIENDS = ["human", "greedy", "human", "greedy"]


def _finish_hand(session) -> None:
    while not session.hand_over:
        session.step_ai()


@pytest.mark.parametrize("rules", [None, {"ruleset": "guafeng"}])
def test_the_score_history_and_the_replay_follow_the_hands(rules) -> None:
    session = open_session(["greedy"] * 4, seed=3, rules=rules, max_hands=3)
    record = MatchRecord(session)
    for number in range(1, 4):
        _finish_hand(session)
        scores = record.scores()
        assert [row["hand"] for row in scores] == list(range(1, number + 1))
        row, history = scores[-1], session.match.history[-1]
        assert row["dealer"] == session.hand.dealer and row["trump"] == session.trump_text()
        assert row["defender_points"] == history["defender_points"] and row["levels"] == history["levels"]
        assert row["team_levels_after"] == history["team_levels"]
        assert row["team_levels_before"] == list(session.hand.team_levels)
        if not session.match_over:
            session.next_hand()
    replay = record.replay(2)  # an earlier hand of the match, rebuilt from its log
    hand = session.ruleset.hand_class.from_log(session.hand_logs[1])
    assert len(replay["tricks"]) == len(hand.tricks)
    for trick, shown in zip(hand.tricks, replay["tricks"]):
        assert (shown["leader"], shown["winner"], shown["points"]) == (trick.leader, trick.winner, trick.points)
        assert [len(p["cards"]) for p in shown["plays"]] == [len(p) for p in trick.plays]
        for play in shown["plays"]:  # each seat played from the cards it held before the trick
            held = Counter(parse_cards([c["c"] for c in shown["held"][str(play["seat"])]]))
            assert not Counter(parse_cards([c["c"] for c in play["cards"]])) - held
    first = replay["tricks"][0]["held"]
    assert all(len(first[str(s)]) == hand.ruleset.layout.hand_size for s in range(4))
    assert replay["result"]["defender_points"] == hand.result.defender_points
    with pytest.raises(KeyError):
        record.replay(4)
    lines = record.score_lines(session.seat_label)
    assert len(lines) == 3 and lines[0].startswith("Hand 1: dealer ")


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A client holding one event loop for all its requests and sockets, as a server has: without ``with``, each
    socket gets a loop of its own, and a game's AI task (and its asyncio event) would outlive the loop it ran in."""
    with TestClient(create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0,
                                           away_after=0.2))) as held:
        yield held


def _room(client: TestClient, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_replay_api_serves_finished_hands_only(client: TestClient) -> None:
    room = _room(client, seats=["greedy"] * 4, watch=True, seed=4, episode="match")
    assert client.get(f"/api/games/{room['id']}/replay").status_code == 409  # no hand finished yet
    session = client.app.state.games[room["id"]].session
    _finish_hand(session)
    session.next_hand()
    _finish_hand(session)
    for number in (1, 2):
        replay = client.get(f"/api/games/{room['id']}/replay?hand={number}").json()
        assert replay["hand"] == number and len(replay["tricks"]) >= 10
        assert replay["tricks"][0]["plays"] and len(replay["kitty"]) == session.hand.ruleset.layout.kitty_size
    assert client.get(f"/api/games/{room['id']}/replay").json()["hand"] == 2
    assert client.get(f"/api/games/{room['id']}/replay?hand=3").status_code == 404
    assert client.get("/api/games/nosuchgame/replay").status_code == 404
    with client.websocket_connect(f"/ws/{room['id']}") as ws:
        state = ws.receive_json()
    assert [row["hand"] for row in state["scores"]] == [1, 2]


@pytest.mark.parametrize("rules", [None, {"ruleset": "guafeng"}, {"chaodipi": True}])
def test_the_burier_sees_which_cards_came_from_the_kitty(rules) -> None:
    for seed in range(6):
        session = open_session(["greedy"] * 4, seed=seed, rules=rules, episode="hand")
        while not session.hand_over:
            seat = session.to_act
            marked = [c["c"] for c in hand_json(session, seat, session.decision(seat)) if c.get("k")]
            if session.decision(seat) == "bury":
                assert Counter(parse_cards(marked)) == Counter(session.kitty_received(seat))
                assert len(marked) == session.hand.ruleset.layout.kitty_size
            else:
                assert marked == []
            session.step_ai()


def test_the_lobby_sets_the_ai_speed(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert options["ai_speeds"] == {"none": 0.0, "normal": 0.0, "slow": 1.6}
    assert options["away_choices"] == ["wait", "ai"]
    for speed, seconds in (("none", 0.0), ("slow", 1.6)):
        room = _room(client, seats=FRIENDS, seed=5, episode="hand", ai_speed=speed)
        assert client.app.state.games[room["id"]].ai_delay == seconds
    for body in ({"ai_speed": "warp"}, {"away": "forever"}):
        response = client.post("/api/games", json={"seats": FRIENDS, **body})
        assert response.status_code == 400 and next(iter(body)) in response.json()["detail"]


def _receive_json(ws, timeout: float) -> dict:
    """The socket's next message, failing after ``timeout`` seconds: a message that never comes must fail
    the test, not hang the suite (the test client's own receive waits for ever)."""
    import anyio

    async def bounded():
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    try:
        message = ws.portal.call(bounded)
    except TimeoutError:
        pytest.fail(f"no message from the server in {timeout:.0f} s")
    assert message["type"] == "websocket.send", message  # not a close
    return json.loads(message["text"])


def _wait_for(ws, predicate, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = _receive_json(ws, max(0.1, deadline - time.monotonic()))
        assert state.get("type") != "error", state  # an AI move that failed stops the table
        if state.get("type") == "state" and predicate(state):
            return state
        assert time.monotonic() < deadline, state


@pytest.mark.parametrize("away", ["ai", "wait"])
def test_a_seat_whose_person_left_is_played_by_an_ai_or_waits_and_comes_back(client: TestClient, away: str) -> None:
    room = _room(client, seats=["human", "greedy", "greedy", "greedy"], seed=5, episode="hand", away=away)
    game, token = room["id"], room["links"][0]["token"]
    held = client.app.state.games[game]
    with client.websocket_connect(f"/ws/{game}?token={token}") as person:
        _wait_for(person, lambda s: s["your_turn"])
    with client.websocket_connect(f"/ws/{game}") as watcher:  # someone stays at the table
        version = watcher.receive_json()["version"]
        if away == "ai":
            state = _wait_for(watcher, lambda s: s["version"] > version + 3 and s["seats"][0]["away"])
            assert state["seats"][0]["stand_in"] and held.session.hand.decisions  # South's moves were made
            assert any(d["seat"] == 0 for d in held.session.hand.decisions)
        else:
            time.sleep(0.8)
            assert held.session.to_act == 0 and held.version == version  # the table waits for South
            state = held.state_for(None)
            assert state["seats"][0]["away"] and not state["seats"][0]["stand_in"]
        with client.websocket_connect(f"/ws/{game}?token={token}") as person:  # back by the seat's link
            state = _wait_for(person, lambda s: s["you"] == 0)
            assert not state["seats"][0]["away"] and 0 not in held.left
            mine = state if state["your_turn"] or state["result"] else \
                _wait_for(person, lambda s: s["your_turn"] or s["result"])
            if mine["your_turn"]:
                time.sleep(0.5)  # the stand-in has stopped: the turn stays with the person
                assert held.session.to_act == 0 and not held.state_for(0)["seats"][0]["away"]


def test_a_stand_in_that_was_thinking_when_the_person_came_back_does_not_move(client: TestClient) -> None:
    """The person returns while the stand-in is choosing their move: the move is dropped, the turn is theirs."""
    import threading

    room = _room(client, seats=["human", "greedy", "greedy", "greedy"], seed=5, episode="hand", away="ai")
    game, token = room["id"], room["links"][0]["token"]
    held = client.app.state.games[game]
    with client.websocket_connect(f"/ws/{game}?token={token}") as person:
        _wait_for(person, lambda s: s["your_turn"])
    thinking, release = threading.Event(), threading.Event()
    real_hint = held.session.hint

    def slow_hint(seat):
        thinking.set()
        assert release.wait(20), "the test never released the stand-in"
        return real_hint(seat)

    held.session.hint = slow_hint
    with client.websocket_connect(f"/ws/{game}") as watcher:  # the table goes on: the stand-in is due
        _receive_json(watcher, 20)
        assert thinking.wait(20), "the stand-in never started"
        decisions = len(held.session.hand.decisions)
        with client.websocket_connect(f"/ws/{game}?token={token}") as person:  # back while it thinks
            assert _wait_for(person, lambda s: s["you"] == 0)["your_turn"]
            release.set()
            time.sleep(0.5)
            assert held.session.to_act == 0 and len(held.session.hand.decisions) == decisions
            assert not held.state_for(0)["seats"][0]["away"]


def test_seat_labels_keep_the_search_and_critic_prefixes() -> None:
    assert display_name("search:checkpoints/dmc_cpu60.pt") == "search:dmc_cpu60"
    assert display_name("critic:/somewhere/net.pt") == "critic:net"
    assert display_name("search:expert") == "search:expert" and display_name("search") == "search"
    assert public_seat_name("search:/somewhere/net.pt", {}) == "search:net"
    session = open_session(["human", "search:greedy", "greedy", "greedy"], seed=1, episode="hand")
    assert session.label_for(0, 1) == "East (search:greedy)"
