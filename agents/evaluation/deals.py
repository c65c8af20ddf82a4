"""The fixed evaluation deals: seeded once, saved to JSON, checked against the engine's shuffle.

A deal is a hand seed for :meth:`env.standard.hand.Hand.new` plus the dealer seat and
the level rank it is played at. Deal ``i`` depends only on the master seed and
``i`` (a hash), so any prefix of a deal set is the same set, and a saved file
can be extended without changing the deals it holds.

Choices (documented in ``conf/evaluate.yaml``):

* dealer: ``rotate`` (default) fixes the dealer to seat ``i % 4``, so in the
  two swapped games of a deal each participant is dealer once and defender
  once; ``bid`` plays first hands (``dealer=None``): the bidding decides the
  dealer (抢庄), which also measures bidding but makes "as dealer" counts uneven.
* level: drawn uniformly from the level sequence, so the bots meet every level
  rank they will meet in a match (team levels are both the hand's level).

Each saved deal carries a digest of its shuffled deck; playing a deal whose
digest no longer matches (the engine's shuffle changed) raises, rather than
silently comparing numbers across different deal sets.

刮风 (``ruleset: guafeng``): the fixing happens during the deal, so a deal is
again a seeded shuffle of the 108 cards (:meth:`GuafengHand.new
<env.guafeng.hand.GuafengHand.new>`) with the planned stage team's dealer seat
(``rotate``: seat ``i % 4``; a hand without a fix steps down to the next seat)
and a level drawn from the cycle A..K, both teams at that level. Its deal file
says ``"ruleset": "guafeng"`` and is kept apart from the standard game's
(:func:`default_deals_file`).

Decks (RULES.md 11): a deal set of another deck count than two is another set
(other cards, other digests). Its file name and header carry the deck count
(``data/eval_deals_decks3_seed0.json``, ``"decks": 3``); a two-deck set's carry
none, as before, and a file of another deck count is refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from env.core.registry import DEFAULT, ruleset_from_config
from env.core.ruleset import RuleSet

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Deal:
    """One evaluation deal: index, hand seed, dealer seat (``rotate`` mode), level, deck digest."""

    index: int
    hand_seed: int
    dealer: int
    level: str
    deck_digest: str


def deck_digest(deck: list[str]) -> str:
    """Short digest of a shuffled deck (card names in deal order)."""
    return hashlib.sha256(" ".join(deck).encode()).hexdigest()[:16]


TWO_DECKS = 2
"""The deck count whose deal files carry none in their name and header (they predate RULES.md 11)."""


def deals_tag(ruleset: RuleSet | str | None = None) -> str:
    """How a deal set's file is named after its rules: the rule set's
    :attr:`~env.core.ruleset.RuleSet.file_tag` and, for other than two decks, ``decks<d>``
    (``"guafeng"``, ``"decks3"``; ``""`` for the standard two-deck game)."""
    rules = ruleset_from_config(ruleset)
    parts = [rules.file_tag] if rules.file_tag else []
    if rules.layout.decks != TWO_DECKS:
        parts.append(f"decks{rules.layout.decks}")
    return "_".join(parts)


def default_deals_file(seed: int, ruleset: RuleSet | str | None = None) -> str:
    """The saved deal set of a rule set, relative to the repository root: ``data/eval_deals_<tag>_seed<seed>.json``
    for its :func:`deals_tag` (``data/eval_deals_seed<seed>.json`` without one: the standard two-deck game's;
    ``data/eval_deals_decks3_seed<seed>.json`` with three decks). Pass the rule set itself (not its name)
    when its options may set the deck count."""
    tag = deals_tag(ruleset)
    return f"data/eval_deals_{tag}_seed{seed}.json" if tag else f"data/eval_deals_seed{seed}.json"


def deal_hand(deal: Deal, rules: RuleSet, dealer: int | None) -> Any:
    """The hand of a deal under ``rules`` (``dealer=None``: a first hand, the bidding or first fix decides),
    both teams at the deal's level."""
    return rules.new_hand(deal.hand_seed, dealer=dealer, team_levels=(deal.level, deal.level))


def _shuffled_deck(hand) -> list[str]:
    """The deck of a hand's (first) shuffle, in deal order."""
    event = hand.events[0]
    return event["deck"] if "deck" in event else event["private"]["deck"]


def make_deal(seed: int, index: int, options: Any = None) -> Deal:
    """Deal ``index`` of the set with master ``seed`` (independent of every other deal).

    ``options``: the standard game's options or a rule set (the level is drawn from its levels).
    """
    rules = ruleset_from_config(options)
    digest = hashlib.sha256(f"shengji-eval:{seed}:{index}".encode()).digest()
    hand_seed = int.from_bytes(digest[:6], "big")
    level = rules.levels[digest[6] % len(rules.levels)]
    deal = Deal(index, hand_seed, index % 4, level, "")
    return Deal(index, hand_seed, index % 4, level, deck_digest(_shuffled_deck(deal_hand(deal, rules, index % 4))))


def _dump(seed: int, levels: list[str], deals: list[Deal], tag: str = "", decks: int = TWO_DECKS) -> str:
    """The deal file: a header, then one deal per line (readable diffs, small file)."""
    header = {"version": FORMAT_VERSION, "seed": seed, "levels": levels,
              "note": "Hand.new(hand_seed, level=level, dealer=dealer) in dealer mode 'rotate', dealer=None in 'bid'",
              "fields": [f.name for f in fields(Deal)]}
    if tag:  # a rule set with a file tag says so; the standard game's files read as before
        header["ruleset"] = tag
    if decks != TWO_DECKS:  # RULES.md 11: another deck count is another deal set
        header["decks"] = decks
    if tag or decks != TWO_DECKS:
        header["note"] = ("ruleset.new_hand(hand_seed, dealer=dealer, team_levels=(level, level)) in dealer mode "
                          "'rotate', dealer=None in 'bid'")
    head = json.dumps(header)[:-1]
    rows = ",\n".join(json.dumps(list(astuple(d))) for d in deals)
    return f'{head}, "deals": [\n{rows}\n]}}\n'


def check_deal(deal: Deal, hand: Any) -> None:
    """Raise if ``hand`` was not dealt the cards the deal set recorded."""
    digest = deck_digest(_shuffled_deck(hand))
    if digest != deal.deck_digest:
        raise RuntimeError(f"deal {deal.index} (hand seed {deal.hand_seed}) no longer deals the saved cards "
                           f"(digest {digest} != {deal.deck_digest}); regenerate the deal file")


def load_deals(path: str | Path, seed: int, num_deals: int,
               options: Any = None) -> list[Deal]:
    """The first ``num_deals`` deals of the set for ``seed``, from ``path``; created or extended if short.

    ``options``: the standard game's options or a rule set. Raises ``ValueError``
    if the file holds a set made from another seed, another rule set, another
    number of decks or other rules (a different level sequence gives different deals).
    """
    rules = ruleset_from_config(options)
    path = Path(path)
    deals: list[Deal] = []
    rules_key = list(rules.levels)
    decks = rules.layout.decks
    if path.exists():
        data = json.loads(path.read_text())
        held = data.get("decks", TWO_DECKS)
        if held != decks:
            raise ValueError(f"{path} holds deals for {held} deck(s), asked for {decks} deck(s) (rules.decks="
                             f"{decks}): use that deck count's own deal file, "
                             f"{default_deals_file(seed, rules)}, or another deals_file")
        found = (data.get("seed"), data.get("ruleset", ""), data.get("levels"))
        if data.get("version") != FORMAT_VERSION or found != (seed, rules.file_tag, rules_key):
            raise ValueError(f"{path} holds deals for seed {found[0]!r}, ruleset {found[1] or DEFAULT!r}, levels "
                             f"{found[2]!r}; asked for seed {seed}, ruleset {rules.name!r}, levels {rules_key}: "
                             "use another deals_file")
        deals = [Deal(*row) for row in data["deals"]]
    if len(deals) < num_deals:
        deals += [make_deal(seed, i, rules) for i in range(len(deals), num_deals)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(seed, rules_key, deals, rules.file_tag, decks))
    return deals[:num_deals]
