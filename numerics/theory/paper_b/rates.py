"""Paper B, rates: the exponent, K*, the r d threshold, the schedule slopes and the price of
learning A (V_A with its link integrals g, c), compiled from ``derivations.paper_b``.

The only numerical machinery here is generic: mpmath/numpy evaluation of compiled SymPy
expressions (``numerics.core.backends``), a scalar minimiser and root finder on a compiled
objective, and piecewise Gauss–Legendre quadrature of compiled integrands.  No cache: the
derivation builders are cached per active mutant set, the compiled code per expression.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from derivations.paper_b import parametric_excess as PE
from derivations.paper_b import rate_exponent as RE
from numerics.core.backends import NUMPY, mp_eval



def smoothness(P: int) -> int:
    """beta of a B-spline of degree P, from the derivation's step (an integer: P is)."""
    return int(RE.smoothness_index().subs(RE.P, int(P)))


def exponent(beta, dps: int = 30) -> float:
    """-2β/(2β+1) from the SymPy limit of the balanced bound."""
    return float(mp_eval(RE.exponent(), {RE.beta: beta}, dps))


def _at(expr, beta, M, dps=30):
    with mpmath.workdps(dps + 10):
        L = mpmath.log(mpmath.mpf(repr(float(M))))
        return mp_eval(expr, {RE.beta: beta, RE.M: M, RE.L: L}, dps)


def k_star(beta, M, dps: int = 30) -> float:
    return float(_at(RE.optimal_K(), beta, M, dps))


def b_star(beta, M, dps: int = 30) -> float:
    """The bound's minimum over K, B_np(K*), from the derivation's step ``B.rate.B_star``."""
    return float(_at(RE.b_star(), beta, M, dps))


def threshold(beta, M, dps: int = 30) -> float:
    return float(_at(RE.threshold(), beta, M, dps))


# --- the numerical check of B.rate.exponent: minimise the bound itself ---------------------
_S = sp.Symbol("s", real=True)  # log K


def bound_objective(beta: float, M: float):
    """(s -> B_np(K = e^s; M), s -> K) compiled to numpy (the input bound, not a derived step)."""
    expr = RE.B_NP.subs(RE.K, sp.exp(_S))
    f = NUMPY.compile(expr, (_S, RE.beta, RE.M, RE.L), raw=True)
    to_K = NUMPY.compile(sp.exp(_S), (_S,), raw=True)
    L = float(np.log(M))
    return (lambda s: f(s, beta, M, L)), to_K


def threshold_equation(beta: float, M: float):
    """rd -> r d log M / M - K_M^{-2β} compiled to numpy (the inputs, not derived steps)."""
    expr = RE.PARAMETRIC - RE.K_M ** (-2 * RE.beta)
    f = NUMPY.compile(expr, (RE.rd, RE.beta, RE.M, RE.L), raw=True)
    L = float(np.log(M))
    return lambda r: f(r, beta, M, L)


# --- V_A and its link integrals ------------------------------------------------------------
def _pieces(breakpoints, z, w):
    bps = np.unique(np.clip(breakpoints, -1.0, 1.0))
    a, b = bps[:-1, None], bps[1:, None]
    return ((a + b) / 2 + (b - a) / 2 * z).ravel(), ((b - a) / 2 * w).ravel()


def link_integrals(phi, nodes: int = 24) -> tuple[float, float]:
    """(g, c) of ``parametric_excess.link_integrands`` for a spline link ``phi`` (scipy
    BSpline; its derivative is the integrands' phi_prime).  Piecewise Gauss–Legendre: in y0 with
    breakpoints t/x0 at the knots t (the integrand is a polynomial on each piece, so the inner
    rule is exact), in x0 with breakpoints at ±t (the inner integrals are smooth between them)."""
    g_int, c_inner, c_outer, (x0, y0, m) = PE.link_integrands()
    extra = {PE.link_function().__name__: phi.derivative()}
    fg = NUMPY.compile(g_int, (x0, y0), extra=extra, raw=True)
    fi = NUMPY.compile(c_inner, (x0, y0), extra=extra, raw=True)
    fo = NUMPY.compile(c_outer, (m, x0), extra=extra, raw=True)
    knots = np.unique(np.clip(phi.t, -1.0, 1.0))
    z, w = np.polynomial.legendre.leggauss(nodes)
    xs, wx = _pieces(np.concatenate([[-1.0, 1.0], knots, -knots, [0.0]]), z, w)
    g = c = 0.0
    for xv, wxi in zip(xs, wx):
        ys, wy = _pieces(np.concatenate([[-1.0, 1.0], knots / xv]), z, w)
        g += wxi * float(np.sum(wy * np.broadcast_to(fg(xv, ys), ys.shape)))
        mv = float(np.sum(wy * np.broadcast_to(fi(xv, ys), ys.shape)))
        c += wxi * float(fo(mv, xv))
    return g, c


def v_a(phi, N: int, d: int, dps: int = 30) -> float:
    """V_A of ``parametric_excess.v_a`` at the link's (g, c): the closed form in mpmath at
    ``dps`` digits, at (g, c) from the float64 quadrature (whose digits are float64's)."""
    g, c = link_integrals(phi)
    return float(mp_eval(PE.v_a(), {PE.N: N, PE.d: d, PE.g: g, PE.c: c}, dps))
