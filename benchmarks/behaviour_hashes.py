"""Fixed-seed hashes of what the project does, to show a refactor changes no behaviour.

Prints one SHA-256 (first 16 hex digits) per case, and with ``--save PATH`` /
``--check PATH`` writes them as JSON or compares against a saved set (exit
status 1 on any difference, naming the cases). The cases:

* ``hands/<rules>/<bot>``: complete hands dealt from fixed seeds, every seat the
  same rule bot, for the standard game (defaults, 炒地皮, 进贡, the linear kitty
  multiplier) and 刮风; the hash covers each hand's log (every decision) and result;
* ``matches/<rules>``: matches of expert bots (levels, dealers, tributes);
* ``selfplay/<mode>``: self-play samples of the shipped networks' tables
  (``action_mode=play`` with and without the teacher, ``card``), every sample
  field of the first batches;
* ``search``: the decisions of ``search`` (over the expert) at every seat of
  two fixed hands with a small fixed budget (worlds and candidates, no clock);
* ``referee``: the string referee's answers to a fixed list of questions.

Usage::

    python benchmarks/behaviour_hashes.py --save /tmp/before.json
    python benchmarks/behaviour_hashes.py --check /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RULES = {
    "standard": {},
    "chaodipi": {"chaodipi": True},
    "tribute": {"tribute": True},
    "linear_kitty": {"kitty_multiplier": "linear"},
    "guafeng": {"ruleset": "guafeng"},
}
BOTS = ("random", "greedy", "expert")


def digest(parts: Iterable[Any]) -> str:
    """The first 16 hex digits of the SHA-256 of ``parts`` (JSON, NumPy arrays by their bytes)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str(part.dtype).encode() + str(part.shape).encode())
            h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(json.dumps(part, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def _ruleset(name: str):
    from env.core.registry import ruleset_from_config

    return ruleset_from_config(dict(RULES[name]))


def hand_hashes(hands: int) -> dict[str, str]:
    """Complete hands of one bot on all four seats, per rule set."""
    from agents.registry import make_agent
    from agents.runner import play_hand

    out = {}
    for rules in RULES:
        ruleset = _ruleset(rules)
        for bot in BOTS:
            logs = []
            for seed in range(hands):
                agents = [make_agent(bot, seed * 4 + s) for s in range(4)]
                hand = play_hand(ruleset.new_hand(1000 + seed), agents)
                logs.append(hand.to_log())
            out[f"hands/{rules}/{bot}"] = digest(logs)
    return out


def match_hashes(matches: int) -> dict[str, str]:
    """Expert matches (short: at most 6 hands each), per rule set."""
    from agents.registry import make_agent
    from agents.runner import play_hand

    out = {}
    for rules in RULES:
        ruleset = _ruleset(rules)
        logs = []
        for seed in range(matches):
            match = ruleset.new_match(2000 + seed)
            agents = [make_agent("expert", seed * 4 + s) for s in range(4)]
            for _ in range(6):
                if match.finished:
                    break
                hand = match.new_hand()
                match.record(play_hand(hand, agents))
                logs.append(hand.to_log())
        out[f"matches/{rules}"] = digest(logs)
    return out


def _smoke_run(overrides: list[str]):
    """The run configuration of the smoke training preset with Hydra ``overrides``."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from agents.selfplay.config import run_config

    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["train=smoke", *overrides])
    return run_config(OmegaConf.to_container(cfg, resolve=True))


def selfplay_hashes(steps: int) -> dict[str, str]:
    """Samples of self-play tables in each action mode, from the shipped checkpoints."""
    import torch

    from agents.dmc.tables import make_tables
    from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint, new_model

    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "play_teacher": ("checkpoints/dmc_play_cpu76.pt", {"teacher_share": 0.5}),
        "play_selfplay": ("checkpoints/dmc_play_cpu76.pt", {"teacher_share": 0.0}),
        "card": ("checkpoints/dmc_cpu60.pt", {"teacher_share": 0.0}),
    }
    out = {}
    for mode, (path, kwargs) in [*cases.items(), ("guafeng_teacher", (None, {"teacher_share": 0.5}))]:
        torch.manual_seed(0)
        if path is None:  # 刮风 has no shipped network: a fresh one of its smoke run
            run = _smoke_run(["rules=guafeng"])
            model = new_model(run)
        else:
            model, run = model_from_checkpoint(load_checkpoint(ROOT / path))
        model.eval()
        tables = make_tables(run, seed=5)
        parts = []
        for _ in range(steps):
            tables.step(model, epsilon=0.05, **kwargs)
            batch = tables.collect(1)
            if batch is not None:
                parts += [getattr(batch, f) for f in ("obs", "history", "actions", "phase", "target", "cand_count")]
                if batch.cand_rows is not None:
                    parts += [batch.cand_rows, batch.cand_positive]
        out[f"selfplay/{mode}"] = digest(parts)
    return out


def search_hashes(hands: int) -> dict[str, str]:
    """The search's decisions over two hands, with a budget of worlds and candidates but no clock."""
    from agents.registry import make_agent
    from env.standard.view import view_of

    options = {"time_budget": 1000.0, "worlds": 8, "screen_worlds": 2, "max_candidates": 4}
    decisions = []
    ruleset = _ruleset("standard")
    for seed in range(hands):
        agents = [make_agent("search", seed * 4 + s, search=options) for s in range(4)]
        for agent in agents:
            agent.reset(seed)
        hand = ruleset.new_hand(3000 + seed)
        while hand.phase.value != "done":
            seat = hand.current_player
            decision = agents[seat].act(view_of(hand, seat))
            decisions.append(repr(decision))
            hand.act(seat, decision)
    return {"search": digest(decisions)}


def referee_hashes() -> dict[str, str]:
    """Answers of the string referee (standard and 刮风) to fixed questions."""
    from env import rules

    answers: list[Any] = []
    hand = "S5 S5 S6 S6 S7 HA H3 BJ"
    for play in ("S5 S5", "S5 S6", "S5 S5 S6 S6", "HA", "S7"):
        answers.append(rules.is_legal_play(hand, play, level="2", trump="H"))
        answers.append(rules.is_legal_play(hand, play, level="2", trump="H", lead="S9 S9"))
    answers.append(rules.trick_winner(["S5 S5", "S9 S9", "H3 H3", "SA SK"], level="2", trump="H"))
    for points in (0, 35, 40, 80, 120, 160, 200):
        answers.append(rules.score_hand(points))
    return {"referee": digest(answers)}


CASES: dict[str, Callable[[argparse.Namespace], dict[str, str]]] = {
    "hands": lambda a: hand_hashes(a.hands),
    "matches": lambda a: match_hashes(a.matches),
    "selfplay": lambda a: selfplay_hashes(a.steps),
    "search": lambda a: search_hashes(a.search_hands),
    "referee": lambda a: referee_hashes(),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=12, help="hands per rule set and bot")
    parser.add_argument("--matches", type=int, default=2, help="matches per rule set")
    parser.add_argument("--steps", type=int, default=400, help="self-play table steps per action mode")
    parser.add_argument("--search-hands", type=int, default=1, help="hands of search decisions")
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="run only these groups")
    parser.add_argument("--save", type=Path, help="write the hashes to this JSON file")
    parser.add_argument("--check", type=Path, help="compare with a saved JSON file (exit 1 on a difference)")
    args = parser.parse_args()
    hashes: dict[str, str] = {}
    for group in args.only or CASES:
        hashes.update(CASES[group](args))
    for case, value in hashes.items():
        print(f"{case:32s} {value}")
    if args.save:
        args.save.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    if args.check:
        saved = json.loads(args.check.read_text())
        differ = [c for c in hashes if saved.get(c) != hashes[c]]
        if differ:
            print("DIFFERENT: " + ", ".join(differ))
            return 1
        print(f"all {len(hashes)} hashes equal to {args.check}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
