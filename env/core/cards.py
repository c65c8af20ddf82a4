"""Card kinds, the two-deck table, the ASCII notation and card points.

A card is identified by its *kind*, an integer in ``0..53``: ``suit * 13 + rank``
for the 52 suited kinds (suits ``S H C D`` = 0..3, ranks ``2..A`` = 0..12), then
``LJ`` = 52 (little joker, 小王) and ``BJ`` = 53 (big joker, 大王). Two decks hold
each kind twice, so a hand is best kept as a count vector over the 54 kinds.

The notation (RULES.md section 1) is a suit letter followed by a rank, e.g.
``SA``, ``HT``, ``D2``, plus ``LJ`` and ``BJ``. On input ``10`` is accepted for
``T`` and the Unicode suits ``♠ ♥ ♣ ♦`` (and their hollow forms) for the letters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SUITS = "SHCD"
RANKS = "23456789TJQKA"
NUM_SUITS = 4
NUM_RANKS = 13
LITTLE_JOKER = 52
BIG_JOKER = 53
NUM_KINDS = 54
COPIES_PER_KIND = 2
DECK_SIZE = NUM_KINDS * COPIES_PER_KIND
TOTAL_POINTS = 200

RANK_FIVE = RANKS.index("5")
RANK_TEN = RANKS.index("T")
RANK_KING = RANKS.index("K")

_UNICODE_SUITS = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♣": "C", "♧": "C", "♦": "D", "♢": "D"}
_DISPLAY_SUITS = "♠♥♣♦"


def kind_of(suit: int, rank: int) -> int:
    """The kind of the suited card ``(suit, rank)``."""
    return suit * NUM_RANKS + rank


def suit_of(kind: int) -> int | None:
    """Printed suit (0..3) of a kind, ``None`` for a joker."""
    return None if kind >= LITTLE_JOKER else kind // NUM_RANKS


def rank_of(kind: int) -> int | None:
    """Printed rank (0..12 for 2..A) of a kind, ``None`` for a joker."""
    return None if kind >= LITTLE_JOKER else kind % NUM_RANKS


def _card_points(kind: int) -> int:
    rank = rank_of(kind)
    if rank == RANK_FIVE:
        return 5
    if rank in (RANK_TEN, RANK_KING):
        return 10
    return 0


POINTS: tuple[int, ...] = tuple(_card_points(k) for k in range(NUM_KINDS))
"""Points of each kind: 5s are worth 5, tens and kings 10, everything else 0."""

CARD_NAMES: tuple[str, ...] = tuple(
    [SUITS[k // NUM_RANKS] + RANKS[k % NUM_RANKS] for k in range(52)] + ["LJ", "BJ"]
)
_NAME_TO_KIND = {name: kind for kind, name in enumerate(CARD_NAMES)}


def parse_card(token: str) -> int:
    """Parse one card token (``"SA"``, ``"H10"``, ``"♠A"``, ``"bj"``) into its kind.

    Raises ``ValueError`` naming the token when it is not a card.
    """
    if not isinstance(token, str):
        raise ValueError(f"card token must be a string, got {token!r}")
    text = token.strip().upper()
    if text and text[0] in _UNICODE_SUITS:
        text = _UNICODE_SUITS[text[0]] + text[1:]
    if len(text) == 3 and text[1:] == "10":
        text = text[0] + "T"
    kind = _NAME_TO_KIND.get(text)
    if kind is None:
        raise ValueError(f"malformed card token {token!r}: expected e.g. 'SA', 'HT', 'D2', 'LJ', 'BJ'")
    return kind


def parse_cards(cards: str | Iterable[str] | Iterable[int]) -> list[int]:
    """Parse a space-separated string or a list of tokens into a list of kinds.

    A list of ints is validated and returned as a list. The empty string gives [].
    """
    if isinstance(cards, str):
        tokens: Iterable = cards.replace(",", " ").split()
    else:
        tokens = cards
    kinds = []
    for token in tokens:
        if isinstance(token, int) and not isinstance(token, bool):
            if not 0 <= token < NUM_KINDS:
                raise ValueError(f"card kind {token} out of range 0..{NUM_KINDS - 1}")
            kinds.append(token)
        else:
            kinds.append(parse_card(token))
    return kinds


def format_cards(kinds: Iterable[int]) -> str:
    """Space-separated ASCII names of kinds, in the given order."""
    return " ".join(CARD_NAMES[k] for k in kinds)


def card_list(kinds: Iterable[int]) -> list[str]:
    """ASCII names of kinds as a list of strings (the referee API's return form)."""
    return [CARD_NAMES[k] for k in kinds]


def display_card(kind: int) -> str:
    """Unicode display form of a kind, e.g. ``"♠A"``, ``"♥10"``."""
    if kind == LITTLE_JOKER:
        return "LJ"
    if kind == BIG_JOKER:
        return "BJ"
    rank = RANKS[kind % NUM_RANKS]
    return _DISPLAY_SUITS[kind // NUM_RANKS] + ("10" if rank == "T" else rank)


def two_decks() -> list[int]:
    """The 108 cards of two decks, as kinds in kind order."""
    return [k for k in range(NUM_KINDS) for _ in range(COPIES_PER_KIND)]


def counts_of(kinds: Iterable[int]) -> list[int]:
    """Count vector over the 54 kinds of a collection of cards."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def kinds_of(counts: Sequence[int]) -> list[int]:
    """Expand a count vector back into a sorted list of kinds."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def points_of(kinds: Iterable[int]) -> int:
    """Total points of a collection of cards."""
    return sum(POINTS[k] for k in kinds)


def normalize_rank(rank: str | int) -> str:
    """Normalize a level rank given as ``"2"``..``"A"``, ``"10"`` or an int 2..10."""
    text = str(rank).strip().upper()
    if text == "10":
        text = "T"
    if text not in RANKS:
        raise ValueError(f"malformed level rank {rank!r}: expected one of 2..9, T (or 10), J, Q, K, A")
    return text
