"""Paper A, Theorem 2 and beyond: the attention oracle and its detection threshold.

docs/paper_a_representation.md, sections "Attention oracle" and "Sharp threshold".

Step 1 (reduction).  With q = kappa xi and readout w = xi, X q = kappa u (u = X xi) and
xi^T X^T s = u^T s, so the score is S = sum_l softmax(gamma u)_l u_l, gamma = beta kappa.
A readout w = w_par xi + w_perp adds w_perp^T X^T s = sum_l s_l h_l, h = Z w_perp
independent of u: conditionally N(0, ||w_perp||^2 ||s||^2) noise, the same in both classes.

Step 2 (threshold as an i.i.d. sum).  S >= c  <=>  sum_l T_l >= 0, T_l = e^{gamma u_l}(u_l - c):
the error at threshold c is a statement about a sum of independent terms (L - R noise
tokens, R signal tokens) — the structure the numerics use.

Step 3 (one token in closed form).  P(e^{gamma u}(u - c) < D) for u = mu + g is
Phi(u_+ - mu) - Phi(u_- - mu), with u_+- = c + W_{0,-1}(gamma D e^{-gamma c}) / gamma
(Lambert W; u_- = -oo when D >= 0; the event is empty when gamma D e^{-gamma c} <= -1/e).
Conditioning on the other tokens and integrating one token out exactly (Rao-Blackwell)
lowers the Monte Carlo variance.

Step 4 (hard attention, gamma -> oo).  S -> max_l u_l, and the error at threshold c is exact:
    E_max(c) = (1 - pi)(1 - Phi(c)^L) + pi Phi(c - theta)^R Phi(c)^(L - R).

Step 5 (threshold scaling, ours).  Noise partition function Z_n = sum e^{gamma g} ~ L e^{gamma^2/2}
(gamma^2 < 2 log L).  (a) Signal dominance: gamma theta - gamma^2/2 - log L -> +oo; the best
gamma gives theta > sqrt(2 log L).  (b) Detection against the CLT fluctuation of the negative
score, sd^2 = e^{gamma^2}(1 + gamma^2)/L: gamma theta - gamma^2 - (1/2) log L -> +oo; best
gamma = sqrt(log L / 2), again theta > sqrt(2 log L); at FIXED gamma: theta > gamma + log L/(2 gamma),
the paper's log L scaling with constant 1/(2 gamma).  (c) Hard max: error -> 0 iff
theta - b_L -> +oo, b_L = Phi^{-1}(1 - 1/L) = sqrt(2 log L) - (log log L + log 4 pi)/(2 sqrt(2 log L)) + ...
(d) Lower bound (any classifier; R fixed): for theta = r sqrt(2 log L), r < 1, the Bayes error
tends to min(pi, 1 - pi) (sparse-detection boundary).  So the sharp threshold is
theta ~ sqrt(2 log L), ratio constant 1, reached by attention.

Step 6 (limit law of hard attention, ours).  With theta = b_L + x and c = b_L + y/a_L
(a_L = sqrt(2 log L)): Phi(c)^L -> t = exp(-e^{-y}) and Phi(c - theta) -> Phi(-x), so
E -> min_t [(1 - pi)(1 - t) + pi Phi(-x) t] = min(pi Phi(-x), 1 - pi).
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation

gamma = sp.Symbol("gamma", positive=True)
theta = sp.Symbol("theta", positive=True)
L = sp.Symbol("L", positive=True, integer=True)
R = sp.Symbol("R", positive=True, integer=True)
pi_ = sp.Symbol("pi", positive=True)
c = sp.Symbol("c", real=True)
u = sp.Symbol("u", real=True)
D = sp.Symbol("D", real=True)
g = sp.Symbol("g", real=True)
x = sp.Symbol("x", real=True)
t = sp.Symbol("t", positive=True)
logL = sp.Symbol("ell", positive=True)        # log L

REF = "docs/paper_a_representation.md#attention-oracle"
REF_SHARP = "docs/paper_a_representation.md#sharp-threshold"


def Phi(z):
    return sp.erfc(-z / sp.sqrt(2)) / 2


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


# --- step 2: the threshold event as an iid sum -----------------------------------------------
token_term = sp.exp(gamma * u) * (u - c)

# --- step 3: one token in closed form (Lambert W) ------------------------------------------
_roots = sp.solve(sp.Eq(token_term, D), u)        # c + LambertW(gamma D e^{-gamma c})/gamma
one_token_roots = tuple(sp.simplify(r) for r in _roots)
token_min_at = sp.solve(sp.diff(token_term, u), u)[0]          # u = c - 1/gamma
token_min_value = sp.simplify(token_term.subs(u, token_min_at))  # -e^{gamma c - 1}/gamma

# --- step 4: hard attention ---------------------------------------------------------------
hardmax_error = (1 - pi_) * (1 - Phi(c) ** L) + pi_ * Phi(c - theta) ** R * Phi(c) ** (L - R)
hardmax_error_dc = sp.diff(hardmax_error, c)

# --- step 5: threshold scaling --------------------------------------------------------------
# (a) dominance exponent and its optimum over gamma
dominance_exponent = gamma * theta - gamma**2 / 2 - logL
theta_dominance = sp.solve(sp.Eq(dominance_exponent, 0), theta)[0]          # ell/gamma + gamma/2
gamma_dominance = sp.solve(sp.diff(theta_dominance, gamma), gamma)[0]        # sqrt(2 ell)
theta_c_dominance = sp.simplify(theta_dominance.subs(gamma, gamma_dominance))  # sqrt(2 ell)

# (b) the CLT fluctuation of the negative score: delta method for A/B,
#     var(S_-) ~ E[e^{2 gamma g}(g - m)^2] / (L E[e^{gamma g}]^2),  m = E[g e^{gamma g}]/E[e^{gamma g}]
_gauss = lambda expr: sp.integrate(expr * phi(g), (g, -sp.oo, sp.oo))
partition_mean = sp.simplify(_gauss(sp.exp(gamma * g)))                    # e^{gamma^2/2}
negative_center = sp.simplify(_gauss(g * sp.exp(gamma * g)) / partition_mean)  # gamma
clt_variance_times_L = sp.simplify(
    _gauss(sp.exp(2 * gamma * g) * (g - negative_center) ** 2) / partition_mean**2)  # e^{g^2}(1+g^2)
# signal shift of a token at theta (typical g = 0): e^{gamma theta}(theta - gamma)/(L e^{gamma^2/2});
# log(shift / sd) = gamma theta - gamma^2 - ell/2 + O(log theta)
clt_exponent = gamma * theta - gamma**2 - logL / 2
theta_clt = sp.solve(sp.Eq(clt_exponent, 0), theta)[0]                     # gamma + ell/(2 gamma)
gamma_clt = sp.solve(sp.diff(theta_clt, gamma), gamma)[0]                  # sqrt(ell/2)
theta_c_clt = sp.simplify(theta_clt.subs(gamma, gamma_clt))                # sqrt(2 ell)

# (c) max of L Gaussians: b_L with L (1 - Phi(b_L)) = 1, expansion
b_L_expansion = sp.sqrt(2 * logL) - (sp.log(logL) + sp.log(4 * sp.pi)) / (2 * sp.sqrt(2 * logL))

# --- step 6: limit law ------------------------------------------------------------------
limit_objective = (1 - pi_) * (1 - t) + pi_ * Phi(-x) * t            # linear in t in (0, 1)
limit_law = sp.Min(pi_ * Phi(-x), 1 - pi_)

EQUATIONS = (
    Equation("A.thm2.token_term", sp.Symbol("T(u)"), token_term, REF, (gamma, u, c),
             "S >= c iff sum_l T(u_l) >= 0: the score threshold as an i.i.d. sum (ours)"),
    Equation("A.thm2.one_token", sp.Symbol("u_{+}"), one_token_roots[-1], REF, (c, D, gamma),
             "roots of e^{gamma u}(u - c) = D: Lambert W (ours, used for Rao-Blackwellisation)"),
    Equation("A.thm2.hardmax_error", sp.Symbol(r"E_{\max}(c)"), hardmax_error, REF,
             (c, pi_, theta, L, R), "exact error of hard attention (gamma -> oo) at threshold c (ours)"),
    Equation("A.thm2.fixed_gamma_threshold", sp.Symbol(r"\theta_{c}(\gamma)"), theta_clt, REF_SHARP,
             (gamma, logL), "threshold at fixed gamma: gamma + log L/(2 gamma) (ours; ell = log L)"),
    Equation("A.thm2.sharp_threshold", sp.Symbol("theta_c"), theta_c_clt, REF_SHARP, (logL,),
             "sharp threshold sqrt(2 log L), from the optimal gamma = sqrt(log L/2) (ours)"),
    Equation("A.thm2.limit_law", sp.Symbol(r"E_{\infty}(x)"), limit_law, REF_SHARP, (pi_, x),
             "hard attention at theta = b_L + x: error -> min(pi Phi(-x), 1 - pi) (ours)"),
)
