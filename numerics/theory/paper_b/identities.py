"""Paper B, Part 1: every theory value of the derivation claims, compiled from
``derivations.paper_b`` through ``numerics.core.backends``.

Nothing here caches: the derivation builders are cached per active mutant set
(``derivations.core.derivation``) and ``Context.compile`` is keyed by expression, so a
structural mutant of any step changes every value below.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from derivations.paper_b import coercivity as CO
from derivations.paper_b import counterexample as CE
from derivations.paper_b import forward_operator as FO
from derivations.paper_b import kl_divergence as KL
from derivations.paper_b import projection_lemma as PL
from numerics.core.backends import MPMATH, NUMPY, mp_eval

DPS = 30


def value(expr, values=None, dps: int = DPS) -> float:
    """A derived expression at concrete parameters, in mpmath at ``dps`` digits, as a float."""
    return float(mp_eval(sp.sympify(expr), dict(values or {}), dps))


# --- forward operator ------------------------------------------------------------------------
def _columns(T: np.ndarray) -> list:
    """(S, n, n) pair tables or (S, n) token vectors as per-entry columns, row-major."""
    return list(T.reshape(T.shape[0], -1).T)


def linearity_pairing(G1: np.ndarray, G2: np.ndarray, v: np.ndarray, a: float, b: float) -> float:
    """sum over samples of <a R_g1 + b R_g2, v> (token sum), with R and the linear
    combination of ``forward_operator.linear_combination`` on the pair tables G1, G2."""
    n = v.shape[1]
    G, H, comb = FO.linear_combination(n)
    vv = FO.token_vector(n)
    expr = sum(comb[p] * vv[p] for p in range(n))
    f = NUMPY.compile(expr, (*G, *H, *vv, FO.a, FO.b), raw=True)
    return float(np.sum(f(*_columns(G1), *_columns(G2), *_columns(v), a, b)))


def adjoint_pairing(G1: np.ndarray, v: np.ndarray) -> float:
    """sum over samples of <g, R* v>_pair with the derived adjoint and pair measure."""
    n = v.shape[1]
    G, pairing = FO.adjoint_pairing(n)
    vv = FO.token_vector(n)
    f = NUMPY.compile(pairing, (*G, *vv), raw=True)
    return float(np.sum(f(*_columns(G1), *_columns(v))))


def adjoint_example(n: int, dps: int = DPS) -> float:
    """E<R_g, R_c>_tok of the worked example at N = n (mpmath at ``dps`` digits)."""
    return value(FO.adjoint_example(), {FO.N: n}, dps)


def numpy_function(expr, args):
    """A SymPy expression (a problem's input function) compiled to numpy."""
    return NUMPY.compile(expr, tuple(args), raw=True)


def pair_function(expr, args=(FO.x, FO.y)):
    """A SymPy pair function h(x, y) (d = 1) as g(x, y) on arrays of shape (..., 1)."""
    f = NUMPY.compile(expr, args, raw=True)
    return lambda x, y: np.broadcast_to(f(x[..., 0], y[..., 0]), np.broadcast_shapes(x.shape, y.shape)[:-1])


# --- coercivity ------------------------------------------------------------------------------
def identity_value(n: int, m2, c, dps: int = DPS) -> float:
    """E|R_h[X]_1|² of the coercivity identity at N = n and exact moments (m2, c)."""
    return value(CO.identity(), {CO.N: n, CO.m2: m2, CO.c: c}, dps)


def excess_risk(n: int, m2, c, dps: int = DPS) -> float:
    """𝓔_∞(g) - 𝓔_∞(g*) (steps 1 and 2 of the coercivity derivation)."""
    return value(CO.risk_difference(int(n))[1], {CO.ER2_1: CO.identity_value(n, m2, c)}, dps)


def cross_ciid(h, shift, dps: int = DPS) -> float:
    """c = E[m_h(X_1, Z)²] for X_j = shift Z + W_j (exact, then evaluated)."""
    return value(CO.cross_term_ciid(h, sp.Rational(shift)), None, dps)


# --- counterexample ----------------------------------------------------------------------------
def permutation_example(dps: int = DPS) -> dict:
    return {k: value(v, None, dps) for k, v in CE.permutation_example().items()}


def ratio_min(n: int, k: int, dps: int = DPS) -> float:
    return value(CE.ratio_min(), {CE.N: n, CE.k: k}, dps)


def null_dimension(n: int, dps: int = DPS) -> float:
    return value(CE.null_dimension(), {CE.N: n}, dps)


# --- Lemma 4.1 -----------------------------------------------------------------------------------
def _quad(expr, lo, hi, dps):
    f = MPMATH.compile(expr, (PL.tau,), raw=True)
    val, err = mpmath.quad(f, [lo, hi], error=True)
    return val, err


def projection(bins, dps: int = 20) -> dict:
    """(value, quadrature error) of ||ψ̂ - φ*||², the gap E[Var(ĝ|U)], and the bin averages of
    ĝ over U ∈ [lo, hi) (∫ ψ̂ p_U / ∫ p_U), all by mpmath.quad of the derived integrands."""
    proj_int, Eg2, psi2_int = PL.pythagoras()
    num_p, num_n, dens = PL.bin_integrands()
    out = {}
    with mpmath.workdps(dps):
        proj, e1 = _quad(proj_int, 0, 1, dps)
        psi2, e2 = _quad(psi2_int, 0, 1, dps)
        out["projected"] = (float(proj), float(e1))
        out["gap"] = (float(mp_eval(Eg2, {}, dps) - psi2), float(e2))
        out["total_exact"] = value(PL.total_error(), None, dps)
        avg = {}
        for lo, hi in bins:
            num = den = err = mpmath.mpf(0)
            for f_num, a, b in ((num_p, max(lo, 0), hi), (num_n, -min(hi, 0), -lo)):
                if b > a:
                    u, eu = _quad(f_num, a, b, dps)
                    w, ew = _quad(dens, a, b, dps)
                    num, den, err = num + u, den + w, err + eu + ew
            avg[(lo, hi)] = (float(num / den), float(err / den))
        out["bins"] = avg
    return out


# --- KL -------------------------------------------------------------------------------------------
def kl_values(n: int, M: int, sigma, m2, c, dps: int = DPS) -> tuple[float, float]:
    """(KL with E|R_h|² from the coercivity identity, the Cauchy–Schwarz bound with ||h||² = m2)."""
    vals = {KL.M: M, KL.N: n, KL.sigma: sp.Rational(str(sigma)), CO.m2: m2, CO.c: c}
    return value(KL.kl_from_moments(), vals, dps), value(KL.kl_bound(), {**vals, KL.norm2: m2}, dps)
