"""Paper B, Theorem 3.1 at the edge of the Hölder class: a lacunary φ*, its approximation
exponent, the rate and what other schedules give.

Input: the lacunary (Weierstrass-type) link, truncated at J terms (``lacunary_link``),

    φ*(u) = Σ_{k=0}^{J} b^{-kβ} cos(b^k π u),      b = 2, 0 < β < 1,

β-Hölder and nowhere smoother (Hardy): every scale carries its share b^{-kβ}, so no
piecewise polynomial space "catches up" with φ* as it does with a spline.  The analysis is a
chain of named steps:

1. [``B.holder.bias``] squared L² error of the best degree-s piecewise polynomial with K = b^j
   equal pieces: a term of frequency b^k below the cell scale (k < j) is fitted to the order of
   the Taylor remainder, (b^{k-j})^{2(s+1)} b^{-2kβ}; a term above it (k >= j) is not resolved,
   its whole mass b^{-2kβ} (times ½) stays.  Both are geometric sums (ratios b^{2δ} > 1 with
   δ = s + 1 − β > 0, and b^{-2β} < 1):
       bias²(j) ≍ b^{-2j(β+δ)} (b^{2δj} − 1)/(b^{2δ} − 1) + b^{-2jβ}/(1 − b^{-2β}).
2. [``B.holder.bias_exponent``] γ = −lim_{j→∞} log bias²(j) / log b^j = 2β, by dominant
   balance of the explicit sums (``asymptotics.leading_exponent``): [``B.holder.bias_leading
   .terms``] bias² = Σ_i c_i K^{e_i} with exponents −2(s+1) (Taylor part) and −2β (the
   resolved scales' top term and the unresolved tail, merged); [``B.holder.bias_leading
   .order``] the exponents ordered by the sign of their differences under β > 0,
   δ = s + 1 − β > 0, b > 1 (−2β − (−2(s+1)) = 2δ > 0), so the slowest is −2β: the squared
   bias decays like K^{-2β}, the edge of the class (for any estimator degree s > β − 1).
   The step is re-taken at numeric (β, s, b) by ``asymptotics.check``;
   [``B.holder.bias_slope``] −γ, the slope of log bias² on log K.
3. [``B.holder.K_star``] the balance K^{-γ} + K log M / M: K* = (γ M / log M)^{1/(γ+1)};
   [``B.holder.schedule_exponent``] a* = lim log K* / log M = 1/(γ+1) = 1/(2β+1);
   [``B.holder.exponent``] lim log B(K*) / log M = −γ/(γ+1) = −2β/(2β+1).
4. [``B.holder.schedule_slope``] for a schedule K = c M^a the two terms decay like M^{-aγ} and
   M^{a-1}; the error's asymptotic log–log slope is the slower one, max(−aγ, a − 1), which is
   > −γ/(γ+1) for every a ≠ a*: fixed K (a = 0) gives 0, K ∝ M^{1/2} gives −1/2.

Remark (``kink_cell_error``): a single kink |u − u0|^β is *not* at the edge in L²: only the
cell containing u0 keeps an O(1) relative error, its squared L² error is
h^{2β+1} · e_s(β) (h the cell width, e_s the error of the best degree-s polynomial fit of
|t|^β on [−1, 1] with the scaling (h/2)^{2β+1}), so bias² ∝ K^{-(2β+1)} and the rate would be
−(2β+1)/(2β+2) — the Besov B^{β+1/2}_{2,∞} rate, not the Hölder one.

Pure SymPy; docs: docs/paper_b.md, "B.rate.holder_edge".
"""
from __future__ import annotations

import functools

import sympy as sp

from derivations.core import Equation, derivation, mutant, step
from derivations.paper_b import asymptotics

beta, b = sp.symbols("beta b", positive=True)
s = sp.Symbol("s", integer=True, nonnegative=True)  # degree of the estimator's pieces
K, M, a = sp.symbols("K M a", positive=True)
u = sp.Symbol("u", real=True)
L = sp.Symbol("L", positive=True)  # log M
j = sp.Symbol("j", integer=True, positive=True)  # K = b^j
_k = sp.Symbol("k", integer=True, nonnegative=True)
_x = sp.Symbol("x", positive=True)
_t = sp.Symbol("t", positive=True)

#: the experiment's lacunarity
B_LACUNARITY = 2


def lacunary_link(J: int, beta_value, b_value=B_LACUNARITY):
    """φ*(u) = Σ_{k=0}^{J} b^{-kβ} cos(b^k π u) (the input; exact coefficients)."""
    bv, bt = sp.nsimplify(b_value), sp.nsimplify(beta_value)
    return sp.Add(*[bv ** (-k * bt) * sp.cos(bv ** k * sp.pi * u) for k in range(J + 1)])


def _geometric(ratio, last):
    """Σ_{k=0}^{last} ratio^k in closed form (the non-degenerate branch: ratio ≠ 1, and
    ratio < 1 for last = oo)."""
    S = sp.summation(_x ** _k, (_k, 0, last))
    if isinstance(S, sp.Piecewise):
        S = next(p.expr for p in S.args if not isinstance(p.expr, sp.Sum) and not isinstance(p.cond, sp.Eq))
    return S.subs(_x, ratio)


# --- steps 1-2: the approximation error ---------------------------------------------------
@derivation
def bias():
    """Squared L² error at K = b^j pieces, in terms of j (step 1)."""
    delta = s + 1 - beta
    low = b ** (-2 * j * (beta + delta)) * _geometric(b ** (2 * delta), j - 1)  # k < j: Taylor
    high = b ** (-2 * beta * j) * _geometric(b ** (-2 * beta), sp.oo)  # k >= j: unresolved
    return step("B.holder.bias", low + high)


#: the assumptions under which the exponents are compared: beta > 0, delta = s + 1 - beta > 0
#: (the estimator's order exceeds the smoothness), b > 1 (so K = b^j grows with j)
_delta, _eps = sp.symbols("delta epsilon", positive=True)
ASSUME = {s: beta - 1 + _delta, b: 1 + _eps}
#: numeric points at which every asymptotic step is re-taken (0 < beta < 1, s + 1 > beta)
SAMPLES = {beta: ("1/4", "1/2", "3/4", "9/10"), s: (0, 2, 2, 1), b: (2, 2, 2, 3),
           a: (0, "1/3", "1/2", 1), sp.Symbol("c", positive=True): (1, 3, "1/2", 2)}


@derivation
def bias_exponent():
    """γ = −lim_{j→∞} log bias²(j) / log b^j by dominant balance (step 2): bias² is an explicit
    sum of powers of K = b^j; its slowest-decaying term, found by comparing the exponents as
    SymPy expressions under ``ASSUME``, gives γ (for b > 1, s + 1 > β)."""
    lead = asymptotics.leading_exponent("B.holder.bias_leading", bias(), j, b, ASSUME, SAMPLES)
    return step("B.holder.bias_exponent", sp.simplify(-lead))


mutant("B.holder.bias:tail_unsquared", "B.holder.bias",
       "the unresolved scales k >= j keep mass b^{-k beta} (the L2 norm, not its square)",
       lambda e: e.subs(b ** (-2 * beta * j), b ** (-beta * j)))
mutant("B.holder.bias_leading.order:fastest", "B.holder.bias_leading.order",
       "dominant balance keeps the fastest-decaying term (the comparison of exponents reversed)",
       lambda order: tuple(reversed(order)))
mutant("B.holder.bias_leading.terms:taylor_only", "B.holder.bias_leading.terms",
       "only the Taylor part of the resolved scales kept: the terms of exponent -2 beta dropped",
       lambda terms: tuple(t for t in terms if sp.expand(t[0] + 2 * beta) != 0))


mutant("B.holder.bias_exponent:kink", "B.holder.bias_exponent",
       "bias exponent of an isolated kink, 2 beta + 1 (one cell of width h keeps its error)",
       lambda e: e + 1)
mutant("B.holder.bias_exponent:not_squared", "B.holder.bias_exponent",
       "bias exponent of the L2 norm, not of its square: K^{-beta} against the variance K/M",
       lambda e: e / 2)
mutant("B.holder.bias_exponent:spline_order", "B.holder.bias_exponent",
       "bias exponent 2(s+1) of a smooth phi* (the estimator's order, not phi*'s smoothness)",
       lambda e: 2 * (s + 1))


@derivation
def bias_slope():
    """d log bias² / d log K = −γ: what a fit of the bias against K measures."""
    return step("B.holder.bias_slope", -bias_exponent())


# --- step 3: the balance ---------------------------------------------------------------------
def bound():
    """K^{-γ} + K log M / M with the derived γ."""
    return K ** (-bias_exponent()) + K * L / M


@derivation
def optimal_K():
    d = sp.powsimp(sp.diff(bound(), K), force=True)
    sols = [x for x in sp.solve(sp.Eq(d, 0), K) if x.is_positive is not False]
    if len(sols) != 1:
        raise ValueError(f"expected one positive stationary point, got {sols}")
    return step("B.holder.K_star", sp.simplify(sols[0]))


def _limit_in_log_M(name, expr):
    """lim_{M→∞} log expr / log M with M = e^t and L = log M = t (an asymptotic step)."""
    e = sp.expand_log(sp.log(expr.subs({M: sp.exp(_t), L: _t})), force=True)
    return asymptotics.limit(name, e / _t, _t, sp.oo, SAMPLES)


@derivation
def schedule_exponent():
    return step("B.holder.schedule_exponent", _limit_in_log_M("B.holder.schedule_exponent", optimal_K()))


@derivation
def exponent():
    at_star = sp.powsimp(bound().subs(K, optimal_K()), force=True)
    return step("B.holder.exponent", _limit_in_log_M("B.holder.exponent", at_star))


# --- step 4: other schedules ----------------------------------------------------------------
#: the input of step 4: the two terms of the bound for a bias exponent gamma, without the log M
#: of the variance (it moves no exponent)
GAMMA = sp.Symbol("gamma", positive=True)
SCHEDULE_TERMS = (K ** (-GAMMA), K / M)


@derivation
def schedule_slope():
    """Asymptotic slope of K^{-γ} + K/M under K = c M^a: the slower of the two terms."""
    c = sp.Symbol("c", positive=True)
    terms = [t.subs({GAMMA: bias_exponent(), K: c * M ** a}) for t in SCHEDULE_TERMS]
    slopes = [_limit_in_log_M(f"B.holder.schedule_slope.term{n}", t) for n, t in enumerate(terms)]
    return step("B.holder.schedule_slope", sp.Max(*slopes))


# --- remark: a single kink ------------------------------------------------------------------
def legendre_moment(n: int):
    """∫_{-1}^{1} |t|^β P_n(t) dt for even n: 2 ∫_0^1 t^β P_n = 2 β(β−2)⋯(β−n+2) /
    [(β+1)(β+3)⋯(β+n+1)] (the Mellin transform of P_n on [0, 1]; a product, so it keeps its
    digits where the power-basis sum Σ_k c_{n,k}/(β+k+1) cancels)."""
    num = sp.Mul(*(beta - 2 * j for j in range(n // 2)))
    den = sp.Mul(*(beta + 1 + 2 * j for j in range(n // 2 + 1)))
    return 2 * num / den


@functools.lru_cache(maxsize=None)
def kink_cell_error(s_value: int):
    """e_s(β) = min_p ∫_{-1}^{1} (|t|^β − p(t))² dt over polynomials p of degree s (Legendre
    projection, even degrees only since |t|^β is even); the cell of width h around the kink
    then has squared error (h/2)^{2β+1} e_s(β) (substitute u − u0 = h t / 2).  The sum
    2/(2β+1) − Σ_{n ≤ s even} (2n+1)/2 · moment_n², factored (it vanishes at β = 2, 4, ... <= s,
    where |t|^β is a polynomial of degree <= s; no step of the chain: cached by s alone)."""
    total = 2 / (2 * beta + 1)  # ∫ |t|^{2β}
    for n in range(0, s_value + 1, 2):
        total -= sp.Rational(2 * n + 1, 2) * legendre_moment(n) ** 2
    return sp.factor(sp.together(total))


#: e_s(β) of the remark as a symbol in the limit: positive, and constant in h
_E = sp.Symbol("e_s", positive=True)


def kink_bias_exponent():
    """lim_{h→0} log[(h/2)^{2β+1} e_s(β)] / log h = 2β + 1: the kink's squared bias ∝ h^{2β+1},
    i.e. K^{−(2β+1)} with K = 2/h.  The limit is taken with e_s(β) (``kink_cell_error``) as a
    positive constant e_s: it does not depend on h, and it is positive unless |t|^β is itself a
    polynomial of degree at most s (β an even integer <= s), where the cell has no error at all.
    (With e_s written out, SymPy's limit takes minutes at s = 11.)"""
    h = sp.Symbol("h", positive=True)
    cell = (h / 2) ** (2 * beta + 1) * _E
    return asymptotics.limit("B.holder.kink_exponent", sp.expand_log(sp.log(cell), force=True) / sp.log(h), h, 0,
                             {**SAMPLES, _E: ("1/10", "1/1000", "7/3", "2")})


def equations():
    return (
        Equation(
            "B.holder.bias_exponent",
            sp.Symbol(r"\gamma"),
            bias_exponent(),
            "Paper B, Theorem 3.1 (approximation term); lacunary phi* ours",
            (beta,),
            "squared L2 bias of K-piece polynomials for the lacunary phi*: K^{-gamma}",
            status="derived",
        ),
        Equation(
            "B.holder.exponent",
            sp.Symbol(r"\lim_{M\to\infty}\frac{\log B(K^*_M)}{\log M}"),
            exponent(),
            "Paper B, Theorem 3.1",
            (beta,),
            "rate exponent with the derived bias exponent: -2 beta/(2 beta + 1)",
            status="paper",
        ),
        Equation(
            "B.holder.schedule_slope",
            sp.Symbol(r"s(a)"),
            schedule_slope(),
            "ours",
            (beta, a),
            "asymptotic slope under K = c M^a: max(-a gamma, a - 1)",
            status="derived",
        ),
    )
