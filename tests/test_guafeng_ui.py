"""刮风 at the UI's table: the person's fix, 回牌, burial and plays through the session, and over the WebSocket."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
    from fastapi.testclient import TestClient

from agents.selfplay.checkpoint import new_model, save_checkpoint
from agents.selfplay.config import run_config
from env.core.cards import CARD_NAMES, NUM_KINDS, parse_cards
from env.core.errors import IllegalActionError
from env.core.registry import ruleset_from_config
from env.guafeng.combos import classify
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengHand
from env.standard.bidding import Bid
from tests.test_web import until_turn
from ui.guafeng_session import GuafengSession
from ui.seats import default_ai, resolve_seats
from ui.session import GameSession
from ui.sessions import open_session
from ui.web.server import WebSettings, create_app

SEATS = ["human", "random", "random", "random"]
GUAFENG = {"ruleset": "guafeng"}


def _table(seed: int, **kwargs) -> GuafengSession:
    # The person follows the greedy bot's hints: the positions these tests were written against.
    kwargs.setdefault("hint_bot", "greedy")
    session = open_session(SEATS, seed=seed, rules=GUAFENG, episode=kwargs.pop("episode", "hand"), **kwargs)
    assert isinstance(session, GuafengSession)
    return session


def _until(session: GuafengSession, wanted: str, fix_first: bool = True) -> bool:
    """Play on (agents; the person fixes with the first fix offered once, then passes, and takes the
    hint's cards) until the person has the ``wanted`` decision; False when the hand ends first."""
    fixed = False
    while not session.hand_over:
        if session.ai_to_act:
            session.step_ai()
            continue
        decision = session.decision(0)
        if decision == wanted:
            return True
        if decision == "fix":
            options = session.fix_options(0)
            session.fix(0, options[0] if fix_first and not fixed else None)
            fixed = True
        else:
            session.submit(0, session.hint(0))
    return False


def _reaching(wanted: str, fix_first: bool = True, seeds: range = range(60)) -> GuafengSession:
    """A one-hand table at the person's ``wanted`` decision (the first seed that gets there)."""
    for seed in seeds:
        session = _table(seed)
        if _until(session, wanted, fix_first):
            return session
    raise AssertionError(f"no seed of {seeds} reaches the person's {wanted!r} decision")


def _unchanged(session: GuafengSession) -> Callable[[], None]:
    log, messages = session.hand.to_log(), session.messages_for(0)

    def check() -> None:
        assert session.hand.to_log() == log and session.messages_for(0) == messages

    return check


def test_rules_config_names_the_rule_set() -> None:
    assert ruleset_from_config(GUAFENG).name == "guafeng"
    assert ruleset_from_config({"ruleset": "guafeng", "match_hands": 3}).options.match_hands == 3
    assert ruleset_from_config({"chaodipi": True}).name == "standard"
    assert type(open_session(SEATS, rules={})) is GameSession
    with pytest.raises(ValueError, match="open_session"):
        GameSession(SEATS, rules=ruleset_from_config(GUAFENG))
    with pytest.raises(ValueError, match="unknown guafeng option"):
        open_session(SEATS, rules={"ruleset": "guafeng", "chaodipi": True})


def test_guafeng_seats_the_bots_that_play_it(tmp_path) -> None:
    """The search plays only the standard game: 刮风's default AI is the expert bot."""
    assert default_ai(tmp_path, "guafeng") == "expert"
    assert resolve_seats(["human", "ai", "ai", "greedy"], tmp_path, "guafeng") == ["human", "expert", "expert",
                                                                                   "greedy"]
    with pytest.raises(ValueError, match="does not play the guafeng rules"):
        open_session(["human", "search", "random", "random"], rules=GUAFENG)
    session = open_session(SEATS, rules=GUAFENG, hint_bot="search")
    while not session.human_to_act:
        session.step_ai()
    hint = session.hint(0)  # the greedy bot's, as the search does not play 刮风
    if session.decision(0) == "fix":
        assert hint is None or hint in session.fix_options(0)
    else:
        assert session.decision(0) == "play" and session.hand.play_error(0, list(hint)) is None
    client = TestClient(create_app(WebSettings(ai_delay=0.0, rules=GUAFENG)))
    response = client.post("/api/games", json={"seats": ["human", "search", "expert", "search"]})
    assert response.status_code == 400 and "does not play" in response.json()["detail"]


def test_a_guafeng_checkpoint_takes_a_seat_by_its_path_and_a_standard_one_is_refused(tmp_path) -> None:
    """A checkpoint trained with ``python train.py rules=guafeng`` plays at a 刮风 table; ``ai`` stays the
    expert bot even with it in the checkpoint folder (the default AI picks checkpoints for the standard game)."""
    root = Path(__file__).resolve().parents[1]
    paths = {}
    for rules in ("guafeng", "standard"):
        overrides = ["train=smoke"] + (["rules=guafeng"] if rules == "guafeng" else [])
        with initialize_config_dir(version_base=None, config_dir=str(root / "conf")):
            cfg = OmegaConf.to_container(compose("train", overrides=overrides), resolve=True)
        paths[rules] = save_checkpoint(tmp_path / f"{rules}.pt", model=new_model(run_config(cfg)), optimizer=None,
                                       config=cfg, counters={"frames": 0})
    session = open_session(["random", str(paths["guafeng"]), "random", "random"], rules=GUAFENG, episode="hand")
    while not session.hand_over:
        session.step_ai()
    assert any(d["seat"] == 1 and d["action"] == "play" for d in session.hand.decisions)
    with pytest.raises(ValueError, match=r"does not play the guafeng rules .*checkpoint trained with "
                                         r"`python train.py rules=guafeng`"):
        open_session(["human", str(paths["standard"]), "random", "random"], rules=GUAFENG)
    assert default_ai(tmp_path, "guafeng") == "expert"


def test_the_person_fixes_and_the_table_keeps_the_base_secret() -> None:
    session = _reaching("fix")
    options = session.fix_options(0)
    assert options and all(isinstance(f, Fix) for f in options)
    assert session.fix_options(1) == [] and session.bid_options(0) == []
    check = _unchanged(session)
    with pytest.raises(IllegalActionError, match="no bids"):
        session.bid(0, Bid(1, 0))
    lacking = next(k for k in range(NUM_KINDS - 2) if session.hand.hands[0][k] == 0)
    with pytest.raises(IllegalActionError, match="not in hand"):
        session.fix(0, Fix(options[0].jokers, (lacking, lacking)))
    with pytest.raises(IllegalActionError, match="no card decision"):
        session.selection(0, [])
    with pytest.raises(IllegalActionError, match="fix or pass"):
        session.submit(0, "SA")
    check()
    fix = options[0]
    session.fix(0, fix)
    base = " ".join(CARD_NAMES[k] for k in fix.base)
    assert any(m.startswith("You ") and ("(扣主)" in m or "(吃)" in m) for m in session.messages)
    assert f"Your base: {base} (only you know it)." in session.messages_for(0)
    assert not any("Your base" in m for m in session.messages_for(None))
    assert session.hand.fixes[-1].seat == 0


def test_give_back_is_composed_card_by_card_with_the_engines_options() -> None:
    session = _reaching("give_back")
    hand = session.hand
    empty = session.selection(0, [])
    assert empty.needed == hand.give_back_count and not empty.complete
    assert list(empty.addable) == hand.give_back_options(0, [])
    assert "at least" in session.give_back_note() or hand.give_back_constants == 0
    locked = [k for k in hand.standing.fix.cards if k not in empty.addable]
    check = _unchanged(session)
    if locked:  # a card of the new fix may not be given back
        with pytest.raises(IllegalActionError, match="回牌"):
            session.selection(0, [locked[0]])
    picked: list[int] = []
    while len(picked) < hand.give_back_count:
        picked.append(session.selection(0, picked).addable[-1])
    assert session.selection(0, picked).complete
    with pytest.raises(IllegalActionError, match="exactly"):
        session.submit(0, picked[:-1])
    check()
    session.submit(0, picked)
    assert session.decision(0) != "give_back"
    to = session.seat_label(hand.fixes[-1].eaten)
    assert any(m.startswith(f"You gave {to}") for m in session.messages)


def test_the_burial_takes_four_held_cards() -> None:
    session = _reaching("bury", fix_first=False)
    empty = session.selection(0, [])
    assert empty.needed == 4 and len(session.hand.hand_cards(0)) == 30
    assert any(m.startswith("The kitty you take up:") for m in session.messages_for(0))
    check = _unchanged(session)
    with pytest.raises(IllegalActionError, match="exactly 4"):
        session.submit(0, session.hint(0)[:3])
    missing = next(k for k in range(NUM_KINDS) if session.hand.hands[0][k] == 0)
    with pytest.raises(IllegalActionError, match="no more"):
        session.selection(0, [missing])
    check()
    session.submit(0, session.hint(0))
    assert session.hand.phase == "play" and "You buried 4 cards (扣底)." in session.messages


def test_leads_and_follows_through_the_selection() -> None:
    """The first lead is one card; then every legal lead or follow is reachable card by card, and
    refused picks name the reason and change nothing, until the hand is scored."""
    session = _table(6)
    checked_leads = checked_follows = 0
    while not session.hand_over:
        if not _until(session, "play"):
            break
        hand = session.hand
        plays = session.legal_plays(0, 10_000).plays
        if hand.first_lead:
            assert all(len(p) == 1 for p in plays)
            with pytest.raises(IllegalActionError, match="one card"):
                session.selection(0, [plays[0][0], plays[1][0]])
        empty = session.selection(0, [])
        assert set(empty.addable) == {k for play in plays for k in play}
        for play in plays[:30]:
            for i in range(len(play)):
                assert play[i] in session.selection(0, play[:i]).addable
            done = session.selection(0, play)
            assert done.complete
            if hand.lead is None and not hand.first_lead:
                assert done.note and done.note.split(" ")[0] == classify(hand.ctx, list(play)).kind
        if hand.lead is None and not hand.first_lead:
            checked_leads += 1
            pair = [k for k in range(NUM_KINDS) if hand.hands[0][k]][:2]
            if len(pair) == 2 and classify(hand.ctx, pair) is None:
                with pytest.raises(IllegalActionError, match="no combination"):
                    session.selection(0, pair)
        elif hand.lead is not None:
            checked_follows += 1
            held = [k for k in range(NUM_KINDS) if hand.hands[0][k]]
            refused = [k for k in held if k not in empty.addable]
            if refused:
                check = _unchanged(session)
                with pytest.raises(IllegalActionError, match="no legal follow"):
                    session.selection(0, [refused[0]])
                check()
        session.submit(0, plays[-1])
    assert session.hand_over and checked_leads > 0 and checked_follows > 5
    assert session.match_over and len(session.hand_logs) == 1
    assert GuafengHand.from_log(session.hand_logs[0]).result == session.hand.result
    assert any(m.startswith("Kitty (捡底)") for m in session.messages)
    assert any(m.startswith("Defenders' points") for m in session.messages)


def test_a_short_match_climbs_the_cycle_of_levels() -> None:
    session = open_session(["random"] * 4, seed=4, rules={"ruleset": "guafeng", "match_hands": 3})
    while True:
        while not session.hand_over:
            session.step_ai()
        if session.match_over:
            break
        session.next_hand()
    assert session.match.hands_played == 3 == len(session.hand_logs)
    assert session.messages[-1].startswith("Match over:")
    with pytest.raises(IllegalActionError, match="match is over"):
        session.next_hand()
    history = session.match.history
    levels = session.ruleset.levels
    assert all(level in levels for h in history for level in h["team_levels"])
    assert sum(h["levels"] for h in history) == sum(session.match.climbed)


def test_a_guafeng_hand_over_the_websocket() -> None:
    """A standard server's lobby may start a 刮风 game; the person fixes, passes, gives cards and plays."""
    client = TestClient(create_app(WebSettings(seats=("human", "random", "random", "random"), ai_delay=0.0)))
    assert client.get("/api/options").json()["rules"] == "standard"
    assert client.post("/api/games", json={"rules": "nonesuch"}).status_code == 400
    created = client.post("/api/games", json={"seed": 3, "episode": "hand", "rules": "guafeng"}).json()
    decisions = []
    with client.websocket_connect(f"/ws/{created['id']}?token={created['links'][0]['token']}") as ws:
        while True:
            state = until_turn(ws)
            if state["result"]:
                break
            assert state["rules"] == "guafeng" and "guafeng" in state
            decision = state["decision"]
            decisions.append(decision)
            if decision == "fix":
                assert state["bid_options"] and state["bid_options"][0]["text"].startswith("show ")
                first = decisions.count("fix") == 1
                ws.send_json({"type": "fix", "index": 0} if first else {"type": "pass"})
                continue
            if decision == "give_back":
                assert state["guafeng"]["give_back"]["count"] == state["selection"]["needed"]
            selection = state["selection"]
            while not selection["complete"] or (selection["needed"] is None and not selection["cards"]):
                ws.send_json({"type": "select", "cards": [*selection["cards"], selection["addable"][0]]})
                selection = ws.receive_json()["selection"]
            ws.send_json({"type": selection["action"], "cards": selection["cards"]})
    assert "fix" in decisions and decisions.count("play") >= 10
    assert state["result"]["kitty_text"].startswith("Kitty (捡底)")
    assert parse_cards([c["c"] for c in state["result"]["kitty"]])
