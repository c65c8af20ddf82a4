"""Q-networks for Deep Monte Carlo: state encoder + trick-history encoder + action-conditioned head.

``Q(s, a)`` scores one candidate action ``a`` (a card pick, STOP, PASS or a bid,
described by :func:`agents.dmc.learner_rules.card_step_table`) in state ``s`` (the
flat observation plus the history of the last K tricks). The state is encoded
once and shared by all of a decision's candidate actions, which is what makes
scoring every legal action of many tables in one forward pass cheap.

One network serves the four seats (the observation is relative to the acting
seat, so the role is an input). With ``value_head`` the network is split into a
state value and an advantage, ``Q(s, a) = V(s) + A(s, a)``: ``V`` is trained on
the return alone, a baseline that soaks up the luck of the deal, so the
ordering of candidates lives in ``A`` and is not washed out when the returns
are noisy (the warm-start collapse described in LEARNING.md). :class:`PhaseQNetworks` keeps one network per
phase (bid / kitty / play) for the ablation.

With ``beliefs`` the observation is read together with a belief about where the
unseen cards are: a frozen location model (:mod:`agents.search.locations`, learnt
by supervision on where the cards really were) gives, for every card slot, the
odds of each of the four places an unseen copy can be, and those odds join the
observation at the first layer (:func:`agents.dmc.beliefs.graft_beliefs` adds
them to a trained network without changing what it computes). The belief is a
function of the observation, so the network still decides in one forward pass;
what it adds is a representation learnt from a dense signal that the returns
and the search's labels are too sparse to teach.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
from torch import nn

PHASE_BID, PHASE_KITTY, PHASE_PLAY = 0, 1, 2
NUM_PHASES = 3
BELIEF_PLACES = 4
"""Places a belief gives odds for, per card slot: the next seat, the partner, the previous seat, the kitty."""


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the Q-network (values: conf/model/*.yaml)."""

    history: str
    obs_hidden: tuple[int, ...]
    history_hidden: int
    transformer_layers: int
    transformer_heads: int
    head_hidden: tuple[int, ...]
    per_phase: bool
    value_head: bool = False
    beliefs: int = 0
    """Card slots of the belief about the unseen cards read with the observation; 0: no belief. Set by
    :func:`agents.dmc.beliefs.graft_beliefs`, which also brings the belief's learnt weights: a network built
    fresh with it reads an untrained (and frozen) belief, so ``train.py`` refuses one that does not resume."""
    belief_hidden: int = 512
    belief_scale: float = 1.0
    """The odds are multiplied by this before the observation MLP reads them: their columns start at zero when
    grafted, and with Adam a larger input moves the layer's output that many times faster per step."""

    def __post_init__(self) -> None:
        if self.history not in ("lstm", "transformer", "none"):
            raise ValueError(f"model.history must be 'lstm', 'transformer' or 'none', got {self.history!r}")
        if not self.obs_hidden or not self.head_hidden or min(*self.obs_hidden, *self.head_hidden) <= 0:
            raise ValueError("model hidden sizes must be non-empty lists of positive ints")
        if self.history_hidden <= 0 or self.history_hidden % max(1, self.transformer_heads):
            raise ValueError("model.history_hidden must be positive and divisible by transformer_heads")
        if not isinstance(self.beliefs, int) or self.beliefs < 0:
            raise ValueError(f"model.beliefs must be a non-negative int (card slots), got {self.beliefs!r}")
        if not isinstance(self.belief_hidden, int) or self.belief_hidden <= 0:
            raise ValueError(f"model.belief_hidden must be a positive int, got {self.belief_hidden!r}")
        if not self.belief_scale > 0:
            raise ValueError(f"model.belief_scale must be positive, got {self.belief_scale!r}")
        if self.beliefs and self.per_phase:
            raise ValueError("model.beliefs is grafted onto one shared network, not one per phase (model.per_phase)")


def _mlp(sizes: list[int], last_activation: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class HistoryEncoder(nn.Module):
    """Summarises the last K tricks (oldest first) into one vector."""

    def __init__(self, kind: str, row_size: int, hidden: int, layers: int, heads: int, length: int):
        super().__init__()
        self.kind = kind
        self.hidden = hidden if kind != "none" else 0
        if kind == "lstm":
            self.rnn = nn.LSTM(row_size, hidden, batch_first=True)
        elif kind == "transformer":
            self.embed = nn.Linear(row_size, hidden)
            self.position = nn.Parameter(torch.zeros(1, max(1, length), hidden))
            layer = nn.TransformerEncoderLayer(hidden, heads, 2 * hidden, dropout=0.0, batch_first=True)
            self.transformer = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, history: torch.Tensor) -> torch.Tensor:
        if self.kind == "lstm":
            _, (h, _) = self.rnn(history)
            return h[-1]
        if self.kind == "transformer":
            x = self.embed(history) + self.position[:, : history.shape[1]]
            return self.transformer(x)[:, -1]
        return history.new_zeros((history.shape[0], 0))


def belief_network(obs_size: int, slots: int, hidden: int) -> nn.Sequential:
    """The location model's layers (:class:`agents.search.locations.LocationModel`): observation -> logits of
    the four places of every card slot, flat."""
    return nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, slots * BELIEF_PLACES))


def belief_odds(logits: torch.Tensor) -> torch.Tensor:
    """Flat logits of :func:`belief_network` -> the odds of each slot's four places, flat."""
    return torch.softmax(logits.unflatten(1, (-1, BELIEF_PLACES)), dim=-1).flatten(1)


class QNetwork(nn.Module):
    """Scores candidate actions of decisions: ``Q(state, action)``."""

    def __init__(self, obs_size: int, history_shape: tuple[int, int], action_size: int, config: ModelConfig):
        super().__init__()
        self.obs_size, self.history_shape, self.action_size = obs_size, tuple(history_shape), action_size
        self.beliefs: nn.Sequential | None = None
        if config.beliefs:
            self.beliefs = belief_network(obs_size, config.beliefs, config.belief_hidden).requires_grad_(False)
        self.belief_scale = config.belief_scale
        belief_size = config.beliefs * BELIEF_PLACES
        self.obs_encoder = _mlp([obs_size + belief_size, *config.obs_hidden], last_activation=True)
        length, row = history_shape
        kind = config.history if length > 0 else "none"
        self.history_encoder = HistoryEncoder(kind, row, config.history_hidden, config.transformer_layers,
                                              config.transformer_heads, length)
        state_size = config.obs_hidden[-1] + self.history_encoder.hidden
        self.head = _mlp([state_size + action_size, *config.head_hidden, 1], last_activation=False)
        self.value = _mlp([state_size, *config.head_hidden, 1], last_activation=False) if config.value_head \
            else None

    def observe(self, obs: torch.Tensor) -> torch.Tensor:
        """The observation MLP's input: the observation, and the belief's odds after it when there is one
        (frozen: it learns where the cards are from its own data, not from this network's losses)."""
        if self.beliefs is None:
            return obs
        with torch.no_grad():
            odds = belief_odds(self.beliefs(obs)) * self.belief_scale
        return torch.cat([obs, odds], dim=1)

    def encode_state(self, obs: torch.Tensor, history: torch.Tensor) -> torch.Tensor:
        """State embedding of a batch of decisions."""
        return torch.cat([self.obs_encoder(self.observe(obs)), self.history_encoder(history)], dim=1)

    def score(self, state: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of each action row given the matching state rows."""
        return self.head(torch.cat([state, actions], dim=1)).squeeze(1)

    def score_candidates(self, state: torch.Tensor, actions: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        """Q of each action row given its decision's index into ``state``: :meth:`score` computed two-tower.

        The head's first layer on ``[state, action]`` is ``W_s state + W_a action``;
        the state half is computed once per decision rather than once per
        candidate (a decision has eight candidates on average, up to 48), the
        same numbers with a fraction of the work.
        """
        first, rest = self.head[0], self.head[1:]
        split = state.shape[1]
        hidden = nn.functional.linear(state, first.weight[:, :split])[index] + \
            nn.functional.linear(actions, first.weight[:, split:], first.bias)
        return rest(hidden).squeeze(1)

    def evaluate(self, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                 index: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(Q of each action row, V of each decision)``; ``V`` is zero without a value head.

        ``index[i]`` is the decision (row of ``obs``) of action ``i``; without
        ``index`` the rows match one to one (training on chosen actions).
        """
        state = self.encode_state(obs, history)
        q = self.score(state, actions) if index is None else self.score_candidates(state, actions, index)
        if self.value is None:
            return q, state.new_zeros(state.shape[0])
        value = self.value(state).squeeze(1)
        return q + (value if index is None else value[index]), value

    def forward(self, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                index: torch.Tensor | None = None) -> torch.Tensor:
        """Q values for action rows (see :meth:`evaluate`)."""
        return self.evaluate(obs, history, actions, index)[0]


class PhaseQNetworks(nn.Module):
    """One :class:`QNetwork` per phase (bid, kitty, play): the ablation of a shared network."""

    def __init__(self, obs_size: int, history_shape: tuple[int, int], action_size: int, config: ModelConfig):
        super().__init__()
        self.nets = nn.ModuleList(QNetwork(obs_size, history_shape, action_size, config) for _ in range(NUM_PHASES))

    def evaluate(self, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                 index: torch.Tensor | None = None,
                 phase: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(Q, V)`` as :meth:`QNetwork.evaluate`, each decision scored by its phase's network."""
        if phase is None:
            raise ValueError("PhaseQNetworks needs the phase of each decision")
        if index is None:
            index = torch.arange(obs.shape[0], device=obs.device)
        q = actions.new_zeros(actions.shape[0])
        value = obs.new_zeros(obs.shape[0])
        row_phase = phase[index]
        for p, net in enumerate(self.nets):
            decisions = (phase == p).nonzero(as_tuple=True)[0]
            if decisions.numel() == 0:
                continue
            rows = (row_phase == p).nonzero(as_tuple=True)[0]
            local = torch.full((obs.shape[0],), -1, dtype=torch.long, device=obs.device)
            local[decisions] = torch.arange(decisions.numel(), device=obs.device)
            q[rows], value[decisions] = net.evaluate(obs[decisions], history[decisions], actions[rows],
                                                     local[index[rows]])
        return q, value

    def forward(self, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                index: torch.Tensor | None = None, phase: torch.Tensor | None = None) -> torch.Tensor:
        return self.evaluate(obs, history, actions, index, phase)[0]


def build_model(obs_size: int, history_shape: tuple[int, int], action_size: int,
                config: ModelConfig) -> nn.Module:
    """The Q-network of a configuration (shared, or one per phase)."""
    cls = PhaseQNetworks if config.per_phase else QNetwork
    return cls(obs_size, history_shape, action_size, config)


def q_and_values(model: nn.Module, obs: torch.Tensor, history: torch.Tensor, actions: torch.Tensor,
                 index: torch.Tensor | None = None,
                 phase: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(Q of each action row, V of each decision)`` of either kind of model."""
    if isinstance(model, PhaseQNetworks):
        return model.evaluate(obs, history, actions, index, phase)
    return model.evaluate(obs, history, actions, index)
