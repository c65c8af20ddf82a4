"""Learned inference for the world sampler: where each unseen card is likely to be.

The exact sampler (:mod:`agents.search.worlds`) deals the unseen cards uniformly
among the deals that agree with what a seat knows for sure (voids, shown bid
cards, hand sizes). Play says more than that: a seat that led a suit early tends
to be long in it, a follower who let an opponent's ten win the trick seldom held
the ace, the dealer buries short plain suits. Skat programs got their largest
gain of any change by sampling worlds with such learned inference
(arXiv 1903.09604, ``../shared/LEARNING.md``).

A :class:`LocationModel` reads a seat's observation (the play network's flat
encoding, :class:`env.standard.encoding.ObservationEncoder`, canonical slots) and
gives, for every card slot, a distribution over the four places an unseen copy
can be: the next seat, the partner, the previous seat and the kitty. It learns
from hands played to the end, where every card's place is known
(:func:`collect_positions`; ``python -m agents.search.locations``).

In the search (``search.inference=locations``) each card is dealt to a place it is
allowed to go with weight ``room left there x p(place | card) / p0(place)``, where
``p0`` is the place's share of the unseen cards: with the uniform guess ``p = p0``
this is exactly the exact sampler's own weighting, and the sampler's
consistency guarantees (Hall's condition over the places) are untouched, since
only the weights among allowed places change (:class:`WorldSampler`'s
``place_weights``).
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.bots.card_tracker import CardTracker
from agents.dmc.models import BELIEF_PLACES, belief_network
from env.core.cards import NUM_KINDS, RANKS
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet
from env.standard.encoding import slot_table, slots_of_layout
from env.standard.hand import NUM_PLAYERS, Hand, Phase
from env.standard.view import PlayerView, view_of

PLACES = BELIEF_PLACES
"""Relative places of an unseen copy: the next seat, the partner, the previous seat, the kitty."""
KITTY_PLACE = 3
LAYOUT = "canonical"
FORMAT = "shengjizero-locations"
VERSION = 1
PROJECT_ROOT = Path(__file__).resolve().parents[2]
SHIPPED = "checkpoints/locations/locations1.pt"
"""The location model shipped with the project (learnt from ExpertAgent's and ``dmc_play_distill3.pt``'s hands)."""


@dataclass(frozen=True)
class Positions:
    """Observations of one seat each, with where that seat's unseen cards really were.

    ``obs`` (n, obs_size) float16; ``counts`` (n, slots, 4) int8: the unseen copies of
    each slot at each relative place (next, partner, previous, kitty); ``hands`` (n,) the hand each
    position is from (positions of one hand share its deal, so held-out sets are whole hands).
    """

    obs: np.ndarray
    counts: np.ndarray
    hands: np.ndarray

    def __len__(self) -> int:
        return len(self.obs)


def true_counts(hand: Hand, seat: int, table: np.ndarray, slots: int) -> np.ndarray:
    """(slots, 4) copies of each slot's unseen kinds at each relative place of ``seat``, read from the whole
    ``hand`` (the kitty counts only where the seat does not know it)."""
    counts = np.zeros((slots, PLACES), dtype=np.int8)
    for rel in range(1, NUM_PLAYERS):
        held = hand.hands[(seat + rel) % NUM_PLAYERS]
        for kind in range(NUM_KINDS):
            if held[kind]:
                counts[table[kind], rel - 1] += held[kind]
    knows_kitty = seat == hand.buried_by
    if not knows_kitty:
        for kind in hand.kitty:
            counts[table[kind], KITTY_PLACE] += 1
    return counts


def collect_positions(players: list[Agent], hands: int, seed: int, ruleset: RuleSet | None = None,
                      keep: float = 1.0, progress: bool = False) -> Positions:
    """The play decisions of ``hands`` hands of ``players`` (one per seat), each kept with probability
    ``keep``, as the acting seat saw it, with where its unseen cards really were."""
    rules = ruleset_from_config(ruleset)
    encoder = rules.encoder(LAYOUT)
    slots = slots_of_layout(LAYOUT)
    obs: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    hand_of: list[int] = []
    rng = random.Random(seed)
    started = time.monotonic()
    for i in range(hands):
        hand = Hand.new(rng.getrandbits(32), level=RANKS[rng.randrange(len(RANKS))], dealer=rng.randrange(4),
                        rules=rules)
        for s, player in enumerate(players):
            player.reset(seed * 1_000_003 + i * 4 + s)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            decision = players[seat].act(view)
            if hand.phase == Phase.PLAY and (keep >= 1.0 or rng.random() < keep):
                where = true_counts(hand, seat, slot_table(hand.ctx, LAYOUT), slots)
                if where.any():  # (the last card of a hand: nothing is unseen, nothing to learn)
                    hand_of.append(i)
                    obs.append(encoder.encode(view, seat).astype(np.float16))
                    counts.append(where)
            hand.act(seat, decision)
        if progress and (i + 1) % 100 == 0:
            print(f"  {i + 1}/{hands} hands, {len(obs):,} positions, {time.monotonic() - started:.0f} s", flush=True)
    return Positions(np.stack(obs), np.stack(counts), np.asarray(hand_of, dtype=np.int64))


class LocationModel(nn.Module):
    """Observation -> logits over the four relative places of every card slot."""

    def __init__(self, obs_size: int, slots: int, hidden: int = 512, ruleset: str = "standard", decks: int = 2):
        super().__init__()
        self.obs_size, self.slots, self.hidden = obs_size, slots, hidden
        self.ruleset, self.decks = ruleset, decks
        self.net = belief_network(obs_size, slots, hidden)  # the layers a play network's belief copies

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs).view(-1, self.slots, PLACES)

    def header(self) -> dict[str, Any]:
        """What a saved model must match to be read (:func:`load_model`)."""
        return {"format": FORMAT, "version": VERSION, "obs_size": self.obs_size, "slots": self.slots,
                "hidden": self.hidden, "ruleset": self.ruleset, "decks": self.decks, "layout": LAYOUT}


def location_loss(logits: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the predicted places against the true ones, per unseen copy (mean over copies)."""
    logp = torch.log_softmax(logits, dim=-1)
    copies = counts.sum()
    return -(logp * counts).sum() / copies.clamp(min=1)


def uniform_loss(obs_counts: np.ndarray) -> float:
    """The same cross-entropy for the guess of each place in proportion to its share of the unseen cards
    (the exact sampler's guess where it knows nothing more, no voids or shown cards)."""
    counts = obs_counts.astype(np.float64)
    per_place = counts.sum(axis=1, keepdims=True)                  # (n, 1, 4): unseen cards at each place
    share = per_place / per_place.sum(axis=2, keepdims=True).clip(min=1)
    with np.errstate(divide="ignore"):
        logp = np.where(share > 0, np.log(np.where(share > 0, share, 1.0)), 0.0)
    return float(-(counts * logp).sum() / counts.sum())


def split_hands(hands: np.ndarray, holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and the held-out positions: a share ``holdout`` of the hands (at least one)
    held out whole, since the positions of one hand share its deal and a model could learn the deal."""
    ids = np.unique(hands)
    held = np.random.default_rng(seed).permutation(ids)[:max(1, int(len(ids) * holdout))]
    is_test = np.isin(hands, held)
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


def train_model(positions: Positions, steps: int, batch: int = 512, lr: float = 1e-3, hidden: int = 512,
                holdout: float = 0.1, seed: int = 0, ruleset: RuleSet | None = None,
                progress: bool = False) -> tuple[LocationModel, dict[str, float]]:
    """A :class:`LocationModel` fitted to ``positions``; returns it with its held-out loss and the uniform
    guess's on the same positions (nats per unseen copy)."""
    rules = ruleset_from_config(ruleset)
    torch.manual_seed(seed)
    n = len(positions)
    train, test = split_hands(positions.hands, holdout, seed)
    if not len(train):
        raise ValueError(f"positions of {len(np.unique(positions.hands))} hand(s): a model needs at least two, "
                         "one to learn from and one held out")
    cut = len(test)
    model = LocationModel(positions.obs.shape[1], positions.counts.shape[1], hidden, rules.name,
                          rules.layout.decks)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, steps))
    gen = np.random.default_rng(seed + 1)
    obs_all = torch.from_numpy(positions.obs)
    counts_all = torch.from_numpy(positions.counts)
    for step in range(1, steps + 1):
        idx = torch.from_numpy(train[gen.integers(0, len(train), batch)])
        loss = location_loss(model(obs_all[idx].float()), counts_all[idx].float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if progress and step % 500 == 0:
            print(f"  step {step}/{steps}: loss {loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        held = torch.from_numpy(test)
        total = 0.0
        for start in range(0, len(held), 4096):
            part = held[start:start + 4096]
            c = counts_all[part].float()
            total += location_loss(model(obs_all[part].float()), c).item() * c.sum().item()
        test_loss = total / counts_all[held].float().sum().item()
    return model, {"held_out_loss": test_loss, "uniform_loss": uniform_loss(positions.counts[test]),
                   "positions": n, "held_out": cut}


def save_model(model: LocationModel, path: str | Path, stats: dict[str, Any] | None = None) -> None:
    """Write the model and its header (format, rule set, decks, sizes) for :func:`load_model`."""
    torch.save({"header": model.header(), "stats": dict(stats or {}), "state_dict": model.state_dict()}, path)


def model_path(path: str | Path) -> Path:
    """Where a location model named ``path`` is: the path itself when it exists (or is absolute), else the
    same path under the project's root, so the shipped model is found from any working directory."""
    given = Path(path)
    if given.is_absolute() or given.exists():
        return given
    shipped = PROJECT_ROOT / given
    return shipped if shipped.exists() else given


def load_model(path: str | Path, ruleset: RuleSet | None = None) -> LocationModel:
    """A saved :class:`LocationModel` (``path`` as :func:`model_path` finds it), refused with the mismatch
    named when the file is missing or not one, or was learnt for another rule set, number of decks or
    observation size than ``ruleset``'s."""
    path = model_path(path)
    if not path.is_file():
        raise ValueError(f"no location model at {path}")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a corrupt or foreign file
        raise ValueError(f"{path} is not a readable location model: {exc}") from exc
    header = saved.get("header") if isinstance(saved, dict) else None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path} is not a location model (no '{FORMAT}' header)")
    if header.get("version") != VERSION:
        raise ValueError(f"{path} is a location model of format version {header.get('version')}, "
                         f"this code reads {VERSION}")
    rules = ruleset_from_config(ruleset)
    obs_size = rules.observation_size(LAYOUT)
    for name, want in (("ruleset", rules.name), ("decks", rules.layout.decks), ("obs_size", obs_size),
                       ("slots", slots_of_layout(LAYOUT))):
        if header.get(name) != want:
            raise ValueError(f"{path} was learnt for {name}={header.get(name)!r}, this table has {want!r}")
    model = LocationModel(header["obs_size"], header["slots"], header["hidden"], header["ruleset"], header["decks"])
    model.load_state_dict(saved["state_dict"])
    model.eval()
    return model


_shared: dict[tuple[Path, int, int], LocationModel] = {}


def shared_model(path: str | Path) -> LocationModel:
    """:func:`load_model` once per file (and per version of it on disk): every search of a process, and
    each of the four seats of a table, reads the same model, which is never trained in place."""
    found = model_path(path)
    try:
        stat = found.stat()
    except OSError:
        return load_model(found)  # (names the missing file)
    key = (found.resolve(), stat.st_mtime_ns, stat.st_size)
    model = _shared.get(key)
    if model is None:
        model = _shared[key] = load_model(found)
    return model


class LocationGuide:
    """A :class:`LocationModel` at a table: the sampler's place weights for one seat's view.

    A model reads the observations of one kind of table (its rule set, decks and observation size:
    a RULES.md 9 variant adds features); :meth:`reads` says whether it reads a table's, and a search
    deals the worlds of any other table with the exact sampler.
    """

    def __init__(self, model: LocationModel, ruleset: RuleSet | None = None, strength: float = 1.0):
        self.model = model
        self.encoder = ruleset_from_config(ruleset).encoder(LAYOUT)
        self.strength = strength
        self._reads: dict[RuleSet, bool] = {}

    def reads(self, ruleset: RuleSet) -> bool:
        """Whether the model was learnt on observations of ``ruleset``'s tables."""
        known = self._reads.get(ruleset)
        if known is None:
            known = self._reads[ruleset] = (
                ruleset.name == self.model.ruleset and ruleset.layout.decks == self.model.decks
                and ruleset.observation_size(LAYOUT) == self.model.obs_size)
        return known

    def place_weights(self, view: PlayerView) -> list[list[float]]:
        """``weights[kind][place]`` over the absolute places (seats 0..3, the kitty 4): ``(p / p0) ** strength``,
        the model's probability of the place over the place's share of the unseen cards (1.0 where the model
        has nothing to say: the seat's own place and a kitty it knows). A view of a table the model does not
        read (:meth:`reads`) is refused."""
        if not self.reads(view.ruleset):
            raise ValueError(f"the location model was learnt on {self.model.ruleset} tables of "
                             f"{self.model.decks} decks and observations of {self.model.obs_size}; this table "
                             f"({view.ruleset.name}, {view.ruleset.layout.decks} decks) is not one")
        seat = view.seat
        obs = torch.from_numpy(self.encoder.encode(view, seat)).unsqueeze(0)
        with torch.no_grad():
            probs = torch.softmax(self.model(obs)[0], dim=-1).numpy()
        tracker = CardTracker(view)
        knows_kitty = view.kitty is not None and len(view.kitty) > 0
        room = [view.hand_sizes[(seat + rel) % NUM_PLAYERS] for rel in range(1, NUM_PLAYERS)]
        room.append(0 if knows_kitty else view.ruleset.layout.kitty_size)
        total = sum(room)
        table = slot_table(view.ctx, LAYOUT)
        weights = [[1.0] * (NUM_PLAYERS + 1) for _ in range(NUM_KINDS)]
        places = [(seat + rel) % NUM_PLAYERS for rel in range(1, NUM_PLAYERS)] + [NUM_PLAYERS]
        live = [i for i in range(PLACES) if room[i]]
        for kind in range(NUM_KINDS):
            if not tracker.unseen[kind]:
                continue
            p = probs[table[kind]]
            norm = sum(float(p[i]) for i in live) or 1.0
            for i in live:
                ratio = (float(p[i]) / norm) / (room[i] / total)
                weights[kind][places[i]] = max(ratio, 1e-6) ** self.strength
        return weights


def world_loss(view: PlayerView, hand: Hand, sampler: Any, worlds: int, rng: random.Random,
               floor: float = 1e-3) -> tuple[float, int]:
    """How well a sampler's worlds place ``view``'s unseen cards: the cross-entropy of the true places (from
    the whole ``hand``) under the places of ``worlds`` sampled worlds (each probability at least ``floor``),
    summed over the unseen copies; returns ``(nats, copies)``."""
    seat = view.seat
    places = [(seat + rel) % NUM_PLAYERS for rel in range(1, NUM_PLAYERS)]
    knows_kitty = view.kitty is not None and len(view.kitty) > 0
    tally = np.zeros((NUM_KINDS, NUM_PLAYERS + 1))
    for _ in range(worlds):
        world = sampler.sample(rng)
        for place in places:
            tally[:, place] += world.hands[place]
        if not knows_kitty:
            for kind in world.kitty:
                tally[kind, NUM_PLAYERS] += 1
    nats, copies = 0.0, 0
    for kind in range(NUM_KINDS):
        total = tally[kind].sum()
        truth = [hand.hands[place][kind] for place in places] + \
            [0 if knows_kitty else hand.kitty.count(kind)]
        for place, count in zip([*places, NUM_PLAYERS], truth, strict=True):
            if count:
                nats -= count * float(np.log(max(tally[kind, place] / total if total else 0.0, floor)))
                copies += count
    return nats, copies


def score_samplers(guide: LocationGuide, player: Agent, hands: int, seed: int, share: float = 0.25,
                   worlds: int = 64) -> dict[str, float]:
    """Nats per unseen copy of the exact sampler's and the guided sampler's worlds, over a share of the play
    decisions of ``hands`` hands that ``player`` plays on all four seats."""
    from agents.search.worlds import WorldSampler

    rng = random.Random(seed)
    totals = {"exact": 0.0, "guided": 0.0}
    copies = positions = 0
    for i in range(hands):
        hand = Hand.new(rng.getrandbits(32), level=RANKS[i % len(RANKS)], dealer=i % 4)
        player.reset(seed + i)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            view = view_of(hand, seat)
            decision = player.act(view)
            if hand.phase == Phase.PLAY and rng.random() < share:
                for name, sampler in (("exact", WorldSampler(view)),
                                      ("guided", WorldSampler(view, place_weights=guide.place_weights(view)))):
                    nats, n = world_loss(view, hand, sampler, worlds, rng)
                    totals[name] += nats
                copies += n
                positions += 1
            hand.act(seat, decision)
    return {name: value / max(copies, 1) for name, value in totals.items()} | {"positions": positions}


def save_positions(positions: Positions, path: str | Path) -> None:
    """Write positions as one ``.npz`` (``obs``, ``counts``, ``hands``)."""
    np.savez(path, obs=positions.obs, counts=positions.counts, hands=positions.hands)


def load_positions(paths: list[str | Path]) -> Positions:
    """The positions of several ``.npz`` files as one set (each file's hands kept apart)."""
    parts = [np.load(path) for path in paths]
    for path, part in zip(paths, parts, strict=True):
        missing = {"obs", "counts", "hands"} - set(part.files)
        if missing:
            raise ValueError(f"{path} is not a file of positions: no {', '.join(sorted(missing))}")
    return Positions(np.concatenate([p["obs"] for p in parts]), np.concatenate([p["counts"] for p in parts]),
                     np.concatenate([p["hands"] + j * 10_000_000 for j, p in enumerate(parts)]))


def main(argv: list[str] | None = None) -> int:
    """Collect positions of hands played to the end (``collect``), or learn a location model from them
    (``learn``)::

        python -m agents.search.locations collect --player expert --hands 12000 --seed 11 --out ex.npz
        python -m agents.search.locations learn --positions ex.npz d3.npz --steps 6000 --out locations.pt
        python -m agents.search.locations score --model locations.pt --player expert --hands 40
    """
    parser = argparse.ArgumentParser(description=main.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    collect = commands.add_parser("collect", help="play hands and keep positions with where the cards were")
    collect.add_argument("--player", default="expert", help="who plays all four seats (a bot or a checkpoint)")
    collect.add_argument("--hands", type=int, default=2000)
    collect.add_argument("--keep", type=float, default=0.25, help="share of the play decisions kept")
    collect.add_argument("--seed", type=int, default=0)
    collect.add_argument("--out", required=True, help="the positions file (.npz)")
    learn = commands.add_parser("learn", help="learn a location model from positions")
    learn.add_argument("--positions", nargs="+", required=True, help="files of positions (.npz)")
    learn.add_argument("--steps", type=int, default=6000)
    learn.add_argument("--hidden", type=int, default=512)
    learn.add_argument("--seed", type=int, default=0)
    learn.add_argument("--out", required=True, help="the model (.pt)")
    score = commands.add_parser("score", help="how well the exact and the guided sampler place the unseen cards")
    score.add_argument("--model", required=True)
    score.add_argument("--player", default="expert", help="who plays the hands scored (all four seats)")
    score.add_argument("--hands", type=int, default=40)
    score.add_argument("--worlds", type=int, default=64)
    score.add_argument("--seed", type=int, default=777)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        if args.command == "collect":
            from agents.registry import make_agent

            players = [make_agent(args.player, args.seed * 10 + s) for s in range(NUM_PLAYERS)]
            positions = collect_positions(players, args.hands, args.seed, keep=args.keep, progress=True)
            save_positions(positions, args.out)
            print(f"{len(positions):,} positions of {args.hands} hands written to {args.out}")
            return 0
        if args.command == "score":
            from agents.registry import make_agent

            found = score_samplers(LocationGuide(load_model(args.model)), make_agent(args.player, args.seed),
                                   args.hands, args.seed, worlds=args.worlds)
            print(f"{found['positions']} positions: nats per unseen copy, exact sampler {found['exact']:.4f}, "
                  f"guided by {args.model} {found['guided']:.4f}")
            return 0
        positions = load_positions(args.positions)
        print(f"learning from {len(positions):,} positions", flush=True)
        model, stats = train_model(positions, args.steps, hidden=args.hidden, seed=args.seed, progress=True)
    except KeyboardInterrupt:
        print("stopped; nothing written", file=sys.stderr)
        return 130
    stats["positions_files"] = [str(path) for path in args.positions]
    save_model(model, args.out, stats)
    print(f"held-out loss {stats['held_out_loss']:.4f} nats per unseen copy (the unseen cards spread by the "
          f"places' shares: {stats['uniform_loss']:.4f}); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
