"""Play hands and matches between four agents directly on the engine."""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Agent
from env.game import Hand, Phase
from env.match import Match
from env.view import view_of


def play_hand(hand: Hand, agents: Sequence[Agent]) -> Hand:
    """Run ``hand`` to its end, asking ``agents[seat]`` for every decision."""
    if len(agents) != 4:
        raise ValueError(f"a hand needs 4 agents, got {len(agents)}")
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    return hand


def play_match(match: Match, agents: Sequence[Agent]) -> Match:
    """Play hands of ``match`` until a team wins (or its hand limit)."""
    while match.winner is None and match.hands_played < match.max_hands:
        match.record(play_hand(match.new_hand(), agents))
    return match
