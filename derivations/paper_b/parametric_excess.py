"""Paper B, Theorem 3.1 and Figure 1(a): the price of learning A, to first order in 1/M.  [ours]

Theorem 3.1 splits the ERM error into a nonparametric part (phi, rate M^{-2β/(2β+1)}) and a
parametric part (A, "r d log M / M").  This module derives the parametric part's constant for
the rate experiments' design, so that Figure 1(a) can be checked quantitatively, not by eye.

Step 1 (least squares, first order).  Linearise g = phi(x^T A y) at (phi_K, A*) in all
directions f_1..f_q it can move in: the spline basis B_l(u) and, for each tangent direction E
of the rank-r matrices at A* other than A* itself (the sphere ||A||_F = a_bar of the
estimator), f_E(x, y) = phi'(x^T A* y) x^T E y.  The ERM is least squares in these features with
design rows R_f[X]_i, so its error is bias + sigma^2 tr(G Sigma^{-1}) / (M N) + o(1/M) with
G = E_rho[f f^T] and Sigma = E[R_f[X]_1 R_f[X]_1^T].  By the coercivity identity
(``coercivity.COEF_M2``, ``coercivity.COEF_CROSS``, polarised) Sigma = G/(N-1) + ((N-2)/(N-1)) C,
C = E[E[f | X_1] E[f | X_1]^T].  The learnt-A excess over the oracle (A = A*) is
V_A = tr(G Sigma^{-1})_all - tr(G Sigma^{-1})_spline.

Step 2 (block structure; ``gram_blocks``).  Coordinate A* = e_0 e_0^T (every coordinate A* of
rank 1 is this one up to a permutation of coordinates and a sign), i.i.d. centred symmetric
token coordinates with E z^2 = s2.  The 2d - 2 tangent directions are the "row moves"
E = e_k e_0^T (k != 0, feature phi'(x_0 y_0) x_k y_0) and the "column moves" E = e_0 e_l^T
(l != 0, feature phi'(x_0 y_0) x_0 y_l).  Taking expectations over the coordinates other than
x_0, y_0 (odd moments vanish) shows, for d = 3 explicitly: G and C are diagonal across the
spline block and all 2d - 2 directions; a column move has E[f | X_1] = 0 (y_l is independent
and centred), so C = 0 on it and it contributes exactly N - 1 — Lemma 3.4's constant is
attained there; a row move has G = g, C = c with
    g = s2 E[phi'(U)^2 Y_0^2],   c = s2 E_X[(E_Y[phi'(X_0 Y_0) Y_0])^2]   (U = X_0 Y_0),
and contributes g / (g/(N-1) + (N-2) c/(N-1)).

Result (``V_A``):  V_A = (N - 1)(d - 1) [1 + g / (g + (N - 2) c)].
For N = 2 it is the tangent dimension 2d - 2 (classical parametric count); for c = 0 it is
(N - 1)(2d - 2); it grows linearly in d, which is why the learnt-A curves of Figure 1(a) are not
parallel at the figure's M for d = 30 (docs/paper_b.md).  The numbers g, c are integrals of the
link, evaluated by quadrature in numerics (an independent Monte Carlo of tr(G Sigma^{-1}) over
the numerical tangent basis checks the whole formula; tests).  Pure SymPy.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation
from derivations.paper_b import coercivity as CO

N = CO.N
d = sp.Symbol("d", integer=True, positive=True)
g, c = sp.symbols("g c", positive=True)
s2 = sp.Symbol("s_2", positive=True)  # E z^2 of one token coordinate

# --- step 1: Sigma from the coercivity identity (polarised) -----------------------------------
G_ab, C_ab = sp.symbols("G_ab C_ab", real=True)
SIGMA_AB = CO.COEF_M2 * G_ab + CO.COEF_CROSS * C_ab  # E[R_fa R_fb] for i.i.d. tokens


def direction_trace(g_=g, c_=c):
    """Contribution G Sigma^{-1} of one decoupled direction with G = g_, C = c_."""
    sigma = SIGMA_AB.subs({G_ab: g_, C_ab: c_})
    return sp.factor(sp.simplify(g_ / sigma))


# --- step 2: the block structure, explicitly for d = 3 ----------------------------------------
_D = 3
X = sp.symbols(f"x0:{_D}", real=True)
Y = sp.symbols(f"y0:{_D}", real=True)
dphi = sp.Function("phi_prime")
B = sp.Function("B")  # a generic spline basis function of u


def _expect_others(expr, given=()):
    """E over the coordinates other than x0, y0 and the ``given`` ones: expand in them, odd
    powers -> 0, squares -> s2, higher even powers -> symbols m_k (not needed here)."""
    others = [v for v in (*X[1:], *Y[1:]) if v not in given]
    poly = sp.Poly(sp.expand(expr), *others)
    out = sp.Integer(0)
    for powers, coef in poly.terms():
        factor = sp.Integer(1)
        for p in powers:
            if p % 2:
                factor = 0
                break
            if p:
                factor *= s2 if p == 2 else sp.Symbol(f"m_{p}")
        out += coef * factor
    return sp.expand(out)


def features():
    """name -> feature f(x, y) for the spline block and the 2d - 2 tangent directions."""
    u = X[0] * Y[0]
    feats = {"spline": B(u)}
    for k in range(1, _D):
        feats[f"row{k}"] = dphi(u) * X[k] * Y[0]  # E = e_k e_0^T
        feats[f"col{k}"] = dphi(u) * X[0] * Y[k]  # E = e_0 e_k^T
    return feats


def gram_blocks():
    """(G, C) as dicts over feature pairs, after the expectation over all coordinates but
    x0, y0: entries are expressions in x0, y0 (to be averaged over U = x0 y0) or 0.  For C the
    conditional mean given the first token x integrates the y coordinates other than y0 only;
    its product's x-expectation then runs over x1.., and y0 is renamed per factor."""
    feats = features()
    y0b = sp.Symbol("y0b", real=True)  # the independent copy of y0 in E[f|x] E[f'|x]
    names = list(feats)
    G, C = {}, {}
    for a in names:
        for b in names:
            G[a, b] = _expect_others(feats[a] * feats[b])
            ma = _expect_others(feats[a], given=X[1:])  # E over y1.. only: E[f | x, y0]
            mb = _expect_others(feats[b], given=X[1:]).subs(Y[0], y0b)
            C[a, b] = _expect_others(ma * mb)  # then over x1..
    return G, C


def v_a(d_=d):
    """V_A = (d - 1) * [column move] + (d - 1) * [row move]."""
    return sp.factor((d_ - 1) * direction_trace(g, 0) + (d_ - 1) * direction_trace(g, c))


V_A = v_a()


def v_a_limits():
    """(N = 2, c = 0, c -> oo) values of V_A."""
    return (sp.simplify(V_A.subs(N, 2)), sp.simplify(V_A.subs(c, 0)), sp.limit(V_A, c, sp.oo))


EQUATIONS = (
    Equation(
        "B.rate.parametric_excess",
        sp.Symbol("V_A"),
        V_A,
        "Paper B, Theorem 3.1 (parametric term), docs/paper_b.md#the-price-of-learning-a",
        (N, d, g, c),
        "ours: E err(learnt A) - E err(A = A*) = sigma^2 V_A / (M N) + o(1/M), coordinate A*, i.i.d. tokens",
        status="derived",
    ),
    Equation(
        "B.rate.parametric_excess_direction",
        sp.Symbol(r"\operatorname{tr}_E(G\Sigma^{-1})"),
        direction_trace(),
        "coercivity identity, polarised: Sigma = G/(N-1) + (N-2) C/(N-1)",
        (N, g, c),
        "ours: one tangent direction with Gram g and conditional-mean Gram c",
        status="derived",
    ),
)
