"""The record of a match for the user interfaces: the score history and the replay of a finished hand.

Both are read from the session's hand logs (:attr:`ui.session.GameSession.hand_logs`), so a game
reopened from its store has the same record as one played through. A finished hand is rebuilt from
its log by the rule set's own hand class (``hand_class.from_log``), and it is named in the session's
words (trump, card order) through a shallow copy of the session that sees that hand: the words come
from the rule set's session as in play, never from a second copy of them here.

* :meth:`MatchRecord.scores`: one row per finished hand: the hand's number, the dealer, the trump,
  the level played, the defenders' points, who won and how many levels, the team levels before and
  after (the match's history).
* :meth:`MatchRecord.replay`: one finished hand trick by trick: the leader, every seat's play, the
  winner and the points, every seat's cards before the trick, the running points, the kitty.
* :func:`kitty_taken_up`: the standard game's kitty cards in the hand of the seat about to bury.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from env.core.cards import CARD_NAMES, parse_cards
from env.standard.hand import Phase

if TYPE_CHECKING:  # the session reads kitty_taken_up from here
    from ui.session import GameSession

Cards = list[dict[str, Any]]


def kitty_taken_up(hand: Any, seat: int) -> list[int]:
    """The cards ``seat`` took up from the kitty before its burial (standard game, RULES.md 5 and 9): the
    deal's last cards (the public shuffle event and the layout), or the burial it took up by a 炒地皮 bid
    (the hand's logged decisions); empty when ``seat`` is not about to bury."""
    if hand.phase != Phase.KITTY or hand.current_player != seat:
        return []
    burials = [d for d in hand.decisions if d["action"] == "bury"]
    if burials:  # a 炒地皮 bidder takes up the cards buried last
        return list(parse_cards(burials[-1]["cards"]))
    shuffle = [e for e in hand.events if e["type"] == "shuffle"][-1]  # the last deal (after a redeal)
    return list(parse_cards(shuffle["deck"][hand.ruleset.layout.dealt_cards:]))


class MatchRecord:
    """The finished hands of one session, rebuilt once each from its log and kept (logs never change)."""

    def __init__(self, session: GameSession):
        self.session = session
        self._hands: list[Any] = []
        self._scores: list[dict[str, Any]] = []

    def _hand(self, number: int) -> Any:
        """Finished hand ``number`` (1-based), rebuilt from its log."""
        logs = self.session.hand_logs
        while len(self._hands) < min(number, len(logs)):
            log = logs[len(self._hands)]
            self._hands.append(self.session.ruleset.hand_class.from_log(log))
        if not 1 <= number <= len(self._hands):
            raise KeyError(f"no finished hand {number}: {len(logs)} finished")
        return self._hands[number - 1]

    def _words(self, hand: Any) -> GameSession:
        """The session as it spoke during ``hand``: a shallow copy whose current hand is that one."""
        seeing = copy.copy(self.session)
        seeing.hand = hand
        return seeing

    # ------------------------------------------------------------------ the score history
    def scores(self) -> list[dict[str, Any]]:
        """One row per finished hand (see the module docstring); seats as numbers, levels as the rules name them."""
        history = self.session.match.history
        while len(self._scores) < min(len(self.session.hand_logs), len(history)):
            number = len(self._scores) + 1
            hand, after = self._hand(number), history[number - 1]
            result = hand.result
            self._scores.append({
                "hand": number, "dealer": hand.dealer, "level": hand.level, "trump": self._words(hand).trump_text(),
                "defender_points": result.defender_points, "winner": result.winner, "levels": result.levels,
                "team_levels_before": list(hand.team_levels), "team_levels_after": list(after["team_levels"])})
        return [dict(row) for row in self._scores]

    def score_lines(self, label: Callable[[int], str]) -> list[str]:
        """The score history as the terminal's ``scores`` prints it, one line a hand."""
        lines = []
        for row in self.scores():
            won = f"{row['winner']} +{row['levels']}" if row["levels"] else f"{row['winner']} take the deal"
            before, after = "/".join(row["team_levels_before"]), "/".join(row["team_levels_after"])
            lines.append(f"Hand {row['hand']}: dealer {label(row['dealer'])}, trump {row['trump']}, level "
                         f"{row['level']}; defenders {row['defender_points']} points; {won}; levels {before} → {after}")
        return lines

    # ------------------------------------------------------------------ the replay of a hand
    def replay(self, number: int) -> dict[str, Any]:
        """Finished hand ``number`` trick by trick (every card: the hand is over and its log shows them all).

        ``tricks[i]`` holds ``leader``, ``winner``, ``points``, ``plays`` (``{"seat", "cards"}`` from the
        leader), ``held`` (each seat's cards before the trick, by seat) and ``defender_points`` (the
        defenders' trick points once it is won).
        """
        hand = self._hand(number)
        words = self._words(hand)
        ctx = words.display_context()

        def cards(kinds: Iterable[int]) -> Cards:
            return [{"c": CARD_NAMES[k], "t": bool(ctx.is_trump[k])} for k in words.in_display_order(kinds)]

        defenders = [seat for seat in range(4) if (seat - hand.dealer) % 2]
        remaining = [[] for _ in range(4)]  # a seat's cards before trick i: what it plays from trick i on
        for trick in hand.tricks:
            for i, play in enumerate(trick.plays):
                remaining[(trick.leader + i) % 4].extend(play)
        tricks, points = [], 0
        for number_in_hand, trick in enumerate(hand.tricks, start=1):
            held = {str(seat): cards(remaining[seat]) for seat in range(4)}
            for i, play in enumerate(trick.plays):
                seat = (trick.leader + i) % 4
                for k in play:
                    remaining[seat].remove(k)
            points += trick.points if trick.winner in defenders else 0
            tricks.append({"number": number_in_hand, "leader": trick.leader, "winner": trick.winner,
                           "points": trick.points, "defender_points": points, "held": held,
                           "plays": [{"seat": (trick.leader + i) % 4, "cards": cards(play)}
                                     for i, play in enumerate(trick.plays)]})
        result = hand.result
        burier = hand.dealer if hand.buried_by is None else hand.buried_by
        return {"hand": number, "dealer": hand.dealer, "level": hand.level, "trump": words.trump_text(),
                "kitty": cards(hand.kitty), "buried_by": burier, "tricks": tricks,
                "result": {"defender_points": result.defender_points, "winner": result.winner,
                           "levels": result.levels, "kitty_bonus": result.kitty_bonus}}
