"""Self-consistent equations of ridge ERM on "latent + sigma * isotropic Gaussian" features.

Paper A, Theorems 4 (attention at fixed q) and 5 (pooled / vectorised linear models),
Corollary 2 (square loss, ridgeless).  Our derivation; docs/paper_a_after_training.md §2-§4.
Every expression below is a named step (``derivations.core.step``) built inside a cached
builder (``@derivation``), so a structural mutant of any step propagates to every theory
value computed from it: the numerics compile these expressions and nothing else.

Problem.  n = alpha d samples f_i = a_i qhat + c_i e_2 + sigma_i P_perp eps_i in R^d (see
attention_reduction), labels y_i; minimise

    (1/n) sum_i ell(w^T f_i + b; y_i) + (lam/2) ||w||^2          (bias not penalised).

Order parameters: w_1 = <w, qhat>, m = <w, e_2>, Q = ||P_perp w||^2 (includes m^2), b, and V,
the trace (over the bulk) of the inverse Hessian of the n-scaled objective, which is
O(1/alpha).  Leave-one-out / cavity (derivation in the docs):

  (field)        mu = w_1 a + m c + b,   omega = mu + sigma sqrt(Q) zeta,  zeta ~ N(0, 1),
  (prox)         G(h, omega) = h + sigma^2 V ell'(h; y) - omega = 0   (h = training prediction),
                 d_omega h = -G_omega / G_h = 1 / (1 + sigma^2 V ell''(h; y)),

  (b)    E[ell'(h; y)] = 0
  (w_1)  lam w_1 + E[a ell'(h; y)] = 0
  (V)    lam V + E[1 - d_omega h] = 1/alpha
  (m)    m + alpha V E[c ell'(h; y)] = 0
  (Q)    Q - m^2 - alpha V^2 E[sigma^2 ell'(h; y)^2] = 0

E over the latent law of (y, a, c, sigma^2) and over zeta.  Outputs: test error
E[Phi(-y mu / (sigma sqrt Q))]; training loss E[ell(h; y)]; training error P(y h < 0) =
E[Phi(-y (mu - omega_0) / (sigma sqrt Q))], omega_0 the field whose prox is 0 (the prox is
increasing in omega).  The solver's exact Jacobian comes from the implicit function theorem:
dh/dx = -G_x / G_h, dr/dx = r_x + r_h dh/dx for every integrand r.

Latent laws of the linear models (Theorem 5) are two atoms (``linear_law``); the square
loss has a linear prox, so its zeta-expectations are exact Gaussian moments
(``exact_channel``), which gives the closed forms of ``two_point_solution`` and Corollary 2
(``ridgeless_expansion``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derivations.core import Equation, derivation, drop, mutant, replace, step
from derivations.paper_a import losses as LS
from derivations.paper_a.attention_reduction import y_plus
from derivations.paper_a.losses import sigmoid, softplus  # noqa: F401 (the logistic loss's functions)

if TYPE_CHECKING:
    from derivations.paper_a.models import Model

REFERENCE_T4 = "Paper A Thm 4; docs/paper_a_after_training.md §2"
REFERENCE_T5 = "Paper A Thm 5; docs/paper_a_after_training.md §3"
REFERENCE_C2 = "Paper A Cor 2; docs/paper_a_after_training.md §4"

# --- symbols -----------------------------------------------------------------------------
w1, m, b = sp.symbols("w_1 m b", real=True)
V, Q = sp.symbols("V Q", positive=True)
alpha, lam = sp.symbols("alpha lambda", positive=True)
a, c, y, zeta, h = sp.symbols("a c y zeta h", real=True)
om = sp.Symbol("omega", real=True)  # the leave-one-out field, as the argument of the prox
s2 = sp.Symbol("sigma2", positive=True)  # sigma^2 of the latent law
UNKNOWNS = (w1, m, b, V, Q)
LATENT = (a, c, s2, y)
#: the five latent x zeta averages the equations see (named as they read in the docs)
EBAR = sp.symbols(r"\mathbb{E}[\ell'] \mathbb{E}[a\ell'] \mathbb{E}[1-\partial_\omega{h}] "
                  r"\mathbb{E}[c\ell'] \mathbb{E}[\sigma^2\ell'^2]", real=True)
E_b, E_w1, E_V, E_m, E_Q = EBAR
EQUATION_NAMES = ("b", "w1", "V", "m", "Q")

pi_ = sp.Symbol("pi_+", positive=True)  # P(y = +1); not named "pi" (lambdify would shadow the constant)
theta = sp.Symbol("theta", positive=True)
L, R = sp.symbols("L R", positive=True, integer=True)
mu_s = sp.Symbol("mu", positive=True)  # mean of the signal along e_2 (two-point laws)
eps = sp.Symbol("epsilon", positive=True)  # 1/alpha


# --- Gaussian moments ----------------------------------------------------------------------------
def gaussian_expectation(expr: sp.Expr, var: sp.Symbol = zeta) -> sp.Expr:
    """E over var ~ N(0,1) of a polynomial in var, by exact moments E[var^k] = (k-1)!!."""
    poly = sp.Poly(sp.expand(expr), var)
    out = sp.Integer(0)
    for (k,), coeff in poly.terms():
        out += coeff * (0 if k % 2 else sp.factorial2(k - 1))
    return sp.factor(out)


# --- losses ---------------------------------------------------------------------------------------
#: the losses' names, in the order of ``derivations.paper_a.losses.LOSSES``
LOSS_NAMES = tuple(lo.name for lo in LS.LOSSES)


@derivation
def loss(lo: "LS.Loss") -> dict:
    """ell(h; y) of the loss ``lo`` (an object of ``derivations.paper_a.losses``: a user's
    spelling is turned into one at the door, by ``losses.by_name``) and its first two
    h-derivatives."""
    if not isinstance(lo, LS.Loss):
        raise TypeError(f"loss: a Loss of derivations.paper_a.losses is expected, got {lo!r} "
                        "(losses.by_name turns a name into one)")
    ell = step(f"A.erm.loss.{lo.name}", lo.ell(h, y))
    dl = sp.diff(ell, h)
    return {"ell": ell, "dl": dl, "d2l": sp.diff(dl, h), "loss": lo}


# --- the channel: field, prox, integrands, outputs -----------------------------------------------
@derivation
def field():
    """(mu, omega): the mean field of a fresh sample and the leave-one-out field."""
    mu = step("A.erm.field", w1 * a + m * c + b)
    omega = step("A.erm.cavity_field", mu + sp.sqrt(s2 * Q) * zeta)
    return mu, omega


@derivation
def channel(lo: "LS.Loss") -> dict:
    """The prox equation and the five residual integrands of a loss, as SymPy expressions of
    (h, zeta, unknowns, latent), and the three output integrands.

    G(h, x) = h + sigma2 V ell'(h; y) - omega(x) = 0 defines h implicitly;
    d_omega h = -G_omega / G_h.  Integrands (b, w1, V, m, Q):
    (ell', a ell', 1 - d_omega h, c ell', sigma2 ell'^2).  Outputs: test error (latent only),
    training loss (at h), training error (latent only; omega_0 = the root in omega of
    G(0, omega) = 0).  Returns dict G, G_h, r (5-tuple), outputs (dict), mu, omega."""
    ls = loss(lo)
    mu, omega = field()
    G_om = step("A.erm.prox", lo.prox_equation(h, om, s2 * V, y, dl=ls["dl"]))
    G_h = sp.diff(G_om, h)
    dprox = -sp.diff(G_om, om) / G_h
    r = (step("A.erm.integrand_b", ls["dl"]),
         step("A.erm.integrand_w1", a * ls["dl"]),
         step("A.erm.integrand_V", sp.together(1 - dprox)),  # one fraction: no cancellation
         step("A.erm.integrand_m", c * ls["dl"]),
         step("A.erm.integrand_Q", s2 * ls["dl"] ** 2))
    r = tuple(e.subs(om, omega) for e in r)
    roots = sp.solve(G_om.subs(h, 0), om)
    if len(roots) != 1:
        raise ValueError(f"the prox of {lo} at h = 0 has {len(roots)} fields, expected one")
    omega0 = roots[0]
    outputs = {
        "test_error": step("A.erm.test_error", sp.erfc(y * mu / sp.sqrt(2 * s2 * Q)) / 2),
        "train_loss": step("A.erm.train_loss", ls["ell"]).subs(om, omega),
        "train_error": step("A.erm.train_error", sp.erfc(y * (mu - omega0) / sp.sqrt(2 * s2 * Q)) / 2),
    }
    return {"G": G_om.subs(om, omega), "G_h": G_h.subs(om, omega), "r": r, "outputs": outputs,
            "mu": mu, "omega": omega}


# --- the five equations ----------------------------------------------------------------------------
@derivation
def equations() -> tuple:
    """The five equations F(x, Ebar) = 0 in the averages Ebar (order b, w1, V, m, Q)."""
    return (step("A.erm.eq_b", E_b),
            step("A.erm.eq_w1", lam * w1 + E_w1),
            step("A.erm.eq_V", lam * V + E_V - 1 / alpha),
            step("A.erm.eq_m", m + alpha * V * E_m),
            step("A.erm.eq_Q", Q - m**2 - alpha * V**2 * E_Q))


@derivation
def system(lo: "LS.Loss", signal_along_q: bool = True) -> dict:
    """Everything a solver needs, exactly: unknowns, equations F(x, Ebar), integrands r, the
    prox G and G_h, and the Jacobian pieces dF/dx, dF/dEbar and dr/dx (implicit function
    theorem), plus the outputs.

    ``signal_along_q=False`` (latent a = 0: the linear models): w1 does not enter the field,
    its equation reads lam w1 = 0, and w1 is dropped from the unknowns."""
    ch = channel(lo)
    F, r, Ebar, unknowns = list(equations()), list(ch["r"]), list(EBAR), list(UNKNOWNS)
    G, G_h, outputs = ch["G"], ch["G_h"], dict(ch["outputs"])
    if not signal_along_q:
        zero = {a: 0, w1: 0}
        keep = [k for k in range(5) if EQUATION_NAMES[k] != "w1"]
        F = [F[k].subs(zero) for k in keep]
        r = [r[k].subs(zero) for k in keep]
        Ebar = [Ebar[k] for k in keep]
        unknowns = [x for x in unknowns if x is not w1]
        G, G_h = G.subs(zero), G_h.subs(zero)
        outputs = {k: v.subs(zero) for k, v in outputs.items()}
    dh = [-sp.diff(G, x) / G_h for x in unknowns]
    dr = [[sp.diff(ri, x) + sp.diff(ri, h) * dh[j] for j, x in enumerate(unknowns)] for ri in r]
    return {"unknowns": tuple(unknowns), "expectations": tuple(Ebar), "equations": tuple(F),
            "integrands": tuple(r), "G": G, "G_h": G_h, "dr_dx": dr,
            "dF_dx": [[sp.diff(Fk, x) for x in unknowns] for Fk in F],
            "dF_dE": [[sp.diff(Fk, E) for E in Ebar] for Fk in F],
            "outputs": outputs, "omega": ch["omega"],
            "names": tuple(n for n in EQUATION_NAMES if signal_along_q or n != "w1")}


@derivation
def exact_channel(lo: "LS.Loss", signal_along_q: bool = False) -> dict:
    """A loss whose prox is linear in h (the square loss): h solved in closed form and every
    zeta-average done exactly by Gaussian moments.  Returns the averaged integrands and
    outputs as expressions of (unknowns, latent), or raises ValueError for another loss."""
    sy = system(lo, signal_along_q)
    if sp.simplify(sp.diff(sy["G"], h, 2)) != 0:
        raise ValueError(f"the prox of {lo} is not linear in h")
    sol = sp.solve(sy["G"], h)
    sub = {h: sol[0]}
    r = tuple(gaussian_expectation(sp.simplify(e.subs(sub))) for e in sy["integrands"])
    out = {k: (gaussian_expectation(e.subs(sub)) if e.has(zeta) or e.has(h) else e)
           for k, e in sy["outputs"].items()}
    return {"integrands": r, "outputs": out, "prox": sol[0], "system": sy}


# --- two-point laws: pooled and vectorised linear models (Theorem 5) ------------------------
# Latent law: y = +1 (prob pi): c = mu, sigma^2 = s2; y = -1: c = 0; a = 0 (w_1 = 0).
# Pooled: mu = theta R / L, s2 = 1/L, alpha = n/d.
# Vectorised, uniform positions: mu = theta R / sqrt(L), s2 = 1, alpha = n/(L d) (exact: the
# token-permutation symmetry of the law forces <W, e_l (x) xi> to be equal for all l, so W's
# signal part lies along u = L^{-1/2} sum_l e_l (x) xi and <u, theta v (x) xi> = theta R/sqrt(L)
# for every position set v; docs §3).


@derivation
def class_law() -> tuple:
    """The label law and what each class carries, for every model of Paper A (docs §1):
    y = +1 with probability pi, its R signal tokens shifted by theta v (the signal indicator
    1_{y=+1} = 1); y = -1 with probability 1 - pi, no shift (indicator 0).  Returns the two
    classes as (weight, {y, 1_{y=+1}}), the positive class first."""
    w_plus, w_minus = step("A.law.class_weights", (pi_, 1 - pi_))
    s_plus, s_minus = step("A.law.class_shift", (sp.Integer(1), sp.Integer(0)))
    return ((w_plus, {y: sp.Integer(1), y_plus: s_plus}), (w_minus, {y: sp.Integer(-1), y_plus: s_minus}))


def two_point_atoms() -> tuple:
    """The generic two atoms (weight, values) of the linear models in the symbols mu, sigma2:
    a = 0 and c = mu 1_{y=+1} (the class law's shift), y as the class law says."""
    return tuple((w, {y: vals[y], a: sp.Integer(0), c: mu_s * vals[y_plus]}) for w, vals in class_law())


@derivation
def linear_law(model: Model) -> dict:
    """mu, sigma^2 and the dimension factor (alpha = alpha_1 / dim) of a linear model (what
    the model says: ``derivations.paper_a.models.LinearModel``), and its two atoms
    (weight, {y, a, c, sigma2}) as expressions of (theta, R, L, pi)."""
    if model.sees_q:
        raise ValueError(f"model: a linear model (its step-4 law blind to the query) is expected, got {model!r}")
    mu = step(f"A.law.{model}.mu", model.mu)
    sig2 = step(f"A.law.{model}.sigma2", model.sigma2)
    dim = step(f"A.law.{model}.dim", model.dim_factor)
    atoms = tuple((w, {**{k: sp.sympify(v).subs(mu_s, mu) for k, v in vals.items()}, s2: sig2})
                  for w, vals in two_point_atoms())
    return {"mu": mu, "sigma2": sig2, "dim": dim, "atoms": atoms}


def two_point_expectation(integrand: sp.Expr) -> sp.Expr:
    """E over the generic two-point law (a = 0): pi f(y=1, c=mu) + (1 - pi) f(y=-1, c=0)."""
    f = sp.sympify(integrand).subs({a: 0, w1: 0})
    return sum(w * f.subs(vals) for w, vals in two_point_atoms())


def substitute_model(expr: sp.Expr, model: Model) -> sp.Expr:
    """(mu, sigma2) of the generic two-point law -> those of a linear model."""
    law = linear_law(model)
    return expr.subs({mu_s: law["mu"], s2: law["sigma2"]})


def _two_point_equations():
    """The four equations of the linear models (square loss) on the generic two-point law."""
    ex = exact_channel(LS.SQUARE, False)
    sy = ex["system"]
    avg = {E: two_point_expectation(r) for E, r in zip(sy["expectations"], ex["integrands"])}
    return {n: F.subs(avg) for n, F in zip(sy["names"], sy["equations"])}, ex


def _positive_root(expr, var, probe):
    """The unique root of expr in var that is positive at the numeric point ``probe``."""
    roots = [r for r in sp.solve(expr, var) if r.subs(probe).is_real and r.subs(probe) > 0]
    if len(roots) != 1:
        raise ValueError(f"expected one positive root in {var}, found {len(roots)}")
    return roots[0]


@derivation
def two_point_solution(ridgeless: bool = False) -> dict:
    """Closed-form solution of the square-loss system on the two-point law, step by step, as
    SymPy expressions of (mu, sigma2, pi, alpha, lambda) (lambda = 0 if ridgeless): (V) alone,
    then (b) and (m) (linear in m, b), then (Q) (linear in Q).  Returns V, m, b, Q,
    test_error, train_loss."""
    eqs, ex = _two_point_equations()
    if ridgeless:
        eqs = {k: v.subs(lam, 0) for k, v in eqs.items()}
    probe = {alpha: 3, s2: sp.Rational(1, 3), lam: sp.Rational(1, 10), mu_s: sp.Rational(1, 2),
             pi_: sp.Rational(2, 5)}
    V_sol = _positive_root(eqs["V"], V, probe)
    sol = sp.solve([eqs["b"], eqs["m"]], [m, b], dict=True)  # linear in (m, b) at fixed V
    if len(sol) != 1:
        raise ValueError("the (b), (m) equations have no unique solution")
    m_sol, b_sol = sol[0][m].subs(V, V_sol), sol[0][b].subs(V, V_sol)
    q_roots = sp.solve(eqs["Q"], Q)  # linear in Q
    if len(q_roots) != 1:
        raise ValueError("the (Q) equation has no unique solution")
    Q_sol = q_roots[0].subs(V, V_sol).subs({m: m_sol, b: b_sol})
    sub = {V: V_sol, m: m_sol, b: b_sol, Q: Q_sol}
    out = ex["outputs"]
    return {"V": V_sol, "m": m_sol, "b": b_sol, "Q": Q_sol,
            "test_error": two_point_expectation(out["test_error"]).subs(sub),
            "train_loss": two_point_expectation(out["train_loss"]).subs(sub).subs(lam, 0 if ridgeless else lam)}


@derivation
def ridgeless_expansion() -> dict:
    """Square loss, lambda = 0, two-point law (Corollary 2), by hand-sized steps:

    1. (V): sigma2 V = 1/(alpha - 1), so kappa = 1/(1 + sigma2 V) = 1 - 1/alpha and
       alpha V kappa = 1/sigma2: the (b) and (m) equations do not involve alpha, so m and b
       are exactly their alpha = infinity values (population least squares).
    2. (Q): alpha V^2 kappa^2 sigma2^2 = 1/alpha, hence Q (1 - eps) = m^2 + eps A / sigma2 with
       eps = 1/alpha and A = E[(m c + b - y)^2]; Q = m^2 + eps (m^2 + A/sigma2) + O(eps^2).
    3. test error E(Q) = pi Phi(-(m mu + b)/sqrt(sigma2 Q)) + (1-pi) Phi(b/sqrt(sigma2 Q)):
       E_inf = E(m^2), C1 = E'(m^2) (m^2 + A/sigma2).
    Returns E_inf, C1, m_inf, b_inf, Q_exact (in eps), Q0, Q1 and the step-1 identities."""
    eqs, ex = _two_point_equations()
    eqs = {k: v.subs(lam, 0) for k, v in eqs.items()}
    probe = {alpha: 3, s2: sp.Rational(1, 3), mu_s: sp.Rational(1, 2), pi_: sp.Rational(2, 5)}
    V_sol = _positive_root(eqs["V"], V, probe)
    kap = sp.simplify(1 - ex["integrands"][ex["system"]["names"].index("V")].subs(V, V_sol))
    sol = sp.solve([sp.simplify(eqs["b"].subs(V, V_sol)), sp.simplify(eqs["m"].subs(V, V_sol))],
                   [m, b], dict=True)
    if len(sol) != 1:
        raise ValueError("the (b), (m) equations have no unique solution")
    m_inf, b_inf = sp.factor(sol[0][m]), sp.simplify(sol[0][b])
    q_roots = sp.solve(eqs["Q"].subs(V, V_sol), Q)
    if len(q_roots) != 1:
        raise ValueError("the (Q) equation has no unique solution")
    Q_exact = sp.factor(q_roots[0].subs(alpha, 1 / eps))
    err_Q = two_point_expectation(ex["outputs"]["test_error"])
    Q1 = sp.factor(sp.diff(Q_exact, eps).subs(eps, 0))
    Q0 = sp.factor(Q_exact.subs(eps, 0))
    E_inf = err_Q.subs(Q, Q0)  # sqrt(Q0) = |m| (m_inf > 0 for 0 < pi < 1; not assumed here)
    C1 = sp.diff(err_Q, Q).subs(Q, Q0) * Q1
    sub = {m: m_inf, b: b_inf}
    return {"E_inf": E_inf.subs(sub), "C1": C1.subs(sub), "Q0": Q0, "Q1": Q1,
            "E_of_m": E_inf, "dE_dQ": sp.diff(err_Q, Q).subs(Q, Q0),
            "m_inf": m_inf, "b_inf": b_inf, "Q_exact": Q_exact.subs(sub),
            "kappa": kap, "alpha_V_kappa": sp.simplify(alpha * V_sol * kap)}


@derivation
def ridgeless_limit(model: Model) -> dict:
    """E_inf and C1 of Corollary 2 for one linear model, as expressions of (theta, R, L, pi),
    with C1 the coefficient of 1/alpha_1 (alpha = alpha_1 / dim: C1 is dim times the
    coefficient of 1/alpha)."""
    exp = ridgeless_expansion()
    law = linear_law(model)
    out = {"E_inf": substitute_model(exp["E_inf"], model),
           "C1": substitute_model(exp["C1"], model) * law["dim"]}
    extra = set().union(*(e.free_symbols for e in out.values())) - {theta, R, L, pi_}
    if extra:  # step 1 (m, b free of alpha) fails: there is no such expansion
        raise ValueError(f"the ridgeless limit depends on {sorted(map(str, extra))}")
    if any(e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for e in out.values()):
        raise ValueError("the ridgeless limit is not finite")
    return out


def ridgeless_limit_equations():
    """Equations of Corollary 2 for the linear models (alpha_1 = n/d for both), as a chain per
    model: the model's two-point law (mu, sigma^2), the population least-squares readout
    (m_inf, b_inf), the first-order coefficient Q_1 of Q = m^2 + Q_1/alpha + O(alpha^-2), then
    E_inf and C_1 in these symbols."""
    from derivations.paper_a.models import LINEAR

    out = []
    params = (theta, R, L, pi_)
    exp = ridgeless_expansion()
    for model in LINEAR:
        lim, law = ridgeless_limit(model), linear_law(model)
        tag = f"{model}: "
        mu_m, s2_m = sp.Symbol(f"mu_{model}", positive=True), sp.Symbol(f"sigma_{model}^2", positive=True)
        m_m, b_m = sp.Symbol(f"m^\\infty_{{{model}}}", real=True), sp.Symbol(f"b^\\infty_{{{model}}}", real=True)
        q1_m = sp.Symbol(f"Q_{{1,{model}}}", positive=True)
        to_model = {mu_s: mu_m, s2: s2_m}
        e_mu = Equation(f"A.law.{model}.mu", mu_m, law["mu"], REFERENCE_C2, (theta, R, L),
                        f"{tag}the signal's mean along e_2 in the model's two-point law")
        e_s2 = Equation(f"A.law.{model}.sigma2", s2_m, law["sigma2"], REFERENCE_C2, (L,),
                        f"{tag}the bulk variance of the model's two-point law")
        law_uses = {mu_m: e_mu, s2_m: e_s2}
        to_law = {mu_s: law["mu"], s2: law["sigma2"]}
        m_val, b_val = exp["m_inf"].subs(to_law), exp["b_inf"].subs(to_law)
        e_m = Equation(f"A.cor2.{model}.m_inf", m_m, m_val, REFERENCE_C2, params,
                       f"{tag}the ridgeless readout overlap as alpha -> inf (population least squares)"
                       ).written(exp["m_inf"].xreplace(to_model), law_uses)
        e_b = Equation(f"A.cor2.{model}.b_inf", b_m, b_val, REFERENCE_C2, params,
                       f"{tag}the ridgeless bias as alpha -> inf").written(exp["b_inf"].xreplace(to_model), law_uses)
        mb = {**to_model, m: m_m, b: b_m}
        uses = {**law_uses, m_m: e_m, b_m: e_b}
        # Q_1 = m^2 + A/sigma^2 with A the mean squared residual of the limit readout
        resid = two_point_expectation((m * c + b - y) ** 2)
        if sp.simplify(exp["Q1"] - (m**2 + resid / s2)) != 0:
            raise ValueError("Q_1 is not m^2 + E[(m c + b - y)^2]/sigma^2")
        a_m = sp.Symbol(f"A_{{{model}}}", positive=True)
        e_a = Equation(f"A.cor2.{model}.residual", a_m, resid.subs(to_law).subs({m: m_val, b: b_val}),
                       REFERENCE_C2, params, f"{tag}mean squared residual of the limit readout, E[(m c + b - y)^2]"
                       ).written(resid.xreplace(mb), uses)
        q1_val = exp["Q1"].subs(to_law).subs({m: m_val, b: b_val}) * law["dim"]
        e_q1 = Equation(f"A.cor2.{model}.Q1", q1_m, q1_val, REFERENCE_C2, params,
                        f"{tag}Q = m^2 + Q_1/alpha_1 + O(alpha_1^-2)").written(
            (m_m**2 + a_m / s2_m) * law["dim"], {**uses, a_m: e_a})
        e_inf = Equation(f"A.cor2.{model}.E_inf", sp.Symbol(f"E^\\infty_{{{model}}}"), lim["E_inf"], REFERENCE_C2,
                         params, f"{tag}square loss, ridgeless, alpha_1 -> inf (ours)").written(
            exp["E_of_m"].xreplace(mb), uses)
        slope = exp["dE_dQ"].xreplace(mb)
        e_c1 = Equation(f"A.cor2.{model}.C1", sp.Symbol(f"C_{{1,{model}}}"), lim["C1"], REFERENCE_C2,
                        params, f"{tag}coefficient of 1/alpha_1 (ours, first-order expansion)").written(
            sp.Add(*[q1_m * t for t in sp.Add.make_args(slope)]), {**uses, q1_m: e_q1})
        out += [e_mu, e_s2, e_m, e_b, e_a, e_q1, e_inf, e_c1]
    return tuple(out)


SANITY_OLS = Equation(
    "A.erm.sanity_ols", V, 1 / (alpha - 1), REFERENCE_T4, (alpha,),
    "square loss, lambda -> 0, sigma = 1, no signal: V = 1/(alpha - 1) (OLS)")


def ols_sanity_solution() -> sp.Expr:
    """Solve the (V) equation with lam = 0, sigma^2 = 1 (square loss): must give 1/(alpha - 1)."""
    ex = exact_channel(LS.SQUARE, False)
    k = ex["system"]["names"].index("V")
    F = ex["system"]["equations"][k].subs(ex["system"]["expectations"][k], ex["integrands"][k])
    return sp.solve(F.subs({lam: 0, s2: 1}), V)[0]


#: the printed names of the channel's steps (the docs' notation)
ELL, DELL, D2ELL = sp.symbols(r"\ell(h;y) \ell'(h;y) \ell''(h;y)", real=True)
FIELD_MEAN = sp.Symbol(r"\bar{\omega}", real=True)  # E[omega | latent] = w_1 a + m c + b
DPROX = sp.Symbol(r"\partial_{\omega} h", positive=True)
E_TEST = sp.Symbol(r"E_{\rm test}")


def general_equations(lo: "LS.Loss" = LS.LOGISTIC) -> tuple:
    """The step-4 system as a chain of named steps (for LaTeX), in the order derived: the loss
    and its derivatives, the mean field and the leave-one-out field, the prox (it defines the
    training prediction h) and its slope, the five equations in their averages, the test error.
    Each step is printed in the symbols of the steps before it (:meth:`Equation.written`)."""
    ls, ch = loss(lo), channel(lo)
    tag = f"[{lo}] "
    mu, omega = ch["mu"], ch["omega"]
    ell = Equation(f"A.erm.loss.{lo}", ELL, ls["ell"], REFERENCE_T4, (h, y), f"{tag}the loss")
    dl = Equation(f"A.erm.dloss.{lo}", DELL, ls["dl"], REFERENCE_T4, (h, y), f"{tag}its slope in h")
    d2l = Equation(f"A.erm.d2loss.{lo}", D2ELL, ls["d2l"], REFERENCE_T4, (h, y), f"{tag}its curvature in h")
    fld = Equation("A.erm.field", FIELD_MEAN, mu, REFERENCE_T4, (w1, a, m, c, b),
                   "mean of the field of a fresh sample given its latent variables (ours)")
    cav = Equation("A.erm.cavity_field", om, omega, REFERENCE_T4, (w1, a, m, c, b, s2, Q, zeta),
                   "the leave-one-out field, zeta ~ N(0, 1) (ours)").written(
        FIELD_MEAN + sp.sqrt(s2 * Q) * zeta, {FIELD_MEAN: fld})
    prox_rhs = h + s2 * V * ls["dl"]
    prox = Equation("A.erm.prox", om, prox_rhs, REFERENCE_T4, (h, s2, V, y),
                    f"{tag}the training prediction h is the prox of the leave-one-out field (ours)").written(
        h + s2 * V * DELL, {DELL: dl})
    slope = 1 / (1 + s2 * V * ls["d2l"])
    dprox = Equation("A.erm.dprox", DPROX, slope, REFERENCE_T4, (h, s2, V, y),
                     f"{tag}slope of the prox in the field (implicit function theorem; ours)").written(
        1 / (1 + s2 * V * D2ELL), {D2ELL: d2l})
    refs = {"b": "bias stationarity", "w1": "the q-hat component", "V": "susceptibility",
            "m": "overlap with e_2", "Q": "bulk norm"}
    sy = system(lo)
    eqs = [Equation(f"A.erm.eq_{n}", Fk, sp.Integer(0), REFERENCE_T4,
                    note=f"{refs[n]}: E over the latent law and zeta, at the prox h (ours)")
           for n, Fk in zip(sy["names"], sy["equations"])]
    err = ch["outputs"]["test_error"]
    test = Equation("A.erm.test_error", E_TEST, sp.Symbol(r"\mathbb{E}") * err, REFERENCE_T4,
                    note="test error (ours; E over the latent law)").written(
        sp.Symbol(r"\mathbb{E}") * err.xreplace({mu: FIELD_MEAN}), {FIELD_MEAN: fld})
    return (ell, dl, d2l, fld, cav, prox, dprox, *eqs, test)


# --- structural mutants of these steps ----------------------------------------------------------
# The (b) equation has a single term, so its overall sign is immaterial; its realistic errors
# are a flipped label or the wrong field.  Both are equivalent (b is fixed by the class
# symmetry b = -m mu / 2) for the two-point laws at pi = 1/2; they matter for attention and for
# pi != 1/2.
mutant("A.erm.integrand_b:label_sign", "A.erm.integrand_b",
       "label sign flipped in the (b) equation: E[ell'(h; -y)] = 0", replace(y, -y))
mutant("A.erm.integrand_b:cavity", "A.erm.integrand_b",
       "(b) equation at the leave-one-out field: E[ell'(omega; y)] = 0 instead of E[ell'(h; y)] = 0",
       replace(h, om))
mutant("A.erm.eq_w1:sign", "A.erm.eq_w1", "sign of the average in the (w1) equation flipped: "
       "lam w1 - E[a ell'] = 0", replace(E_w1, -E_w1))
mutant("A.erm.eq_V:sign", "A.erm.eq_V", "sign of the average in the (V) equation flipped: "
       "lam V - E[1 - d_omega h] = 1/alpha", replace(E_V, -E_V))
mutant("A.erm.eq_V:factor2", "A.erm.eq_V", "factor 2 on the average in the (V) equation",
       replace(E_V, 2 * E_V))
mutant("A.erm.eq_m:sign", "A.erm.eq_m", "sign of the (m) equation flipped: m = +alpha V E[c ell']",
       replace(E_m, -E_m))
mutant("A.erm.eq_m:alpha", "A.erm.eq_m", "factor alpha missing in the (m) equation: m = -V E[c ell']",
       replace(alpha, 1))
mutant("A.erm.eq_Q:sign", "A.erm.eq_Q", "sign of the noise term of the (Q) equation flipped",
       replace(E_Q, -E_Q))
mutant("A.erm.eq_Q:drop_m2", "A.erm.eq_Q", "m^2 dropped from the (Q) equation (Q read as the "
       "norm of the noise part only)", drop(m**2))
mutant("A.erm.integrand_Q:drop_sigma2", "A.erm.integrand_Q",
       "sigma^2 dropped from the (Q) integrand: E[ell'^2] instead of E[sigma^2 ell'^2]", replace(s2, 1))
mutant("A.erm.prox:factor2", "A.erm.prox", "factor 2 in the proximal step: h + 2 sigma^2 V ell'(h) = omega",
       replace(V, 2 * V))
mutant("A.erm.prox:no_reaction", "A.erm.prox", "self-interaction (reaction) term dropped: h = omega",
       replace(V, 0))
mutant("A.erm.test_error:sqrt2", "A.erm.test_error",
       "Phi(-x) written as erfc(x)/2 without the sqrt(2)",
       lambda e: e.replace(sp.erfc, lambda arg: sp.erfc(sp.sqrt(2) * arg)))
mutant("A.erm.train_loss:cavity", "A.erm.train_loss",
       "training loss evaluated at the leave-one-out field omega instead of the prox h",
       replace(h, om))
mutant("A.erm.train_error:no_shift", "A.erm.train_error",
       "training error without the prox shift omega_0 (the test error formula)",
       lambda e: e.replace(sp.erfc, lambda arg: sp.erfc(arg.subs(V, 0))))
mutant("A.law.class_weights:exchanged", "A.law.class_weights",
       "class weights exchanged: P(y = +1) = 1 - pi, P(y = -1) = pi", lambda t: (t[1], t[0]))
mutant("A.law.class_shift:exchanged", "A.law.class_shift",
       "signal shift on the wrong class: the y = -1 tokens carry theta v, the y = +1 tokens none",
       lambda t: (t[1], t[0]))
mutant("A.law.vec.mu:over_L", "A.law.vec.mu", "vectorised mean theta R / L instead of theta R / sqrt(L)",
       replace(L, L**2))
mutant("A.law.vec.dim:one", "A.law.vec.dim", "vectorised alpha not divided by L (alpha = n/d)",
       replace(L, 1))
mutant("A.law.pool.sigma2:unaveraged", "A.law.pool.sigma2",
       "pooled noise variance 1 instead of 1/L (the mean of L noise rows not averaged)", replace(L, 1))
mutant("A.law.pool.mu:sqrt", "A.law.pool.mu", "pooled mean theta R / sqrt(L) instead of theta R / L",
       replace(L, sp.sqrt(L)))
