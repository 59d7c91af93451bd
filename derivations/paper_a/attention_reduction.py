"""Low-dimensional reduction of the attention feature f_q(X) for a fixed query q.

Paper A, Section 4 (Theorem 4's key observation: softmax only acts on the projection
g = Xq in R^L).  Our derivation, docs/paper_a_after_training.md §1.

Setting (docs/conventions: no 1/sqrt(d) in the readout): X = theta_y v xi^T + Z, Z with i.i.d.
N(0, 1) entries, xi a unit vector, theta_y = theta 1{y = +1}, v in {0,1}^L with R ones.

Step 1.  Decompose Z along qhat = q/||q||:  Z = (Z qhat) qhat^T + Z P_perp,  P_perp = I - qhat qhat^T.
         z := Z qhat ~ N(0, I_L), and Z P_perp is independent of z (Gaussian, orthogonal
         projections).
Step 2.  g = X q = theta_y <xi, q> v + ||q|| z, so s = softmax(beta g) is a function of
         (y, v, z) only.
Step 3.  f_q(X) = X^T s = theta_y (v^T s) xi + (z^T s) qhat + P_perp Z^T s.  Conditional on
         (y, v, z), P_perp Z^T s ~ N(0, ||s||^2 P_perp) (a fixed vector s times an independent
         Gaussian matrix), i.e. equals ||s||_2 P_perp eps with eps ~ N(0, I_d) independent.
         The bulk variance is sigma^2 = ||s||_2^2.
Step 4.  xi = s_q qhat + sqrt(1 - s_q^2) e_2 with s_q = <xi, qhat>, e_2 ⟂ qhat a unit vector:
             f_q(X) = a qhat + c e_2 + sigma P_perp eps,
             a = theta_y (v^T s) s_q + z^T s,  c = theta_y (v^T s) sqrt(1 - s_q^2),
             sigma = ||s||_2.
The law of (a, c, sigma) depends on q only through (||q||, s_q) and on beta through beta ||q||.

Special cases (checked below symbolically):
* q = 0 (s = 1_L / L): f = theta_y (R/L) xi + Z^T 1_L / L, the pooled feature, i.e. no
  distinguished qhat direction, c = theta_y R / L along xi and sigma = 1/sqrt(L).
* vectorised, uniform positions: see derivations.paper_a.erm_equations (an exact reduction
  to the pooled equations in dimension L d with c = theta_y R/sqrt(L), sigma = 1).
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, replace, step

REFERENCE = "Paper A Thm 4 (reduction); docs/paper_a_after_training.md §1"

theta, beta, qn = sp.symbols("theta beta q_norm", positive=True)
s_q = sp.Symbol("s_q", real=True)
L_sym, R_sym = sp.symbols("L R", positive=True, integer=True)
y_plus = sp.Symbol(r"\mathbb{1}_{y=+1}", nonnegative=True)  # indicator, 0 or 1

# Symbols for the scalars the softmax produces (functions of (y, v, z) only).
vs = sp.Symbol(r"\langle v, s\rangle", nonnegative=True)  # mass of the softmax on the signal tokens
zs = sp.Symbol(r"\langle z, s\rangle", real=True)
s_sq = sp.Symbol(r"\|s\|_2^2", positive=True)

a_sym, c_sym, sigma2_sym = sp.symbols("a c sigma2", real=True)


@derivation
def components():
    """(a, c, sigma^2) of Step 4 in terms of v^T s, z^T s and ||s||^2."""
    a = step("A.reduction.a", theta * y_plus * vs * s_q + zs)
    c = step("A.reduction.c", theta * y_plus * vs * sp.sqrt(1 - s_q**2))
    sigma2 = step("A.reduction.sigma2", s_sq)
    return a, c, sigma2


def equations():
    a, c, sigma2 = components()
    return (
        Equation("A.reduction.a", a_sym, a, REFERENCE, (theta, y_plus, vs, s_q, zs),
                 "component of f_q(X) along qhat (ours)"),
        Equation("A.reduction.c", c_sym, c, REFERENCE, (theta, y_plus, vs, s_q),
                 "component of the mean of f_q(X) along e_2 ⟂ qhat (ours)"),
        Equation("A.reduction.sigma2", sigma2_sym, sigma2, REFERENCE, (s_sq,),
                 "variance of the isotropic Gaussian bulk of f_q(X) (ours)"),
    )


def signal_norm_identity() -> sp.Expr:
    """(a - z^T s)^2 + c^2 - (theta_y v^T s)^2: zero, i.e. the signal part of f_q(X) has the
    norm theta_y v^T s of theta_y (v^T s) xi — the decomposition is a rotation."""
    a, c, _ = components()
    return sp.simplify((a - zs) ** 2 + c**2 - (theta * y_plus * vs) ** 2)


@derivation
def explicit_softmax(Lval: int, Rval: int):
    """The reduction for an explicit L: symbols z_1..z_L, positions = first R tokens (WLOG by
    exchangeability of the z's).  The softmax is written s_i = 1 / sum_j exp(beta (g_j - g_i))
    (the same number; it never divides inf by inf).  Returns (z, s, a, c, sigma2) as SymPy
    expressions of (z, y_plus, theta, beta, q_norm, s_q)."""
    z = sp.symbols(f"z_1:{Lval + 1}", real=True)
    v = [1 if i < Rval else 0 for i in range(Lval)]
    g = step("A.reduction.logits", [theta * y_plus * qn * s_q * v[i] + qn * z[i] for i in range(Lval)])
    s = [1 / sum(sp.exp(beta * (g[j] - g[i])) for j in range(Lval)) for i in range(Lval)]
    values = {vs: sum(v[i] * s[i] for i in range(Lval)), zs: sum(z[i] * s[i] for i in range(Lval)),
              s_sq: sum(si**2 for si in s)}
    a, c, sigma2 = (e.xreplace(values) for e in components())
    return z, s, a, c, sigma2


def pooled_limit(Lval: int, Rval: int):
    """q -> 0: (a, c, sigma^2) of the explicit reduction at q_norm = 0.  sigma^2 = 1/L,
    c = theta_y (R/L) sqrt(1 - s_q^2), a = theta_y (R/L) s_q + mean(z) (i.e. the pooled
    feature, whose along-qhat part is the Gaussian mean(z) ~ N(0, 1/L))."""
    z, s, a, c, sigma2 = explicit_softmax(Lval, Rval)
    return tuple(sp.simplify(e.subs(qn, 0)) for e in (a, c, sigma2))


# --- structural mutants of these steps ----------------------------------------------------------
mutant("A.reduction.a:drop_zs", "A.reduction.a", "z^T s (the noise along qhat seen by the softmax) "
       "dropped from a", replace(zs, 0))
mutant("A.reduction.c:no_rotation", "A.reduction.c", "rotation factor sqrt(1 - s_q^2) dropped from c",
       replace(sp.sqrt(1 - s_q**2), 1))
mutant("A.reduction.sigma2:norm", "A.reduction.sigma2", "sigma^2 = ||s||_2 instead of ||s||_2^2",
       sp.sqrt)
mutant("A.reduction.logits:no_norm", "A.reduction.logits", "||q|| missing from the noise part of the "
       "logits g = X q", replace(qn, 1))
