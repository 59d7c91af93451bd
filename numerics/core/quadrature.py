"""One-dimensional Gaussian expectations E f(mu + sigma * zeta), zeta ~ N(0, 1).

``expect_mp``: mpmath.quad (tanh-sinh) on (-inf, 0] and [0, inf) of the exact integrand —
no truncation of the real line — at ``dps`` digits, with the quadrature's own error estimate
(``expect_mp_err``).  ``expect_np``: Gauss-Hermite (probabilists' weight) in numpy,
vectorised over mu and sigma; exact for polynomials of degree < 2 n_nodes.
``gaussian_sobol``: randomised quasi-Monte Carlo points for expectations over N(0, I_dim).
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np

from numerics.core.resources import SOBOL_MAX_DIM  # noqa: F401 (the limit of gaussian_sobol)


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


# --- point sets for latent x zeta averages -------------------------------------------------------
def gauss_hermite(n_nodes: int):
    """Nodes and weights (summing to 1) of the n-point Gauss-Hermite rule for E f(zeta),
    zeta ~ N(0, 1); exact for polynomials of degree < 2 n."""
    x, w = _hermite(int(n_nodes))
    return x, w / w.sum()


def gaussian_sobol(dim: int, log2_points: int, seed) -> np.ndarray:
    """2^log2_points scrambled-Sobol points in R^dim mapped to N(0, I) by the normal quantile
    (``seed``: a SeedSequence or int for the scrambling); 1 <= dim <= SOBOL_MAX_DIM."""
    from scipy.special import ndtri
    from scipy.stats import qmc

    u = qmc.Sobol(d=dim, scramble=True, seed=np.random.default_rng(seed)).random_base2(log2_points)
    # scrambled Sobol points lie in (0,1) with probability 1; the clip only guards the
    # measure-zero endpoint (ndtri(1e-300) = -37: far outside any integrand's support)
    return ndtri(np.clip(u, 1e-300, 1.0 - 2.0**-53))


def gaussian_trapezoid_mp(f, n_values: int, *, tol=None, start_step=0.25, max_halvings: int = 14):
    """E f(zeta), zeta ~ N(0, 1), for a vector integrand f: mpf -> list of ``n_values`` mpf,
    at the working precision.  Trapezoidal rule on [-Z, Z] (the Gaussian tail beyond Z is below
    the working precision), step halved until two successive sums agree to ``tol`` (default
    100 eps times their size); for an integrand analytic in a strip around the real axis the
    rule converges exponentially in 1/step, so the last difference bounds the error of the
    previous sum.  Returns (values, last difference)."""
    Z = mpmath.sqrt(2 * (mpmath.mp.dps + 5) * mpmath.log(10))
    tol = mpmath.eps * 100 if tol is None else tol

    def add(total, z):
        w = mpmath.npdf(z)
        return [t + w * v for t, v in zip(total, f(z))]

    step = mpmath.mpf(start_step)
    K = int(mpmath.ceil(Z / step))
    total = [mpmath.mpf(0)] * n_values
    for k in range(-K, K + 1):
        total = add(total, k * step)
    T = [t * step for t in total]
    for _ in range(max_halvings):
        step /= 2
        K = int(mpmath.ceil(Z / step))
        new = [mpmath.mpf(0)] * n_values
        for k in range(-K + (K % 2 == 0), K + 1, 2):  # the odd multiples of the new step
            new = add(new, k * step)
        T_new = [t / 2 + n * step for t, n in zip(T, new)]
        diff = max(abs(p - q) for p, q in zip(T_new, T))
        T = T_new
        if diff <= tol * (1 + max(abs(t) for t in T)):
            return T, diff
    raise ArithmeticError(f"trapezoidal rule did not converge in {max_halvings} halvings")


def gaussian_trapezoid(step: float, width: float = 8.6):
    """Nodes k*step, |k*step| <= width, and weights step*phi(k*step) (normalised to sum 1) of
    the trapezoidal rule for E f(zeta), zeta ~ N(0, 1).  For f analytic in a strip of
    half-width d around the real axis the error decays like exp(-2 pi d / step); for
    polynomial f like exp(-2 pi^2 / step^2).  width 8.6: the Gaussian mass beyond is < 1e-17."""
    K = int(np.ceil(width / step))
    x = step * np.arange(-K, K + 1)
    w = np.exp(-x * x / 2)
    return x, w / w.sum()


def gaussian_density(z):
    """The standard normal density (for integrands of generic quadrature routines)."""
    return np.exp(-np.square(z) / 2) / np.sqrt(2 * np.pi)
