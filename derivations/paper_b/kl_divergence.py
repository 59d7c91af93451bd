"""Paper B, lower bound: KL divergence between the data laws of two models.

Model: X ~ a token law (the same under both hypotheses), Y | X ~ N(R_g[X], σ² I_N) (Gaussian
noise, i.i.d. over tokens [ours, for the lower bound]); M i.i.d. samples.  ``step`` names in
brackets.

1. [``B.kl.gaussian``] KL(N(μ1, σ²) || N(μ2, σ²)) = (μ1 - μ2)² / (2σ²), by integrating
   p1 log(p1/p2) (SymPy).  [``B.kl.chain``] Independent coordinates add, so conditionally on X
   the KL of one sample is Σ_i (R_{g1}[X]_i - R_{g2}[X]_i)² / (2σ²) = Σ_i R_h[X]_i² / (2σ²),
   h = g1 - g2 (linearity of R), and under exchangeability its expectation is
   N E|R_h[X]_1|² / (2σ²).  Chain rule (same X-law) and M i.i.d. samples:
        KL(P_{g1}^{⊗M} || P_{g2}^{⊗M}) = (M N / (2σ²)) E|R_h[X]_1|².                (KL)
   With the coercivity identity (``coercivity.identity``),
   KL = (M N / (2σ²)) [m2/(N-1) + (N-2)/(N-1) c].
2. [``B.kl.cauchy_schwarz``] (n-1) Σ_j a_j² - (Σ_j a_j)² = Σ_{j<k} (a_j - a_k)² >= 0
   (Lagrange, ``cauchy_schwarz_gap``) for the N - 1 terms of R_h[X]_i = w Σ_{j != i} h_ij, so
   |R_h[X]_i|² <= w² (N-1) Σ_{j != i} h(X_i, X_j)², and with the N(N-1) ordered pairs of
   ρ = (1/(N(N-1))) Σ_{i != j} Law(X_i, X_j):
        Σ_i E|R_h[X]_i|² <= w² (N-1) N(N-1) ||h||²_ρ = N ||h||²_ρ,
        KL <= (M N / (2σ²)) ||h||²_ρ.                                               (bound)
   No exchangeability needed.  The bound is attained iff c = m2, e.g. when h(x, y) depends on
   x only (then R_h[X]_i = h(X_i)).  For a centred h (c = 0, i.i.d. tokens) KL is smaller than
   the bound by the factor N - 1.

Pure SymPy; docs: docs/paper_b.md, "B.kl.bound".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, step, times
from derivations.paper_b import coercivity as CO
from derivations.paper_b import forward_operator as FO

N, c, m2 = CO.N, CO.c, CO.m2
yv = sp.Symbol("y", real=True)
mu1, mu2 = sp.symbols("mu1 mu2", real=True)
sigma = sp.Symbol("sigma", positive=True)
M = sp.Symbol("M", integer=True, positive=True)
ER2 = sp.Symbol(r"{E|R_h[X]_1|^2}", nonnegative=True)
norm2 = sp.Symbol(r"{\|h\|_\rho^2}", nonnegative=True)
_R = sp.Symbol("R_h", real=True)  # one token's R_h[X]_i


@derivation
def gaussian_kl():
    """KL(N(mu1, σ²) || N(mu2, σ²)) by direct integration."""
    p = lambda mu: sp.exp(-(yv - mu) ** 2 / (2 * sigma**2)) / sp.sqrt(2 * sp.pi * sigma**2)
    log_ratio = sp.expand(sp.expand_log(sp.log(p(mu1)) - sp.log(p(mu2)), force=True))
    return step("B.kl.gaussian", sp.simplify(sp.integrate(p(mu1) * log_ratio, (yv, -sp.oo, sp.oo))))


mutant("B.kl.gaussian:no_half", "B.kl.gaussian",
       "Gaussian KL without the factor 1/2: (mu1 - mu2)^2 / sigma^2", times(2))
mutant("B.kl.gaussian:sigma", "B.kl.gaussian",
       "Gaussian KL with sigma in place of sigma^2", lambda e: e.subs(sigma, sp.sqrt(sigma)))


def _per_token(moment):
    """E of one token's KL, (R_h)²/(2σ²), with E R_h² = ``moment``."""
    one = sp.expand(gaussian_kl().subs({mu1: _R, mu2: 0}))
    return sp.expand(one.subs(_R**2, moment))


@derivation
def kl_exchangeable():
    """(KL): M samples x N independent token coordinates x E|R_h[X]_1|² / (2σ²)."""
    return M * step("B.kl.chain", N * _per_token(ER2))


mutant("B.kl.chain:token_average", "B.kl.chain",
       "KL of one sample averaged over its N tokens instead of summed", lambda e: e / N)


def cauchy_schwarz_gap(n: int):
    """((n-1) Σ a² - (Σ a)²) - Σ_{j<k} (a_j - a_k)²: expands to 0."""
    a = sp.symbols(f"a1:{n}")
    lhs = (n - 1) * sum(v**2 for v in a) - sum(a) ** 2
    rhs = sum((a[p] - a[q]) ** 2 for p in range(len(a)) for q in range(p + 1, len(a)))
    return sp.expand(lhs - rhs)


@derivation
def kl_bound():
    """(bound): Σ_i E|R_h[X]_i|² <= w² (N-1) N (N-1) ||h||²_ρ, times the per-token KL."""
    terms = step("B.kl.cauchy_schwarz", N - 1)  # (Σ_{j=1}^{n} a_j)² <= n Σ a_j², n = N - 1 terms
    pairs = N * (N - 1)  # ordered pairs i != j
    total = FO.weight() ** 2 * terms * pairs * norm2
    return sp.simplify(M * _per_token(total))


mutant("B.kl.cauchy_schwarz:N_terms", "B.kl.cauchy_schwarz",
       "Cauchy-Schwarz with N terms instead of the N - 1 other tokens", lambda e: e + 1)


def kl_from_moments():
    """(KL) with E|R_h[X]_1|² from the coercivity identity."""
    return kl_exchangeable().subs(ER2, CO.identity())


def bound_slack():
    """KL_BOUND - KL in terms of (m2, c) with ||h||² = m2: (MN/(2σ²)) (N-2)/(N-1) (m2 - c)."""
    return sp.factor(sp.simplify(kl_bound().subs(norm2, m2) - kl_from_moments()))


def equations():
    return (
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
            kl_exchangeable(),
            "Paper B, Lemma 4.2 ingredients; ours",
            (M, N, ER2, sigma),
            "(M/(2 sigma^2)) sum_i E|R_h[X]_i|^2 = (MN/(2 sigma^2)) E|R_h[X]_1|^2 under exchangeability",
            status="derived",
        ),
        Equation(
            "B.kl.bound",
            sp.Symbol(r"KL(P_{g_1}^{\otimes M}\|P_{g_2}^{\otimes M})"),
            kl_bound(),
            "Paper B, Lemma 4.2 ingredients; ours",
            (M, N, norm2, sigma),
            "upper bound (Cauchy-Schwarz), attained iff h(x, y) depends on x only (in mean square)",
            status="derived",
        ),
    )
