"""Generic statistics of the verdicts: critical values, means with standard errors."""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

#: family-wise false-alarm rate of one claim's rows (Bonferroni)
FAMILY_ALPHA = 1e-3


def z_critical(rows: int, family_alpha: float = FAMILY_ALPHA) -> float:
    """Two-sided Bonferroni critical value for ``rows`` comparisons."""
    rows = max(int(rows), 1)
    return float(ndtri(1.0 - family_alpha / (2.0 * rows)))


def normal_quantile(p: float) -> float:
    """The standard normal quantile (for confidence levels)."""
    return float(ndtri(p))


def mean_se(samples, axis=0):
    """Sample mean and its standard error (ddof = 1) along ``axis``."""
    x = np.asarray(samples, dtype=float)
    n = x.shape[axis]
    return x.mean(axis=axis), x.std(axis=axis, ddof=1) / math.sqrt(n)
