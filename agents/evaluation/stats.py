"""Confidence intervals for duplicate evaluation, computed over deals (the unit of pairing).

Each deal is played twice with the teams swapped, so its two games are not
independent: the interval is taken over per-deal values, never over games.
One estimator covers plain means and rates over a varying number of events
(defender points *as defenders*, throws attempted): the ratio estimator
``sum(y) / sum(d)`` with a delta-method (cluster) standard error; with
``d = 1`` for every deal it is the ordinary mean with its normal-approximation interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval and the number of deals it rests on."""

    value: float
    low: float
    high: float
    n: int

    def to_dict(self) -> dict[str, float | int]:
        """Plain dict (JSON-friendly; NaN where undefined)."""
        return asdict(self)

def ratio_ci(numerators: Sequence[float], denominators: Sequence[float] | None = None) -> Estimate:
    """``sum(y) / sum(d)`` over deals with a 95% interval (cluster delta method).

    ``denominators`` default to 1 per deal (a plain mean). Deals with ``d = 0``
    add nothing to either sum but still count for the variance, as they should.
    """
    ys = [float(y) for y in numerators]
    ds = [1.0] * len(ys) if denominators is None else [float(d) for d in denominators]
    if len(ys) != len(ds):
        raise ValueError(f"{len(ys)} numerators but {len(ds)} denominators")
    n = len(ys)
    total_d = sum(ds)
    if n == 0 or total_d == 0:
        return Estimate(math.nan, math.nan, math.nan, n)
    ratio = sum(ys) / total_d
    if n < 2:
        return Estimate(ratio, math.nan, math.nan, n)
    mean_d = total_d / n
    residual = sum((y - ratio * d) ** 2 for y, d in zip(ys, ds))
    se = math.sqrt(residual / (n * (n - 1))) / mean_d
    return Estimate(ratio, ratio - Z95 * se, ratio + Z95 * se, n)
