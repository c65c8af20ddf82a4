"""The learner's update: MSE between Q(s, a) and the Monte Carlo return, with gradient clipping."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.dmc.actor import SampleBatch
from agents.dmc.config import TrainSettings
from agents.models import q_values


def make_optimizer(model: nn.Module, settings: TrainSettings) -> torch.optim.Optimizer:
    """RMSprop (DouZero's choice) or Adam, as configured."""
    if settings.optimizer == "rmsprop":
        return torch.optim.RMSprop(model.parameters(), lr=settings.learning_rate, alpha=settings.rmsprop_alpha,
                                   eps=settings.rmsprop_eps)
    return torch.optim.Adam(model.parameters(), lr=settings.learning_rate, eps=settings.adam_eps)


class SampleBuffer:
    """FIFO of samples from the actors; every sample is trained on exactly once."""

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
        merged = SampleBatch.concatenate(self._batches[:used])
        head = SampleBatch(merged.obs[:n], merged.history[:n], merged.actions[:n], merged.phase[:n],
                           merged.target[:n])
        rest = SampleBatch(merged.obs[n:], merged.history[n:], merged.actions[n:], merged.phase[n:],
                           merged.target[n:])
        self._batches = ([rest] if len(rest) else []) + self._batches[used:]
        self.size -= n
        return head


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: SampleBatch, device: torch.device,
               max_grad_norm: float) -> dict[str, float]:
    """One gradient step on a batch; returns loss and Q statistics."""
    def tensor(array: np.ndarray, dtype=torch.float32) -> torch.Tensor:
        return torch.as_tensor(array).to(device=device, dtype=dtype, non_blocking=True)

    model.train()
    q = q_values(model, tensor(batch.obs), tensor(batch.history), tensor(batch.actions),
                 phase=tensor(batch.phase, torch.long))
    target = tensor(batch.target)
    loss = torch.mean((q - target) ** 2)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    q = q.detach()
    loss = loss.detach()
    return {"q_loss": float(loss), "q_mean": float(q.mean()), "q_std": float(q.std()) if len(q) > 1 else 0.0,
            "target_mean": float(target.mean()), "grad_norm": float(grad_norm)}
