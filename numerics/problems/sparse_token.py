"""``attncheck solve sparse-token``: the step-4 equations of Paper A (Theorems 4-5).

Options: --model attention|pool|vec, --loss logistic|square.  Parameters: alpha1, lam, L, R,
pi, theta, beta; for attention either a fixed query (q_norm, s_q) or, with alpha0 > 0, the
whole protocol: (||q^(2)||, s_q) from the Theorem-3 limits with (alpha0, eta_w, eta_b, eta_q)
and the same loss in steps 1-3.  QMC controls: log2_points, n_scrambles, qmc_seed.  The result
has converged/status/iterations/residual, the order parameters (w1, m, b, V, Q), test_error,
train_loss, train_error, and for attention the randomized-QMC standard errors (*_qmc_se).
Linear models: the float64 solution is polished in mpmath to --dps digits with the exact
SymPy Jacobian (numerics/erm_polish.py); values are then decimal strings with dps digits, and
the float64 solution's distance to the polished one is reported.
docs/paper_a_after_training.md.
"""
from __future__ import annotations

import mpmath

from numerics.theory.paper_a import erm_equations as SE
from numerics.core.params import (ALPHA1, BETA, ETA_B, ETA_Q, ETA_W, LAMBDA, L, PI, R, THETA, Param,
                             ParamSpace, r_le_l)
from numerics.problems.base import ProblemSpec

Q_NORM = Param("q_norm", float, 0.0, None, doc="||q|| of the fixed query (attention)", default=2.0)
S_Q = Param("s_q", float, -1.0, 1.0, doc="cos(q, xi) of the fixed query (attention)", default=0.5)
ALPHA0_OPT = Param("alpha0", float, 0.0, None,
                   doc="0: use (q_norm, s_q); > 0: q from the Theorem-3 limits of steps 1-3", default=0.0)
LOG2 = Param("log2_points", int, 6, 16, doc="QMC points per class per scrambling = 2^log2_points", default=11)
NSCR = Param("n_scrambles", int, 2, 64, doc="independent Sobol scramblings (QMC error estimate)", default=8)
QSEED = Param("qmc_seed", int, 0, None, doc="seed of the Sobol scramblings", default=0)

SPACE = ParamSpace((
    ALPHA1.with_default(2.0), LAMBDA.with_default(1e-5), L.with_default(10), R.with_default(1),
    PI.with_default(0.5), THETA.with_default(5.0), BETA.with_default(1.0), Q_NORM, S_Q, ALPHA0_OPT,
    ETA_W.with_default(0.5), ETA_B.with_default(0.5), ETA_Q.with_default(0.5), LOG2, NSCR, QSEED,
), (r_le_l,))


def _solve(options: dict, p: dict, dps: int) -> dict:
    model = options.get("model", "attention")
    loss = options.get("loss", "logistic")
    if model == "attention":
        if p["alpha0"] > 0:
            from numerics.theory.paper_a.protocol import predict

            return predict(alpha0=p["alpha0"], alpha1=p["alpha1"], loss_steps=loss, loss=loss,
                           eta_w=p["eta_w"], eta_b=p["eta_b"], eta_q=p["eta_q"], beta=p["beta"],
                           lam=p["lam"], L=p["L"], R=p["R"], pi=p["pi"], theta=p["theta"],
                           log2_points=p["log2_points"], n_scrambles=p["n_scrambles"], seed=p["qmc_seed"])
        law = SE.attention_law(p["L"], p["R"], p["pi"], p["theta"], p["beta"], p["q_norm"], p["s_q"],
                               log2_points=p["log2_points"], n_scrambles=p["n_scrambles"], seed=p["qmc_seed"])
        res = SE.solve_with_error(law, p["alpha1"], p["lam"], loss, n_gh=16)
        out = res.as_dict()
        out["precision"] = ("float64; the attention expectations are randomized QMC (*_qmc_se), "
                            "so --dps does not apply")
        return out
    law = SE.linear_law(model, p["L"], p["R"], p["pi"], p["theta"])
    res = SE.solve(law, p["alpha1"], p["lam"], loss, n_gh=24)
    out = res.as_dict()
    if not res.converged:
        return out
    # polish in mpmath with the exact Jacobian (numerics/erm_polish.py); report its own status
    from numerics.theory.paper_a.erm_polish import polish

    pol = polish(model, p["L"], p["R"], p["pi"], p["theta"], p["alpha1"], p["lam"], loss, res.x, dps)
    out = {"converged": pol.converged,
           "status": f"float64: {res.status} (residual {res.residual:.1e}); mpmath: {pol.status}",
           "iterations": res.iterations + pol.iterations, "residual": float(pol.residual)}
    if pol.converged:
        for k, v in pol.as_dict().items():
            if not k.startswith("polish_"):
                out[k] = mpmath.nstr(v, dps)
        out["quadrature_error"] = float(pol.quad_error)
        out["float64_minus_mpmath_max"] = float(max(abs(float(res.x[k]) - pol.x[k]) for k in range(5)))
    return out


PROBLEMS = {
    "sparse-token": ProblemSpec(
        name="sparse-token",
        doc="Paper A step 4: self-consistent equations of ridge ERM (Thm 4-5)",
        param_space=SPACE, solve=_solve,
        options={"model": SE.MODELS, "loss": SE.LOSSES},
    )
}
