"""Predict the final test error of Paper A's four-step protocol in one call.

Steps 1-3 (on D0): the Theorem-3 limits of ||q^(2)|| and cos(q^(2), xi) from
``numerics.theory.paper_a.alignment`` (docs/paper_a_alignment.md).  Step 4 (on D1,
independent of D0): the ERM self-consistent equations at fixed q with those (||q||, s_q)
(``numerics.theory.paper_a.erm_equations``; docs/paper_a_after_training.md).  Because D1 is
independent of D0 and (||q^(2)||, s_q) concentrate, the step-4 law depends on q^(2) only
through their limits, so the composition is exact in the limit.  Which limit becomes ||q||
and which s_q is the derivation step ``derivations.paper_a.protocol.composition``.  The linear baselines do not
see q: their step 4 is the linear law's (``model="pool"|"vec"``), whatever steps 1-3 did.
Checked end to end by ``A.protocol.end_to_end`` (docs/paper_a_protocol.md).
"""
from __future__ import annotations

from derivations.paper_a import protocol as DP
from derivations.paper_a.attention_reduction import qn, s_q as s_q_sym
from numerics.core.backends import MPMATH
from numerics.core.params import ParameterError
from numerics.core.results import Solution
from numerics.theory.paper_a import erm_equations as erm_theory
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.models import Loss, Model

MODELS = M.MODEL_NAMES


def step4_query(limits: dict) -> tuple[float, float]:
    """(||q||, s_q) of the step-4 law from the Theorem-3 ``limits`` (a dict keyed as
    ``alignment_limits`` reports them), through the composition step
    (``derivations.paper_a.protocol.composition``)."""
    comp = DP.composition()
    keys = tuple(DP.LIMITS)
    args = [DP.LIMITS[k] for k in keys]
    # raw: float() of the values as computed, not first rounded to the working precision
    f = MPMATH.compile([comp[qn], comp[s_q_sym]], args, raw=True)
    q_norm, s_q = f(*[limits[k] for k in keys])
    return float(q_norm), float(s_q)


def reported_query(q_norm: float, s_q: float) -> tuple[float, float]:
    """The step-4 query (||q||, s_q) as the protocol's rows report it
    (``derivations.paper_a.protocol.reported_query``)."""
    f = MPMATH.compile(DP.reported_query(), (qn, s_q_sym), raw=True)
    rq, rs = f(q_norm, s_q)
    return float(rq), float(rs)


def protocol_law(*, model: Model = M.ATTENTION, alpha0: float = 2.0, loss_steps: Loss = M.LOGISTIC, eta_w: float = 0.5,
                 eta_b: float = 0.5, eta_q: float = 0.5, beta: float = 1.0, L: int = 10, R: int = 1,
                 pi: float = 0.5, theta: float = 5.0, log2_points: int = 11, n_scrambles: int = 8,
                 seed: int = 0):
    """The step-4 latent law of ``model`` after steps 1-3: for attention the law at the
    Theorem-3 limits (||q^(2)||, s_q) of steps 1-3 with ``loss_steps``; the linear laws do not
    see q.  Returns (q_norm, s_q, law); q_norm = s_q = None for the linear models."""
    if not model.sees_q:
        return None, None, erm_theory.linear_law(model, L, R, pi, theta)
    from numerics.theory.paper_a.alignment import alignment_limits

    lim = alignment_limits(loss_steps, L=L, R=R, pi=pi, theta=theta, alpha0=alpha0, eta_w=eta_w,
                           eta_b=eta_b, eta_q=eta_q, beta=beta, dps=20)
    q_norm, s_q = step4_query(lim)
    if not -1.0 <= s_q <= 1.0:  # pragma: no cover - a cosine
        raise ParameterError(f"alignment limits gave |s_q| > 1 ({s_q})")
    law = erm_theory.attention_law(L, R, pi, theta, beta, q_norm, s_q, log2_points=log2_points,
                                   n_scrambles=n_scrambles, seed=seed)
    return q_norm, s_q, law


def solve_protocol(*, alpha0: float, alpha1: float, model: Model = M.ATTENTION, loss_steps: Loss = M.LOGISTIC,
                   loss: Loss = M.LOGISTIC, eta_w: float = 0.5, eta_b: float = 0.5, eta_q: float = 0.5,
                   beta: float = 1.0, lam: float = 1e-5, L: int = 10, R: int = 1, pi: float = 0.5,
                   theta: float = 5.0, log2_points: int = 11, n_scrambles: int = 8, seed: int = 0,
                   **solve_kw):
    """Alignment limits -> (||q||, s_q) -> step-4 equations of ``model``.  Returns
    (q_norm, s_q, Solution of ``erm_equations.solve_with_error``); for the linear models
    q_norm = s_q = None.  ``solve_kw``: quadrature options of the step-4 solve (default
    quad_tol=1e-7, x_quad_tol=1e-6)."""
    q_norm, s_q, law = protocol_law(model=model, alpha0=alpha0, loss_steps=loss_steps, eta_w=eta_w, eta_b=eta_b,
                                    eta_q=eta_q, beta=beta, L=L, R=R, pi=pi, theta=theta, log2_points=log2_points,
                                    n_scrambles=n_scrambles, seed=seed)
    kw = dict(quad_tol=1e-7, x_quad_tol=1e-6)
    kw.update(solve_kw)
    return q_norm, s_q, erm_theory.solve_with_error(law, alpha1, lam, loss, **kw)


def protocol_curve(alphas1, *, lam: float, loss: Loss = M.LOGISTIC, model: Model = M.ATTENTION, **kw) -> list:
    """:func:`solve_protocol` along a grid of alpha1 (continuation, warm starts; one law):
    a list of Solutions in the order of ``alphas1``.  ``kw``: the arguments of
    :func:`protocol_law` and the quadrature options."""
    law_kw = {k: kw.pop(k) for k in list(kw) if k in protocol_law.__code__.co_varnames}
    _, _, law = protocol_law(model=model, **law_kw)
    opts = dict(quad_tol=1e-6, x_quad_tol=1e-3)
    opts.update(kw)
    return erm_theory.continuation(law, alphas1, lam, loss, **opts)


def predict(*, alpha0: float, alpha1: float, loss_steps: Loss = M.LOGISTIC, loss: Loss = M.LOGISTIC,
            eta_w: float = 0.5, eta_b: float = 0.5, eta_q: float = 0.5, beta: float = 1.0,
            lam: float = 1e-5, L: int = 10, R: int = 1, pi: float = 0.5, theta: float = 5.0,
            log2_points: int = 11, n_scrambles: int = 8, seed: int = 0, model: Model = M.ATTENTION,
            **solve_kw) -> Solution:
    """:func:`solve_protocol` as a problem's answer (``erm_equations.report``: the order
    parameters, test_error, train_loss, ... as Values) with q_norm and s_q first (attention)."""
    q_norm, s_q, res = solve_protocol(alpha0=alpha0, alpha1=alpha1, model=model, loss_steps=loss_steps, loss=loss,
                                      eta_w=eta_w, eta_b=eta_b, eta_q=eta_q, beta=beta, lam=lam, L=L, R=R, pi=pi,
                                      theta=theta, log2_points=log2_points, n_scrambles=n_scrambles, seed=seed,
                                      **solve_kw)
    return erm_theory.report(res, None if q_norm is None else {"q_norm": q_norm, "s_q": s_q})
