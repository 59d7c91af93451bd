"""One-dimensional Gaussian expectations E f(mu + sigma * zeta), zeta ~ N(0, 1).

``expect_mp``: mpmath.quad (tanh-sinh) on (-inf, 0] and [0, inf) of the exact integrand —
no truncation of the real line — at ``dps`` digits, with the quadrature's own error estimate
(``expect_mp_err``).  ``expect_np``: Gauss-Hermite (probabilists' weight) in numpy,
vectorised over mu and sigma; exact for polynomials of degree < 2 n_nodes.
``gaussian_sobol``: randomised quasi-Monte Carlo points for expectations over N(0, I_dim).
``gaussian_expect_mp``: E f(zeta) of a vector integrand on shared trapezoid nodes, truncation
and step chosen from dps, exponentially convergent for integrands analytic in a strip, with a
relative error estimate and an up-front refusal of a grid that would be too large.
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


#: the largest step of gaussian_trapezoid_mp whose sum may be accepted: the rule's error for
#: the Gaussian weight alone is about exp(-2 pi^2 / step^2), 5e-35 at 1/2
RESOLVED_STEP = 0.5


def gaussian_trapezoid_mp(f, n_values: int, *, tol=None, start_step=0.25, max_halvings: int = 14):
    """E f(zeta), zeta ~ N(0, 1), for a vector integrand f: mpf -> list of ``n_values`` mpf,
    at the working precision.  Trapezoidal rule on [-Z, Z] (the Gaussian tail beyond Z is below
    the working precision), step halved until two successive sums agree to ``tol`` (default
    100 eps times their size); for an integrand analytic in a strip around the real axis the
    rule converges exponentially in 1/step, so the last difference bounds the error of the
    previous sum.  Two sums agree by accident on grids too coarse to see the Gaussian weight
    (a ``start_step`` of 8 puts no node within 8 of the mean: both sums are 0), so no sum of a
    step above RESOLVED_STEP is accepted.  Returns (values, last difference)."""
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
        if diff <= tol * (1 + max(abs(t) for t in T)) and step <= RESOLVED_STEP:
            return T, diff
    raise ArithmeticError(f"trapezoidal rule did not converge in {max_halvings} halvings")


def gaussian_expect_mp(f, n_values: int, dps: int, *, guard: int = 10, max_nodes: int = 2**18):
    """E f(zeta), zeta ~ N(0, 1), for a vector integrand ``f``: mpf -> ``n_values`` mpf, to
    ``dps`` significant digits: ((values), largest relative error estimate).

    Every component shares the nodes, so a caller puts all its moments of one parameter point
    into one ``f``.  The rule is chosen from ``dps`` (``D = dps + guard`` working digits):

    * truncation: the trapezoidal rule on [-Z, Z]: Z >= sqrt(2 D ln 10), where the Gaussian
      weight is below 10^-D, extended on the first grid until the outermost terms are below
      10^-D times E|f_k| for every component (a component with its mass in the Gaussian tail);
    * step: from h = Z/8 halved (reusing every node) until two successive sums agree for every
      component to 10^-(dps + 2) relative to E|f_k| (the same rule's sum of |f_k|; for a
      one-signed component, relative to the value itself).  For ``f`` analytic in the strip
      |Im zeta| < d the error of step h is O(exp(-2 pi d / h)): halving squares it, so the
      returned sum (step h/2) is far below the reported change;
    * cost: from the last two changes (log error linear in 1/h) the step that reaches dps is
      predicted; if its grid has more than ``max_nodes`` nodes (a singularity close to the
      real axis, or a very high dps) ArithmeticError is raised at once, not after the work;
    * weights: phi((k+s) h) = phi(k h) r q_k with r = exp(-s^2 h^2 / 2), q_k = exp(-k s h^2),
      q_(k+s) = q_k r^2 (s = 1 or 2: two products a node instead of an exp; rounding grows like
      the node count, far inside the guard digits); the nodes +-z share their weight."""
    with mpmath.workdps(dps + guard):
        D = dps + guard
        eps_D = mpmath.mpf(10) ** -D
        tol = mpmath.mpf(10) ** -(dps + 2)
        Z = mpmath.sqrt(2 * D * mpmath.log(10))
        h = Z / 8

        def level(h, start, stride, K=None):
            """sums of phi(z) f(z) and phi(z) |f(z)| over z = +-k h, k = start, start + stride,
            ..., up to K; K = None: at least Z/h, then on while the outermost terms matter."""
            tot, mag = [mpmath.mpf(0)] * n_values, [mpmath.mpf(0)] * n_values
            K0 = int(mpmath.floor(Z / h)) if K is None else K
            k = start
            w = mpmath.npdf(k * h)
            r = mpmath.exp(-h * h * stride * stride / 2)  # w((k+s)h)/w(kh) = exp(-(2ks+s^2)h^2/2)
            q = mpmath.exp(-h * h * stride * k)  # so the ratio is r * q, and q advances by r^2
            r2 = r * r
            while True:
                edge = [mpmath.mpf(0)] * n_values
                for vals in ([f(k * h)] if k == 0 else [f(k * h), f(-k * h)]):
                    for i, v in enumerate(vals):
                        tot[i] += w * v
                        edge[i] += w * abs(v)
                mag = [m + e for m, e in zip(mag, edge)]
                k += stride
                if k > K0 and (K is not None or all(e <= eps_D * m for e, m in zip(edge, mag))):
                    return tot, mag, k - stride
                if 2 * k + 1 > max_nodes:
                    raise ArithmeticError(f"Gaussian tail of the integrand needs more than {max_nodes} nodes")
                w *= r * q
                q *= r2

        tot, mag, K = level(h, 0, 1)
        T = [t * h for t in tot]
        A = [m * h for m in mag]
        last = None  # (1/h, log change) of the previous level
        while True:
            h /= 2
            K *= 2
            new, newmag, _ = level(h, 1, 2, K)
            T_new = [t / 2 + n * h for t, n in zip(T, new)]
            A = [a / 2 + m * h for a, m in zip(A, newmag)]
            rel = max(abs(p - q) / a if a else (mpmath.mpf(0) if p == q else mpmath.inf)
                      for p, q, a in zip(T_new, T, A))
            T = T_new
            if rel <= tol:
                return T, rel
            # rel is the error of the previous step 2h; predict the step reaching tol
            here = (1 / (2 * h), mpmath.log(rel))
            x_needed = None
            if last is not None and here[1] < last[1] and rel < mpmath.mpf("0.1"):
                slope = (last[1] - here[1]) / (here[0] - last[0])
                x_needed = here[0] + (here[1] - mpmath.log(tol)) / slope
            nodes = 4 * K + 1 if x_needed is None else 4 * Z * x_needed  # the next grid, or the final one
            if nodes > max_nodes:  # nodes grow like dps^1.5 (Z ~ dps^0.5, 1/h ~ dps)
                reach = int(dps * (max_nodes / nodes) ** (2 / 3))
                raise ArithmeticError(f"the trapezoidal rule would need about {int(nodes)} nodes (> {max_nodes}) "
                                      f"for {dps} digits (a singularity close to the real axis); about "
                                      f"{reach} digits are reachable here: lower --dps")
            last = here


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
