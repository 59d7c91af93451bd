"""The linear positional baseline's test error (Paper C §4) from ``linear_baseline()``.

E over the teacher's pre-activations s = sqrt(rho) eta, eta ~ N(0, I_2), by the tensor
Gauss-Hermite rule (the integrand is analytic: the error is the change from n to 2n nodes per
axis).  B = E[T] (the population least-squares solution the derivation states), then
mse_lin = E[tr T Sigma T^T] + E[cross](B) + tr B Sigma B^T, reported through ``C.lin.reported``.
"""
from __future__ import annotations


import numpy as np

from derivations.core import active_mutants, replaying_cache
from derivations.paper_c import attention_erm as D
from numerics.core.backends import NUMPY
from numerics.core.quadrature import gauss_hermite



@replaying_cache(maxsize=16)
def _compiled(_mutants):
    lb = D.linear_baseline()
    bsyms = list(lb["B"])
    args = (D.eta1, D.eta2, D.sigma, D.omega)
    return {
        "T": NUMPY.compile(list(lb["T"]), args, raw=True),
        "sq": NUMPY.compile(lb["teacher_sq"], args, raw=True),
        "cross": NUMPY.compile(lb["cross"], args + tuple(bsyms), raw=True),
        "own": NUMPY.compile(lb["own"], (D.sigma,) + tuple(bsyms), raw=True),
        "rep": NUMPY.compile(lb["reported"], (D.MSE_LIN,), raw=True),
    }


def _mse(n, sigma, omega):
    c = _compiled(active_mutants())
    x, w = gauss_hermite(n)
    e1, e2 = (a.ravel() for a in np.meshgrid(x, x, indexing="ij"))
    W = np.outer(w, w).ravel()
    with np.errstate(over="ignore"):
        T = np.stack([np.broadcast_to(v, W.shape) for v in c["T"](e1, e2, sigma, omega)])
        B = T @ W
        sq = np.broadcast_to(c["sq"](e1, e2, sigma, omega), W.shape) @ W
        cross = np.broadcast_to(c["cross"](e1, e2, sigma, omega, *B), W.shape) @ W
    return float(c["rep"](sq + cross + float(c["own"](sigma, *B))))


def mse_linear(sigma: float, omega: float, n: int = 40) -> tuple[float, float]:
    """(mse_lin, its quadrature error |value(n) - value(2n)|)."""
    a, b = _mse(n, sigma, omega), _mse(2 * n, sigma, omega)
    return b, abs(a - b)
