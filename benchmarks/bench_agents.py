"""Decision-time benchmark of an agent on one core.

Plays complete hands with the measured agent on all four seats (so it meets
its own kind of play) and times every decision, by phase: mean, 99th
percentile and maximum in milliseconds.

    python benchmarks/bench_agents.py --agent expert --hands 200
    python benchmarks/bench_agents.py --agent search --hands 4 --search time_budget=0.1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.registry import make_agent
from env.standard.hand import Hand, Phase
from env.standard.view import view_of


def time_hands(name: str, hands: int, seed: int, search: dict | None = None) -> dict[str, list[float]]:
    """Seconds per decision, grouped by phase, over ``hands`` hands (level and dealer rotate)."""
    times: dict[str, list[float]] = {"bid": [], "bury": [], "play": []}
    agents = [make_agent(name, seed + seat, search=search) for seat in range(4)]
    levels = "23456789TJQKA"
    for i in range(hands):
        hand = Hand.new(seed * 100_000 + i, level=levels[i % 13], dealer=i % 4)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            start = time.perf_counter()
            decision = agents[seat].act(view)
            elapsed = time.perf_counter() - start
            if hand.phase.is_bidding:
                times["bid"].append(elapsed)
                hand.pass_bid(seat) if decision is None else hand.bid(seat, decision)
            elif hand.phase == Phase.KITTY:
                times["bury"].append(elapsed)
                hand.bury(seat, list(decision))
            else:
                times["play"].append(elapsed)
                hand.play(seat, list(decision))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="expert", help="agent name (random, greedy, expert, search, a checkpoint)")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--search", nargs="*", default=[], metavar="KEY=VALUE",
                        help="search options (conf/search/default.yaml), e.g. time_budget=0.1 worlds=16")
    args = parser.parse_args()
    # each value read as YAML, as Hydra reads an override: 5 and 0.5 are numbers, expert and a file path text
    search = {key: yaml.safe_load(value) for key, _, value in (item.partition("=") for item in args.search)}
    times = time_hands(args.agent, args.hands, args.seed, search or None)
    every = [t for ts in times.values() for t in ts]
    print(f"{args.agent}: {args.hands} hands, {len(every)} decisions, "
          f"mean {1000 * statistics.fmean(every):.3f} ms per decision")
    for phase, ts in times.items():
        if ts:
            ordered = sorted(ts)
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            print(f"  {phase:5s} n={len(ts):6d}  mean {1000 * statistics.fmean(ts):.3f} ms  "
                  f"p99 {1000 * p99:.3f} ms  max {1000 * ordered[-1]:.3f} ms")


if __name__ == "__main__":
    main()
