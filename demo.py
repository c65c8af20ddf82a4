"""Play and print one full hand between four RandomAgents (the placeholder main job)."""

from __future__ import annotations

import argparse

from agents.random_agent import RandomAgent
from agents.runner import play_hand
from env.game import Hand
from env.render import render_hand_log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="deal and agent seed")
    args = parser.parse_args()
    hand = play_hand(Hand.new(args.seed), [RandomAgent(args.seed * 4 + i) for i in range(4)])
    print(render_hand_log(hand))


if __name__ == "__main__":
    main()
