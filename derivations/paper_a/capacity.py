"""Separability threshold (capacity) alpha* of pooled, vectorised and attention features.

Paper A, Eq. (18) / Conjecture 1 (alpha*_vec > alpha*_A > alpha*_pool, alpha*_pool =
alpha*_vec / L).  The paper's Eq. (18) has a heuristic step; this module is OUR derivation
(docs/paper_a_capacity.md §2), written as a chain of named steps (``derivations.core.step``);
every theory value of the capacity claims is compiled from these steps.

Setting.  n = alpha d samples with features

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
  alpha*_vec > L alpha*_pool strictly (theta > 0, R < L);
* attention at a fixed query: (a, c, sigma^2) are functions of z ~ N(0, I_L) through the
  explicit softmax (attention_reduction.explicit_softmax); E[F(T)] is an L-dimensional
  Gaussian integral (numerics: randomised QMC).

For float64 the functions F, F', F'' are rewritten (``stable``) with the scaled complementary
error function erfcx(x) = exp(x^2) erfc(x) for t > 0: the same functions (``stable_residual``
is 0), without the underflow of erfc at large t.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import sympy as sp

from derivations.core import ByName, Equation, Named, derivation, mutant, replace, step
from derivations.paper_a import attention_reduction as red
from derivations.paper_a import erm_equations as erm
from derivations.paper_a import models as DM

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
s2 = sp.Symbol("sigma^2", positive=True)
y = sp.Symbol("y", real=True)
theta = sp.Symbol("theta", nonnegative=True)
pi_ = sp.Symbol("pi_+", positive=True)  # P(y = +1); not "pi" (would shadow pi in lambdify)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
gamma = sp.Symbol("gamma", nonnegative=True)  # beta ||q||, the softmax scale of the fixed query
s_q = red.s_q                                 # cos(q, xi)
D = sp.Symbol("D", positive=True)             # E[F(T)], the denominator of Step 4
U = sp.Symbol("U", positive=True)             # units of alpha (n/d per feature dimension)
alpha_sym = sp.Symbol("alpha^*", positive=True)
alpha_pool_sym = sp.Symbol("alpha^*_pool", positive=True)
alpha_vec_sym = sp.Symbol("alpha^*_vec", positive=True)

#: the variables of the maximisation (Step 4); without an along-qhat component (a = 0:
#: pooled, vectorised) w1 does not enter
VARIABLES = (rho, w1, b)
VARIABLES_NO_A = (rho, b)
#: the arguments of the closed-form objectives
CLOSED_FORM_ARGS = (rho, b, theta, R, L, pi_)

# ---- Gaussian building blocks ---------------------------------------------------------------
phi = sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)            # standard normal density at t
Phi_minus = sp.erfc(t / sp.sqrt(2)) / 2                  # Phi(-t)
gauss_density = sp.exp(-zeta**2 / 2) / sp.sqrt(2 * sp.pi)


class erfcx(sp.Function):
    """The scaled complementary error function erfcx(x) = exp(x^2) erfc(x)."""

    @classmethod
    def eval(cls, x):
        if x.is_zero:
            return sp.Integer(1)

    def fdiff(self, argindex=1):
        x = self.args[0]
        return 2 * x * erfcx(x) - 2 / sp.sqrt(sp.pi)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.exp(x**2) * sp.erfc(x)


# ---- Step 3: F(t) = E[(zeta - t)_+^2] -------------------------------------------------------
@derivation
def F() -> sp.Expr:
    """F(t) = E[(zeta - t)_+^2] = (1 + t^2) Phi(-t) - t phi(t) (``F_by_integration`` derives it)."""
    return step("A.capacity.F", (1 + t**2) * Phi_minus - t * phi)


mutant("A.capacity.F:sign_tphi", "A.capacity.F", "sign of the t phi(t) term of F flipped",
       lambda e: e + 2 * t * phi)
mutant("A.capacity.F:t2", "A.capacity.F", "(1 + t^2) Phi(-t) written t^2 Phi(-t) in F",
       replace(1 + t**2, t**2))


def F_by_integration() -> sp.Expr:
    """F(t) = int_t^oo (zeta - t)^2 phi(zeta) dzeta, computed by SymPy (the derivation of the
    closed form, not assumed)."""
    return sp.simplify(sp.integrate((zeta - t) ** 2 * gauss_density, (zeta, t, sp.oo)))


def F_of(x: sp.Expr) -> sp.Expr:
    return F().subs(t, x)


@derivation
def F_derivatives() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(F, F', F''), F' = -2 E[(zeta - t)_+] = -2 (phi - t Phi(-t)), F'' = 2 Phi(-t) > 0 (F convex,
    strictly decreasing): derived by differentiating F."""
    F0 = F()
    F1 = sp.simplify(sp.diff(F0, t))
    return F0, F1, sp.simplify(sp.diff(F1, t))


F_prime_expected = -2 * (phi - t * Phi_minus)
F_second_expected = 2 * Phi_minus


def _erfc_to_erfcx(expr: sp.Expr) -> sp.Expr:
    """erfc(u) = exp(-u^2) erfcx(u), with the common Gaussian factor pulled out."""
    return sp.factor_terms(expr.replace(sp.erfc, lambda u: sp.exp(-u**2) * erfcx(u)))


def stable(expr: sp.Expr) -> sp.Expr:
    """The same function of t written for float64: for t > 0 each erfc(u) as exp(-u^2) erfcx(u)
    and exp(-t^2/2) factored out (no underflow of erfc before the Gaussian factor, no sum of
    subnormal numbers); unchanged for t <= 0 (no cancellation there)."""
    return sp.Piecewise((_erfc_to_erfcx(expr), t > 0), (expr, True))


def stable_residual(expr: sp.Expr) -> sp.Expr:
    """The t > 0 branch of ``stable(expr)`` minus ``expr``: zero (an identity, not an
    approximation)."""
    return sp.simplify(_erfc_to_erfcx(expr).rewrite(sp.erfc) - expr)


@derivation
def F_stable() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(F, F', F'') in the float64 form of :func:`stable`."""
    return tuple(stable(e) for e in F_derivatives())


def scaling_lemma_residual() -> sp.Expr:
    """E[(k - s zeta)_+^2] - s^2 F(-k/s), as an integral identity (Step 3); simplifies to 0.
    (k - s zeta)_+ is nonzero for zeta < k/s."""
    lhs = sp.integrate((k_sym - s_scale * zeta) ** 2 * gauss_density, (zeta, -sp.oo, k_sym / s_scale))
    return sp.simplify(lhs - s_scale**2 * F_of(-k_sym / s_scale))


# ---- Steps 1-4: T, the margin moment, alpha*(w) ----------------------------------------------
@derivation
def T() -> sp.Expr:
    """Steps 1-3: the normalised margin T = y (rho c + w1 a + b) / sigma."""
    return step("A.capacity.T", y * (rho * c_sym + w1 * a_sym + b) / sigma)


mutant("A.capacity.T:variance", "A.capacity.T", "margin T normalised by sigma^2 instead of sigma",
       lambda e: e / sigma)


@derivation
def margin_moment() -> sp.Expr:
    """Step 3: E[(kappa - zeta)_+^2] = E[F(T)] / (1 - rho^2) with D = E[F(T)] (the eps_2
    integration: ``step3_pointwise`` is 0)."""
    return step("A.capacity.margin_moment", D / (1 - rho**2))


mutant("A.capacity.margin_moment:no_eps2", "A.capacity.margin_moment",
       "the 1/(1 - rho^2) from integrating out eps_2 dropped", lambda e: e * (1 - rho**2))


def step3_pointwise() -> sp.Expr:
    """s^2 F(-kappa_mean/s) - E[F(T)]/(1 - rho^2) pointwise (D -> F(T)), s^2 = 1/(1 - rho^2) the
    variance of rho eps_2/sqrt(1 - rho^2) + zeta: zero."""
    kappa_mean = -T() / sp.sqrt(1 - rho**2)
    s_eff = 1 / sp.sqrt(1 - rho**2)
    return sp.simplify(s_eff**2 * F_of(-kappa_mean / s_eff) - margin_moment().subs(D, F_of(T())))


@derivation
def alpha_w() -> sp.Expr:
    """Step 4 (Gardner / CGMT): alpha*(w) = 1 / E[(kappa - zeta)_+^2] = (1 - rho^2) / D."""
    return step("A.capacity.alpha", 1 / margin_moment())


@derivation
def alpha_in_units() -> sp.Expr:
    """U alpha*(w): the threshold n/d for features whose dimension is U d (U = L vectorised)."""
    return U * alpha_w()


@derivation
def label_prior() -> tuple[sp.Expr, sp.Expr]:
    """(P(y = +1), P(y = -1)) = (pi, 1 - pi): the class weights of ``erm_equations.class_law``
    (the one label law of Paper A's models)."""
    return step("A.capacity.prior", tuple(w.subs(erm.pi_, pi_) for w, _ in erm.class_law()))


# Swapping pi and 1 - pi leaves the capacity of a two-atom law unchanged (the bias
# b -> -b - rho c_+ maps one objective onto the other), so that error is not detectable here;
# weights that ignore the prior are (the capacity claims run at pi = 0.3 too).
mutant("A.capacity.prior:equal", "A.capacity.prior",
       "class weights taken equal, 1/2 each, whatever the prior", lambda w: (sp.Rational(1, 2), sp.Rational(1, 2)))


# ---- the summand of E[F(T)] and its derivatives (float64 form) ------------------------------
@derivation
def summand(variables: tuple = VARIABLES) -> tuple:
    """h = F(T) as a function of the latents (y, a, c, sigma^2) and ``variables``, with its
    gradient and Hessian by the chain rule (F'(T) dT, F''(T) dT dT^T + F'(T) d2T), each in
    the float64 form of :func:`stable`.  Returns (h, [dh_i], [[d2h_ij]])."""
    absent = {v: 0 for v in VARIABLES if v not in variables}  # w1 = 0 when a = 0
    Tx = T().subs(sigma, sp.sqrt(s2)).subs(absent)
    F0, F1, F2 = (e.subs(t, Tx) for e in F_stable())
    dT = [sp.diff(Tx, v) for v in variables]
    grad = [F1 * dTi for dTi in dT]
    hess = [[F2 * dT[i] * dT[j] + F1 * sp.diff(Tx, variables[i], variables[j])
             for j in range(len(variables))] for i in range(len(variables))]
    return F0, grad, hess


@derivation
def log_alpha_w(variables: tuple = VARIABLES) -> tuple:
    """g = log(U alpha*(w)) as a function of (variables, D, U) with its gradient and Hessian in
    (variables..., D): the outer function of the sample-average objective (U the units of
    alpha, ``model_latents``)."""
    g = sp.log(alpha_in_units())
    allv = tuple(variables) + (D,)
    grad = [sp.diff(g, v) for v in allv]
    return g, grad, [[sp.diff(gi, v) for v in allv] for gi in grad]


def _vec_fixed_law() -> dict:
    """Vectorised features with the signal on fixed positions (m on the R signal tokens): the
    positive class's mean is theta sqrt R, the variance 1, and alpha is counted per L d."""
    return {"mu": step("A.capacity.vec_fixed.c", theta * sp.sqrt(R)), "sigma2": sp.Integer(1),
            "dim": step("A.law.vec.dim", L)}


@dataclass(frozen=True)
class CapacityModel(ByName):
    """A linear model whose capacity has a closed form: ``name`` and ``law()``, its two-atom
    latent law (mu, sigma2 and dim as expressions).  Pooled and vectorised share the step-4
    equations' atoms (one latent law, and its mutants reach both)."""

    name: str
    law: Callable = field(compare=False, repr=False)
    aliases: tuple = ()

    def __str__(self):
        return self.name


POOL = CapacityModel("pool", lambda: erm.linear_law(DM.POOLED))
VEC = CapacityModel("vec", lambda: erm.linear_law(DM.VECTORISED))
VEC_FIXED = CapacityModel("vec_fixed", _vec_fixed_law)
#: the capacity models with a closed form: pooled, vectorised (exchangeable positions) and
#: vectorised with fixed positions
MODELS = (POOL, VEC, VEC_FIXED)
#: the capacity model called ``name`` (a CapacityModel is returned as is); ValueError naming the choices
by_name = Named("model", CapacityModel, MODELS)


# ---- the model specialisations --------------------------------------------------------------
@derivation
def model_latents(model: CapacityModel) -> dict:
    """Per label, (a, c, sigma^2) of the pooled / vectorised features, and the units of alpha
    (n/d per feature dimension: L for the Ld-dimensional vectorised problem).

    * pooled (q = 0 of the attention reduction, ``attention_reduction.pooled_limit``):
      a = 0, c = theta_y R / L, sigma^2 = 1/L;
    * vectorised, exchangeable positions (symmetric optimum m = rho 1/sqrt L): c = theta_y R/sqrt L,
      sigma^2 = 1, units L;
    * vectorised, fixed positions (m on the R signal tokens): c = theta_y sqrt R, sigma^2 = 1, units L.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(map(str, MODELS))}, got {model!r}")
    law = model.law()
    c_pos, var, units = (sp.sympify(law[k]).subs(erm.theta, theta) for k in ("mu", "sigma2", "dim"))
    return {"pos": (sp.Integer(0), c_pos, var), "neg": (sp.Integer(0), sp.Integer(0), var), "units": units}




def _F_at(label_latents, yv) -> sp.Expr:
    a_, c_, var = label_latents
    return F().subs(t, T().subs({y: yv, a_sym: a_, c_sym: c_, sigma: sp.sqrt(var)}))


@derivation
def closed_form_objective(model: CapacityModel) -> sp.Expr:
    """alpha*(rho, b) of a two-atom latent law (pooled / vectorised), units included: the
    expectation E[F(T)] over the label is the sum pi F(T_+) + (1 - pi) F(T_-)."""
    lat = model_latents(model)
    p_pos, p_neg = label_prior()
    den = p_pos * _F_at(lat["pos"], 1) + p_neg * _F_at(lat["neg"], -1)
    return alpha_in_units().subs({U: lat["units"], D: den})


def stationarity(objective: sp.Expr, variables=VARIABLES_NO_A) -> tuple[sp.Expr, ...]:
    """Gradient of log(objective): the stationarity conditions solved by Newton (exact
    derivatives; log keeps the (1 - rho^2) and denominator terms separate)."""
    logobj = sp.log(objective)
    return tuple(sp.diff(logobj, v) for v in variables)


def hessian(objective: sp.Expr, variables=VARIABLES_NO_A) -> sp.Matrix:
    grad = stationarity(objective, variables)
    return sp.Matrix([[sp.diff(g, v) for v in variables] for g in grad])


@derivation
def closed_form_system(model: CapacityModel) -> tuple:
    """(objective, grad log objective, Hessian of log objective) in (rho, b) of a closed form."""
    obj = closed_form_objective(model)
    return obj, stationarity(obj), hessian(obj)


@derivation
def pool_vec_ratio() -> sp.Expr:
    """The claimed ratio alpha*_pool / alpha*_vec (= 1/L exactly: ``vec_equals_L_pool_residual``)."""
    return step("A.capacity.ratio", alpha_pool_sym / alpha_vec_sym)


def vec_equals_L_pool_residual() -> sp.Expr:
    """vec objective at (rho, b sqrt L) minus L * pooled objective at (rho, b): zero."""
    vec = closed_form_objective(VEC).subs(b, b * sp.sqrt(L))
    return sp.simplify(vec - L * closed_form_objective(POOL))


@derivation
def vec_general_objective(Lval: int, Rval: int, exchangeable: bool = True) -> tuple:
    """The vectorised threshold for a GENERAL signal-coordinate vector m in R^L (||m|| < 1),
    before the symmetric reduction: per signal position set S, T_+ = theta sum_S m + b (rho c =
    theta v.m, rho = ||m||), the expectation over positions exact (all R-subsets for
    exchangeable positions, the first R tokens otherwise).  Returns (m symbols, objective in
    (m, b, theta, pi))."""
    m = sp.symbols(f"m_1:{Lval + 1}", real=True)
    sets = list(combinations(range(Lval), Rval)) if exchangeable else [tuple(range(Rval))]
    norm = sp.sqrt(sum(mi**2 for mi in m))
    units = model_latents(VEC)["units"].subs(L, Lval)
    p_pos, p_neg = label_prior()
    pos = sum(_F_at((0, theta * sum(m[i] for i in S) / rho, 1), 1) for S in sets) / len(sets)
    den = p_pos * pos + p_neg * _F_at((0, 0, 1), -1)
    return m, alpha_in_units().subs({U: units, D: den}).subs(rho, norm)


# ---- sanity limits --------------------------------------------------------------------------
def cover_symmetry_residual() -> sp.Expr:
    """F(b) + F(-b) - (1 + b^2): zero, so pure noise with balanced labels gives
    alpha(b) = 2 / (1 + b^2), maximal (= 2, Cover) at b = 0."""
    return sp.simplify(F_of(b) + F_of(-b) - (1 + b**2))


def pure_noise_objective() -> sp.Expr:
    """No signal (theta = 0), label prior pi, bias b: 1 / [pi F(b) + (1 - pi) F(-b)] (rho = 0 is
    optimal: rho only enters through 1 - rho^2)."""
    p_pos, p_neg = label_prior()
    return alpha_w().subs(D, p_pos * F_of(b) + p_neg * F_of(-b)).subs(rho, 0)


COVER_VALUE = sp.Integer(2)

# ---- Equations (for `attncheck latex`) -------------------------------------------------------
_F = sp.Function("F")  # unevaluated, for readable LaTeX; F_EQ gives its closed form
#: the paper-style forms of the pooled / vectorised objectives (display; the test checks they
#: equal ``closed_form_objective``)
POOL_DISPLAY = (1 - rho**2) / (pi_ * _F((rho * theta * R / L + b) * sp.sqrt(L)) + (1 - pi_) * _F(-b * sp.sqrt(L)))
VEC_DISPLAY = L * (1 - rho**2) / (pi_ * _F(rho * theta * R / sp.sqrt(L) + b) + (1 - pi_) * _F(-b))


def equations() -> tuple[Equation, ...]:
    sig_T = T()
    return (
        Equation("A.capacity.F", _F(t), F(), REFERENCE, (t,),
                 "F(t) = E[(zeta - t)_+^2] in closed form (derived by integration)", status="derived"),
        Equation("A.capacity.gardner", alpha_sym,
                 alpha_w().subs(D, sp.Function("E")(_F(sig_T))),
                 REFERENCE, (rho, y, c_sym, w1, a_sym, b, sigma),
                 "alpha* = sup over (rho, w1, b) of (1 - rho^2)/E[F(y(rho c + w1 a + b)/sigma)] "
                 "(derived by CGMT)", status="derived"),
        Equation("A.capacity.pool", alpha_pool_sym, POOL_DISPLAY, REFERENCE, CLOSED_FORM_ARGS,
                 "pooled capacity = max over (rho, b) of this objective (ours)", status="derived"),
        Equation("A.capacity.vec", alpha_vec_sym, VEC_DISPLAY, REFERENCE, CLOSED_FORM_ARGS,
                 "vectorised capacity (exchangeable positions) = max over (rho, b); equals L alpha*_pool "
                 "exactly (paper's Conjecture 1 identity)", status="derived"),
    )
