"""Paper A, Theorem 3: deterministic limits of w^(1) and q^(2) as n0, d -> inf, n0/d = alpha0.

Conventions: docs/conventions.md (zero init, b^(0) = 0, mean-normalised loss, no 1/sqrt(d)).
Derivation walk-through: docs/paper_a_alignment.md.  Each step below is a named expression
(``derivations.core.step``, built in ``@derivation`` builders) and its realistic errors are
registered as mutants at the end of the derivation.

Step 1 (readout).  g(y) = -l'(0; y).  w^(1) = (eta_w / (n0 L)) sum_j g_j X_j^T 1
  = omega xi + w_n with omega = eta_w theta R pi g_+ / L and |w_n|^2 -> eta_w^2 E[g^2]/(alpha0 L)
  (the Z_j^T 1 are N(0, L I_d), n0 of them, norm^2 L d each).  b^(1) = eta_b E[g].
  Steps ``A.thm3.g``, ``A.thm3.omega``, ``A.thm3.wn2``, ``A.thm3.b1``; outputs ``A.thm3.w1_norm``,
  ``A.thm3.w1_cosine``.

Step 2 (the prediction on a D0 sample, leave-one-out).  w^(1) = w_{-i} + delta_i with
  delta_i = (eta_w g_i / (n0 L)) X_i^T 1.  Then w^T X_i^T 1 / L = omega theta_y R / L
  + 1^T Z_i w_{-i} / L + |Z_i^T 1|^2 eta_w g_i / (n0 L^2), and |Z_i^T 1|^2 / (n0 L^2) -> 1/(alpha0 L):
  y_hat_i | y ~ N(mu_y, s^2), mu_y = b^(1) + omega theta_y R / L + eta_w g(y) / (alpha0 L),
  s^2 = (omega^2 + |w_n|^2) / L.  The last term of mu_y is the self-interaction shift.
  Steps ``A.thm3.self_shift``, ``A.thm3.mu``, ``A.thm3.s2``; the h-moments are the Gaussian
  means of l'(yhat; y)^k at this law (``integrands``).

Step 3 (the per-sample vector).  u_i = X_i w^(1); P u_i = theta_y omega P v + omega P c + nu P e
  with c = Z_i xi, e = Z_i w_n / nu, nu = |w_n|, independent N(0, I_L); the self term
  P Z_i delta_i = O(d^{-1/2}) because P 1 = 0.  y_hat_i depends on (c, e) only through 1^T c,
  1^T e, independent of (P c, P e): E[h^k F(Pc, Pe)] = E[h^k] E[F].

Step 4 (q^(2)).  q^(2) = -(eta_q beta / (n0 L)) sum_i h_i X_i^T P u_i.  Its mean direction
  has components <xi, .> = E[h (theta_y v + c)^T P u] and <w_n/nu, .> = E[h e^T P u]; its
  fluctuation adds (1/n0) E[h^2 |X^T P u|^2] = (d/n0) E[h^2 |P u|^2] (1 + O(1/d)) to |.|^2.
  Steps ``A.thm3.trP`` (m = L - 1), ``A.thm3.vPv`` (r = R(1 - R/L)), ``A.thm3.fluctuation``;
  outputs ``A.thm3.q2_overlap``, ``A.thm3.q2_norm_sq``, ``A.thm3.q2_norm``, ``A.thm3.q2_cosine``.
"""
from __future__ import annotations

import sympy as sp

from derivations.paper_a.losses import Loss
from derivations.core import GaussianMean, Equation, derivation, flip_sign, mutant, step, times
from derivations.paper_a.gaussian_moments import LVec, expect_forms, expect_poly
from derivations.paper_a.gradient import beta, eta_b, eta_q, eta_w, loss_derivative, yhat

REF = "Paper A Thm 3; derivation docs/paper_a_alignment.md"

# --- parameters ---------------------------------------------------------------------------
theta = sp.Symbol("theta", positive=True)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
pi_ = sp.Symbol("pi", positive=True)
alpha0 = sp.Symbol("alpha_0", positive=True)
PARAMS = (theta, L, R, pi_, alpha0, eta_w, eta_b, eta_q, beta)

zeta = sp.Symbol("zeta", real=True)

# --- h-moment symbols: E[h | y] and E[h^2 | y], y = +1 ("p") and y = -1 ("m") -------------
h1p, h1m, h2p, h2m = sp.symbols("h1_p h1_m h2_p h2_m", real=True)
H_SYMBOLS = (h1p, h1m, h2p, h2m)
H_KEYS = ("h1p", "h1m", "h2p", "h2m")


@derivation
def step1(loss: Loss) -> dict:
    """g(y), E[g], E[g^2], omega, |w_n|^2, b^(1)."""
    g_p, g_m = step("A.thm3.g", tuple(sp.nsimplify(-loss_derivative(loss, y).subs(yhat, 0)) for y in (1, -1)))
    Eg = sp.simplify(pi_ * g_p + (1 - pi_) * g_m)
    Eg2 = sp.simplify(pi_ * g_p**2 + (1 - pi_) * g_m**2)
    omega = step("A.thm3.omega", eta_w * theta * R * pi_ * g_p / L)
    wn2 = step("A.thm3.wn2", eta_w**2 * Eg2 / (alpha0 * L))
    b1 = step("A.thm3.b1", eta_b * Eg)
    return dict(g_p=g_p, g_m=g_m, Eg=Eg, Eg2=Eg2, omega=omega, wn2=wn2, b1=b1)


@derivation
def step2(loss: Loss) -> dict:
    """Law of the step-2 prediction: mean mu_y (with self-interaction shift) and variance s^2."""
    s1 = step1(loss)
    shift_p, shift_m = step("A.thm3.self_shift",
                            (eta_w * s1["g_p"] / (alpha0 * L), eta_w * s1["g_m"] / (alpha0 * L)))
    mu_p, mu_m = step("A.thm3.mu", (s1["b1"] + s1["omega"] * theta * R / L + shift_p, s1["b1"] + shift_m))
    s2 = step("A.thm3.s2", (s1["omega"] ** 2 + s1["wn2"]) / L)
    return dict(mu_p=mu_p, mu_m=mu_m, s2=s2, s=sp.sqrt(s2))


def integrands(loss: Loss, mu_p, mu_m, s2) -> dict:
    """The h-moments as Gaussian expectations: key -> (f, mu, s) with f = l'(yhat; y)^k,
    k = 1, 2, and E[f(mu + s zeta)] over zeta ~ N(0, 1) the moment."""
    out = {}
    for key, y, mu in (("p", 1, mu_p), ("m", -1, mu_m)):
        dl = loss_derivative(loss, y)
        out["h1" + key], out["h2" + key] = (dl, mu, sp.sqrt(s2)), (dl**2, mu, sp.sqrt(s2))
    return out


def gaussian_means(loss: Loss, ints: dict) -> dict:
    """E[f(mu + s zeta)] over zeta ~ N(0, 1) of the ``integrands``.  Square loss: closed forms
    (1-D Isserlis).  Logistic: unevaluated 1-D Gaussian integrals (sp.Integral over the real
    line; numerics integrates the compiled f against the compiled law)."""
    dens = sp.exp(-zeta**2 / 2) / sp.sqrt(2 * sp.pi)
    out = {}
    for k, (f, mu, s) in ints.items():
        at = f.subs(yhat, mu + s * zeta)
        out[k] = expect_poly(at, zeta) if loss.polynomial else sp.Integral(at * dens, (zeta, -sp.oo, sp.oo))
    return out


@derivation
def h_integrands(loss: Loss) -> dict:
    """The h-moment integrands at the step-2 law (``integrands``)."""
    s2_ = step2(loss)
    return integrands(loss, s2_["mu_p"], s2_["mu_m"], s2_["s2"])


@derivation
def h_moments(loss: Loss) -> dict:
    """E[l'(mu_y + s zeta; y)^k], k = 1, 2 (``gaussian_means`` of ``h_integrands``)."""
    return gaussian_means(loss, h_integrands(loss))


@derivation
def step3_4(loss: Loss) -> dict:
    """q^(2) limits in terms of the h-moment symbols (h1_p, h1_m, h2_p, h2_m)."""
    s1 = step1(loss)
    omega, nu2 = s1["omega"], s1["wn2"]
    m = step("A.thm3.trP", L - 1)  # tr P
    r = step("A.thm3.vPv", R * (1 - R / L))  # v^T P v
    nu = sp.Symbol("nu", positive=True)
    c = LVec.of(c=1)
    e = LVec.of(e=1)
    out_terms = {}
    for key, ty, H1, H2, p in (("p", theta, h1p, h2p, pi_), ("m", 0, h1m, h2m, 1 - pi_)):
        Pu = LVec.of(v=ty * omega, c=omega, e=nu)  # P u_i (P is applied inside the forms)
        v_ty = LVec.of(v=ty)
        along_xi = expect_forms([(v_ty + c, Pu)], m, r)  # E[(theta_y v + c)^T P u]
        along_wn = expect_forms([(e, Pu)], m, r)  # E[e^T P u]
        diag = expect_forms([(Pu, Pu)], m, r)  # E[|P u|^2]
        out_terms[key] = (p, H1, H2, along_xi, along_wn, diag)
    pref = eta_q * beta / L
    sub = {nu: sp.sqrt(nu2)}
    mean_xi = sum(p * H1 * a for p, H1, _, a, _, _ in out_terms.values()).subs(sub)
    mean_wn = sum(p * H1 * b for p, H1, _, _, b, _ in out_terms.values()).subs(sub)
    diag = sum(p * H2 * dd for p, _, H2, _, _, dd in out_terms.values()).subs(sub)
    fluctuation = step("A.thm3.fluctuation", diag / alpha0)  # (1/n0) sum_i h_i^2 |X_i^T P u_i|^2 / d
    q2_overlap = step("A.thm3.q2_overlap", sp.expand(-pref * mean_xi))
    q2_norm_sq = step("A.thm3.q2_norm_sq", sp.expand(pref**2 * (mean_xi**2 + mean_wn**2 + fluctuation)))
    return dict(mean_xi=mean_xi, mean_wn=mean_wn, diag=diag, q2_overlap=q2_overlap, q2_norm_sq=q2_norm_sq)


@derivation
def limits(loss: Loss) -> dict:
    """All Theorem-3 limits for ``loss``, as expressions in PARAMS and the h-moment symbols,
    plus the h-moments themselves (closed forms or Integrals) under key ``h``."""
    s1 = step1(loss)
    s2_ = step2(loss)
    s34 = step3_4(loss)
    w1_norm = sp.sqrt(s1["omega"] ** 2 + s1["wn2"])
    q2_norm = step("A.thm3.q2_norm", sp.sqrt(s34["q2_norm_sq"]))
    return dict(
        step1=s1, step2=s2_, step3_4=s34, h=h_moments(loss),
        w1_norm=step("A.thm3.w1_norm", w1_norm), w1_cosine=step("A.thm3.w1_cosine", s1["omega"] / w1_norm),
        w1_overlap=s1["omega"], b1=s1["b1"],
        q2_overlap=s34["q2_overlap"], q2_norm_sq=s34["q2_norm_sq"], q2_norm=q2_norm,
        q2_cosine=step("A.thm3.q2_cosine", s34["q2_overlap"] / q2_norm),
    )


def with_h(expr: sp.Expr, lim: dict) -> sp.Expr:
    """Substitute the h-moments (closed forms or Integrals) for the h symbols."""
    h = lim["h"]
    return expr.subs({s: h[k] for s, k in zip(H_SYMBOLS, H_KEYS)})


# --- structural mutants (realistic errors in the steps above) -------------------------------
mutant("A.thm3.g:sign", "A.thm3.g", "readout step with the wrong sign: g(y) = +l'(0; y) (w^(1), b^(1) flipped)",
       flip_sign)
mutant("A.thm3.b1:sign", "A.thm3.b1", "sign of the bias after step 1 flipped", flip_sign)
mutant("A.thm3.omega:sqrt_L", "A.thm3.omega", "readout overlap with theta R/sqrt(L) instead of theta R/L",
       lambda e: e * sp.sqrt(L))
mutant("A.thm3.wn2:x2", "A.thm3.wn2", "factor 2 in the readout noise |w_n|^2", times(2))
mutant("A.thm3.wn2:L_squared", "A.thm3.wn2", "readout noise |w_n|^2 with 1/L^2 instead of 1/L (wrong exponent)",
       lambda e: e / L)
mutant("A.thm3.self_shift:dropped", "A.thm3.self_shift",
       "self-interaction shift eta_w g(y)/(alpha0 L) dropped from mu_y", times(0))
mutant("A.thm3.s2:x2", "A.thm3.s2", "factor 2 in the variance s^2 of the step-2 prediction", times(2))
mutant("A.thm3.trP:L", "A.thm3.trP", "tr P = L instead of L - 1 (in K and the noise moments)",
       lambda e: e + 1)
mutant("A.thm3.vPv:uncentred", "A.thm3.vPv", "v^T P v taken as R (centring of the signal positions forgotten)",
       lambda e: R)
mutant("A.thm3.fluctuation:alpha0_squared", "A.thm3.fluctuation",
       "fluctuation term of |q^(2)|^2 with 1/alpha0^2 instead of 1/alpha0 (wrong exponent)",
       lambda e: e / alpha0)


def compact(loss: Loss) -> dict:
    """<q2, xi> and |q2|^2 in the grouped form with K = theta^2 r pi h_+ + m E[h]; equal to
    ``limits(loss)`` (tests/test_paper_a_alignment.py)."""
    s1 = step1(loss)
    m, r = L - 1, R * (L - R) / L
    omega, wn2 = s1["omega"], s1["wn2"]
    Eh = pi_ * h1p + (1 - pi_) * h1m
    Eh2 = pi_ * h2p + (1 - pi_) * h2m
    K = theta**2 * r * pi_ * h1p + m * Eh
    pref = eta_q * beta / L
    return dict(
        K=K, Eh=Eh, Eh2=Eh2,
        q2_overlap=-pref * K * omega,
        q2_norm_sq=pref**2 * (K**2 * omega**2 + m**2 * Eh**2 * wn2
                              + (theta**2 * r * pi_ * h2p * omega**2 + m * Eh2 * (omega**2 + wn2)) / alpha0),
    )


def equations(loss: Loss) -> list[Equation]:
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
        Equation(f"A.thm3.h1bar.{loss}", sp.Symbol(r"\bar{h}_{1}"), cmp_["Eh"], REF, hp,
                 tag + "mean of the first h-moment over the label (ours)"),
        Equation(f"A.thm3.h2bar.{loss}", sp.Symbol(r"\bar{h}_{2}"), cmp_["Eh2"], REF, hp,
                 tag + "mean of the second h-moment over the label (ours)"),
        Equation(f"A.thm3.K.{loss}", sp.Symbol("K"), cmp_["K"], REF, hp,
                 tag + "the signal coefficient of the trained query, m = tr P = L - 1, r = v^T P v (ours)"),
        Equation(f"A.thm3.q2_overlap.{loss}", sp.Symbol(r"\langle q^{(2)},\xi\rangle"), cmp_["q2_overlap"], REF, hp,
                 tag + "h1_p = E[l'(yhat;+1)|y=+1] etc. (ours; the paper states existence)"),
        Equation(f"A.thm3.q2_norm_sq.{loss}", sp.Symbol(r"\|q^{(2)}\|^2"), cmp_["q2_norm_sq"], REF, hp,
                 tag + "includes the 1/alpha0 fluctuation term (ours)"),
    ]
    by = {e.name.rsplit(".", 1)[0].split(".", 2)[2]: e for e in eqs}
    qx, wx, wn, h1b, h2b = (by[k].lhs for k in ("q2_overlap", "omega", "w1_norm", "h1bar", "h2bar"))
    m, r = L - 1, R * (L - R) / L
    pref2 = (eta_q * beta / L) ** 2
    eqs[-1] = eqs[-1].written(  # the overlap squared, the readout noise, the fluctuation
        qx**2 + pref2 * m**2 * h1b**2 * (wn**2 - wx**2)
        + pref2 * (theta**2 * r * pi_ * h2p * wx**2 + m * h2b * wn**2) / alpha0,
        {qx: by["q2_overlap"], wx: by["omega"], wn: by["w1_norm"], h1b: by["h1bar"], h2b: by["h2bar"]})
    mus = {"p": by["mu_p"], "m": by["mu_m"]}
    s_sym, s2_eq = sp.Symbol("s", positive=True), by["s2"]
    s_step = Equation(s2_eq.name, s_sym, sp.sqrt(s2_eq.rhs), REF, PARAMS)  # the root of s^2
    ints = integrands(loss, *(e.lhs for e in mus.values()), s_sym**2)
    for k in H_KEYS:
        f, mu, s = ints[k]
        eqs.append(Equation(f"A.thm3.{k}.{loss}", H[k[:2] + "_" + k[2]], lim["h"][k], REF, PARAMS,
                            tag + "h-moment: 1-D Gaussian expectation").written(
            GaussianMean(f.subs(yhat, mu + s_sym * zeta), zeta), {mu: mus[k[2]], s_sym: s_step}))
    return eqs
