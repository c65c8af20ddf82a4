"""Acting with the Q-network (:mod:`agents.dmc.inference`): the sparse evaluation gives the dense
network's numbers, follows weight updates, and leaves the cases it does not cover to the dense path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.dmc.inference import acting_q_values, sparse_linear
from agents.dmc.models import q_and_values
from agents.dmc.play_tables import PlayTables
from agents.selfplay.checkpoint import new_model
from env.core.cards import NUM_KINDS
from env.core.errors import IllegalActionError
from env.shengji_env import AGENTS, raw_env
from env.standard.actions import composer_for
from env.standard.hand import Phase
from tests.test_train import small_run

TOLERANCE = 1e-5


def self_play_batches(run, steps: int = 260, tables: int = 4) -> list[tuple[torch.Tensor, ...]]:
    """The learner's batched inputs (obs, history, candidate rows, index, phase) of some self-play steps."""
    model = new_model(run).eval()
    batches = []
    import agents.dmc.play_tables as play_tables

    real = play_tables.acting_q_values

    def record(model, obs, history, rows, index, phase, baseline=True):
        with torch.inference_mode(False):  # self-play steps in inference mode; the copies are plain tensors
            batches.append((obs.clone(), history.clone(), rows.clone(), index.clone(), phase.clone()))
        return real(model, obs, history, rows, index, phase, baseline)

    play_tables.acting_q_values = record
    try:
        table = PlayTables(tables, 11, run)
        for _ in range(steps):
            table.step(model, 0.2)
    finally:
        play_tables.acting_q_values = real
    return batches


@pytest.fixture(scope="module")
def lstm_run():
    return small_run("model=lstm", "model.value_head=true", "history_len=8")


@pytest.fixture(scope="module")
def batches(lstm_run):
    return self_play_batches(lstm_run)


def assert_same(model, obs, history, rows, index, phase):
    with torch.no_grad():
        q, v = acting_q_values(model, obs, history, rows, index, phase)
        q_dense, v_dense = q_and_values(model, obs, history, rows, index, phase)
    assert torch.allclose(q, q_dense, atol=TOLERANCE) and torch.allclose(v, v_dense, atol=TOLERANCE)


def test_sparse_linear_is_the_dense_product():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(7, 40, generator=generator) * (torch.rand(7, 40, generator=generator) < 0.1)
    x[3] = 0.0  # a row with nothing set
    weight, bias = torch.randn(40, 9, generator=generator), torch.randn(9, generator=generator)
    assert torch.allclose(sparse_linear(x, weight, bias), x @ weight + bias, atol=TOLERANCE)
    assert torch.allclose(sparse_linear(torch.zeros(2, 40), weight, bias), bias.expand(2, -1))


def test_self_play_batches_score_as_the_dense_network(lstm_run, batches):
    torch.manual_seed(1)
    model = new_model(lstm_run).eval()
    starts = set()
    for obs, history, rows, index, phase in batches:
        set_rows = history.ne(0).any(dim=2)
        starts.update(set_rows.float().argmax(dim=1)[set_rows.any(dim=1)].tolist())
        assert_same(model, obs, history, rows, index, phase)
    assert {0, 7} <= starts  # both a full window and sequences that start late were compared


def test_histories_with_gaps_and_all_zero_ones_score_as_the_dense_network(lstm_run, batches):
    """A zero row inside a history is run through the recurrence; only the leading ones are skipped."""
    torch.manual_seed(2)
    model = new_model(lstm_run).eval()
    obs, history, rows, index, phase = batches[-1]
    history = history.clone()
    history[0] = 0.0  # no trick yet
    history[1, 5] = 0.0  # a zero row after set ones
    history[2, :3] = torch.rand(3, history.shape[2]) * (torch.rand(3, history.shape[2]) < 0.05)
    history[2, 3] = 0.0
    assert_same(model, obs, history, rows, index, phase)
    one = index == 0  # a single decision, as an agent scores it
    assert_same(model, obs[:1], history[:1], rows[one], index[one], phase[:1])


def test_a_model_without_history_or_value_head_scores_as_the_dense_network(batches):
    torch.manual_seed(3)
    model = new_model(small_run("model=mlp", "model.value_head=false", "history_len=8")).eval()
    for obs, history, rows, index, phase in batches[:20]:
        assert_same(model, obs, history, rows, index, phase)


def test_new_weights_are_used_at_once(lstm_run, batches):
    torch.manual_seed(4)
    model = new_model(lstm_run).eval()
    obs, history, rows, index, phase = batches[-1]
    assert_same(model, obs, history, rows, index, phase)  # builds the cached weights
    other = new_model(lstm_run)
    model.load_state_dict(other.state_dict())  # in place, as an actor takes the learner's weights
    assert_same(model, obs, history, rows, index, phase)
    with torch.no_grad():
        other_q = q_and_values(other.eval(), obs, history, rows, index, phase)[0]
        assert torch.allclose(acting_q_values(model, obs, history, rows, index, phase)[0], other_q, atol=TOLERANCE)


def test_without_the_baseline_each_decision_shifts_by_its_value(lstm_run, batches):
    torch.manual_seed(5)
    model = new_model(lstm_run).eval()
    obs, history, rows, index, phase = batches[-1]
    with torch.no_grad():
        q, value = acting_q_values(model, obs, history, rows, index, phase)
        advantage, zeros = acting_q_values(model, obs, history, rows, index, phase, baseline=False)
    assert torch.allclose(q - advantage, value[index], atol=TOLERANCE) and not zeros.any()
    assert value.abs().max() > 0


def test_layers_other_than_linear_and_relu_are_called_as_modules(lstm_run, batches):
    """The layers after the sparse ones run as plain linear and relu calls only when that is all they are."""
    from agents.dmc.inference import _plain_layers

    torch.manual_seed(6)
    model = new_model(lstm_run).eval()
    assert _plain_layers(model.obs_encoder[1:]) is not None and _plain_layers(model.head[1:]) is not None
    model.obs_encoder[1] = torch.nn.Tanh()  # no longer linear and relu only: the modules themselves run
    model.head.append(torch.nn.Identity())
    assert _plain_layers(model.obs_encoder[1:]) is None and _plain_layers(model.head[1:]) is None
    obs, history, rows, index, phase = batches[-1]
    assert_same(model, obs, history, rows, index, phase)
    with torch.no_grad():
        tanh_q = acting_q_values(model, obs, history, rows, index, phase)[0]
        model.obs_encoder[1] = torch.nn.ReLU()
        assert not torch.allclose(acting_q_values(model, obs, history, rows, index, phase)[0], tanh_q)


def test_gradients_and_other_models_take_the_dense_path(lstm_run, batches):
    obs, history, rows, index, phase = batches[-1]
    model = new_model(lstm_run)
    q, _ = acting_q_values(model, obs, history, rows, index, phase)
    assert q.requires_grad  # computed by the modules, so a loss could train through it
    for overrides in (["model=transformer"], ["model.per_phase=true"]):
        other = new_model(small_run(*overrides, "history_len=8")).eval()
        assert_same(other, obs, history, rows, index, phase)


def test_encode_is_observe_without_the_mask_and_a_mask_built_late_is_exact():
    """The environment builds a card decision's mask only when asked; what it gives is unchanged."""
    env = raw_env()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    whole_plays = refused = 0
    while not any(env.terminations.values()):
        agent = env.agent_selection
        seat = AGENTS.index(agent)
        observation, history = env.encode(agent)
        fresh = env.hand.phase in (Phase.KITTY, Phase.PLAY) and not env.decision.picked
        if fresh and env.hand.phase == Phase.PLAY and rng.random() < 0.5:
            if whole_plays % 3 == 0:  # an illegal card step before any mask was built: refused, nothing changes
                missing = next(k for k in range(NUM_KINDS) if not env.hand.hands[seat][k])
                before = env.encode(agent)
                with pytest.raises(IllegalActionError):
                    env.step(missing)
                assert all(np.array_equal(a, b) for a, b in zip(before, env.encode(agent), strict=True))
                refused += 1
            plays = env.legal_plays().plays
            env.play(plays[int(rng.integers(len(plays)))])  # a whole play: no mask asked for
            whole_plays += 1
            continue
        full = env.observe(agent)
        assert np.array_equal(observation, full["observation"]) and np.array_equal(history, full["history"])
        if fresh:
            assert np.array_equal(full["action_mask"], composer_for(env.hand, seat).mask())
        env.step(int(rng.choice(np.flatnonzero(full["action_mask"]))))
    assert whole_plays > 5 and refused > 1
