"""Oracle test errors of the representation results (issue 4), as numbers.

* Linear baselines: :func:`pool_error_mp` (any dps, from the SymPy closed form),
  :func:`pool_error_np`, :func:`vec_ksparse_best` (exact hypergeometric sums),
  :func:`vec_lower_bound`.
* Hard attention (gamma -> oo): :func:`hardmax_error` — exact formula, optimal threshold by a
  float64 scan polished with ``mpmath.findroot`` on the exact derivative, evaluated in a
  log-stable form (Phi(c)^L = exp(L log1p(-Q(c))) so that L = 10^100 is fine).
* Softmax attention at finite gamma: :func:`softmax_error_rb` — Monte Carlo over the noise
  tokens with ONE token integrated out exactly (Lambert W, step 3 of
  derivations.paper_a.representation_attention), threshold chosen on one half of the
  samples and the error estimated on the other half, with its standard error.

See docs/paper_a_representation.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import lambertw, log_ndtr, ndtr, ndtri

from numerics.core.backends import lambdify, to_mpf
from numerics.core.params import L as L_P, PI, Param, ParamSpace, ParameterError, R as R_P, THETA, r_le_l

# --- parameters ------------------------------------------------------------------------
GAMMA = Param("gamma", float, 0.0, None, lo_open=True, doc="beta * kappa (softmax sharpness), > 0")
THETA_POS = Param("theta", float, 0.0, None, doc="signal strength theta >= 0", default=3.0)
LINEAR_SPACE = ParamSpace(
    (L_P.with_default(100), R_P.with_default(1), PI.with_default(0.3), THETA_POS),
    (r_le_l,),
)
HARDMAX_SPACE = ParamSpace(
    (L_P.with_default(10_000), R_P.with_default(1), PI.with_default(0.5), THETA_POS.with_default(4.0)),
    (r_le_l,),
)


# --- linear baselines ------------------------------------------------------------------
_POOL_MP = None


def _pool_mp_fn():
    global _POOL_MP
    if _POOL_MP is None:
        from derivations.paper_a import representation_linear as lin   # lazy: SymPy work

        _POOL_MP = lambdify(lin.error_pool_S, (lin.S, lin.pi_), "mpmath")
    return _POOL_MP


def pool_error_mp(S, pi, dps: int = 30) -> mpmath.mpf:
    """E*_pool(S, pi) at ``dps`` digits (S = 0: the limit min(pi, 1 - pi))."""
    with mpmath.workdps(dps + 15):
        S_, p_ = to_mpf(S), to_mpf(pi)
        if S_ == 0:
            return +min(p_, 1 - p_)
        return +_pool_mp_fn()(S_, p_)


def pool_threshold_mp(S, pi, dps: int = 30) -> mpmath.mpf:
    with mpmath.workdps(dps + 15):
        S_, p_ = to_mpf(S), to_mpf(pi)
        return S_ / 2 + mpmath.log((1 - p_) / p_) / S_


def pool_error_np(S, pi):
    S = np.asarray(S, float)
    kappa = np.log((1 - pi) / pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = (1 - pi) * ndtr(-S / 2 - kappa / S) + pi * ndtr(-S / 2 + kappa / S)
    return np.where(S > 0, e, min(pi, 1 - pi))


def _min_over_c(fun, lo, hi, n=801):
    grid = np.linspace(lo, hi, n)
    vals = np.array([fun(cc) for cc in grid])
    j = int(np.argmin(vals))
    a, b = grid[max(j - 1, 0)], grid[min(j + 1, n - 1)]
    res = minimize_scalar(fun, bounds=(a, b), method="bounded", options={"xatol": 1e-10})
    return (res.x, res.fun) if res.fun <= vals[j] else (grid[j], vals[j])


@dataclass(frozen=True)
class VecRule:
    k: int
    threshold: float
    error: float


def vec_ksparse_error(k: int, c: float, L: int, R: int, pi: float, theta: float) -> float:
    """E_k(c) (float64): rule a = 1_K/sqrt(k), uniform positions, threshold c."""
    from scipy.stats import hypergeom
    ms = np.arange(max(0, R - (L - k)), min(k, R) + 1)
    h = hypergeom.pmf(ms, L, k, R)
    return float((1 - pi) * ndtr(-c) + pi * np.sum(h * ndtr(c - theta * ms / np.sqrt(k))))


def vec_ksparse_best(L: int, R: int, pi: float, theta: float, ks=None) -> VecRule:
    """min over k (default all 1..L, or the given ks) and c of E_k(c) (grid + bounded refine)."""
    from scipy.stats import hypergeom
    best = None
    for k in (range(1, L + 1) if ks is None else ks):
        ms = np.arange(max(0, R - (L - k)), min(k, R) + 1)
        h = hypergeom.pmf(ms, L, k, R)
        shift = theta * ms / math.sqrt(k)
        fun = lambda z: float((1 - pi) * ndtr(-z) + pi * np.dot(h, ndtr(z - shift)))
        grid = np.linspace(-8.0, max(shift.max(), 0.0) + 8.0, 801)
        vals = (1 - pi) * ndtr(-grid) + pi * (ndtr(grid[:, None] - shift[None, :]) @ h)
        j = int(np.argmin(vals))
        res = minimize_scalar(fun, bounds=(grid[max(j - 1, 0)], grid[min(j + 1, 800)]),
                              method="bounded", options={"xatol": 1e-10})
        cc, e = (res.x, res.fun) if res.fun <= vals[j] else (grid[j], vals[j])
        if best is None or e < best.error:
            best = VecRule(int(k), float(cc), float(e))
    return best


def vec_lower_bound(S: float, pi: float, C: float = 1.0, R: int = 1) -> float:
    """inf_c sup_tau [(1-pi) Phi(-c) + pi (1 - C R S/tau)_+ Phi(c - tau)] (any linear rule,
    any position law with ||p|| <= C R / sqrt(L)); step 6 of representation_linear.

    Evaluated on grids (c: 1201 points, tau: 1500 geometric points); a grid sup is below the
    true sup, so the value returned is still a valid lower bound up to the c-grid spacing."""
    s0 = max(C * R * S, 1e-12)
    taus = np.geomspace(s0 * 1.0001, s0 * 1e4 + 50, 1500)
    cs = np.linspace(-8, 8 + 10 * s0, 1201)
    hit = np.clip(1 - s0 / taus, 0, None)
    inner = (1 - pi) * ndtr(-cs) + pi * (hit[None, :] * ndtr(cs[:, None] - taus[None, :])).max(axis=1)
    return float(min(inner.min(), pi, 1 - pi))


# --- hard attention ------------------------------------------------------------------------

def _hardmax_np(c, L, R, pi, theta):
    lq = log_ndtr(c)
    fa = -np.expm1(L * lq)
    miss = np.exp(R * log_ndtr(c - theta) + (L - R) * lq)
    return (1 - pi) * fa + pi * miss


def _exp_small(z):
    """exp(z), returning an exact 0 for z < -10^7 (mpmath's exp of -10^50000 is slow; an error
    probability below e^(-10^7) is reported as 0)."""
    if z < -10**7:
        return mpmath.mpf(0)
    return mpmath.exp(z)


def _hardmax_mp(c, L, R, pi, theta):
    lq = mpmath.log1p(-mpmath.ncdf(-c))
    Llq = L * lq
    fa = 1 - _exp_small(Llq) if Llq < -1 else -mpmath.expm1(Llq)
    miss = _exp_small(R * mpmath.log(mpmath.ncdf(c - theta)) + (L - R) * lq)
    return (1 - pi) * fa + pi * miss


def _hardmax_dc_mp(c, L, R, pi, theta):
    """d E_max / dc (exact; the SymPy derivative hardmax_error_dc in log-stable form)."""
    lq = mpmath.log1p(-mpmath.ncdf(-c))
    q = mpmath.ncdf(c)
    pdf = mpmath.npdf(c)
    lqt = mpmath.log(mpmath.ncdf(c - theta))
    base = _exp_small(R * lqt + (L - R) * lq)
    d_fa = -L * _exp_small((L - 1) * lq) * pdf
    d_miss = base * (R * mpmath.npdf(c - theta) / mpmath.ncdf(c - theta) + (L - R) * pdf / q)
    return (1 - pi) * d_fa + pi * d_miss


@dataclass(frozen=True)
class HardmaxResult:
    error: mpmath.mpf
    threshold: mpmath.mpf | float
    trivial: bool
    residual: mpmath.mpf


def b_L_mp(lnL) -> mpmath.mpf:
    """b_L = Phi^{-1}(1 - 1/L) from ln L (mpmath, so that L = 10^(10^6) is fine)."""
    lnL = mpmath.mpf(lnL)
    if lnL <= 0:
        raise ParameterError(f"parameter L: must be > 1, got exp({lnL})")
    b0 = mpmath.sqrt(2 * lnL)
    return mpmath.findroot(lambda z: mpmath.log(mpmath.ncdf(-z)) + lnL, b0)


def b_L(L) -> float:
    """The exact quantile b_L = Phi^{-1}(1 - 1/L) (location of the noise maximum)."""
    with mpmath.workdps(30):
        return float(b_L_mp(mpmath.log(mpmath.mpf(L))))


def hardmax_error(L, R: int, pi, theta, dps: int = 30, lnL=None) -> HardmaxResult:
    """Oracle error of hard attention: min over c of E_max(c), or the trivial rule.

    All in mpmath: a scan over c = b_L + s / a_L (a_L = L phi(b_L), the Gumbel scale) and a
    uniform grid up to theta, then ``findroot`` on the exact derivative.  ``lnL`` (instead
    of L) allows astronomically long sequences (L = exp(lnL))."""
    with mpmath.workdps(dps + 20):
        P = mpmath.mpf(pi) if isinstance(pi, str) else mpmath.mpf(repr(float(pi))) if not isinstance(pi, mpmath.mpf) else pi
        T = mpmath.mpf(theta) if isinstance(theta, str) else mpmath.mpf(repr(float(theta))) if not isinstance(theta, mpmath.mpf) else theta
        if lnL is None:
            if not (1 <= R <= L):
                raise ParameterError(f"parameter R: must be an integer in [1, L] = [1, {L}], got {R}")
            Lm = mpmath.mpf(int(L))
            lnLm = mpmath.log(Lm)
        else:
            lnLm = mpmath.mpf(lnL)
            Lm = mpmath.exp(lnLm)
        Rm = mpmath.mpf(int(R))
        triv = min(P, 1 - P)
        if Lm == Rm:            # no noise token: the pooled-like 1-D problem of max of R signals
            b = mpmath.mpf(0)
            a = mpmath.mpf(1)
        else:
            with mpmath.workdps(30):
                b = b_L_mp(lnLm)
                a = mpmath.exp(lnLm + mpmath.log(mpmath.npdf(b)))
        f = lambda z: _hardmax_mp(z, Lm, Rm, P, T)
        cands = [b + s / a for s in mpmath.linspace(-8, 40, 49)]
        cands += list(mpmath.linspace(b - 6, max(T, b) + 6, 61))
        grid = []
        for z in sorted(cands):              # merged, sorted, without (near-)duplicates
            if not grid or z - grid[-1] > mpmath.mpf(10) ** (-12) * (1 + abs(z)):
                grid.append(z)
        with mpmath.workdps(30):
            vals = [f(z) for z in grid]
        jj = min(range(len(grid)), key=lambda i: vals[i])
        if vals[jj] >= triv:
            return HardmaxResult(+triv, math.inf if P < 0.5 else -math.inf, True, mpmath.mpf(0))
        # the minimiser lies between the neighbours of the discrete minimiser
        lo, hi = grid[max(jj - 1, 0)], grid[min(jj + 1, len(grid) - 1)]
        # golden-section to a few digits, then Newton-type polish on the exact derivative
        gr = (mpmath.sqrt(5) - 1) / 2
        x1, x2 = hi - gr * (hi - lo), lo + gr * (hi - lo)
        f1, f2 = f(x1), f(x2)
        for _ in range(60):
            if f1 < f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - gr * (hi - lo)
                f1 = f(x1)
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + gr * (hi - lo)
                f2 = f(x2)
        c0 = (lo + hi) / 2
        dfun = lambda z: _hardmax_dc_mp(z, Lm, Rm, P, T)
        try:
            c_star = mpmath.findroot(dfun, c0, tol=mpmath.mpf(10) ** (-2 * (dps + 10)))
        except (ValueError, ZeroDivisionError):
            c_star = c0
        # findroot may leave the bracket when E is extremely flat (near-trivial problems);
        # keep whichever of the golden-section point and the root has the smaller error,
        # and report |E'(c)| at it as the residual
        e0, e1 = f(c0), f(c_star)
        if not (lo <= c_star <= hi) or e1 > e0:
            c_star, e1 = c0, e0
        resid = abs(dfun(c_star))
        if e1 >= triv:
            return HardmaxResult(+triv, math.inf if P < 0.5 else -math.inf, True, mpmath.mpf(0))
        return HardmaxResult(+e1, +c_star, False, +resid)


def hardmax_limit_law(x: float, pi: float) -> float:
    """min(pi Phi(-x), 1 - pi): the L -> oo error at theta = b_L + x (step 6)."""
    return float(min(pi * ndtr(-x), 1 - pi))


# --- softmax attention, finite gamma: Rao-Blackwellised Monte Carlo ----------------------

def _prob_token_below(Dv: np.ndarray, c: float, gamma: float, mu) -> np.ndarray:
    """P(e^{gamma u}(u - c) < D) for u = mu + N(0,1), vectorised over D (Lambert W, step 3).

    Works in z = gamma D e^{-gamma c}; the event is {x e^x < z} with x = gamma(u - c)."""
    z = gamma * Dv * np.exp(-gamma * c)
    out = np.zeros_like(z)
    pos = z >= 0
    if np.any(pos):
        x_hi = lambertw(z[pos], 0).real
        out[pos] = ndtr(c + x_hi / gamma - (mu[pos] if np.ndim(mu) else mu))
    mid = (z < 0) & (z > -np.exp(-1.0))
    if np.any(mid):
        x_hi = lambertw(z[mid], 0).real
        x_lo = lambertw(z[mid], -1).real
        m_ = mu[mid] if np.ndim(mu) else mu
        out[mid] = ndtr(c + x_hi / gamma - m_) - ndtr(c + x_lo / gamma - m_)
    return np.clip(out, 0.0, 1.0)


@dataclass(frozen=True)
class SoftmaxEstimate:
    error: float
    se: float
    threshold: float
    n: int
    method: str = "Rao-Blackwellised MC (one token exact), threshold fitted on a separate half"


def _noise_sums(rng, n, m, gamma, shift=None, chunk=4_000_000):
    """(A, B, logscale) for n samples of m noise tokens: sums of e^{gamma g - M} g and e^{gamma g - M},
    with a per-sample scale M = gamma * max(g) to avoid overflow."""
    A = np.empty(n)
    B = np.empty(n)
    M = np.empty(n)
    block = max(1, chunk // max(m, 1))
    for s in range(0, n, block):
        e = min(n, s + block)
        g = rng.standard_normal((e - s, m))
        if shift is not None:
            g[:, : shift[0]] += shift[1]
        mx = gamma * g.max(axis=1)
        w = np.exp(gamma * g - mx[:, None])
        A[s:e] = (w * g).sum(axis=1)
        B[s:e] = w.sum(axis=1)
        M[s:e] = mx
    return A, B, M


def softmax_error_rb(rng: np.random.Generator, L: int, R: int, pi: float, theta: float,
                     gamma: float, n: int) -> SoftmaxEstimate:
    """Oracle (best threshold) error of softmax attention S = u^T softmax(gamma u).

    Negatives: L - 1 tokens sampled, one integrated out exactly.  Positives: the L - R noise
    tokens and R - 1 signal tokens sampled, one signal token integrated out exactly.
    Conditional probabilities are smooth in c; c is chosen on the first half of the samples,
    the error (and its se) is estimated on the second half."""
    if gamma <= 0:
        raise ParameterError(f"parameter gamma: must be a real number in (0, inf), got {gamma}")
    An, Bn, Mn = _noise_sums(rng, n, L - 1, gamma)
    Ap, Bp, Mp = _noise_sums(rng, n, L - 1, gamma, shift=(R - 1, theta) if R > 1 else None)

    def cond(c, idx):
        # D = c B - A in the true scale: e^{M} (c B - A); the token term is compared with it
        Dn = np.exp(Mn[idx]) * (c * Bn[idx] - An[idx])
        Dp = np.exp(Mp[idx]) * (c * Bp[idx] - Ap[idx])
        p_fa = 1.0 - _prob_token_below(Dn, c, gamma, 0.0)
        p_miss = _prob_token_below(Dp, c, gamma, theta)
        return (1 - pi) * p_fa + pi * p_miss

    half = n // 2
    tr, te = np.arange(half), np.arange(half, n)
    lo, hi = -3.0, theta + gamma + 6.0
    c_star, _ = _min_over_c(lambda cc: float(cond(cc, tr).mean()), lo, hi, 61)
    vals = cond(c_star, te)
    e = float(vals.mean())
    trivial = min(pi, 1 - pi)
    if e >= trivial:
        return SoftmaxEstimate(trivial, 0.0, math.inf, n)
    return SoftmaxEstimate(e, float(vals.std(ddof=1) / np.sqrt(te.size)), float(c_star), n)
