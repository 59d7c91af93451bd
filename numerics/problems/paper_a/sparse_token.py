"""``attncheck solve sparse-token``: the step-4 equations of Paper A (Theorems 4-5).

Options: --model attention|pool|vec, --loss logistic|square.  Parameters: alpha1, lam, L, R,
pi, theta, beta; for attention either a fixed query (q_norm, s_q) or, with alpha0 > 0, the
whole protocol: (||q^(2)||, s_q) from the Theorem-3 limits with (alpha0, eta_w, eta_b, eta_q)
and the same loss in steps 1-3.  QMC controls: log2_points, n_scrambles, qmc_seed.  The result
is a ``Solution`` (status, iterations, residual) whose values are ``Value``s: the order
parameters (w1, m, b, V, Q), test_error, train_loss, train_error, for attention each with its
randomized-QMC standard error.  Linear models (no w1: their latent a is 0): the float64
solution is polished in mpmath to --dps digits with the same compiled equations and exact
Jacobian (numerics/theory/paper_a/erm_polish.py); the values then carry dps digits.  The
float64 solution's distance to the polished one is reported; if it exceeds the float64 error
estimate, the result is suspect (exit 1).
docs/paper_a_after_training.md.
"""
from __future__ import annotations

from numerics.core.params import Param, ParamSpace
from numerics.papers.paper_a.vocabulary import (ALPHA1, BETA, ETA_B, ETA_Q, ETA_W, LAMBDA, Q_NORM, S_Q, L, Loss,
                                                Model, PI, R, THETA)
from numerics.problems.base import ProblemSpec

ALPHA0_OPT = Param("alpha0", float, 0.0, None,
                   doc="0: use (q_norm, s_q); > 0: q from the Theorem-3 limits of steps 1-3", default=0.0)
LOG2 = Param("log2_points", int, 6, 16, doc="QMC points per class per scrambling = 2^log2_points", default=11)
NSCR = Param("n_scrambles", int, 2, 64, doc="independent Sobol scramblings (QMC error estimate)", default=8)
QSEED = Param("qmc_seed", int, 0, None, doc="seed of the Sobol scramblings", default=0)

SPACE = ParamSpace((
    ALPHA1.with_default(2.0), LAMBDA.with_default(1e-5), L.with_default(10), R.with_default(1),
    PI.with_default(0.5), THETA.with_default(5.0), BETA.with_default(1.0), Q_NORM.with_default(2.0),
    S_Q.with_default(0.5), ALPHA0_OPT,
    ETA_W.with_default(0.5), ETA_B.with_default(0.5), ETA_Q.with_default(0.5), LOG2, NSCR, QSEED,
))


#: the choices of --model and --loss: Paper A's names (``numerics.papers.paper_a.vocabulary``,
#: no SymPy, so that the problem is listed and a request refused without it); their values are
#: the names of the derivation objects (tests/test_resources.py checks that they agree)
MODELS = tuple(m.value for m in Model)
LOSSES = tuple(lo.value for lo in Loss)
DEFAULT_MODEL, DEFAULT_LOSS = Model.ATTENTION.value, Loss.LOGISTIC.value


def _cost(options: dict, p: dict):
    """Memory and time of a solve (numerics.core.resources): the QMC law and the equations on
    it; the linear models (two exact atoms) cost nothing to speak of."""
    from numerics.core.resources import NOTHING
    from numerics.theory.paper_a.costs import attention_solve_cost

    if not Model.of(options.get("model", DEFAULT_MODEL)).needs_query:
        return NOTHING
    return attention_solve_cost(p["L"], p["log2_points"], p["n_scrambles"], "solve sparse-token --model attention")


def _solve(options: dict, p: dict, dps: int):
    from dataclasses import replace

    from numerics.core.results import RESULTS, Solution
    from numerics.core.value import Value, values
    from numerics.theory.paper_a import erm_equations as erm_theory
    from numerics.theory.paper_a import models as M

    model = M.model(options.get("model", DEFAULT_MODEL))
    loss = M.loss(options.get("loss", DEFAULT_LOSS))
    if model.sees_q:  # the law is chosen here; the equations are the same for every model
        if p["alpha0"] > 0:
            from numerics.theory.paper_a.protocol import predict

            sol = predict(alpha0=p["alpha0"], alpha1=p["alpha1"], loss_steps=loss, loss=loss,
                          eta_w=p["eta_w"], eta_b=p["eta_b"], eta_q=p["eta_q"], beta=p["beta"],
                          lam=p["lam"], L=p["L"], R=p["R"], pi=p["pi"], theta=p["theta"],
                          log2_points=p["log2_points"], n_scrambles=p["n_scrambles"], seed=p["qmc_seed"])
        else:
            law = erm_theory.attention_law(p["L"], p["R"], p["pi"], p["theta"], p["beta"], p["q_norm"], p["s_q"],
                                           log2_points=p["log2_points"], n_scrambles=p["n_scrambles"],
                                           seed=p["qmc_seed"])
            sol = erm_theory.report(erm_theory.solve_with_error(law, p["alpha1"], p["lam"], loss, quad_tol=1e-7,
                                                                x_quad_tol=1e-6))
        return replace(sol, stats={**sol.stats, "precision": "float64; the attention expectations are randomized "
                                                             "QMC (*_qmc_se), so --dps does not apply"})
    law = erm_theory.linear_law(model, p["L"], p["R"], p["pi"], p["theta"])
    res = erm_theory.solve(law, p["alpha1"], p["lam"], loss)
    if not res.ok:
        return erm_theory.report(res)
    # polish in mpmath: the same compiled equations at --dps digits; the two stages must agree
    from numerics.theory.paper_a.erm_polish import polish

    pol = polish(law, p["alpha1"], p["lam"], loss, res.raw, dps)
    message = (f"float64: {res.result.value} (correction {res.residual:.1e}, {res.stats['quad_nodes']} zeta "
               f"nodes); mpmath: {pol.result.value}" + (f" ({pol.message})" if pol.message else ""))
    iterations = res.iterations + pol.iterations
    if not pol.ok:
        return Solution(pol.result, iterations, float(pol.residual), {}, message)
    fp, f64 = pol.raw, res.raw
    gap = max(abs(float(f64.x[k]) - float(v)) / max(1.0, abs(float(v))) for k, v in fp.x.items())
    # the float64 stage's own error estimate: its quadrature change and its Newton correction
    expected = 100 * (res.stats["quad_change"] + res.residual) + 1e-9
    result = RESULTS.successful
    if gap > expected:
        result = RESULTS.suspect
        message += (f"; the float64 and mpmath solutions differ by {gap:.2g} (relative), more than the "
                    f"float64 error estimate {expected:.2g}")
    polished = {k: Value(v, None, "dps", dps) for k, v in {**fp.x, **fp.metrics}.items()}
    checks = values({"quadrature_error": float(pol.stats["quad_error"]), "float64_minus_mpmath_max": gap}, 15)
    return Solution(result, iterations, float(pol.residual), {**polished, **checks}, message)


PROBLEMS = {
    "sparse-token": ProblemSpec(
        name="sparse-token",
        doc="Paper A step 4: self-consistent equations of ridge ERM (Thm 4-5)",
        param_space=SPACE, solve=_solve, cost=_cost,
        options={"model": MODELS, "loss": LOSSES},
    )
}
