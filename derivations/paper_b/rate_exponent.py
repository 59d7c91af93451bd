"""Paper B, Theorem 3.1 (upper bound): the bias–variance balance behind M^{-2β/(2β+1)}.

Error bound of the ERM over piecewise polynomials with K pieces times rank-r matrices
(notes §4; constants dropped):

    B(K; M) = K^{-2β}  +  K log M / M  +  r d log M / M
              (approximation) (φ-variance)   (A-variance, parametric)

1. ``optimal_K``: ∂_K [K^{-2β} + K log M/M] = 0  ⇒  K* = (2β M / log M)^{1/(2β+1)}.
2. ``B_STAR_CLOSED``: at K*, K L/M = 2β K^{-2β}, so
   B_np(K*) = (1 + 2β) (2β)^{-2β/(2β+1)} (M / log M)^{-2β/(2β+1)}.
3. ``EXPONENT``: lim_{M→∞} log B_np(K*) / log M = -2β/(2β+1) (SymPy limit; the log M factor
   only changes the rate by a power of log M).
4. The paper's scaling K_M = (M / log M)^{1/(2β+1)} (no constant) balances the two
   nonparametric terms exactly (``balance_residual`` = 0); each equals K_M^{-2β}.
5. ``threshold``: the parametric term is at most the nonparametric one,
   r d log M / M <= K_M^{-2β}  ⇔  r d <= (M / log M)^{1/(2β+1)} = K_M
   — i.e. the matrix part has no more parameters (~ r d) than the spline part (~ K_M).
   With the optimal constant of step 2 the threshold is (1+2β)(2β)^{-2β/(2β+1)}
   (M/log M)^{1/(2β+1)}: the same power, a different constant (``threshold_optimal``).

Throughout, L stands for log M (M > 1).
Pure SymPy; docs: docs/paper_b.md, "B.rate.exponent".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation

K, M, beta, rd = sp.symbols("K M beta rd", positive=True)
#: L stands for log M (M > 1, so L > 0); keeping it a positive symbol avoids |log M| branches.
L = sp.Symbol("L", positive=True)

B_NP = K ** (-2 * beta) + K * L / M
PARAMETRIC = rd * L / M


def optimal_K():
    sols = sp.solve(sp.Eq(sp.diff(B_NP, K), 0), K)
    if len(sols) != 1:
        raise RuntimeError(f"expected one positive stationary point, got {sols}")
    return sp.simplify(sols[0])


K_STAR = optimal_K()
B_STAR = sp.simplify(B_NP.subs(K, K_STAR))
#: at K*: K L/M = 2β K^{-2β}, so B_np(K*) = (1 + 2β) K*^{-2β}
B_STAR_CLOSED = (1 + 2 * beta) * (2 * beta) ** (-2 * beta / (2 * beta + 1)) * (M / L) ** (
    -2 * beta / (2 * beta + 1)
)


def closed_form_residual():
    """B_np(K*) / closed form - 1 (0 when step 2 is right); checked at exact points."""
    return sp.simplify(B_STAR / B_STAR_CLOSED - 1)


def exponent():
    """lim log B_np(K*) / log M as M -> oo (M = e^L, L -> oo)."""
    logB = sp.expand_log(sp.log(B_STAR_CLOSED), force=True).subs(sp.log(M), L)
    return sp.simplify(sp.limit(logB / L, L, sp.oo))


EXPONENT = exponent()  # -2β/(2β+1)
K_M = (M / L) ** (1 / (2 * beta + 1))


def balance_residual():
    """K_M^{-2β} - K_M log M / M: zero (the paper's K_M balances the two terms)."""
    return sp.simplify(sp.powsimp(K_M ** (-2 * beta) - K_M * L / M, force=True))


def threshold():
    """The r d at which r d log M / M = K_M^{-2β}."""
    sol = sp.solve(sp.Eq(PARAMETRIC, K_M ** (-2 * beta)), rd)
    return sp.simplify(sp.powsimp(sol[0], force=True))


def threshold_optimal():
    """The r d at which r d log M / M = B_np(K*) (optimal constant)."""
    sol = sp.solve(sp.Eq(PARAMETRIC, B_STAR_CLOSED), rd)
    return sp.simplify(sol[0])


THRESHOLD = threshold()

EQUATIONS = (
    Equation(
        "B.rate.K_star",
        sp.Symbol("K^*_M"),
        K_STAR.subs(L, sp.log(M)),
        "Paper B, Theorem 3.1 (notes §4); balancing ours",
        (beta, M),
        "minimiser of K^{-2 beta} + K log M / M",
        status="derived",
    ),
    Equation(
        "B.rate.exponent",
        sp.Symbol(r"\lim_{M\to\infty}\frac{\log B(K^*_M)}{\log M}"),
        EXPONENT,
        "Paper B, Theorem 3.1 (notes §4)",
        (beta,),
        "the minimax exponent -2 beta/(2 beta + 1)",
        status="paper",
    ),
    Equation(
        "B.rate.threshold",
        sp.Symbol(r"(rd)_{\max}"),
        THRESHOLD.subs(L, sp.log(M)),
        "Paper B, Theorem 3.1 condition (notes §4)",
        (M, beta),
        "parametric term r d log M / M dominated iff r d <= (M/log M)^{1/(2 beta+1)}",
        status="paper",
    ),
)
