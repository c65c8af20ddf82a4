"""Words and card order for the user interfaces: the hand's events as sentences, trump and bids as text.

Shared by the terminal and the web page so both tell the same story (the standard game's words;
a session answers for its rule set: :meth:`ui.session.GameSession.trump_text` and the like, 刮风's
from :mod:`ui.guafeng_words`). Cards
are ordered with :func:`env.standard.render.sorted_for_display` (trump first, then the
plain suits, strongest first); while the trump is still being bid, the level
cards and jokers are already grouped as trump under the standing bid's suit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from env.core.cards import SUITS, display_card
from env.core.hand_base import HandResult
from env.standard.bidding import Bid
from env.standard.hand import Hand
from env.standard.render import sorted_for_display
from env.standard.trump import TrumpContext
from ui.words import SUIT_WORDS, team_text


def display_context(hand: Hand) -> TrumpContext:
    """The trump context to sort and mark cards by, provisional while bidding."""
    if hand.ctx is not None:
        return hand.ctx
    suit = None
    if hand.standing is not None and hand.standing.bid.suit is not None:
        suit = SUITS[hand.standing.bid.suit]
    return hand.ruleset.trump_context(hand.level, suit)


def in_display_order(hand: Hand, kinds: Iterable[int]) -> list[int]:
    """Cards grouped by effective suit (trump first) and strongest first."""
    return sorted_for_display(display_context(hand), list(kinds))


def cards_text(kinds: Iterable[int]) -> str:
    """Unicode display text of cards (``♠A ♥10 BJ``), in the given order."""
    return " ".join(display_card(k) for k in kinds)


def trump_text(hand: Hand) -> str:
    """The trump in words: ``"hearts"``, ``"no trump"``, ``"jokers only"``, or the bid so far."""
    ctx = hand.ctx
    if ctx is None:
        if hand.standing is None:
            return "not yet bid"
        return f"bidding: {bid_text(hand.standing.bid)} stands"
    if ctx.jokers_only:
        return "jokers only"
    if ctx.trump_suit is None:
        return "no trump"
    return SUIT_WORDS[SUITS[ctx.trump_suit]]


def bid_text(bid: Bid) -> str:
    """A bid in words, e.g. ``"a pair of hearts"``, ``"two big jokers"``, ``"three hearts"``."""
    return _bid_words(str(bid))


_COUNTS = {"single": 1, "pair": 2, "triple": 3, "quad": 4}
_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _bid_words(text: str) -> str:
    """Words for a bid's name as the hand records it: ``"pair H"``, ``"triple S"``, ``"LJ pair"``, ``"BJ quad"``
    (RULES.md 4 and 11: m identical level cards of a suit, or m identical jokers for no trump)."""
    first, second = text.split()
    if first in ("LJ", "BJ"):
        count = _COUNTS[second]
        joker = "big" if first == "BJ" else "little"
        return f"{_NUMBER_WORDS.get(count, count)} {joker} jokers (no trump)"
    count, suit = _COUNTS[first], SUIT_WORDS[second]
    if count == 1:
        return f"one {suit[:-1]}"
    if count == 2:
        return f"a pair of {suit}"
    return f"{_NUMBER_WORDS.get(count, count)} {suit}"


def result_text(result: HandResult, dealer_team: str, defender_team: str) -> str:
    """The score of a hand in one sentence."""
    kitty = f" (kitty bonus {result.kitty_bonus})" if result.kitty_bonus else ""
    winners = dealer_team if result.winner == "dealers" else defender_team
    gain = f"go up {result.levels} level{'s' if result.levels != 1 else ''}" if result.levels else "take the deal"
    return f"Defenders took {result.defender_points} points{kitty}: {winners} {gain}."


def score_text(hand: Hand, label: Callable[[int], str]) -> str:
    """The finished hand's score in one sentence, naming the teams with ``label``."""
    dealer_team = team_text(hand.dealer, label)
    defender_team = team_text((hand.dealer + 1) % 4, label)
    return result_text(hand.result, dealer_team, defender_team)


def narrate(hand: Hand, start: int, label: Callable[[int], str]) -> list[str]:
    """Sentences for ``hand.events[start:]``; ``label(seat)`` names a seat."""
    lines = []
    for event in hand.events[start:]:
        kind = event["type"]
        if kind == "bid":
            lines.append(f"{label(event['seat'])} bid {_bid_words(event['bid'])} "
                         f"({' '.join(event['cards'])}).")
        elif kind == "redeal":
            lines.append("Nobody bid: the cards are dealt again.")
        elif kind == "kitty_turned":
            lines.append(f"Nobody bid: {label(event['dealer'])} turned {event['card']} from the kitty.")
        elif kind == "trump":
            lines.append(f"{label(event['dealer'])} deal{'' if label(event['dealer']) == 'You' else 's'}; "
                         f"trump: {trump_text(hand)}, level {hand.level}.")
        elif kind == "bury":
            lines.append(f"{label(event['seat'])} buried the kitty.")
        elif kind == "rebid":
            lines.append(f"炒地皮: {label(event['seat'])} bid {_bid_words(event['bid'])} "
                         f"({' '.join(event['cards'])}) and takes up the kitty.")
        elif kind == "tribute":
            lines.append(f"Tribute: {label(event['seat'])} gave {event['card']} to {label(event['to'])}.")
        elif kind == "tribute_return":
            lines.append(f"{label(event['seat'])} returned a card to {label(event['to'])}.")
        elif kind == "throw_failed":
            lines.append(f"{label(event['seat'])} tried to throw {' '.join(event['attempted'])} "
                         f"but must play {' '.join(event['played'])}.")
        elif kind == "trick":
            lines.append(f"{label(event['winner'])} won trick {_trick_number(hand, event)} "
                         f"(+{event['points']} points).")
        elif kind == "score" and hand.result is not None:
            lines.append(score_text(hand, label))
    return lines


def trick_lines(hand, label: Callable[[int], str], order: Callable[[Iterable[int]], list[int]]) -> list[str]:
    """The hand's finished tricks, one line each: the number, every seat's cards from the leader (in the
    display ``order`` of the table's rule set), the winner and the points (what the terminal's ``tricks``
    prints; the page draws the same record)."""
    lines = []
    for number, trick in enumerate(hand.tricks, start=1):
        plays = "; ".join(f"{label((trick.leader + i) % 4)}{' led' if i == 0 else ''} "
                          f"{cards_text(order(play))}" for i, play in enumerate(trick.plays))
        lines.append(f"Trick {number}: {plays} → won by {label(trick.winner)} (+{trick.points}).")
    return lines


def _trick_number(hand: Hand, event: dict) -> int:
    tricks = [e for e in hand.events if e["type"] == "trick"]
    return next(i for i, e in enumerate(tricks, start=1) if e is event)

