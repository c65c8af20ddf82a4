"""What the search's overrides of its prior are worth, judged on fresh worlds, and what a re-check keeps.

Expert hands are dealt from fixed seeds and played by ExpertAgent; at a share of
the play decisions with a choice, the search (``conf/search/default.yaml``'s
options, over the expert) is asked too. Where it overrides the expert's play,
the override is played against the expert's on ``--fresh`` fresh worlds with
shared rollout seeds: the first half decides as the re-check would (the lower
bound ``mean - z * se`` above 0), the second half judges. An unbiased judge
of an override's worth, since the search's own worlds chose it (the winner of
several noisy means is biased upwards) and the re-check's worlds filtered it.

    python benchmarks/override_value.py --hands 20 --fresh 128
"""

from __future__ import annotations

import argparse
import math
import random
import statistics

from agents.bots.expert import ExpertAgent
from agents.search import SearchAgent, SearchConfig
from agents.search.agent import lower_confidence_bound
from env.core.registry import make_ruleset
from env.standard.hand import Phase
from env.standard.view import view_of


def judged_overrides(hands: int, fresh: int, share: float, z: float, first_seed: int) -> list[tuple[float, float]]:
    """``(re-check bound, judged mean advantage)`` of every override in ``hands`` expert hands."""
    rules = make_ruleset("standard", {})
    bots = [ExpertAgent(seat) for seat in range(4)]
    found = []
    for h in range(first_seed, first_seed + hands):
        hand, rng = rules.new_hand(5000 + h), random.Random(h)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            legal = view.legal_plays(2) if hand.phase == Phase.PLAY else None
            if legal is not None and (len(legal.plays) > 1 or legal.truncated) and rng.random() < share:
                search = SearchAgent(ExpertAgent(seat), SearchConfig(time_budget=5.0), seed=h * 1000 + seat)
                chosen = search.search(view)
                prior = search.last.candidates[0]
                if chosen != prior:
                    sampler, worlds = search.sampler(view), random.Random(h * 7919 + len(found))
                    diffs = []
                    for _ in range(fresh):
                        job = (sampler.sample(worlds), worlds.getrandbits(32))
                        ours, theirs = search.rollouts.rows(view, [job], [chosen, prior])[0]
                        diffs.append(ours - theirs)
                    half = fresh // 2
                    found.append((lower_confidence_bound(diffs[:half], z), statistics.fmean(diffs[half:])))
            hand.act(seat, bots[seat].act(view))
    return found


def _interval(values: list[float]) -> str:
    if len(values) < 2:
        return f"n={len(values)}"
    mean, half = statistics.fmean(values), 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--fresh", type=int, default=128, help="fresh worlds per override (half decide, half judge)")
    parser.add_argument("--share", type=float, default=0.25, help="share of the play decisions searched")
    parser.add_argument("--z", type=float, default=1.645, help="z of the re-check's lower bound")
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    if args.fresh < 4:
        parser.error("--fresh must be at least 4 (two worlds to decide, two to judge)")
    found = judged_overrides(args.hands, args.fresh, args.share, args.z, args.first_seed)
    kept = [judged for bound, judged in found if bound > 0]
    turned_back = [judged for bound, judged in found if bound <= 0]
    print(f"overrides: {_interval([judged for _, judged in found])}")
    print(f"kept by the re-check: {_interval(kept)}")
    print(f"turned back: {_interval(turned_back)}")


if __name__ == "__main__":
    main()
