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
