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
(``coercivity.identity``, polarised) Sigma = G/(N-1) + ((N-2)/(N-1)) C,
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

Result [``B.rate.excess.count``, ``B.rate.excess.direction``, ``B.rate.excess.V_A``]:
    V_A = (N - 1)(d - 1) [1 + g / (g + (N - 2) c)].
For N = 2 it is the tangent dimension 2d - 2 (classical parametric count); for c = 0 it is
(N - 1)(2d - 2); it grows linearly in d, which is why the learnt-A curves of Figure 1(a) are not
parallel at the figure's M for d = 30 (docs/paper_b.md).

Step 3 (the link integrals; ``link_integrands``).  For tokens with i.i.d. U[-1, 1] coordinates
(s2 = E z^2 = 1/3, from the law) g and c are expectations over the link's derivative:
    g = ∫∫ G_row(x0, y0) dx0 dy0 / 4,    c = ∫ s2 (∫ f(x0, y0) dy0 / 2)^2 dx0 / 2,
with G_row the row-move entry of ``gram_blocks`` and f(x0, y0) = E[f_row | X] / x_1, the row
move's conditional mean given the first token divided by its x_1 factor.  numerics evaluates
these integrands (with phi' the link's derivative) by quadrature; an independent Monte Carlo
of tr(G Sigma^{-1}) over the numerical tangent basis checks the whole formula.  Pure SymPy.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, step
from derivations.paper_b import coercivity as CO
from derivations.paper_b import asymptotics

N = CO.N
d = sp.Symbol("d", integer=True, positive=True)
g, c = sp.symbols("g c", positive=True)
s2 = sp.Symbol("s_2", positive=True)  # E z^2 of one token coordinate

# --- step 1: Sigma from the coercivity identity (polarised) -----------------------------------
G_ab, C_ab = sp.symbols("G_ab C_ab", real=True)


def sigma_ab():
    """E[R_fa R_fb] for i.i.d. tokens: the coercivity identity, polarised."""
    return CO.identity().subs({CO.m2: G_ab, CO.c: C_ab})


@derivation
def direction_trace(g_=g, c_=c):
    """Contribution G Sigma^{-1} of one decoupled direction with G = g_, C = c_."""
    sigma = sigma_ab().subs({G_ab: g_, C_ab: c_})
    return step("B.rate.excess.direction", sp.factor(sp.simplify(g_ / sigma)))


mutant("B.rate.excess.direction:(N-1)c", "B.rate.excess.direction",
       "one direction's trace g/(g + (N-1)c) (times N-1) instead of g/(g + (N-2)c)",
       lambda e: sp.factor(e.subs(c, c * (N - 1) / (N - 2))))


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


@derivation
def v_a():
    """V_A = (d - 1) * [column move] + (d - 1) * [row move]: the column moves have zero
    conditional mean (C = 0), the row moves C = c (step 2, ``gram_blocks``)."""
    columns, rows = step("B.rate.excess.count", (d - 1, d - 1))  # 2d - 2 tangent directions
    column_cross = step("B.rate.excess.column_cross", sp.Integer(0))
    total = columns * direction_trace(g, column_cross) + rows * direction_trace(g, c)
    return step("B.rate.excess.V_A", sp.factor(total))


mutant("B.rate.excess.count:d", "B.rate.excess.count",
       "d tangent directions per family instead of d - 1 (the direction of A* itself kept)",
       lambda t: tuple(e + 1 for e in t))
mutant("B.rate.excess.column_cross:c", "B.rate.excess.column_cross",
       "column moves given the row moves' conditional-mean Gram c (all directions alike)",
       lambda e: c)


def v_a_limits():
    """(N = 2, c = 0, c -> oo) values of V_A.  The c -> oo limit holds for N >= 3: at N = 2,
    V_A = 2(d - 1) whatever c is (N c - 2 c = 0), so the step's numeric points have N >= 3."""
    V = v_a()
    samples = {N: (3, 4, 5), d: (2, 5, 3), g: (1, "1/2", 3)}
    return (sp.simplify(V.subs(N, 2)), sp.simplify(V.subs(c, 0)),
            asymptotics.limit("B.rate.excess.V_A_limit", V, c, sp.oo, samples, post=lambda e: e))


# --- step 3: the link integrals ------------------------------------------------------------------
U_SYM = sp.Symbol("u", real=True)


def uniform_second_moment():
    """s2 = E z^2 for z ~ U[-1, 1]."""
    zv = sp.Symbol("z", real=True)
    return sp.integrate(zv**2 / 2, (zv, -1, 1))


@derivation
def link_integrands():
    """(g integrand in (x0, y0) on [-1, 1]^2, c inner integrand in (x0, y0) on [-1, 1], c outer
    integrand in (m, x0) on [-1, 1]) for i.i.d. U[-1, 1] coordinates, with phi_prime(u) the
    link's derivative; density factors included:
        g = ∫∫ g_int dx0 dy0,   c = ∫ c_outer(m(x0), x0) dx0,  m(x0) = ∫ c_inner(x0, y0) dy0."""
    G, _ = gram_blocks()
    s2v = uniform_second_moment()
    x0, y0 = X[0], Y[0]
    g_int = step("B.rate.excess.g", G["row1", "row1"].subs(s2, s2v) / 4)
    cond = _expect_others(features()["row1"], given=X[1:])  # E[f_row | X]: x1 * f(x0, y0)
    inner = sp.simplify(cond / X[1]) / 2
    if inner.has(X[1]):
        raise ValueError("the row move's conditional mean is not x_1 times a function of x0")
    mm = sp.Symbol("m", real=True)
    outer = step("B.rate.excess.c", _expect_others(X[1] ** 2) .subs(s2, s2v) * mm**2 / 2)
    return g_int, inner, outer, (x0, y0, mm)


def link_function():
    """The undefined function phi_prime(u) of the integrands (numerics supplies it)."""
    return dphi


def equations():
    return (
        Equation(
            "B.rate.parametric_excess",
            sp.Symbol("V_A"),
            v_a(),
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
