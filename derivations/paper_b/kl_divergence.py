"""Paper B, lower bound (notes §5): KL divergence between the data laws of two models.

Model: X ~ a token law (the same under both hypotheses), Y | X ~ N(R_g[X], σ² I_N) (Gaussian
noise, i.i.d. over tokens [ours, for the lower bound]); M i.i.d. samples.

1. ``gaussian_kl``: KL(N(μ1, σ²) || N(μ2, σ²)) = (μ1 - μ2)² / (2σ²), by integrating
   p1 log(p1/p2) (SymPy).  Independent coordinates add, so conditionally on X the KL of one
   sample is |R_{g1}[X] - R_{g2}[X]|² / (2σ²) = Σ_i R_h[X]_i² / (2σ²), h = g1 - g2 (linearity
   of R).  Chain rule (same X-law) and M i.i.d. samples:
        KL(P_{g1}^{⊗M} || P_{g2}^{⊗M}) = (M / (2σ²)) Σ_i E|R_h[X]_i|².           (KL)
2. ``cauchy_schwarz_gap(n)``: (n-1) Σ_j a_j² - (Σ_j a_j)² = Σ_{j<k} (a_j - a_k)² >= 0
   (Lagrange), so |R_h[X]_i|² <= (1/(N-1)) Σ_{j != i} h(X_i, X_j)², and with
   ρ = (1/(N(N-1))) Σ_{i != j} Law(X_i, X_j):
        Σ_i E|R_h[X]_i|² <= (1/(N-1)) Σ_{i != j} E h(X_i, X_j)² = N ||h||²_ρ,
        KL <= (M N / (2σ²)) ||h||²_ρ.                                               (bound)
   No exchangeability needed.  Under exchangeability, by the coercivity identity,
   KL = (M N / (2σ²)) [m2/(N-1) + (N-2)/(N-1) c]; the bound is attained iff c = m2, e.g. when
   h(x, y) depends on x only (then R_h[X]_i = h(X_i)).  For a centred h (c = 0, i.i.d.
   tokens) KL is smaller than the bound by the factor N - 1.

Pure SymPy; docs: docs/paper_b.md, "B.kl.bound".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation
from derivations.paper_b.coercivity import IDENTITY_RHS, N, c, m2

yv = sp.Symbol("y", real=True)
mu1, mu2 = sp.symbols("mu1 mu2", real=True)
sigma = sp.Symbol("sigma", positive=True)
M = sp.Symbol("M", integer=True, positive=True)
ER2 = sp.Symbol(r"{E|R_h[X]_1|^2}", nonnegative=True)
norm2 = sp.Symbol(r"{\|h\|_\rho^2}", nonnegative=True)


def gaussian_kl():
    """KL(N(mu1, σ²) || N(mu2, σ²)) by direct integration."""
    p = lambda mu: sp.exp(-(yv - mu) ** 2 / (2 * sigma**2)) / sp.sqrt(2 * sp.pi * sigma**2)
    log_ratio = sp.expand(sp.expand_log(sp.log(p(mu1)) - sp.log(p(mu2)), force=True))
    return sp.simplify(sp.integrate(p(mu1) * log_ratio, (yv, -sp.oo, sp.oo)))


def cauchy_schwarz_gap(n: int):
    """((n-1) Σ a² - (Σ a)²) - Σ_{j<k} (a_j - a_k)²: expands to 0."""
    a = sp.symbols(f"a1:{n}")
    lhs = (n - 1) * sum(v**2 for v in a) - sum(a) ** 2
    rhs = sum((a[p] - a[q]) ** 2 for p in range(len(a)) for q in range(p + 1, len(a)))
    return sp.expand(lhs - rhs)


#: (KL) under exchangeability: Σ_i E|R_h[X]_i|² = N E|R_h[X]_1|².
KL_EXCHANGEABLE = M * N * ER2 / (2 * sigma**2)
KL_BOUND = M * N * norm2 / (2 * sigma**2)
KL_FROM_MOMENTS = KL_EXCHANGEABLE.subs(ER2, IDENTITY_RHS)


def bound_slack():
    """KL_BOUND - KL in terms of (m2, c) with ||h||² = m2: (MN/(2σ²)) (N-2)/(N-1) (m2 - c)."""
    return sp.factor(sp.simplify(KL_BOUND.subs(norm2, m2) - KL_FROM_MOMENTS))


EQUATIONS = (
    Equation(
        "B.kl.gaussian",
        sp.Symbol(r"{KL(N(\mu_1,\sigma^2)\|N(\mu_2,\sigma^2))}"),
        gaussian_kl(),
        "standard; derived by integration",
        (mu1, mu2, sigma),
        "KL of two Gaussians with equal variance",
        status="derived",
    ),
    Equation(
        "B.kl.formula",
        sp.Symbol(r"KL(P_{g_1}^{\otimes M}\|P_{g_2}^{\otimes M})"),
        KL_EXCHANGEABLE,
        "Paper B, Lemma 4.2 ingredients (notes §5); ours",
        (M, N, ER2, sigma),
        "(M/(2 sigma^2)) sum_i E|R_h[X]_i|^2 = (MN/(2 sigma^2)) E|R_h[X]_1|^2 under exchangeability",
        status="derived",
    ),
    Equation(
        "B.kl.bound",
        sp.Symbol(r"KL(P_{g_1}^{\otimes M}\|P_{g_2}^{\otimes M})"),
        KL_BOUND,
        "Paper B, Lemma 4.2 ingredients (notes §5); ours",
        (M, N, norm2, sigma),
        "upper bound (Cauchy-Schwarz), attained iff h(x, y) depends on x only (in mean square)",
        status="derived",
    ),
)
