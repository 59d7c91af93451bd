"""Capacity (separability threshold) alpha* of pooled, vectorised and attention features.

Theory: derivations.paper_a.capacity (docs/paper_a_capacity.md):

    alpha* = max_{rho, w1, b} (1 - rho^2) / E[F(y (rho c + w1 a + b) / sigma)],
    F(t) = E[(zeta - t)_+^2] = (1 + t^2) Phi(-t) - t phi(t).

* pooled / vectorised: the expectation is a two-point sum over the label (closed form).
  Solved in float64 (scipy, over rho = tanh(u)), then polished with mpmath.findroot on the
  exact SymPy gradient of log(objective), with the exact SymPy Hessian as Jacobian.  The
  result is typed (converged, iterations, residual = max |grad|), and a non-converged or
  non-maximal point raises :class:`CapacityError`.
* attention at fixed q: the latent law is (y, positions, z in R^L).  By exchangeability the
  R signal tokens are WLOG tokens 1..R; z is integrated by randomised quasi-Monte Carlo
  (scrambled Sobol, ``n_rep`` independent scramblings).  The maximiser is found on the union
  of all points (a smooth sample-average problem; L-BFGS then Newton with the exact Hessian
  built from F''), and the standard error is that of the objective at the maximiser over the
  independent scramblings (envelope theorem: the error of a max is, to first order, the error
  of the objective at the argmax).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import numpy as np

from numerics.core.seeding import children
import sympy as sp
from scipy.optimize import minimize
from scipy.special import erfcx, softmax
from scipy.stats import qmc

from derivations.paper_a import capacity as dcap
from numerics.core.params import (
    BETA, L as L_P, PI, R as R_P, THETA, Param, ParameterError, ParamSpace, r_le_l,
)

SQRT2 = math.sqrt(2.0)
SQRT_2PI = math.sqrt(2.0 * math.pi)

# ---- parameters -------------------------------------------------------------------------------
S_Q = Param("s_q", float, -1.0, 1.0, doc="alignment cos(q, xi) of the fixed query, in [-1, 1]")
GAMMA = Param("gamma", float, 0.0, None,
              doc="beta * ||q||, the softmax scale of the fixed query (gamma = 0: pooling)")
BASE_SPACE = ParamSpace(
    (L_P.with_default(10), R_P.with_default(1), PI.with_default(0.5), THETA.with_default(5.0)),
    (r_le_l,),
)
ATTENTION_SPACE = ParamSpace(
    BASE_SPACE.params + (S_Q.with_default(0.9), GAMMA.with_default(1.0)), (r_le_l,),
)


class CapacityError(RuntimeError):
    """The capacity optimisation did not converge to a strict local maximum."""


@dataclass(frozen=True)
class CapacityResult:
    """alpha* and its maximiser.  ``residual`` is max |grad log objective| at the returned
    point; ``se`` the Monte-Carlo standard error (0 for closed forms)."""

    model: str
    alpha: float | mpmath.mpf
    argmax: dict
    converged: bool
    iterations: int
    residual: float
    se: float = 0.0
    details: dict = field(default_factory=dict)


# ---- F and derivatives, float64 ---------------------------------------------------------------
#: for t >= ASYMPTOTIC_T, F(t) = phi(t) sum_k c_k t^{1-2k}, c_k = (-1)^k (2k-3)!! (2k-2) (k >= 2):
#: from the Mills-ratio series; 16 terms leave a relative error < 1e-12 at t = 12.  Below 12
#: the erfcx form loses at most log10(12^4) ~ 4.3 of float64's digits to cancellation.
ASYMPTOTIC_T = 12.0


def _asymptotic_coefs(n=16):
    out = []
    for k in range(2, 2 + n):
        dfact = 1
        for j in range(2 * k - 3, 0, -2):
            dfact *= j
        out.append(float((-1) ** k * dfact * (2 * k - 2)))
    return out


_ASYMPTOTIC_COEFS = _asymptotic_coefs()

def F_np(t):
    """F(t) = E[(zeta - t)_+^2], stable: for t > 0 use the scaled erfc, F = phi(t) [(1 + t^2)
    sqrt(pi/2) erfcx(t/sqrt2) - t]; for t <= 0 the direct form has no cancellation."""
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    pos = (t > 0) & (t < ASYMPTOTIC_T)
    tp = t[pos]
    phi = np.exp(-0.5 * tp * tp) / SQRT_2PI
    out[pos] = phi * ((1.0 + tp * tp) * math.sqrt(math.pi / 2.0) * erfcx(tp / SQRT2) - tp)
    big = t >= ASYMPTOTIC_T
    tb = t[big]
    with np.errstate(under="ignore", over="ignore"):
        inv2 = 1.0 / (tb * tb)
        series = np.zeros_like(tb)
        for coef in reversed(_ASYMPTOTIC_COEFS):
            series = series * inv2 + coef
        out[big] = np.exp(-0.5 * tb * tb) / SQRT_2PI * series * inv2 / tb
    pos = pos | big
    tn = t[~pos]
    out[~pos] = (1.0 + tn * tn) * Phi_minus_np(tn) - tn * np.exp(-0.5 * tn * tn) / SQRT_2PI
    return out


def Phi_minus_np(t):
    from scipy.special import ndtr

    return ndtr(-np.asarray(t, dtype=float))


def F1_np(t):
    """F'(t) = -2 (phi(t) - t Phi(-t)) = -2 E[(zeta - t)_+] (stable via erfcx for t > 0)."""
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    pos = t > 0
    tp = t[pos]
    phi = np.exp(-0.5 * tp * tp) / SQRT_2PI
    out[pos] = -2.0 * phi * (1.0 - tp * math.sqrt(math.pi / 2.0) * erfcx(tp / SQRT2))
    tn = t[~pos]
    out[~pos] = -2.0 * (np.exp(-0.5 * tn * tn) / SQRT_2PI - tn * Phi_minus_np(tn))
    return out


def F2_np(t):
    """F''(t) = 2 Phi(-t)."""
    return 2.0 * Phi_minus_np(t)


# ---- pooled and vectorised: closed form + mpmath polish -----------------------------------------
@lru_cache(maxsize=None)
def _compiled(model: str, backend: str):
    obj = {"pool": dcap.POOL_OBJ, "vec": dcap.VEC_OBJ, "vec_fixed": dcap.VEC_FIXED_OBJ}[model]
    args = (dcap.rho, dcap.b, dcap.theta, dcap.R, dcap.L, dcap.pi_)
    grad = dcap.stationarity(obj)
    hess = dcap.hessian(obj)
    mod = "mpmath" if backend == "mpmath" else "numpy"
    f = sp.lambdify(args, obj, modules=mod)
    g = sp.lambdify(args, list(grad), modules=mod)
    h = sp.lambdify(args, hess.tolist(), modules=mod)
    return f, g, h


def _denominator_np(model, rho, b, theta, R, L, pi):
    if model == "pool":
        tp, tn, scale = (rho * theta * R / L + b) * math.sqrt(L), -b * math.sqrt(L), 1.0
    elif model == "vec":
        tp, tn, scale = rho * theta * R / math.sqrt(L) + b, -b, float(L)
    elif model == "vec_fixed":
        tp, tn, scale = rho * theta * math.sqrt(R) + b, -b, float(L)
    else:
        raise ValueError(model)
    den = pi * F_np(np.array([tp]))[0] + (1 - pi) * F_np(np.array([tn]))[0]
    return den, scale


def _neg_log_obj(x, model, theta, R, L, pi):
    u, b = x
    rho = math.tanh(u)
    if not abs(rho) < 1:  # tanh rounded to +-1: log(1 - rho^2) = -inf, objective +inf
        return math.inf
    den, scale = _denominator_np(model, rho, b, theta, R, L, pi)
    return -(math.log(scale) + math.log1p(-rho * rho) - math.log(den))


def closed_form_capacity(model: str, L: int, R: int, pi: float, theta: float, dps: int = 30,
                         *, polish: bool = True) -> CapacityResult:
    """alpha* of the pooled ('pool'), vectorised ('vec': exchangeable positions) or
    vectorised-with-fixed-positions ('vec_fixed') model, to ``dps`` digits."""
    BASE_SPACE.validate({"L": L, "R": R, "pi": pi, "theta": theta})
    starts = [(0.0, 0.0), (0.5, -0.2), (1.0, -0.5), (1.5, 0.3)]
    best = None
    for x0 in starts:
        res = minimize(_neg_log_obj, x0, args=(model, theta, R, L, pi), method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000})
        if best is None or res.fun < best.fun:
            best = res
    u0, b0 = best.x
    rho0 = math.tanh(u0)
    alpha64 = math.exp(-best.fun)
    if not polish:
        return CapacityResult(model, alpha64, {"rho": rho0, "b": b0}, bool(best.success),
                              int(best.nit), float("nan"))
    f, g, h = _compiled(model, "mpmath")
    with mpmath.workdps(dps + 15):
        # decimal conversion: pi = 0.2 means exactly 1/5, as for SymPy's evalf
        pars = (mpmath.mpf(repr(float(theta))), int(R), int(L), mpmath.mpf(repr(float(pi))))
        iters = [0]

        def G(r_, b_):
            iters[0] += 1
            return g(r_, b_, *pars)

        def J(r_, b_):
            return mpmath.matrix(h(r_, b_, *pars))

        try:
            sol = mpmath.findroot(G, (mpmath.mpf(rho0), mpmath.mpf(b0)), J=J,
                                  tol=mpmath.mpf(10) ** (-2 * (dps + 5)), maxsteps=100)
        except (ValueError, ZeroDivisionError) as e:
            raise CapacityError(f"{model}: Newton polish failed from rho={rho0:.6g}, b={b0:.6g}: {e}") from e
        r_, b_ = sol[0], sol[1]
        resid = max(abs(v) for v in G(r_, b_))
        H = J(r_, b_)
        det = H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0]
        is_max = H[0, 0] < 0 and det > 0
        alpha = f(r_, b_, *pars)
        if not (abs(r_) < 1) or not is_max or resid > mpmath.mpf(10) ** (-dps):
            raise CapacityError(
                f"{model}: polish did not reach a strict maximum (rho={mpmath.nstr(r_, 8)}, "
                f"residual={mpmath.nstr(resid, 3)}, max={is_max})")
        if abs(alpha - alpha64) > 1e-6 * alpha64:
            raise CapacityError(f"{model}: polished value {mpmath.nstr(alpha, 10)} far from float64 {alpha64}")
        return CapacityResult(model, +alpha, {"rho": +r_, "b": +b_}, True, iters[0], float(resid))


def pool_capacity(L, R, pi, theta, dps=30):
    return closed_form_capacity("pool", L, R, pi, theta, dps)


def vec_capacity(L, R, pi, theta, dps=30):
    return closed_form_capacity("vec", L, R, pi, theta, dps)


def vec_general_m_objective(m, b, L, R, pi, theta, position_law="uniform"):
    """Vectorised threshold for a GENERAL signal-coordinate vector m in R^L (||m|| < 1), the
    expectation over positions done exactly by enumerating the R-subsets ('uniform') or the
    fixed subset {0..R-1}: L (1 - |m|^2) / [pi E_v F(theta v.m + b) + (1 - pi) F(-b)].  Used to
    check the symmetric reduction (the maximum is at m proportional to 1_L)."""
    from itertools import combinations

    m = np.asarray(m, dtype=float)
    if position_law == "uniform":
        sums = np.array([m[list(S)].sum() for S in combinations(range(L), R)])
    else:
        sums = np.array([m[:R].sum()])
    den = pi * F_np(theta * sums + b).mean() + (1 - pi) * F_np(np.array([-b]))[0]
    return L * (1 - float(m @ m)) / den


def pure_noise_capacity(pi: float) -> float:
    """max_b 1/(pi F(b) + (1 - pi) F(-b)) (theta = 0); equals 2 at pi = 1/2 (Cover)."""
    res = minimize(lambda x: math.log(pi * F_np(np.array([x[0]]))[0] + (1 - pi) * F_np(np.array([-x[0]]))[0]),
                   [0.0], method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-15})
    return math.exp(-res.fun)


# ---- attention: RQMC latent law --------------------------------------------------------------
@dataclass(frozen=True)
class LatentSample:
    """(a, c, sigma) at RQMC points, per label; ``rep`` the scrambling index of each point."""

    a_pos: np.ndarray
    c_pos: np.ndarray
    sig_pos: np.ndarray
    rep_pos: np.ndarray
    a_neg: np.ndarray
    sig_neg: np.ndarray
    rep_neg: np.ndarray
    n_rep: int


def attention_latents(L: int, R: int, theta: float, s_q: float, gamma: float, *,
                      m: int = 12, n_rep: int = 16, seed: int = 0) -> LatentSample:
    """Latent (a, c, sigma) of the attention feature at 2^m scrambled-Sobol points per
    scrambling and label (z = Phi^{-1}(u), u in (0,1)^L; positives have signal on tokens 1..R)."""
    from scipy.special import ndtri

    ss = np.random.SeedSequence(seed)
    out = {"pos": [], "neg": []}
    for lab, child in zip(("pos", "neg"), children(ss, 2)):
        for r, cs in enumerate(children(child, n_rep)):
            u = qmc.Sobol(L, scramble=True, seed=np.random.default_rng(cs)).random_base2(m)
            z = ndtri(np.clip(u, 1e-300, 1 - 1e-16))
            v = np.zeros(L)
            if lab == "pos":
                v[:R] = 1.0
                g = gamma * (theta * s_q * v[None, :] + z)
            else:
                g = gamma * z
            s = softmax(g, axis=1)
            vs = s @ v
            zs = np.einsum("nl,nl->n", s, z)
            sig = np.sqrt(np.einsum("nl,nl->n", s, s))
            if lab == "pos":
                a = theta * vs * s_q + zs
                c = theta * vs * math.sqrt(max(0.0, 1.0 - s_q * s_q))
            else:
                a, c = zs, np.zeros_like(zs)
            out[lab].append((a, c, sig, np.full(a.shape, r)))
    cat = lambda lab, i: np.concatenate([t[i] for t in out[lab]])
    return LatentSample(cat("pos", 0), cat("pos", 1), cat("pos", 2), cat("pos", 3).astype(int),
                        cat("neg", 0), cat("neg", 2), cat("neg", 3).astype(int), n_rep)


def _att_terms(x, lat: LatentSample):
    """T, dT/dx for positives and negatives at x = (rho, w1, b)."""
    rho, w1, b = x
    Tp = (rho * lat.c_pos + w1 * lat.a_pos + b) / lat.sig_pos
    dTp = np.stack([lat.c_pos, lat.a_pos, np.ones_like(lat.a_pos)]) / lat.sig_pos
    Tn = -(w1 * lat.a_neg + b) / lat.sig_neg
    dTn = -np.stack([np.zeros_like(lat.a_neg), lat.a_neg, np.ones_like(lat.a_neg)]) / lat.sig_neg
    return Tp, dTp, Tn, dTn


def _att_log_obj(x, lat, pi):
    """log alpha(x) and its gradient and Hessian (exact, from F' and F'')."""
    rho = x[0]
    Tp, dTp, Tn, dTn = _att_terms(x, lat)
    D = pi * F_np(Tp).mean() + (1 - pi) * F_np(Tn).mean()
    gD = pi * (F1_np(Tp) * dTp).mean(axis=1) + (1 - pi) * (F1_np(Tn) * dTn).mean(axis=1)
    HD = pi * np.einsum("n,in,jn->ij", F2_np(Tp), dTp, dTp) / Tp.size \
        + (1 - pi) * np.einsum("n,in,jn->ij", F2_np(Tn), dTn, dTn) / Tn.size
    if not (D > 0 and np.isfinite(D)) or not abs(rho) < 1:
        # |rho| -> 1 (tanh rounds to 1 for strong signals): the objective's log(1 - rho^2)
        # is -inf there, the maximiser is elsewhere
        return -math.inf, np.full(3, np.nan), np.full((3, 3), np.nan)
    val = math.log1p(-rho * rho) - math.log(D)
    g = -gD / D
    g[0] += -2 * rho / (1 - rho * rho)
    H = -HD / D + np.outer(gD, gD) / D**2
    H[0, 0] += -2 * (1 + rho * rho) / (1 - rho * rho) ** 2
    return val, g, H


def attention_capacity(L: int, R: int, pi: float, theta: float, s_q: float, gamma: float, *,
                       m: int = 12, n_rep: int = 16, seed: int = 0,
                       lat: LatentSample | None = None) -> CapacityResult:
    """alpha*_A at fixed q (given s_q and gamma = beta ||q||), RQMC with standard error."""
    ATTENTION_SPACE.validate({"L": L, "R": R, "pi": pi, "theta": theta, "s_q": s_q, "gamma": gamma})
    if lat is None:
        lat = attention_latents(L, R, theta, s_q, gamma, m=m, n_rep=n_rep, seed=seed)
    # float64 search: rho = tanh(u) keeps |rho| < 1
    def fun(p):
        u, w1, b = p
        rho = math.tanh(u)
        val, g, _ = _att_log_obj(np.array([rho, w1, b]), lat, pi)
        if not np.isfinite(val):
            return math.inf, np.zeros(3)
        return -val, -np.array([g[0] * (1 - rho * rho), g[1], g[2]])

    best = None
    for x0 in ([0.0, 0.0, 0.0], [0.5, 0.5, -0.5], [1.0, 1.0, -1.0]):
        res = minimize(fun, x0, jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 2000})
        if best is None or res.fun < best.fun:
            best = res
    if not np.isfinite(best.fun):
        raise CapacityError(
            "attention capacity: E[F(T)] underflows (the classes are almost separable in the "
            "low-dimensional projection; alpha* is beyond what the RQMC rule resolves)")
    x = np.array([math.tanh(best.x[0]), best.x[1], best.x[2]])
    # Newton polish on the exact gradient / Hessian of the sample-average objective
    iters = 0
    for iters in range(1, 51):
        val, g, H = _att_log_obj(x, lat, pi)
        if np.max(np.abs(g)) < 1e-12:
            break
        step = np.linalg.solve(H, -g)
        t_ = 1.0
        while abs(x[0] + t_ * step[0]) >= 1 and t_ > 1e-8:
            t_ /= 2
        x = x + t_ * step
    val, g, H = _att_log_obj(x, lat, pi)
    resid = float(np.max(np.abs(g)))
    is_max = bool(np.all(np.linalg.eigvalsh(H) < 0))
    if resid > 1e-9 or not is_max:
        raise CapacityError(f"attention capacity: no strict maximum (residual {resid:.2e}, max={is_max})")
    # standard error over independent scramblings at the maximiser
    Tp, _, Tn, _ = _att_terms(x, lat)
    Fp, Fn = F_np(Tp), F_np(Tn)
    reps = np.array([
        (1 - x[0] ** 2) / (pi * Fp[lat.rep_pos == r].mean() + (1 - pi) * Fn[lat.rep_neg == r].mean())
        for r in range(lat.n_rep)
    ])
    alpha = math.exp(val)
    se = float(reps.std(ddof=1) / math.sqrt(lat.n_rep))
    return CapacityResult("attention", alpha, {"rho": float(x[0]), "w1": float(x[1]), "b": float(x[2])},
                          True, iters, resid, se,
                          {"points_per_label": int(Tp.size), "n_rep": lat.n_rep, "rep_values": reps.tolist()})
