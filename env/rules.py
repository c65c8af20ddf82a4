"""The referee API: a contract for outside tools, strings in and plain Python values out.

Every function takes ``ruleset``, the registered name of the rule set that
answers (:mod:`env.core.registry`; default ``"standard"``), ``decks`` (1..4,
default 2; RULES.md 11: 刮风 is a two-deck game), and that rule set's options as
the other keywords. Cards beyond ``decks`` copies of a kind in one argument are
refused. The answers come from the rule set's referee
module (:attr:`~env.core.ruleset.RuleSet.referee`: :mod:`env.standard.referee`,
:mod:`env.guafeng.referee`); a question a rule set does not answer (``classify``
outside 刮风) raises ``ValueError`` naming the rule sets that do. Malformed cards,
levels, trumps and impossible plays raise ``ValueError``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType

from env.core.registry import DEFAULT, ruleset_class, ruleset_names

CardsArg = str | Sequence[str]


def _answer(question: str, ruleset: str):
    """The function of ``ruleset``'s referee that answers ``question``."""
    answer = getattr(_referee(ruleset), question, None)
    if answer is None:
        answering = [name for name in ruleset_names() if hasattr(_referee(name), question)]
        raise ValueError(f"{question} is not answered by ruleset={ruleset!r}; it is by: "
                         f"{', '.join(repr(n) for n in answering) or 'none'}")
    return answer


def _referee(ruleset: str) -> ModuleType:
    return importlib.import_module(ruleset_class(ruleset).referee)


def decompose(cards: CardsArg, *, level: str, trump: str | None, ruleset: str = DEFAULT, decks: int = 2,
              **variant) -> list[list[str]]:
    """Canonical components of ``cards`` (largest first), each listed high to low.

    Cards of several effective suits are decomposed suit by suit.
    """
    return _answer("decompose", ruleset)(cards, level=level, trump=trump, decks=decks, **variant)


def is_legal_play(hand: CardsArg, play: CardsArg, *, level: str, trump: str | None,
                  lead: CardsArg | None = None, ruleset: str = DEFAULT, decks: int = 2, **variant) -> bool:
    """Whether ``play`` from ``hand`` is legal; ``lead=None`` means the player leads.

    In the standard game a lead is legal when it is non-empty, held, and of one
    effective suit (a throw attempt is legal; whether it stands is
    :func:`resolve_throw`'s job).
    """
    return _answer("is_legal_play", ruleset)(hand, play, level=level, trump=trump, lead=lead, decks=decks, **variant)


def resolve_throw(play: CardsArg, others: Sequence[CardsArg], *, level: str, trump: str | None,
                  ruleset: str = DEFAULT, decks: int = 2, **variant) -> list[str]:
    """The cards actually led when ``play`` is attempted against the three ``others``."""
    return _answer("resolve_throw", ruleset)(play, others, level=level, trump=trump, decks=decks, **variant)


def trick_winner(plays: Sequence[CardsArg], *, level: str, trump: str | None, ruleset: str = DEFAULT,
                 decks: int = 2, **variant) -> int:
    """Index of the winning play; ``plays[0]`` is the lead."""
    return _answer("trick_winner", ruleset)(plays, level=level, trump=trump, decks=decks, **variant)


def kitty_multiplier(lead: CardsArg, *, level: str, trump: str | None, variant: str = "exponential",
                     ruleset: str = DEFAULT, decks: int = 2) -> int:
    """Kitty multiplier for the last trick's lead (what was actually led); ``variant`` is the standard
    game's ``kitty_multiplier`` option (刮风: the lead's card count, ``variant`` ignored)."""
    return _answer("kitty_multiplier", ruleset)(lead, level=level, trump=trump, variant=variant, decks=decks)


def score_hand(defender_points: int, *, takeover: str = "plain", threshold: int | None = None,
               step: int | None = None, ruleset: str = DEFAULT, decks: int = 2) -> tuple[str, int]:
    """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points; ``threshold`` and
    ``step`` default to 40 and 20 per deck (80 and 40; 刮风 ignores ``takeover``, ``threshold`` and
    ``step``, RULES-guafeng.md 9)."""
    return _answer("score_hand", ruleset)(defender_points, takeover=takeover, threshold=threshold, step=step,
                                          decks=decks)


def classify(cards: CardsArg, *, level: str, trump: str | None, ruleset: str = DEFAULT, decks: int = 2,
             **variant) -> str:
    """The combination of ``cards`` for a rule set that names its plays (刮风: ``"single"``, ``"pair"``,
    ``"tractor"``, ``"bomb"``, ``"run"`` or ``"invalid"``, RULES-guafeng.md 4)."""
    return _answer("classify", ruleset)(cards, level=level, trump=trump, decks=decks, **variant)


def kitty_points(kitty: CardsArg, *, ruleset: str = DEFAULT, decks: int = 2, **variant) -> int:
    """The kitty's value before the multiplier: the standard game's point cards; 刮风's V (point cards
    + 100 per ``BJ`` + 80 per ``LJ``, RULES-guafeng.md 8)."""
    return _answer("kitty_points", ruleset)(kitty, decks=decks, **variant)


def advance_level(level: str, steps: int, *, ruleset: str = DEFAULT, decks: int = 2, **variant) -> str:
    """The level ``steps`` levels up: the standard game's level table; 刮风's cycle A 2 ... K A
    (RULES-guafeng.md 2)."""
    return _answer("advance_level", ruleset)(level, steps, decks=decks, **variant)


def bid_beats(bid: CardsArg, standing: CardsArg | None, *, level: str, same_player: bool, ruleset: str = DEFAULT,
              decks: int = 2) -> bool:
    """Whether ``bid`` (the cards shown, e.g. ``"H2 H2 H2"``) stands over the bid ``standing`` (``None``
    when none stands yet); ``same_player``: the bidder's own bid stands, so only a reinforcement with
    more copies of the same card counts (RULES.md 4 and 11). Cards that make no bid raise ``ValueError``."""
    return _answer("bid_beats", ruleset)(bid, standing, level=level, same_player=same_player, decks=decks)
