"""Oracle test errors of Paper A's representation results, compiled from the derivations.

Every value here is a SymPy step of ``derivations.paper_a.representation_linear`` /
``representation_attention`` compiled by :mod:`numerics.core.backends` (numpy vectorised,
mpmath at any dps).  What SymPy cannot express stays generic and takes compiled expressions:

* the minimisation over the threshold c — a scan, then Newton in a bracket (``rtsafe`` of
  :mod:`numerics.core.solve`) on the compiled dE/dc (with the SymPy d2E/dc2) or golden
  section (``golden``) when E is a Monte Carlo average; both return a typed Solution, so a
  threshold is never a non-converged iterate;
* b_L, the root of the compiled equation log(L (1 - F_0(b))) = 0 (``rtsafe``);
* a finite sum over the hypergeometric overlap (k-sparse rules) and a grid inf-sup (the
  lower bound for every linear rule);
* the Rao-Blackwellised Monte Carlo of softmax attention: the sampled tokens enter only
  through the compiled token term T = T_0 + c T_1, and the average is of the compiled
  conditional error (one token integrated out exactly).

Functions: :func:`pool_error_mp` / :func:`pool_error_np` / :func:`pool_error_at`,
:func:`vec_ksparse_error` / :func:`vec_ksparse_best`, :func:`vec_lower_bound`,
:func:`hardmax_error`, :func:`b_L_mp`, :func:`hardmax_limit_law`, :func:`one_token_prob`,
:func:`softmax_error_rb`.  See docs/paper_a_representation.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from sympy.codegen.cfunctions import expm1

from numerics.core.backends import MPMATH, NUMPY, to_mpf
from numerics.core.params import ParamSpace, ParameterError
from numerics.papers.paper_a.vocabulary import L as L_P, PI, R as R_P, THETA
from numerics.core.results import RESULTS, Solution, SolveError
from numerics.core.solve import solve

# --- parameters ------------------------------------------------------------------------
LINEAR_SPACE = ParamSpace(
    (L_P.with_default(100), R_P.with_default(1), PI.with_default(0.3), THETA.with_default(3.0)),
)
HARDMAX_SPACE = ParamSpace(
    (L_P.with_default(10_000), R_P.with_default(1), PI.with_default(0.5), THETA.with_default(4.0)),
)


def _lin():
    from derivations.paper_a import representation_linear   # lazy: SymPy work
    return representation_linear


def _att():
    from derivations.paper_a import representation_attention
    return representation_attention




def _np(expr, args):
    return NUMPY.compile(expr, args, raw=True)


def _mp(expr, args):
    return MPMATH.compile(expr, args, raw=True)


#: log-probabilities below this are clamped: exp(-10^7) < 10^(-4.3 10^6), zero next to any
#: other probability at any precision we work at, while mpmath's exp of -10^(10^6) takes minutes
EXP_FLOOR = -(10**7)


def _outer_exponentials(expr) -> set:
    """The exp / expm1 nodes of ``expr`` that are not inside another one's argument."""
    if getattr(expr, "func", None) in (sp.exp, expm1):
        return {expr}
    return set().union(*(_outer_exponentials(a) for a in expr.args)) if expr.args else set()


@lru_cache(maxsize=256)   # keyed by the expression: a mutated expression is compiled anew
def _mp_clamped(expr, args):
    """mpmath evaluator of ``expr`` with the argument of every exp / expm1 clamped below at
    EXP_FLOOR (a generic underflow guard for expressions whose exponentials are probabilities
    in log form: the exponents are compiled separately, clamped, and passed to the compiled
    outer expression)."""
    atoms = sorted(_outer_exponentials(expr), key=sp.default_sort_key)
    zs = [sp.Symbol(f"_exp_arg{i}") for i in range(len(atoms))]
    outer = _mp(expr.xreplace({a: a.func(z) for a, z in zip(atoms, zs)}), tuple(args) + tuple(zs))
    inner = [_mp(a.args[0], args) for a in atoms]
    floor = mpmath.mpf(EXP_FLOOR)

    def f(*x):
        return outer(*x, *[max(g(*x), floor) for g in inner])
    return f


# --- the threshold minimisation (compiled functions in, typed Solution out) ----------------

def minimise_on_grid(f, grid, *, floor, df=None, d2f=None, tol=1e-12, max_steps=500) -> Solution | None:
    """Minimise ``f`` over a sorted ``grid`` then polish between the neighbours of the
    discrete minimiser: Newton on ``df`` (with ``d2f``) when given, else (or when ``df``
    shows no sign change in float arithmetic) golden section.

    ``floor`` is the best constant rule's error: None is returned when no grid point is
    below it (the oracle is the constant rule).  Raises SolveError when the minimum lies at
    an end of the grid or the polish does not converge."""
    vals = [f(z) for z in grid]
    j = min(range(len(grid)), key=lambda i: vals[i])
    if vals[j] >= floor * (1 - 1e-9):
        return None
    if j == 0 or j == len(grid) - 1:
        _no_interior_minimum()
    lo, hi = grid[j - 1], grid[j + 1]
    sol = None
    if df is not None:
        sol = solve("rtsafe", df, d2f, lo, hi, tol, x0=grid[j], max_steps=max_steps, throw=False,
                      message="threshold: Newton on dE/dc")
        if not sol.ok and sol.result is not RESULTS.no_bracket:
            sol.check()
    if sol is None or not sol.ok:
        # no derivative, or dE/dc has no resolvable sign change (E flat to rounding there)
        sol = solve("golden", f, lo, hi, tol, max_steps=max_steps,
                      message="threshold: golden section")
    sol.stats["grid_value"] = vals[j]
    return sol


def _no_interior_minimum():
    raise SolveError(Solution(RESULTS.no_bracket, 0, float("nan"), message="minimum at the end of the threshold scan"))


# --- linear baselines ------------------------------------------------------------------

def _pool_fns(compile_=_np):
    """The pooled error and threshold of S and pi, compiled by ``compile_`` (``_np`` or ``_mp``)."""
    lin = _lin()
    P = lin.pooled()
    return compile_(P.error_S, (lin.S, lin.pi_)), compile_(P.threshold, (lin.S, lin.pi_))


def _constant_rules(pi, compile_=_np):
    """(error at c = +oo, error at c = -oo) of the pooled rule at S = 0 (compiled
    error_of_threshold at c = +-oo)."""
    lin = _lin()
    f = compile_(lin.pooled().error_of_threshold, (lin.c, lin.S, lin.pi_))
    return f(math.inf, 0, pi), f(-math.inf, 0, pi)


def pool_error_mp(S, pi, dps: int = 30) -> mpmath.mpf:
    """E*_pool(S, pi) at ``dps`` digits (S = 0: the best constant rule, the S -> 0 limit)."""
    err, _thr = _pool_fns(_mp)
    with mpmath.workdps(dps + 15):
        S_, p_ = to_mpf(S), to_mpf(pi)
        if S_ == 0:
            return +min(_constant_rules(p_, _mp))
        return +err(S_, p_)


def pool_threshold_mp(S, pi, dps: int = 30) -> mpmath.mpf:
    _err, thr = _pool_fns(_mp)
    with mpmath.workdps(dps + 15):
        return +thr(to_mpf(S), to_mpf(pi))


def pool_error_np(S, pi):
    err, _thr = _pool_fns(_np)
    S = np.asarray(S, float)
    e = err(np.where(S > 0, S, 1.0), float(pi))
    return np.where(S > 0, e, min(_constant_rules(float(pi))))


def snr(theta, L, R, dps: int = 30) -> mpmath.mpf:
    """S = theta R / sqrt(L) (step A.thm1.snr), in mpmath."""
    lin = _lin()
    with mpmath.workdps(dps + 15):
        return +_mp(lin.pooled().snr, (lin.theta, lin.L, lin.R))(to_mpf(theta), to_mpf(L), to_mpf(R))


def snr_fixed(theta, R, dps: int = 30) -> mpmath.mpf:
    """SNR of the mean-direction rule under fixed positions (step A.thm1.snr_fixed)."""
    lin = _lin()
    with mpmath.workdps(dps + 15):
        return +_mp(lin.position_laws().snr_fixed, (lin.theta, lin.R))(to_mpf(theta), to_mpf(R))


def snr_block(theta, R, m, dps: int = 30) -> mpmath.mpf:
    """SNR of the mean-direction rule under the block law on m tokens (step A.thm1.snr_block)."""
    lin = _lin()
    with mpmath.workdps(dps + 15):
        return +_mp(lin.position_laws().snr_block, (lin.theta, lin.R, lin.m_blk))(
            to_mpf(theta), to_mpf(R), to_mpf(m))


def pool_error_at(theta, L, R, pi, dps: int = 30) -> mpmath.mpf:
    """E*_pool at (theta, L, R, pi): the compiled SNR step, then the compiled error."""
    return pool_error_mp(snr(theta, L, R, dps), pi, dps)


@dataclass(frozen=True)
class VecRule:
    k: int
    threshold: float
    error: float


def _ksparse_fns():
    lin = _lin()
    K = lin.vec_ksparse()
    args = (lin.c, lin.m, lin.k, lin.theta, lin.pi_)
    d1 = sp.diff(K.conditional, lin.c)
    return (_np(K.conditional, args), _np(d1, args), _np(sp.diff(d1, lin.c), args),
            _mp(K.pmf, (lin.m, lin.k, lin.L, lin.R)), _mp(sp.Tuple(*K.support), (lin.k, lin.L, lin.R)))


def _ksparse_law(k: int, L: int, R: int):
    _f, _d1, _d2, pmf, support = _ksparse_fns()
    lo, hi = (int(v) for v in support(k, L, R))
    ms = np.arange(lo, hi + 1)
    with mpmath.workdps(30):
        w = np.array([float(pmf(int(mm), k, L, R)) for mm in ms])
    return ms, w


def vec_ksparse_error(k: int, c, L: int, R: int, pi: float, theta: float):
    """E_k(c) (float64, vectorised over c): rule a = 1_K/sqrt(k), uniform positions."""
    f = _ksparse_fns()[0]
    ms, w = _ksparse_law(k, L, R)
    cc = np.asarray(c, float)
    return f(cc[..., None], ms, k, theta, pi) @ w


def vec_ksparse_best(L: int, R: int, pi: float, theta: float, ks=None) -> VecRule:
    """min over k (default all 1..L, or the given ks) and c of E_k(c): a scan over c, then
    Newton on the compiled dE_k/dc."""
    f, d1, d2, _pmf, _support = _ksparse_fns()
    grid = list(np.linspace(-8.0, 8.0 + theta * R, 801))
    best = None
    for k in (range(1, L + 1) if ks is None else ks):
        ms, w = _ksparse_law(int(k), L, R)
        E = lambda z: float(f(z, ms, k, theta, pi) @ w)
        dE = lambda z: float(d1(z, ms, k, theta, pi) @ w)
        d2E = lambda z: float(d2(z, ms, k, theta, pi) @ w)
        trivial = min(E(-np.inf), E(np.inf))        # the constant rules c = -oo, +oo
        sol = minimise_on_grid(E, grid, floor=trivial, df=dE, d2f=d2E, tol=1e-12)
        cc, e = (sol.value, E(sol.value)) if sol is not None else (math.inf, trivial)
        if best is None or e < best.error:
            best = VecRule(int(k), float(cc), float(e))
    return best


def vec_ksparse_threshold_error(k: int, L: int, R: int, pi: float, theta: float) -> VecRule:
    """The oracle error of one k-sparse rule: min over c of E_k(c)."""
    return vec_ksparse_best(L, R, pi, theta, ks=[k])


def vec_lower_bound(S: float, pi: float, C: float = 1.0, R: int = 1) -> float:
    """inf_c sup_tau [(1-pi) Phi(-c) + pi (1 - C R S/tau)_+ Phi(c - tau)] (any linear rule,
    any position law with ||p|| <= C R / sqrt(L)); step 7 of representation_linear.

    Evaluated on grids (c: 1201 points, tau: 1500 geometric points above the tau where the
    bracket vanishes); a grid sup is below the true sup, so the value returned is still a
    valid lower bound up to the c-grid spacing."""
    lin = _lin()
    B = lin.vec_lower_bound()
    f = _np(B.integrand, (lin.c, lin.pi_, lin.C_p, lin.R, lin.S, lin.tau))
    s0 = max(float(_np(B.tau_min, (lin.C_p, lin.R, lin.S))(C, R, S)), 1e-12)
    taus = np.geomspace(s0 * 1.0001, s0 * 1e4 + 50, 1500)
    cs = np.linspace(-8, 8 + 10 * s0, 1201)
    inner = f(cs[:, None], pi, C, R, S, taus[None, :]).max(axis=1)
    return float(min(inner.min(), *_constant_rules(float(pi))))


# --- hard attention ------------------------------------------------------------------------

def _hardmax_fns():
    """(E, dE/dc, d2E/dc2, constant rules, E in numpy), in (c, ell = log L, R, pi, theta)."""
    att = _att()
    e, d1, d2 = att.hardmax_log_form(in_log_L=True)
    args = (att.c, att.logL, att.R, att.pi_, att.theta)
    triv = sp.Tuple(*att.hardmax().trivial).subs(att.L, sp.exp(att.logL))
    # E's exponents are log-probabilities (clamping them is harmless); its derivatives carry
    # densities times L, evaluated only near the optimum, so they are compiled as they are
    return (_mp_clamped(e, args), _mp(d1, args), _mp(d2, args),
            _mp(triv, (att.pi_, att.logL, att.R)), _np(e, args))


@dataclass(frozen=True)
class HardmaxResult:
    error: mpmath.mpf
    threshold: mpmath.mpf | float
    trivial: bool
    residual: mpmath.mpf
    solution: Solution | None = None


def b_L_mp(lnL, dps: int = 30) -> mpmath.mpf:
    """b_L, the root of the compiled log(L (1 - F_0(b))) = 0, from ln L (mpmath, so that
    L = 10^(10^6) is fine); Newton started at the compiled two-term expansion."""
    att = _att()
    with mpmath.workdps(dps + 10):
        ell = mpmath.mpf(lnL)
        if ell <= 0:
            raise ParameterError(f"parameter L: must be > 1, got exp({lnL})")
        eq = att.b_L_equation()
        g = _mp(eq, (att.b, att.logL))
        dg = _mp(sp.diff(eq, att.b), (att.b, att.logL))
        x0 = _mp(att.b_L_expansion(), (att.logL,))(ell) if ell > 1 else mpmath.mpf(0)
        hi = mpmath.sqrt(2 * ell) + 2
        sol = solve("rtsafe", lambda z: g(z, ell), lambda z: dg(z, ell), mpmath.mpf(-10), hi,
                    mpmath.mpf(10) ** (-(dps + 5)), x0=x0, max_steps=400, message="b_L root")
        return +sol.value


def b_L(L) -> float:
    """The exact quantile b_L = Phi^{-1}(1 - 1/L) (location of the noise maximum)."""
    with mpmath.workdps(30):
        return float(b_L_mp(mpmath.log(mpmath.mpf(L))))


def _mp_param(v):
    return v if isinstance(v, mpmath.mpf) else to_mpf(v)


def hardmax_error(L, R: int, pi, theta, dps: int = 30, lnL=None) -> HardmaxResult:
    """Oracle error of hard attention: min over c of E_max(c), or the best constant rule.

    A scan over c = b_L + s / a_L (a_L the Gumbel scale, both compiled) and over a uniform
    grid up to theta + b_L (float64 when L and E fit, else mpmath at 30 digits), then Newton on
    the compiled dE/dc (SymPy d2E/dc2) to 10^-(dps+5) at dps + 20 digits; the residual is
    |E'(c*)|.  A scan minimum within 10^-12 (float64) of the constant rules' error is
    reported as the constant rule.  ``lnL`` (instead of L) allows astronomically long
    sequences (L = exp(lnL))."""
    att = _att()
    E, dE, d2E, triv_fn, E_np = _hardmax_fns()
    with mpmath.workdps(dps + 20):
        P, T = _mp_param(pi), _mp_param(theta)
        if lnL is None:
            if not (1 <= R <= L):
                raise ParameterError(f"parameter R: must be an integer in [1, L] = [1, {L}], got {R}")
            ell = mpmath.log(mpmath.mpf(int(L)))
        else:
            ell = mpmath.mpf(lnL)
        Rm = mpmath.mpf(int(R))
        t_hi, t_lo = triv_fn(P, ell, Rm)
        triv = min(t_hi, t_lo)
        trivial = HardmaxResult(+triv, math.inf if t_hi <= t_lo else -math.inf, True, mpmath.mpf(0))
        if ell > mpmath.log(2):
            b = b_L_mp(ell, 30)
            with mpmath.workdps(30):
                a = _mp(att.gumbel_scale(), (att.b, att.logL))(b, ell)
        else:                      # (almost) no noise token: centre the scan at 0
            b, a = mpmath.mpf(0), mpmath.mpf(1)
        cands = [b + s / a for s in mpmath.linspace(-8, 40, 49)]
        cands += list(mpmath.linspace(max(b - 6, b - 8 / a), T + max(b, 0) + 6, 61))
        grid = []
        for z in sorted(cands):              # merged, sorted, without (near-)duplicates
            if not grid or z - grid[-1] > mpmath.mpf(10) ** (-12) * (1 + abs(z)):
                grid.append(z)
        f = lambda z: E(z, ell, Rm, P, T)
        vals = None
        if ell < 690:                        # L fits in float64: scan in numpy ...
            with np.errstate(all="ignore"):
                vals = list(E_np(np.array(grid, float), float(ell), float(Rm), float(P), float(T)))
            close = 1e-12
            if not min(vals) > 1e-250:       # ... unless E underflows there
                vals = None
        if vals is None:
            with mpmath.workdps(30):
                vals = [f(z) for z in grid]
            close = 1e-25
        j = min(range(len(grid)), key=lambda i: vals[i])
        if vals[j] >= triv * (1 - close):
            return trivial
        if j in (0, len(grid) - 1):
            _no_interior_minimum()
        sol = solve("rtsafe", lambda z: dE(z, ell, Rm, P, T), lambda z: d2E(z, ell, Rm, P, T),
                    grid[j - 1], grid[j + 1], mpmath.mpf(10) ** (-(dps + 5)), x0=grid[j], max_steps=400,
                    message="hard-max threshold: Newton on dE/dc")
        c_star = sol.value
        e1 = f(c_star)
        if e1 >= triv:
            return trivial
        return HardmaxResult(+e1, +c_star, False, +abs(dE(c_star, ell, Rm, P, T)), sol)


def hardmax_limit_law(x, pi, R: int = 1, dps: int = 30) -> mpmath.mpf:
    """min(pi Phi(-x)^R, 1 - pi): the L -> oo error at theta = b_L + x (step 6, compiled)."""
    att = _att()
    with mpmath.workdps(dps + 10):
        return +_mp(att.limit_law().law, (att.pi_, att.x, att.R))(_mp_param(pi), _mp_param(x), mpmath.mpf(R))


def sharp_threshold_mp(lnL, dps: int = 30) -> mpmath.mpf:
    """theta_c = sqrt(2 log L) (step A.thm2.sharp_threshold, compiled)."""
    att = _att()
    with mpmath.workdps(dps + 10):
        return +_mp(att.scaling().theta_c_clt, (att.logL,))(mpmath.mpf(lnL))


# --- softmax attention, finite gamma: Rao-Blackwellised Monte Carlo ----------------------

def _softmax_fns():
    att = _att()
    O, C = att.one_token(), att.softmax_conditional()
    return (_np(O.term_0, (att.u, att.gamma)), _np(O.term_1, (att.u, att.gamma)),
            _np(O.prob, (att.D, att.c, att.gamma, att.mu)),
            _np(C.error, (att.D_neg, att.D_pos, att.c, att.gamma, att.theta, att.pi_)),
            _np(sp.Tuple(*C.trivial), (att.pi_,)))


def sampled_tokens(L: int, R: int) -> tuple:
    """((tokens sampled, of which signal) for the negatives, the same for the positives) of the
    Rao-Blackwellised Monte Carlo at (L, R): the step ``A.thm2.sampled_tokens``."""
    att = _att()
    counts = att.softmax_conditional().sampled
    f = _mp(sp.Tuple(*(sp.Tuple(*cl) for cl in counts)), (att.L, att.R))
    return tuple(tuple(int(v) for v in cl) for cl in f(int(L), int(R)))


def one_token_prob(D, c: float, gamma: float, mu) -> np.ndarray:
    """P(e^{gamma u}(u - c) < D) for u = mu + N(0,1), vectorised over D (compiled step 3)."""
    with np.errstate(all="ignore"):
        p = _softmax_fns()[2](np.asarray(D, float), float(c), float(gamma), mu)
    return np.asarray(p, float)


@dataclass(frozen=True)
class SoftmaxEstimate:
    error: float
    se: float
    threshold: float
    n: int
    method: str = "Rao-Blackwellised MC (one token exact), threshold fitted on a separate half"


def _token_sums(rng, n, m, gamma, T0, T1, shift=None, chunk=4_000_000):
    """(sum_l T_0(u_l), sum_l T_1(u_l)) over m sampled tokens, n samples: u_l ~ N(0, 1), the
    first ``shift[0]`` tokens shifted by ``shift[1]`` (the sampled signal tokens)."""
    A0, A1 = np.empty(n), np.empty(n)
    block = max(1, chunk // max(m, 1))
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(0, n, block):
            e = min(n, s + block)
            g = rng.standard_normal((e - s, m))
            if shift is not None:
                g[:, : shift[0]] += shift[1]
            A0[s:e] = T0(g, gamma).sum(axis=1)
            A1[s:e] = T1(g, gamma).sum(axis=1)
    return A0, A1


def softmax_error_rb(rng: np.random.Generator, L: int, R: int, pi: float, theta: float,
                     gamma: float, n: int) -> SoftmaxEstimate:
    """Oracle (best threshold) error of softmax attention S = u^T softmax(gamma u).

    Negatives: L - 1 tokens sampled, one integrated out exactly.  Positives: the L - R noise
    tokens and R - 1 signal tokens sampled, one signal token integrated out exactly (the counts
    are the step ``A.thm2.sampled_tokens``: :func:`sampled_tokens`).  The
    sampled tokens give D = -sum_l T(u_l) through the compiled T = T_0 + c T_1; the
    compiled conditional error is smooth in c; c is chosen on the first half of the samples
    (scan, then golden section), the error (and its se) is estimated on the second half."""
    if gamma <= 0:
        raise ParameterError(f"parameter gamma: must be a real number in (0, inf), got {gamma}")
    T0, T1, _prob, cond_fn, trivial_fn = _softmax_fns()
    (m_neg, k_neg), (m_pos, k_pos) = sampled_tokens(L, R)
    A0n, A1n = _token_sums(rng, n, m_neg, gamma, T0, T1, shift=(k_neg, theta) if k_neg > 0 else None)
    A0p, A1p = _token_sums(rng, n, m_pos, gamma, T0, T1, shift=(k_pos, theta) if k_pos > 0 else None)

    def cond(c, idx):
        with np.errstate(all="ignore"):
            return np.asarray(cond_fn(-(A0n[idx] + c * A1n[idx]), -(A0p[idx] + c * A1p[idx]),
                                      c, gamma, theta, pi), float)

    half = n // 2
    tr, te = np.arange(half), np.arange(half, n)
    t_hi, t_lo = (float(v) for v in trivial_fn(float(pi)))
    trivial = min(t_hi, t_lo)
    grid = list(np.linspace(-3.0, theta + gamma + 6.0, 41))
    sol = minimise_on_grid(lambda cc: float(cond(cc, tr).mean()), grid, floor=trivial, tol=1e-5)
    if sol is None:
        return SoftmaxEstimate(float(trivial), 0.0, math.inf if t_hi <= t_lo else -math.inf, n)
    c_star = float(sol.value)
    vals = cond(c_star, te)
    e = float(vals.mean())
    if e >= trivial:
        return SoftmaxEstimate(float(trivial), 0.0, math.inf if t_hi <= t_lo else -math.inf, n)
    return SoftmaxEstimate(e, float(vals.std(ddof=1) / np.sqrt(te.size)), c_star, n)
