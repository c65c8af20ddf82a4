"""Where a network agrees with the search's labels: ``python -m agents.distill.agreement``.

The learner's held-out agreement (:func:`agents.distill.learn.holdout_figures`) is one number over all
decisions, and most decisions are ones where the search kept its prior's play: a network that is its
prior scores high there without having learnt anything. This splits it the way that tells a learner's
limits apart, on the learner's own split of the hands (``--holdout``, ``--seed``, as ``learn.holdout``
and ``learn.seed``), with the margin's ties left out as the learner leaves them
(:meth:`agents.distill.labels.Labels.kept_by_margin`):

* the share of the **overrides** (the search chose another play than its prior's) whose chosen play is the
  network's best candidate, and of the **kept** decisions (the prior's play chosen), on training and on
  held-out hands: a network that fits the training overrides and not the held-out ones lacks labels, not
  capacity; one that fits neither is held back by its learner (or its size);
* with ``--renamings``, the share of held-out decisions whose best candidate is the same when the decision
  is shown under a random renaming of its plain suits (a position worth the same; ``learn.renamings``);
* the **gain over the prior** on held-out hands: the label value of the network's best candidate less that
  of the prior's play, averaged over decisions, with its 95% interval, and for every checkpoint after the
  first the same paired against the first. On labels of ``label.worlds=dealt`` (one rollout a candidate in
  the hand's own deal) it is an unbiased estimate of what the network's choice at one decision is worth
  over the prior's, the rest of the hand played by the rollout policy. ``--holdout 1`` holds out every hand
  (a test set no learner read).

    python -m agents.distill.agreement checkpoints/dmc_play_distill3.pt outputs/distill/n3/latest.pt \\
        --labels data/labels/d3N_71 data/labels/d3N_72 --renamings
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from agents.distill.labels import Labels, label_header, read_labels
from agents.distill.learn import Batch, renamed_labels, split_by_hand
from agents.distill.targets import segment_argmax
from agents.evaluation.stats import ratio_ci
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint


@dataclass(frozen=True)
class Agreement:
    """One network's agreement with the search's choice on one side of the split."""

    decisions: int
    overrides: int
    on_overrides: float
    on_kept: float

    def line(self, side: str) -> str:
        return (f"{side}: {self.decisions} decisions, the search's choice is the network's best play on "
                f"{self.on_overrides:.3f} of {self.overrides} overrides and {self.on_kept:.3f} of the kept")


@torch.no_grad()
def best_candidates(model: nn.Module, labels: Labels, chunk: int = 2000) -> np.ndarray:
    """Each decision's best candidate under ``model``, as an index within the decision."""
    model.eval()
    best = []
    for start in range(0, len(labels), chunk):
        part = labels.select(np.arange(start, min(len(labels), start + chunk)))
        batch = Batch(part)
        q, _ = batch.forward(model)
        best.append(segment_argmax(q, batch.owner, batch.n).numpy() - part.offsets[:-1])
    return np.concatenate(best) if best else np.zeros(0, dtype=np.int64)


def agreement(model: nn.Module, labels: Labels) -> Agreement:
    """The share of ``labels``' overrides and kept decisions where ``model``'s best play is the search's."""
    same = best_candidates(model, labels) == labels.chosen
    overrides = labels.chosen != 0
    return Agreement(len(labels), int(overrides.sum()), float(same[overrides].mean()) if overrides.any() else 0.0,
                     float(same[~overrides].mean()) if (~overrides).any() else 0.0)


def gains_over_prior(model: nn.Module, labels: Labels) -> np.ndarray:
    """Per decision, the label value of ``model``'s best candidate less that of the first (the prior's play)."""
    first = labels.offsets[:-1]
    return labels.cand_value[first + best_candidates(model, labels)] - labels.cand_value[first]


def interval(values: np.ndarray) -> str:
    """``mean +- half-width`` of the mean's 95% interval (:func:`agents.evaluation.stats.ratio_ci`)."""
    estimate = ratio_ci(values.tolist())
    return f"{estimate.value:+.4f} +- {(estimate.high - estimate.low) / 2:.4f}"


def renaming_consistency(model: nn.Module, labels: Labels, run, seed: int = 0) -> float:
    """The share of decisions whose best candidate stays the same under a random renaming of the plain suits."""
    renamed = renamed_labels(labels, run, np.random.default_rng(seed))
    return float(np.mean(best_candidates(model, labels) == best_candidates(model, renamed)))


def split(labels: Labels, holdout: float, seed: int, train_sample: int | None) -> tuple[Labels, Labels]:
    """The learner's training and held-out decisions, the margin's ties left out of both; at most
    ``train_sample`` training decisions (drawn by ``seed``) so a large set reads in seconds."""
    train_idx, hold_idx = split_by_hand(labels, holdout, seed)
    ties = labels.kept_by_margin()
    train_idx, hold_idx = train_idx[~ties[train_idx]], hold_idx[~ties[hold_idx]]
    if train_sample is not None and len(train_idx) > train_sample:
        train_idx = np.sort(np.random.default_rng(seed).choice(train_idx, train_sample, replace=False))
    return labels.select(train_idx), labels.select(hold_idx)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: the figures of each checkpoint on the given label sets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="networks of one rule set and layout")
    parser.add_argument("--labels", nargs="+", required=True, help="label set directories (data/labels/...)")
    parser.add_argument("--holdout", type=float, default=0.1,
                        help="share of hands held out (learn.holdout; 1: every hand, a test set)")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed (learn.seed)")
    parser.add_argument("--train-sample", type=int, default=8000, help="training decisions read at most")
    parser.add_argument("--renamings", action="store_true", help="also the consistency under suit renamings")
    args = parser.parse_args(argv)
    if not 0 < args.holdout <= 1:
        parser.error(f"--holdout must be in (0, 1], got {args.holdout}")
    torch.set_num_threads(1)
    run = model_from_checkpoint(load_checkpoint(args.checkpoints[0]))[1]
    train, held = split(read_labels(args.labels, label_header(run, {})), args.holdout, args.seed, args.train_sample)
    reference = None
    for path in args.checkpoints:
        model, other = model_from_checkpoint(load_checkpoint(path))
        if label_header(other, {}) != label_header(run, {}):
            raise SystemExit(f"{path} does not match {args.checkpoints[0]}'s rule set, layout or features")
        print(path)
        if len(train):
            print("  " + agreement(model, train).line("training hands"))
        print("  " + agreement(model, held).line("held-out hands"))
        gains = gains_over_prior(model, held)
        paired = "" if reference is None else f"; less {args.checkpoints[0]}'s, paired: {interval(gains - reference)}"
        reference = gains if reference is None else reference
        print(f"  held-out hands: the label value of the best play less the prior's {interval(gains)}{paired}")
        if args.renamings:
            print(f"  held-out hands: the same best play under a renaming of the plain suits on "
                  f"{renaming_consistency(model, held, run, args.seed):.3f}")


if __name__ == "__main__":
    main()
