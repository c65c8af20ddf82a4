"""The web server through FastAPI's TestClient: a whole hand over the WebSocket, validation, several games."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from omegaconf import OmegaConf

from env.core.cards import CARD_NAMES
from env.standard.hand import Hand
from ui.web.checkpoints import checkpoint_choices, public_seat_name
from ui.web.protocol import MESSAGE_TYPES, ProtocolError, parse_message
from ui.web.server import UNEXPECTED, WebSettings, create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client() -> TestClient:
    app = create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0))
    return TestClient(app)


_SEATS: dict[str, str] = {}
"""The WebSocket path of each created game's first human seat (its join link's token), by game id."""


def _new_game(client: TestClient, **body) -> str:
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    created = response.json()
    links = created["links"]
    _SEATS[created["id"]] = f"/ws/{created['id']}?token={links[0]['token']}" if links else f"/ws/{created['id']}"
    return created["id"]


def _seat(game: str) -> str:
    """Where the browser of the game's first human seat connects (a spectator in watch mode)."""
    return _SEATS[game]


def until_turn(ws) -> dict:
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
    state = until_turn(ws)
    while not state["result"]:
        actions.append(_act(ws, state))
        state = until_turn(ws)
    return state, actions


def test_full_hand_over_the_websocket(client: TestClient) -> None:
    game = _new_game(client, seed=5, episode="hand")
    assert client.get(f"/api/games/{game}/log").status_code == 409  # no finished hand: its log shows every card
    with client.websocket_connect(_seat(game)) as ws:
        state, actions = _play_hand(ws)
    assert actions.count("play") == 25
    assert "bury" in actions  # seed 5: our first bid makes us the dealer
    assert state["match"]["over"] and state["logs"] == 1
    assert "Defenders took" in state["result"]["summary"]
    tricks = state["tricks"]  # the hand's record: every trick, each seat's cards from the leader
    assert [t["number"] for t in tricks] == list(range(1, len(tricks) + 1)) and tricks[-1]["winner"] in range(4)
    assert all([p["seat"] for p in t["plays"]] == [(t["leader"] + i) % 4 for i in range(4)] for t in tricks)
    assert sum(t["points"] for t in tricks) == sum(state["team_points"])
    assert len(state["my_kitty"]) == state["layout"]["kitty_size"]  # we buried it: we may look at it
    with client.websocket_connect(f"/ws/{game}") as ws:
        assert ws.receive_json()["my_kitty"] is None  # a spectator may not
    response = client.get(f"/api/games/{game}/log?hand=1")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    log = response.json()
    replayed = Hand.from_log(log)
    assert replayed.result.defender_points == state["result"]["defender_points"]


def test_state_shows_only_our_cards(client: TestClient) -> None:
    game = _new_game(client, seed=1)
    with client.websocket_connect(_seat(game)) as ws:
        state = ws.receive_json()
    assert state["you"] == 0 and state["hands"] == {}
    assert len(state["hand"]) == state["seats"][0]["cards"]
    assert [s["position"] for s in state["seats"]] == ["south", "east", "north", "west"]
    assert '"deck"' not in json.dumps(state)  # the deck itself is never sent (its count is: layout.decks)


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
    with client.websocket_connect(_seat(game)) as ws:
        checked_phases = set()
        state = until_turn(ws)
        while len(checked_phases) < 3 and not state["result"]:
            if state["phase"] not in checked_phases:
                checked_phases.add(state["phase"])
                for text, reason in BAD_MESSAGES:
                    for frame in (text, text.encode()):  # a text frame, then the same as a binary frame
                        _send_frame(ws, frame)
                        reply = ws.receive_json()
                        assert reply["type"] == "error", (frame, reply)
                        assert reason in reply["message"], (frame, reply["message"])
                        ws.send_json({"type": "state"})
                        assert ws.receive_json() == state, frame
            _act(ws, state)
            state = until_turn(ws)
    assert checked_phases == {"deal", "kitty", "play"}


def _send_frame(ws, frame: str | bytes) -> None:
    if isinstance(frame, bytes):
        ws.send_bytes(frame)
    else:
        ws.send_text(frame)


def test_binary_frames_are_answered_and_the_connection_stays(client: TestClient) -> None:
    """A binary frame is read like a text one: UTF-8 JSON works, anything else gets an error reply."""
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(_seat(game)) as ws:
        state = until_turn(ws)
        ws.send_bytes(b'{"type": "state"}')
        assert ws.receive_json() == state
        for frame, reason in [(b"\xff\xfe{", "UTF-8"), (b"\xc3", "UTF-8"), (b"", "malformed JSON"),
                              (b"\x00\x01\x02", "malformed JSON"), ('{"type": "帰"}'.encode(), "unknown message type"),
                              (b"[" * 2000 + b"]" * 2000, "nested too deeply"), (b"x" * 5000, "longer than")]:
            ws.send_bytes(frame)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reason in reply["message"], (frame[:20], reply)
            ws.send_json({"type": "state"})
            assert ws.receive_json() == state
        # The game goes on over the same connection.
        _act(ws, state)
        assert until_turn(ws)["version"] > state["version"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
_CARD_TOKENS = st.sampled_from(CARD_NAMES) | st.text(max_size=5)
_MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(MESSAGE_TYPES) | st.text(max_size=10) | _JSON},
    optional={"cards": st.lists(_CARD_TOKENS, max_size=45) | _JSON, "index": st.integers() | _JSON,
              "on": st.booleans() | _JSON, "extra": _JSON})
_TEXTS = st.one_of(
    _MESSAGES.map(json.dumps), _JSON.map(json.dumps), st.text(max_size=64),
    st.integers(1, 2000).map(lambda n: "[" * n + "]" * n),  # nesting that fits the size limit
    st.integers(1, 800).map(lambda n: '{"a": ' * n + "1" + "}" * n),
    st.integers(4000, 5000).map(lambda n: json.dumps({"type": "state", "pad": "x" * n})),
)
_FRAMES = st.one_of(_TEXTS, _TEXTS.map(str.encode), st.binary(max_size=64))


def _moves_the_game(frame: str | bytes, bids: int) -> bool:
    """True for the frames that are a legal bidding decision (they change the game, as they should)."""
    try:
        message = parse_message(frame)
    except ProtocolError:
        return False
    return message["type"] == "pass" or (message["type"] == "bid" and 0 <= message["index"] < bids)


def test_a_fix_in_a_standard_game_is_refused_with_a_reason(client: TestClient) -> None:
    # 刮风's messages reach every game: a standard one has no fixes and says so (once a server error).
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(_seat(game)) as ws:
        state = until_turn(ws)
        ws.send_json({"type": "fix", "index": 0})
        reply = ws.receive_json()
        assert reply["type"] == "error" and "no fix 0" in reply["message"], reply
        ws.send_json({"type": "state"})
        assert ws.receive_json() == state


def test_random_frames_are_answered_and_change_nothing(client: TestClient) -> None:
    """Any frame, text or binary, of any shape: one reply, never a dropped connection, no change.

    While we bid (our decision, the AIs waiting), every frame except a legal bid or
    pass must leave the state as it was: an error says why, ``state`` and ``hint``
    are answered as usual.
    """
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(_seat(game)) as ws:
        state = until_turn(ws)
        assert state["phase"] == "deal" and state["bid_options"]

        @settings(max_examples=250, deadline=None)
        @given(frame=_FRAMES)
        def check(frame: str | bytes) -> None:
            assume(not _moves_the_game(frame, len(state["bid_options"])))
            _send_frame(ws, frame)
            reply = ws.receive_json()
            assert reply["type"] in ("error", "state", "hint"), reply
            if reply["type"] == "error":
                assert reply["message"] and reply["message"] != UNEXPECTED, (frame, reply)
            elif reply["type"] == "state":
                assert reply == state
            ws.send_json({"type": "state"})
            assert ws.receive_json() == state, frame

        check()


def test_follow_refuses_cards_that_break_the_duty(client: TestClient) -> None:
    """While following, a card outside every legal play is refused with the rules' reason."""
    game = _new_game(client, seed=5, episode="hand")
    with client.websocket_connect(_seat(game)) as ws:
        state = until_turn(ws)
        while not (state["phase"] == "play" and state["selection"]["needed"]):
            _act(ws, state)
            state = until_turn(ws)
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
    with client.websocket_connect(_seat(first)) as ws1, client.websocket_connect(_seat(second)) as ws2:
        state1, state2 = until_turn(ws1), until_turn(ws2)
        assert state1["game"] == first and state2["game"] == second
        _act(ws1, state1)
        state1 = until_turn(ws1)
        ws2.send_json({"type": "state"})
        assert ws2.receive_json() == state2  # the other game did not move
    listed = {g["id"] for g in client.get("/api/games").json()}
    assert {first, second} <= listed


def test_watch_mode_step_and_auto(client: TestClient) -> None:
    game = _new_game(client, seed=3, episode="hand", watch=True, seats=["random"] * 4)
    with client.websocket_connect(_seat(game)) as ws:
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
        assert "join link" in ws.receive_json()["message"]
    with client.websocket_connect("/ws/nope") as ws:
        assert "no game" in ws.receive_json()["message"]


def _strings(value) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [k, *_strings(v)]]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    return []


def _assert_no_server_path(value) -> None:
    for text in _strings(value):
        assert not text.startswith("/") and str(ROOT) not in text and ".pt" not in text, text


def test_checkpoints_are_offered_and_chosen_by_name_never_by_path() -> None:
    """As play.py runs it (an absolute checkpoint folder): names and card facts out, names in."""
    folder = ROOT / "checkpoints"
    configured = ("human", str(folder / "dmc_cpu60.pt"), "greedy", "ai")  # as play.py's seats=[...] may set them
    client = TestClient(create_app(WebSettings(seats=configured, ai_delay=0.0, checkpoint_dir=str(folder))))
    options = client.get("/api/options").json()
    _assert_no_server_path(options)
    assert options["default_seats"] == ["human", "dmc_cpu60", "greedy", "ai"]
    offered = {c["name"]: c for c in options["checkpoints"]}
    assert set(offered) == {p.stem for p in folder.glob("*.pt")}
    shipped = offered["dmc_cpu60"]
    card = json.loads((folder / "dmc_cpu60.json").read_text())
    assert shipped["frames"] == card["frames"]
    assert "+0.38 vs random" in shipped["strength"] and shipped["strength"].endswith("(levels/hand)")
    assert shipped["label"] == f"dmc_cpu60 · 8.4M frames · {shipped['strength']}"

    created = client.post("/api/games", json={"seats": ["human", "dmc_cpu60", "greedy", "dmc_cpu60"], "seed": 2})
    assert created.status_code == 200, created.text
    assert created.json()["seats"] == ["human", "dmc_cpu60", "greedy", "dmc_cpu60"]
    session = client.app.state.games[created.json()["id"]].session
    assert session.seats[1] == session.seats[3] == str(folder / "dmc_cpu60.pt")  # the server kept the file
    with client.websocket_connect(f"/ws/{created.json()['id']}") as ws:
        state = ws.receive_json()
    assert [s["name"] for s in state["seats"]] == ["human", "dmc_cpu60", "greedy", "dmc_cpu60"]
    _assert_no_server_path(state)

    configured_game = client.post("/api/games", json={"seed": 3})  # the server's own seats, paths resolved
    assert configured_game.status_code == 200, configured_game.text
    assert configured_game.json()["seats"][:3] == ["human", "dmc_cpu60", "greedy"]
    _assert_no_server_path(configured_game.json())
    _assert_no_server_path(client.get("/api/games").json())

    for path in (str(folder / "dmc_cpu60.pt"), "checkpoints/dmc_cpu60.pt", "dmc_cpu60.pt", "../checkpoints/dmc_cpu60"):
        refused = client.post("/api/games", json={"seats": ["human", path, "greedy", "greedy"]})
        assert refused.status_code == 400 and "unknown seat" in refused.json()["detail"], path
        _assert_no_server_path(refused.json()["detail"].split("choose from")[1])  # the choices, not the echo


def test_checkpoint_names_labels_and_the_folder_boundary(tmp_path: Path) -> None:
    """A name never shadows a bot; a card's stated strength wins; nothing outside the folder is offered."""
    folder = tmp_path / "checkpoints"
    (folder / "nested").mkdir(parents=True)
    for name in ("random.pt", "plain.pt", "carded.pt", "broken.pt", "nested/deep.pt"):
        (folder / name).write_bytes(b"")
    (folder / "carded.json").write_text(json.dumps({"frames": 1500, "strength": "beats greedy"}))
    (folder / "broken.json").write_text("{not json")
    (tmp_path / "outside.pt").write_bytes(b"")
    choices = checkpoint_choices(folder, reserved={"human", "ai", "random", "greedy", "expert"})
    assert set(choices) == {"random.pt", "plain", "carded", "broken"}
    assert choices["carded"].label == "carded · 1.5k frames · beats greedy"
    assert choices["plain"].label == "plain" and choices["broken"].frames is None
    assert "path" not in choices["carded"].public()
    assert public_seat_name(str(folder / "carded.pt"), choices) == "carded"
    assert public_seat_name(str(tmp_path / "outside.pt"), choices) == "outside"
    assert public_seat_name("greedy", choices) == "greedy"


def test_page_and_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/app.js").status_code == 200


def test_server_binds_to_localhost_by_default() -> None:
    cfg = OmegaConf.load(ROOT / "conf" / "play.yaml")
    assert cfg.web.host == "127.0.0.1"


def test_a_network_checkpoint_is_also_offered_as_its_strongest_player() -> None:
    """``relabel:plans:<name>`` comes beside each checkpoint it loads over (not the card-mode network without a
    value head), with the card's own figures for that player; chosen by name, seated over the file."""
    folder = ROOT / "checkpoints"
    client = TestClient(create_app(WebSettings(ai_delay=0.0, checkpoint_dir=str(folder))))
    options = client.get("/api/options").json()
    _assert_no_server_path(options)
    players = {c["name"]: [p["name"] for p in c["players"]] for c in options["checkpoints"]}
    assert players["dmc_cpu60"] == []  # no value head: no planned burial
    assert players["dmc_play_cpu145"] == ["relabel:plans:dmc_play_cpu145"]
    card = json.loads((folder / "dmc_play_cpu145.json").read_text())
    recorded = [pair["metrics"]["level_diff"]["value"] for result in card["evaluation"].values()
                for pair in result["pairs"] if pair["a"].startswith("relabel:plans:") and pair["b"] == "expert"]
    label = next(c for c in options["checkpoints"] if c["name"] == "dmc_play_cpu145")["players"][0]["label"]
    assert recorded and label == f"dmc_play_cpu145 · burial planned, suits renamed · {recorded[0]:+.2f} vs expert " \
        "(levels/hand)"
    assert "plans" not in next(c for c in options["checkpoints"] if c["name"] == "dmc_play_cpu145")["label"]

    seats = ["human", "relabel:plans:dmc_play_cpu145", "greedy", "relabel:plans:dmc_play_cpu145"]
    created = client.post("/api/games", json={"seats": seats, "seed": 4})
    assert created.status_code == 200, created.text
    assert created.json()["seats"] == seats
    session = client.app.state.games[created.json()["id"]].session
    assert session.seats[1] == f"relabel:plans:{folder / 'dmc_play_cpu145.pt'}"
    with client.websocket_connect(f"/ws/{created.json()['id']}") as ws:
        state = ws.receive_json()
    assert [s["name"] for s in state["seats"]] == seats
    _assert_no_server_path(state)

    for name in ("relabel:plans:dmc_cpu60", "plans:dmc_play_cpu145", "relabel:plans:../checkpoints/dmc_play_cpu145",
                 f"relabel:plans:{folder / 'dmc_play_cpu145.pt'}"):
        refused = client.post("/api/games", json={"seats": ["human", name, "greedy", "greedy"]})
        assert refused.status_code == 400 and "unknown seat" in refused.json()["detail"], name


def test_a_card_names_the_figures_of_the_player_built_around_it() -> None:
    """card_level_diffs: a wrapper's pairs count for that wrapper only, never for the plain checkpoint."""
    from ui.seats import card_level_diffs

    def pair(a: str, b: str, value: float) -> dict:
        return {"a": a, "b": b, "metrics": {"level_diff": {"value": value, "low": value - 0.1, "high": value + 0.1}}}

    card = {"evaluation": {"r": {"pairs": [pair("x/net.pt", "expert", -0.2), pair("plans:x/net.pt", "expert", -0.1),
                                           pair("greedy", "relabel:plans:x/net.pt", -0.3),
                                           pair("relabel:plans:x/net.pt", "search:x/net.pt", 0.5)]}}}
    assert card_level_diffs(card, "net.pt") == {"expert": (-0.2, pytest.approx(-0.3))}
    assert card_level_diffs(card, "net.pt", "plans") == {"expert": (-0.1, pytest.approx(-0.2))}
    assert card_level_diffs(card, "net.pt", "relabel:plans") == {"greedy": (0.3, pytest.approx(0.2))}
    assert card_level_diffs(card, "other.pt", "plans") == {}
