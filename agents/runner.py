"""Play hands and matches between four agents directly on the engine."""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Agent
from env.guafeng.match import GuafengMatch
from env.standard.hand import Hand, Phase
from env.standard.match import Match
from env.standard.view import view_of


def play_hand(hand: Hand, agents: Sequence[Agent]) -> Hand:
    """Run ``hand`` to its end, asking ``agents[seat]`` for every decision."""
    if len(agents) != 4:
        raise ValueError(f"a hand needs 4 agents, got {len(agents)}")
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        hand.act(seat, agents[seat].act(view_of(hand, seat)))
    return hand


def play_match(match: Match | GuafengMatch, agents: Sequence[Agent]) -> Match | GuafengMatch:
    """Play hands of ``match`` until it is finished: a team won or the hand limit (standard), or all
    ``match_hands`` hands (刮风's :class:`~env.guafeng.match.GuafengMatch`)."""
    while not match.finished:
        match.record(play_hand(match.new_hand(), agents))
    return match
