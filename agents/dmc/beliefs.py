"""Grafting a belief about the unseen cards onto a trained Q-network: ``python -m agents.dmc.beliefs``.

A play network reads its observation and the trick history; where the unseen
cards probably are is in there, but the returns and the search's labels are
too sparse a signal to teach it. The location model (:mod:`agents.search.locations`)
learnt exactly that from where the cards really were. :func:`graft_beliefs`
puts a frozen copy of it in front of the network's observation MLP
(``model.beliefs``, :class:`agents.dmc.models.QNetwork`): the new first-layer
columns that read the odds start at zero, so the grafted network computes the
same Q and V as the one it came from, and learning (the distillation learner,
:mod:`agents.distill.learn`, or self-play) decides how much of the belief to use.

    python -m agents.dmc.beliefs checkpoints/dmc_play_distill3.pt checkpoints/locations/locations1.pt out.pt
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

import torch

from agents.dmc.models import BELIEF_PLACES
from agents.search.locations import LAYOUT, load_model
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, model_from_checkpoint, save_checkpoint


def graft_beliefs(state: dict[str, Any], location_model: str | Path, scale: float = 1.0) -> dict[str, Any]:
    """A checkpoint state whose network reads the location model's odds beside its observation, computing
    what ``state``'s network computes until it learns otherwise.

    Continue it with the distillation learner (its ``learn.checkpoint``) or with ``train.py resume=true
    resume_from=<grafted> model.beliefs=<slots> model.belief_scale=<scale>`` (self-play).

    Refused (:class:`CheckpointError`, the reason named) for a network that has a belief already, is not one
    shared :class:`QNetwork` (one per phase), or reads another layout than the location model's; the location
    model must fit the checkpoint's rule set and deck count (:func:`agents.search.locations.load_model`).
    """
    run = model_from_checkpoint(state)[1]  # the source's weights fit its network, or this raises naming why
    if run.model.per_phase:
        raise CheckpointError("a belief is grafted onto one shared network, not one per phase (model.per_phase)")
    if run.model.beliefs:
        raise CheckpointError("the checkpoint's network reads a belief already (model.beliefs="
                              f"{run.model.beliefs})")
    if run.layout != LAYOUT:
        raise CheckpointError(f"the location model reads the {LAYOUT!r} layout, the checkpoint {run.layout!r}")
    try:
        locations = load_model(location_model, run.rules)
    except ValueError as exc:
        raise CheckpointError(str(exc)) from None
    weights = dict(state["model"])
    first = weights["obs_encoder.0.weight"]
    odds_columns = first.new_zeros(first.shape[0], locations.slots * BELIEF_PLACES)
    weights["obs_encoder.0.weight"] = torch.cat([first, odds_columns], dim=1)
    for name, value in locations.net.state_dict().items():
        weights[f"beliefs.{name}"] = value
    config = copy.deepcopy(state["config"])
    config["model"] = {**config["model"], "beliefs": locations.slots, "belief_hidden": locations.hidden,
                       "belief_scale": float(scale)}
    grafted = {**state, "model": weights, "config": config, "optimizer": None}
    model_from_checkpoint(grafted)  # the weights fit the configured network, or this raises naming why
    return grafted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.dmc.beliefs", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a DMC checkpoint (one shared network, canonical layout)")
    parser.add_argument("locations", help="a location model (python -m agents.search.locations learn)")
    parser.add_argument("out", help="where to write the grafted checkpoint")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="model.belief_scale: the odds' factor at the first layer (default 1)")
    args = parser.parse_args(argv)
    try:
        state = graft_beliefs(load_checkpoint(args.checkpoint), args.locations, args.scale)
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    model, _ = model_from_checkpoint(state)
    try:
        save_checkpoint(args.out, model=model, optimizer=None, config=state["config"], counters=state["counters"],
                        rng=state.get("rng"))
    except OSError as exc:
        print(f"error: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {args.checkpoint} reading the odds of {args.locations} "
          f"({state['config']['model']['beliefs']} card slots)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
