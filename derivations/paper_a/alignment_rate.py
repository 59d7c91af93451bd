"""Paper A, Corollary 1: |s_q| = 1 - C / alpha0 + O(1/alpha0^2), and |s_w| likewise.

With eps = 1/alpha0, Theorem 3 (``alignment.py``) gives

    s_q^2 = <q,xi>^2 / |q|^2 = 1 / (1 + Q),   Q = (M_wn^2 + eps * D) / M_xi^2,

where M_xi = E[h (theta_y v + c)^T P u], M_wn = E[h e^T P u] (proportional to |w_n| =
O(eps^{1/2})) and D = E[h^2 |P u|^2].  So Q = O(eps) and |s_q| = 1 - Q/2 + O(eps^2).  The
h-moments depend on eps (through |w_n|^2 and the self-interaction shift), but only at the
next order, because Q already carries a factor eps.  SymPy does the expansion below with the
h-moments as undefined functions of eps, and the result is expressed through the h-moments at
alpha0 = inf (``H_INF``: the prediction law mu_y = b^(1) + omega theta_y R / L,
s^2 = omega^2 / L).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derivations.core import Equation
from derivations.paper_a import alignment as A

REF = "Paper A Cor. 1; derivation docs/paper_a_alignment.md"
eps = sp.Symbol("epsilon", positive=True)
H_FUNCS = tuple(sp.Function(f"H_{n}") for n in ("1p", "1m", "2p", "2m"))
#: the h-moments at alpha0 = inf (same meaning as alignment.H_SYMBOLS, evaluated at eps = 0)
H_INF = sp.symbols("h1_p^inf h1_m^inf h2_p^inf h2_m^inf", real=True)


def _with_eps(expr):
    return expr.subs(A.alpha0, 1 / eps).subs(
        {h: f(eps) for h, f in zip(A.H_SYMBOLS, H_FUNCS)})


def _at_zero(expr):
    """Replace H(0) by the alpha0 = inf symbols; derivatives of H must not survive."""
    expr = expr.subs({f(0): hi for f, hi in zip(H_FUNCS, H_INF)})
    if expr.atoms(sp.Subs, sp.Derivative):
        raise AssertionError("h-moment derivatives survived at first order")
    return expr


F = sp.Function("F")


def generic_expansion() -> sp.Expr:
    """(1 + eps F(eps))^(-1/2) = 1 - eps F(0)/2 + O(eps^2), for any smooth F."""
    return sp.series((1 + eps * F(eps)) ** sp.Rational(-1, 2), eps, 0, 2).removeO()


@lru_cache(maxsize=4)
def rate_constants(loss: str) -> dict:
    lim = A.limits(loss)
    out = {}
    expansion = generic_expansion()
    assert sp.simplify(expansion - (1 - eps * F(0) / 2)) == 0
    for name, num, den in (
        ("C", lim["q2_overlap"] ** 2, lim["q2_norm_sq"]),
        ("C_w", lim["w1_overlap"] ** 2, lim["w1_norm"] ** 2),
    ):
        # s^2 = num/den = 1/(1 + Q); Q = (den - num)/num carries an explicit factor eps
        Q = sp.expand(den - num) / num
        F_eps = sp.simplify(_with_eps(Q) / eps)  # F(eps) = Q / eps, regular at eps = 0
        F0 = _at_zero(F_eps.subs(eps, 0))
        out[name] = sp.simplify(-expansion.coeff(eps, 1).subs(F(0), F0))
        out[name + "_F"] = F_eps
    s2 = A.step2(loss)
    out["mu_p_inf"] = sp.limit(s2["mu_p"], A.alpha0, sp.oo)
    out["mu_m_inf"] = sp.limit(s2["mu_m"], A.alpha0, sp.oo)
    out["s2_inf"] = sp.limit(s2["s2"], A.alpha0, sp.oo)
    if loss == "square":
        h = A.limits(loss)["h"]
        out["h_inf"] = tuple(sp.limit(h[k], A.alpha0, sp.oo) for k in ("h1p", "h1m", "h2p", "h2m"))
    return out


def notes_C(loss: str) -> dict:
    """The notes' candidate C and C_w with h symbols renamed to their alpha0 = inf values."""
    nc = A.notes_candidate(loss)
    sub = dict(zip(A.H_SYMBOLS, H_INF))
    return {"C": nc["C"].subs(sub), "C_w": nc["C_w"]}


RATE_PARAMS = tuple(p for p in A.PARAMS if p is not A.alpha0)


def equations(loss: str) -> list[Equation]:
    rc = rate_constants(loss)
    return [
        Equation(f"A.cor1.C.{loss}", sp.Symbol("C"), rc["C"], REF, RATE_PARAMS + H_INF,
                 f"[{loss}] |s_q| = 1 - C/alpha0 + O(alpha0^-2); h^inf = h-moments at alpha0 = inf (ours)"),
        Equation(f"A.cor1.C_w.{loss}", sp.Symbol("C_w"), rc["C_w"], REF, RATE_PARAMS,
                 f"[{loss}] |s_w| = 1 - C_w/alpha0 + O(alpha0^-2) (ours)"),
    ]
