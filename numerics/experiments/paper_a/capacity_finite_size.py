"""Finite-size study of the exact-LP critical size (docs/paper_a_capacity.md §5).

For each d, ``simulate_crossing`` gives alpha_hat(d) = mean n_c (D/d)/(D+1) ± se; a weighted
least-squares fit of alpha_hat(d) = alpha_inf (1 + delta/(D+1)) with BOTH parameters free
(no theory input) gives the extrapolated threshold and the shift delta used by the capacity
claims.  Reproduce the docs' table with e.g.

    from numerics.experiments.paper_a.capacity_finite_size import finite_size_study
    finite_size_study("pool", [12, 25, 50, 100], [3000, 4000, 1000, 300], hint=2.95)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from numerics.experiments.paper_a.separability import AttentionQuery, simulate_crossing
from numerics.experiments.paper_a.sparse_token import SparseTokenModel


@dataclass(frozen=True)
class FiniteSizeFit:
    alpha_inf: float
    alpha_inf_se: float
    delta: float
    delta_se: float
    chi2: float
    dof: int
    points: tuple  # (d, D, mean, se, trials)


def fit_finite_size(D, means, ses) -> tuple[float, float, float, float, float]:
    """(alpha_inf, se, delta, se, chi2) of alpha_hat = alpha_inf (1 + delta/(D+1))."""
    D, m, s = (np.asarray(v, dtype=float) for v in (D, means, ses))
    if D.size < 2:
        raise ValueError("a two-parameter fit needs at least two sizes")
    res = least_squares(lambda p: (p[0] * (1 + p[1] / (D + 1)) - m) / s, [m[-1], 0.0])
    cov = np.linalg.inv(res.jac.T @ res.jac)
    se = np.sqrt(np.diag(cov))
    return float(res.x[0]), float(se[0]), float(res.x[1]), float(se[1]), float(np.sum(res.fun**2))


def finite_size_study(kind: str, ds, trials, *, hint: float, L=10, R=1, pi=0.5, theta=5.0,
                      query: AttentionQuery | None = None, seed: int = 0) -> FiniteSizeFit:
    points = []
    for i, (d, n) in enumerate(zip(ds, trials)):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))
        r = simulate_crossing(kind, SparseTokenModel(L, R, pi, theta, d), n, rng, hint, query)
        points.append((d, r.D, r.mean, r.se, n))
    a, a_se, dl, dl_se, chi2 = fit_finite_size([p[1] for p in points], [p[2] for p in points],
                                               [p[3] for p in points])
    return FiniteSizeFit(a, a_se, dl, dl_se, chi2, len(points) - 2, tuple(points))
