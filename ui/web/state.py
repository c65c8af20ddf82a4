"""The JSON a browser receives: one seat's view of a :class:`ui.session.GameSession`.

A player's state holds their own cards only; the other seats show how many
cards they hold. A spectator of a game without people (watch mode) sees every
hand. Cards are ``{"c": "SA", "t": true}`` objects: the ASCII name and whether
the card is trump, in the order the hand is shown (trump first, strongest first); in the hand of a seat
about to bury, ``"k": true`` marks the cards it took up from the kitty.

``decision`` names what the player is asked (``bid``, ``bury``, ``play``, ...;
刮风 adds ``fix`` and ``give_back``); a 刮风 game's state has a ``guafeng``
object with the public fixing (shown jokers, base sizes, who ate whom), the
stage team, the kitty taker and the 回牌 asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from env.core.cards import CARD_NAMES
from env.core.hand_base import team_of
from env.core.layout import DealLayout
from ui.seats import display_name, orientation
from ui.session import GameSession, Selection

CARD_DECISIONS = ("bury", "tribute", "return", "give_back", "play")
"""Decisions taken by selecting cards; a complete selection is sent as the message of that name."""

POSITIONS = ("south", "east", "north", "west")
RECENT_MESSAGES = 8


def cards_json(session: GameSession, kinds: Iterable[int]) -> list[dict[str, Any]]:
    """Cards in display order as ``{"c": name, "t": is_trump}``."""
    ctx = session.display_context()
    return [{"c": CARD_NAMES[k], "t": bool(ctx.is_trump[k])} for k in session.in_display_order(kinds)]


def hand_json(session: GameSession, seat: int, decision: str | None) -> list[dict[str, Any]]:
    """A seat's hand (:func:`cards_json`); before its burial the cards it took up from the kitty carry
    ``"k": true`` (as many copies of a card as came from the kitty)."""
    cards = cards_json(session, session.hand.hand_cards(seat))
    taken = Counter(session.kitty_received(seat) if decision == "bury" else ())
    for card in cards:
        kind = CARD_NAMES.index(card["c"])
        if taken[kind]:
            taken[kind] -= 1
            card["k"] = True
    return cards


def _trick_json(session: GameSession, leader: int, plays: Iterable[Iterable[int]]) -> list[dict[str, Any]]:
    return [{"seat": (leader + i) % 4, "cards": cards_json(session, play)} for i, play in enumerate(plays)]


def _seats_json(session: GameSession, perspective: int, viewer: int | None) -> list[dict[str, Any]]:
    hand = session.hand

    return [{"seat": seat, "label": session.label_for(viewer, seat), "name": display_name(spec),
             "human": spec == "human", "cards": hand.hand_sizes[seat], "team": team_of(seat),
             "position": POSITIONS[(seat - perspective) % 4], "compass": orientation(seat, perspective),
             "dealer": hand.dealer == seat}
            for seat, spec in enumerate(session.seats)]


def _layout_json(session: GameSession, layout: DealLayout) -> dict[str, int]:
    """What the page draws by: the decks, cards per hand, the kitty, the number of tricks, the points of all
    the cards (never the deck itself)."""
    return {"players": layout.players, "decks": layout.decks, "hand_size": layout.hand_size,
            "kitty_size": layout.kitty_size, "num_tricks": layout.num_tricks, "points": session.deck_points()}


def _result_json(session: GameSession) -> dict[str, Any] | None:
    result = session.hand.result
    if result is None:
        return None
    return {"defender_points": result.defender_points, "trick_points": result.trick_points,
            "kitty": cards_json(session, session.hand.kitty), "kitty_points": result.kitty_points,
            "kitty_multiplier": result.kitty_multiplier, "kitty_bonus": result.kitty_bonus,
            "winner": result.winner, "levels": result.levels, "next_dealer": result.next_dealer,
            "summary": session.score_text(session.seat_label), "kitty_text": session.kitty_text(session.seat_label)}


def state_json(game_id: str, session: GameSession, seat: int | None, selection: Selection | None,
               auto: bool = False, version: int = 0) -> dict[str, Any]:
    """The state message for a viewer (``seat`` ``None``: a spectator)."""
    hand = session.hand
    perspective = session.perspective if seat is None else seat
    see_all = not session.humans
    your_turn = seat is not None and session.to_act == seat and session.is_human(seat)
    decision = session.decision(seat) if your_turn else None
    state: dict[str, Any] = {
        "type": "state", "game": game_id, "version": version, "you": seat, "watch": see_all, "auto": auto,
        "phase": hand.phase.value, "to_act": session.to_act, "your_turn": your_turn, "decision": decision,
        "rules": session.ruleset.name,
        "hand_number": session.hand_number, "seats": _seats_json(session, perspective, seat),
        "dealer": hand.dealer, "level": hand.level, "team_levels": list(session.match.team_levels),
        "hand_team_levels": list(hand.team_levels),
        "trump": session.trump_text(), "trump_suit": session.trump_suit_letter(),
        "defender_points": hand.defender_points, "team_points": list(hand.trick_points),
        "layout": _layout_json(session, hand.ruleset.layout), "rules_text": session.rules_text(),
        "decks_text": session.decks_text(),
        "trick_number": len(hand.tricks) + 1, "episode": session.episode,
        "trick_total": None,  # a hand's tricks are as many as its plays need (multi-card leads end it early)
        "tricks_played": len(hand.tricks),
        "trick": _trick_json(session, hand.leader, hand.trick_plays) if hand.in_play else [],
        "last_trick": None, "messages": session.messages_for(seat)[-RECENT_MESSAGES:],
        "hand": hand_json(session, seat, decision) if seat is not None else [],
        "hands": {str(s): cards_json(session, hand.hand_cards(s)) for s in range(4)} if see_all else {},
        "bid_options": [], "standing_bid": None, "selection": None,
        "result": _result_json(session), "logs": len(session.hand_logs),
        "my_kitty": None if (kitty := session.kitty_of(seat)) is None else cards_json(session, kitty),
        "match": {"hands_played": session.match.hands_played, "winner": session.match.winner,
                  "over": session.match_over},
    }
    state["tricks"] = [{"number": number, "leader": trick.leader, "winner": trick.winner, "points": trick.points,
                        "plays": _trick_json(session, trick.leader, trick.plays)}
                       for number, trick in enumerate(hand.tricks, start=1)]  # public: every card was shown
    if hand.tricks:
        last = hand.tricks[-1]
        state["last_trick"] = {"plays": _trick_json(session, last.leader, last.plays), "winner": last.winner,
                               "points": last.points}
    state.update(session.rule_state(seat, decision))
    if decision in CARD_DECISIONS and selection is not None:
        state["selection"] = {"cards": [CARD_NAMES[k] for k in selection.cards],
                              "addable": [CARD_NAMES[k] for k in selection.addable],
                              "complete": selection.complete, "needed": selection.needed,
                              "action": decision, "note": selection.note}
    return state
