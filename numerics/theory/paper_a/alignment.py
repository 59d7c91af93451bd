"""Theorem-3 limits of Paper A as numbers: the public API for the alignment after step 3.

    alignment_limits("logistic", L=10, R=3, pi=0.2, theta=6, alpha0=2,
                     eta_w=0.5, eta_b=0.5, eta_q=0.5, beta=1, dps=30)
    -> {"w1_norm", "w1_cosine", "q2_overlap", "q2_norm", "q2_cosine"}  (mpmath mpf)

The expressions come from ``derivations.paper_a.alignment`` (lambdified to mpmath by
``numerics.core.backends``); the h-moments are computed here: square loss from its SymPy closed
form, logistic loss by ``numerics.core.quadrature.expect_mp`` (mpmath.quad on the whole real line).
Conventions: docs/conventions.md; derivation: docs/paper_a_alignment.md.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import sympy as sp

from derivations.paper_a import alignment as A
from derivations.paper_a import alignment_rate as AR
from numerics.core.backends import lambdify, to_mpf
from numerics.core.quadrature import expect_mp_err
from numerics.core.params import (ALPHA0, BETA, ETA_B, ETA_Q, ETA_W, L as L_P, PI, R as R_P, THETA,
                             ParameterError, ParamSpace, r_le_l)

LOSSES = ("logistic", "square")
KEYS = ("w1_norm", "w1_cosine", "q2_overlap", "q2_norm", "q2_cosine")
NAMES = ("theta", "L", "R", "pi", "alpha0", "eta_w", "eta_b", "eta_q", "beta")

#: parameters of the limits, with the paper's figure setting as defaults
ALIGNMENT_SPACE = ParamSpace(
    (
        L_P.with_default(10), R_P.with_default(3), PI.with_default(0.2),
        THETA.with_default(6.0), ALPHA0.with_default(2.0), ETA_W.with_default(0.5),
        ETA_B.with_default(0.5), ETA_Q.with_default(0.5), BETA.with_default(1.0),
    ),
    (r_le_l,),
)
RATE_SPACE = ParamSpace(tuple(p for p in ALIGNMENT_SPACE.params if p.name != "alpha0"), (r_le_l,))


def check_loss(loss: str) -> str:
    if loss not in LOSSES:
        raise ParameterError(f"parameter loss: must be one of {', '.join(LOSSES)}, got {loss!r}")
    return loss


@lru_cache(maxsize=4)
def _compiled(loss: str):
    lim = A.limits(loss)
    args = A.PARAMS + A.H_SYMBOLS
    exprs = {k: lim[k] for k in ("w1_norm", "w1_cosine", "w1_overlap", "q2_overlap", "q2_norm_sq")}
    f = {k: lambdify(e, args, "mpmath") for k, e in exprs.items()}
    law = {k: lambdify(lim["step2"][k], A.PARAMS, "mpmath") for k in ("mu_p", "mu_m", "s2")}
    dl = {y: lambdify(A.loss_derivative(loss, y), (A.yhat,), "mpmath") for y in (1, -1)}
    hsq = None
    if loss == "square":  # closed forms from the 1-D Isserlis calculus
        hsq = {k: lambdify(lim["h"][k], A.PARAMS, "mpmath") for k in ("h1p", "h1m", "h2p", "h2m")}
    return f, law, dl, hsq


def h_moments(loss: str, mu_p, mu_m, s, dps: int, square_closed=None, param_values=None):
    """(h1_p, h1_m, h2_p, h2_m) and the largest quadrature error estimate."""
    _, _, dl, hsq = _compiled(loss)
    if loss == "square" and param_values is not None:
        return tuple(hsq[k](*param_values) for k in ("h1p", "h1m", "h2p", "h2m")), mpmath.mpf(0)
    out, errs = [], []
    for k in (1, 2):
        for y, mu in ((1, mu_p), (-1, mu_m)):
            v, e = expect_mp_err(lambda t, y=y, k=k: dl[y](t) ** k, mu, s, dps)
            out.append(v)
            errs.append(e)
    h1p, h1m, h2p, h2m = out[0], out[1], out[2], out[3]
    return (h1p, h1m, h2p, h2m), max(errs)


def _values(params: dict) -> list:
    return [to_mpf(params[n]) for n in NAMES]


def alignment_limits(loss: str, *, L, R, pi, theta, alpha0, eta_w, eta_b, eta_q, beta,
                     dps: int = 30, details: bool = False) -> dict:
    """Theorem-3 limits (mpmath mpf, ``dps`` significant digits)."""
    check_loss(loss)
    params = ALIGNMENT_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, alpha0=alpha0, eta_w=eta_w,
                                           eta_b=eta_b, eta_q=eta_q, beta=beta))
    f, law, _, _ = _compiled(loss)
    with mpmath.workdps(dps + 10):
        vals = _values(params)
        mu_p, mu_m, s2 = law["mu_p"](*vals), law["mu_m"](*vals), law["s2"](*vals)
        H, qerr = h_moments(loss, mu_p, mu_m, mpmath.sqrt(s2), dps + 5, param_values=vals)
        full = vals + list(H)
        out = {
            "w1_norm": f["w1_norm"](*full),
            "w1_cosine": f["w1_cosine"](*full),
            "q2_overlap": f["q2_overlap"](*full),
        }
        nsq = f["q2_norm_sq"](*full)
        out["q2_norm"] = mpmath.sqrt(nsq)
        out["q2_cosine"] = out["q2_overlap"] / out["q2_norm"]
        extra = {"w1_overlap": f["w1_overlap"](*full), "q2_norm_sq": nsq, "mu_p": mu_p, "mu_m": mu_m,
                 "s2": s2, "h1_p": H[0], "h1_m": H[1], "h2_p": H[2], "h2_m": H[3], "quad_err": qerr}
    with mpmath.workdps(dps):  # round to the requested digits; mpf values keep them afterwards
        res = {k: +out[k] for k in KEYS}
        if details:
            res.update({k: +v for k, v in extra.items()})
    return res


@lru_cache(maxsize=4)
def _compiled_rate(loss: str):
    rc = AR.rate_constants(loss)
    args = AR.RATE_PARAMS + AR.H_INF
    law = {k: lambdify(rc[k], AR.RATE_PARAMS, "mpmath") for k in ("mu_p_inf", "mu_m_inf", "s2_inf")}
    if loss == "square":
        law["h_inf"] = [lambdify(e, AR.RATE_PARAMS, "mpmath") for e in rc["h_inf"]]
    return lambdify(rc["C"], args, "mpmath"), lambdify(rc["C_w"], AR.RATE_PARAMS, "mpmath"), law


def rate_constants(loss: str, *, L, R, pi, theta, eta_w, eta_b, eta_q, beta, dps: int = 30) -> dict:
    """Corollary 1: C and C_w in |s_q| = 1 - C/alpha0 + ..., |s_w| = 1 - C_w/alpha0 + ..."""
    check_loss(loss)
    params = RATE_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, eta_w=eta_w, eta_b=eta_b,
                                      eta_q=eta_q, beta=beta))
    fC, fCw, law = _compiled_rate(loss)
    with mpmath.workdps(dps + 10):
        vals = [to_mpf(params[n]) for n in NAMES if n != "alpha0"]
        mu_p, mu_m, s2 = (law[k](*vals) for k in ("mu_p_inf", "mu_m_inf", "s2_inf"))
        if loss == "square":
            H = tuple(h(*vals) for h in law["h_inf"])
        else:
            H, _ = h_moments(loss, mu_p, mu_m, mpmath.sqrt(s2), dps + 5)
        C, Cw = fC(*(vals + list(H))), fCw(*vals)
    with mpmath.workdps(dps):
        return {"C": +C, "C_w": +Cw}
