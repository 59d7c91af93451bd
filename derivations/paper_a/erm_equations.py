"""Self-consistent equations of ridge ERM on "latent + sigma * isotropic Gaussian" features.

Paper A, Theorems 4 (attention at fixed q) and 5 (pooled / vectorised linear models),
Corollary 2 (square loss, ridgeless).  Our derivation; docs/paper_a_after_training.md §2-§4.

Problem.  n = alpha d samples f_i = a_i qhat + c_i e_2 + sigma_i P_perp eps_i in R^d (see
attention_reduction), labels y_i; minimise

    (1/n) sum_i ell(w^T f_i + b; y_i) + (lam/2) ||w||^2          (bias not penalised).

Order parameters: w_1 = <w, qhat>, m = <w, e_2>, Q = ||P_perp w||^2 (includes m^2), b, and V,
the trace (over the bulk) of the inverse Hessian of the n-scaled objective, which is
O(1/alpha).  Leave-one-out / cavity (derivation in the docs):

  omega = w_1 a + m c + b + sigma sqrt(Q) zeta,       zeta ~ N(0, 1) independent,
  h     = prox_{sigma^2 V ell(.; y)}(omega)   i.e.   h + sigma^2 V ell'(h; y) = omega,
  d_omega h = 1 / (1 + sigma^2 V ell''(h; y)),

  (b)    E[ell'(h; y)] = 0
  (w_1)  lam w_1 + E[a ell'(h; y)] = 0
  (V)    lam V + E[1 - d_omega h] = 1/alpha
  (m)    m + alpha V E[c ell'(h; y)] = 0
  (Q)    Q - m^2 - alpha V^2 E[sigma^2 ell'(h; y)^2] = 0

E over the latent law of (y, a, c, sigma) and over zeta.  Test error E[Phi(-y mu / (sigma sqrt Q))]
with mu = w_1 a + m c + b; training loss E[ell(h; y)]; training error P(y h < 0).

Square loss ell = (h - y)^2 / 2: the prox is linear and the zeta-expectations are exact
(Gaussian moments).  Everything below is SymPy; numerics lambdify it.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derivations.core import Equation

REFERENCE_T4 = "Paper A Thm 4; docs/paper_a_after_training.md §2"
REFERENCE_T5 = "Paper A Thm 5; docs/paper_a_after_training.md §3"
REFERENCE_C2 = "Paper A Cor 2; docs/paper_a_after_training.md §4"

# --- symbols -----------------------------------------------------------------------------
w1, m, b = sp.symbols("w_1 m b", real=True)
V, Q = sp.symbols("V Q", positive=True)
alpha, lam = sp.symbols("alpha lambda", positive=True)
a, c, y, zeta, h = sp.symbols("a c y zeta h", real=True)
s2 = sp.Symbol("sigma2", positive=True)  # sigma^2 of the latent law
UNKNOWNS = (w1, m, b, V, Q)
LATENT = (a, c, s2, y)

pi_ = sp.Symbol("pi_+", positive=True)  # P(y = +1); not named "pi" (lambdify would shadow the constant)
theta = sp.Symbol("theta", positive=True)
L, R = sp.symbols("L R", positive=True, integer=True)
mu_s = sp.Symbol("mu", positive=True)  # mean of the signal along e (two-point laws)
eps = sp.Symbol("epsilon", positive=True)  # 1/alpha

ell = sp.Function("ell")


def gaussian_expectation(expr: sp.Expr, var: sp.Symbol = zeta) -> sp.Expr:
    """E over var ~ N(0,1) of a polynomial in var, by exact moments E[var^k] = (k-1)!!."""
    poly = sp.Poly(sp.expand(expr), var)
    out = sp.Integer(0)
    for (k,), coeff in poly.terms():
        out += coeff * (0 if k % 2 else sp.factorial2(k - 1))
    return sp.factor(out)


# --- general channel ---------------------------------------------------------------------
mu_field = w1 * a + m * c + b
omega = mu_field + sp.sqrt(s2 * Q) * zeta

PROX_EQUATION = Equation(
    "A.erm.prox", h, omega - s2 * V * sp.Derivative(ell(h), h), REFERENCE_T4,
    note="training prediction h = prox of omega (implicit; ours)")

# --- square loss ---------------------------------------------------------------------------
ell_square = (h - y) ** 2 / 2
h_square = sp.solve(sp.Eq(h + s2 * V * sp.diff(ell_square, h), omega), h)[0]
kappa = 1 / (1 + s2 * V)  # d_omega prox for the square loss
dl_square = sp.factor(sp.diff(ell_square, h).subs(h, h_square))  # = kappa (omega - y)

# zeta-integrated integrands (exact)
E_dl = gaussian_expectation(dl_square)
E_dl2 = gaussian_expectation(dl_square**2)
E_loss = gaussian_expectation(ell_square.subs(h, h_square))
one_minus_dprox = sp.factor(1 - sp.diff(h_square, zeta) / sp.sqrt(s2 * Q))

# residual integrands r_k(x; a, c, s2, y), and the outer map F(x, E[r])
INTEGRANDS_SQUARE = (E_dl, a * E_dl, one_minus_dprox, c * E_dl, s2 * E_dl2)
Ebar = sp.symbols("E_b E_w1 E_V E_m E_Q", real=True)
OUTER = (
    Ebar[0],
    lam * w1 + Ebar[1],
    lam * V + Ebar[2] - 1 / alpha,
    m + alpha * V * Ebar[3],
    Q - m**2 - alpha * V**2 * Ebar[4],
)


@lru_cache(maxsize=1)
def square_loss_jacobian():
    """Exact Jacobian pieces: dF/dx = d_outer/dx + d_outer/dEbar . E[d r / dx].
    Returns (dOuter_dx 5x5, dOuter_dE 5x5, dr_dx 5x5) as SymPy matrices."""
    x = sp.Matrix(UNKNOWNS)
    outer = sp.Matrix(OUTER)
    r = sp.Matrix(INTEGRANDS_SQUARE)
    return outer.jacobian(x), outer.jacobian(sp.Matrix(Ebar)), r.jacobian(x).applyfunc(sp.factor)


# test error / training metrics integrands (over the latent law)
TEST_ERROR_INTEGRAND = sp.erfc(y * mu_field / sp.sqrt(2 * s2 * Q)) / 2
TRAIN_LOSS_SQUARE_INTEGRAND = E_loss
# y h < 0  <=>  y omega < -sigma^2 V (square loss, y = +-1)
TRAIN_ERROR_SQUARE_INTEGRAND = sp.erfc((y * mu_field + s2 * V) / sp.sqrt(2 * s2 * Q)) / 2

# --- logistic loss (used by numerics with a stable vectorised Newton prox) ------------------
ell_logistic = sp.log(1 + sp.exp(-y * h))
dl_logistic = sp.simplify(sp.diff(ell_logistic, h))
d2l_logistic = sp.simplify(sp.diff(ell_logistic, h, 2))

# --- any loss: the channel in terms of h, and its exact Jacobian (high-precision polish) -----
LOSSES = {"square": ell_square, "logistic": ell_logistic}


@lru_cache(maxsize=2)
def channel(loss: str):
    """The prox equation and the five residual integrands of a loss as SymPy expressions of
    (h, zeta, unknowns, latent), with their exact derivatives in the unknowns.

    The prox G(h, x) = h + sigma2 V ell'(h; y) - omega(x) = 0 defines h implicitly, so by the
    implicit function theorem dh/dx = -G_x / G_h; an integrand r(h, x) then has
    dr/dx = r_x + r_h dh/dx (exact; no finite differences).  Integrands:
    (ell', a ell', 1 - d_omega h, c ell', sigma2 ell'^2) with d_omega h = 1/G_h.
    Returns dict: G, G_h, omega0 (the omega with h = 0, for the training error), r (5-tuple),
    dr_dx (5x5 Matrix), loss (ell(h; y))."""
    ell_ = LOSSES[loss]
    dl = sp.diff(ell_, h)
    G = h + s2 * V * dl - omega
    G_h = sp.diff(G, h)
    dh = {x: -sp.diff(G, x) / G_h for x in UNKNOWNS}
    r = (dl, a * dl, 1 - 1 / G_h, c * dl, s2 * dl**2)
    J = sp.Matrix(5, 5, lambda i, j: sp.diff(r[i], UNKNOWNS[j]) + sp.diff(r[i], h) * dh[UNKNOWNS[j]])
    omega0 = sp.simplify((s2 * V * dl).subs(h, 0))  # G(0, x) = 0  <=>  omega = omega0
    return {"G": G, "G_h": G_h, "omega0": omega0, "r": r, "dr_dx": J, "loss": ell_}


def channel_square_check() -> sp.Matrix:
    """For the square loss the generic channel, integrated over zeta, must equal the exact
    INTEGRANDS_SQUARE and their Jacobian: returns the difference (zero matrix)."""
    ch = channel("square")
    sub = {h: h_square}
    r = sp.Matrix([gaussian_expectation(sp.expand(e.subs(sub))) for e in ch["r"]])
    J = ch["dr_dx"].subs(sub).applyfunc(lambda e: gaussian_expectation(sp.expand(sp.simplify(e))))
    x = sp.Matrix(UNKNOWNS)
    return sp.simplify(r.row_join(J) - sp.Matrix(INTEGRANDS_SQUARE).row_join(sp.Matrix(INTEGRANDS_SQUARE).jacobian(x)))


# --- two-point laws: pooled and vectorised linear models (Theorem 5) ------------------------
# Latent law: y = +1 (prob pi): c = mu, sigma^2 = s2; y = -1: c = 0; a = 0 (w_1 = 0).
# Pooled: mu = theta R / L, s2 = 1/L, alpha = n/d.
# Vectorised, uniform positions: mu = theta R / sqrt(L), s2 = 1, alpha = n/(L d) (exact: the
# token-permutation symmetry of the law forces <W, e_l (x) xi> to be equal for all l, so W's
# signal part lies along u = L^{-1/2} sum_l e_l (x) xi and <u, theta v (x) xi> = theta R/sqrt(L)
# for every position set v; docs §3).
POOL_MU = theta * R / L
POOL_S2 = 1 / L
VEC_MU = theta * R / sp.sqrt(L)
VEC_S2 = sp.Integer(1)


def two_point_expectation(integrand: sp.Expr) -> sp.Expr:
    """E over the two-point law with a = 0: pi * f(y=1, c=mu) + (1 - pi) * f(y=-1, c=0)."""
    f = integrand.subs({a: 0, s2: s2, w1: 0})
    return pi_ * f.subs({y: 1, c: mu_s}) + (1 - pi_) * f.subs({y: -1, c: 0})


@lru_cache(maxsize=4)
def two_point_solution(ridgeless: bool = False):
    """Closed-form solution of the square-loss system on the two-point law, step by step, as
    SymPy expressions of (mu, sigma2, pi, alpha, lambda) (lambda = 0 if ridgeless).
    Returns a dict with V, m, b, Q, test_error, train_loss (each in terms of the previous
    ones substituted)."""
    if ridgeless:
        # (V) with lambda = 0: s2 V/(1 + s2 V) = 1/alpha
        V_sol = sp.solve(sp.Eq(one_minus_dprox, 1 / alpha), V)[0]
        lam_v = sp.Integer(0)
    else:
        roots = sp.solve(sp.Eq(lam * V + one_minus_dprox, 1 / alpha), V)
        # the root that is positive (the other one is negative for all positive parameters)
        V_sol = max(roots, key=lambda r: float(r.subs({alpha: 2, s2: 1, lam: sp.Rational(1, 10)})))
        lam_v = lam
    F_b = two_point_expectation(INTEGRANDS_SQUARE[0])
    F_m = m + alpha * V * two_point_expectation(INTEGRANDS_SQUARE[3])
    sol = sp.solve([F_b, F_m], [m, b], dict=True)[0]
    m_sol = sp.factor(sol[m].subs(V, V_sol))
    b_sol = sp.factor(sol[b].subs(V, V_sol))
    F_Q = Q - m**2 - alpha * V**2 * two_point_expectation(INTEGRANDS_SQUARE[4])
    Q_of = sp.solve(F_Q, Q)[0]
    Q_sol = Q_of.subs({V: V_sol}).subs({m: m_sol, b: b_sol})
    sub = {V: V_sol, m: m_sol, b: b_sol, Q: Q_sol, lam: lam_v}
    test = two_point_expectation(TEST_ERROR_INTEGRAND).subs(Q, Q_sol).subs({m: m_sol, b: b_sol})
    train = two_point_expectation(TRAIN_LOSS_SQUARE_INTEGRAND).subs(Q, Q_sol).subs(sub)
    return {"V": V_sol, "m": m_sol, "b": b_sol, "Q": Q_sol,
            "test_error": test, "train_loss": train}


@lru_cache(maxsize=1)
def ridgeless_expansion():
    """Square loss, lambda = 0, two-point law (Corollary 2), by hand-sized steps:

    1. (V): sigma2 V = 1/(alpha - 1), so kappa = 1/(1 + sigma2 V) = 1 - 1/alpha and
       alpha V kappa = 1/sigma2: the (b) and (m) equations do not involve alpha, so m and b
       are exactly their alpha = infinity values (population least squares).
    2. (Q): alpha V^2 kappa^2 sigma2^2 = 1/alpha, hence Q (1 - eps) = m^2 + eps A / sigma2 with
       eps = 1/alpha and A = E[(m c + b - y)^2]; Q = m^2 + eps (m^2 + A/sigma2) + O(eps^2).
    3. test error E(Q) = pi Phi(-(m mu + b)/sqrt(sigma2 Q)) + (1-pi) Phi(b/sqrt(sigma2 Q)):
       E_inf = E(m^2), C1 = E'(m^2) (m^2 + A/sigma2).
    Returns E_inf, C1, m_inf, b_inf, Q_exact (in eps) and the step-1 identities."""
    V_sol = sp.solve(sp.Eq(one_minus_dprox, 1 / alpha), V)[0]
    kap = sp.simplify(kappa.subs(V, V_sol))
    avk = sp.simplify(alpha * V_sol * kap)
    F_b = two_point_expectation(INTEGRANDS_SQUARE[0]).subs(V, V_sol)
    F_m = (m + alpha * V * two_point_expectation(INTEGRANDS_SQUARE[3])).subs(V, V_sol)
    sol = sp.solve([sp.simplify(F_b), sp.simplify(F_m)], [m, b], dict=True)[0]
    m_inf, b_inf = sp.factor(sol[m]), sp.simplify(sol[b])
    F_Q = (Q - m**2 - alpha * V**2 * two_point_expectation(INTEGRANDS_SQUARE[4])).subs(V, V_sol)
    Q_exact = sp.factor(sp.solve(F_Q, Q)[0].subs(alpha, 1 / eps))
    err_Q = two_point_expectation(TEST_ERROR_INTEGRAND)
    Q1 = sp.factor(sp.diff(Q_exact, eps).subs(eps, 0))
    Q0 = sp.factor(Q_exact.subs(eps, 0))  # = m^2
    E_inf = err_Q.subs(Q, Q0)
    C1 = sp.diff(err_Q, Q).subs(Q, Q0) * Q1
    # m_inf > 0 for 0 < pi < 1: sqrt(m^2) = m
    sub = {m: m_inf, b: b_inf}
    E_inf = E_inf.subs(sp.Abs(m), m).subs(sp.sqrt(m**2), m)
    C1 = C1.subs(sp.Abs(m), m).subs(sp.sqrt(m**2), m)
    return {"E_inf": E_inf.subs(sub), "C1": C1.subs(sub), "Q0": Q0, "Q1": Q1,
            "m_inf": m_inf, "b_inf": b_inf, "Q_exact": Q_exact.subs(sub),
            "kappa": kap, "alpha_V_kappa": avk}


def _substitute_model(expr: sp.Expr, model: str) -> sp.Expr:
    if model == "pool":
        return expr.subs({mu_s: POOL_MU, s2: POOL_S2})
    if model == "vec":
        return expr.subs({mu_s: VEC_MU, s2: VEC_S2})
    raise ValueError(model)


def ridgeless_limit_equations():
    """Equations of Corollary 2 for the linear models (alpha_1 = n/d for both; the vectorised
    model's coefficient of 1/alpha_1 is L times that of its alpha = n/(L d))."""
    exp = ridgeless_expansion()
    out = []
    params = (theta, R, L, pi_)
    for model in ("pool", "vec"):
        e_inf = _substitute_model(exp["E_inf"], model)
        scale = 1 if model == "pool" else L
        c1 = _substitute_model(exp["C1"], model) * scale
        out.append(Equation(f"A.cor2.{model}.E_inf", sp.Symbol(f"E^\\infty_{{{model}}}"), e_inf,
                            REFERENCE_C2, params, f"{model}: square loss, ridgeless, alpha_1 -> inf (ours)"))
        out.append(Equation(f"A.cor2.{model}.C1", sp.Symbol(f"C_{{1,{model}}}"), c1, REFERENCE_C2,
                            params, f"{model}: coefficient of 1/alpha_1 (ours, first-order expansion)"))
    return tuple(out)


SANITY_OLS = Equation(
    "A.erm.sanity_ols", V, 1 / (alpha - 1), REFERENCE_T4, (alpha,),
    "square loss, lambda -> 0, sigma = 1, no signal: V = 1/(alpha - 1) (OLS)")


def ols_sanity_solution() -> sp.Expr:
    """Solve the (V) equation with lam = 0, sigma^2 = 1: must give 1/(alpha - 1)."""
    eq = one_minus_dprox.subs(s2, 1) - 1 / alpha
    return sp.solve(eq, V)[0]


GENERAL_EQUATIONS = (
    Equation("A.erm.eq_b", sp.Symbol("0"), sp.Symbol(r"\mathbb{E}[\ell'(h;y)]"), REFERENCE_T4,
             note="bias stationarity (ours)"),
    Equation("A.erm.eq_w1", sp.Symbol("0"), lam * w1 + sp.Symbol(r"\mathbb{E}[a\,\ell'(h;y)]"),
             REFERENCE_T4, (lam, w1, sp.Symbol(r"\mathbb{E}[a\,\ell'(h;y)]")), "qhat component (ours)"),
    Equation("A.erm.eq_V", 1 / alpha, lam * V + sp.Symbol(r"\mathbb{E}[1-\partial_\omega h]"),
             REFERENCE_T4, (lam, V, sp.Symbol(r"\mathbb{E}[1-\partial_\omega h]")), "susceptibility (ours)"),
    Equation("A.erm.eq_m", m, -alpha * V * sp.Symbol(r"\mathbb{E}[c\,\ell'(h;y)]"), REFERENCE_T4,
             (alpha, V, sp.Symbol(r"\mathbb{E}[c\,\ell'(h;y)]")), "overlap with e_2 (ours)"),
    Equation("A.erm.eq_Q", Q, m**2 + alpha * V**2 * sp.Symbol(r"\mathbb{E}[\sigma^2\ell'(h;y)^2]"),
             REFERENCE_T4, (m, alpha, V, sp.Symbol(r"\mathbb{E}[\sigma^2\ell'(h;y)^2]")), "bulk norm (ours)"),
    Equation("A.erm.test_error", sp.Symbol(r"E_{\rm test}"), sp.Symbol(r"\mathbb{E}")
             * TEST_ERROR_INTEGRAND, REFERENCE_T4, (sp.Symbol(r"\mathbb{E}"), y, w1, a, m, c, b, s2, Q),
             "test error (ours; E over the latent law)"),
)
