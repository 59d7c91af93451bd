"""Paper A, Proposition 1 / Theorem 1: oracle errors of the linear baselines.

See docs/paper_a_representation.md, section "Linear baselines".  Every step is a named
expression; nothing here is copied from the notes without being re-derived.

Setting (paper's data model): the projection of a sample on the signal direction xi is
u = X xi in R^L, u = theta*v*1{y=+1} + g, g ~ N(0, I_L); everything orthogonal to xi is
pure noise, independent of (y, v), so it cannot help a linear rule (it only adds variance).

Pooled model.  The pooled feature X^T 1/L has the law N(theta R/L * xi * 1{y=+1}, I/L) for
*every* position law (v always has R ones).  The best linear rule of a Gaussian pair with a
common covariance is along the mean difference, i.e. along xi; rescaled by sqrt(L) its score
is t ~ N(0, 1) (y = -1) or N(S, 1) (y = +1), with S = theta R / sqrt(L).  A threshold c gives

    E(c) = (1 - pi) Phi(-c) + pi Phi(c - S)                                     (step 1)

and the optimal threshold solves dE/dc = 0 (SymPy ``solve``; step 2), c* = S/2 + kappa/S,
kappa = log((1 - pi)/pi), giving E*_pool (step 3).  Because the two classes are Gaussian with
a common covariance, this linear rule is also the Bayes rule on the pooled feature.

Vectorised model.  A linear rule <W, X> + b: the part of each row of W orthogonal to xi
adds noise only, so W = a xi^T with ||a|| = 1, and the score is theta a^T v + eps,
eps ~ N(0, 1), under y = +1 and eps under y = -1:

    E_vec(a, c) = (1 - pi) Phi(-c) + pi E_v[ Phi(c - theta a^T v) ].

*  Mean direction a = p/||p|| (p = E v, the marginal; uniform law p = R/L 1): a^T v = R/sqrt(L)
   deterministically, so E_vec = E*_pool(S) exactly.
*  k-sparse rules a = 1_K / sqrt(k), |K| = k, uniform law: m = |K cap positions| is
   hypergeometric(L, k, R), E_k(c) = (1 - pi) Phi(-c) + pi sum_m H(m) Phi(c - theta m/sqrt(k))
   (step 5).  k = L is the pooled rule; k < L can beat it at finite L when pi is small and
   theta is large (a strict finite-L gain, which vanishes as L -> infinity; see the bound).
*  Privileged law ("fixed" positions, ||p|| = sqrt(R), violating ||p|| <= C R / sqrt(L)):
   a = v0/sqrt(R) gives E*_pool with S replaced by theta sqrt(R): no sqrt(L) needed.
*  Lower bound for ANY linear rule and ANY position law with ||p|| <= C R / sqrt(L) (ours):
   for t > 0, {a^T v >= t} needs a position l in the set A = {a_l >= t/R}, |A| <= R^2/t^2,
   so P(a^T v >= t) <= sum_{l in A} p_l <= sqrt(|A|) ||p|| <= C R^2/(t sqrt(L)).  With
   tau = theta t:  P(theta a^T v >= tau) <= C R S / tau, and, eps independent,
   P(score < c) >= (1 - C R S/tau)_+ Phi(c - tau).  Hence

       E*_vec >= inf_c sup_{tau > 0} [(1 - pi) Phi(-c) + pi (1 - C R S / tau)_+ Phi(c - tau)]

   which is > 0 at every finite S and -> min(pi, 1 - pi) as S -> 0 (step 6).  So the
   vectorised error also vanishes only if S = theta R / sqrt(L) -> infinity (Theorem 1).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derivations.core import Equation

# --- symbols ---------------------------------------------------------------------------
theta = sp.Symbol("theta", positive=True)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
pi_ = sp.Symbol("pi", positive=True)
S = sp.Symbol("S", positive=True)          # SNR = theta R / sqrt(L)
c = sp.Symbol("c", real=True)              # threshold on the normalised score
tau = sp.Symbol("tau", positive=True)
C_p = sp.Symbol("C", positive=True)        # constant of ||p|| <= C R / sqrt(L)
m = sp.Symbol("m", integer=True, nonnegative=True)
k = sp.Symbol("k", positive=True, integer=True)

REF = "docs/paper_a_representation.md#linear-baselines"


def Phi(x):
    """Standard normal CDF, written with erfc so that evalf stays accurate in the tails."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


# --- step 0: the SNR of mean pooling ---------------------------------------------------
snr_expr = theta * R / sp.sqrt(L)

# --- step 1: error of a threshold rule on t ~ N(0,1) vs N(S,1) ----------------------------
kappa_expr = sp.log((1 - pi_) / pi_)
error_of_threshold = (1 - pi_) * Phi(-c) + pi_ * Phi(c - S)

# --- step 2: optimal threshold: dE/dc = 0 --------------------------------------------------
# dE/dc = -(1-pi) phi(c) + pi phi(c - S); take logs of the ratio (both sides positive).
_stationary = sp.Eq(sp.log(1 - pi_) - c**2 / 2, sp.log(pi_) - (c - S) ** 2 / 2)
_solutions = sp.solve(_stationary, c)
assert len(_solutions) == 1, _solutions
threshold_opt = sp.simplify(_solutions[0])          # = S/2 + log((1-pi)/pi)/S
# second-order condition: d2E/dc2 at c* = S * pi * phi(c* - S) > 0  (a minimum)
_d2 = sp.diff(error_of_threshold, c, 2).subs(c, threshold_opt)

# --- step 3: the oracle pooled error ------------------------------------------------------
error_pool_S = sp.simplify(error_of_threshold.subs(c, threshold_opt))
kk = sp.Symbol("kappa", real=True)
error_pool_kappa = (1 - pi_) * Phi(-S / 2 - kk / S) + pi_ * Phi(-S / 2 + kk / S)
error_pool = error_pool_S.subs(S, snr_expr)          # in (theta, L, R, pi)

# --- step 4: limits ---------------------------------------------------------------------
# S -> 0 (fixed theta, L -> infinity, R fixed): the trivial error min(pi, 1 - pi).
# S -> infinity: 0.  SymPy evaluates them for pi < 1/2, = 1/2, > 1/2 in `limits()`.


@lru_cache(maxsize=1)
def limits() -> dict:
    """SymPy limits of E*_pool: S -> 0+ and S -> oo, at pi = 1/5, 1/2, 4/5, and the
    fixed-theta limit L -> oo.  Returns {name: sympy value}."""
    out = {}
    for p in (sp.Rational(1, 5), sp.Rational(1, 2), sp.Rational(4, 5)):
        e = error_pool_S.subs(pi_, p)
        out[f"S->0, pi={p}"] = sp.limit(e, S, 0, "+")
        out[f"S->oo, pi={p}"] = sp.limit(e, S, sp.oo)
    e_fixed_theta = error_pool.subs({pi_: sp.Rational(1, 5), R: 1, theta: 3})
    out["L->oo, theta=3, R=1, pi=1/5"] = sp.limit(e_fixed_theta, L, sp.oo)
    return out


# --- step 5: vectorised model, k-sparse rules under the uniform position law ---------------
hypergeom_pmf = sp.binomial(k, m) * sp.binomial(L - k, R - m) / sp.binomial(L, R)
# error of the rule a = 1_K/sqrt(k) at raw threshold c (score scale: unit noise)
def vec_ksparse_error(k_val: int, L_val: int, R_val: int):
    """E_k(c) for the rule a = 1_K/sqrt(k), uniform R-subset positions: an exact finite sum."""
    terms = []
    for mm in range(max(0, R_val - (L_val - k_val)), min(k_val, R_val) + 1):
        h = sp.binomial(k_val, mm) * sp.binomial(L_val - k_val, R_val - mm) / sp.binomial(L_val, R_val)
        terms.append(h * Phi(c - theta * mm / sp.sqrt(k_val)))
    return (1 - pi_) * Phi(-c) + pi_ * sp.Add(*terms)


# mean-direction rule: a = p/||p||, uniform law -> a^T v = R/sqrt(L) exactly
mean_rule_projection = sp.simplify((R / L) * R / (R / sp.sqrt(L)))   # p^T v / ||p|| = R/sqrt(L)

# general position law with marginal p: E[vec X | y=+1] = theta p (x) xi, and the
# mean-direction rule a = p/||p|| has E[theta a^T v] = theta p^T p/||p|| = theta ||p||.
# Under ||p|| <= C R/sqrt(L) this "mean SNR" is <= C S: a non-uniform law can buy at most the
# factor C for this rule.  When p^T v is deterministic (uniform law on a block of m tokens:
# p = R/m on the block, p^T v = R^2/m) the rule's error is exactly E*_pool at theta ||p||.
p_norm = sp.Symbol("||p||", positive=True)
m_blk = sp.Symbol("m", positive=True, integer=True)
snr_mean_rule = theta * p_norm
p_norm_block = sp.sqrt(m_blk * (R / m_blk) ** 2)          # = R/sqrt(m)
snr_block = sp.simplify(snr_mean_rule.subs(p_norm, p_norm_block))   # theta R / sqrt(m)
C_block = sp.simplify(p_norm_block / (R / sp.sqrt(L)))               # sqrt(L/m)

# privileged ("fixed") positions: S_fixed = theta sqrt(R)
snr_fixed = theta * sp.sqrt(R)

# --- step 6: lower bound for any linear rule with ||p|| <= C R/sqrt(L) ----------------------
vec_bound_integrand = (1 - pi_) * Phi(-c) + pi_ * (1 - C_p * R * S / tau) * Phi(c - tau)

EQUATIONS = (
    Equation("A.thm1.snr", sp.Symbol("SNR"), snr_expr, "Paper A, Prop. 1 / Thm 1", (theta, R, L),
             "per-direction SNR of mean pooling (paper); signal theta R/L, noise sd 1/sqrt(L)",
             status="paper"),
    Equation("A.thm1.threshold", sp.Symbol("c^*"), threshold_opt, REF, (S, pi_),
             "optimal threshold on the normalised pooled score, from SymPy solve of dE/dc = 0"),
    Equation("A.thm1.pool_error", sp.Symbol("E^*_{pool}"), error_pool_S, REF, (S, pi_),
             "oracle pooled (= Bayes on the pooled feature) error, any finite L; matches the notes' "
             "candidate (1-pi)Phi(-S/2-kappa/S)+pi Phi(-S/2+kappa/S)"),
    Equation("A.thm1.vec_ksparse", sp.Symbol("E_k(c)"),
             (1 - pi_) * Phi(-c) + pi_ * sp.Sum(hypergeom_pmf * Phi(c - theta * m / sp.sqrt(k)),
                                                  (m, 0, R)),
             REF, (c, pi_, theta, k, L, R),
             "vectorised rule a = 1_K/sqrt(k) under uniform positions (ours); k = L is pooled"),
    Equation("A.thm1.vec_mean_rule_snr", sp.Symbol("S_p"), snr_mean_rule, REF, (theta, p_norm),
             "SNR of the mean-direction vectorised rule a = p/||p|| for a position law with marginal p (ours)"),
    Equation("A.thm1.vec_lower_bound", sp.Symbol("E^*_{vec}"),
             vec_bound_integrand, REF, (c, pi_, C_p, R, S, tau),
             "E*_vec >= inf_c sup_tau of this, for any position law with ||p|| <= C R/sqrt(L) (ours)"),
)
