"""The UI's game session: masks for partial selections, refusals that change nothing, AI moves, the match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.bots.random_agent import RandomAgent
from env.core.errors import IllegalActionError
from env.standard.hand import Hand, Phase
from ui.seats import beats_in_card, best_checkpoint, default_ai, orientation, resolve_seats
from ui.session import GameSession


def _to_human_card_turn(session: GameSession, phase: Phase) -> None:
    """Play agents (and pass or bid for the human) until the human has a card decision in ``phase``."""
    while not (session.human_to_act and session.hand.phase == phase):
        assert not session.hand_over, "the hand ended first"
        if session.ai_to_act:
            session.step_ai()
        elif session.hand.phase.is_bidding:
            options = session.bid_options(0)
            session.bid(0, options[0] if options else None)
        else:
            session.submit(0, session.legal_plays(0, 50).plays[0] if session.hand.phase == Phase.PLAY
                           else session.hint(0))


def test_selection_masks_agree_with_the_legal_plays() -> None:
    """Every legal play is reachable pick by pick, complete at the end; the first picks are exactly its cards."""
    for seed in range(4):
        session = GameSession(["human", "random", "random", "random"], seed=seed, episode="hand")
        for _ in range(12):
            _to_human_card_turn(session, Phase.PLAY)
            plays = session.legal_plays(0, 10_000).plays
            empty = session.selection(0, [])
            if session.hand.lead is not None:
                assert set(empty.addable) == {k for play in plays for k in play}
            for play in plays[:40]:
                for i in range(len(play)):
                    assert play[i] in session.selection(0, play[:i]).addable
                assert session.selection(0, play).complete
            session.submit(0, plays[-1])


def test_refusals_name_the_reason_and_change_nothing() -> None:
    session = GameSession(["human", "greedy", "greedy", "greedy"], seed=5, episode="hand")
    _to_human_card_turn(session, Phase.PLAY)
    before = session.hand.to_log()
    messages = list(session.messages)
    with pytest.raises(IllegalActionError, match="malformed card token"):
        session.submit(0, "S1")
    with pytest.raises(IllegalActionError):
        session.submit(0, "SA SA SA")
    with pytest.raises(IllegalActionError, match="not by a person"):
        session.submit(1, "SA")
    with pytest.raises(IllegalActionError, match=r"cannot pass in phase play"):
        session.bid(0, None)
    with pytest.raises(IllegalActionError, match="still being played"):
        session.next_hand()
    assert session.hand.to_log() == before and session.messages == messages


def test_kitty_burial_through_the_session() -> None:
    session = GameSession(["human", "greedy", "greedy", "greedy"], seed=5, episode="hand")
    _to_human_card_turn(session, Phase.KITTY)
    assert session.selection(0, []).needed == 8
    suggestion = session.hint(0)
    assert session.selection(0, suggestion).complete
    with pytest.raises(IllegalActionError, match="exactly 8"):
        session.submit(0, suggestion[:7])
    session.submit(0, suggestion)
    assert session.hand.phase == Phase.PLAY


def test_a_short_match_of_bots_with_replayable_logs() -> None:
    session = GameSession(["random"] * 4, seed=9, max_hands=3)
    hands = 0
    while True:
        while not session.hand_over:
            session.step_ai()
        hands += 1
        if session.match_over:
            break
        session.next_hand()
    assert hands == 3 == len(session.hand_logs)
    for log in session.hand_logs:
        assert Hand.from_log(log).result is not None
    assert session.hand_log(1) == session.hand_logs[1]
    with pytest.raises(IllegalActionError):
        session.next_hand()


def test_agents_can_be_given_directly() -> None:
    agents = [None, RandomAgent(1), RandomAgent(2), RandomAgent(3)]
    session = GameSession(["human", "random", "random", "random"], seed=2, agents=agents)
    assert session.agents[1] is agents[1]
    with pytest.raises(ValueError, match="human seat"):
        GameSession(["human"] * 4, agents=agents)


def test_default_seats_and_checkpoints(tmp_path: Path) -> None:
    assert best_checkpoint(tmp_path) is None
    assert default_ai(tmp_path) == "search"  # the strongest agent measured
    assert resolve_seats(["human", "ai", None, "greedy"], tmp_path) == ["human", "search", "search", "greedy"]
    (tmp_path / "step_100.pt").write_bytes(b"")
    (tmp_path / "best_model.pt").write_bytes(b"")
    assert best_checkpoint(tmp_path).name == "best_model.pt"
    assert default_ai(tmp_path) == "search"  # no card: a checkpoint is not known to be stronger
    card = {"evaluation": {"critic_vs_expert": {"pairs": [  # the critic built on the network: not its own figures
        {"a": "critic:checkpoints/best_model.pt", "b": "expert",
         "metrics": {"level_diff": {"value": 0.05, "low": 0.03, "high": 0.07}}}]},
        "vs_search": {"pairs": [
        {"a": "checkpoints/best_model.pt", "b": "search",
         "metrics": {"level_diff": {"value": 0.1, "low": 0.05, "high": 0.15}}}]}}}
    (tmp_path / "best_model.json").write_text(json.dumps(card))
    assert beats_in_card(tmp_path / "best_model.pt", "search")
    assert not beats_in_card(tmp_path / "best_model.pt", "expert")
    with pytest.warns(UserWarning, match="cannot load"):
        assert default_ai(tmp_path) == "search"  # the card says stronger, but the empty file does not load
    with pytest.raises(ValueError, match="4 seats"):
        resolve_seats(["human"], tmp_path)
    assert [orientation(s, 2) for s in (2, 3, 0, 1)] == ["South", "East", "North", "West"]


def test_a_decision_thought_apart_is_applied_only_while_the_turn_is_still_its_own() -> None:
    """The web server thinks in a thread, then applies: a stale decision is refused and changes nothing."""
    session = GameSession(["random"] * 4, seed=4)
    seat, decision = session.think()
    assert session.to_act == seat  # thinking applied nothing
    session.apply_ai(seat, decision)
    while session.to_act == seat and not session.hand_over:
        session.step_ai()
    log = session.hand.to_log()
    with pytest.raises(IllegalActionError, match="no longer"):
        session.apply_ai(seat, decision)
    assert session.hand.to_log() == log
