"""The difference between two evaluations on the same deals, paired deal by deal, and pooled over deal seeds.

Two runs of ``evaluate.py`` that put two versions of an agent (a search with
and without the re-check, say) against the same opponent on the same deal
set give each deal two results. Their difference, taken deal by deal, removes
the luck of the deal that both runs share, so the interval of a component's
contribution is much narrower than the two runs' intervals side by side, at
no extra games. Deal ``i`` depends only on the seed and ``i``, so runs of
different lengths are compared on the deals both played.

A run is its ``results.json``, or its run directory, or its journal
(``deals.jsonl``, :mod:`agents.evaluation.journal`): a search evaluation takes
hours of a core, so the figures of a stopped run come from the deals its
journal holds, and two journals are checked to hold the same deck under each
shared deal index. Several pairs of runs, one pair per deal seed, are pooled
deal by deal: a headline confirmed on a second seed is read off both seeds'
deals at once.

    python -m agents.evaluation.paired outputs/evaluate/A/results.json outputs/evaluate/B/results.json
    python -m agents.evaluation.paired A_seed6/ B_seed6/ A_seed9/ B_seed9/      # pooled over seeds 6 and 9

Runs that do not share the opponent, the deal seed, the deal file, the rules
or the mode are refused with the setting named; so are pooled pairs of
different agents, or two pairs on the same deals.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.evaluation.duplicate import GameRecord
from agents.evaluation.journal import FORMAT as JOURNAL_FORMAT
from agents.evaluation.journal import NAME as JOURNAL
from agents.evaluation.journal import result_from_json
from agents.evaluation.stats import Estimate, ratio_ci

SHARED_SETTINGS = ("seed", "mode", "dealer", "rules", "deals_file")
"""What two runs must agree on for their deals to be the same deals."""


@dataclass(frozen=True)
class Run:
    """One evaluation of participant ``a`` against ``b``, hands mode: A's mean level change per deal, by deal index."""

    a: str
    b: str
    settings: dict[str, Any]
    """The settings of :data:`SHARED_SETTINGS` the run records (``rules`` a dict; a journal's ``deals_file`` None)."""
    search: dict[str, Any]
    per_deal: dict[int, float]
    """Deal index -> A's level change per hand, the mean of the deal's two swapped games."""
    digests: dict[int, str] = field(default_factory=dict)
    """Deal index -> deck digest (journals only): the proof that two runs played the same deck."""


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


def run_from_results(results: dict[str, Any], source: str = "results") -> Run:
    """The :class:`Run` of a ``results.json`` of ``evaluate.py`` (one pair of participants, hands mode)."""
    if not isinstance(results, dict) or not results.get("pairs") or "per_deal_level_change" not in results["pairs"][0]:
        raise ValueError(f"{source} holds no per-deal results of evaluate.py (hands mode)")
    if len(results["pairs"]) != 1:
        raise ValueError(f"{source} holds {len(results['pairs'])} pairs; compare runs of one pair each")
    config, pair = results.get("config", {}), results["pairs"][0]
    settings = {name: config.get(name) for name in SHARED_SETTINGS}
    per_deal = {i: sum(games) / len(games) for i, games in enumerate(pair["per_deal_level_change"])}
    return Run(a=pair["a"], b=pair["b"], settings=settings, search=dict(config.get("search") or {}),
               per_deal=per_deal)


def run_from_journal(path: str | Path) -> Run:
    """The :class:`Run` of an evaluation journal: the deals it holds (a stopped run's figures so far). A last
    line cut short (the run killed mid-write) is left out, as a resumed run would play it again."""
    lines = [line for line in Path(path).read_text().split("\n") if line.strip()]
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not an evaluation journal: {error}") from error
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise ValueError(f"{path} is not an evaluation journal (format {JOURNAL_FORMAT!r})")
    settings = header["settings"]
    if settings.get("mode") != "hands" or len(header["pairs"]) != 1:
        raise ValueError(f"{path}: compare journals of one pair in hands mode")
    per_deal: dict[int, float] = {}
    digests: dict[int, str] = {}
    for number, text in enumerate(lines[1:], start=2):
        try:
            line = json.loads(text)
            result = result_from_json(line)
            digest = str(line["deck_digest"])
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            if number == len(lines):
                break
            raise ValueError(f"{path}, line {number}: not a deal result ({error})") from error
        if not result.games or not all(isinstance(game, GameRecord) for game in result.games):
            raise ValueError(f"{path}, line {number}: not the hands of a deal (the header says hands mode)")
        changes = [game.a_level_change for game in result.games]
        per_deal[result.deal] = sum(changes) / len(changes)
        digests[result.deal] = digest
    a, b = header["pairs"][0]
    shared = {"seed": settings.get("seed"), "mode": settings.get("mode"), "dealer": settings.get("dealer"),
              "rules": dict(settings.get("rules") or ()), "deals_file": None}
    return Run(a=a, b=b, settings=shared, search=dict(settings.get("search") or ()), per_deal=per_deal,
               digests=digests)


def load_run(path: str | Path) -> Run:
    """A run: a ``results.json``, a journal (``deals.jsonl``) or a run directory (its journal, which holds
    every finished deal, else its ``results.json``)."""
    path = Path(path)
    if path.is_dir():
        if (path / JOURNAL).is_file():
            return run_from_journal(path / JOURNAL)
        path = path / "results.json"
    try:
        if path.suffix == ".jsonl":
            return run_from_journal(path)
        results = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read evaluation results {path}: {error}") from error
    return run_from_results(results, str(path))


def _shared_deals(run_a: Run, run_b: Run) -> list[int]:
    """The deal indices both runs played, after checking that they are the same deals."""
    for name in SHARED_SETTINGS:
        a, b = run_a.settings.get(name), run_b.settings.get(name)
        if name == "deals_file" and run_a.digests and run_b.digests:
            continue  # journals record each deal's deck instead, checked below
        if a != b:
            raise ValueError(f"the runs were not played on the same deals: {name} differs ({a!r} vs {b!r})")
    if run_a.b != run_b.b:
        raise ValueError(f"the runs' opponents differ: {run_a.b!r} vs {run_b.b!r}")
    shared = sorted(set(run_a.per_deal) & set(run_b.per_deal))
    for deal in shared:
        a, b = run_a.digests.get(deal), run_b.digests.get(deal)
        if a is not None and b is not None and a != b:
            raise ValueError(f"the runs were not played on the same deals: deal {deal} is another deck "
                             f"({a} vs {b})")
    if len(shared) < 2:
        raise ValueError(f"the runs share {len(shared)} deal(s); an interval needs two")
    return shared


def _search_changes(run_a: Run, run_b: Run) -> dict[str, tuple[Any, Any]]:
    return {k: (run_a.search.get(k), run_b.search.get(k)) for k in sorted(set(run_a.search) | set(run_b.search))
            if run_a.search.get(k) != run_b.search.get(k)}


def paired_difference(run_a: Run, run_b: Run) -> PairedDifference:
    """The deal-by-deal difference of two runs' first participants against their shared opponent."""
    return pooled_difference([(run_a, run_b)])


def pooled_difference(pairs: list[tuple[Run, Run]]) -> PairedDifference:
    """The deal-by-deal difference of pairs of runs, one pair per deal set (seed), pooled over every shared
    deal: the same A, B and opponent in every pair, and no deal set twice."""
    if not pairs:
        raise ValueError("no runs to compare")
    first_a, first_b = pairs[0]
    per_a: list[float] = []
    per_b: list[float] = []
    seen: set[str] = set()
    seen_decks: set[str] = set()
    for run_a, run_b in pairs:
        shared = _shared_deals(run_a, run_b)
        if (run_a.a, run_b.a, run_a.b) != (first_a.a, first_b.a, first_a.b):
            raise ValueError(f"pooled pairs must be the same participants: {run_a.a!r} - {run_b.a!r} against "
                             f"{run_a.b!r}, but {first_a.a!r} - {first_b.a!r} against {first_a.b!r} first")
        if _search_changes(run_a, run_b) != _search_changes(first_a, first_b) or run_a.search != first_a.search:
            raise ValueError("pooled pairs must be the same two searches: the search options differ between pairs")
        decks = {run_a.digests[i] for i in shared if i in run_a.digests}
        deals = json.dumps({k: run_a.settings.get(k) for k in SHARED_SETTINGS}, sort_keys=True)
        if (decks & seen_decks) if decks else (deals in seen):
            raise ValueError(f"two pairs were played on the same deals (seed {run_a.settings.get('seed')}): "
                             "pool one pair per deal set")
        seen_decks |= decks
        seen.add(deals)
        per_a += [run_a.per_deal[i] for i in shared]
        per_b += [run_b.per_deal[i] for i in shared]
    return PairedDifference(a=first_a.a, b=first_b.a, opponent=first_a.b,
                            difference=ratio_ci([x - y for x, y in zip(per_a, per_b)]),
                            a_value=ratio_ci(per_a), b_value=ratio_ci(per_b),
                            search_changes=_search_changes(first_a, first_b))


def _interval(e: Estimate) -> str:
    return f"{e.value:+.3f} [{e.low:+.3f}, {e.high:+.3f}]"


def _print(result: PairedDifference, heading: str) -> None:
    print(f"{heading}: against {result.opponent}, {result.difference.n} shared deals, levels per hand [95% CI]:")
    print(f"  A {result.a}: {_interval(result.a_value)}")
    print(f"  B {result.b}: {_interval(result.b_value)}")
    print(f"  A - B (paired by deal): {_interval(result.difference)}")


def main(argv: list[str] | None = None) -> int:
    """Print the paired difference of two runs, or of pairs of runs pooled (exit status 2 on bad input)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="results.json, deals.jsonl or run directory; pairs A B, one pair per deal seed")
    args = parser.parse_args(argv)
    if len(args.runs) % 2:
        print(f"error: {len(args.runs)} runs given; name them in pairs (A B, one pair per deal seed)", file=sys.stderr)
        return 2
    try:
        runs = [load_run(path) for path in args.runs]
        pairs = list(zip(runs[::2], runs[1::2]))
        per_pair = [paired_difference(a, b) for a, b in pairs]
        pooled = pooled_difference(pairs)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for (run_a, _), result in zip(pairs, per_pair):
        _print(result, f"deal seed {run_a.settings.get('seed')}")
    if len(pairs) > 1:
        _print(pooled, f"pooled over {len(pairs)} deal seeds, deal by deal")
    for name, (a, b) in pooled.search_changes.items():
        print(f"  search.{name}: A {a!r}, B {b!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
