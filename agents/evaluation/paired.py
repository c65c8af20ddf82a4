"""The difference between two evaluations on the same deals, paired deal by deal.

Two runs of ``evaluate.py`` that put two versions of an agent (a search with
and without the re-check, say) against the same opponent on the same deal
set give each deal two results. Their difference, taken deal by deal, removes
the luck of the deal that both runs share, so the interval of a component's
contribution is much narrower than the two runs' intervals side by side, at
no extra games. Deal ``i`` depends only on the seed and ``i``, so runs of
different lengths are compared on the deals both played.

    python -m agents.evaluation.paired outputs/evaluate/A/results.json outputs/evaluate/B/results.json

Runs that do not share the opponent, the deal seed, the deal file, the rules
or the mode are refused with the setting named.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.evaluation.stats import Estimate, ratio_ci

SHARED_SETTINGS = ("seed", "mode", "dealer", "rules", "deals_file")
"""What two runs must agree on for their deals to be the same deals."""


@dataclass(frozen=True)
class PairedDifference:
    """``a - b`` in levels per hand against the same opponent, over the deals both runs played."""

    a: str
    b: str
    opponent: str
    difference: Estimate
    a_value: Estimate
    b_value: Estimate
    search_changes: dict[str, tuple[Any, Any]]
    """The search options the runs differ in (``{name: (a's, b's)}``), when A is a search."""


def load_run(path: str | Path) -> dict[str, Any]:
    """A ``results.json`` of ``evaluate.py`` (one pair of participants, hands or matches)."""
    try:
        run = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read evaluation results {path}: {error}") from error
    if not isinstance(run, dict) or not run.get("pairs") or "per_deal_level_change" not in run["pairs"][0]:
        raise ValueError(f"{path} holds no per-deal results of evaluate.py")
    if len(run["pairs"]) != 1:
        raise ValueError(f"{path} holds {len(run['pairs'])} pairs; compare runs of one pair each")
    return run


def paired_difference(run_a: dict[str, Any], run_b: dict[str, Any]) -> PairedDifference:
    """The deal-by-deal difference of two runs' first participants against their shared opponent."""
    config_a, config_b = run_a.get("config", {}), run_b.get("config", {})
    for name in SHARED_SETTINGS:
        if config_a.get(name) != config_b.get(name):
            raise ValueError(f"the runs were not played on the same deals: {name} differs "
                             f"({config_a.get(name)!r} vs {config_b.get(name)!r})")
    pair_a, pair_b = run_a["pairs"][0], run_b["pairs"][0]
    if pair_a["b"] != pair_b["b"]:
        raise ValueError(f"the runs' opponents differ: {pair_a['b']!r} vs {pair_b['b']!r}")
    deals_a, deals_b = pair_a["per_deal_level_change"], pair_b["per_deal_level_change"]
    n = min(len(deals_a), len(deals_b))
    if n < 2:
        raise ValueError(f"the runs share {n} deal(s); an interval needs two")
    per_a = [sum(games) / len(games) for games in deals_a[:n]]
    per_b = [sum(games) / len(games) for games in deals_b[:n]]
    search_a, search_b = config_a.get("search") or {}, config_b.get("search") or {}
    changes = {k: (search_a.get(k), search_b.get(k)) for k in sorted(set(search_a) | set(search_b))
               if search_a.get(k) != search_b.get(k)}
    return PairedDifference(a=pair_a["a"], b=pair_b["a"], opponent=pair_a["b"],
                            difference=ratio_ci([x - y for x, y in zip(per_a, per_b)]),
                            a_value=ratio_ci(per_a), b_value=ratio_ci(per_b), search_changes=changes)


def _interval(e: Estimate) -> str:
    return f"{e.value:+.3f} [{e.low:+.3f}, {e.high:+.3f}]"


def main(argv: list[str] | None = None) -> int:
    """Print the paired difference of two ``results.json`` files (exit status 2 on bad input)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="results.json of the first run (its first participant is A)")
    parser.add_argument("b", help="results.json of the second run, on the same deals against the same opponent")
    args = parser.parse_args(argv)
    try:
        result = paired_difference(load_run(args.a), load_run(args.b))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    n = result.difference.n
    print(f"against {result.opponent}, {n} shared deals, levels per hand [95% CI]:")
    print(f"  A {result.a}: {_interval(result.a_value)}")
    print(f"  B {result.b}: {_interval(result.b_value)}")
    print(f"  A - B (paired by deal): {_interval(result.difference)}")
    for name, (a, b) in result.search_changes.items():
        print(f"  search.{name}: A {a!r}, B {b!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
