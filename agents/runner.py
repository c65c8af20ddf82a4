"""Play hands and matches between agents directly on the engine, under any rule set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.base import Agent


def play_hand(hand: Any, agents: Sequence[Agent]) -> Any:
    """Run ``hand`` to its end, asking ``agents[seat]`` for every decision (from the seat's view)."""
    if len(agents) != hand.num_players:
        raise ValueError(f"a hand needs {hand.num_players} agents, got {len(agents)}")
    view_of = hand.ruleset.view_of
    while not hand.finished:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    return hand


def play_match(match: Any, agents: Sequence[Agent]) -> Any:
    """Play hands of ``match`` until it is finished (its rule set says when: a team won or the hand
    limit in the standard game, all ``match_hands`` hands in 刮风)."""
    while not match.finished:
        match.record(play_hand(match.new_hand(), agents))
    return match
