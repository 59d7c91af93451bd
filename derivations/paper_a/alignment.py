"""Paper A, Theorem 3: deterministic limits of w^(1) and q^(2) as n0, d -> inf, n0/d = alpha0.

Conventions: docs/conventions.md (zero init, b^(0) = 0, mean-normalised loss, no 1/sqrt(d)).
Derivation walk-through: docs/paper_a_alignment.md.  Each step below is a named expression.

Step 1 (readout).  g(y) = -l'(0; y).  w^(1) = (eta_w / (n0 L)) sum_j g_j X_j^T 1
  = omega xi + w_n with omega = eta_w theta R pi g_+ / L and |w_n|^2 -> eta_w^2 E[g^2]/(alpha0 L)
  (the Z_j^T 1 are N(0, L I_d), n0 of them, norm^2 L d each).  b^(1) = eta_b E[g].

Step 2 (the prediction on a D0 sample, leave-one-out).  w^(1) = w_{-i} + delta_i with
  delta_i = (eta_w g_i / (n0 L)) X_i^T 1.  Then w^T X_i^T 1 / L = omega theta_y R / L
  + 1^T Z_i w_{-i} / L + |Z_i^T 1|^2 eta_w g_i / (n0 L^2), and |Z_i^T 1|^2 / (n0 L^2) -> 1/(alpha0 L):
  y_hat_i | y ~ N(mu_y, s^2), mu_y = b^(1) + omega theta_y R / L + eta_w g(y) / (alpha0 L),
  s^2 = (omega^2 + |w_n|^2) / L.  The last term of mu_y is the self-interaction shift.

Step 3 (the per-sample vector).  u_i = X_i w^(1); P u_i = theta_y omega P v + omega P c + nu P e
  with c = Z_i xi, e = Z_i w_n / nu, nu = |w_n|, independent N(0, I_L); the self term
  P Z_i delta_i = O(d^{-1/2}) because P 1 = 0.  y_hat_i depends on (c, e) only through 1^T c,
  1^T e, independent of (P c, P e): E[h^k F(Pc, Pe)] = E[h^k] E[F].

Step 4 (q^(2)).  q^(2) = -(eta_q beta / (n0 L)) sum_i h_i X_i^T P u_i.  Its mean direction
  has components <xi, .> = E[h (theta_y v + c)^T P u] and <w_n/nu, .> = E[h e^T P u]; its
  fluctuation adds (1/n0) E[h^2 |X^T P u|^2] = (d/n0) E[h^2 |P u|^2] (1 + O(1/d)) to |.|^2.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation
from derivations.paper_a.gaussian_moments import LVec, expect_forms, expect_poly

REF = "Paper A Thm 3; derivation docs/paper_a_alignment.md"

# --- parameters ---------------------------------------------------------------------------
theta = sp.Symbol("theta", positive=True)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
pi_ = sp.Symbol("pi", positive=True)
alpha0 = sp.Symbol("alpha_0", positive=True)
eta_w = sp.Symbol("eta_w", positive=True)
eta_b = sp.Symbol("eta_b", nonnegative=True)
eta_q = sp.Symbol("eta_q", positive=True)
beta = sp.Symbol("beta", positive=True)
PARAMS = (theta, L, R, pi_, alpha0, eta_w, eta_b, eta_q, beta)

yhat, zeta = sp.symbols("yhat zeta", real=True)

# --- losses (docs/conventions.md) ---------------------------------------------------------
LOSSES = {
    # l(yhat; y) as functions of (yhat, y)
    "logistic": lambda yh, y: sp.log(1 + sp.exp(-y * yh)),
    "square": lambda yh, y: (yh - y) ** 2 / 2,
}


def loss_derivative(loss: str, y) -> sp.Expr:
    """l'(yhat; y) = d l / d yhat, as an expression in ``yhat``."""
    return sp.simplify(sp.diff(LOSSES[loss](yhat, y), yhat))


# --- h-moment symbols: E[h | y] and E[h^2 | y], y = +1 ("p") and y = -1 ("m") -------------
h1p, h1m, h2p, h2m = sp.symbols("h1_p h1_m h2_p h2_m", real=True)
H_SYMBOLS = (h1p, h1m, h2p, h2m)

# derived geometric constants
m_ = L - 1  # tr P
r_ = R * (1 - R / L)  # v^T P v


def step1(loss: str) -> dict:
    """g(y), E[g], E[g^2], omega, |w_n|^2, b^(1)."""
    g_p = -loss_derivative(loss, 1).subs(yhat, 0)
    g_m = -loss_derivative(loss, -1).subs(yhat, 0)
    Eg = pi_ * g_p + (1 - pi_) * g_m
    Eg2 = pi_ * g_p**2 + (1 - pi_) * g_m**2
    omega = eta_w * theta * R * pi_ * g_p / L
    wn2 = eta_w**2 * Eg2 / (alpha0 * L)
    b1 = eta_b * Eg
    return dict(g_p=sp.nsimplify(g_p), g_m=sp.nsimplify(g_m), Eg=sp.simplify(Eg), Eg2=sp.simplify(Eg2),
                omega=sp.simplify(omega), wn2=sp.simplify(wn2), b1=sp.simplify(b1))


def step2(loss: str, s1: dict | None = None) -> dict:
    """Law of the step-2 prediction: mean mu_y (with self-interaction shift) and variance s^2."""
    s1 = s1 or step1(loss)
    mu_p = s1["b1"] + s1["omega"] * theta * R / L + eta_w * s1["g_p"] / (alpha0 * L)
    mu_m = s1["b1"] + eta_w * s1["g_m"] / (alpha0 * L)
    s2 = (s1["omega"] ** 2 + s1["wn2"]) / L
    return dict(mu_p=mu_p, mu_m=mu_m, s2=s2, s=sp.sqrt(s2))


def h_moments(loss: str, s2_: dict) -> dict:
    """E[l'(mu_y + s zeta; y)^k], k = 1, 2.  Square loss: closed form (1-D Isserlis).
    Logistic: unevaluated 1-D Gaussian integrals (sp.Integral over the real line)."""
    out = {}
    for key, y, mu in (("p", 1, s2_["mu_p"]), ("m", -1, s2_["mu_m"])):
        dl = loss_derivative(loss, y).subs(yhat, mu + s2_["s"] * zeta)
        if loss == "square":
            out["h1" + key] = expect_poly(dl, zeta)
            out["h2" + key] = expect_poly(dl**2, zeta)
        else:
            dens = sp.exp(-zeta**2 / 2) / sp.sqrt(2 * sp.pi)
            out["h1" + key] = sp.Integral(dl * dens, (zeta, -sp.oo, sp.oo))
            out["h2" + key] = sp.Integral(dl**2 * dens, (zeta, -sp.oo, sp.oo))
    return out


def step3_4(loss: str, s1: dict | None = None) -> dict:
    """q^(2) limits in terms of the h-moment symbols (h1_p, h1_m, h2_p, h2_m)."""
    s1 = s1 or step1(loss)
    omega, nu2 = s1["omega"], s1["wn2"]
    nu = sp.Symbol("nu", positive=True)
    c = LVec.of(c=1)
    e = LVec.of(e=1)
    out_terms = {}
    for key, ty, H1, H2, p in (("p", theta, h1p, h2p, pi_), ("m", 0, h1m, h2m, 1 - pi_)):
        Pu = LVec.of(v=ty * omega, c=omega, e=nu)  # P u_i (P is applied inside the forms)
        v_ty = LVec.of(v=ty)
        along_xi = expect_forms([(v_ty + c, Pu)], m_, r_)  # E[(theta_y v + c)^T P u]
        along_wn = expect_forms([(e, Pu)], m_, r_)  # E[e^T P u]
        diag = expect_forms([(Pu, Pu)], m_, r_)  # E[|P u|^2]
        out_terms[key] = (p, H1, H2, along_xi, along_wn, diag)
    pref = eta_q * beta / L
    mean_xi = sum(p * H1 * a for p, H1, _, a, _, _ in out_terms.values())
    mean_wn = sum(p * H1 * b for p, H1, _, _, b, _ in out_terms.values())
    diag = sum(p * H2 * dd for p, _, H2, _, _, dd in out_terms.values())
    sub = {nu: sp.sqrt(nu2)}
    q2_overlap = sp.expand(-pref * mean_xi).subs(sub)
    q2_norm_sq = sp.expand(pref**2 * (mean_xi**2 + mean_wn**2 + diag / alpha0)).subs(sub)
    return dict(mean_xi=mean_xi.subs(sub), mean_wn=mean_wn.subs(sub), diag=diag.subs(sub),
                q2_overlap=q2_overlap, q2_norm_sq=sp.expand(q2_norm_sq))


def limits(loss: str) -> dict:
    """All Theorem-3 limits for ``loss``, as expressions in PARAMS and the h-moment symbols,
    plus the h-moments themselves (closed forms or Integrals) under key ``h``."""
    s1 = step1(loss)
    s2_ = step2(loss, s1)
    s34 = step3_4(loss, s1)
    w1_norm = sp.sqrt(s1["omega"] ** 2 + s1["wn2"])
    q2_norm = sp.sqrt(s34["q2_norm_sq"])
    return dict(
        step1=s1, step2=s2_, step3_4=s34, h=h_moments(loss, s2_),
        w1_norm=w1_norm, w1_cosine=s1["omega"] / w1_norm, w1_overlap=s1["omega"], b1=s1["b1"],
        q2_overlap=s34["q2_overlap"], q2_norm_sq=s34["q2_norm_sq"], q2_norm=q2_norm,
        q2_cosine=s34["q2_overlap"] / q2_norm,
    )


def with_h(expr: sp.Expr, lim: dict) -> sp.Expr:
    """Substitute the h-moments (closed forms or Integrals) for the h symbols."""
    h = lim["h"]
    return expr.subs({h1p: h["h1p"], h1m: h["h1m"], h2p: h["h2p"], h2m: h["h2m"]})


# --- the notes' [derived] candidate (paper_A_notes.md §5), written independently ----------
def notes_candidate(loss: str) -> dict:
    s1 = step1(loss)
    m, r = m_, r_
    omega, wn2 = s1["omega"], s1["wn2"]
    Eh = pi_ * h1p + (1 - pi_) * h1m
    Eh2 = pi_ * h2p + (1 - pi_) * h2m
    K = theta**2 * r * pi_ * h1p + m * Eh
    pref = eta_q * beta / L
    overlap = -pref * K * omega
    norm_sq = pref**2 * (K**2 * omega**2 + m**2 * Eh**2 * wn2
                         + (theta**2 * r * pi_ * h2p * omega**2 + m * Eh2 * (omega**2 + wn2)) / alpha0)
    C = (m * Eh2 + r * theta**2 * pi_ * h2p
         + m**2 * Eh**2 * s1["Eg2"] * L / (theta**2 * R**2 * pi_**2 * s1["g_p"] ** 2)) / (2 * K**2)
    C_w = s1["Eg2"] * L / (2 * theta**2 * R**2 * pi_**2 * s1["g_p"] ** 2)
    return dict(q2_overlap=overlap, q2_norm_sq=norm_sq, K=K, C=C, C_w=C_w)


def compact(loss: str) -> dict:
    """<q2, xi> and |q2|^2 in the grouped form with K = theta^2 r pi h_+ + m E[h]; equal to
    ``limits(loss)`` (tests/test_paper_a_alignment.py)."""
    s1 = step1(loss)
    m, r = m_, sp.factor(r_)
    omega, wn2 = s1["omega"], s1["wn2"]
    Eh = pi_ * h1p + (1 - pi_) * h1m
    Eh2 = pi_ * h2p + (1 - pi_) * h2m
    K = theta**2 * r * pi_ * h1p + m * Eh
    pref = eta_q * beta / L
    return dict(
        q2_overlap=-pref * K * omega,
        q2_norm_sq=pref**2 * (K**2 * omega**2 + m**2 * Eh**2 * wn2
                              + (theta**2 * r * pi_ * h2p * omega**2 + m * Eh2 * (omega**2 + wn2)) / alpha0),
    )


def equations(loss: str) -> list[Equation]:
    lim = limits(loss)
    cmp_ = compact(loss)
    H = dict(zip(("h1_p", "h1_m", "h2_p", "h2_m"), H_SYMBOLS))
    hp = PARAMS + H_SYMBOLS
    tag = f"[{loss}] "
    eqs = [
        Equation(f"A.thm3.omega.{loss}", sp.Symbol(r"\langle w^{(1)},\xi\rangle"), lim["w1_overlap"], REF, PARAMS,
                 tag + "readout overlap limit (ours)"),
        Equation(f"A.thm3.w1_norm.{loss}", sp.Symbol(r"\|w^{(1)}\|"), lim["w1_norm"], REF, PARAMS,
                 tag + "readout norm limit (ours)"),
        Equation(f"A.thm3.w1_cosine.{loss}", sp.Symbol(r"\cos(w^{(1)},\xi)"), sp.simplify(lim["w1_cosine"]), REF,
                 PARAMS, tag + "readout alignment limit (ours)"),
        Equation(f"A.thm3.mu_p.{loss}", sp.Symbol(r"\mu_{+}"), lim["step2"]["mu_p"], REF, PARAMS,
                 tag + "mean step-2 prediction on a positive D0 sample, with self-interaction shift"),
        Equation(f"A.thm3.mu_m.{loss}", sp.Symbol(r"\mu_{-}"), lim["step2"]["mu_m"], REF, PARAMS,
                 tag + "mean step-2 prediction on a negative D0 sample, with self-interaction shift"),
        Equation(f"A.thm3.s2.{loss}", sp.Symbol(r"s^2"), lim["step2"]["s2"], REF, PARAMS,
                 tag + "variance of the step-2 prediction"),
        Equation(f"A.thm3.q2_overlap.{loss}", sp.Symbol(r"\langle q^{(2)},\xi\rangle"), cmp_["q2_overlap"], REF, hp,
                 tag + "h1_p = E[l'(yhat;+1)|y=+1] etc. (ours; the paper states existence)"),
        Equation(f"A.thm3.q2_norm_sq.{loss}", sp.Symbol(r"\|q^{(2)}\|^2"), cmp_["q2_norm_sq"], REF, hp,
                 tag + "includes the 1/alpha0 fluctuation term (ours)"),
    ]
    for k in ("h1p", "h1m", "h2p", "h2m"):
        eqs.append(Equation(f"A.thm3.{k}.{loss}", H[k[:2] + "_" + k[2]], lim["h"][k], REF, PARAMS,
                            tag + "h-moment: 1-D Gaussian expectation"))
    return eqs
