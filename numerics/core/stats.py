"""Generic statistics of the verdicts: critical values, means with standard errors."""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

#: family-wise false-alarm rate of one claim's rows (Bonferroni)
FAMILY_ALPHA = 1e-3


def z_critical(rows: int, family_alpha: float = FAMILY_ALPHA) -> float:
    """Two-sided Bonferroni critical value for ``rows`` comparisons."""
    rows = max(int(rows), 1)
    return NormalDist().inv_cdf(1.0 - family_alpha / (2.0 * rows))


def normal_quantile(p: float) -> float:
    """The standard normal quantile (for confidence levels)."""
    return NormalDist().inv_cdf(p)


def mean_se(samples, axis=0):
    """Sample mean and its standard error (ddof = 1) along ``axis``."""
    x = np.asarray(samples, dtype=float)
    n = x.shape[axis]
    return x.mean(axis=axis), x.std(axis=axis, ddof=1) / math.sqrt(n)


def binomial_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``k / n`` at confidence ``level`` (``(0, 1)``
    for ``n = 0``): the interval of a mutation score estimated from a sample of mutants."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
