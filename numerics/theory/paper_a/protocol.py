"""Predict the final test error of Paper A's four-step protocol in one call.

Steps 1-3 (on D0): the Theorem-3 limits of ||q^(2)|| and cos(q^(2), xi) from
``numerics.theory.paper_a.alignment`` (docs/paper_a_alignment.md).  Step 4 (on D1,
independent of D0): the ERM self-consistent equations at fixed q with those (||q||, s_q)
(``numerics.theory.paper_a.erm_equations``; docs/paper_a_after_training.md).  Because D1 is
independent of D0 and (||q^(2)||, s_q) concentrate, the step-4 law depends on q^(2) only
through their limits, so the composition is exact in the limit.
"""
from __future__ import annotations

from numerics.theory.paper_a import erm_equations as SE
from numerics.core.params import ParameterError


def predict(*, alpha0: float, alpha1: float, loss_steps: str = "logistic", loss: str = "logistic",
            eta_w: float = 0.5, eta_b: float = 0.5, eta_q: float = 0.5, beta: float = 1.0,
            lam: float = 1e-5, L: int = 10, R: int = 1, pi: float = 0.5, theta: float = 5.0,
            log2_points: int = 11, n_scrambles: int = 8, seed: int = 0) -> dict:
    """Alignment limits -> (||q||, s_q) -> step-4 equations.  Returns the solve report
    (converged/status/iterations/residual, order parameters, test_error, train_loss, ...)
    plus q_norm and s_q."""
    from numerics.theory.paper_a.alignment import alignment_limits

    lim = alignment_limits(loss_steps, L=L, R=R, pi=pi, theta=theta, alpha0=alpha0, eta_w=eta_w,
                           eta_b=eta_b, eta_q=eta_q, beta=beta, dps=20)
    q_norm, s_q = float(lim["q2_norm"]), float(lim["q2_cosine"])
    if not -1.0 <= s_q <= 1.0:  # pragma: no cover - a cosine
        raise ParameterError(f"alignment limits gave |s_q| > 1 ({s_q})")
    law = SE.attention_law(L, R, pi, theta, beta, q_norm, s_q, log2_points=log2_points,
                           n_scrambles=n_scrambles, seed=seed)
    res = SE.solve_with_error(law, alpha1, lam, loss, quad_tol=1e-7, x_quad_tol=1e-6)
    out = {"q_norm": q_norm, "s_q": s_q}
    out.update(SE.report(res))
    return out
