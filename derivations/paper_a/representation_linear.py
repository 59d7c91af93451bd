"""Paper A, Proposition 1 / Theorem 1: oracle errors of the linear baselines.

See docs/paper_a_representation.md, section "Linear baselines".  Every step is a named
expression (:func:`derivations.core.step`) built inside a cached builder, so a structural
mutant of one step propagates to every theory value computed from it.

Setting (paper's data model): the projection of a sample on the signal direction xi is
u = X xi in R^L, u = theta*v*1{y=+1} + g, g ~ N(0, I_L); everything orthogonal to xi is
pure noise, independent of (y, v), so it cannot help a linear rule (it only adds variance).

Step 0 (any threshold rule).  "Predict +1 iff score >= c" errs with probability
    E(c) = (1 - pi) (1 - F_-(c)) + pi F_+(c),
F_-+(c) = P(score < c | y = -+1) the class-conditional CDFs; c -> +oo and c -> -oo are the
constant rules, with errors pi and 1 - pi.  Every oracle of this module and of
``representation_attention`` is this expression with its own CDFs substituted.

Pooled model.  The pooled feature X^T 1/L has the law N(theta R/L * xi * 1{y=+1}, I/L) for
*every* position law (v always has R ones).  The best linear rule of a Gaussian pair with a
common covariance is along the mean difference, i.e. along xi; rescaled by sqrt(L) its score
is t ~ N(0, 1) (y = -1) or N(S, 1) (y = +1), with S = theta R / sqrt(L) (step 1), so

    E(c) = (1 - pi) Phi(-c) + pi Phi(c - S)                                     (step 2)

and the optimal threshold solves dE/dc = 0 (SymPy ``solve``; step 3), c* = S/2 + kappa/S,
kappa = log((1 - pi)/pi), giving E*_pool (step 4).  Because the two classes are Gaussian with
a common covariance, this linear rule is also the Bayes rule on the pooled feature.

Vectorised model.  A linear rule <W, X> + b: the part of each row of W orthogonal to xi
adds noise only, so W = a xi^T with ||a|| = 1, and the score is theta a^T v + eps,
eps ~ N(0, 1), under y = +1 and eps under y = -1:

    E_vec(a, c) = (1 - pi) Phi(-c) + pi E_v[ Phi(c - theta a^T v) ].

*  Mean direction a = p/||p|| (p = E v, the marginal): E[theta a^T v] = theta ||p|| (step 6).
   Uniform law p = R/L 1: a^T v = R/sqrt(L) deterministically, so E_vec = E*_pool(S).
   Privileged law ("fixed" positions, ||p|| = sqrt(R)): SNR theta sqrt(R), no sqrt(L).
   Block law (uniform on m of the L tokens): ||p|| = R/sqrt(m), SNR theta R/sqrt(m) = C S
   with C = sqrt(L/m).
*  k-sparse rules a = 1_K / sqrt(k), |K| = k, uniform law (step 5): m = |K cap positions| is
   hypergeometric(L, k, R) and, conditionally on m, the score is N(theta m/sqrt(k), 1), so
   E_k(c) = sum_m H(m) E(c | m).  k = L is the pooled rule; k < L can beat it at finite L
   when pi is small and theta is large (a strict finite-L gain, which vanishes as
   L -> infinity; see the bound).
*  Lower bound for ANY linear rule and ANY position law with ||p|| <= C R / sqrt(L) (ours):
   for t > 0, {a^T v >= t} needs a position l in the set A = {a_l >= t/R}, |A| <= R^2/t^2,
   so P(a^T v >= t) <= sum_{l in A} p_l <= sqrt(|A|) ||p|| <= C R^2/(t sqrt(L)).  With
   tau = theta t:  P(theta a^T v >= tau) <= C R S / tau, and, eps independent,
   P(score < c) >= (1 - C R S/tau)_+ Phi(c - tau).  Hence

       E*_vec >= inf_c sup_{tau > 0} [(1 - pi) Phi(-c) + pi (1 - C R S / tau)_+ Phi(c - tau)]

   which is > 0 at every finite S and -> min(pi, 1 - pi) as S -> 0 (step 7).  So the
   vectorised error also vanishes only if S = theta R / sqrt(L) -> infinity (Theorem 1).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derivations.core import Equation, derivation, mutant, replace, step

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
p_norm = sp.Symbol("||p||", positive=True)
m_blk = sp.Symbol("m", positive=True, integer=True)    # block size of the block law
F_neg = sp.Symbol("F_-", nonnegative=True)             # P(score < c | y = -1)
F_pos = sp.Symbol("F_+", nonnegative=True)             # P(score < c | y = +1)
kk = sp.Symbol("kappa", real=True)

REF = "docs/paper_a_representation.md#linear-baselines"


def Phi(x):
    """Standard normal CDF, written with erfc so that evalf stays accurate in the tails."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


# --- step 0: the error of a threshold rule -----------------------------------------------

@derivation
def rule_error() -> sp.Expr:
    """E = (1 - pi) P(score >= c | y = -1) + pi P(score < c | y = +1), in F_-, F_+."""
    return step("A.thm1.rule_error", (1 - pi_) * (1 - F_neg) + pi_ * F_pos)


def with_cdfs(expr, neg, pos):
    """A threshold-rule expression with the class-conditional CDFs substituted."""
    return expr.subs({F_neg: neg, F_pos: pos}, simultaneous=True)


def trivial_errors(expr, *cdf_symbols) -> tuple:
    """(error at c = +oo, error at c = -oo): every CDF symbol set to 1, then to 0."""
    syms = cdf_symbols or (F_neg, F_pos)
    return (sp.simplify(expr.subs({s: 1 for s in syms})), sp.simplify(expr.subs({s: 0 for s in syms})))


# --- steps 1-4: the pooled oracle -------------------------------------------------------

@dataclass(frozen=True)
class Pooled:
    snr: sp.Expr               # S(theta, L, R)
    error_of_threshold: sp.Expr  # E(c; S, pi)
    threshold: sp.Expr         # c*(S, pi)
    error_S: sp.Expr           # E*_pool(S, pi)
    second_derivative: sp.Expr  # d2E/dc2 at c*
    kappa: sp.Expr

    @property
    def error(self) -> sp.Expr:
        """E*_pool in (theta, L, R, pi)."""
        return self.error_S.subs(S, self.snr)


@derivation
def pooled() -> Pooled:
    snr = step("A.thm1.snr", theta * R / sp.sqrt(L))
    t_neg, t_pos = step("A.thm1.pool_cdfs", (Phi(c), Phi(c - S)))   # t ~ N(0,1) | N(S,1)
    e_c = step("A.thm1.error_of_threshold", with_cdfs(rule_error(), t_neg, t_pos))
    roots = sp.solve(sp.diff(e_c, c), c)
    if len(roots) != 1:
        raise ValueError(f"dE/dc = 0 has {len(roots)} roots, expected one: {roots}")
    c_star = step("A.thm1.threshold", sp.simplify(roots[0]))        # S/2 + log((1-pi)/pi)/S
    err = step("A.thm1.pool_error", sp.simplify(e_c.subs(c, c_star)))
    d2 = sp.diff(e_c, c, 2).subs(c, c_star)
    return Pooled(snr, e_c, c_star, err, d2, sp.log((1 - pi_) / pi_))


def error_pool_kappa() -> sp.Expr:
    """The candidate (1-pi)Phi(-S/2-kappa/S)+pi Phi(-S/2+kappa/S), for comparison."""
    return (1 - pi_) * Phi(-S / 2 - kk / S) + pi_ * Phi(-S / 2 + kk / S)


@derivation
def limits() -> dict:
    """SymPy limits of E*_pool: S -> 0+ and S -> oo, at pi = 1/5, 1/2, 4/5, and the
    fixed-theta limit L -> oo.  Returns {name: sympy value}."""
    P = pooled()
    out = {}
    for p in (sp.Rational(1, 5), sp.Rational(1, 2), sp.Rational(4, 5)):
        e = P.error_S.subs(pi_, p)
        out[f"S->0, pi={p}"] = sp.limit(e, S, 0, "+")
        out[f"S->oo, pi={p}"] = sp.limit(e, S, sp.oo)
    e_fixed_theta = P.error.subs({pi_: sp.Rational(1, 5), R: 1, theta: 3})
    out["L->oo, theta=3, R=1, pi=1/5"] = sp.limit(e_fixed_theta, L, sp.oo)
    return out


# --- step 5: vectorised model, k-sparse rules under the uniform position law ---------------

@dataclass(frozen=True)
class KSparse:
    pmf: sp.Expr               # H(m; k, L, R)
    support: tuple             # (lowest m, highest m)
    conditional: sp.Expr       # E(c | m; k, theta, pi)

    @property
    def error(self) -> sp.Expr:
        """E_k(c) as a SymPy Sum (exact finite sum once k, L, R are integers)."""
        return sp.Sum(self.pmf * self.conditional, (m, *self.support))


@derivation
def vec_ksparse() -> KSparse:
    pmf = step("A.thm1.hypergeom_pmf", sp.binomial(k, m) * sp.binomial(L - k, R - m) / sp.binomial(L, R))
    support = (sp.Max(0, R - (L - k)), sp.Min(k, R))
    shift = step("A.thm1.vec_ksparse_shift", theta * m / sp.sqrt(k))   # theta a^T v, a = 1_K/sqrt(k)
    cond = step("A.thm1.vec_ksparse_error", with_cdfs(rule_error(), Phi(c), Phi(c - shift)))
    return KSparse(pmf, support, cond)


# --- step 6: the mean-direction rule of a general position law --------------------------
# E[vec X | y=+1] = theta p (x) xi, and the rule a = p/||p|| has E[theta a^T v] = theta ||p||.
# Under ||p|| <= C R/sqrt(L) this "mean SNR" is <= C S: a non-uniform law can buy at most the
# factor C for this rule.  When p^T v is deterministic (uniform law on a block of m tokens:
# p = R/m on the block, p^T v = R^2/m) the rule's error is exactly E*_pool at theta ||p||.

@dataclass(frozen=True)
class PositionLaws:
    snr_mean_rule: sp.Expr     # theta ||p||
    snr_fixed: sp.Expr         # fixed positions, ||p|| = ||v0|| = sqrt(R)
    snr_block: sp.Expr         # block law, ||p|| = R/sqrt(m)
    C_block: sp.Expr           # the block law's C = ||p|| sqrt(L)/R
    mean_rule_projection: sp.Expr  # uniform law: p^T v/||p|| = R/sqrt(L)


@derivation
def position_laws() -> PositionLaws:
    snr_mean = step("A.thm1.vec_mean_rule_snr", theta * p_norm)
    norm_fixed = step("A.thm1.fixed_norm", sp.sqrt(R))             # ||v0||, v0 has R ones
    norm_block = sp.sqrt(m_blk * (R / m_blk) ** 2)                  # R/sqrt(m)
    snr_fixed = step("A.thm1.snr_fixed", snr_mean.subs(p_norm, norm_fixed))
    snr_block = step("A.thm1.snr_block", sp.simplify(snr_mean.subs(p_norm, norm_block)))
    C_block = sp.simplify(norm_block / (R / sp.sqrt(L)))            # sqrt(L/m)
    projection = sp.simplify((R / L) * R / (R / sp.sqrt(L)))         # p^T v / ||p||, p = R/L 1
    return PositionLaws(snr_mean, snr_fixed, snr_block, C_block, projection)


# --- step 7: lower bound for any linear rule with ||p|| <= C R/sqrt(L) ----------------------

@dataclass(frozen=True)
class LowerBound:
    integrand: sp.Expr         # (1-pi) Phi(-c) + pi (1 - C R S/tau) Phi(c - tau)
    tau_min: sp.Expr           # the tau where the bracket (.)_+ vanishes: C R S


@derivation
def vec_lower_bound() -> LowerBound:
    """E*_vec >= inf_c sup_{tau > tau_min} of the integrand (the bracket is (.)_+)."""
    hit = 1 - C_p * R * S / tau                   # P(theta a^T v < tau) >= this
    tau_min = sp.solve(hit, tau)[0]
    e = step("A.thm1.vec_lower_bound", with_cdfs(rule_error(), Phi(c), hit * Phi(c - tau)))
    return LowerBound(e, tau_min)


# --- structural mutants: realistic errors of these steps ----------------------------------
mutant("A.thm1.snr:L", "A.thm1.snr", "SNR theta R/L instead of theta R/sqrt(L)",
       lambda e: e.subs(sp.sqrt(L), L))
mutant("A.thm1.threshold:kappa_sign", "A.thm1.threshold",
       "prior swapped in the optimal threshold: log(pi/(1-pi)) instead of log((1-pi)/pi)",
       replace(pi_, 1 - pi_))
mutant("A.thm1.fixed_norm:R", "A.thm1.fixed_norm", "||v0|| = R instead of sqrt(R)",
       lambda e: e**2)
mutant("A.thm1.vec_ksparse_shift:norm", "A.thm1.vec_ksparse_shift",
       "k-sparse score theta m/k: rule 1_K/k instead of the unit vector 1_K/sqrt(k)",
       lambda e: e.subs(sp.sqrt(k), k))
mutant("A.thm1.hypergeom_pmf:with_replacement", "A.thm1.hypergeom_pmf",
       "overlap law binomial(k, R/L) (positions drawn with replacement) instead of hypergeometric",
       lambda e: sp.binomial(k, m) * (R / L) ** m * (1 - R / L) ** (k - m))
mutant("A.thm1.rule_error:prior", "A.thm1.rule_error",
       "class prior swapped in the threshold-rule error (pi <-> 1 - pi)", replace(pi_, 1 - pi_))


def equations() -> tuple:
    P, K, V = pooled(), vec_ksparse(), position_laws()
    return (
        Equation("A.thm1.rule_error", sp.Symbol("E(c)"), rule_error(), REF, (pi_, F_neg, F_pos),
                 "error of 'predict +1 iff score >= c' from the class-conditional CDFs F_-+ (ours)"),
        Equation("A.thm1.snr", sp.Symbol("SNR"), P.snr, "Paper A, Prop. 1 / Thm 1", (theta, R, L),
                 "per-direction SNR of mean pooling (paper); signal theta R/L, noise sd 1/sqrt(L)",
                 status="paper"),
        Equation("A.thm1.threshold", sp.Symbol("c^*"), P.threshold, REF, (S, pi_),
                 "optimal threshold on the normalised pooled score, from SymPy solve of dE/dc = 0"),
        Equation("A.thm1.pool_error", sp.Symbol("E^*_{pool}"), P.error_S, REF, (S, pi_),
                 "oracle pooled (= Bayes on the pooled feature) error, any finite L; equals "
                 "(1-pi)Phi(-S/2-kappa/S)+pi Phi(-S/2+kappa/S)"),
        pmf_eq := Equation("A.thm1.hypergeom_pmf", sp.Symbol("p_m"), K.pmf, REF, (k, L, R, m),
                           "P(m of the R signal positions fall in K): hypergeometric (uniform positions)"),
        cond_eq := Equation("A.thm1.vec_ksparse_error", sp.Symbol(r"E_k(c \mid m)"), K.conditional, REF,
                            (c, pi_, theta, k, m), "error of the k-sparse rule given m: the score is "
                            "N(theta m/sqrt(k), 1) on a positive sample"),
        Equation("A.thm1.vec_ksparse", sp.Symbol("E_k(c)"), K.error, REF, (c, pi_, theta, k, L, R),
                 "vectorised rule a = 1_K/sqrt(k) under uniform positions (ours); k = L is pooled").written(
            sp.Sum(pmf_eq.lhs * cond_eq.lhs, (m, *K.support)), {pmf_eq.lhs: pmf_eq, cond_eq.lhs: cond_eq}),
        Equation("A.thm1.vec_mean_rule_snr", sp.Symbol("S_p"), V.snr_mean_rule, REF, (theta, p_norm),
                 "SNR of the mean-direction vectorised rule a = p/||p|| for a position law with marginal p (ours)"),
        Equation("A.thm1.vec_lower_bound", sp.Symbol("E^*_{vec}"), vec_lower_bound().integrand, REF,
                 (c, pi_, C_p, R, S, tau),
                 "E*_vec >= inf_c sup_tau of this, for any position law with ||p|| <= C R/sqrt(L) (ours)"),
    )
