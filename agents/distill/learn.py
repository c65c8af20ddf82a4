"""The distillation step: ``python -m agents.distill.learn`` (conf/distill.yaml, ``learn``).

Starts from a checkpoint and trains on label sets (:mod:`agents.distill.labels`):

* the **distillation term** (:func:`agents.distill.targets.distill_loss`) pulls
  the ordering of each decision's candidates towards the search's values, with
  a weight annealed from ``distill_weight`` to ``distill_floor`` and never below
  the floor, so the ordering is kept when self-play takes over;
* ``V(s)`` is regressed to the Monte Carlo return of the labelled hand, and
  (``q_weight``) ``Q`` of the search's choice too, so ``Q`` keeps its units;
  ``anchor_weight`` keeps ``V`` near the starting network's instead (:func:`anchor_loss`);
* ``skip_margin_kept`` leaves out the decisions where the search kept its prior's
  play only by its margin (:meth:`agents.distill.labels.Labels.kept_by_margin`),
  so the ties the search could not break do not pull the network towards the prior;
* ``override_repeat`` draws the decisions where the search overrode its prior (chose
  another play than the prior's) that many times as often (:func:`training_decisions`);
* ``keep_weight`` keeps each decision's candidate ordering near the starting
  network's where the labels say nothing new (:func:`agents.distill.targets.keep_loss`): a round that
  learns only new labels would otherwise forget what earlier rounds taught;
* ``renamings`` shows each drawn decision under a random renaming of its plain suits
  (:meth:`agents.dmc.learner_rules.LearnerRules.renamed_encoding`; the identity among them), so the labels
  teach the position and not the suit names it was dealt in;
* optionally (``selfplay_every``) a batch of the network's own self-play every
  few steps, trained by the usual DMC loss (:func:`agents.dmc.learner.train_step`).

The steps run on ``device`` (:func:`learner_device`; ``auto``: CUDA when present, the CPU with the
self-play batches); the labels stay in host memory and each step's batch crosses once.

Hands, not decisions, are split into training and holdout (``holdout``). On
the holdout it reports, to TensorBoard (``<out>/tensorboard``) and the progress
bar: ``distill/agreement_choice`` (the network's best candidate is the search's
choice), ``distill/agreement_best`` (... the candidate of the best search
value), ``distill/gain_over_prior`` (the label value of the network's best candidate less that of the
prior's play, averaged: with ``label.worlds=dealt`` labels an unbiased estimate of what the network's choices
gain over the prior's at one decision, the rest of the hand played by the rollout policy),
``distill/value_error`` (mean squared error of ``V`` to the return) and
``q/candidate_spread`` (standard deviation of Q between a decision's candidates;
``distill/search_spread`` is the same of the search's values). The result is an
ordinary DMC checkpoint (``<out>/latest.pt``, the source's configuration) that
``evaluate.py`` and ``play.py`` take as a participant; ``resume=true`` continues
it (weights, optimizer, step). With a holdout, ``<out>/best.pt`` is the checkpoint
of the lowest held-out distillation loss so far (``distill/distill_loss``): labels
of a few worlds each are noisy, and many passes over them overfit. Ctrl-C or SIGTERM
stops after the current step and saves.
"""

from __future__ import annotations

import json
import signal
from dataclasses import replace
from pathlib import Path
from typing import Any

import hydra
import numpy as np
import torch
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf
from torch import nn
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.distill.labels import Labels, label_header, read_labels
from agents.distill.targets import TARGETS, candidate_spread, distill_loss, distill_weight, keep_loss, segment_argmax
from agents.dmc.learner import train_step
from agents.dmc.learner_rules import learner_rules
from agents.dmc.models import q_and_values
from agents.selfplay.checkpoint import check_resumable, load_checkpoint, model_from_checkpoint, save_checkpoint
from agents.selfplay.config import resolve_device


class Batch:
    """Tensors of some labelled decisions, their candidates back to back (``owner``: their decision)."""

    def __init__(self, labels: Labels):
        self.n = len(labels)
        self.obs = torch.from_numpy(labels.obs.astype(np.float32))
        self.history = torch.from_numpy(labels.history.astype(np.float32))
        self.phase = torch.from_numpy(labels.phase.astype(np.int64))
        self.ret = torch.from_numpy(labels.ret)
        self.rows = torch.from_numpy(labels.cand_rows.astype(np.float32))
        self.values = torch.from_numpy(labels.cand_value)
        counts = torch.from_numpy(labels.cand_count.astype(np.int64))
        self.owner = torch.repeat_interleave(torch.arange(self.n), counts)
        self.first = torch.from_numpy(labels.offsets[:-1].astype(np.int64))
        """Each decision's first candidate row: the search prior's play."""
        self.chosen = self.first + torch.from_numpy(labels.chosen.astype(np.int64))
        self.best = segment_argmax(self.values, self.owner, self.n)

    def to(self, device: torch.device) -> Batch:
        """The same decisions with their tensors on ``device`` (the learner's)."""
        for name in ("obs", "history", "phase", "ret", "rows", "values", "owner", "first", "chosen", "best"):
            setattr(self, name, getattr(self, name).to(device))
        return self

    def forward(self, model: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
        """``(Q of every candidate row, V of every decision)``."""
        return q_and_values(model, self.obs, self.history, self.rows, self.owner, self.phase)


def check_learn(cfg: dict[str, Any]) -> None:
    """Refuse impossible ``learn`` settings with the option named."""
    if cfg["target"] not in TARGETS:
        raise ValueError(f"learn.target must be one of {TARGETS}, got {cfg['target']!r}")
    for name in ("steps", "batch_size", "eval_every", "save_every", "selfplay_tables"):
        if not isinstance(cfg[name], int) or cfg[name] < 1:
            raise ValueError(f"learn.{name} must be a positive integer, got {cfg[name]!r}")
    for name in ("temperature", "target_temperature", "learning_rate"):
        if not cfg[name] > 0:
            raise ValueError(f"learn.{name} must be positive, got {cfg[name]!r}")
    for name in ("distill_weight", "distill_floor", "value_weight", "q_weight", "anneal_steps", "selfplay_every"):
        if not cfg[name] >= 0:
            raise ValueError(f"learn.{name} must be >= 0, got {cfg[name]!r}")
    for name in ("anchor_weight", "keep_weight"):
        if not cfg.get(name, 0.0) >= 0:
            raise ValueError(f"learn.{name} must be >= 0, got {cfg[name]!r}")
    if not isinstance(cfg.get("renamings", False), bool):
        raise ValueError(f"learn.renamings must be true or false, got {cfg['renamings']!r}")
    repeat = cfg.get("override_repeat", 1)
    if not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"learn.override_repeat must be a positive integer, got {repeat!r}")
    if not 0 <= cfg["holdout"] < 1:
        raise ValueError(f"learn.holdout must be in [0, 1), got {cfg['holdout']!r}")
    device = learner_device(cfg)
    if cfg["selfplay_every"] and device.type != "cpu":
        raise ValueError(f"learn.selfplay_every plays its tables on the CPU: set learn.device=cpu (or auto) with "
                         f"it, not {cfg.get('device')!r}")


def learner_device(cfg: dict[str, Any]) -> torch.device:
    """Where the steps run: ``learn.device`` (``auto``: CUDA when present; the CPU when the self-play batches
    of ``selfplay_every`` come along, since their tables play on the CPU; a configuration without the key:
    the CPU)."""
    name = str(cfg.get("device", "cpu"))
    if name == "auto" and cfg["selfplay_every"]:
        return torch.device("cpu")
    return resolve_device(name, "learn.device")


def training_decisions(labels: Labels, train_idx: np.ndarray, cfg: dict[str, Any]) -> np.ndarray:
    """The decisions the steps draw their batches from: ``train_idx`` less the margin's ties
    (``skip_margin_kept``), with every decision where the search chose another play than its prior's
    repeated ``override_repeat`` times: the overrides are where the search knows more than the prior
    (whose play most labels are), so weighting them asks the network for more than the prior's play."""
    if cfg.get("skip_margin_kept", False):
        train_idx = train_idx[~labels.kept_by_margin()[train_idx]]
    repeat = cfg.get("override_repeat", 1)
    if repeat > 1:
        overrides = train_idx[labels.chosen[train_idx] != 0]
        train_idx = np.sort(np.concatenate([train_idx] + [overrides] * (repeat - 1)))
    return train_idx


def renamed_labels(labels: Labels, run, rng: np.random.Generator) -> Labels:
    """``labels`` with every decision's observation, history and candidate rows renamed by one renaming of its
    plain suits drawn by ``rng`` (``learn.renamings``): the values and choices stay, since a renaming changes
    neither a position's worth nor which of its plays is which. Bids (phase 0) stay as they are."""
    rules = learner_rules(run.rules)
    obs, history, rows = labels.obs.copy(), labels.history.copy(), labels.cand_rows.copy()
    offsets = labels.offsets
    for i in np.flatnonzero(labels.phase != 0):  # phase 0, the bids: a bid names its suit and is not renamed
        a, b = offsets[i], offsets[i + 1]
        obs[i], history[i], rows[a:b] = rules.renamed_encoding(run.rules, run.layout, labels.obs[i], labels.history[i],
                                                               labels.cand_rows[a:b], run.rules.layout.decks, rng)
    return replace(labels, obs=obs, history=history, cand_rows=rows)


def split_by_hand(labels: Labels, holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and holdout decisions; a hand's decisions all go to one side."""
    hands = np.unique(labels.hand)
    rng = np.random.default_rng(seed)
    held = set(rng.permutation(hands)[: round(holdout * len(hands))].tolist())
    mask = np.array([h in held for h in labels.hand.tolist()], dtype=bool)
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def loss_terms(model: nn.Module, batch: Batch, cfg: dict[str, Any], weight: float,
               anchor: nn.Module | None = None) -> tuple[torch.Tensor, dict]:
    """The step's loss and its parts (see the module docstring); ``anchor``: the starting network, whose
    ``V`` the ``anchor_weight`` term keeps (:func:`anchor_loss`) and whose candidate ordering the
    ``keep_weight`` term keeps (:func:`agents.distill.targets.keep_loss`)."""
    q, value = batch.forward(model)
    distill = distill_loss(q, batch.values, batch.owner, batch.n, cfg["target"], cfg["temperature"],
                           cfg["target_temperature"], batch.chosen)
    value_loss = torch.mean((value - batch.ret) ** 2)
    q_loss = torch.mean((q[batch.chosen] - batch.ret) ** 2)
    loss = weight * distill + cfg["value_weight"] * value_loss + cfg["q_weight"] * q_loss
    parts = {"distill_loss": float(distill.detach()), "value_loss": float(value_loss.detach()),
             "q_loss": float(q_loss.detach())}
    anchor_weight, keep_weight = cfg.get("anchor_weight", 0.0), cfg.get("keep_weight", 0.0)
    if anchor is not None and (anchor_weight or keep_weight):
        with torch.no_grad():
            q_before, value_before = batch.forward(anchor)
        if anchor_weight:
            anchored = anchor_loss(value, value_before)
            loss = loss + anchor_weight * anchored
            parts["anchor_loss"] = float(anchored.detach())
        if keep_weight:
            kept = keep_loss(q, q_before, batch.owner, batch.n, cfg["temperature"])
            loss = loss + keep_weight * kept
            parts["keep_loss"] = float(kept.detach())
    return loss, parts


def anchor_loss(value: torch.Tensor, value_before: torch.Tensor) -> torch.Tensor:
    """Mean squared change of ``V(s)`` from the starting network's (``value_before``) on a batch's decisions.

    Both distillation targets cancel ``V`` (they shape only the differences between a decision's
    candidates), so without a term on ``V`` the shared layers they change drag it anywhere: measured on
    imitation labels of the bids and the burial, softmax target, no value term, the held-out ``V`` error
    went from 0.4 to 7 million levels² in 3,000 steps. The return of a labelled hand is one noisy sample
    shared by all its decisions (and absent from imitation labels); the starting network's ``V`` was
    trained on millions of them, so it is the better thing to stay near.
    """
    return torch.mean((value - value_before) ** 2)


@torch.no_grad()
def holdout_figures(model: nn.Module, batch: Batch, cfg: dict[str, Any] | None = None) -> dict[str, float]:
    """Agreement with the search, the gain over the prior's play, value error and candidate spreads on held-out
    decisions (the module docstring names each); with the ``learn`` settings ``cfg``, also the distillation loss
    there (``distill_loss``, what ``best.pt`` keeps lowest: with noisy labels it says more than the agreement,
    which counts only each decision's top)."""
    if batch.n == 0:
        return {}
    model.eval()
    q, value = batch.forward(model)
    top = segment_argmax(q, batch.owner, batch.n)
    figures = {"agreement_choice": float((top == batch.chosen).float().mean()),
               "agreement_best": float((top == batch.best).float().mean()),
               "value_error": float(torch.mean((value - batch.ret) ** 2)),
               "candidate_spread": float(candidate_spread(q, batch.owner, batch.n).mean()),
               "search_spread": float(candidate_spread(batch.values, batch.owner, batch.n).mean()),
               "gain_over_prior": float((batch.values[top] - batch.values[batch.first]).mean())}
    if cfg is not None:
        figures["distill_loss"] = float(distill_loss(q, batch.values, batch.owner, batch.n, cfg["target"],
                                                     cfg["temperature"], cfg["target_temperature"], batch.chosen))
    return figures


def write_figures(writer: SummaryWriter, figures: dict[str, float], step: int) -> None:
    """The holdout figures under their TensorBoard tags."""
    for key, value in figures.items():
        writer.add_scalar(("q/" if key == "candidate_spread" else "distill/") + key, value, step)


def learn(config: dict[str, Any]) -> dict[str, Any]:
    """Run (or resume) the distillation step of ``config``; returns the final holdout figures."""
    cfg = config["learn"]
    check_learn(cfg)
    out = Path(to_absolute_path(str(cfg["out"])))
    source = to_absolute_path(str(cfg["checkpoint"]))
    state = load_checkpoint(source)
    model, run = model_from_checkpoint(state)
    device = learner_device(cfg)
    model.to(device)
    renamings = cfg.get("renamings", False)
    if renamings and (run.action_mode != "play" or not learner_rules(run.rules).has_renamings):
        raise ValueError(f"learn.renamings: the {run.rules.name} rule set's {run.action_mode}-mode decisions "
                         "have no renamings of their suits")
    labels = read_labels([to_absolute_path(str(d)) for d in cfg["labels"]], label_header(run, {}))
    train_idx, hold_idx = split_by_hand(labels, cfg["holdout"], cfg["seed"])
    train_idx = training_decisions(labels, train_idx, cfg)
    if len(train_idx) == 0:
        raise ValueError("no labelled decisions left for training (learn.holdout too large or empty labels)")
    holdout = Batch(labels.select(hold_idx)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["learning_rate"])
    keeps_start = cfg.get("anchor_weight", 0.0) or cfg.get("keep_weight", 0.0)
    anchor = model_from_checkpoint(state)[0].eval().to(device) if keeps_start else None
    counters = dict(state["counters"])
    step = 0
    latest = out / "latest.pt"
    if cfg["resume"]:
        resumed = load_checkpoint(latest)
        model.load_state_dict(check_resumable(resumed, run, latest).state_dict())
        if resumed.get("optimizer") is not None:
            optimizer.load_state_dict(resumed["optimizer"])
        counters = dict(resumed["counters"])
        step = int(counters.get("distill_steps", 0))
        print(f"resumed from {latest} at step {step}")
    counters["distill_decisions"] = len(labels)
    tables = None
    if cfg["selfplay_every"]:
        from agents.dmc.play_tables import PlayTables

        tables = PlayTables(cfg["selfplay_tables"], cfg["seed"] + step, run)
    writer = SummaryWriter(str(out / "tensorboard"))
    stop = {"now": False}

    def on_signal(signum, frame) -> None:
        stop["now"] = True

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}

    def save(path: Path = latest) -> None:
        counters["distill_steps"] = step
        save_checkpoint(path, model=model, optimizer=optimizer, config=state["config"], counters=counters)

    best = float(counters.get("distill_best_loss", np.inf))
    if step == 0:
        figures = holdout_figures(model, holdout, cfg)
        write_figures(writer, figures, 0)
        print("before:", json.dumps(figures))
    progress = tqdm(total=cfg["steps"], initial=step, unit="step", desc="distilling", dynamic_ncols=True)
    figures: dict[str, float] = {}
    try:
        while step < cfg["steps"] and not stop["now"]:
            rng = np.random.default_rng([cfg["seed"], step])  # the batch of a step does not depend on resumes
            drawn = labels.select(np.sort(rng.choice(train_idx, min(cfg["batch_size"], len(train_idx)), replace=False)))
            batch = Batch(renamed_labels(drawn, run, rng) if renamings else drawn).to(device)
            weight = distill_weight(step, cfg["distill_weight"], cfg["distill_floor"], cfg["anneal_steps"])
            model.train()
            loss, parts = loss_terms(model, batch, cfg, weight, anchor)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
            optimizer.step()
            if tables is not None and step % cfg["selfplay_every"] == 0:
                parts.update({f"selfplay_{k}": v for k, v in selfplay_step(tables, model, optimizer, run).items()})
                counters["selfplay_batches"] = counters.get("selfplay_batches", 0) + 1
            step += 1
            if step % 20 == 0:
                for key, value in parts.items():
                    writer.add_scalar(f"losses/{key}", value, step)
                writer.add_scalar("distill/weight", weight, step)
            progress.update(1)
            progress.set_postfix(distill=f"{parts['distill_loss']:.3f}", value=f"{parts['value_loss']:.3f}")
            if step % cfg["eval_every"] == 0 or step == cfg["steps"]:
                figures = holdout_figures(model, holdout, cfg)
                write_figures(writer, figures, step)
                progress.write(f"step {step}: " + json.dumps({k: round(v, 4) for k, v in figures.items()}))
                if figures and figures["distill_loss"] < best:
                    best = counters["distill_best_loss"] = figures["distill_loss"]
                    save(out / "best.pt")
            if step % cfg["save_every"] == 0:
                save()
    finally:
        progress.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
        save()
        writer.close()
    print(f"checkpoint: {latest} ({step} steps on {len(np.unique(train_idx))} decisions; {len(hold_idx)} held out)")
    return figures or holdout_figures(model, holdout, cfg)


def selfplay_step(tables, model: nn.Module, optimizer: torch.optim.Optimizer, run) -> dict[str, float]:
    """One batch of the network's own self-play, trained by the DMC loss (no teacher)."""
    batch = None
    while batch is None:
        model.eval()
        tables.step(model, run.train.epsilon_end)
        batch = tables.collect(run.train.batch_size)
    stats = train_step(model, optimizer, batch, torch.device("cpu"), run.train)
    return {"q_loss": stats["q_loss"], "value_loss": stats.get("value_loss", 0.0)}


@hydra.main(version_base=None, config_path="../../conf", config_name="distill")
def main(cfg: DictConfig) -> None:
    """Entry point: the ``learn`` section of conf/distill.yaml."""
    learn(OmegaConf.to_container(cfg, resolve=True))


if __name__ == "__main__":
    main()
