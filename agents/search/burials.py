"""Candidate burials (扣底) for the search: the prior's, then whole plans of which suits to void.

A burial is one decision of eight cards (the layout's kitty size) and a plan:
emptying a short plain suit lets the dealer ruff it from the first trick, and
the points buried are paid back multiplied when the defenders take the last
trick (RULES.md 7). Cards picked one at a time by a network, or nearly the
expert's cards, keep a plan's cost without its gain (benchmarks/RESULTS.md,
"Where the network loses its levels"), so the search compares whole burials:

1. the prior's burial (the one kept unless another is measured better);
2. the expert's plans (:func:`agents.bots.expert_setup.burial_plans`): every set
   of short plain suits voided, the rest filled with the cheapest cards,
   cheapest plan first;
3. the same plans with points priced high (:data:`POINT_SHY_WEIGHT`), which
   keep the 5s, 10s and Ks in hand where other cards can fill the kitty;
4. the same plans with points free (:data:`POINT_FREE_WEIGHT`), which bury
   them before low cards of long suits.

Burials are sorted tuples of kinds, as the search's plays are.
"""

from __future__ import annotations

from agents.bots.expert_setup import POINT_WEIGHT, burial_plans
from env.standard.view import PlayerView

POINT_SHY_WEIGHT = 10.0
"""The price of a buried point in the point-shy plans (the expert's own is 2)."""
POINT_FREE_WEIGHT = 0.0
"""The price of a buried point in the point-free plans."""


def burial_candidates(view: PlayerView, prior: tuple[int, ...], limit: int) -> list[tuple[int, ...]]:
    """Up to ``limit`` distinct whole burials, the prior's (sorted kinds) first, then the plans."""
    found = [tuple(sorted(prior))]
    for weight in (POINT_WEIGHT, POINT_SHY_WEIGHT, POINT_FREE_WEIGHT):
        for _, cards in burial_plans(view, weight):
            burial = tuple(sorted(cards))
            if burial not in found:
                found.append(burial)
    return found[:max(1, limit)]
