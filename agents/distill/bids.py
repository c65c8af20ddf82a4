"""Imitation labels for the bids and the burial: ``python -m agents.distill.bids`` (conf/distill.yaml, ``bids``).

Why: played against ExpertAgent on the same 1,000 deals, the shipped network loses
-0.178 levels per hand (seed 0); with ExpertAgent's burial in place of its own it
loses -0.099 (-0.075 against -0.169 on seed 1), with ExpertAgent's bids -0.174
(``phases:<network>+expert``, :mod:`agents.phases`, splits the card play from
the rest). So 0.08 of the network's gap is in one decision per hand that a
teacher names at no cost, where a search label would cost seconds.
(benchmarks/RESULTS.md, "Where the network loses its levels": imitating it has
not yet bought that back.)

The network plays its own hands (bids, burial, the first trick is not needed);
at each of its bid decisions with a choice and each step of its burial the
teacher's choice is recorded in the label format of :mod:`agents.distill.labels`:
the decision's candidates (``phase`` 0 for a bid, 1 for a kitty pick), value 1
for the teacher's action and 0 for the others, ``chosen`` the teacher's action
(at a burial step, value 1 for every card the teacher still buries).
The burial is labelled step by step, each step seen with the teacher's earlier
picks, taken in a random order (``bids.shuffle_burial``; else in kind order, as
self-play takes a burial: :meth:`agents.dmc.learner_rules.LearnerRules.step_plan`). Learning
them with ``learn.target=softmax`` and a low ``target_temperature`` is the
cross-entropy of the teacher's choice (:mod:`agents.distill.learn`). ``ret`` is
0: these labels do not train ``V`` (use ``learn.value_weight=0``).

Shards are written every ``bids.hands_per_shard`` hands and a rerun resumes, as
the search labeller does (:func:`agents.distill.label.resume_point`).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import hydra
import numpy as np
import torch
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf

from agents.base import Agent
from agents.distill.label import labelled_network, labels_of, write_label_shards
from agents.distill.labels import Labels, label_header
from agents.dmc.agent import DMCAgent
from agents.dmc.learner_rules import decision_candidates, learner_rules
from agents.registry import make_agent
from agents.selfplay.config import RunConfig
from env.core.actions import PASS
from env.shengji_env import raw_env
from env.standard.actions import bid_action, composer_for
from env.standard.phases import Phase
from env.standard.view import PlayerView, view_of


class BidLabeller:
    """Plays the network's bids and burial and records the teacher's choice at each of those decisions."""

    def __init__(self, run: RunConfig, network: DMCAgent, teacher: Agent, seed: int, label_bids: bool = True,
                 shuffle_burial: bool = True):
        self.run, self.network, self.teacher, self.seed = run, network, teacher, seed
        self.label_bids = label_bids
        """False: the burial's steps only (measured: the teacher's bids gained the network nothing, its
        burial 0.08 levels per hand)."""
        self.shuffle_burial = shuffle_burial
        """Take the teacher's cards in a random order, not kind order: with every remaining card a target,
        a network trained on kind-order prefixes only met picks it had never seen (its burial got worse:
        0.58 of the teacher's cards against 0.61 before)."""
        self.rng = random.Random(seed)
        self.encoder = run.rules.encoder(run.layout, run.history_len)
        self.env = raw_env(rules=run.rules, layout=run.layout, history_len=run.history_len, reward=run.reward,
                           start=run.start)
        self.stop = False

    def label_hand(self, number: int) -> Labels | None:
        """Hand ``number`` to the end of its burial; its labelled decisions (``None`` when asked to stop)."""
        self.env.reset(seed=self.seed * 1_000_003 + number)
        hand = self.env.hand
        self.network.reset(number)
        self.teacher.reset(number)
        self.rng.seed(self.seed * 7_919 + number)
        rows: list[tuple] = []  # (phase, row of agents.distill.label.labels_of)
        while hand.phase != Phase.PLAY and hand.phase != Phase.DONE:
            if self.stop:
                return None
            seat = hand.current_player
            view = view_of(hand, seat)
            if hand.phase.takes_bids and self.label_bids:
                rows += self.bid_rows(view)
            elif hand.phase == Phase.KITTY:
                rows += self.burial_rows(view)
            hand.act(seat, self.network.act(view))
        return labels_of([row for _, row in rows], (0.0, 0.0), number, self.encoder, self.run,
                         [phase for phase, _ in rows])

    def bid_rows(self, view: PlayerView) -> list[tuple]:
        """The label row of a bid decision with a choice (none when passing is all there is)."""
        found = decision_candidates(view, self.run.layout)
        if len(found.moves) < 2:
            return []
        bid = self.teacher.bid(view)
        action = PASS if bid is None else bid_action(bid)
        return [self._row(view, [], found, found.moves.index(action))]

    def burial_rows(self, view: PlayerView) -> list[tuple]:
        """The label rows of the burial's steps, taken in the order self-play takes them (the teacher's
        cards in kind order). Every card the teacher still buries is worth 1 at a step, not only the next
        in that order: the network may bury the set in any order, and a target on one card of it made
        each step's error compound over the eight (80% of steps right, the burial no better)."""
        composer = composer_for(view)
        plan = learner_rules(view.ruleset).step_plan(self.teacher.bury(view))
        if self.shuffle_burial:  # the network buries the set in its own order: its states are any order's
            self.rng.shuffle(plan)
        rows = []
        for step, card in enumerate(plan):
            found = decision_candidates(view, self.run.layout, composer.mask())
            if len(found.moves) > 1:
                rest = set(plan[step:])
                rows.append(self._row(view, list(composer.picked), found, found.moves.index(card),
                                      [float(move in rest) for move in found.moves]))
            composer.add(card)
        return rows

    def _row(self, view: PlayerView, picked: list[int], found: Any, chosen: int,
             values: list[float] | None = None) -> tuple[int, tuple]:
        """``(phase, label row)``: the decision's candidates, ``values`` (default: 1 for ``chosen``, else 0),
        no worlds (the teacher was not searched)."""
        if values is None:
            values = [0.0] * len(found.moves)
            values[chosen] = 1.0
        return found.phase, (self.encoder.encode(view, view.seat, picked), self.encoder.history(view, view.seat),
                             view.seat, np.asarray(found.rows), values, [0] * len(values), chosen)


def make_bid_labeller(cfg: dict[str, Any]) -> tuple[BidLabeller, dict[str, Any]]:
    """The labeller of the ``bids`` section and the header its shards carry; refuses bad settings."""
    bids = cfg["bids"]
    for name in ("hands", "hands_per_shard"):
        if not isinstance(bids[name], int) or bids[name] < 1:
            raise ValueError(f"bids.{name} must be a positive integer, got {bids[name]!r}")
    model, run = labelled_network(str(bids["network"]))
    seed, label_bids, shuffle = int(bids["seed"]), bool(bids.get("label_bids", True)), \
        bool(bids.get("shuffle_burial", True))
    header = label_header(run, {}, prior=str(bids["teacher"]), play_by="network", network=str(bids["network"]),
                          seed=seed, candidates="bids" if label_bids else "burial", shuffle_burial=shuffle)
    return BidLabeller(run, DMCAgent(model, run, seed=seed), make_agent(str(bids["teacher"]), seed), seed,
                       label_bids, shuffle), header


def run_bid_labelling(config: dict[str, Any]) -> tuple[int, int, bool]:
    """Label until ``bids.hands`` hands are in ``bids.out`` (resuming); ``(hands, decisions, stopped)``."""
    torch.set_num_threads(1)
    labeller, header = make_bid_labeller(config)
    return write_label_shards(labeller, header, Path(to_absolute_path(str(config["bids"]["out"]))),
                              config["bids"]["hands"], config["bids"]["hands_per_shard"], "bid labels")


@hydra.main(version_base=None, config_path="../../conf", config_name="distill")
def main(cfg: DictConfig) -> None:
    """Entry point: the ``bids`` section of conf/distill.yaml."""
    run_bid_labelling(OmegaConf.to_container(cfg, resolve=True))


if __name__ == "__main__":
    main()
