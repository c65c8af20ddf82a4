"""Rule variants: one frozen dataclass of options, named as in RULES.md.

Every field is a ``code`` name of RULES.md; the defaults are the ones RULES.md
marks. Validation happens on construction so a bad config fails early with a
message that names the option.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from itertools import pairwise
from typing import Any

from env.core.cards import RANKS, normalize_rank

FULL_LEVEL_SEQUENCE: tuple[str, ...] = tuple(RANKS)

_CHOICES = {
    "big_joker_pair": ("no_trump", "master"),
    "no_bid": ("turn_kitty", "redeal"),
    "kitty_multiplier": ("exponential", "linear"),
    "takeover": ("plain", "plus_one"),
    "win": ("defend_A", "reach_A"),
}

_OFF_BY_DEFAULT = ("chaodipi", "tribute")
"""Options written by :meth:`RuleOptions.to_dict` only when on (added after logs were recorded)."""

DECK_COUNTS = (1, 2, 3, 4)
"""The deck counts of RULES.md 11."""

DEFAULT_KITTY = {1: 6, 2: 8, 3: 6, 4: 8}
"""The kitty size of each deck count (RULES.md 11's table)."""

CARDS_PER_DECK = 54


@dataclass(frozen=True)
class RuleOptions:
    """The rule variants of one game (RULES.md `code` names, defaults marked there).

    Attributes:
        constant_twos: 2s are permanent trumps just below the level cards; levels start at 3.
        level_sequence: the levels a team climbs; ``None`` means 2..A (3..A with
            ``constant_twos``); ``("5", "T", "K")`` is the 5/10/K room.
        tractor_skips_level: pairs on either side of the level rank form a tractor.
        big_joker_pair: ``"no_trump"`` or ``"master"`` (two BJ bid: only jokers are trump).
        no_bid: ``"turn_kitty"`` (turn a kitty card for trump) or ``"redeal"``.
        throw_penalty: points charged to the thrower's team per card taken back.
        kitty_multiplier: ``"exponential"`` (2**cards) or ``"linear"`` (2, 4, 8).
        takeover: ``"plain"`` (80 gives +0) or ``"plus_one"`` (80 gives +1).
        threshold: defender points needed to take over; ``None`` means 40 per deck (80 with two).
        step: points per level step of the scoring table; ``None`` means 20 per deck (40 with two).
        win: ``"defend_A"`` (hold as dealers at A) or ``"reach_A"`` (reach A).
        chaodipi: 炒地皮, a re-bidding round for the kitty after the burial (RULES.md 9).
        tribute: 进贡, a hand after a 大光 (dealers held with P <= 0) starts with a tribute
            of each defender's highest card to the dealer (RULES.md 9).
        decks: how many 54-card decks are dealt, 1..4 (RULES.md 11).
        kitty_size: cards in the kitty; ``None`` means RULES.md 11's table (6, 8, 6, 8).

    The two options of RULES.md 9 are left out of :meth:`to_dict` while off, and
    ``decks`` and ``kitty_size`` while they are the two-deck game's, so the
    standard game's options (and the logs that hold them) read as before.
    """

    constant_twos: bool = False
    level_sequence: tuple[str, ...] | None = None
    tractor_skips_level: bool = True
    big_joker_pair: str = "no_trump"
    no_bid: str = "turn_kitty"
    throw_penalty: int = 0
    kitty_multiplier: str = "exponential"
    takeover: str = "plain"
    threshold: int | None = None
    step: int | None = None
    win: str = "defend_A"
    chaodipi: bool = False
    tribute: bool = False
    decks: int = 2
    kitty_size: int | None = None
    levels: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"rule option {name}={value!r} is not one of {allowed}")
        for name in ("constant_twos", "tractor_skips_level", "chaodipi", "tribute"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"rule option {name} must be a bool, got {getattr(self, name)!r}")
        self._resolve_layout()
        for name in ("throw_penalty", "threshold", "step"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"rule option {name} must be a non-negative int, got {value!r}")
        if self.step == 0 or self.threshold == 0:
            raise ValueError("rule options threshold and step must be positive")
        if self.level_sequence is None:
            levels = FULL_LEVEL_SEQUENCE[1:] if self.constant_twos else FULL_LEVEL_SEQUENCE
        else:
            try:
                levels = tuple(normalize_rank(r) for r in self.level_sequence)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"rule option level_sequence={self.level_sequence!r}: {exc}") from None
            if not levels or len(set(levels)) != len(levels):
                raise ValueError(f"rule option level_sequence must be distinct ranks, got {self.level_sequence!r}")
            if any(RANKS.index(a) >= RANKS.index(b) for a, b in pairwise(levels)):
                raise ValueError(f"rule option level_sequence must be increasing, got {self.level_sequence!r}")
            if self.constant_twos and "2" in levels:
                raise ValueError("level_sequence cannot contain 2 when constant_twos is on")
            levels = tuple(levels)
            object.__setattr__(self, "level_sequence", levels)
        object.__setattr__(self, "levels", levels)

    def _resolve_layout(self) -> None:
        """Check ``decks`` and ``kitty_size``; fill ``kitty_size``, ``threshold`` and ``step`` from the deck count."""
        decks = self.decks
        if not isinstance(decks, int) or isinstance(decks, bool) or decks not in DECK_COUNTS:
            raise ValueError(f"rule option decks must be one of {DECK_COUNTS}, got {decks!r}")
        cards = CARDS_PER_DECK * decks
        kitty = self.kitty_size
        if kitty is None:
            kitty = DEFAULT_KITTY[decks]
        elif not isinstance(kitty, int) or isinstance(kitty, bool):
            raise ValueError(f"rule option kitty_size must be an int, got {kitty!r}")
        elif (cards - kitty) % 4 or not 4 <= kitty <= cards // 5:
            raise ValueError(f"rule option kitty_size={kitty} does not fit {decks} deck(s) of {cards} cards: "
                             f"it must leave a whole number of cards for each of 4 players and be 4..{cards // 5}")
        object.__setattr__(self, "kitty_size", kitty)
        for name, per_deck in (("threshold", 40), ("step", 20)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, per_deck * decks)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each of the four players."""
        return (CARDS_PER_DECK * self.decks - self.kitty_size) // 4

    @property
    def top_level(self) -> str:
        """The last level of the sequence (plays the role of A)."""
        return self.levels[-1]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the options (JSON-serialisable)."""
        data = asdict(self)
        data.pop("levels", None)
        for name in _OFF_BY_DEFAULT:
            if not data[name]:
                del data[name]
        if data["kitty_size"] == DEFAULT_KITTY[self.decks]:
            del data["kitty_size"]
        if data["decks"] == 2:
            del data["decks"]
        if data["level_sequence"] is not None:
            data["level_sequence"] = list(data["level_sequence"])
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RuleOptions:
        """Build options from a dict (e.g. a Hydra config), rejecting unknown keys."""
        data = dict(data or {})
        known = {f.name for f in fields(cls) if f.init}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule option(s) {unknown}; known: {sorted(known)}")
        if data.get("level_sequence") is not None:
            data["level_sequence"] = tuple(data["level_sequence"])
        return cls(**data)
