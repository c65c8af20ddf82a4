"""Imitation labels for the bids and the burial (agents/distill/bids.py): the teacher's choices, learnable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.distill.bids import make_bid_labeller, run_bid_labelling
from agents.distill.labels import label_header, read_labels, shard_paths
from agents.distill.learn import Batch, holdout_figures, learn
from agents.dmc.learner_rules import decision_candidates
from agents.selfplay.checkpoint import load_checkpoint, model_from_checkpoint
from env.core.actions import PASS
from env.standard.actions import bid_action, composer_for
from env.standard.phases import Phase
from env.standard.view import view_of
from tests.test_distill import NETWORK, _config


def _bids_config(tmp: Path, **bids) -> dict:
    config = _config(tmp)
    config["bids"] = {"network": NETWORK, "teacher": "expert", "hands": 2, "hands_per_shard": 1, "seed": 5,
                      "out": str(tmp / "bids"), **bids}
    config["learn"].update(labels=[str(tmp / "bids")], target="softmax", target_temperature=0.05,
                           value_weight=0.0, q_weight=0.0)
    return config


def test_the_labels_are_the_teachers_bids_and_burial_on_the_networks_own_hands(tmp_path):
    labeller, header = make_bid_labeller(_bids_config(tmp_path, shuffle_burial=False))  # replayed in kind order
    assert header["candidates"] == "bids" and header["prior"] == "expert"
    labels = labeller.label_hand(0)
    # Replay the hand as the labeller played it (the network's own decisions) and collect the teacher's.
    labeller.env.reset(seed=labeller.seed * 1_000_003 + 0)
    hand = labeller.env.hand
    expected: list[tuple[int, object]] = []
    while hand.phase not in (Phase.PLAY, Phase.DONE):
        view = view_of(hand, hand.current_player)
        if hand.phase.takes_bids and len(labeller.bid_rows(view)) == 1:
            bid = labeller.teacher.bid(view)
            expected.append((0, PASS if bid is None else bid_action(bid)))
        elif hand.phase == Phase.KITTY:
            composer = composer_for(view)
            for card in sorted(labeller.teacher.bury(view)):
                if len(decision_candidates(view, "canonical", composer.mask()).moves) > 1:
                    expected.append((1, card))
                composer.add(card)
        hand.act(view.seat, labeller.network.act(view))
    assert labels.phase.tolist() == [phase for phase, _ in expected]
    assert np.any(labels.phase == 1)  # a burial was labelled
    offsets = labels.offsets
    for i in range(len(labels)):
        values = labels.cand_value[offsets[i]:offsets[i + 1]]
        assert values[labels.chosen[i]] == 1.0 and set(values.tolist()) <= {0.0, 1.0}
        if labels.phase[i] == 0:
            assert values.sum() == 1.0  # a bid: one-hot on the teacher's action
    burial = np.flatnonzero(labels.phase == 1)
    ones = [int(labels.cand_value[offsets[i]:offsets[i + 1]].sum()) for i in burial]
    assert ones[0] > 1 and ones == sorted(ones, reverse=True)  # the teacher's cards still to bury
    assert np.all(labels.ret == 0)


def test_bid_labels_run_end_to_end_resume_and_teach_the_teachers_choice(tmp_path):
    config = _bids_config(tmp_path, hands=2)
    hands, decisions, stopped = run_bid_labelling(config)
    assert (hands, stopped) == (2, False) and decisions > 5 and len(shard_paths(tmp_path / "bids")) == 2
    config["bids"]["hands"] = 3
    assert run_bid_labelling(config)[0] == 3
    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    labels = read_labels([tmp_path / "bids"], label_header(run, {}))
    before = holdout_figures(model, Batch(labels))["agreement_choice"]
    config["learn"].update(steps=40, learning_rate=1e-3, batch_size=32, eval_every=40, save_every=40,
                           temperature=0.05, distill_floor=1.0)
    learn(config)
    trained = model_from_checkpoint(load_checkpoint(tmp_path / "learn" / "latest.pt"))[0]
    assert holdout_figures(trained, Batch(labels))["agreement_choice"] > before
    with pytest.raises(ValueError, match=r"bids\.hands"):
        make_bid_labeller(_bids_config(tmp_path, hands=0))


def test_the_anchor_keeps_v_near_the_starting_networks_while_the_imitation_moves_the_rest(tmp_path):
    """Imitation labels carry no return and the softmax target cancels V: with anchor_weight the held-out
    V stays near the starting network's, without it the same steps drag it further."""
    config = _bids_config(tmp_path, hands=2)
    run_bid_labelling(config)
    model, run = model_from_checkpoint(load_checkpoint(NETWORK))
    batch = Batch(read_labels([tmp_path / "bids"], label_header(run, {})))
    with torch.no_grad():
        _, start = batch.forward(model.eval())
    drift = {}
    for weight in (0.0, 10.0):
        config["learn"].update(steps=30, learning_rate=3e-3, batch_size=32, eval_every=30, save_every=30,
                               temperature=0.03, distill_floor=1.0, anchor_weight=weight,
                               out=str(tmp_path / f"learn{weight}"))
        learn(config)
        trained = model_from_checkpoint(load_checkpoint(tmp_path / f"learn{weight}" / "latest.pt"))[0].eval()
        with torch.no_grad():
            _, value = batch.forward(trained)
        drift[weight] = float(((value - start) ** 2).mean())
    assert drift[10.0] < drift[0.0] / 2
    config["learn"]["anchor_weight"] = -1.0
    with pytest.raises(ValueError, match="anchor_weight"):
        learn(config)


def test_burial_only_labels_hold_no_bids(tmp_path):
    labeller, header = make_bid_labeller(_bids_config(tmp_path, label_bids=False))
    assert header["candidates"] == "burial"
    labels = labeller.label_hand(1)
    assert len(labels) > 0 and set(labels.phase.tolist()) == {1}


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_teachers_burial_is_labelled_in_kind_order_or_shuffled(tmp_path, monkeypatch, shuffle):
    """The steps follow the teacher's cards in kind order, or (shuffle_burial) a random order of the same
    cards, so the network meets picks in the orders it takes them in."""
    import agents.distill.bids as bids_module

    orders: list[list[int]] = []

    class Recording:  # the burial's composer, noting each card added
        def __init__(self, view):
            self.composer = composer_for(view)
            orders.append([])

        def __getattr__(self, name):
            return getattr(self.composer, name)

        def add(self, card):
            orders[-1].append(card)
            self.composer.add(card)
    monkeypatch.setattr(bids_module, "composer_for", Recording)
    labeller, _ = make_bid_labeller(_bids_config(tmp_path, label_bids=False, shuffle_burial=shuffle))
    for number in range(4):
        labeller.label_hand(number)
    assert len(orders) == 4 and all(len(order) == 8 for order in orders)
    in_kind_order = [order == sorted(order) for order in orders]
    assert all(in_kind_order) if not shuffle else not all(in_kind_order)
