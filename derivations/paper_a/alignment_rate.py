"""Paper A, Corollary 1: |s_q| = 1 - C / alpha0 + O(1/alpha0^2), and |s_w| likewise.

With eps = 1/alpha0, Theorem 3 (``alignment.py``) gives

    s_q^2 = <q,xi>^2 / |q|^2 = 1 / (1 + Q),   Q = (M_wn^2 + eps * D) / M_xi^2,

where M_xi = E[h (theta_y v + c)^T P u], M_wn = E[h e^T P u] (proportional to |w_n| =
O(eps^{1/2})) and D = E[h^2 |P u|^2].  So Q = eps F(eps) with F regular at eps = 0, and
SymPy expands (1 + eps F(eps))^(-1/2) = 1 - eps F(0)/2 + O(eps^2) for a generic F: C = F(0)/2.
The h-moments depend on eps (through |w_n|^2 and the self-interaction shift) but enter only
through F(0), i.e. at alpha0 = inf (``H_INF``: the prediction law mu_y = b^(1) +
omega theta_y R / L, s^2 = omega^2 / L).  Steps: ``A.cor1.cosine_power`` (the power -1/2 that
is expanded), ``A.cor1.wn_term`` (alpha0 M_wn^2 in F); outputs ``A.cor1.C``, ``A.cor1.C_w``.
"""
from __future__ import annotations

import sympy as sp

from derivations.paper_a.losses import Loss
from derivations.core import Equation, derivation, mutant, replace, step, times
from derivations.paper_a import alignment as A

REF = "Paper A Cor. 1; derivation docs/paper_a_alignment.md"
eps = sp.Symbol("epsilon", positive=True)
#: the h-moments at alpha0 = inf (same meaning as alignment.H_SYMBOLS, evaluated at eps = 0)
H_INF = sp.symbols("h1_p^inf h1_m^inf h2_p^inf h2_m^inf", real=True)
RATE_PARAMS = tuple(p for p in A.PARAMS if p is not A.alpha0)

F = sp.Function("F")


@derivation
def generic_expansion() -> sp.Expr:
    """(1 + eps F(eps))^(-1/2) = 1 - eps F(0)/2 + O(eps^2), for any smooth F."""
    power = step("A.cor1.cosine_power", (1 + eps * F(eps)) ** sp.Rational(-1, 2))  # |s| = (1 + Q)^(-1/2)
    return sp.series(power, eps, 0, 2).removeO()


def _inf(expr):
    """The value at alpha0 = inf (eps = 1/alpha0 = 0) of a rational function of alpha0 that is
    finite there: write it as N(eps)/D(eps) with polynomials, strip the common lowest power of
    eps, set eps = 0 (xreplace: subs is slow on these expanded sums)."""
    num, den = sp.fraction(sp.together(expr.xreplace({A.alpha0: 1 / eps})))
    num, den = sp.expand(num), sp.expand(den)
    low = min(sp.Poly(part, eps).monoms()[-1][0] for part in (num, den))
    num, den = sp.expand(num / eps**low), sp.expand(den / eps**low)
    value_den = den.xreplace({eps: 0})
    if value_den == 0:
        raise ValueError("expression is not finite at alpha0 = inf")
    return num.xreplace({eps: 0}) / value_den


@derivation
def h_integrands_inf(loss: Loss) -> dict:
    """The h-moment integrands at the alpha0 = inf prediction law (mu_y, s^2 at eps = 0)."""
    s2 = A.step2(loss)
    return A.integrands(loss, _inf(s2["mu_p"]), _inf(s2["mu_m"]), _inf(s2["s2"]))


@derivation
def rate_constants(loss: Loss) -> dict:
    """C (in RATE_PARAMS and H_INF) and C_w (in RATE_PARAMS), with the pieces they come from;
    ``h_integrands_inf`` and, for the square loss, their closed-form means ``h_inf``."""
    s34 = A.step3_4(loss)
    s1 = A.step1(loss)
    expansion = generic_expansion()
    out = {"expansion": expansion}
    # |s_q|^2 = <q,xi>^2/|q|^2 = 1/(1 + Q), Q = (M_wn^2 + D/alpha0)/M_xi^2 (alignment.step3_4
    # builds |q|^2 as (eta_q beta/L)^2 (M_xi^2 + M_wn^2 + D/alpha0); tests re-check it).
    # F = Q / eps = alpha0 Q; M_wn^2 is proportional to |w_n|^2 = O(1/alpha0), so F is regular
    wn_term = step("A.cor1.wn_term", sp.expand(A.alpha0 * s34["mean_wn"] ** 2))
    F_q = (wn_term + s34["diag"]) / s34["mean_xi"] ** 2
    F_w = sp.expand(A.alpha0 * s1["wn2"]) / s1["omega"] ** 2  # |s_w|^2 = 1/(1 + wn2/omega^2)
    coeff = -expansion.coeff(eps, 1)  # C = coeff at F(0) = F(0)/2
    for name, F_expr in (("C", F_q), ("C_w", F_w)):
        F0 = _inf(F_expr).subs(dict(zip(A.H_SYMBOLS, H_INF)))
        out[name] = step(f"A.cor1.{name}", coeff.subs(F(0), F0))
        out[name + "_F"] = F_expr
    ints = h_integrands_inf(loss)
    out["h_integrands_inf"] = ints
    if loss.polynomial:
        out["h_inf"] = A.gaussian_means(loss, ints)
    return out


mutant("A.cor1.cosine_power:squared", "A.cor1.cosine_power",
       "|s|^2 expanded instead of |s| (exponent -1 instead of -1/2): C twice too large",
       replace(sp.Rational(-1, 2), sp.Integer(-1)))
mutant("A.cor1.wn_term:dropped", "A.cor1.wn_term",
       "the M_wn^2 term dropped from F (it is O(1/alpha0), like the fluctuation term)", times(0))
mutant("A.cor1.C_w:no_L", "A.cor1.C_w", "C_w without its factor L", lambda e: e / A.L)


def compact_C(loss: Loss, *, parts: bool = False):
    """C in the readable grouped form [m E h^2 + r theta^2 pi h2_+ + m^2 (E h)^2 E[g^2] L /
    (theta^2 R^2 pi^2 g_+^2)] / (2 K^2), K = theta^2 r pi h_+ + m E h (h at alpha0 = inf).
    Equal to ``rate_constants(loss)["C"]`` (tests/test_paper_a_alignment.py)."""
    s1 = A.step1(loss)
    h1p, h1m, h2p, h2m = H_INF
    m, r = A.L - 1, A.R * (A.L - A.R) / A.L
    Eh = A.pi_ * h1p + (1 - A.pi_) * h1m
    Eh2 = A.pi_ * h2p + (1 - A.pi_) * h2m
    K = A.theta**2 * r * A.pi_ * h1p + m * Eh
    def C(K, Eh, Eh2):
        return (m * Eh2 + r * A.theta**2 * A.pi_ * h2p
                + m**2 * Eh**2 * s1["Eg2"] * A.L / (A.theta**2 * A.R**2 * A.pi_**2 * s1["g_p"] ** 2)) / (2 * K**2)
    if parts:  # the named pieces and C in their symbols, for the printed chain
        return {"Eh": Eh, "Eh2": Eh2, "K": K, "C": C}
    return C(K, Eh, Eh2)


def equations(loss: Loss) -> list[Equation]:
    rc = rate_constants(loss)
    pc, tag, hp = compact_C(loss, parts=True), f"[{loss}] ", RATE_PARAMS + H_INF
    h1b, h2b, K = sp.symbols(r"\bar{h}_{1}^{\infty} \bar{h}_{2}^{\infty} K^{\infty}", real=True)
    e1 = Equation(f"A.cor1.h1bar.{loss}", h1b, pc["Eh"], REF, hp, tag + "label mean of the first h-moment at alpha0 = inf")
    e2 = Equation(f"A.cor1.h2bar.{loss}", h2b, pc["Eh2"], REF, hp, tag + "label mean of the second h-moment at alpha0 = inf")
    eK = Equation(f"A.cor1.K.{loss}", K, pc["K"], REF, hp, tag + "the signal coefficient K at alpha0 = inf").written(
        pc["K"].xreplace({pc["Eh"]: h1b}), {h1b: e1})
    return [
        e1, e2, eK,
        Equation(f"A.cor1.C.{loss}", sp.Symbol("C"), compact_C(loss), REF, hp,
                 f"[{loss}] |s_q| = 1 - C/alpha0 + O(alpha0^-2); h^inf = h-moments at alpha0 = inf (ours)").written(
            pc["C"](K, h1b, h2b), {h1b: e1, h2b: e2, K: eK}),
        Equation(f"A.cor1.C_w.{loss}", sp.Symbol("C_w"), rc["C_w"], REF, RATE_PARAMS,
                 f"[{loss}] |s_w| = 1 - C_w/alpha0 + O(alpha0^-2) (ours)"),
    ]
