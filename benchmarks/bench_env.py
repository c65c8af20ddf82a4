"""Agent steps per second of ``shengji_v0`` with uniformly random masked actions, on one core.

Two figures: stepping with the mask only (``--no-obs``), and stepping while
encoding the acting seat's full observation (flat vector + history) at every
step, as a learner's actor does.

    python benchmarks/bench_env.py --episodes 200
    python benchmarks/bench_env.py --episodes 100 --rules guafeng   # any registered rule set
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from env.shengji_env import raw_env


def run(episodes: int, encode: bool, layout: str, seed: int, rules: str = "standard") -> tuple[float, float]:
    """(steps per second, steps per episode) over ``episodes`` random hands of the rule set ``rules``."""
    environment = raw_env(layout=layout, rules=rules)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for episode in range(episodes):
        environment.reset(seed=seed + episode)
        while not any(environment.terminations.values()):
            if encode:
                environment.observe(environment.agent_selection)
            mask = environment.action_mask()
            environment.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, steps / episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--layout", default="canonical", choices=["canonical", "raw"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="standard", help="a registered rule set's name")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.processor() or platform.machine()}")
    for encode in (False, True):
        rate, per_episode = run(args.episodes, encode, args.layout, args.seed, args.rules)
        label = "mask + observation" if encode else "mask only"
        print(f"{args.rules} {label:20s}: {rate:8.0f} agent steps/s ({per_episode:.0f} steps per hand, "
              f"{args.episodes} hands)")


if __name__ == "__main__":
    main()
