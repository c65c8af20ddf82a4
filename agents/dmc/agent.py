"""A trained Deep Monte Carlo checkpoint as an agent: greedy on Q by default.

In the ``card`` action mode the agent composes each decision card by card
exactly as the environment does (same masks, same observation encoder, from
its :class:`PlayerView`), scoring every allowed step with the Q-network. In
the ``play`` mode it scores the learner's whole-play candidates
(:func:`agents.dmc.plays.decision_candidates`) in one forward pass per
decision; bids and kitty picks are card steps in both modes. With
``burial="plans"`` (the participant ``plans:<checkpoint>``) the agent also
values whole burials: its own, picked card by card, and the expert planner's
(:func:`agents.bots.expert_setup.choose_burial`), each by the network's
``V(s)`` at the first lead after it (:func:`env.standard.view.view_after_burial`),
and buries the one valued higher: cards picked one at a time keep a plan's cost
without its gain (benchmarks/RESULTS.md). A checkpoint
plays its own rule set through the policy its learner gives
(:meth:`agents.dmc.learner_rules.LearnerRules.network_policy`: the standard
game's decisions through this class's methods; 刮风's
:class:`agents.dmc.guafeng_agent.GuafengQPolicy`); a checkpoint seated at a
table of another rule set than its own, or of another number of decks (its
observation and action table have other sizes, RULES.md 11), raises
:class:`~agents.selfplay.checkpoint.CheckpointError` naming the setting
(:meth:`DMCAgent.table_mismatch`).
:func:`load_dmc_agent`
is the ``.pt`` checkpoint loader of :data:`agents.registry.CHECKPOINT_LOADERS`, so
``evaluate.py`` and ``play.py`` accept checkpoint paths as participants.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.bots.expert_setup import choose_burial
from agents.dmc.inference import acting_q_values
from agents.dmc.learner_rules import card_step_table, decision_candidates, decision_phase, learner_rules, play_rows
from agents.dmc.models import PHASE_PLAY
from agents.selfplay.checkpoint import CheckpointError, load_checkpoint, model_from_checkpoint
from agents.selfplay.config import RunConfig, resolve_device
from env.core.actions import PASS, STOP, card_mask
from env.standard.actions import PlayComposer, action_bid, bid_mask, composer_for
from env.standard.bidding import Bid
from env.standard.view import PlayerView, first_lead_refusal, view_after_burial

BURIALS = ("cards", "plans")
"""How the agent buries: ``cards`` (one card step at a time) or ``plans`` (the better by ``V`` of that and
the expert planner's whole burial)."""


class DMCAgent(Agent):
    """Plays with a Q-network; ``epsilon`` > 0 adds exploration (uniform over allowed steps); ``relabel`` > 1
    averages each decision's ``Q`` over up to that many renamings of the position that keep its value (the
    plain suits', :mod:`agents.dmc.relabel`), in the same forward pass."""

    name = "dmc"

    def __init__(self, model: torch.nn.Module, run: RunConfig, epsilon: float = 0.0, seed: int | None = None,
                 burial: str = "cards", relabel: int = 1):
        if burial not in BURIALS:
            raise ValueError(f"unknown burial {burial!r}: choose one of {', '.join(BURIALS)}")
        self.model = model.eval()
        self.run = run
        self.epsilon = epsilon
        self.burial = burial
        if not isinstance(relabel, int) or relabel < 1:
            raise ValueError(f"relabel counts the suit renamings averaged over (1: none), got {relabel!r}")
        if relabel > 1 and not learner_rules(run.rules).has_renamings:
            raise ValueError(f"relabel={relabel}: the {run.rules.name!r} rule set names no renamings of a position "
                             "to average over")
        self.relabel = relabel
        if burial == "plans" and not self.has_value_head:
            raise ValueError("burial='plans' values whole burials with V(s): the network has no value head "
                             "(model.value_head: false)")
        self.rng = random.Random(seed)
        # The observation of the rules the network was trained under (RULES.md 9 options add a block;
        # 刮风 has its own).
        self.encoder = run.rules.encoder(run.layout, run.history_len)
        self._policy = None
        self.device = torch.device("cpu")

    def to(self, device: str | torch.device) -> DMCAgent:
        """Score on ``device`` (``auto``, ``cpu``, ``cuda``...): the network moves there, the positions are
        encoded on the CPU and cross in one batch per forward pass. A device this machine does not have is
        refused and the agent stays where it was."""
        target = resolve_device(str(device), "device")
        self.model.to(target)
        self.device = target
        return self

    def _forward(self, obs: torch.Tensor, history: torch.Tensor, rows: torch.Tensor, index: torch.Tensor,
                 phase: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(Q of each row, V of each decision)`` on the CPU, computed on the agent's device (on the CPU
        both moves are no-ops)."""
        q, value = acting_q_values(self.model, *(t.to(self.device) for t in (obs, history, rows, index, phase)))
        return q.cpu(), value.cpu()

    @classmethod
    def from_checkpoint(cls, path: str | Path, seed: int | None = None, epsilon: float = 0.0,
                        burial: str = "cards", relabel: int = 1) -> DMCAgent:
        """Load a checkpoint file (validated, ``weights_only=True``)."""
        model, run = model_from_checkpoint(load_checkpoint(path))
        agent = cls(model, run, epsilon, seed, burial, relabel)
        agent.name = Path(path).stem if burial == "cards" else f"{burial}:{Path(path).stem}"
        if relabel > 1:
            agent.name = f"relabel:{agent.name}"
        return agent

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def table_mismatch(self, ruleset: Any) -> str | None:
        """Why the checkpoint cannot sit at a table of ``ruleset`` (another rule set, another number of
        decks), naming the setting as ``name: trained -> table``; ``None`` when it can."""
        trained, table = self.run.rules.name, ruleset.name
        if trained != table:
            return (f"checkpoint {self.name!r} was trained on the {trained!r} rule set and cannot "
                    f"play a {table!r} table (ruleset: {trained!r} -> {table!r})")
        decks, table_decks = self.run.rules.layout.decks, ruleset.layout.decks
        if decks != table_decks:
            return (f"checkpoint {self.name!r} was trained with {decks} deck(s) and cannot play a table of "
                    f"{table_decks} (decks: {decks} -> {table_decks}; rules.decks={decks} plays it)")
        return None

    def can_play(self, ruleset: Any) -> bool:
        """Only the rule set, and the number of decks, the checkpoint was trained on."""
        return self.table_mismatch(ruleset) is None

    def policy(self, ruleset: Any) -> Any:
        """The checkpoint's own rule set's policy (its learner's); a table of another rule set or number
        of decks raises :class:`~agents.selfplay.checkpoint.CheckpointError` (:meth:`table_mismatch`)."""
        mismatch = self.table_mismatch(ruleset)
        if mismatch is not None:
            raise CheckpointError(mismatch)
        if self._policy is None:
            self._policy = learner_rules(self.run.rules).network_policy(self)
        return self._policy

    @torch.no_grad()
    def _scores(self, view: Any, picked: list[int], rows: np.ndarray, phase: int) -> np.ndarray:
        """Q of each candidate row of the seat's decision (``picked``: the cards chosen so far), one pass;
        averaged over the position's suit renamings when the agent has ``relabel`` > 1."""
        obs = self.encoder.encode(view, view.seat, picked)
        history = self.encoder.history(view, view.seat)
        renamed = None
        if self.relabel > 1:
            planes = self.run.rules.layout.decks if self.run.action_mode == "play" else 1
            renamed = learner_rules(view.ruleset).renamed_inputs(view, self.run.layout, self.relabel, obs, history,
                                                                 rows, planes)
        if renamed is None:
            obs, history, n = obs[None], history[None], 1
        else:
            obs, history, rows = renamed
            n = len(obs)
        index = torch.arange(n).repeat_interleave(len(rows) // n)
        q = self._forward(torch.from_numpy(obs), torch.from_numpy(history), torch.from_numpy(rows), index,
                          torch.full((n,), phase))[0].numpy()
        return q.reshape(n, -1).mean(axis=0)

    def _choose(self, view: Any, mask: np.ndarray, picked: list[int]) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(self.rng.choice(legal))
        rows = card_step_table(view, self.run.layout)[legal]
        q = self._scores(view, picked, rows, decision_phase(view.ruleset, view.phase))
        return int(legal[int(q.argmax())])

    def _choose_move(self, view: Any, mask: np.ndarray | None, picked: list[int]):
        """The best move of the ``play`` mode's candidates (an action, or a whole play)."""
        candidates = decision_candidates(view, self.run.layout, mask)
        if len(candidates.moves) == 1:
            return candidates.moves[0]
        if self.epsilon and self.rng.random() < self.epsilon:
            return self.rng.choice(candidates.moves)
        return candidates.moves[int(self._scores(view, picked, candidates.rows, candidates.phase).argmax())]

    def play_values(self, view: PlayerView, extra: tuple[tuple[int, ...], ...] = ()
                    ) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """The whole-play candidates of a lead or follow (plus ``extra`` plays) and their Q, in one pass.

        Needs a ``play``-mode checkpoint; the ``extra`` plays (sorted kinds,
        legal) are scored with the same features when they are not candidates.
        """
        if self.run.action_mode != "play":
            raise ValueError("play_values needs a checkpoint of the play action mode")
        candidates = decision_candidates(view, self.run.layout)
        moves, rows = list(candidates.moves), candidates.rows
        missing = [p for p in extra if p not in moves]
        if missing:
            moves += missing
            rows = np.concatenate([rows, play_rows(view, missing, self.run.layout)])
        return moves, self._scores(view, [], rows, candidates.phase)

    def new_encoder(self) -> Any:
        """A fresh observation encoder of the network's rules, for one of many hands played in turn
        (:meth:`batch_plays`): each keeps its own hand's trick history up to date at no cost."""
        return self.run.rules.encoder(self.run.layout, self.run.history_len)

    @property
    def _play_network(self) -> torch.nn.Module:
        """The network that scores leads and follows (one per phase in the ablation's models)."""
        nets = getattr(self.model, "nets", None)
        return nets[PHASE_PLAY] if nets is not None else self.model

    @property
    def has_value_head(self) -> bool:
        """Whether the network has a state value ``V(s)`` (:meth:`state_values` needs one)."""
        return getattr(self._play_network, "value", None) is not None

    def _stacked(self, views: Sequence[PlayerView], encoders: Sequence[Any] | None) -> tuple[torch.Tensor, ...]:
        """The observations and trick histories of ``views`` (each from its own seat) as two batches."""
        coders = encoders if encoders is not None else [self.encoder] * len(views)
        obs = np.stack([coder.encode(view, view.seat, []) for coder, view in zip(coders, views)])
        history = np.stack([coder.history(view, view.seat) for coder, view in zip(coders, views)])
        return torch.from_numpy(obs), torch.from_numpy(history)

    @torch.no_grad()
    def batch_plays(self, views: Sequence[PlayerView], encoders: Sequence[Any] | None = None
                    ) -> list[tuple[int, ...]]:
        """The greedy play of each view's lead or follow, every decision's candidates scored in one
        forward pass: the plays :meth:`play` chooses one view at a time (``epsilon`` aside).

        ``encoders[i]`` (:meth:`new_encoder`) encodes ``views[i]``; with many hands in
        turn, one each keeps the encoding incremental.
        """
        if self.run.action_mode != "play":
            raise ValueError("batch_plays needs a checkpoint of the play action mode")
        chosen: list[tuple[int, ...] | None] = [None] * len(views)
        scored, candidates = [], []
        for i, view in enumerate(views):
            found = decision_candidates(view, self.run.layout)
            if len(found.moves) == 1:
                chosen[i] = found.moves[0]
            else:
                scored.append(i)
                candidates.append(found)
        if scored:
            obs, history = self._stacked([views[i] for i in scored],
                                         None if encoders is None else [encoders[i] for i in scored])
            sizes = [len(c.moves) for c in candidates]
            rows = torch.from_numpy(np.concatenate([c.rows for c in candidates]))
            index = torch.repeat_interleave(torch.arange(len(scored)), torch.tensor(sizes))
            phase = torch.tensor([c.phase for c in candidates])
            q = self._forward(obs, history, rows, index, phase)[0].numpy()
            start = 0
            for i, found, size in zip(scored, candidates, sizes):
                chosen[i] = found.moves[int(q[start:start + size].argmax())]
                start += size
        return chosen  # type: ignore[return-value]

    @torch.no_grad()
    def state_values(self, views: Sequence[PlayerView], encoders: Sequence[Any] | None = None) -> np.ndarray:
        """``V(s)`` of each view's seat (levels its team is expected to gain in the hand), one pass."""
        if not self.has_value_head:
            raise ValueError(f"checkpoint {self.name!r} has no value head (model.value_head: false): "
                             "it cannot score positions")
        obs, history = self._stacked(views, encoders)
        n = len(views)
        rows = torch.zeros(n, self._play_network.action_size)
        phase = torch.full((n,), PHASE_PLAY, dtype=torch.long)
        return self._forward(obs, history, rows, torch.arange(n), phase)[1].numpy()

    def bid(self, view: PlayerView) -> Bid | None:
        if self.run.action_mode == "play":
            action = self._choose_move(view, None, [])
        else:
            action = self._choose(view, bid_mask(view.bid_options, view.ruleset.num_actions), [])
        return None if action == PASS else action_bid(action)

    def _compose(self, view: PlayerView, composer: PlayComposer) -> list[int]:
        while not composer.complete:
            if self.run.action_mode == "play":  # the burial, one card at a time
                action = self._choose_move(view, composer.mask(), composer.picked)
            else:
                action = self._choose(view, composer.mask(), composer.picked)
            if action == STOP:
                break
            composer.add(action)
        return list(composer.picked)

    def bury(self, view: PlayerView) -> list[int]:
        own = self._compose(view, composer_for(view))
        if self.burial == "cards" or first_lead_refusal(view) is not None:
            return own
        planned = choose_burial(view)
        if sorted(planned) == sorted(own):
            return own
        values = self.state_values([view_after_burial(view, own), view_after_burial(view, planned)])
        return list(planned) if values[1] > values[0] else own

    def play(self, view: PlayerView) -> tuple[int, ...]:
        if self.run.action_mode == "play":
            return self._choose_move(view, None, [])
        return tuple(self._compose(view, composer_for(view)))

    def _one_card(self, view: PlayerView) -> int:
        """A tribute or returned card (RULES.md 9), chosen by the network as the environment's one card step."""
        if self.run.action_mode == "play":
            return int(self._choose_move(view, None, []))
        return self._choose(view, card_mask(view.tribute_options), [])

    def give_tribute(self, view: PlayerView) -> int:
        return self._one_card(view)

    def return_card(self, view: PlayerView) -> int:
        return self._one_card(view)


def load_dmc_agent(path: str, seed: int | None = None) -> DMCAgent:
    """The ``.pt`` loader of :data:`agents.registry.CHECKPOINT_LOADERS`: a greedy agent from a checkpoint path."""
    return DMCAgent.from_checkpoint(path, seed)

