"""Paper B, Figure 1: what slope a finite-M rate experiment should show, for a given K_M rule.

The ERM error is (notes §4, constants dropped) bias + variance with
    bias ~ K^{-2β}           (β-Hölder φ*; approximation by degree-s splines, s >= β)
    variance ~ n / M         (n = K + s spline coefficients, least squares)
and the experiment reports the local log–log slope d log E / d log M.

1. ``SCHEDULE_N``: our schedule n_M = c M^{1/(2β+1)} (no log M).  The variance term
   c M^{1/(2β+1)} / M has slope exactly -2β/(2β+1) for every M (``VAR_SLOPE_OURS``), and the
   bias term (c M^{1/(2β+1)})^{-2β} has the same exact slope: no pre-asymptotic slope error.
2. The paper's schedule K_M = (M / log M)^{1/(2β+1)}: with L = log M,
   variance slope  = -2β/(2β+1) - 1/((2β+1) L)   (``VAR_SLOPE_PAPER``)
   bias slope      = -2β/(2β+1) + 2β/((2β+1) L)  (``BIAS_SLOPE_PAPER``)
   — corrections of order 1/log M that do not vanish over any feasible M range: at M = 10^4,
   β = 2 they are -0.022 and +0.087, as large as the ±5 % (±0.04) a rate check must resolve.
   This is why the rate experiments use schedule 1 (docs/paper_b.md, "Rate experiments").
Pure SymPy.
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation

M, beta, c = sp.symbols("M beta c", positive=True)
L = sp.Symbol("L", positive=True)  # log M
t = sp.Symbol("t", real=True)  # t = log M as the variable of differentiation

EXPONENT = -2 * beta / (2 * beta + 1)
SCHEDULE_N = c * M ** (1 / (2 * beta + 1))


def local_slope(expr):
    """d log expr / d log M, with M = e^t, returned in terms of M and L = log M."""
    e = sp.expand_log(sp.log(expr.subs(M, sp.exp(t))), force=True)
    return sp.simplify(sp.diff(e, t).subs(t, L))


VAR_SLOPE_OURS = local_slope(SCHEDULE_N / M)
BIAS_SLOPE_OURS = local_slope(SCHEDULE_N ** (-2 * beta))
K_PAPER = (M / sp.log(M)) ** (1 / (2 * beta + 1))
VAR_SLOPE_PAPER = local_slope(K_PAPER / M)
BIAS_SLOPE_PAPER = local_slope(K_PAPER ** (-2 * beta))


def corrections():
    """(variance, bias) slope minus the exponent under the paper's schedule."""
    return (sp.simplify(VAR_SLOPE_PAPER - EXPONENT), sp.simplify(BIAS_SLOPE_PAPER - EXPONENT))


EQUATIONS = (
    Equation(
        "B.rate.schedule_slope",
        sp.Symbol(r"\frac{d\log(n_M/M)}{d\log M}"),
        VAR_SLOPE_OURS,
        "Paper B, Figure 1; schedule n_M = c M^{1/(2 beta+1)} ours",
        (beta,),
        "our schedule: the variance term has slope exactly -2beta/(2beta+1) at every M",
        status="derived",
    ),
    Equation(
        "B.rate.paper_schedule_variance_slope",
        sp.Symbol(r"\frac{d\log(K_M/M)}{d\log M}"),
        sp.simplify(VAR_SLOPE_PAPER),
        "Paper B, Theorem 3.1 schedule K_M = (M/log M)^{1/(2beta+1)}",
        (beta, L),
        "L = log M: a 1/log M slope correction of the variance term",
        status="derived",
    ),
    Equation(
        "B.rate.paper_schedule_bias_slope",
        sp.Symbol(r"\frac{d\log K_M^{-2\beta}}{d\log M}"),
        sp.simplify(BIAS_SLOPE_PAPER),
        "Paper B, Theorem 3.1 schedule K_M = (M/log M)^{1/(2beta+1)}",
        (beta, L),
        "L = log M: a 1/log M slope correction of the bias term",
        status="derived",
    ),
)
