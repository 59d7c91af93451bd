"""Paper B, Figure 1: what slope a finite-M rate experiment should show, for a given K_M rule.

The ERM error is (constants dropped) bias + variance with
    bias ~ K^{-2β}           (β-Hölder φ*; approximation by degree-s splines, s >= β)
    variance ~ n / M         (n = K + s spline coefficients, least squares)
and the experiment reports the local log–log slope d log E / d log M.  The exponent is
``rate_exponent.exponent()`` and the paper's schedule ``rate_exponent.K_M``.

1. ``schedule_n``: our schedule n_M = c M^{1/(2β+1)} (no log M).  The variance term
   c M^{1/(2β+1)} / M has slope exactly -2β/(2β+1) for every M (``var_slope_ours``), and the
   bias term (c M^{1/(2β+1)})^{-2β} has the same exact slope: no pre-asymptotic slope error.
2. The paper's schedule K_M = (M / log M)^{1/(2β+1)}: with L = log M,
   variance slope  = -2β/(2β+1) - 1/((2β+1) L)   (``var_slope_paper``)
   bias slope      = -2β/(2β+1) + 2β/((2β+1) L)  (``bias_slope_paper``)
   — corrections of order 1/log M that do not vanish over any feasible M range: at M = 10^4,
   β = 2 they are -0.022 and +0.087, as large as the ±5 % (±0.04) a rate check must resolve.
   This is why the rate experiments use schedule 1 (docs/paper_b.md, "Rate experiments").
3. [``B.rate.schedule.variance_slope``] a φ* inside the estimator's space (a spline whose knots
   the estimator's grid contains) has no bias, and the error is the variance term alone: under
   any schedule n_M = c M^a its slope is a − 1 (``variance_slope_schedule``), whatever β is.
   The slope of such an experiment tests the schedule, not the minimax exponent; only
   a = 1/(2β+1) gives −2β/(2β+1) (docs/paper_b.md, "B.rate.schedule_not_exponent").
Pure SymPy.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, step
from derivations.paper_b import rate_exponent as RE

M, beta = RE.M, RE.beta
c = sp.Symbol("c", positive=True)
L = RE.L  # log M
t = sp.Symbol("t", real=True)  # t = log M as the variable of differentiation
a = sp.Symbol("a", positive=True)  # schedule exponent n_M = c M^a


def schedule_n():
    """n_M = c M^{1/(2β+1)}: the spline dimension that balances bias and variance."""
    return c * M ** (1 / (2 * beta + 1))


def paper_K():
    """The paper's K_M with L = log M written out."""
    return RE.K_M.subs(L, sp.log(M))


def local_slope(expr):
    """d log expr / d log M, with M = e^t, returned in terms of M and L = log M."""
    e = sp.expand_log(sp.log(expr.subs(M, sp.exp(t))), force=True)
    return sp.simplify(sp.diff(e, t).subs(t, L))


def var_slope_ours():
    return local_slope(schedule_n() / M)


def bias_slope_ours():
    return local_slope(schedule_n() ** (-2 * beta))


def var_slope_paper():
    return local_slope(paper_K() / M)


def bias_slope_paper():
    return local_slope(paper_K() ** (-2 * beta))


@derivation
def variance_slope_schedule():
    """d log(n_M / M) / d log M under n_M = c M^a: the error's slope when the bias is zero."""
    return step("B.rate.schedule.variance_slope", local_slope(c * M ** a / M))


mutant("B.rate.schedule.variance_slope:exponent", "B.rate.schedule.variance_slope",
       "the slope read as the minimax exponent -2 beta/(2 beta+1), whatever the schedule",
       lambda e: RE.exponent())
mutant("B.rate.schedule.variance_slope:log", "B.rate.schedule.variance_slope",
       "variance n log M / M (the bound's log M kept): slope a - 1 + 1/log M",
       lambda e: e + 1 / L)


def corrections():
    """(variance, bias) slope minus the exponent under the paper's schedule."""
    theta = RE.exponent()
    return (sp.simplify(var_slope_paper() - theta), sp.simplify(bias_slope_paper() - theta))


def equations():
    return (
        Equation(
            "B.rate.schedule_slope",
            sp.Symbol(r"\frac{d\log(n_M/M)}{d\log M}"),
            var_slope_ours(),
            "Paper B, Figure 1; schedule n_M = c M^{1/(2 beta+1)} ours",
            (beta,),
            "our schedule: the variance term has slope exactly -2beta/(2beta+1) at every M",
            status="derived",
        ),
        Equation(
            "B.rate.paper_schedule_variance_slope",
            sp.Symbol(r"\frac{d\log(K_M/M)}{d\log M}"),
            var_slope_paper(),
            "Paper B, Theorem 3.1 schedule K_M = (M/log M)^{1/(2beta+1)}",
            (beta, L),
            "L = log M: a 1/log M slope correction of the variance term",
            status="derived",
        ),
        Equation(
            "B.rate.paper_schedule_bias_slope",
            sp.Symbol(r"\frac{d\log K_M^{-2\beta}}{d\log M}"),
            bias_slope_paper(),
            "Paper B, Theorem 3.1 schedule K_M = (M/log M)^{1/(2beta+1)}",
            (beta, L),
            "L = log M: a 1/log M slope correction of the bias term",
            status="derived",
        ),
    )


def schedule_equations():
    return (
        Equation(
            "B.rate.schedule.variance_slope",
            sp.Symbol(r"\frac{d\log(n_M/M)}{d\log M}"),
            variance_slope_schedule(),
            "ours (Paper B, Figure 1(b))",
            (a,),
            "phi* in the estimator's space: the slope under n_M = c M^a is a - 1, for any beta",
            status="derived",
        ),
    )
