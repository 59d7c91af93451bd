"""ERM of a tied rank-1 dot-product attention layer on two tokens (Paper C, Result 4.2).

Model (docs/paper_c.md §1).  Tokens x_l = p_l + z_l in R^d, l = 1, 2, with positional
embeddings p_1 = -p_2 = 1/sqrt(d) (1, ..., 1) and z_l ~ N(0, sigma^2 I_d).  The teacher sees
z only: y = T(z) z with T = (1 - omega) softmax(z Q* Q*^T z^T / d) + omega A, Q* ~ N(0, I_d).
The student is yhat = S(x) x, S = softmax(x Q Q^T x^T / d) (row-wise), trained on
n = alpha d samples by  sum_i ||yhat_i - y_i||^2 / (2 d) + (lambda / 2) ||Q||^2.

High-dimensional reduction.  The loss depends on Q only through the student's pre-activations
h_l = x_l . Q / sqrt(d) and on Q* through the teacher's s_l = z_l . Q* / sqrt(d); the token
Gram matrices concentrate, x x^T / d -> Sigma, x z^T / d -> Sigma, z z^T / d -> Sigma with
Sigma = sigma^2 I_2, so the per-sample loss is  ell(h, s) = (1/2) tr[(S - T) Sigma (S - T)^T].
Summary statistics: q = sigma^2 |Q|^2 / d, m = 1 . Q / d (the positional overlap),
theta = sigma^2 Q* . Q / d (the semantic overlap), rho = sigma^2 |Q*|^2 / d, and V, with the
conjugates qhat, mhat, Vhat, thetahat.  The cavity fields are

    omega_l = sqrt(q) xi_l + (+-) m,      s_l = theta / sqrt(q) xi_l + sqrt(rho - theta^2/q) eta_l

with xi, eta ~ N(0, I_2).  The 2-D Moreau envelope of the channel is

    M(omega, s) = min_h  |h - omega|^2 / (2 V) + ell(h, s),     prox h*(omega, s),
    f = (h* - omega) / V,

and the fixed point of Result 4.2 (the authors' code) is

    mhat = alpha E[f_1 - f_2],  qhat = alpha E[|f|^2],  Vhat = -alpha E[tr d_omega f],
    thetahat = alpha E[tr d_s f]  (= alpha E[f . eta] / sqrt(rho - theta^2/q), Stein)
    q = sigma^2 (qhat sigma^2 + mhat^2 + thetahat^2 sigma^2 rho) / (lambda + Vhat sigma^2)^2,
    V = sigma^2 / (lambda + Vhat sigma^2),  m = mhat / (lambda + Vhat sigma^2),
    theta = sigma^2 rho thetahat / (lambda + Vhat sigma^2).

The derivatives of the prox come from the implicit function theorem on its stationarity
condition g(h; omega, s) = 0:  dh*/dp = -H^{-1} d_p g  (H the Hessian of the objective in h),
for every parameter p; the solver's exact Jacobian is built from them.
Outputs: test error mse = E tr[(S(omega_0) - T(s)) Sigma (S(omega_0) - T(s))^T] at the clean
field omega_0 = (sqrt(q) xi_1 + m, sqrt(q) xi_2 - m); the training loss Phi (the authors'
sign convention: the free entropy; the training loss is -Phi); and the linear positional
baseline yhat = B x, whose population optimum is B = E[T] and error
mse_lin = E tr[T Sigma T^T] - tr[E T Sigma (E T)^T].
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, flip_sign, mutant, replace, step, times

REFERENCE = "Paper C Result 4.2; docs/paper_c.md §2"
REFERENCE_LIN = "Paper C §4 (linear positional baseline); docs/paper_c.md §3"

# --- symbols -----------------------------------------------------------------------------
q, V = sp.symbols("q V", positive=True)
m, theta = sp.symbols("m theta", real=True)
qh, Vh = sp.symbols(r"\hat{q} \hat{V}", positive=True)
mh, th = sp.symbols(r"\hat{m} \hat{\theta}", real=True)
alpha, lam, sigma = sp.symbols("alpha lambda sigma", positive=True)
omega = sp.Symbol("omega", nonnegative=True)  # the positional/semantic mixing of the teacher
xi1, xi2, eta1, eta2 = sp.symbols("xi_1 xi_2 eta_1 eta_2", real=True)
h1, h2 = sp.symbols("h_1 h_2", real=True)  # the prox variables (student pre-activations)
w1, w2 = sp.symbols("w_1 w_2", real=True)  # cavity fields omega_l, as arguments of the prox
s1, s2 = sp.symbols("s_1 s_2", real=True)  # teacher pre-activations

OVERLAPS = (q, m, V, theta)
CONJUGATES = (qh, mh, Vh, th)
PARAMS = (sigma, lam, omega)
NOISE = (xi1, xi2, eta1, eta2)
H = (h1, h2)


# --- model facts -------------------------------------------------------------------------
@derivation
def model() -> dict:
    """The model's fixed ingredients, each a step."""
    A = step("C.model.mixing", sp.Matrix([[sp.Rational(3, 5), sp.Rational(2, 5)],
                                          [sp.Rational(2, 5), sp.Rational(3, 5)]]))
    Sigma = step("C.model.token_cov", sigma**2 * sp.eye(2))
    rho = step("C.model.rho", sigma**2)  # sigma^2 |Q*|^2 / d with |Q*|^2 / d -> 1
    return {"A": A, "Sigma": Sigma, "rho": rho}


def softmax2(a, b) -> sp.Matrix:
    """Row-wise softmax of the 2x2 score matrix u u^T, u = (a, b)."""
    s11 = 1 / (1 + sp.exp(a * b - a * a))
    s22 = 1 / (1 + sp.exp(a * b - b * b))
    return sp.Matrix([[s11, 1 - s11], [1 - s22, s22]])


@derivation
def attention() -> dict:
    mo = model()
    S = step("C.model.student_attention", softmax2(h1, h2))
    T = step("C.model.teacher_attention", (1 - omega) * softmax2(s1, s2) + omega * mo["A"])
    D = S - T
    Sg = mo["Sigma"]
    ell = step("C.loss.sample", sp.Rational(1, 2) * (D * Sg * D.T).trace())
    return {"S": S, "T": T, "ell": ell}


@derivation
def fields() -> dict:
    """Cavity fields of the student (positional embedding +-m) and the teacher's pre-activation."""
    rho = model()["rho"]
    om = step("C.field.student", (sp.sqrt(q) * xi1 + m, sp.sqrt(q) * xi2 - m))
    vstar = sp.sqrt(rho - theta**2 / q)
    s = step("C.field.teacher", (theta / sp.sqrt(q) * xi1 + vstar * eta1,
                                 theta / sp.sqrt(q) * xi2 + vstar * eta2))
    return {"omega": om, "s": s, "vstar": vstar}


@derivation
def prox() -> dict:
    """The 2-D Moreau objective in h, its gradient and Hessian (the prox by Newton), and the
    derivatives of the prox by implicit differentiation."""
    at = attention()
    obj = step("C.prox.objective", ((h1 - w1) ** 2 + (h2 - w2) ** 2) / (2 * V) + at["ell"])
    g = sp.Matrix([sp.diff(obj, v) for v in H])
    Hm = sp.Matrix(2, 2, lambda i, j: sp.diff(g[i], H[j]))
    return {"objective": obj, "grad": g, "hess": Hm}


@derivation
def channel() -> dict:
    """The prox problem with the cavity fields substituted, and the integrands of the
    conjugate updates in the authors' (Stein) form, as functions of (h, xi, eta, q, m, V, theta).

    The integrands need only f = (h* - omega) / V; the solver's Jacobian needs the derivatives
    of the prox, dh*/dp = -H^{-1} d_p g (implicit function theorem on the stationarity
    condition g = grad_h objective = 0), and of the integrands, dr/dp = d_p r + d_h r dh*/dp."""
    pr, fi = prox(), fields()
    sub = {w1: fi["omega"][0], w2: fi["omega"][1], s1: fi["s"][0], s2: fi["s"][1]}
    obj = pr["objective"].xreplace(sub)
    g = pr["grad"].xreplace(sub)
    Hm = pr["hess"].xreplace(sub)
    f = step("C.channel.f", tuple((hh - ww) / V for hh, ww in zip(H, fi["omega"])))
    vstar = fi["vstar"]
    r = (step("C.channel.qhat", f[0] ** 2 + f[1] ** 2),
         step("C.channel.mhat", f[0] - f[1]),
         step("C.channel.Vhat", -(f[0] * xi1 + f[1] * xi2) / sp.sqrt(q)),
         step("C.channel.thetahat", (f[0] * eta1 + f[1] * eta2) / vstar))
    r = sp.Matrix(r)
    return {
        "objective": obj, "grad": g, "hess": Hm, "f": f,
        "dg_dp": g.jacobian(sp.Matrix(OVERLAPS)),
        "r": r, "dr_dp": r.jacobian(sp.Matrix(OVERLAPS)), "dr_dh": r.jacobian(sp.Matrix(H)),
        "denv_dp": sp.Matrix([obj]).jacobian(sp.Matrix(OVERLAPS)),  # envelope theorem: d_p M = d_p obj
    }


#: the averaged integrands E[r] (over xi, eta at the prox), as symbols of the fixed-point map
E_q, E_m, E_V, E_th = sp.symbols(r"E_{\hat{q}} E_{\hat{m}} E_{\hat{V}} E_{\hat{\theta}}", real=True)
AVERAGES = (E_q, E_m, E_V, E_th)


@derivation
def conjugates() -> dict:
    """The conjugate updates from the averaged integrands (Vhat has the Stein correction
    theta thetahat / q)."""
    thv = step("C.hat.thetahat", alpha * E_th)
    return {qh: step("C.hat.qhat", alpha * E_q), mh: step("C.hat.mhat", alpha * E_m),
            Vh: step("C.hat.Vhat", alpha * E_V + theta * thv / q), th: thv}


@derivation
def fixed_point() -> dict:
    """F(x, E) = x - prior(conjugates(E, x)) = 0 for x = (q, m, V, theta), with its exact
    partial Jacobians in x and in the averages E."""
    pr, cj = prior(), conjugates()
    F = sp.Matrix([x - pr[x].xreplace(cj) for x in OVERLAPS])
    return {"F": F, "dF_dx": F.jacobian(sp.Matrix(OVERLAPS)), "dF_dE": F.jacobian(sp.Matrix(AVERAGES)),
            "conjugates": cj}


@derivation
def prior() -> dict:
    """The closed-form overlap updates of the ridge-regularised Q (the 'prior' channel)."""
    rho = model()["rho"]
    den = step("C.prior.denominator", lam + Vh * sigma**2)
    return {
        q: step("C.prior.q", sigma**2 * (qh * sigma**2 + mh**2 + th**2 * sigma**2 * rho) / den**2),
        m: step("C.prior.m", mh / den),
        V: step("C.prior.V", sigma**2 / den),
        theta: step("C.prior.theta", sigma**2 * rho * th / den),
    }


@derivation
def outputs() -> dict:
    """Test error (at the clean field), full per-sample loss and the free entropy's
    non-channel part (Phi = phi_rest - alpha E[M])."""
    at, mo, fi = attention(), model(), fields()
    Sg = mo["Sigma"]
    clean = {h1: fi["omega"][0], h2: fi["omega"][1], s1: fi["s"][0], s2: fi["s"][1]}
    D = at["S"] - at["T"]
    mse = step("C.out.mse", (D * Sg * D.T).trace()).xreplace(clean)
    den = lam + Vh * sigma**2
    rest = step("C.out.phi_rest", sp.Rational(1, 2) * (Vh * q - qh * V) - m * mh - theta * th
                + sp.Rational(1, 2) * (qh * sigma**2 + mh**2 + th**2 * mo["rho"] * sigma**2) / den)
    return {"mse": mse, "phi_rest": rest, "envelope": prox()["objective"]}


#: the reported quantities, as symbols of the values the solver computes
MSE, PHI, MSE_LIN = sp.symbols(r"\mathrm{mse} \Phi \mathrm{mse}_{\mathrm{lin}}", real=True)
REPORTED = ("mse", "Phi", "q", "m", "V", "theta")


@derivation
def reported() -> sp.Matrix:
    """Which computed value is reported as which output (test error, Phi, the overlaps)."""
    return step("C.out.reported", sp.Matrix([MSE, PHI, q, m, V, theta]))


@derivation
def linear_baseline() -> dict:
    """The linear positional baseline yhat = B x: population optimum B = E[T(s)],
    s ~ N(0, rho I_2) (x x^T / d -> Sigma, x z^T / d -> Sigma, so B = E[T] Sigma Sigma^{-1}),
    and its error E tr[T Sigma T^T] - 2 tr[B Sigma E[T]^T] + tr[B Sigma B^T]."""
    mo, at = model(), attention()
    rho = mo["rho"]
    s = {s1: sp.sqrt(rho) * eta1, s2: sp.sqrt(rho) * eta2}
    T = at["T"].xreplace(s)
    B = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"B_{i + 1}{j + 1}", real=True))
    Sg = mo["Sigma"]
    teacher_sq = (T * Sg * T.T).trace()
    cross = step("C.lin.cross", -2 * (B * Sg * T.T).trace())
    own = (B * Sg * B.T).trace()
    # the error of B = E[T] (the minimiser of the quadratic in B), with E over eta only
    return {"T": T, "B": B, "teacher_sq": teacher_sq, "cross": cross, "own": own,
            "reported": step("C.lin.reported", MSE_LIN)}


def equations() -> dict[str, Equation]:
    """The named equations, for LaTeX and ``attncheck eval``."""
    ch, pr, out = channel(), prior(), outputs()
    eqs = {}
    eqs["C.prox.objective"] = Equation("C.prox.objective", sp.Symbol(r"\mathcal{M}"), prox()["objective"],
                                       REFERENCE, note="the 2-D Moreau objective of the softmax student")
    for k, v in zip(("qhat", "mhat", "Vhat", "thetahat"), ch["r"]):
        eqs[f"C.channel.{k}"] = Equation(f"C.channel.{k}", sp.Symbol(f"r_{k}"),
                                         v, REFERENCE, note="integrand of the conjugate update (at the prox)")
    for k, v in pr.items():
        eqs[f"C.prior.{k}"] = Equation(f"C.prior.{k}", k, v, REFERENCE, note="overlap update")
    # the named pieces of the loss: the diagonal attention weights of student and teacher (a row
    # of either sums to one, so the loss is sigma^2 times the two diagonal errors squared)
    at, fi = attention(), fields()
    S11, S22, T11, T22, ELL = sp.symbols(r"S_{11} S_{22} T_{11} T_{22} \ell", real=True)
    pieces = {S11: ("C.att.S11", at["S"][0, 0], "student attention on its own token (softmax of the scores)"),
              S22: ("C.att.S22", at["S"][1, 1], "student attention on its own token (softmax of the scores)"),
              T11: ("C.att.T11", at["T"][0, 0], "teacher attention: (1 - omega) softmax + omega A"),
              T22: ("C.att.T22", at["T"][1, 1], "teacher attention: (1 - omega) softmax + omega A")}
    for sym, (name, val, note) in pieces.items():
        eqs[name] = Equation(name, sym, val, REFERENCE, note=note)
    att = {sym: eqs[name] for sym, (name, _, _) in pieces.items()}
    ell_eq = Equation("C.loss.sample", ELL, at["ell"], REFERENCE,
                      note="the per-sample loss (1/2) tr[(S - T) Sigma (S - T)^T]").written(
        sigma**2 * ((S11 - T11) ** 2 + (S22 - T22) ** 2), att)
    eqs["C.loss.sample"] = ell_eq
    eqs["C.prox.objective"] = eqs["C.prox.objective"].written(
        ((h1 - w1) ** 2 + (h2 - w2) ** 2) / (2 * V) + ELL, {ELL: ell_eq})
    fw = {w1: ("C.field.student1", fi["omega"][0], "student cavity field of token 1 (positional embedding +m)"),
          w2: ("C.field.student2", fi["omega"][1], "student cavity field of token 2 (positional embedding -m)"),
          s1: ("C.field.teacher1", fi["s"][0], "teacher pre-activation of token 1"),
          s2: ("C.field.teacher2", fi["s"][1], "teacher pre-activation of token 2")}
    for sym, (name, val, note) in fw.items():
        eqs[name] = Equation(name, sym, val, REFERENCE, note=note)
    eqs["C.out.mse"] = Equation("C.out.mse", sp.Symbol(r"\mathrm{mse}\ \mathrm{integrand}"), out["mse"], REFERENCE,
                                note="test error integrand over (xi, eta): twice the loss at the clean field h = w").written(
        2 * sp.Subs(ELL, (h1, h2), (w1, w2)), {ELL: ell_eq, **{sym: eqs[name] for sym, (name, _, _) in fw.items()}})
    eqs["C.out.phi_rest"] = Equation("C.out.phi_rest", sp.Symbol(r"\Phi + \alpha E\mathcal{M}"), out["phi_rest"],
                                     REFERENCE, note="the non-channel part of the free entropy")
    first = ("C.att.S11", "C.att.S22", "C.att.T11", "C.att.T22", "C.loss.sample")
    return {**{k: eqs[k] for k in first}, **{k: v for k, v in eqs.items() if k not in first}}


# --- structural mutants ------------------------------------------------------------------
MUTANTS = (
    mutant("C.prior.q:drop_theta", "C.prior.q", "the thetahat^2 term of the q update dropped",
           replace(th, 0)),
    mutant("C.prior.V:factor2", "C.prior.V", "V update off by a factor 2", times(2)),
    mutant("C.prior.theta:no_rho", "C.prior.theta", "rho missing from the theta update",
           lambda e: e / sigma**2),
    mutant("C.prior.m:sign", "C.prior.m", "sign of the m update flipped", flip_sign),
    mutant("C.channel.Vhat:sign", "C.channel.Vhat", "sign of the Vhat integrand flipped", flip_sign),
    mutant("C.channel.qhat:factor2", "C.channel.qhat", "qhat integrand doubled", times(2)),
    mutant("C.field.student:sign_m", "C.field.student", "positional embedding with the same sign on both tokens",
           lambda e: (e[0], e[1] + 2 * m)),
    mutant("C.field.teacher:no_vstar", "C.field.teacher", "the teacher's independent part dropped",
           lambda e: tuple(x.subs({eta1: 0, eta2: 0}) for x in e)),
    mutant("C.model.mixing:transposed_weights", "C.model.mixing", "A with its diagonal and off-diagonal swapped",
           lambda e: sp.Matrix([[e[0, 1], e[0, 0]], [e[1, 1], e[1, 0]]])),
    mutant("C.loss.sample:factor2", "C.loss.sample", "the 1/2 of the square loss dropped", times(2)),
    mutant("C.out.mse:half", "C.out.mse", "test error halved (per token average)", times(sp.Rational(1, 2))),
    mutant("C.out.phi_rest:sign_trace", "C.out.phi_rest", "sign of the m mhat term flipped",
           lambda e: e + 2 * m * mh + 2 * theta * th),
    mutant("C.lin.cross:factor", "C.lin.cross", "cross term of the linear baseline halved", times(sp.Rational(1, 2))),
)

MUTANTS_LIN = (
    mutant("C.model.rho:no_square", "C.model.rho", "rho = sigma instead of sigma^2", lambda e: sp.sqrt(e)),
)
