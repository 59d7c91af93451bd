"""Paper B, Theorem 3.1 (upper bound): the bias–variance balance behind M^{-2β/(2β+1)}.

Error bound of the ERM over piecewise polynomials with K pieces times rank-r matrices
(constants dropped):

    B(K; M) = K^{-2β}  +  K log M / M  +  r d log M / M
              (approximation) (φ-variance)   (A-variance, parametric)

The bound itself (``B_NP``, ``PARAMETRIC``) and the paper's schedule ``K_M`` are the inputs;
the analysis is a chain of named steps (``step`` names in brackets):

1. [``B.rate.stationarity``] ∂_K [K^{-2β} + K L/M] = -2β K^{-2β-1} + L/M;
   [``B.rate.K_star``] its zero K* = (2β M / log M)^{1/(2β+1)}.
2. [``B.rate.B_star``] at the stationary point L/M = 2β K^{-2β-1}, so K L/M = 2β K^{-2β} and
   B_np(K*) = (1 + 2β) K*^{-2β} = (1 + 2β) (2β)^{-2β/(2β+1)} (M / log M)^{-2β/(2β+1)}.
3. [``B.rate.exponent``] lim_{M→∞} log B_np(K*) / log M = -2β/(2β+1) (SymPy limit with
   M = e^t and L = t in every occurrence; the log M factor only changes the rate by a power of
   log M).
4. The paper's scaling K_M = (M / log M)^{1/(2β+1)} (no constant) balances the two
   nonparametric terms exactly (``balance_residual`` = 0); each equals K_M^{-2β}.
5. [``B.rate.threshold``] the parametric term is at most the nonparametric one,
   r d log M / M <= K_M^{-2β}  ⇔  r d <= (M / log M)^{1/(2β+1)} = K_M
   — i.e. the matrix part has no more parameters (~ r d) than the spline part (~ K_M).
   With the optimal constant of step 2 the threshold is (1+2β)(2β)^{-2β/(2β+1)}
   (M/log M)^{1/(2β+1)}: the same power, a different constant (``threshold_optimal``).

Throughout, L stands for log M (M > 1).
Pure SymPy; docs: docs/paper_b.md, "B.rate.exponent".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, step
from derivations.paper_b import asymptotics

K, M, beta, rd = sp.symbols("K M beta rd", positive=True)
#: L stands for log M (M > 1, so L > 0); keeping it a positive symbol avoids |log M| branches.
L = sp.Symbol("L", positive=True)

#: the degree of the B-spline phi* and of the estimator's pieces
P = sp.Symbol("P", positive=True, integer=True)


@derivation
def smoothness_index() -> sp.Expr:
    """The smoothness index beta of a B-spline of degree P in the rate (the convention of the
    Paper B figures: beta = P - 1, so that P = 3 gives the exponent -0.8)."""
    return step("B.rate.smoothness_index", P - 1)


mutant("B.rate.smoothness_index:degree", "B.rate.smoothness_index",
       "smoothness index taken as the degree P instead of P - 1", lambda e: e + 1)

#: the inputs: the bound of Theorem 3.1 (constants dropped) and the paper's schedule
B_NP = K ** (-2 * beta) + K * L / M
PARAMETRIC = rd * L / M
K_M = (M / L) ** (1 / (2 * beta + 1))


# --- step 1: the stationary point --------------------------------------------------------------
@derivation
def stationarity():
    return step("B.rate.stationarity", sp.powsimp(sp.diff(B_NP, K), force=True))


mutant("B.rate.stationarity:power", "B.rate.stationarity",
       "derivative of K^{-2 beta} with the power not lowered: -2 beta K^{-2 beta}",
       lambda e: e.subs(K ** (-2 * beta - 1), K ** (-2 * beta)))


@derivation
def stationary_K():
    """The positive zero in K of step 1's derivative (not itself a step)."""
    sols = [s for s in sp.solve(sp.Eq(stationarity(), 0), K) if s.is_positive]
    if len(sols) != 1:
        raise ValueError(f"expected one positive stationary point, got {sols}")
    return sp.simplify(sols[0])


@derivation
def optimal_K():
    return step("B.rate.K_star", stationary_K())


# --- step 2: the value at K* ---------------------------------------------------------------------
@derivation
def b_star():
    """B_np(K*) = (1 + 2β) K*^{-2β}: L/M from the stationarity equation, then K at the zero of
    step 1 (taken from step 1, so that step 2's value and K*'s are judged apart)."""
    (ratio,) = sp.solve(sp.Eq(stationarity(), 0), L)  # L at the stationary point, given K

    at_stationary = sp.factor(sp.expand(B_NP.subs(L, ratio)))
    return step("B.rate.B_star", sp.powsimp(at_stationary.subs(K, stationary_K()), force=True))


def b_star_direct():
    """B_np at K* by direct substitution (an independent route to step 2's value)."""
    return sp.simplify(B_NP.subs(K, optimal_K()))


def closed_form_residual():
    """B_np(K*) / step 2's value - 1 (0 when step 2 is right); checked at exact points."""
    return sp.simplify(b_star_direct() / b_star() - 1)


# --- step 3: the exponent ------------------------------------------------------------------------
_T = sp.Symbol("t", positive=True)  # log M as the limit variable
#: numeric points at which the asymptotic step is re-taken (asymptotics.check)
SAMPLES = {beta: ("1/4", "3/4", 2, "7/2")}


@derivation
def exponent():
    """lim log B_np(K*) / log M as M -> oo: M = e^t and L = log M = t everywhere, t -> oo."""
    logB = sp.expand_log(sp.log(b_star().subs({M: sp.exp(_T), L: _T})), force=True)
    return step("B.rate.exponent", asymptotics.limit("B.rate.exponent", logB / _T, _T, sp.oo, SAMPLES))


mutant("B.rate.exponent:beta/(beta+1)", "B.rate.exponent",
       "rate exponent -beta/(beta+1) (2 beta/(2 beta + 1) with beta in place of 2 beta)",
       lambda e: e.subs(beta, beta / 2))
mutant("B.rate.exponent:beta-1/2", "B.rate.exponent",
       "rate exponent with beta - 1/2 in place of beta (smoothness index off by 1/2)",
       lambda e: e.subs(beta, beta - sp.Rational(1, 2)))


# --- steps 4-5: the paper's schedule and the threshold ---------------------------------------
def balance_residual():
    """K_M^{-2β} - K_M log M / M: zero (the paper's K_M balances the two terms)."""
    return sp.simplify(sp.powsimp(K_M ** (-2 * beta) - K_M * L / M, force=True))


@derivation
def threshold():
    """The r d at which r d log M / M = K_M^{-2β}."""
    sol = sp.solve(sp.Eq(PARAMETRIC, K_M ** (-2 * beta)), rd)
    return step("B.rate.threshold", sp.simplify(sp.powsimp(sol[0], force=True)))


mutant("B.rate.threshold:no_log", "B.rate.threshold",
       "parametric term r d / M (the log M factor dropped): threshold (M/log M)^{1/(2b+1)} log M",
       lambda e: e * L)


def threshold_optimal():
    """The r d at which r d log M / M = B_np(K*) (optimal constant)."""
    sol = sp.solve(sp.Eq(PARAMETRIC, b_star()), rd)
    return sp.simplify(sol[0])


def equations():
    return (
        Equation(
            "B.rate.K_star",
            sp.Symbol("K^*_M"),
            optimal_K().subs(L, sp.log(M)),
            "Paper B, Theorem 3.1; balancing ours",
            (beta, M),
            "minimiser of K^{-2 beta} + K log M / M",
            status="derived",
        ),
        Equation(
            "B.rate.exponent",
            sp.Symbol(r"\lim_{M\to\infty}\frac{\log B(K^*_M)}{\log M}"),
            exponent(),
            "Paper B, Theorem 3.1",
            (beta,),
            "the minimax exponent -2 beta/(2 beta + 1)",
            status="paper",
        ),
        Equation(
            "B.rate.threshold",
            sp.Symbol(r"(rd)_{\max}"),
            threshold().subs(L, sp.log(M)),
            "Paper B, Theorem 3.1 condition",
            (M, beta),
            "parametric term r d log M / M dominated iff r d <= (M/log M)^{1/(2 beta+1)}",
            status="paper",
        ),
    )
