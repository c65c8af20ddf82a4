"""The fixed evaluation deals: seeded once, saved to JSON, checked against the engine's shuffle.

A deal is a hand seed for :meth:`env.game.Hand.new` plus the dealer seat and
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
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from env.game import Hand
from env.variants import RuleOptions

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


def make_deal(seed: int, index: int, options: RuleOptions | None = None) -> Deal:
    """Deal ``index`` of the set with master ``seed`` (independent of every other deal)."""
    options = options or RuleOptions()
    digest = hashlib.sha256(f"shengji-eval:{seed}:{index}".encode()).digest()
    hand_seed = int.from_bytes(digest[:6], "big")
    level = options.levels[digest[6] % len(options.levels)]
    hand = Hand.new(hand_seed, options, level=level, dealer=index % 4)
    return Deal(index, hand_seed, index % 4, level, deck_digest(hand.events[0]["deck"]))


def _dump(seed: int, levels: list[str], deals: list[Deal]) -> str:
    """The deal file: a header, then one deal per line (readable diffs, small file)."""
    header = {"version": FORMAT_VERSION, "seed": seed, "levels": levels,
              "note": "Hand.new(hand_seed, level=level, dealer=dealer) in dealer mode 'rotate', dealer=None in 'bid'",
              "fields": [f.name for f in fields(Deal)]}
    head = json.dumps(header)[:-1]
    rows = ",\n".join(json.dumps(list(astuple(d))) for d in deals)
    return f'{head}, "deals": [\n{rows}\n]}}\n'


def check_deal(deal: Deal, hand: Hand) -> None:
    """Raise if ``hand`` was not dealt the cards the deal set recorded."""
    digest = deck_digest(hand.events[0]["deck"])
    if digest != deal.deck_digest:
        raise RuntimeError(f"deal {deal.index} (hand seed {deal.hand_seed}) no longer deals the saved cards "
                           f"(digest {digest} != {deal.deck_digest}); regenerate the deal file")


def load_deals(path: str | Path, seed: int, num_deals: int, options: RuleOptions | None = None) -> list[Deal]:
    """The first ``num_deals`` deals of the set for ``seed``, from ``path``; created or extended if short.

    Raises ``ValueError`` if the file holds a set made from another seed or
    other rules (a different level sequence gives different deals).
    """
    options = options or RuleOptions()
    path = Path(path)
    deals: list[Deal] = []
    rules_key = list(options.levels)
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("version") != FORMAT_VERSION or data.get("seed") != seed or data.get("levels") != rules_key:
            raise ValueError(f"{path} holds deals for seed {data.get('seed')!r}, levels {data.get('levels')!r}; "
                             f"asked for seed {seed}, levels {rules_key}: use another deals_file")
        deals = [Deal(*row) for row in data["deals"]]
    if len(deals) < num_deals:
        deals += [make_deal(seed, i, options) for i in range(len(deals), num_deals)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(seed, rules_key, deals))
    return deals[:num_deals]
