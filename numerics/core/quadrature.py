"""One-dimensional Gaussian expectations E f(mu + sigma * zeta), zeta ~ N(0, 1).

``expect_mp``: mpmath.quad (tanh-sinh) on (-inf, 0] and [0, inf) of the exact integrand —
no truncation of the real line — at ``dps`` digits, with the quadrature's own error estimate
(``expect_mp_err``).  ``expect_np``: Gauss-Hermite (probabilists' weight) in numpy,
vectorised over mu and sigma; exact for polynomials of degree < 2 n_nodes.
``sobol_normal``: randomised quasi-Monte Carlo points for expectations over N(0, I_dim).
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np


def expect_mp_err(f, mu, sigma, dps: int = 30):
    """(E f(mu + sigma zeta), error estimate) in mpmath at ``dps`` digits.  ``f`` takes an
    mpf and returns an mpf; ``sigma`` >= 0 (sigma = 0 gives f(mu) exactly)."""
    with mpmath.workdps(dps + 10):
        mu, sigma = mpmath.mpf(mu), mpmath.mpf(sigma)
        if sigma < 0:
            raise ValueError(f"sigma must be >= 0, got {sigma}")
        if sigma == 0:
            val = f(mu)
            with mpmath.workdps(dps):
                return +val, mpmath.mpf(0)
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)

        def integrand(z):
            return f(mu + sigma * z) * mpmath.exp(-z * z / 2) * norm

        val, err = mpmath.quad(integrand, [-mpmath.inf, 0, mpmath.inf], error=True)
    with mpmath.workdps(dps):  # round to dps digits here: +x outside would round to mp.dps
        return +val, +err


def expect_mp(f, mu, sigma, dps: int = 30) -> mpmath.mpf:
    """E f(mu + sigma zeta) in mpmath at ``dps`` digits (see ``expect_mp_err``)."""
    return expect_mp_err(f, mu, sigma, dps)[0]


@lru_cache(maxsize=16)
def _hermite(n_nodes: int):
    x, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    return x, w / np.sqrt(2 * np.pi)


def expect_np(f, mu, sigma, n_nodes: int = 80):
    """E f(mu + sigma zeta) by n-point Gauss-Hermite; ``f`` must be numpy-vectorised.
    ``mu`` and ``sigma`` broadcast against each other."""
    if n_nodes < 1:
        raise ValueError("n_nodes must be >= 1")
    x, w = _hermite(int(n_nodes))
    mu = np.asarray(mu, dtype=float)[..., None]
    sigma = np.asarray(sigma, dtype=float)[..., None]
    return np.sum(w * f(mu + sigma * x), axis=-1)


def sobol_normal(dim: int, log2_points: int, ss: np.random.SeedSequence) -> np.ndarray:
    """(2^log2_points, dim) standard Gaussian points: one scrambled Sobol sequence (seeded by
    ``ss``) mapped coordinate-wise by the normal quantile.  Independent scramblings (different
    ``ss``) give independent randomised-QMC estimates, whose spread is the standard error."""
    from scipy.special import ndtri
    from scipy.stats import qmc

    u = qmc.Sobol(dim, scramble=True, seed=np.random.default_rng(ss)).random_base2(log2_points)
    # scrambled Sobol points lie in (0, 1) with probability 1; the clip only guards the
    # measure-zero endpoints
    return ndtri(np.clip(u, 1e-300, 1.0 - 2.0**-53))
