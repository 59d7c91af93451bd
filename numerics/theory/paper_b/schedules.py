"""Paper B, rates under explicit schedules: the Hölder-edge exponents
(``derivations.paper_b.holder_edge``) and the variance slope of a schedule
(``derivations.paper_b.rate_schedule.variance_slope_schedule``), compiled; and the lacunary
link phi* compiled to numpy for the experiment (an input, not a derived step).
No cache: the derivation builders are cached per active mutant set, the compiled code per expression.
"""
from __future__ import annotations

import sympy as sp

from derivations.paper_b import holder_edge as H
from derivations.paper_b import rate_exponent as RE
from derivations.paper_b import rate_schedule as RS
from numerics.core.backends import NUMPY, mp_eval



def lacunary_link(J: int, beta: float):
    """The SymPy phi*(u) = sum_{k<=J} b^{-k beta} cos(b^k pi u), compiled to numpy."""
    return NUMPY.compile(H.lacunary_link(J, beta), (H.u,), raw=True)


def bias_exponent(beta, s: int, dps: int = 30) -> float:
    """gamma: squared bias ~ K^{-gamma} (2 beta for the lacunary link)."""
    return float(mp_eval(H.bias_exponent(), {H.beta: beta, H.s: s}, dps))


def bias_slope(beta, s: int, dps: int = 30) -> float:
    """-gamma: the slope of log bias^2 on log K."""
    return float(mp_eval(H.bias_slope(), {H.beta: beta, H.s: s}, dps))


def minimax_exponent(beta, dps: int = 30) -> float:
    """-2 beta/(2 beta + 1) of ``rate_exponent`` (for comparison in the details)."""
    return float(mp_eval(RE.exponent(), {RE.beta: beta}, dps))


def holder_exponent(beta, s: int, dps: int = 30) -> float:
    """The rate exponent of the balance with the derived bias exponent, -gamma/(gamma+1)."""
    return float(mp_eval(H.exponent(), {H.beta: beta, H.s: s}, dps))


def schedule_exponent(beta, s: int, dps: int = 30) -> float:
    """a* = 1/(gamma + 1): the optimal K_M ∝ M^{a*}."""
    return float(mp_eval(H.schedule_exponent(), {H.beta: beta, H.s: s}, dps))


def schedule_slope(beta, s: int, a, dps: int = 30) -> float:
    """Asymptotic slope under K = c M^a: max(-a gamma, a - 1)."""
    return float(mp_eval(H.schedule_slope(), {H.beta: beta, H.s: s, H.a: a}, dps))


def schedule_bound():
    """(M, a, gamma) -> K^{-gamma} + K/M at K = M^a: the input terms of step 4
    (``holder_edge.SCHEDULE_TERMS``, not a derived step), compiled to numpy."""
    expr = sp.Add(*H.SCHEDULE_TERMS).subs(H.K, H.M ** H.a)
    return NUMPY.compile(expr, (H.M, H.a, H.GAMMA), raw=True)


def variance_slope(a, beta, log_M, dps: int = 30) -> float:
    """Slope of the variance term under n_M = c M^a (phi* in the estimator's space), at
    log M = ``log_M`` (only a log-M mutant of the step depends on it), beta for the mutant that
    reads the slope as the exponent."""
    expr = RS.variance_slope_schedule()
    vals = {RS.a: a, RE.beta: beta, RS.L: log_M}
    return float(mp_eval(expr, {k: v for k, v in vals.items() if k in expr.free_symbols}, dps))


