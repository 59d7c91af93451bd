"""Paper A, Theorem 2 and beyond: the attention oracle and its detection threshold.

docs/paper_a_representation.md, sections "Attention oracle" and "Sharp threshold".  Every
theory value is a named step built inside a cached builder; the threshold-rule error is the
one of ``representation_linear`` (step 0), with this module's class-conditional CDFs.

Step 1 (reduction).  With q = kappa xi and readout w = xi, X q = kappa u (u = X xi) and
xi^T X^T s = u^T s, so the score is S = sum_l softmax(gamma u)_l u_l, gamma = beta kappa.
A readout w = w_par xi + w_perp adds w_perp^T X^T s = sum_l s_l h_l, h = Z w_perp
independent of u: conditionally N(0, ||w_perp||^2 ||s||^2) noise, the same in both classes.

Step 2 (threshold as an i.i.d. sum).  S >= c  <=>  sum_l T_l >= 0, T_l = e^{gamma u_l}(u_l - c):
the error at threshold c is a statement about a sum of independent terms (L - R noise
tokens, R signal tokens).  T is linear in c: T = T_0(u) + c T_1(u).

Step 3 (one token in closed form).  T(u) decreases from 0 (u -> -oo) to its minimum
-e^{gamma c - 1}/gamma at u = c - 1/gamma and then increases to +oo, so for u = mu + g,
P(T(u) < D) = Phi(u_+ - mu) - Phi(u_- - mu) on (T_min, 0), Phi(u_+ - mu) on [0, oo) and 0
below T_min, with u_+- = c + W_{0,-1}(gamma D e^{-gamma c}) / gamma (Lambert W).
Conditioning on the other tokens (D = -sum of their T) and integrating one token out exactly
(Rao-Blackwell) gives the conditional error that the Monte Carlo averages.

Step 4 (hard attention, gamma -> oo).  S -> max_l u_l; with F_0 = Phi(c) (a noise token) and
F_1 = Phi(c - theta) (a signal token) below c, the class-conditional CDFs are F_0^L and
F_1^R F_0^(L - R), and
    E_max(c) = (1 - pi)(1 - Phi(c)^L) + pi Phi(c - theta)^R Phi(c)^(L - R).
It is evaluated in log form (Phi(c)^L = exp(L log1p(-Q(c))), 1 - exp(z) = -expm1(z)), so that
L = 10^(10^8) is fine; the log form is a rewriting of the same steps (:func:`log_form`).

Step 5 (threshold scaling, ours).  Noise partition function Z_n = sum e^{gamma g} ~ L e^{gamma^2/2}
(gamma^2 < 2 log L).  (a) Signal dominance: gamma theta - gamma^2/2 - log L -> +oo; the best
gamma gives theta > sqrt(2 log L).  (b) Detection against the CLT fluctuation of the negative
score, sd^2 = e^{gamma^2}(1 + gamma^2)/L: gamma theta - gamma^2 - (1/2) log L -> +oo; best
gamma = sqrt(log L / 2), again theta > sqrt(2 log L); at FIXED gamma: theta > gamma + log L/(2 gamma),
the paper's log L scaling with constant 1/(2 gamma).  (c) Hard max: error -> 0 iff
theta - b_L -> +oo, b_L the root of L (1 - Phi(b)) = 1, i.e. b_L = Phi^{-1}(1 - 1/L)
= sqrt(2 log L) - (log log L + log 4 pi)/(2 sqrt(2 log L)) + ...
(d) Lower bound (any classifier; R fixed): for theta = r sqrt(2 log L), r < 1, the Bayes error
tends to min(pi, 1 - pi) (sparse-detection boundary).  So the sharp threshold is
theta ~ sqrt(2 log L), ratio constant 1, reached by attention.

Step 6 (limit law of hard attention, ours).  Change variables c -> t = Phi(c)^L (monotone) and
put theta = b_L + x, c = b_L + y/a_L: as L -> oo at fixed t, Phi(c)^(L - R) -> t and
Phi(c - theta) -> Phi(-x), so E -> (1 - pi)(1 - t) + pi Phi(-x)^R t, linear in t in (0, 1):
    E_oo(x) = min(pi Phi(-x)^R, 1 - pi).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from derivations.core import Equation, derivation, mutant, replace, step
from derivations.paper_a import representation_linear as lin
from derivations.paper_a.representation_linear import Phi, rule_error, trivial_errors, with_cdfs

gamma = sp.Symbol("gamma", positive=True)
theta = lin.theta
L = lin.L
R = lin.R
pi_ = lin.pi_
c = sp.Symbol("c", real=True)
u = sp.Symbol("u", real=True)
D = sp.Symbol("D", real=True)
D_neg = sp.Symbol("D_-", real=True)        # D of the integrated-out token, negative class
D_pos = sp.Symbol("D_+", real=True)        # ... positive class
mu = sp.Symbol("mu", real=True)            # mean of the integrated-out token
g = sp.Symbol("g", real=True)
x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
t = sp.Symbol("t", positive=True)
b = sp.Symbol("b", real=True)
a = sp.Symbol("a", positive=True)
logL = sp.Symbol("ell", positive=True)        # log L
F0 = sp.Symbol("F_0", positive=True)          # P(noise token < c)
F1 = sp.Symbol("F_1", positive=True)          # P(signal token < c)

REF = "docs/paper_a_representation.md#attention-oracle"
REF_SHARP = "docs/paper_a_representation.md#sharp-threshold"


def phi(z):
    return sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)


# --- step 1: the score is u^T softmax(gamma u) (checked on explicit small matrices) ---------

def readout_identity(Lval: int = 3, d: int = 2) -> sp.Expr:
    """xi^T f_q(X) - u^T softmax(gamma u) for symbolic X (xi = e_1 WLOG by rotation
    invariance); returns the simplified difference (0)."""
    X = sp.Matrix(Lval, d, lambda i, j: sp.Symbol(f"X_{i}{j}", real=True))
    beta_, kappa_ = sp.symbols("beta kappa", positive=True)
    xi = sp.Matrix([1] + [0] * (d - 1))
    q = kappa_ * xi
    logits = beta_ * X * q
    w = [sp.exp(logits[i]) for i in range(Lval)]
    s = sp.Matrix([wi / sum(w) for wi in w])
    f = X.T * s
    uvec = X * xi
    gam = beta_ * kappa_
    ws = [sp.exp(gam * uvec[i]) for i in range(Lval)]
    S_score = sum(ws[i] * uvec[i] for i in range(Lval)) / sum(ws)
    return sp.simplify((xi.T * f)[0] - S_score)


# --- steps 2-3: the threshold event as an iid sum, one token in closed form ------------------

@dataclass(frozen=True)
class OneToken:
    term: sp.Expr              # T(u) = e^{gamma u}(u - c)
    term_0: sp.Expr            # T at c = 0
    term_1: sp.Expr            # dT/dc (T = T_0 + c T_1)
    min_at: sp.Expr            # argmin_u T
    min_value: sp.Expr         # min_u T
    roots: tuple               # (u_-, u_+): T(u) = D
    prob: sp.Expr              # P(T(mu + g) < D), g ~ N(0, 1)


@derivation
def one_token() -> OneToken:
    T = step("A.thm2.token_term", sp.exp(gamma * u) * (u - c))
    if sp.simplify(sp.diff(T, c, 2)) != 0:
        raise ValueError("the token term is not linear in the threshold")
    T0, T1 = T.subs(c, 0), sp.diff(T, c)
    crit = sp.solve(sp.diff(T, u), u)
    if len(crit) != 1:
        raise ValueError(f"the token term has {len(crit)} stationary points, expected one")
    u_min = crit[0]                                        # c - 1/gamma
    T_min = sp.simplify(T.subs(u, u_min))                  # -e^{gamma c - 1}/gamma
    T_left = sp.limit(T, u, -sp.oo)                        # 0
    sol = sp.solve(sp.Eq(T, D), u)                         # c + W_0(gamma D e^{-gamma c})/gamma
    if len(sol) != 1 or not sol[0].has(sp.LambertW):
        raise ValueError(f"T(u) = D: expected one Lambert-W root, got {sol}")
    u_lo = sol[0].replace(lambda e: isinstance(e, sp.LambertW), lambda e: sp.LambertW(e.args[0], -1))
    u_lo, u_hi = step("A.thm2.one_token_roots", (u_lo, sol[0]))
    cdf = lambda z: Phi(z - mu)
    # {T < D} = (u_-, u_+), with u_- = -oo when D >= lim_{u -> -oo} T and empty when D <= T_min
    prob = step("A.thm2.one_token_prob",
                sp.Piecewise((cdf(u_hi), D > T_min), (0, True))
                - sp.Piecewise((cdf(u_lo), (D > T_min) & (D < T_left)), (0, True)))
    return OneToken(T, T0, T1, u_min, T_min, (u_lo, u_hi), prob)


@dataclass(frozen=True)
class SoftmaxConditional:
    error_F: sp.Expr           # E in the one-token conditional CDFs F_-, F_+
    means: tuple               # means of the integrated-out token (negatives, positives)
    trivial: tuple             # (error at c = +oo, error at c = -oo)
    sampled: tuple = ()        # per class (negatives, positives): (tokens sampled, of which signal)

    @property
    def error(self) -> sp.Expr:
        """The error at threshold c given the other tokens (D_-, D_+), one token integrated out."""
        p = one_token().prob
        m_neg, m_pos = self.means
        return with_cdfs(self.error_F, p.subs({D: D_neg, mu: m_neg}), p.subs({D: D_pos, mu: m_pos}))


@derivation
def softmax_conditional() -> SoftmaxConditional:
    """Negatives integrate out a noise token (mean 0), positives a signal token (mean theta)."""
    means = step("A.thm2.integrated_token_means", (sp.Integer(0), theta))
    e = step("A.thm2.softmax_conditional_error", rule_error())
    # the tokens left to sample once one is integrated out: negatives L - 1 noise tokens;
    # positives L - 1 tokens, R - 1 of them signal tokens (mean theta)
    sampled = step("A.thm2.sampled_tokens", ((L - 1, sp.Integer(0)), (L - 1, R - 1)))
    return SoftmaxConditional(e, means, trivial_errors(e), sampled)


# --- step 4: hard attention ---------------------------------------------------------------

@dataclass(frozen=True)
class Hardmax:
    error_F: sp.Expr           # E in (F_0, F_1, L, R, pi)
    noise_cdf: sp.Expr         # F_0(c)
    signal_cdf: sp.Expr        # F_1(c; theta)
    trivial: tuple             # (error at c = +oo, error at c = -oo)

    @property
    def error(self) -> sp.Expr:
        return self.error_F.subs({F0: self.noise_cdf, F1: self.signal_cdf}, simultaneous=True)


@derivation
def hardmax() -> Hardmax:
    noise = step("A.thm2.noise_cdf", Phi(c))
    signal = step("A.thm2.signal_cdf", Phi(c - theta))
    cdf_neg = step("A.thm2.hardmax_cdf_neg", F0**L)                  # L noise tokens below c
    cdf_pos = step("A.thm2.hardmax_cdf_pos", F1**R * F0**(L - R))    # R signal, L - R noise
    e = step("A.thm2.hardmax_error", with_cdfs(rule_error(), cdf_neg, cdf_pos))
    return Hardmax(e, noise, signal, trivial_errors(e, F0, F1))


def log_gaussian_cdf(F) -> sp.Expr:
    """log F for F = Phi(z), accurate in both tails: log Phi(-|z|) for z < 0 and
    log1p(-Phi(-|z|)) for z >= 0, the tail written erfc(|z|/sqrt 2)/2 (an argument SymPy
    never rewrites as 2 - erfc(...)).  Any other F: log1p(F - 1) when F is 1 - (a tail),
    else log F."""
    F = sp.expand(F)
    tails = F.atoms(sp.erfc)
    if len(tails) == 1:
        w = next(iter(tails)).args[0]
        z = None
        if sp.expand(F - sp.erfc(w) / 2) == 0:
            z = -sp.sqrt(2) * w
        elif sp.expand(F - 1 + sp.erfc(w) / 2) == 0:
            z = sp.sqrt(2) * w
        if z is not None:
            tail = sp.erfc(sp.Abs(z) / sp.sqrt(2)) / 2     # Phi(-|z|): never 2 - erfc(...)
            return sp.Piecewise((sp.log(tail), z < 0), (log1p(-tail), True))
    one, rest = F.as_coeff_Add()
    return log1p(rest) if one == 1 else sp.log(F)


def log_form(expr, cdfs: dict) -> sp.Expr:
    """``expr`` (a polynomial in CDF symbols with symbolic exponents) with every power
    F^n written exp(n log F) and the CDFs substituted (:func:`log_gaussian_cdf`); products
    of exponentials merged and 1 - exp(z) = -expm1(z).  An exact rewriting: it only changes
    how the same expression is evaluated."""
    lg = {s: log_gaussian_cdf(F) for s, F in cdfs.items()}
    ell = {s: sp.Dummy(f"log_{s}") for s in cdfs}
    e = expr.replace(lambda z: z.is_Pow and z.base in cdfs, lambda z: sp.exp(z.exp * ell[z.base]))
    e = e.xreplace({s: sp.exp(ell[s]) for s in cdfs})
    e = sp.powsimp(e, combine="exp")

    def one_minus_exp(z):
        if not isinstance(z, sp.Add):
            return z
        terms = list(z.args)
        if 1 in terms:
            for tt in terms:
                coeff, rest = tt.as_coeff_Mul()
                if coeff == -1 and isinstance(rest, sp.exp):
                    terms.remove(1)
                    terms.remove(tt)
                    return sp.Add(-expm1(rest.args[0]), *terms)
        return z

    e = e.replace(lambda z: isinstance(z, sp.Add), one_minus_exp)
    return e.xreplace({ell[s]: lg[s] for s in cdfs})


@derivation
def hardmax_log_form(in_log_L: bool = False) -> tuple:
    """(E, dE/dc, d2E/dc2) of hard attention in log form, in (c, L, R, pi, theta), or with
    L = e^ell in (c, ell, R, pi, theta) (substituted before the rewriting, which keeps
    some erfc unevaluated)."""
    H = hardmax()
    e_F = H.error_F.subs(L, sp.exp(logL)) if in_log_L else H.error_F
    e = log_form(e_F, {F0: H.noise_cdf, F1: H.signal_cdf})
    # |z| in the tails: sign(z) is constant on each branch, so its DiracDelta derivative is 0
    no_delta = lambda x: x.replace(lambda z: isinstance(z, sp.DiracDelta), lambda z: sp.S.Zero)
    d1 = no_delta(sp.diff(e, c))
    return e, d1, no_delta(sp.diff(d1, c))


# --- step 5: threshold scaling --------------------------------------------------------------

@dataclass(frozen=True)
class Scaling:
    dominance_exponent: sp.Expr
    theta_dominance: sp.Expr
    theta_c_dominance: sp.Expr
    partition_mean: sp.Expr
    negative_center: sp.Expr
    clt_variance_times_L: sp.Expr
    clt_exponent: sp.Expr
    theta_clt: sp.Expr         # fixed-gamma threshold gamma + ell/(2 gamma)
    gamma_clt: sp.Expr
    theta_c_clt: sp.Expr       # sqrt(2 ell)


@derivation
def scaling() -> Scaling:
    # (a) dominance exponent and its optimum over gamma
    dom = gamma * theta - gamma**2 / 2 - logL
    th_dom = sp.solve(sp.Eq(dom, 0), theta)[0]                          # ell/gamma + gamma/2
    g_dom = sp.solve(sp.diff(th_dom, gamma), gamma)[0]                  # sqrt(2 ell)
    th_c_dom = sp.simplify(th_dom.subs(gamma, g_dom))                   # sqrt(2 ell)
    # (b) the CLT fluctuation of the negative score: delta method for A/B,
    #     var(S_-) ~ E[e^{2 gamma g}(g - m)^2] / (L E[e^{gamma g}]^2),  m = E[g e^{gamma g}]/E[e^{gamma g}]
    gauss = lambda expr: sp.integrate(expr * phi(g), (g, -sp.oo, sp.oo))
    Z = sp.simplify(gauss(sp.exp(gamma * g)))                           # e^{gamma^2/2}
    centre = sp.simplify(gauss(g * sp.exp(gamma * g)) / Z)              # gamma
    var_L = sp.simplify(gauss(sp.exp(2 * gamma * g) * (g - centre) ** 2) / Z**2)   # e^{g^2}(1+g^2)
    # signal shift of a token at theta (typical g = 0): e^{gamma theta}(theta - gamma)/(L e^{gamma^2/2});
    # log(shift / sd) = gamma theta - gamma^2 - ell/2 + O(log theta)
    clt = gamma * theta - gamma**2 - logL / 2
    th_clt = step("A.thm2.fixed_gamma_threshold", sp.solve(sp.Eq(clt, 0), theta)[0])   # gamma + ell/(2 gamma)
    g_clt = sp.solve(sp.diff(th_clt, gamma), gamma)[0]                   # sqrt(ell/2)
    th_c = step("A.thm2.sharp_threshold", sp.simplify(th_clt.subs(gamma, g_clt)))      # sqrt(2 ell)
    return Scaling(dom, th_dom, th_c_dom, Z, centre, var_L, clt, th_clt, g_clt, th_c)


# (c) max of L Gaussians: b_L with L (1 - Phi(b_L)) = 1

@derivation
def b_L_equation() -> sp.Expr:
    """log(L (1 - F_0(b))) = 0 in (b, ell): the expected number of noise tokens above b is 1."""
    tail = sp.expand(1 - hardmax().noise_cdf.subs(c, b))
    return step("A.thm2.b_L", logL + sp.log(tail))


@derivation
def b_L_expansion() -> sp.Expr:
    """The asymptotic expansion of b_L in ell = log L (two terms)."""
    return step("A.thm2.b_L_expansion",
                sp.sqrt(2 * logL) - (sp.log(logL) + sp.log(4 * sp.pi)) / (2 * sp.sqrt(2 * logL)))


@derivation
def gumbel_scale() -> sp.Expr:
    """a = d/dc [-L (1 - F_0(c))] at c = b, in (b, ell): the Gumbel scale of the noise maximum."""
    tail = sp.expand(1 - hardmax().noise_cdf)
    return sp.simplify(-sp.diff(sp.exp(logL) * tail, c).subs(c, b))


# --- step 6: limit law ------------------------------------------------------------------

@dataclass(frozen=True)
class LimitLaw:
    signal_cdf: sp.Expr        # lim F_1 at theta = b + x, c = b + y/a
    objective: sp.Expr         # lim E at fixed t = F_0^L, in (t, x, pi, R)
    law: sp.Expr               # min over t in [0, 1]


@derivation
def limit_law() -> LimitLaw:
    H = hardmax()
    f1 = sp.limit(H.signal_cdf.subs({c: b + y / a, theta: b + x}, simultaneous=True), a, sp.oo)
    f1 = step("A.thm2.limit_signal_cdf", f1)                              # Phi(-x)
    obj = sp.limit(H.error_F.subs({F0: t ** (1 / L), F1: f1}), L, sp.oo)
    obj = step("A.thm2.limit_objective", sp.expand(obj))
    if sp.simplify(sp.diff(obj, t, 2)) != 0:
        raise ValueError(f"limit objective is not linear in t: {obj}")
    law = step("A.thm2.limit_law", sp.Min(obj.subs(t, 1), obj.subs(t, 0)))
    return LimitLaw(f1, obj, law)


# --- structural mutants: realistic errors of these steps ----------------------------------
mutant("A.thm2.hardmax_cdf_pos:drop_noise", "A.thm2.hardmax_cdf_pos",
       "noise tokens dropped from the positives' maximum: Phi(c - theta)^R only",
       replace(F0, 1))
mutant("A.thm2.hardmax_cdf_pos:exponents", "A.thm2.hardmax_cdf_pos",
       "exponents swapped: Phi(c - theta)^(L-R) Phi(c)^R",
       lambda e: e.subs(R, L - R))
mutant("A.thm2.hardmax_cdf_neg:L_minus_R", "A.thm2.hardmax_cdf_neg",
       "negatives' maximum over L - R tokens instead of L", replace(L, L - R))
mutant("A.thm2.signal_cdf:sign", "A.thm2.signal_cdf",
       "signal token mean of the wrong sign: Phi(c + theta)", replace(theta, -theta))
mutant("A.thm2.one_token_roots:gamma", "A.thm2.one_token_roots",
       "roots c + W(gamma D e^{-gamma c}) without the 1/gamma", lambda e: tuple(c + sp.expand((r - c) * gamma) for r in e))
mutant("A.thm2.integrated_token_means:noise", "A.thm2.integrated_token_means",
       "positives integrate out a noise token (mean 0) instead of a signal token", replace(theta, 0))
mutant("A.thm2.b_L:erf", "A.thm2.b_L",
       "tail written erfc(b)/2 instead of erfc(b/sqrt 2)/2 (Phi with variance 1/2)",
       lambda e: e.subs(b, b * sp.sqrt(2)))
mutant("A.thm2.limit_signal_cdf:sign", "A.thm2.limit_signal_cdf",
       "limit of the signal CDF Phi(x) instead of Phi(-x) (sign of c - theta)", replace(x, -x))
mutant("A.thm2.limit_law:prior", "A.thm2.limit_law",
       "prior swapped in the limit law: min((1-pi) Phi(-x)^R, pi)", replace(pi_, 1 - pi_))


def equations() -> tuple:
    O, H, Sc, LL = one_token(), hardmax(), scaling(), limit_law()
    return (
        Equation("A.thm2.token_term", sp.Symbol("T(u)"), O.term, REF, (gamma, u, c),
                 "S >= c iff sum_l T(u_l) >= 0: the score threshold as an i.i.d. sum (ours)"),
        Equation("A.thm2.one_token", sp.Symbol("u_{+}"), O.roots[1], REF, (c, D, gamma),
                 "roots of e^{gamma u}(u - c) = D: Lambert W (ours, used for Rao-Blackwellisation)"),
        Equation("A.thm2.hardmax_error", sp.Symbol(r"E_{\max}(c)"), H.error, REF,
                 (c, pi_, theta, L, R), "exact error of hard attention (gamma -> oo) at threshold c (ours)"),
        Equation("A.thm2.fixed_gamma_threshold", sp.Symbol(r"\theta_{c}(\gamma)"), Sc.theta_clt, REF_SHARP,
                 (gamma, logL), "threshold at fixed gamma: gamma + log L/(2 gamma) (ours; ell = log L)"),
        Equation("A.thm2.sharp_threshold", sp.Symbol("theta_c"), Sc.theta_c_clt, REF_SHARP, (logL,),
                 "sharp threshold sqrt(2 log L), from the optimal gamma = sqrt(log L/2) (ours)"),
        Equation("A.thm2.b_L", sp.Symbol("0"), b_L_equation(), REF_SHARP, (b, logL),
                 "b_L is the root of log(L (1 - Phi(b))) = 0, i.e. Phi^{-1}(1 - 1/L) (ours; ell = log L)"),
        Equation("A.thm2.limit_law", sp.Symbol(r"E_{\infty}(x)"), LL.law, REF_SHARP, (pi_, x, R),
                 "hard attention at theta = b_L + x: error -> min(pi Phi(-x)^R, 1 - pi) (ours)"),
    )
mutant("A.thm2.sampled_tokens:all_signal", "A.thm2.sampled_tokens",
       "positives sample all R signal tokens although one is integrated out exactly",
       lambda t: (t[0], (t[1][0], t[1][1] + 1)))
mutant("A.thm2.sampled_tokens:unshifted", "A.thm2.sampled_tokens",
       "the positives' sampled signal tokens not shifted: only the integrated-out token carries theta",
       lambda t: (t[0], (t[1][0], sp.Integer(0))))
