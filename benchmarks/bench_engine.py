"""Engine benchmark: random legal play of complete hands on one core.

Each hand is dealt from a seed, with every bidding decision point, the kitty
exchange, all tricks and the scoring; each decision is a uniformly random
legal choice (bids or pass, 8 cards to bury, a play from the move generator,
bounded by ``--max-plays`` like :class:`agents.bots.random_agent.RandomAgent`).
Prints hands/s and decisions/s. With ``--profile`` it prints the cProfile
top functions instead of timing cleanly.

``--rules guafeng`` plays 刮风 hands instead (RULES-guafeng.md): the deal with its
fixing decision points, 回牌, the 4-card burial and the tricks, each a random legal
choice (:func:`agents.bots.guafeng.random_policy.random_guafeng_decision`); the
dealer seat rotates with the hand and the level is drawn from the level cycle.

    python benchmarks/bench_engine.py --hands 300
    python benchmarks/bench_engine.py --rules guafeng --hands 300
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.bots.guafeng.random_policy import random_guafeng_decision
from agents.bots.random_agent import random_decision
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.order import LEVELS
from env.standard.hand import Hand, Phase


def play_random_hand(seed: int, max_plays: int) -> int:
    """Play one hand with random legal decisions; returns the number of decisions taken."""
    rng = random.Random(seed)
    hand = Hand.new(seed)
    decisions = 0
    while hand.phase != Phase.DONE:
        random_decision(hand, rng, max_plays)
        decisions += 1
    return decisions


def play_random_guafeng_hand(seed: int, max_plays: int) -> int:
    """Play one 刮风 hand with random legal decisions; returns the number of decisions taken."""
    rng = random.Random(seed)
    level = LEVELS[seed % len(LEVELS)]
    hand = GuafengHand.new(seed, dealer=seed % 4, team_levels=(level, level))
    decisions = 0
    while hand.phase != GuafengPhase.DONE:
        random_guafeng_decision(hand, rng, max_plays)
        decisions += 1
    return decisions


PLAYERS = {"standard": play_random_hand, "guafeng": play_random_guafeng_hand}
"""The hand player of each rule set."""


def run(hands: int, max_plays: int, seed: int, rules: str = "standard") -> tuple[float, int]:
    """Play ``hands`` hands of the rule set ``rules``; returns (seconds, decisions)."""
    play = PLAYERS[rules]
    start = time.perf_counter()
    decisions = sum(play(seed + i, max_plays) for i in range(hands))
    return time.perf_counter() - start, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="number of complete hands to play")
    parser.add_argument("--max-plays", type=int, default=256, help="move generator bound per decision")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first hand")
    parser.add_argument("--rules", choices=sorted(PLAYERS), default="standard", help="the rule set to play")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    args = parser.parse_args()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(args.hands, args.max_plays, args.seed, args.rules)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return
    run(min(10, args.hands), args.max_plays, args.seed + 10**6, args.rules)  # warm the caches
    seconds, decisions = run(args.hands, args.max_plays, args.seed, args.rules)
    print(f"rules: {args.rules}  hands: {args.hands}  decisions: {decisions}  seconds: {seconds:.2f}")
    print(f"hands/s: {args.hands / seconds:.1f}  decisions/s: {decisions / seconds:.0f}")


if __name__ == "__main__":
    main()
