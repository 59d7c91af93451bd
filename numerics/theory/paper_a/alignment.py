"""Theorem-3 limits of Paper A as numbers: the public API for the alignment after step 3.

    alignment_limits(LOGISTIC, L=10, R=3, pi=0.2, theta=6, alpha0=2,
                     eta_w=0.5, eta_b=0.5, eta_q=0.5, beta=1, dps=30)
    -> {"w1_norm", "w1_cosine", "q2_overlap", "q2_norm", "q2_cosine"}  (mpmath mpf)

Theorem 3 and Corollary 1 are each ONE chain of compiled steps of
``derivations.paper_a.alignment`` / ``alignment_rate`` (:func:`chain`, :func:`rate_chain`:
``numerics.core.backends.Chain``), run under a context: mpmath at any dps (this API and
``attncheck eval``), numpy over arrays, FLINT balls (``eval --certify``).  The h-moments: square
loss, the compiled SymPy closed forms; logistic loss, Gaussian expectations of the compiled
l'(yhat; y)^k at the compiled step-2 laws (mu_y, s), by the context's rule (mpmath: one vector
trapezoidal rule for the four moments, ``numerics.core.quadrature.gaussian_expect_mp``, or
tanh-sinh as the independent reference; numpy: the trapezoidal rule along an array axis; arb:
``acb.integral`` plus the rigorous Gaussian tail).  The chains are cached per active mutant set
(``derivations.core.derivation``).

    limits_under(NumpyContext(), SQUARE, dict(params, alpha0=np.array([1., 2., 4.])))

Conventions: docs/conventions.md; derivation: docs/paper_a_alignment.md.
"""
from __future__ import annotations

import mpmath

from derivations.core import derivation
from derivations.paper_a import alignment as A
from derivations.paper_a import alignment_rate
from numerics.core.backends import Chain, Closed, Evaluator, Expect, MpContext
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.models import Loss
from numerics.core.params import ParamSpace
from numerics.papers.paper_a.vocabulary import ALPHA0, BETA, ETA_B, ETA_Q, ETA_W, L as L_P, PI, R as R_P, THETA

#: the losses, in the order the tables list them (``numerics.theory.paper_a.models``)
LOSSES = M.LOSSES
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
    source="the setting of Paper A's alignment figure (the full-size A.thm3 design); verify --quick and the "
           "quick figure use pi=0.4, theta=4 (docs/cli.md)",
    fixed=(("d", "the simulation runs at the design's d and d/2 of --quick/--full: the finite-size allowance "
                 "is their drift"),),
)
RATE_SPACE = ParamSpace(tuple(p for p in ALIGNMENT_SPACE.params if p.name != "alpha0"),
                        source=ALIGNMENT_SPACE.source)


def _h_steps(loss: Loss, integrands: dict, closed: dict | None, symbols) -> tuple:
    """The h-moment steps: square loss, the derivation's closed forms; logistic, the
    Gaussian expectations E f(mu + s zeta) of the derivation's integrands (f, mu, s)."""
    if loss.polynomial:  # exact Gaussian moments (the square loss)
        return tuple(Closed(sym, closed[k]) for sym, k in zip(symbols, A.H_KEYS))
    return tuple(Expect(sym, *_integrand(integrands[k])) for sym, k in zip(symbols, A.H_KEYS))


def _integrand(fms) -> tuple:
    f, mu, s = fms
    return f, A.yhat, mu, s


@derivation
def chain(loss: Loss) -> Chain:
    """Theorem 3 as one compiled chain (``numerics.core.backends.Chain``): the parameters,
    the h-moments at the step-2 law, then every limit of ``alignment.limits`` (cached per
    active mutant set by ``derivations.core.derivation``, so a mutated derivation is never
    masked by the true one).  Run it under any context: numpy, mpmath or arb."""
    lim = A.limits(loss)
    return Chain(A.PARAMS, _h_steps(loss, A.h_integrands(loss), lim["h"], A.H_SYMBOLS),
                 tuple((k, lim[k]) for k in OUTPUTS))


@derivation
def rate_chain(loss: Loss) -> Chain:
    """Corollary 1 as one compiled chain: the h-moments at the alpha0 = inf law, then C and C_w."""
    rc = alignment_rate.rate_constants(loss)
    return Chain(alignment_rate.RATE_PARAMS,
                 _h_steps(loss, rc["h_integrands_inf"], rc.get("h_inf"), alignment_rate.H_INF),
                 (("C", rc["C"]), ("C_w", rc["C_w"])))


def h_moments(loss: Loss, *, rule: str = "trapezoid", dps: int = 30, **params) -> tuple:
    """((h1_p, h1_m, h2_p, h2_m), quadrature error estimate) of Theorem 3 at ``params``.
    ``rule``: ``"trapezoid"`` (the one used by the limits: all four moments on shared nodes,
    relative error estimate) or ``"tanh-sinh"`` (mpmath.quad per moment on the whole line,
    absolute error estimate; the reference for tests and benchmarks)."""
    ctx = MpContext(dps, rule)  # refuses an unknown rule
    p = ALIGNMENT_SPACE.validate(params)
    res = chain(loss).run(ctx, _values(p))
    return tuple(res["_steps"][s.name] for s in A.H_SYMBOLS), res["_quad_err"]


def _values(params: dict) -> list:
    return [params[n] for n in NAMES]


def limits_under(ctx, loss: Loss, params: dict) -> dict:
    """The Theorem-3 limits ``OUTPUTS`` at the (validated) ``params`` under the context ``ctx``
    (``numerics.core.backends``: numpy arrays, mpmath at a dps, or arb balls), with the
    h-moments and the quadrature error estimate."""
    return chain(loss).run(ctx, _values(params))


def rates_under(ctx, loss: Loss, params: dict) -> dict:
    """Corollary 1 (C, C_w) at the (validated) ``params`` under the context ``ctx``."""
    return rate_chain(loss).run(ctx, [params[n] for n in NAMES if n != "alpha0"])


def limits_evaluator(keys) -> Evaluator:
    """The claims' closed forms ``{loss.key: value}`` of the Theorem-3 limits ``keys``, for
    both losses, under any context (``numerics.core.backends.Evaluator``: mpmath for
    ``attncheck eval``, arb balls for ``--certify``, numpy arrays)."""
    def run(ctx, params):
        out = {}
        for loss in LOSSES:
            res = limits_under(ctx, loss, params)
            out.update({f"{loss}.{k}": res[k] for k in keys})
        return out
    return Evaluator(run, name="theorem3_" + "_".join(keys))


def _rates(ctx, params):
    out = {}
    for loss in LOSSES:
        res = rates_under(ctx, loss, params)
        out[f"{loss}.C"] = res["C"]
    out["C_w"] = res["C_w"]  # C_w does not depend on the loss
    return out


#: Corollary 1 (C per loss, C_w) under any context
RATE_EVALUATOR = Evaluator(_rates, name="corollary1")


def alignment_limits(loss: Loss, *, L, R, pi, theta, alpha0, eta_w, eta_b, eta_q, beta,
                     dps: int = 30, details: bool = False) -> dict:
    """Theorem-3 limits (mpmath mpf, ``dps`` significant digits)."""
    params = ALIGNMENT_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, alpha0=alpha0, eta_w=eta_w,
                                           eta_b=eta_b, eta_q=eta_q, beta=beta))
    res = limits_under(MpContext(dps), loss, params)
    out = {k: res[k] for k in KEYS}
    if details:
        H = res["_steps"]
        with mpmath.workdps(dps):
            out.update({"h1_p": +H["h1_p"], "h1_m": +H["h1_m"], "h2_p": +H["h2_p"], "h2_m": +H["h2_m"],
                        "quad_err": +mpmath.mpf(res["_quad_err"]), "w1_overlap": res["w1_overlap"],
                        "q2_norm_sq": res["q2_norm_sq"]})
    return out


def rate_constants(loss: Loss, *, L, R, pi, theta, eta_w, eta_b, eta_q, beta, dps: int = 30) -> dict:
    """Corollary 1: C and C_w in |s_q| = 1 - C/alpha0 + ..., |s_w| = 1 - C_w/alpha0 + ..."""
    params = RATE_SPACE.validate(dict(L=L, R=R, pi=pi, theta=theta, eta_w=eta_w, eta_b=eta_b,
                                      eta_q=eta_q, beta=beta))
    res = rates_under(MpContext(dps), loss, params)
    return {"C": res["C"], "C_w": res["C_w"]}
