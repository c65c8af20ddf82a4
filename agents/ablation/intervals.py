"""95% intervals over training seeds *and* evaluation deals (a crossed design).

Every snapshot of every seed is evaluated on the same deals, so a group's
results form a matrix ``X[s, i]`` (seed ``s``, deal ``i``; the value is the
deal's mean over its two swapped games). Two kinds of luck move the group's
mean ``m = mean(X)``: which seeds were trained (a seed effect) and which deals
were drawn (a deal effect shared by every seed, since the deals are the same),
plus their interaction. Under the two-way random-effects model
``X[s, i] = mu + a_s + b_i + e_si``::

    Var(m) = var_a / S + var_b / N + var_e / (S N)

estimated from the ANOVA mean squares (``MS_seed = N * var(row means)``,
``MS_deal = S * var(column means)``, ``MS_e`` the residual) as::

    Var(m) = (MS_deal + MS_seed - MS_e) / (S N)
           = var(column means) / N  +  max(0, MS_seed - MS_e) / (S N)

i.e. the deal term of the ordinary duplicate interval plus the seed variance
beyond what deal noise already explains (a negative estimate is set to zero,
the usual truncation). The interval is ``m +- t * sqrt(Var)`` with Student's
``t`` at the Satterthwaite degrees of freedom of that sum of mean squares, so
two seeds with a large seed effect give an honestly wide interval. With one
seed it is the interval over deals alone (``t`` with ``N - 1`` degrees of freedom).

The difference between two groups evaluated on the same deals is paired by
deal: the deal term is taken on the per-deal difference of column means (the
shared deal effect cancels), and each group adds its own seed term. Groups
played on different deals (other rules) are combined unpaired.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class SweepEstimate:
    """A mean over seeds and deals with its 95% interval, standard error and degrees of freedom."""

    value: float
    low: float
    high: float
    se: float
    df: float
    seeds: int
    deals: int

    def to_dict(self) -> dict[str, float | int]:
        """Plain dict (JSON-friendly)."""
        return asdict(self)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(x: float, df: float) -> float:
    """Cumulative distribution of Student's t with ``df`` (real, > 0) degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + x * x))
    return 1.0 - tail if x >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile (``0.5 < p < 1``) of Student's t, by bisection on :func:`t_cdf`."""
    if not 0.5 < p < 1.0 or not df > 0:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df > 0, got p={p}, df={df}")
    low, high = 0.0, 2.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return 0.5 * (low + high)


def _matrix(values: np.ndarray | list) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"expected a seeds x deals matrix, got shape {x.shape}")
    return x


def seed_terms(x: np.ndarray) -> list[tuple[float, int]]:
    """Variance terms ``(term, degrees of freedom)`` of the seed effect beyond deal noise.

    ``MS_seed / (S N)`` and ``-MS_e / (S N)``; none with one seed, and none when
    ``MS_seed <= MS_e`` (the seed variance component is estimated as zero).
    """
    s, n = x.shape
    if s < 2:
        return []
    rows, cols, mean = x.mean(axis=1), x.mean(axis=0), x.mean()
    ms_seed = n * float(np.sum((rows - mean) ** 2)) / (s - 1)
    if n < 2:
        return [(ms_seed / (s * n), s - 1)]
    residual = x - rows[:, None] - cols[None, :] + mean
    ms_e = float(np.sum(residual ** 2)) / ((s - 1) * (n - 1))
    if ms_seed <= ms_e:
        return []
    return [(ms_seed / (s * n), s - 1), (-ms_e / (s * n), (s - 1) * (n - 1))]


def deal_term(per_deal: np.ndarray) -> list[tuple[float, int]]:
    """The variance term of the mean of per-deal values, ``var / N`` with ``N - 1`` degrees of freedom."""
    n = len(per_deal)
    if n < 2:
        return []
    return [(float(np.var(per_deal, ddof=1)) / n, n - 1)]


def combine(value: float, terms: list[tuple[float, int]], seeds: int, deals: int) -> SweepEstimate:
    """``value +- t * sqrt(sum of terms)``, with Satterthwaite's degrees of freedom for ``t``."""
    if deals < 2:
        return SweepEstimate(value, math.nan, math.nan, math.nan, math.nan, seeds, deals)
    variance = max(0.0, sum(t for t, _ in terms))
    if variance == 0.0:
        return SweepEstimate(value, value, value, 0.0, math.inf, seeds, deals)
    df = variance ** 2 / sum(t * t / k for t, k in terms)
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * math.sqrt(variance)
    return SweepEstimate(value, value - half, value + half, math.sqrt(variance), df, seeds, deals)


def sweep_mean(values: np.ndarray | list) -> SweepEstimate:
    """Mean of a seeds x deals matrix with its 95% interval over seeds and deals (module docstring)."""
    x = _matrix(values)
    return combine(float(x.mean()), deal_term(x.mean(axis=0)) + seed_terms(x), x.shape[0], x.shape[1])


def sweep_difference(values: np.ndarray | list, baseline: np.ndarray | list, paired: bool = True) -> SweepEstimate:
    """Mean of ``values`` minus mean of ``baseline`` (both seeds x deals), with its 95% interval.

    ``paired``: both were played on the same deals, column for column (then the
    deal effect cancels in the per-deal difference); otherwise the two
    groups' variances add.
    """
    x, y = _matrix(values), _matrix(baseline)
    value = float(x.mean() - y.mean())
    if paired:
        if x.shape[1] != y.shape[1]:
            raise ValueError(f"paired groups need the same deals, got {x.shape[1]} and {y.shape[1]}")
        terms = deal_term(x.mean(axis=0) - y.mean(axis=0)) + seed_terms(x) + seed_terms(y)
    else:
        terms = deal_term(x.mean(axis=0)) + seed_terms(x) + deal_term(y.mean(axis=0)) + seed_terms(y)
    return combine(value, terms, x.shape[0] + y.shape[0], min(x.shape[1], y.shape[1]))
