"""The mpmath polish of the ERM self-consistent equations (numerics/theory/paper_a/erm_polish.py):
the same compiled system as the float64 solver, against the SymPy closed form (square loss),
against itself at two precisions and against the float64 solver (logistic), and its typed
non-convergence."""
import mpmath
import sympy as sp

from derivations.paper_a import erm_equations as derived_erm
from numerics.theory.paper_a import erm_equations as erm_theory
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.erm_polish import polish


def test_square_loss_polish_matches_the_closed_form():
    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0)
    r = erm_theory.solve(law, 3.0, 1e-3, M.SQUARE)
    p = polish(law, 3.0, 1e-3, M.SQUARE, r.value, 30)
    assert p.ok and p.residual < 1e-31
    sol = derived_erm.two_point_solution()
    sub = {derived_erm.mu_s: derived_erm.linear_law(M.POOLED)["mu"], derived_erm.s2: derived_erm.linear_law(M.POOLED)["sigma2"]}
    vals = {derived_erm.theta: 5, derived_erm.R: 1, derived_erm.L: 10, derived_erm.pi_: sp.Rational(1, 2), derived_erm.alpha: 3, derived_erm.lam: sp.Rational(1, 1000)}
    with mpmath.workdps(40):
        for name in ("m", "b", "V", "Q"):
            exact = mpmath.mpf(str(sp.N(sol[name].subs(sub).subs(vals), 35)))
            assert abs(p.value.x[name] - exact) <= mpmath.mpf(10) ** -30 * (1 + abs(exact)), name
        exact_test = mpmath.mpf(str(sp.N(sol["test_error"].subs(sub).subs(vals), 35)))
        assert abs(p.value.metrics["test_error"] - exact_test) <= mpmath.mpf(10) ** -30


def test_logistic_polish_digits_and_float64_agreement():
    law = erm_theory.linear_law(M.VECTORISED, 10, 1, 0.5, 5.0)
    r = erm_theory.solve(law, 30.0, 1e-2, M.LOGISTIC)
    p16, p24 = (polish(law, 30.0, 1e-2, M.LOGISTIC, r.value, d) for d in (12, 20))
    assert p16.ok and p24.ok
    with mpmath.workdps(40):
        for k in p24.value.x:
            u, v = p16.value.x[k], p24.value.x[k]
            assert abs(u - v) <= mpmath.mpf(10) ** -12 * (1 + abs(v))  # all 12 asked digits
    # the float64 solution (trapezoid refined to 1e-9) agrees with the polished one
    gap = max(abs(float(r.value.x[k]) - float(v)) / max(1, abs(float(v))) for k, v in p24.value.x.items())
    assert gap < 1e-9, gap
    assert 0 < p24.value.metrics["train_error"] < p24.value.metrics["test_error"] < 0.5


def test_polish_reports_non_convergence():
    law = erm_theory.linear_law(M.VECTORISED, 10, 1, 0.5, 5.0)
    r = erm_theory.solve(law, 30.0, 1e-2, M.LOGISTIC)
    x0 = {k: v * 1.01 for k, v in r.value.x.items()}
    p = polish(law, 30.0, 1e-2, M.LOGISTIC, x0, 16, max_steps=0)
    assert not p.ok and p.raw is None and "mpmath Newton" in p.message
