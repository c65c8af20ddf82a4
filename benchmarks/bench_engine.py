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

``--decks D`` (1..4) plays the standard game with D decks (RULES.md 11). ``--masks``
times the environment's card-step masks instead: every card decision of random
hands is composed pick by pick from the exact mask (as the PettingZoo
environment does), and the time of each mask is reported (mean, p50, p99, max).

    python benchmarks/bench_engine.py --hands 300
    python benchmarks/bench_engine.py --rules guafeng --hands 300
    python benchmarks/bench_engine.py --decks 4 --hands 100
    python benchmarks/bench_engine.py --decks 4 --masks --hands 30
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

import numpy as np

from agents.bots.guafeng.random_policy import random_guafeng_decision
from agents.bots.random_agent import random_decision
from env.core.registry import make_ruleset
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.order import LEVELS
from env.standard.hand import Hand, Phase


def play_random_hand(seed: int, max_plays: int, decks: int = 2) -> int:
    """Play one hand with random legal decisions; returns the number of decisions taken."""
    rng = random.Random(seed)
    hand = Hand.new(seed) if decks == 2 else make_ruleset("standard", {"decks": decks}).new_hand(seed)
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


def run(hands: int, max_plays: int, seed: int, rules: str = "standard", decks: int = 2) -> tuple[float, int]:
    """Play ``hands`` hands of the rule set ``rules``; returns (seconds, decisions)."""
    play = PLAYERS[rules]
    extra = {"decks": decks} if decks != 2 else {}
    start = time.perf_counter()
    decisions = sum(play(seed + i, max_plays, **extra) for i in range(hands))
    return time.perf_counter() - start, decisions


def mask_times(hands: int, seed: int, decks: int) -> list[float]:
    """Seconds of every card-step mask (burials, leads, follows) over random hands composed from the masks."""
    ruleset = make_ruleset("standard", {"decks": decks})
    times: list[float] = []
    for i in range(hands):
        rng = random.Random(seed + i)
        hand = ruleset.new_hand(seed + i)
        while not hand.finished:
            decision = ruleset.decision(hand, hand.current_player)
            while True:
                start = time.perf_counter()
                mask = decision.mask()
                if decision.takes_plays:
                    times.append(time.perf_counter() - start)
                if decision.step(int(rng.choice(np.flatnonzero(mask)))):
                    break
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="number of complete hands to play")
    parser.add_argument("--max-plays", type=int, default=256, help="move generator bound per decision")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first hand")
    parser.add_argument("--rules", choices=sorted(PLAYERS), default="standard", help="the rule set to play")
    parser.add_argument("--decks", type=int, choices=(1, 2, 3, 4), default=2, help="decks of the standard game")
    parser.add_argument("--masks", action="store_true", help="time the card-step masks instead")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    args = parser.parse_args()
    if args.masks:
        times = np.array(mask_times(args.hands, args.seed, args.decks)) * 1e6
        print(f"decks: {args.decks}  hands: {args.hands}  masks: {len(times)}")
        print(f"mask us: mean {times.mean():.1f}  p50 {np.percentile(times, 50):.1f}  "
              f"p99 {np.percentile(times, 99):.1f}  max {times.max():.1f}")
        return
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(args.hands, args.max_plays, args.seed, args.rules, args.decks)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return
    run(min(10, args.hands), args.max_plays, args.seed + 10**6, args.rules, args.decks)  # warm the caches
    seconds, decisions = run(args.hands, args.max_plays, args.seed, args.rules, args.decks)
    print(f"rules: {args.rules}  decks: {args.decks}  hands: {args.hands}  decisions: {decisions}  "
          f"seconds: {seconds:.2f}")
    print(f"hands/s: {args.hands / seconds:.1f}  decisions/s: {decisions / seconds:.0f}")


if __name__ == "__main__":
    main()
