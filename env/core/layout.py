"""The deal layout: how many seats, decks, cards per hand and in the kitty.

Every size a rule set's hand, encoder and masks use derives from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from env.core.cards import NUM_KINDS


@dataclass(frozen=True)
class DealLayout:
    """How the cards are dealt: seats, decks, cards per hand and in the kitty.

    Every card is dealt: ``players * hand_size + kitty_size`` is the whole deck
    (``decks`` copies of each of the 54 kinds).
    """

    players: int
    decks: int
    hand_size: int
    kitty_size: int

    def __post_init__(self) -> None:
        for name in ("players", "decks", "hand_size", "kitty_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"deal layout {name} must be a positive int, got {value!r}")
        if self.dealt_cards + self.kitty_size != self.deck_size:
            raise ValueError(f"deal layout does not deal the whole deck: {self.players} players x "
                             f"{self.hand_size} cards + a kitty of {self.kitty_size} != {self.deck_size} cards "
                             f"of {self.decks} deck(s)")

    @property
    def deck_size(self) -> int:
        """Cards in the deck (108 for two decks)."""
        return self.decks * NUM_KINDS

    @property
    def dealt_cards(self) -> int:
        """Cards dealt to the players (the rest is the kitty)."""
        return self.players * self.hand_size

    @property
    def num_tricks(self) -> int:
        """The most tricks a hand can have: every trick takes at least one card from each hand."""
        return self.hand_size

    @property
    def most_cards_held(self) -> int:
        """The largest hand: the dealer's, with the kitty picked up before the burial."""
        return self.hand_size + self.kitty_size

    def deck(self) -> list[int]:
        """The deck as kinds in kind order, before the shuffle."""
        return [k for k in range(NUM_KINDS) for _ in range(self.decks)]

    def to_dict(self) -> dict[str, int]:
        """The layout as a plain dict (JSON-serialisable)."""
        return asdict(self)
