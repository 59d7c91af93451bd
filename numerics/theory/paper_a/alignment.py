"""Theorem-3 limits of Paper A as numbers: the public API for the alignment after step 3.

    alignment_limits("logistic", L=10, R=3, pi=0.2, theta=6, alpha0=2,
                     eta_w=0.5, eta_b=0.5, eta_q=0.5, beta=1, dps=30)
    -> {"w1_norm", "w1_cosine", "q2_overlap", "q2_norm", "q2_cosine"}  (mpmath mpf)

Every value is a compiled step of ``derivations.paper_a.alignment`` / ``alignment_rate``
(lambdified to mpmath by ``numerics.core.backends``).  The h-moments: square loss, the compiled
SymPy closed forms; logistic loss, one generic vector Gaussian quadrature for the four moments
(``numerics.core.quadrature.gaussian_expect_mp``: trapezoidal rule with step and truncation
chosen from dps, exponentially convergent for these integrands, analytic in a strip) of the
compiled l'(yhat; y)^k at the compiled step-2 laws (mu_y, s).  The compiled functions are cached
per active mutant set (``derivations.core.derivation``).
Conventions: docs/conventions.md; derivation: docs/paper_a_alignment.md.
"""
from __future__ import annotations

import mpmath

from derivations.core import derivation
from derivations.paper_a import alignment as A
from derivations.paper_a import alignment_rate as AR
from numerics.theory.paper_a import models as M
from numerics.core.backends import lambdify, to_mpf
from numerics.core.quadrature import expect_mp_err, gaussian_expect_mp
from numerics.core.params import (ALPHA0, BETA, ETA_B, ETA_Q, ETA_W, L as L_P, PI, R as R_P, THETA,
                                  ParameterError, ParamSpace, r_le_l)

LOSSES = M.LOSS_NAMES
KEYS = ("w1_norm", "w1_cosine", "q2_overlap", "q2_norm", "q2_cosine")
OUTPUTS = KEYS + ("w1_overlap", "q2_norm_sq")
NAMES = ("theta", "L", "R", "pi", "alpha0", "eta_w", "eta_b", "eta_q", "beta")

#: parameters of the limits, with the paper's figure setting as defaults
ALIGNMENT_SPACE = ParamSpace(
    (
        L_P.with_default(10), R_P.with_default(3), PI.with_default(0.2),
        THETA.with_default(6.0), ALPHA0.with_default(2.0), ETA_W.with_default(0.5),
        ETA_B.with_default(0.5), ETA_Q.with_default(0.5), BETA.with_default(1.0),
    ),
    (r_le_l,),
    source="the setting of Paper A's alignment figure (the full-size A.thm3 design); verify --quick and the "
           "quick figure use pi=0.4, theta=4 (docs/cli.md)",
)
RATE_SPACE = ParamSpace(tuple(p for p in ALIGNMENT_SPACE.params if p.name != "alpha0"), (r_le_l,),
                        source=ALIGNMENT_SPACE.source)


def check_loss(loss: str) -> str:
    if loss not in LOSSES:
        raise ParameterError(f"parameter loss: must be one of {', '.join(LOSSES)}, got {loss!r}")
    return loss


@derivation
def _compiled(loss: str):
    """The compiled Theorem-3 limits and h-moments of the active derivation (cached per active
    mutant set by ``derivations.core.derivation``, so a mutated derivation is never masked by
    the true one)."""
    lim = A.limits(loss)
    args = A.PARAMS + A.H_SYMBOLS
    f = {k: lambdify(lim[k], args, "mpmath") for k in OUTPUTS}
    return f, _h_evaluator(loss, A.h_integrands(loss), lim["h"], A.PARAMS)


def _h_evaluator(loss: str, integrands: dict, closed: dict, params: tuple, rule: str = "trapezoid"):
    """vals, dps -> ((h1_p, h1_m, h2_p, h2_m), quadrature error estimate).  Square loss: the
    compiled closed forms; logistic: ONE vector Gaussian quadrature E f(mu + s zeta) of the
    compiled f = l'(yhat; y)^k at the compiled laws (mu, s), every moment on the same nodes
    (``numerics.core.quadrature.gaussian_expect_mp``; the moments of one law y share one
    compiled vector function of yhat)."""
    if M.loss(loss).polynomial:  # exact Gaussian moments (the square loss)
        fs = [lambdify(closed[k], params, "mpmath") for k in A.H_KEYS]
        return lambda vals, dps: (tuple(fk(*vals) for fk in fs), mpmath.mpf(0))
    groups: dict = {}  # law (mu, s) -> indices into H_KEYS of the moments at that law
    for i, k in enumerate(A.H_KEYS):
        f, mu, s = integrands[k]
        groups.setdefault((mu, s), []).append(i)
    parts = [(idx, lambdify([integrands[A.H_KEYS[i]][0] for i in idx], (A.yhat,), "mpmath", cse=True),
              lambdify(list(law), params, "mpmath")) for law, idx in groups.items()]
    n = len(A.H_KEYS)
    if rule == "tanh-sinh":  # the reference rule: mpmath.quad, one moment at a time
        singles = [(lambdify(integrands[k][0], (A.yhat,), "mpmath"), lambdify(list(integrands[k][1:]), params, "mpmath"))
                   for k in A.H_KEYS]

        def reference(vals, dps):
            out = [expect_mp_err(f, *law(*vals), dps) for f, law in singles]
            return tuple(v for v, _ in out), max(e for _, e in out)
        return reference

    def evaluate(vals, dps):
        laws = [(idx, f, *law(*vals)) for idx, f, law in parts]

        def vector(z):
            out = [None] * n
            for idx, f, mu, s in laws:
                for i, v in zip(idx, f(mu + s * z)):
                    out[i] = v
            return out
        H, err = gaussian_expect_mp(vector, n, dps)
        return tuple(H), err
    return evaluate


@derivation
def _h_compiled(loss: str, rule: str):
    return _h_evaluator(loss, A.h_integrands(loss), A.limits(loss)["h"], A.PARAMS, rule)


def h_moments(loss: str, *, rule: str = "trapezoid", dps: int = 30, **params) -> tuple:
    """((h1_p, h1_m, h2_p, h2_m), quadrature error estimate) of Theorem 3 at ``params``.
    ``rule``: ``"trapezoid"`` (the one used by the limits: all four moments on shared nodes,
    relative error estimate) or ``"tanh-sinh"`` (mpmath.quad per moment on the whole line,
    absolute error estimate; the reference for tests and benchmarks)."""
    check_loss(loss)
    if rule not in ("trapezoid", "tanh-sinh"):
        raise ValueError(f"rule must be trapezoid or tanh-sinh, got {rule!r}")
    p = ALIGNMENT_SPACE.validate(params)
    with mpmath.workdps(dps + 10):
        return _h_compiled(loss, rule)(_values(p), dps + 5)


def _values(params: dict) -> list:
    return [to_mpf(params[n]) for n in NAMES]


def alignment_limits(loss: str, *, L, R, pi, theta, alpha0, eta_w, eta_b, eta_q, beta,
                     dps: int = 30, details: bool = False) -> dict:
    """Theorem-3 limits (mpmath mpf, ``dps`` significant digits)."""
    check_loss(loss)
    params = ALIGNMENT_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, alpha0=alpha0, eta_w=eta_w,
                                           eta_b=eta_b, eta_q=eta_q, beta=beta))
    f, h = _compiled(loss)
    with mpmath.workdps(dps + 10):
        vals = _values(params)
        H, qerr = h(vals, dps + 5)
        full = vals + list(H)
        out = {k: f[k](*full) for k in OUTPUTS}
        extra = {"h1_p": H[0], "h1_m": H[1], "h2_p": H[2], "h2_m": H[3], "quad_err": qerr,
                 "w1_overlap": out["w1_overlap"], "q2_norm_sq": out["q2_norm_sq"]}
    with mpmath.workdps(dps):  # round to the requested digits; mpf values keep them afterwards
        res = {k: +out[k] for k in KEYS}
        if details:
            res.update({k: +v for k, v in extra.items()})
    return res


@derivation
def _compiled_rate(loss: str):
    rc = AR.rate_constants(loss)
    fC = lambdify(rc["C"], AR.RATE_PARAMS + AR.H_INF, "mpmath")
    fCw = lambdify(rc["C_w"], AR.RATE_PARAMS, "mpmath")
    return fC, fCw, _h_evaluator(loss, rc["h_integrands_inf"], rc.get("h_inf"), AR.RATE_PARAMS)


def rate_constants(loss: str, *, L, R, pi, theta, eta_w, eta_b, eta_q, beta, dps: int = 30) -> dict:
    """Corollary 1: C and C_w in |s_q| = 1 - C/alpha0 + ..., |s_w| = 1 - C_w/alpha0 + ..."""
    check_loss(loss)
    params = RATE_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, eta_w=eta_w, eta_b=eta_b,
                                      eta_q=eta_q, beta=beta))
    fC, fCw, h = _compiled_rate(loss)
    with mpmath.workdps(dps + 10):
        vals = [to_mpf(params[n]) for n in NAMES if n != "alpha0"]
        H, _ = h(vals, dps + 5)
        C, Cw = fC(*(vals + list(H))), fCw(*vals)
    with mpmath.workdps(dps):
        return {"C": +C, "C_w": +Cw}
