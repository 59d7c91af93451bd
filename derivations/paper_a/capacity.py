"""Separability threshold (capacity) alpha* of pooled, vectorised and attention features.

Paper A, Eq. (18) / Conjecture 1 (alpha*_vec > alpha*_A > alpha*_pool, alpha*_pool =
alpha*_vec / L).  The paper's Eq. (18) has a heuristic step; this module is OUR derivation,
docs/paper_a_capacity.md, written as a chain of named steps.

Setting.  n = alpha d samples with features (docs/paper_a_capacity.md §1)

    f = a qhat + c e_2 + sigma P_perp eps,    eps ~ N(0, I_d) independent of (y, a, c, sigma),

qhat ⟂ e_2 unit vectors, P_perp = I - qhat qhat^T.  Attention at fixed q: (a, c, sigma) from
derivations.paper_a.attention_reduction; pooled: a = 0, c = theta_y R / L, sigma = 1/sqrt(L).
The data are *linearly separable with a bias* if some (w, b) has y_i (w.f_i + b) > 0 for all i.

Step 1 (parametrise w).  Margin 0 is scale free, so fix Q = ||P_perp w||^2 = 1 and write
        w = w1 qhat + rho e_2 + sqrt(1 - rho^2) u,  u ⟂ qhat, e_2,  ||u|| = 1.
        Then  y (w.f + b) = sigma sqrt(1-rho^2) [ u.(y eps) - kappa ],
        kappa = -[ y (w1 a + rho c + b) / sigma + rho y eps_2 ] / sqrt(1 - rho^2),
        and x = y eps restricted to the (d-2)-dim complement is N(0, I) independent of kappa.
Step 2 (Gordon / Gardner with heterogeneous margins).  {u : ||u|| <= 1, u.x_i >= kappa_i for
        all i <= n} is non-empty w.h.p. iff  alpha E[(kappa - zeta)_+^2] < 1  (CGMT: the
        auxiliary problem min_{r<=1} ||(kappa - r h)_+|| - r sqrt(d) <= 0; r < 1 is the same
        as a rescaled (w1, rho, b) with r = 1, so r = 1 WLOG).
Step 3 (integrate eps_2).  rho eps_2 / sqrt(1-rho^2) + zeta ~ N(0, 1/(1-rho^2)), hence with
        the scaling lemma E[(k - s zeta)_+^2] = s^2 F(-k/s):
            E[(kappa - zeta)_+^2] = E[F(T)] / (1 - rho^2),   T = y (rho c + w1 a + b) / sigma,
        F(t) = E[(zeta - t)_+^2] = (1 + t^2) Phi(-t) - t phi(t).
Step 4 (capacity).  alpha*(w) = (1 - rho^2) / E[F(T)], and alpha* = sup over (rho, w1, b).
        This is the notes' §6 [derived] candidate; we confirm it.

Specialisations (all exact, SymPy-checked below):
* pure noise, balanced labels:  F(b) + F(-b) = 1 + b^2  =>  alpha* = 2 (Cover), with or
  without a bias (the optimal bias is 0);
* pooled:  alpha*_pool = max (1-rho^2) / [pi F((rho theta R/L + b) sqrt L) + (1-pi) F(-b sqrt L)];
* vectorised, exchangeable positions: the signal subspace is span{e_l (x) xi}, L-dimensional;
  the optimum over the L signal coordinates m of w is symmetric (E F(theta v.m + b) is convex
  and permutation invariant in m, ||mean m|| <= ||m||: Jensen), m = rho 1/sqrt L, so in units
  of the Ld-dimensional problem  alpha_Ld = max (1-rho^2)/[pi F(rho theta R/sqrt L + b) +
  (1-pi) F(-b)], and alpha*_vec = n/d = L alpha_Ld.  With b -> b sqrt(L) this is exactly
  L * alpha*_pool: the identity alpha*_vec = L alpha*_pool holds EXACTLY for exchangeable
  position laws, although the vectorised data set is not the pooled one (different law,
  dimension Ld, an L-dim signal subspace instead of 1).  For a privileged (fixed) position law
  the optimum puts m on the R signal tokens: T_+ = rho theta sqrt(R) + b, and
  alpha*_vec > L alpha*_pool strictly (theta > 0, R < L).
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation

REFERENCE = "Paper A Eq. (18), Conjecture 1; docs/paper_a_capacity.md"

# ---- symbols --------------------------------------------------------------------------------
t = sp.Symbol("t", real=True)
zeta = sp.Symbol("zeta", real=True)
k_sym = sp.Symbol("k", real=True)
s_scale = sp.Symbol("s", positive=True)
rho = sp.Symbol("rho", real=True)
w1 = sp.Symbol("w_1", real=True)
b = sp.Symbol("b", real=True)
a_sym, c_sym = sp.symbols("a c", real=True)
sigma = sp.Symbol("sigma", positive=True)
y = sp.Symbol("y", real=True)
theta = sp.Symbol("theta", nonnegative=True)
pi_ = sp.Symbol("pi_+", positive=True)  # P(y = +1); not "pi" (would shadow pi in lambdify)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
alpha_sym = sp.Symbol("alpha^*", positive=True)

# ---- Gaussian building blocks ---------------------------------------------------------------
phi = sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)            # standard normal density at t
Phi_minus = sp.erfc(t / sp.sqrt(2)) / 2                  # Phi(-t)
gauss_density = sp.exp(-zeta**2 / 2) / sp.sqrt(2 * sp.pi)

#: F(t) = E[(zeta - t)_+^2], the closed form (notes §6 candidate).
F_closed = (1 + t**2) * Phi_minus - t * phi


def F_by_integration() -> sp.Expr:
    """F(t) = int_t^oo (zeta - t)^2 phi(zeta) dzeta, computed by SymPy (the derivation of the
    closed form, not assumed)."""
    return sp.simplify(sp.integrate((zeta - t) ** 2 * gauss_density, (zeta, t, sp.oo)))


def F_of(x: sp.Expr) -> sp.Expr:
    return F_closed.subs(t, x)


#: F'(t) = -2 E[(zeta - t)_+] = -2 (phi(t) - t Phi(-t)),  F''(t) = 2 Phi(-t) > 0 (F convex,
#: strictly decreasing).  Derived by differentiating F_closed.
F_prime = sp.simplify(sp.diff(F_closed, t))
F_second = sp.simplify(sp.diff(F_closed, t, 2))
F_prime_expected = -2 * (phi - t * Phi_minus)
F_second_expected = 2 * Phi_minus


def scaling_lemma_residual() -> sp.Expr:
    """E[(k - s zeta)_+^2] - s^2 F(-k/s), as an integral identity (Step 3); simplifies to 0.
    (k - s zeta)_+ is nonzero for zeta < k/s."""
    lhs = sp.integrate((k_sym - s_scale * zeta) ** 2 * gauss_density, (zeta, -sp.oo, k_sym / s_scale))
    return sp.simplify(lhs - s_scale**2 * F_of(-k_sym / s_scale))


# Step 1-3: the margin kappa and T.
T_expr = y * (rho * c_sym + w1 * a_sym + b) / sigma
kappa_mean = -T_expr / sp.sqrt(1 - rho**2)                 # kappa without the eps_2 part
#: the eps_2 + zeta combination has variance 1/(1-rho^2) => s = 1/sqrt(1-rho^2)
s_eff = 1 / sp.sqrt(1 - rho**2)
step3_pointwise = sp.simplify(s_eff**2 * F_of(-kappa_mean / s_eff) - F_of(T_expr) / (1 - rho**2))

#: the capacity functional at one (y, a, c, sigma): alpha*(w) = (1 - rho^2) / E[F(T)]
GARDNER_DENOMINATOR = F_of(T_expr)

# ---- pooled, vectorised --------------------------------------------------------------------
def pooled_objective(rho_=rho, b_=b) -> sp.Expr:
    """(1 - rho^2) / [pi F((rho theta R/L + b) sqrt L) + (1 - pi) F(-b sqrt L)]."""
    den = pi_ * F_of((rho_ * theta * R / L + b_) * sp.sqrt(L)) + (1 - pi_) * F_of(-b_ * sp.sqrt(L))
    return (1 - rho_**2) / den


def vectorised_objective(rho_=rho, b_=b) -> sp.Expr:
    """n/d threshold of the Ld-dim vectorised problem, symmetric signal coordinates:
    L (1 - rho^2) / [pi F(rho theta R / sqrt L + b) + (1 - pi) F(-b)]."""
    den = pi_ * F_of(rho_ * theta * R / sp.sqrt(L) + b_) + (1 - pi_) * F_of(-b_)
    return L * (1 - rho_**2) / den


def vectorised_fixed_objective(rho_=rho, b_=b) -> sp.Expr:
    """Privileged positions (always tokens 1..R): m on the signal tokens, T_+ = rho theta sqrt R + b."""
    den = pi_ * F_of(rho_ * theta * sp.sqrt(R) + b_) + (1 - pi_) * F_of(-b_)
    return L * (1 - rho_**2) / den


POOL_OBJ = pooled_objective()
VEC_OBJ = vectorised_objective()
VEC_FIXED_OBJ = vectorised_fixed_objective()


def vec_equals_L_pool_residual() -> sp.Expr:
    """vec objective at (rho, b sqrt L) minus L * pooled objective at (rho, b): zero."""
    return sp.simplify(vectorised_objective(rho, b * sp.sqrt(L)) - L * pooled_objective(rho, b))


def stationarity(objective: sp.Expr, variables=(rho, b)) -> tuple[sp.Expr, ...]:
    """Gradient of log(objective): the stationarity conditions solved by Newton (exact
    derivatives; log keeps the (1 - rho^2) and denominator terms separate)."""
    logobj = sp.log(objective)
    return tuple(sp.diff(logobj, v) for v in variables)


def hessian(objective: sp.Expr, variables=(rho, b)) -> sp.Matrix:
    grad = stationarity(objective, variables)
    return sp.Matrix([[sp.diff(g, v) for v in variables] for g in grad])


# ---- sanity limits ----------------------------------------------------------------------------
def cover_symmetry_residual() -> sp.Expr:
    """F(b) + F(-b) - (1 + b^2): zero, so pure noise with balanced labels gives
    alpha(b) = 2 / (1 + b^2), maximal (= 2, Cover) at b = 0."""
    return sp.simplify(F_of(b) + F_of(-b) - (1 + b**2))


def pure_noise_objective() -> sp.Expr:
    """No signal (theta = 0), label prior pi, bias b: 1 / [pi F(b) + (1 - pi) F(-b)] (rho = 0 is
    optimal: rho only enters through 1 - rho^2)."""
    return 1 / (pi_ * F_of(b) + (1 - pi_) * F_of(-b))


COVER_VALUE = sp.Integer(2)

# ---- Equations (for `attncheck latex`) -------------------------------------------------------
F_EQ = Equation(
    "A.capacity.F", sp.Function("F")(t), F_closed, REFERENCE, (t,),
    "F(t) = E[(zeta - t)_+^2] in closed form (derived by integration)", status="derived")
GARDNER_EQ = Equation(
    "A.capacity.gardner", alpha_sym,
    (1 - rho**2) / sp.Function("E")(sp.Function("F")(T_expr)),
    REFERENCE, (rho, y, c_sym, w1, a_sym, b, sigma),
    "alpha* = sup over (rho, w1, b) of (1 - rho^2)/E[F(y(rho c + w1 a + b)/sigma)] (notes §6, "
    "re-derived by CGMT)", status="derived")
_F = sp.Function("F")  # unevaluated, for readable LaTeX; F_EQ gives its closed form
POOL_EQ = Equation(
    "A.capacity.pool", sp.Symbol("alpha^*_pool", positive=True),
    (1 - rho**2) / (pi_ * _F((rho * theta * R / L + b) * sp.sqrt(L)) + (1 - pi_) * _F(-b * sp.sqrt(L))),
    REFERENCE,
    (rho, b, theta, R, L, pi_),
    "pooled capacity = max over (rho, b) of this objective (ours)", status="derived")
VEC_EQ = Equation(
    "A.capacity.vec", sp.Symbol("alpha^*_vec", positive=True),
    L * (1 - rho**2) / (pi_ * _F(rho * theta * R / sp.sqrt(L) + b) + (1 - pi_) * _F(-b)),
    REFERENCE,
    (rho, b, theta, R, L, pi_),
    "vectorised capacity (exchangeable positions) = max over (rho, b); equals L alpha*_pool "
    "exactly (paper's Conjecture 1 identity)", status="derived")
EQUATIONS = (F_EQ, GARDNER_EQ, POOL_EQ, VEC_EQ)
