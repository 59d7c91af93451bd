"""The mpmath polish of the step-4 equations (numerics/erm_polish.py): the generic implicit-
prox channel against the exact square-loss one, the polished square-loss solution against the
SymPy closed form, and the logistic solution against itself at two precisions and against the
float64 solver as its Gauss–Hermite rule is refined (an independent quadrature)."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from derivations.paper_a import erm_equations as E
from numerics.theory.paper_a import erm_equations as SE
from numerics.theory.paper_a.erm_polish import polish


def test_generic_channel_equals_the_exact_square_loss_channel():
    assert E.channel_square_check() == sp.zeros(5, 6)


def test_square_loss_polish_matches_the_closed_form():
    law = SE.linear_law("pool", 10, 1, 0.5, 5.0)
    r = SE.solve(law, 3.0, 1e-3, "square")
    p = polish("pool", 10, 1, 0.5, 5.0, 3.0, 1e-3, "square", r.x, 30)
    assert p.converged and p.residual < mpmath.mpf(10) ** -33
    sol = E.two_point_solution()
    sub = {E.mu_s: E.POOL_MU, E.s2: E.POOL_S2}
    vals = {E.theta: 5, E.R: 1, E.L: 10, E.pi_: sp.Rational(1, 2), E.alpha: 3, E.lam: sp.Rational(1, 1000)}
    with mpmath.workdps(40):
        for name, idx in (("m", 1), ("b", 2), ("V", 3), ("Q", 4)):
            exact = mpmath.mpf(str(sp.N(sol[name].subs(sub).subs(vals), 35)))
            assert abs(p.x[idx] - exact) <= mpmath.mpf(10) ** -30 * (1 + abs(exact)), name
        exact_test = mpmath.mpf(str(sp.N(sol["test_error"].subs(sub).subs(vals), 35)))
        assert abs(p.metrics["test_error"] - exact_test) <= mpmath.mpf(10) ** -30


def test_logistic_polish_digits_and_float64_convergence():
    law = SE.linear_law("vec", 10, 1, 0.5, 5.0)
    r = SE.solve(law, 30.0, 1e-2, "logistic")
    args = ("vec", 10, 1, 0.5, 5.0, 30.0, 1e-2, "logistic", r.x)
    p20, p28 = polish(*args, 20), polish(*args, 28)
    assert p20.converged and p28.converged
    with mpmath.workdps(40):
        for u, v in zip(p20.x, p28.x):
            assert abs(u - v) <= mpmath.mpf(10) ** -20 * (1 + abs(v))  # all 20 asked digits
    # the float64 solver approaches the polished solution as its Gauss–Hermite rule grows
    # (measured: 1.3e-3 at the default 24 nodes, 2e-5 at 48, 1e-8 at 96, 1.9e-9 at 128)
    gaps = [max(abs(float(a) - float(b)) for a, b in zip(SE.solve(law, 30.0, 1e-2, "logistic", n_gh=n).x, p28.x))
            for n in (24, 128)]
    assert gaps[1] < 1e-8 and gaps[1] < gaps[0] * 1e-5, gaps
    assert 0 < p28.metrics["train_error"] < p28.metrics["test_error"] < 0.5


def test_polish_reports_non_convergence():
    law = SE.linear_law("vec", 10, 1, 0.5, 5.0)
    r = SE.solve(law, 30.0, 1e-2, "logistic")
    p = polish("vec", 10, 1, 0.5, 5.0, 30.0, 1e-2, "logistic", r.x, 20, max_iter=0)
    assert not p.converged and "did not reach" in p.status and "m" not in p.as_dict()
