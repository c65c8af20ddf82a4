"""The learner's update: MSE between Q(s, a) and the Monte Carlo return, with gradient clipping."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.dmc.models import q_and_values
from agents.selfplay.config import TrainSettings
from agents.selfplay.samples import SampleBatch


def make_optimizer(model: nn.Module, settings: TrainSettings) -> torch.optim.Optimizer:
    """RMSprop (DouZero's choice) or Adam, as configured."""
    if settings.optimizer == "rmsprop":
        return torch.optim.RMSprop(model.parameters(), lr=settings.learning_rate, alpha=settings.rmsprop_alpha,
                                   eps=settings.rmsprop_eps)
    return torch.optim.Adam(model.parameters(), lr=settings.learning_rate, eps=settings.adam_eps)


class SampleBuffer:
    """FIFO of samples from the actors; every sample added is trained on once (``train.py`` adds each
    actor batch ``sample_reuse`` times, so a sample comes back after the rest of its batch)."""

    def __init__(self) -> None:
        self._batches: list[SampleBatch] = []
        self.size = 0

    def add(self, batch: SampleBatch) -> None:
        self._batches.append(batch)
        self.size += len(batch)

    def take(self, n: int) -> SampleBatch | None:
        """The oldest ``n`` samples, or ``None`` if fewer are buffered."""
        if self.size < n:
            return None
        used, count = 0, 0
        while count < n:  # only the front batches that are needed get merged
            count += len(self._batches[used])
            used += 1
        head, rest = SampleBatch.concatenate(self._batches[:used]).split(n)
        self._batches = ([rest] if len(rest) else []) + self._batches[used:]
        self.size -= n
        return head


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: SampleBatch, device: torch.device,
               settings: TrainSettings) -> dict[str, float]:
    """One gradient step on a batch; returns the losses and Q statistics.

    The loss is the Monte Carlo regression of ``Q(s, a)`` of the chosen action
    to the return, plus (with a value head) ``value_weight`` times the
    regression of ``V(s)`` to the return, plus ``imitation_weight`` times an
    imitation loss on the decisions a rule-bot teacher took: the cross-entropy of
    the teacher's choice under a softmax of ``Q / imitation_temperature`` over the
    candidates (``imitation=softmax``), or the large-margin loss of DQfD (Hester
    et al., 2018; ``imitation=margin``). Both shape only the differences between
    candidates; a low temperature asks for gaps of a few hundredths of a level,
    small next to the returns, so the regression of Q keeps its units.
    """
    def tensor(array: np.ndarray, dtype=torch.float32) -> torch.Tensor:
        return torch.as_tensor(array).to(device=device, dtype=dtype, non_blocking=True)

    model.train()
    n = len(batch)
    labelled = batch.cand_count > 0
    use_imitation = settings.imitation_weight > 0 and bool(labelled.any())
    actions = tensor(batch.actions)
    index = torch.arange(n, device=device)
    if use_imitation:  # the teacher's candidates go through the same forward pass as the chosen actions
        owner = tensor(np.repeat(np.arange(n), batch.cand_count), torch.long)
        actions = torch.cat([actions, tensor(batch.cand_rows)])
        index = torch.cat([index, owner])
    q_all, value = q_and_values(model, tensor(batch.obs), tensor(batch.history), actions, index,
                                phase=tensor(batch.phase, torch.long))
    q = q_all[:n]
    target = tensor(batch.target)
    q_loss = torch.mean((q - target) ** 2)
    loss = q_loss
    stats: dict[str, float] = {}
    if has_value_head(model):
        value_loss = torch.mean((value - target) ** 2)
        loss = loss + settings.value_weight * value_loss
        stats["value_loss"] = float(value_loss.detach())
    if use_imitation:
        positive = tensor(batch.cand_positive, torch.bool)
        if settings.imitation == "margin":
            imitation, agreement = margin_loss(q_all[n:], owner, positive, n, settings.imitation_margin)
        else:
            imitation, agreement = softmax_imitation_loss(q_all[n:], owner, positive, n,
                                                          settings.imitation_temperature)
        loss = loss + settings.imitation_weight * imitation
        stats["imitation_loss"] = float(imitation.detach())
        stats["teacher_agreement"] = agreement
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
    optimizer.step()
    q = q.detach()
    stats.update({"q_loss": float(q_loss.detach()), "q_mean": float(q.mean()),
                  "q_std": float(q.std()) if len(q) > 1 else 0.0, "target_mean": float(target.mean()),
                  "grad_norm": float(grad_norm)})
    return stats


def margin_loss(q: torch.Tensor, owner: torch.Tensor, positive: torch.Tensor, decisions: int,
                margin: float) -> tuple[torch.Tensor, float]:
    """DQfD's large-margin loss over ragged candidate sets, and how often the teacher's choice is on top.

    ``q[i]`` scores candidate ``i`` of decision ``owner[i]``; ``positive`` marks
    the teacher's choices (several for a burial pick: any card it buries).
    Per decision: ``max(0, max_neg (Q + margin) - max_pos Q)``, averaged over
    the decisions that have both kinds of candidate.
    """
    low = torch.finfo(q.dtype).min
    best_pos = q.new_full((decisions,), low).scatter_reduce(0, owner, torch.where(positive, q, low), "amax")
    best_neg = q.new_full((decisions,), low).scatter_reduce(0, owner, torch.where(positive, low, q + margin),
                                                            "amax")
    both = (best_pos > low) & (best_neg > low)
    if not bool(both.any()):
        return q.sum() * 0.0, 1.0
    gap = best_neg[both] - best_pos[both]
    agreement = float((gap.detach() < margin).float().mean())
    return torch.relu(gap).mean(), agreement


def softmax_imitation_loss(q: torch.Tensor, owner: torch.Tensor, positive: torch.Tensor, decisions: int,
                           temperature: float) -> tuple[torch.Tensor, float]:
    """Cross-entropy of the teacher's choices under a softmax of ``Q / temperature`` over each decision's
    candidates (several choices for a burial pick share the probability), and the agreement.

    ``-log sum_pos exp(Q/T) + log sum_all exp(Q/T)`` per decision with at least two
    candidates; a value shared by all candidates (``V``) cancels, so this shapes only the advantage.
    """
    logits = q / temperature
    low = torch.finfo(q.dtype).min
    top = q.new_full((decisions,), low).scatter_reduce(0, owner, logits.detach(), "amax")
    top_pos = q.new_full((decisions,), low).scatter_reduce(0, owner, torch.where(positive, logits, low).detach(),
                                                           "amax")
    every = q.new_zeros(decisions).index_add(0, owner, torch.exp(logits - top[owner]))
    chosen = q.new_zeros(decisions).index_add(
        0, owner, torch.where(positive, torch.exp(torch.clamp(logits - top_pos[owner], max=0.0)), 0.0))
    negatives = torch.bincount(owner, weights=(~positive).float(), minlength=decisions)
    used = (negatives > 0) & (top_pos > low)
    if not bool(used.any()):
        return q.sum() * 0.0, 1.0
    loss = (top[used] + torch.log(every[used]) - top_pos[used] - torch.log(chosen[used])).mean()
    agreement = float((top_pos[used] >= top[used]).float().mean())
    return loss, agreement


def has_value_head(model: nn.Module) -> bool:
    """Whether a network (or every per-phase network) has a state-value head."""
    return any(getattr(m, "value", None) is not None for m in model.modules() if hasattr(m, "evaluate"))
