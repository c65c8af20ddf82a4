"""Label positions with the search's values: ``python -m agents.distill.label`` (conf/distill.yaml).

Plays hands (a hand from the middle of a match, as self-play starts them) and,
at every lead or follow with a real choice, runs the search
(:class:`agents.search.SearchAgent` over ``label.prior``) and keeps the
decision with the search's mean outcome of **every candidate it examined**, not
only its choice (:mod:`agents.distill.labels` documents the file format). The
moves played are the search's (``label.play_by=search``, expert iteration) or
the network's (``network``: the learner's own positions). Bids and the burial
are the prior's (or the network's).

Every ``label.hands_per_shard`` hands a shard is written atomically; a rerun
with the same ``label.out`` resumes after the last shard (refusing shards of
another configuration, the mismatch named). Ctrl-C or SIGTERM stops at the next
decision: the unfinished hand is dropped, the written shards are complete.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
import numpy as np
import torch
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from agents.base import Agent
from agents.distill.labels import LabelError, Labels, label_header, read_shard, shard_path, shard_paths, write_shard
from agents.dmc.agent import DMCAgent
from agents.dmc.plays import play_rows
from agents.registry import SEARCH, make_agent
from agents.search import SearchAgent
from agents.search.worlds import World, dealt_world
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint
from agents.selfplay.config import RunConfig, resolve_device
from env.shengji_env import raw_env
from env.standard.hand import Hand
from env.standard.phases import Phase
from env.standard.rewards import hand_rewards
from env.standard.view import PlayerView, view_of

PLAY_BY = ("search", "network")
CANDIDATES = ("search", "pair")
WORLDS = ("sampled", "dealt")


class Labeller:
    """Plays hands and records the search's candidate values at each real play decision."""

    def __init__(self, run: RunConfig, search: SearchAgent, actor: Agent | None, seed: int,
                 network: Agent | None = None, pairs: bool = False, worlds: str = "sampled"):
        self.run, self.search, self.actor, self.seed = run, search, actor, seed
        if worlds not in WORLDS:
            raise ValueError(f"label.worlds must be one of {WORLDS}, got {worlds!r}")
        self.dealt = worlds == "dealt"
        """Every candidate is played out in the hand's own deal (the cards as they really lie) instead of
        in worlds the search samples: one rollout a candidate, an unbiased draw of its value."""
        self.network = network
        """When set, its play at every labelled decision is among the search's candidates (the learner's own
        choice gets a value, so a mistake of it can be unlearnt)."""
        if pairs and network is None:
            raise ValueError("label.candidates=pair compares the network's play with the prior's: it needs "
                             "label.network_candidate=true")
        self.pairs = pairs
        """Label only decisions where the network's play differs from the prior's, comparing just the two."""
        self.encoder = run.rules.encoder(run.layout, run.history_len)
        self.env = raw_env(rules=run.rules, layout=run.layout, history_len=run.history_len, reward=run.reward,
                           start=run.start)
        self.stop = False

    def new_hand(self, number: int) -> Hand:
        """Hand ``number`` of the label set: the environment's start (``run.start``), seeded by the number."""
        self.env.reset(seed=self.seed * 1_000_003 + number)
        return self.env.hand

    def label_hand(self, number: int) -> Labels | None:
        """Play hand ``number`` to its end; its labelled decisions, or ``None`` when asked to stop mid-hand."""
        hand = self.new_hand(number)
        self.search.reset(self.seed * 7_919 + number)
        if self.actor is not None:
            self.actor.reset(number)
        rows: list[tuple] = []
        while hand.phase != Phase.DONE:
            if self.stop:
                return None
            seat = hand.current_player
            view = view_of(hand, seat)
            if hand.phase != Phase.PLAY:
                hand.act(seat, (self.actor or self.search).act(view))
                continue
            legal = view.legal_plays(2)
            if len(legal.plays) == 1 and not legal.truncated:
                hand.act(seat, legal.plays[0])
                continue
            own = self.network.play(view) if self.network is not None else None
            worlds = [dealt_world(hand)] if self.dealt else None
            if self.pairs:  # only where the learner and the prior disagree, only those two plays
                prior = tuple(sorted(self.search.prior.play(view)))
                row = None
                chosen = prior
                if tuple(sorted(own)) != prior:
                    chosen, row = self.label_decision(view, worlds, candidates=(prior, own))
            else:
                chosen, row = self.label_decision(view, worlds, extra=() if own is None else (own,))
            if row is not None:
                rows.append(row)
            if self.actor is not None:
                chosen = own if self.actor is self.network else self.actor.play(view)
            hand.act(seat, chosen)
        reward = hand_rewards(hand.result, hand.dealer, self.run.rules.options, self.run.reward)
        return labels_of(rows, reward, number, self.encoder, self.run)

    def label_decision(self, view: PlayerView, worlds: Sequence[World] | None = None,
                       extra: Sequence[tuple[int, ...]] = (),
                       candidates: Sequence[tuple[int, ...]] | None = None) -> tuple[tuple[int, ...], tuple | None]:
        """The search's play at a lead or follow and the decision's label row (``None`` when the search
        examined fewer than two candidates): ``(obs, history, seat, candidate rows, values, worlds, chosen)``,
        the values being the search's means (:attr:`agents.search.SearchStats.means`) of the examined
        candidates, in the search's order. ``worlds``: search over these instead of sampled ones;
        ``extra``: plays the search must compare too, ``candidates``: the only plays it compares
        (:meth:`agents.search.SearchAgent.search`)."""
        chosen = self.search.search(view, worlds, extra, candidates)
        stats = self.search.last
        examined = [i for i, mean in enumerate(stats.means) if mean is not None]
        if len(examined) < 2:
            return chosen, None
        plays = [stats.candidates[i] for i in examined]
        return chosen, (self.encoder.encode(view, view.seat, []), self.encoder.history(view, view.seat), view.seat,
                        play_rows(view, plays, self.run.layout), [stats.means[i] for i in examined],
                        [stats.worlds_of[i] for i in examined], plays.index(stats.chosen))


def labels_of(rows: list[tuple], reward: tuple[float, float], number: int, encoder, run: RunConfig,
              phases: Sequence[int] | None = None) -> Labels:
    """The :class:`Labels` of hand ``number``'s decision rows (:meth:`Labeller.label_decision`), each with its
    team's ``reward`` (teams 0 and 1) as the return; ``phases``: each row's phase (default: all plays, 2)."""
    from agents.dmc.learner_rules import feature_size

    width = feature_size(run.layout, run.action_mode, run.rules)
    if not rows:
        return Labels(np.zeros((0, encoder.size), np.float16), np.zeros((0, *encoder.history_shape), np.float16),
                      np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(0, np.int32), np.zeros(0, np.float32),
                      np.zeros(0, np.int32), np.zeros((0, width), np.float16), np.zeros(0, np.float32),
                      np.zeros(0, np.int32), np.zeros(0, np.int32))
    return Labels(
        obs=np.stack([r[0] for r in rows]).astype(np.float16),
        history=np.stack([r[1] for r in rows]).astype(np.float16),
        phase=np.full(len(rows), 2, np.int8) if phases is None else np.array(phases, np.int8),
        seat=np.array([r[2] for r in rows], np.int8),
        hand=np.full(len(rows), number, np.int32),
        ret=np.array([reward[r[2] % 2] for r in rows], np.float32),
        cand_count=np.array([len(r[4]) for r in rows], np.int32),
        cand_rows=np.concatenate([r[3] for r in rows]).astype(np.float16),
        cand_value=np.array([v for r in rows for v in r[4]], np.float32),
        cand_worlds=np.array([w for r in rows for w in r[5]], np.int32),
        chosen=np.array([r[6] for r in rows], np.int32))


def labelled_network(path: str) -> tuple[Any, RunConfig]:
    """``(model, run)`` of the checkpoint labels are made for; refuses one not of the play mode or of a
    rule set the search does not play (the standard game)."""
    network_path = to_absolute_path(path)
    model, run = model_from_checkpoint(load_checkpoint(network_path))
    if run.action_mode != "play" or not make_agent(SEARCH, 0).can_play(run.rules):
        raise ValueError(f"labelling needs a play-mode checkpoint of the standard game (the search's rule set); "
                         f"{network_path} is {run.rules.name!r} in the {run.action_mode!r} mode")
    return model, run


def make_labeller(cfg: dict[str, Any]) -> tuple[Labeller, dict[str, Any]]:
    """The labeller of a ``conf/distill.yaml`` configuration and the header its shards carry; refuses a
    rule set the search does not play, an unknown ``play_by`` and bad search options."""
    label = cfg["label"]
    if label["play_by"] not in PLAY_BY:
        raise ValueError(f"label.play_by must be one of {PLAY_BY}, got {label['play_by']!r}")
    for name in ("hands", "hands_per_shard"):
        if not isinstance(label[name], int) or label[name] < 1:
            raise ValueError(f"label.{name} must be a positive integer, got {label[name]!r}")
    model, run = labelled_network(str(label["network"]))
    prior = str(label["prior"])
    search_options = dict(cfg.get("search") or {})
    search = make_agent(f"search:{to_absolute_path(prior) if prior.endswith('.pt') else prior}", int(label["seed"]),
                        search=search_options)
    network_candidate = bool(label.get("network_candidate", False))
    compare = str(label.get("candidates", "search"))
    if compare not in CANDIDATES:
        raise ValueError(f"label.candidates must be one of {CANDIDATES}, got {compare!r}")
    network = DMCAgent(model, run, seed=int(label["seed"])) \
        if label["play_by"] == "network" or network_candidate else None
    actor = network if label["play_by"] == "network" else None
    device = resolve_device(str(label.get("device", "cpu")), "label.device")
    for agent in (search.prior, search.value_network, network):
        if isinstance(agent, DMCAgent):
            agent.to(device)
    worlds = str(label.get("worlds", "sampled"))  # checked by the Labeller
    header = label_header(run, search_options, prior=prior, play_by=label["play_by"], network=str(label["network"]),
                          seed=int(label["seed"]), network_candidate=network_candidate, candidates=compare,
                          worlds=worlds)
    return Labeller(run, search, actor, int(label["seed"]), network if network_candidate else None,
                    pairs=compare == "pair", worlds=worlds), header


def resume_point(out: Path, header: dict[str, Any]) -> tuple[int, int, int]:
    """``(next shard index, next hand number, decisions so far)`` of a label set; refuses a shard written
    under another configuration (its mismatches named) or with another seed, prior or search."""
    paths = shard_paths(out)
    decisions, next_hand = 0, 0
    for path in paths:
        saved, labels = read_shard(path, header)
        for name, before in (("seed", None), ("prior", None), ("play_by", None), ("search", None),
                             ("network_candidate", False), ("candidates", "search"), ("worlds", "sampled")):
            if saved.get(name, before) != header.get(name, before):  # ``before``: shards older than the option
                raise LabelError(f"{path} was labelled with {name}={saved.get(name)!r}, this run has "
                                 f"{header.get(name)!r}: use another label.out")
        decisions += len(labels)
        next_hand = saved["first_hand"] + saved["hands"]
    return len(paths), next_hand, decisions


def run_labelling(config: dict[str, Any]) -> tuple[int, int, bool]:
    """Label until ``label.hands`` hands are in ``label.out`` (resuming), a shard every few hands;
    returns ``(hands, decisions, stopped)``, ``stopped`` when a signal ended it early."""
    torch.set_num_threads(int(config["label"].get("torch_threads", 1)))
    labeller, header = make_labeller(config)
    return write_label_shards(labeller, header, Path(to_absolute_path(str(config["label"]["out"]))),
                              config["label"]["hands"], config["label"]["hands_per_shard"], "labelling")


def write_label_shards(labeller: Any, header: dict[str, Any], out: Path, total: int, per_shard: int,
                       desc: str) -> tuple[int, int, bool]:
    """Label hands with ``labeller`` (``label_hand(number)``, ``None`` once its ``stop`` is set) until
    ``total`` hands are in ``out``, resuming after its last shard and writing one every ``per_shard``
    hands; Ctrl-C or SIGTERM drops the unfinished shard. ``(hands, decisions, stopped)``."""
    shard, hand_number, decisions = resume_point(out, header)

    def stop(signum, frame) -> None:  # finish nothing half-way: the current hand is dropped
        labeller.stop = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    progress = tqdm(total=total, initial=min(hand_number, total), unit="hand", desc=desc, dynamic_ncols=True)
    start, new_decisions = time.time(), 0
    try:
        while hand_number < total and not labeller.stop:
            parts = []
            first = hand_number
            for _ in range(min(per_shard, total - hand_number)):
                labels = labeller.label_hand(hand_number)
                if labels is None:
                    break
                parts.append(labels)
                hand_number += 1
                progress.update(1)
            if labeller.stop and len(parts) < min(per_shard, total - first):
                hand_number = first  # an unfinished shard is not written; the rerun plays its hands again
                break
            merged = Labels.concatenate(parts)
            write_shard(shard_path(out, shard), {**header, "first_hand": first, "hands": len(parts)}, merged)
            shard += 1
            decisions += len(merged)
            new_decisions += len(merged)
            rate = new_decisions / max(1e-6, time.time() - start)
            progress.set_postfix(decisions=decisions, per_s=f"{rate:.2f}")
    finally:
        progress.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    state = "stopped" if labeller.stop else "done"
    print(f"{state}: {hand_number} hands, {decisions} labelled decisions in {out} ({shard} shards)")
    return hand_number, decisions, labeller.stop


@hydra.main(version_base=None, config_path="../../conf", config_name="distill")
def main(cfg: DictConfig) -> None:
    """Entry point: the ``label`` section of conf/distill.yaml."""
    run_labelling(OmegaConf.to_container(cfg, resolve=True))


if __name__ == "__main__":
    main()
