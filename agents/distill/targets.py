"""The distillation losses: the network's candidate ordering pulled towards the search's values.

Candidates of many decisions lie back to back; ``owner[i]`` is the decision of
candidate row ``i``. A value shared by every candidate of a decision (``V(s)``)
cancels in both targets, so they shape only the advantage and leave ``V`` to the
Monte Carlo return.
"""

from __future__ import annotations

import torch

TARGETS = ("softmax", "advantage", "choice")  # the kinds of distill_loss (learn.target)


def segment_softmax(x: torch.Tensor, owner: torch.Tensor, decisions: int) -> torch.Tensor:
    """Softmax of ``x`` within each decision's candidates."""
    top = x.new_full((decisions,), -torch.inf).scatter_reduce(0, owner, x.detach(), "amax")
    e = torch.exp(x - top[owner])
    return e / x.new_zeros(decisions).index_add(0, owner, e)[owner]


def segment_log_softmax(x: torch.Tensor, owner: torch.Tensor, decisions: int) -> torch.Tensor:
    """Log-softmax of ``x`` within each decision's candidates (stable)."""
    top = x.new_full((decisions,), -torch.inf).scatter_reduce(0, owner, x.detach(), "amax")
    shifted = x - top[owner]
    return shifted - torch.log(x.new_zeros(decisions).index_add(0, owner, torch.exp(shifted)))[owner]


def segment_mean(x: torch.Tensor, owner: torch.Tensor, decisions: int) -> torch.Tensor:
    """Mean of ``x`` over each decision's candidates."""
    count = torch.bincount(owner, minlength=decisions).to(x.dtype)
    return x.new_zeros(decisions).index_add(0, owner, x) / count


def segment_argmax(x: torch.Tensor, owner: torch.Tensor, decisions: int) -> torch.Tensor:
    """Index (into ``x``) of each decision's largest entry; ties go to the first."""
    top = x.new_full((decisions,), -torch.inf).scatter_reduce(0, owner, x, "amax")
    rows = torch.arange(len(x), device=x.device)
    big = torch.full((decisions,), len(x), dtype=torch.long, device=x.device)
    return big.scatter_reduce(0, owner, torch.where(x == top[owner], rows, len(x)), "amin")


def search_policy(values: torch.Tensor, owner: torch.Tensor, decisions: int, temperature: float) -> torch.Tensor:
    """The search's value-derived distribution over each decision's candidates: ``softmax(value / T)``."""
    return segment_softmax(values / temperature, owner, decisions)


def distill_loss(q: torch.Tensor, values: torch.Tensor, owner: torch.Tensor, decisions: int, kind: str,
                 temperature: float, target_temperature: float,
                 chosen: torch.Tensor | None = None) -> torch.Tensor:
    """The distillation term, averaged over decisions.

    ``softmax``: cross-entropy of ``softmax(Q / temperature)`` towards
    :func:`search_policy`. ``advantage``: squared error between each
    candidate's ``Q`` minus its decision's mean ``Q`` and the search's value
    minus its decision's mean value (levels), averaged per decision.
    ``choice``: cross-entropy of ``softmax(Q / temperature)`` towards the
    search's chosen play alone (``chosen``: its row in each decision), the
    imitation of the search's decision. A candidate valued on a few worlds has
    a standard error of about 0.3 levels, as large as the spread between
    candidates, so its value says little; the choice went through the search's
    margin (``min_advantage_se``) and is the search's better-founded output.
    """
    if kind == "choice":
        if chosen is None:
            raise ValueError("the choice target needs the search's chosen rows")
        return -segment_log_softmax(q / temperature, owner, decisions)[chosen].mean()
    if kind == "softmax":
        target = search_policy(values, owner, decisions, target_temperature)
        per_row = -target * segment_log_softmax(q / temperature, owner, decisions)
        return q.new_zeros(decisions).index_add(0, owner, per_row).mean()
    if kind == "advantage":
        gap = (q - segment_mean(q, owner, decisions)[owner]) - (values - segment_mean(values, owner, decisions)[owner])
        return segment_mean(gap * gap, owner, decisions).mean()
    raise ValueError(f"learn.target must be one of {TARGETS}, got {kind!r}")


def keep_loss(q: torch.Tensor, q_before: torch.Tensor, owner: torch.Tensor, decisions: int,
              temperature: float) -> torch.Tensor:
    """``KL(before || now)`` of each decision's candidate distribution ``softmax(Q / temperature)``, averaged
    over decisions: the starting network's ordering, kept where the search's choice does not pull away.

    A round that learns only the labels of its start's own positions (the earlier rounds' labels gone)
    pulls the ordering towards those labels alone, and what the earlier rounds taught is kept only as
    far as the new labels agree; the starting network carries those rounds, so staying near its
    distribution on the new positions keeps them (learning without forgetting, Li and Hoiem 2016).
    """
    log_now = segment_log_softmax(q / temperature, owner, decisions)
    log_before = segment_log_softmax(q_before / temperature, owner, decisions)
    per_row = torch.exp(log_before) * (log_before - log_now)
    return q.new_zeros(decisions).index_add(0, owner, per_row).mean()


def candidate_spread(q: torch.Tensor, owner: torch.Tensor, decisions: int) -> torch.Tensor:
    """Standard deviation of each decision's candidate scores (the collapse alarm of self-play)."""
    mean = segment_mean(q, owner, decisions)
    return torch.sqrt(torch.clamp(segment_mean(q * q, owner, decisions) - mean * mean, min=0.0))


def distill_weight(step: int, start: float, floor: float, anneal_steps: int) -> float:
    """``start`` annealed linearly to ``floor`` over ``anneal_steps`` steps, never below the floor."""
    if anneal_steps <= 0:  # no annealing: the start weight throughout (the floor still bounds it)
        return max(start, floor)
    fraction = min(1.0, step / anneal_steps)
    return max(floor, start + fraction * (floor - start))
