"""Acting with a Q-network on the CPU: the same Q values as :meth:`QNetwork.evaluate`, computed sparsely.

Self-play spends about a third of its time in the forward pass, and its inputs
are mostly zeros: about 7% of the observation, 2% of the trick history and 3%
of the candidate rows are set. So the three layers that read them are computed
as sums over the set entries only (``embedding_bag`` over the transposed
weights), which gives the dense layers' numbers up to float rounding:

* the observation MLP's first layer;
* the LSTM's input projection, after which the recurrence runs step by step;
  a history's leading all-zero rows (the front padding) all lead to the same
  state, computed once per weight version, so each sequence only runs over its
  own rows, and a decision before the first trick needs no recurrence at all;
* the action half of the head's first layer (the state half is once per
  decision, as in :meth:`QNetwork.score_candidates`);
* with a belief (``model.beliefs``), its own first layer, whose dense odds then
  join the observation MLP's first layer as one dense product.

The layers after those run as plain ``linear`` and ``relu`` calls on the cached
weights (the modules' own kernels, without the per-module call overhead that a
batch of 32 decisions otherwise pays a dozen times), and the recurrence runs
all of a batch's sequences together once none of them is still in its padding.

It is for acting only (no gradients; training uses the dense modules). Other
models (a Transformer history, one network per phase, a GPU, gradients on) go
through :func:`agents.dmc.models.q_and_values` unchanged. The transposed weights
are kept per model and rebuilt when any parameter changes (an actor loading the
learner's weights in place bumps their version counters).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional

from agents.dmc.models import QNetwork, belief_odds, q_and_values

Layers = tuple[tuple[torch.Tensor, torch.Tensor] | None, ...]
"""An MLP's modules in order: ``(weight, bias)`` for a linear layer, ``None`` for a ReLU."""


def _plain_layers(modules: nn.Sequential) -> Layers | None:
    """``modules`` as :data:`Layers` when they are only ``Linear`` (with a bias) and ``ReLU`` layers (what
    :func:`agents.dmc.models._mlp` builds); ``None`` for anything else, which is then called as a module."""
    layers: list[tuple[torch.Tensor, torch.Tensor] | None] = []
    for module in modules:
        if isinstance(module, nn.Linear) and module.bias is not None:
            layers.append((module.weight.detach(), module.bias.detach()))
        elif isinstance(module, nn.ReLU):
            layers.append(None)
        else:
            return None
    return tuple(layers)


def _acting_mlp(modules: nn.Sequential) -> Callable[[torch.Tensor], torch.Tensor]:
    """``modules`` as a function of a fresh input (a ReLU may overwrite it): plain ``linear`` and ``relu_`` calls
    on their weights when :func:`_plain_layers` reads them, else the modules themselves."""
    layers = _plain_layers(modules)
    if layers is None:
        return modules

    def run(x: torch.Tensor) -> torch.Tensor:
        for layer in layers:
            x = torch.relu_(x) if layer is None else functional.linear(x, *layer)
        return x

    return run


class _SparseWeights:
    """One model's weights in the form the sparse evaluation reads, for one version of its parameters."""

    def __init__(self, model: QNetwork):
        self.parameters = list(model.parameters())
        self.key = self.read_from(model)
        first = model.obs_encoder[0]
        obs_weight = first.weight.detach().t()
        self.obs_weight, self.obs_bias = obs_weight[:model.obs_size].contiguous(), first.bias.detach().clone()
        self.belief_first: tuple[torch.Tensor, torch.Tensor] | None = None
        if model.beliefs is not None:  # the belief reads the same sparse observation; its odds are dense
            self.odds_weight = obs_weight[model.obs_size:].contiguous()
            belief = model.beliefs[0]
            self.belief_first = (belief.weight.detach().t().contiguous(), belief.bias.detach().clone())
            self.belief_rest = _acting_mlp(model.beliefs[1:])
        head = model.head[0]
        split = head.in_features - model.action_size
        self.head_state = head.weight.detach()[:, :split].clone()
        self.head_action, self.head_bias = head.weight.detach()[:, split:].t().contiguous(), head.bias.detach().clone()
        self.obs_rest, self.head_rest = _acting_mlp(model.obs_encoder[1:]), _acting_mlp(model.head[1:])
        encoder = model.history_encoder
        self.lstm = encoder.kind == "lstm"
        if self.lstm:
            rnn = encoder.rnn
            self.input_weight = rnn.weight_ih_l0.detach().t().contiguous()
            self.recurrent_weight = rnn.weight_hh_l0.detach().t().contiguous()
            self.gate_bias = (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach()
            self.padding_states = self._padding_states(model.history_shape[0], rnn.hidden_size)

    def _padding_states(self, length: int, hidden: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``(h, c)`` after ``k`` all-zero history rows from the zero state, for ``k`` in ``0..length``."""
        h, c = [torch.zeros(1, hidden)], [torch.zeros(1, hidden)]
        for _ in range(length):
            state = self.cell(self.gate_bias.unsqueeze(0), h[-1], c[-1])
            h.append(state[0])
            c.append(state[1])
        return torch.cat(h), torch.cat(c)

    def read_from(self, model: QNetwork) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """What these weights were read from: the identities of ``model``'s MLP modules (a module put in
        another's place changes them) and its parameters' version counters (they change with every in-place
        update of the weights)."""
        beliefs = () if model.beliefs is None else tuple(model.beliefs)
        return tuple(map(id, (*model.obs_encoder, *model.head, *beliefs))), \
            tuple(p._version for p in self.parameters)

    def cell(self, gates_in: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One LSTM step (PyTorch's gate order i, f, g, o) from the input projection ``gates_in``.

        The sigmoid runs once over all four gates (the ``g`` gate's share is not read): the same
        numbers as one sigmoid per gate, in fewer calls.
        """
        gates = torch.addmm(gates_in, h, self.recurrent_weight)
        i, f, _, o = torch.sigmoid(gates).chunk(4, dim=1)
        c = f * c + i * torch.tanh(gates.chunk(4, dim=1)[2])
        return o * torch.tanh(c), c


_WEIGHTS: weakref.WeakKeyDictionary[nn.Module, _SparseWeights] = weakref.WeakKeyDictionary()


def _weights(model: QNetwork) -> _SparseWeights:
    weights = _WEIGHTS.get(model)
    if weights is None or weights.key != weights.read_from(model):
        weights = _WEIGHTS[model] = _SparseWeights(model)
    return weights


def sparse_linear(x: torch.Tensor, weight_t: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ weight_t + bias`` summed over the nonzero entries of ``x`` only (rows of ``x``: 2-D)."""
    rows, cols = x.nonzero(as_tuple=True)
    return _summed(rows, cols, x[rows, cols], x.shape[0], weight_t, bias)


def _summed(rows: torch.Tensor, cols: torch.Tensor, values: torch.Tensor, n: int, weight_t: torch.Tensor,
            bias: torch.Tensor) -> torch.Tensor:
    """The ``n`` rows of a matrix given by its nonzero entries (in row order), times ``weight_t``, plus bias."""
    offsets = torch.zeros(n, dtype=torch.long)
    offsets[1:] = torch.bincount(rows, minlength=n).cumsum(0)[:-1]
    return functional.embedding_bag(cols, weight_t, offsets, mode="sum", per_sample_weights=values) + bias


def _history_state(weights: _SparseWeights, history: torch.Tensor) -> torch.Tensor:
    """The LSTM's last hidden state of each history, each sequence run from its first nonzero row."""
    batch, length, row = history.shape
    flat = history.reshape(batch * length, row)
    rows, cols = flat.nonzero(as_tuple=True)
    gates_in = _summed(rows, cols, flat[rows, cols], batch * length, weights.input_weight,
                       weights.gate_bias).view(batch, length, -1)
    start = torch.full((batch,), length, dtype=torch.long).scatter_reduce(
        0, rows // length, rows % length, reduce="amin")  # each sequence's first nonzero row
    start, order = torch.sort(start)  # sequences with the most rows first
    gates_in = gates_in[order]
    active = torch.searchsorted(start, torch.arange(length), right=True).tolist()
    padded_h, padded_c = weights.padding_states
    h = padded_h[length].expand(batch, -1).clone()
    c = padded_c[length].expand(batch, -1).clone()
    running = 0
    for step, n in enumerate(active):
        if n == 0:
            continue
        if n > running:  # these sequences' padding ends here: they start from its state
            h[running:n], c[running:n] = padded_h[step], padded_c[step]
            running = n
        if n == batch:  # every sequence runs: no slices to take and write back
            h, c = weights.cell(gates_in[:, step], h, c)
        else:
            h[:n], c[:n] = weights.cell(gates_in[:n, step], h[:n], c[:n])
    state = torch.empty_like(h)
    state[order] = h
    return state


def _sparse_evaluate(model: QNetwork, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                     index: torch.Tensor, baseline: bool) -> tuple[torch.Tensor, torch.Tensor]:
    weights = _weights(model)
    first = sparse_linear(obs, weights.obs_weight, weights.obs_bias)
    if weights.belief_first is not None:
        odds = belief_odds(weights.belief_rest(sparse_linear(obs, *weights.belief_first)))
        first = torch.addmm(first, odds, weights.odds_weight, alpha=model.belief_scale)
    encoded = weights.obs_rest(first)
    if weights.lstm:
        state = torch.cat([encoded, _history_state(weights, history)], dim=1)
    else:
        state = encoded
    hidden = functional.linear(state, weights.head_state)[index] + \
        sparse_linear(actions, weights.head_action, weights.head_bias)
    q = weights.head_rest(hidden).squeeze(1)
    if model.value is None or not baseline:
        return q, state.new_zeros(state.shape[0])
    value = model.value(state).squeeze(1)
    return q + value[index], value


def acting_q_values(model: nn.Module, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                    index: torch.Tensor, phase: torch.Tensor | None = None,
                    baseline: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """``(Q of each candidate row, V of each decision)`` for acting: as
    :func:`agents.dmc.models.q_and_values` with ``index``, computed sparsely where that applies
    (a :class:`QNetwork` with an LSTM or no history, on the CPU, gradients off).

    ``baseline=False`` may leave out a value head's ``V(s)`` (then reported as 0): it is the same for
    all of a decision's candidates, so their ranking and spread do not need it.
    """
    if (isinstance(model, QNetwork) and model.history_encoder.kind in ("lstm", "none")
            and not torch.is_grad_enabled() and obs.device.type == "cpu" and not model.head[0].weight.is_cuda):
        return _sparse_evaluate(model, obs, history, actions, index, baseline)
    return q_and_values(model, obs, history, actions, index, phase)
