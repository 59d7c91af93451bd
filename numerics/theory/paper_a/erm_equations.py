"""Solve the self-consistent equations of step 4 (Paper A, Theorems 4-5) numerically.

Equations: ``derivations.paper_a.erm_equations`` (docs/paper_a_after_training.md §2).  This
module supplies

* the latent law of (y, a, c, sigma^2) as a weighted point set (:class:`LatentLaw`):
  - pooled / vectorised: two exact atoms (y = +1, y = -1);
  - attention at fixed q: randomized quasi-Monte Carlo over z ~ N(0, I_L) (scrambled Sobol,
    ``n_scrambles`` independent scramblings; by exchangeability the signal tokens are the
    first R), one point set per class, exact class weights pi and 1 - pi;
* expectations over zeta ~ N(0, 1): exact for the square loss (SymPy Gaussian moments),
  Gauss-Hermite for the logistic loss (``n_gh`` nodes; analytic integrand so the error decays
  exponentially; :func:`solve` reports the change when the rule is doubled);
* a solver: damped fixed point with Anderson acceleration in float64, then Newton steps
  (exact SymPy Jacobian for the square loss; for the logistic loss, a Jacobian by central
  differences of the residual), returning a typed :class:`SolveResult`.  A non-converged
  solve has ``converged=False`` and a status saying why; callers must not use its values;
* randomized-QMC error: :func:`solve_with_error` re-solves on each scrambling separately and
  reports std/sqrt(K) of every output.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from numerics.core.seeding import child, children
import sympy as sp
from scipy.special import erfc, expit, log_expit, ndtri, softmax
from scipy.stats import qmc

from derivations.paper_a import erm_equations as EQ
from numerics.core.backends import lambdify
from numerics.core.params import ParameterError

MODELS = ("attention", "pool", "vec")
LOSSES = ("logistic", "square")
UNKNOWN_NAMES = ("w1", "m", "b", "V", "Q")


# --------------------------------------------------------------------------------------------
# latent laws
@dataclass(frozen=True)
class LatentLaw:
    """A weighted point set for (y, a, c, sigma^2).  ``group`` labels the QMC scrambling of a
    point (-1 for exact atoms); weights sum to 1 overall."""

    y: np.ndarray
    a: np.ndarray
    c: np.ndarray
    s2: np.ndarray
    weight: np.ndarray
    group: np.ndarray
    has_a: bool
    dim_factor: float = 1.0  # alpha_eff = alpha / dim_factor (vectorised: L)
    n_groups: int = 0
    info: dict = field(default_factory=dict)

    def subset(self, g: int) -> "LatentLaw":
        """The law restricted to scrambling g (plus the exact atoms), renormalised per class."""
        keep = (self.group == g) | (self.group < 0)
        w = self.weight[keep].copy()
        y = self.y[keep]
        for cls in (-1.0, 1.0):
            tot_all = self.weight[self.y == cls].sum()
            sel = y == cls
            if sel.any() and w[sel].sum() > 0:
                w[sel] *= tot_all / w[sel].sum()
        return replace(self, y=y, a=self.a[keep], c=self.c[keep], s2=self.s2[keep], weight=w,
                       group=self.group[keep], n_groups=1)


def _check(name, value, lo, hi, lo_open=False, hi_open=False):
    bad = (value < lo or (lo_open and value == lo)) if lo is not None else False
    bad |= (value > hi or (hi_open and value == hi)) if hi is not None else False
    if bad or not math.isfinite(value):
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise ParameterError(f"parameter {name}: must be in {left}{lo}, {hi}{right}, got {value!r}")


def linear_law(model: str, L: int, R: int, pi: float, theta: float) -> LatentLaw:
    """Pooled (c = theta R / L, sigma^2 = 1/L) or vectorised (c = theta R / sqrt(L),
    sigma^2 = 1, alpha -> alpha / L) two-atom law; docs §3."""
    if model == "pool":
        mu, s2, dim = theta * R / L, 1.0 / L, 1.0
    elif model == "vec":
        mu, s2, dim = theta * R / math.sqrt(L), 1.0, float(L)
    else:
        raise ValueError(model)
    return LatentLaw(
        y=np.array([1.0, -1.0]), a=np.zeros(2), c=np.array([mu, 0.0]), s2=np.full(2, s2),
        weight=np.array([pi, 1.0 - pi]), group=np.array([-1, -1]), has_a=False, dim_factor=dim,
        n_groups=0, info={"model": model, "mu": mu, "sigma2": s2})


def attention_latents(z: np.ndarray, y: float, L: int, R: int, theta: float, beta: float,
                      q_norm: float, s_q: float):
    """(a, c, sigma^2) for Gaussian vectors z (rows) of class y; attention_reduction §Step 4."""
    th = theta if y > 0 else 0.0
    g = q_norm * z
    if th:
        g[:, :R] += th * q_norm * s_q
    s = softmax(beta * g, axis=1)
    vs = s[:, :R].sum(axis=1) if th else np.zeros(len(z))
    a = th * vs * s_q + np.einsum("nl,nl->n", z, s)
    c = th * vs * math.sqrt(max(0.0, 1.0 - s_q * s_q))
    return a, c, np.einsum("nl,nl->n", s, s)


def attention_law(L: int, R: int, pi: float, theta: float, beta: float, q_norm: float, s_q: float,
                  *, log2_points: int = 12, n_scrambles: int = 8, seed: int = 0) -> LatentLaw:
    """Randomized QMC point set for the attention latents at fixed q = (||q||, s_q)."""
    _check("s_q", s_q, -1.0, 1.0)
    _check("q_norm", q_norm, 0.0, None)
    ss = np.random.SeedSequence(seed)
    parts = {k: [] for k in ("y", "a", "c", "s2", "w", "g")}
    n = 2**log2_points
    for g_idx, group in enumerate(children(ss, n_scrambles)):
        for cls, prior in ((1.0, pi), (-1.0, 1.0 - pi)):
            u = qmc.Sobol(d=L, scramble=True, seed=np.random.default_rng(child(group, 0) if cls > 0 else group)).random_base2(log2_points)
            # scrambled Sobol points lie in (0,1) with probability 1; the clip only guards the
            # measure-zero endpoint (ndtri(1e-300) = -37: far outside any integrand's support)
            z = ndtri(np.clip(u, 1e-300, 1.0 - 2.0**-53))
            a, c, s2 = attention_latents(z, cls, L, R, theta, beta, q_norm, s_q)
            parts["y"].append(np.full(n, cls))
            parts["a"].append(a)
            parts["c"].append(c)
            parts["s2"].append(s2)
            parts["w"].append(np.full(n, prior / (n * n_scrambles)))
            parts["g"].append(np.full(n, g_idx))
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    return LatentLaw(y=cat["y"], a=cat["a"], c=cat["c"], s2=cat["s2"], weight=cat["w"],
                     group=cat["g"].astype(int), has_a=True, n_groups=n_scrambles,
                     info={"model": "attention", "points_per_class_per_scramble": n,
                           "n_scrambles": n_scrambles, "seed": seed})


# --------------------------------------------------------------------------------------------
# channels
@lru_cache(maxsize=1)
def _square_funcs():
    args = EQ.UNKNOWNS + EQ.LATENT
    r = lambdify(sp.Tuple(*EQ.INTEGRANDS_SQUARE), args, "numpy")
    dOx, dOE, drdx = EQ.square_loss_jacobian()
    outer_args = EQ.UNKNOWNS + (EQ.alpha, EQ.lam) + tuple(EQ.Ebar)
    outer = lambdify(sp.Tuple(*EQ.OUTER), outer_args, "numpy")
    # nested tuples (hashable for the lambdify cache; entries may be scalars or arrays)
    as_rows = lambda M: sp.Tuple(*[sp.Tuple(*row) for row in M.tolist()])
    dOx_f = lambdify(as_rows(dOx), outer_args, "numpy")
    dOE_f = lambdify(as_rows(dOE), outer_args, "numpy")
    drdx_f = lambdify(as_rows(drdx), args, "numpy")
    special = {"erfc": erfc}
    test = lambdify(EQ.TEST_ERROR_INTEGRAND, args, "numpy", special)
    train = lambdify(EQ.TRAIN_LOSS_SQUARE_INTEGRAND, args, "numpy")
    trainerr = lambdify(EQ.TRAIN_ERROR_SQUARE_INTEGRAND, args, "numpy", special)
    return r, outer, dOx_f, dOE_f, drdx_f, test, train, trainerr


def _bcast(v, n):
    v = np.asarray(v, dtype=float)
    return np.broadcast_to(v, (n,)) if v.ndim == 0 else v


def _expect(law: LatentLaw, arrays):
    n = len(law.weight)
    return np.array([np.dot(law.weight, _bcast(v, n)) for v in arrays])


def logistic_prox(omega: np.ndarray, y: np.ndarray, s: np.ndarray, tol: float = 1e-13, max_iter: int = 200,
                  h0: np.ndarray | None = None):
    """h solving h + s ell'(h; y) = omega for ell = log(1 + e^{-y h}), vectorised.
    In u = y h: u - s expit(-u) = y omega, whose root lies in [y omega, y omega + s]; Newton with
    a bisection safeguard on that bracket (rtsafe rule); ``h0`` a warm start.
    Returns (h, ell'(h), ell''(h), max residual)."""
    shape = np.broadcast(omega, y, s).shape
    t = np.broadcast_to(y * omega, shape).ravel()
    sv = np.broadcast_to(s, shape).ravel()
    lo, hi = t.copy(), t + sv
    u = 0.5 * (lo + hi) if h0 is None else np.clip((np.broadcast_to(y, shape) * h0).ravel(), lo, hi)
    f_prev = np.full(t.shape, np.inf)
    act = np.arange(t.size)
    for _ in range(max_iter):
        if act.size == 0:
            break
        ua, ta, sa, la, ha = u[act], t[act], sv[act], lo[act], hi[act]
        e = expit(-ua)
        f = ua - sa * e - ta
        la = np.where(f < 0, ua, la)
        ha = np.where(f > 0, ua, ha)
        d = 1.0 + sa * e * (1.0 - e)
        un = ua - f / d
        # safeguard: bisect when Newton leaves the bracket or |f| did not halve since the
        # previous iterate (this breaks Newton's 2-cycles; the bracket then halves)
        af = np.abs(f)
        bad = (un < la) | (un > ha) | (af > 0.5 * f_prev[act])
        un = np.where(bad, 0.5 * (la + ha), un)
        f_prev[act] = af
        lo[act], hi[act] = la, ha
        done = np.abs(un - ua) <= tol * (1.0 + np.abs(un))
        u[act] = un
        act = act[~done]
    u = u.reshape(shape)
    t = t.reshape(shape)
    s = sv.reshape(shape)
    y = np.broadcast_to(y, shape)
    e = expit(-u)
    res = float(np.max(np.abs(u - s * e - t))) if u.size else 0.0
    h = y * u
    dl = -y * e
    d2l = e * (1.0 - e)
    return h, dl, d2l, res


@lru_cache(maxsize=8)
def _gh(n: int):
    x, w = np.polynomial.hermite_e.hermegauss(n)
    return x, w / w.sum()


# --------------------------------------------------------------------------------------------
@dataclass
class SolveResult:
    """Typed result of a solve.  ``x`` = (w1, m, b, V, Q); ``residual`` = ||F(x)|| of the
    root form of the equations (max abs, the five equations of erm_equations).  Only if
    ``converged`` are the values meaningful."""

    converged: bool
    status: str
    iterations: int
    residual: float
    x: np.ndarray
    alpha: float
    lam: float
    loss: str
    metrics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    qmc_se: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {"converged": self.converged, "status": self.status, "iterations": self.iterations,
               "residual": self.residual}
        if not self.converged:  # a non-converged iterate is never reported as a result
            return out
        out.update({k: float(v) for k, v in zip(UNKNOWN_NAMES, self.x)})
        out.update({k: float(v) for k, v in self.metrics.items()})
        if self.qmc_se:
            out.update({f"{k}_qmc_se": float(v) for k, v in self.qmc_se.items()})
        if self.warnings:
            out["warnings"] = "; ".join(self.warnings)
        return out


class Equations:
    """The five equations on a latent law, for one (alpha, lambda, loss)."""

    def __init__(self, law: LatentLaw, alpha: float, lam: float, loss: str, n_gh: int = 24):
        _check("alpha1", alpha, 0.0, None, lo_open=True)
        _check("lam", lam, 0.0, None)
        if loss not in LOSSES:
            raise ParameterError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
        self.law, self.loss, self.lam, self.n_gh = law, loss, float(lam), n_gh
        self._h_cache = None  # warm start of the logistic prox between calls
        self.alpha = float(alpha) / law.dim_factor  # n / dimension of the feature space
        self.alpha_user = float(alpha)
        if lam == 0 and loss == "square" and self.alpha <= 1.0:
            raise ParameterError(
                f"parameter alpha1: ridgeless square loss needs n > dimension, i.e. alpha1 > "
                f"{law.dim_factor:g}, got {alpha!r}")

    # -- channel averages: returns E[r_b], E[r_w1], E[r_V], E[r_m], E[r_Q] (integrands of
    #    erm_equations.INTEGRANDS_SQUARE, or their logistic analogues); with ``curv`` also
    #    E[ell'' dprox] * (1, a, a^2) for the (w1, b) Newton step
    def averages(self, x, curv: bool = False):
        w1, m, b, V, Q = x
        law = self.law
        if self.loss == "square":
            r = _square_funcs()[0](w1, m, b, V, Q, law.a, law.c, law.s2, law.y)
            out = _expect(law, r)
            if curv:
                k = 1.0 / (1.0 + law.s2 * V)
                return out, _expect(law, (k, law.a * k, law.a * law.a * k))
            return out
        zn, zw = _gh(self.n_gh)
        mu = w1 * law.a + m * law.c + b
        sd = np.sqrt(law.s2 * max(Q, 0.0))
        omega = mu[:, None] + sd[:, None] * zn[None, :]
        yy = np.broadcast_to(law.y[:, None], omega.shape)
        s = np.broadcast_to((law.s2 * V)[:, None], omega.shape)
        h0 = self._h_cache if self._h_cache is not None and self._h_cache.shape == omega.shape else None
        h, dl, d2l, _ = logistic_prox(omega, yy, s, h0=h0)
        self._h_cache = h
        dprox = 1.0 / (1.0 + s * d2l)
        Edl = dl @ zw
        Edl2 = (dl * dl) @ zw
        E1m = (1.0 - dprox) @ zw
        out = _expect(law, (Edl, law.a * Edl, E1m, law.c * Edl, law.s2 * Edl2))
        if curv:
            k = (d2l * dprox) @ zw
            return out, _expect(law, (k, law.a * k, law.a * law.a * k))
        return out

    def residual(self, x):
        w1, m, b, V, Q = x
        Eb, Ew, EV, Em, EQ_ = self.averages(x)
        F = np.array([Eb, self.lam * w1 + Ew, self.lam * V + EV - 1.0 / self.alpha,
                      m + self.alpha * V * Em, Q - m * m - self.alpha * V * V * EQ_])
        if not self.law.has_a:
            F[1] = w1  # a = 0: w_1 does not enter; pin it to 0
        return F

    def scaled_residual(self, x):
        """Residual with the (V) equation relative to 1/alpha and (Q) relative to Q: a
        scale-free convergence measure."""
        F = self.residual(x)
        F[2] *= self.alpha
        F[4] /= max(abs(x[4]), 1e-300)
        return F

    def jacobian(self, x):
        if self.loss == "square":
            _, _, dOx_f, dOE_f, drdx_f, *_ = _square_funcs()
            law = self.law
            Ebar = self.averages(x)
            args = (*x, self.alpha, self.lam, *Ebar)
            dOx = np.array(dOx_f(*args), dtype=float)
            dOE = np.array(dOE_f(*args), dtype=float)
            drdx = drdx_f(*x, law.a, law.c, law.s2, law.y)
            n = len(law.weight)
            Edr = np.array([[np.dot(law.weight, _bcast(drdx[i][j], n)) for j in range(5)] for i in range(5)])
            J = dOx + dOE @ Edr
        else:
            J = np.zeros((5, 5))
            for j in range(5):
                hstep = 1e-6 * max(1.0, abs(x[j]))
                xp, xm = np.array(x, float), np.array(x, float)
                xp[j] += hstep
                xm[j] -= hstep
                J[:, j] = (self.residual(xp) - self.residual(xm)) / (2 * hstep)
        if not self.law.has_a:
            J[1, :] = 0.0
            J[1, 0] = 1.0
        return J

    # -- the fixed-point map in "hat" form (docs §2): stable for damped iteration
    def fixed_point_map(self, x):
        w1, m, b, V, Q = x
        (Eb, Ew, EV, Em, EQ_), (K0, K1, K2) = self.averages(x, curv=True)
        al = self.alpha
        Vhat = al * EV / V
        Vn = 1.0 / (al * self.lam + Vhat)
        mn = -al * Vn * Em
        Qn = mn * mn + al * Vn * Vn * EQ_
        # (w1, b): one Newton step of the two stationarity equations at fixed (m, V, Q)
        G = np.array([Eb, self.lam * w1 + Ew])
        # d/d(w1, b) of (E[ell'], lam w1 + E[a ell']) at fixed (m, V, Q): d h/d omega = dprox
        J = np.array([[K1, K0], [self.lam + K2, K1]])
        if not self.law.has_a:
            step_b = -Eb / K0 if K0 != 0 else 0.0
            return np.array([0.0, mn, b + step_b, Vn, Qn])
        try:
            step = np.linalg.solve(J, -G)
        except np.linalg.LinAlgError:
            step = np.zeros(2)
        return np.array([w1 + step[0], mn, b + step[1], Vn, Qn])

    # -- outputs at a solution
    def metrics(self, x):
        w1, m, b, V, Q = x
        law = self.law
        f = _square_funcs()
        test = float(np.dot(law.weight, _bcast(f[5](w1, m, b, V, Q, law.a, law.c, law.s2, law.y), len(law.y))))
        if self.loss == "square":
            tl = float(np.dot(law.weight, f[6](w1, m, b, V, Q, law.a, law.c, law.s2, law.y)))
            te = float(np.dot(law.weight, _bcast(f[7](w1, m, b, V, Q, law.a, law.c, law.s2, law.y), len(law.y))))
        else:
            zn, zw = _gh(self.n_gh)
            mu = w1 * law.a + m * law.c + b
            omega = mu[:, None] + np.sqrt(law.s2 * Q)[:, None] * zn[None, :]
            yy = np.broadcast_to(law.y[:, None], omega.shape)
            s = np.broadcast_to((law.s2 * V)[:, None], omega.shape)
            h, *_ = logistic_prox(omega, yy, s)
            tl = float(np.dot(law.weight, (-log_expit(yy * h)) @ zw))
            # prox is increasing and prox(omega) = 0 at omega = sigma^2 V ell'(0; y) = -sigma^2 V y/2,
            # so y h < 0  <=>  y omega < -sigma^2 V / 2: a Gaussian tail, no quadrature
            te = float(np.dot(law.weight, 0.5 * erfc((law.y * mu + 0.5 * law.s2 * V) / np.sqrt(2 * law.s2 * Q))))
        return {"test_error": test, "train_loss": tl, "train_error": te}


def _square_direct(eqs: Equations):
    """Square loss: the system is triangular.  (V) alone is a scalar increasing equation
    (brentq in log V); given V, (b), (w1), (m) are linear in (w1, m, b); given those, (Q) is
    linear in Q.  Returns (x, status) or raises nothing: status says what failed."""
    from scipy.optimize import brentq

    law, al, lam = eqs.law, eqs.alpha, eqs.lam
    w = law.weight

    def gV(logV):
        V = math.exp(logV)
        return lam * V + float(np.dot(w, law.s2 * V / (1 + law.s2 * V))) - 1.0 / al

    lo, hi = -40.0, 40.0
    if gV(lo) > 0 or gV(hi) < 0:
        return None, "no root of the (V) equation in V in [e^-40, e^40]"
    logV = brentq(gV, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
    V = math.exp(logV)
    k = 1.0 / (1.0 + law.s2 * V)
    E = lambda f: float(np.dot(w, f))
    a, c, y = law.a, law.c, law.y
    A = np.array([
        [E(k * a), E(k * c), E(k)],
        [lam + E(k * a * a), E(k * a * c), E(k * a)],
        [al * V * E(k * a * c), 1 + al * V * E(k * c * c), al * V * E(k * c)],
    ])
    rhs = np.array([E(k * y), E(k * a * y), al * V * E(k * c * y)])
    if not law.has_a:
        A2 = A[np.ix_([0, 2], [1, 2])]
        m_, b_ = np.linalg.solve(A2, rhs[[0, 2]])
        w1_ = 0.0
    else:
        w1_, m_, b_ = np.linalg.solve(A, rhs)
    mu = w1_ * a + m_ * c + b_
    denom = 1.0 - al * V * V * E(law.s2**2 * k * k)
    if denom <= 0:
        return None, "(Q) equation has no positive solution"
    Q_ = (m_ * m_ + al * V * V * E(law.s2 * k * k * (mu - y) ** 2)) / denom
    return np.array([w1_, m_, b_, V, Q_]), "converged (square loss: exact triangular solve + Newton)"


def initial_guess(eqs: Equations, informed: bool = True) -> np.ndarray:
    """Informed: ridge-like scales (V ~ 1/alpha(lam + E sigma^2)); uninformed: w = 0-ish."""
    law = eqs.law
    es2 = float(np.dot(law.weight, law.s2))
    V0 = 1.0 / (eqs.alpha * (eqs.lam + es2) + 1e-12) if eqs.alpha > 1 or eqs.lam > 0 else 1.0
    V0 = max(V0, 1e-3)
    if informed:
        ey = float(np.dot(law.weight, law.y))
        return np.array([0.5 if law.has_a else 0.0, 0.5, ey, V0, 1.0])
    return np.array([0.0, 0.01, 0.0, 1.0, 0.01])


def _anderson(eqs: Equations, x0, *, tol, max_iter, depth=5, damping=0.5):
    """Damped Anderson(depth) on x -> T(x); returns (x, iterations, converged, status)."""
    x = np.array(x0, float)
    X, G = [], []
    for it in range(1, max_iter + 1):
        try:
            tx = eqs.fixed_point_map(x)
        except FloatingPointError as e:  # pragma: no cover
            return x, it, False, f"floating point error {e}"
        if not np.all(np.isfinite(tx)):
            return x, it, False, "non-finite iterate"
        g = tx - x
        X.append(x.copy())
        G.append(g.copy())
        if len(X) > depth + 1:
            X.pop(0)
            G.pop(0)
        scale = 1.0 + np.abs(x)
        if np.max(np.abs(g) / scale) < tol:
            return tx, it, True, "fixed point converged"
        if len(X) >= 2:
            dG = np.array([G[i + 1] - G[i] for i in range(len(G) - 1)]).T
            dX = np.array([X[i + 1] - X[i] for i in range(len(X) - 1)]).T
            try:
                gamma, *_ = np.linalg.lstsq(dG, g, rcond=None)
                xn = x + damping * g - (dX + damping * dG) @ gamma
            except np.linalg.LinAlgError:
                xn = x + damping * g
        else:
            xn = x + damping * g
        # keep the iterate in the domain: V > 0, Q >= m^2
        if not (np.all(np.isfinite(xn)) and xn[3] > 0 and xn[4] > xn[1] ** 2 * (1 - 1e-12)):
            xn = x + damping * g
            X.clear()
            G.clear()
        x = xn
    return x, max_iter, False, f"fixed point not converged after {max_iter} iterations"


def _newton(eqs: Equations, x, *, tol, max_iter=30):
    x = np.array(x, float)
    for it in range(1, max_iter + 1):
        F = eqs.residual(x)
        if np.max(np.abs(eqs.scaled_residual(x))) < tol:
            return x, it - 1, True
        J = eqs.jacobian(x)
        try:
            step = np.linalg.solve(J, -F)
        except np.linalg.LinAlgError:
            return x, it, False
        t = 1.0
        r0 = np.max(np.abs(eqs.scaled_residual(x)))
        while t > 1e-4:
            xn = x + t * step
            if xn[3] > 0 and xn[4] > 0:
                rn = np.max(np.abs(eqs.scaled_residual(xn)))
                if rn < r0 or t < 2e-4:
                    break
            t /= 2
        x = xn
    return x, max_iter, np.max(np.abs(eqs.scaled_residual(x))) < tol


def solve(law: LatentLaw, alpha: float, lam: float, loss: str, *, x0=None, tol: float = 1e-10,
          max_iter: int = 2000, n_gh: int = 24, check_starts: bool = False) -> SolveResult:
    """Solve the five equations; damped Anderson in float64, then Newton polish to ``tol``
    on the scaled residual.  ``check_starts``: also solve from the uninformed start and warn
    if the two fixed points differ (relative 1e-6)."""
    eqs = Equations(law, alpha, lam, loss, n_gh)
    starts = [np.array(x0, float)] if x0 is not None else [initial_guess(eqs, True)]
    if check_starts:
        starts.append(initial_guess(eqs, False))
    results = []
    if loss == "square":
        x, status = _square_direct(eqs)
        if x is None:
            return SolveResult(False, status, 0, float("inf"), np.full(5, np.nan), float(alpha), float(lam), loss)
        xn, itn, okn = _newton(eqs, x, tol=tol)
        if okn:
            x = xn
        res = float(np.max(np.abs(eqs.scaled_residual(x))))
        ok = res < tol * 10
        if not ok:
            status = f"square-loss solve residual {res:.2e} above tolerance"
        return SolveResult(ok, status, 1 + itn, res, x, float(alpha), float(lam), loss,
                           eqs.metrics(x) if ok else {})
    with np.errstate(over="ignore", under="ignore"):
        for s0 in starts:
            x, it, ok, status = _anderson(eqs, s0, tol=max(tol, 1e-9), max_iter=max_iter)
            it_total = it
            if ok or np.all(np.isfinite(x)):
                xn, itn, okn = _newton(eqs, x, tol=tol)
                it_total += itn
                if okn:
                    x, ok, status = xn, True, "converged (Anderson + Newton)"
                elif ok:
                    ok, status = False, "Newton polish did not reach the tolerance"
            res = float(np.max(np.abs(eqs.scaled_residual(x)))) if np.all(np.isfinite(x)) else float("inf")
            ok = ok and res < tol * 10
            results.append((x, it_total, ok, status, res))
    x, it, ok, status, res = results[0]
    warn = []
    if check_starts and len(results) > 1:
        x2, _, ok2, _, _ = results[1]
        if ok and ok2 and np.max(np.abs(x - x2) / (1 + np.abs(x))) > 1e-6:
            warn.append("informed and uninformed starts reached different fixed points")
            warnings.warn(warn[-1])
        if not ok and ok2:
            x, it, ok, status, res = results[1]
    metrics = eqs.metrics(x) if ok else {}
    if ok and loss == "logistic":
        # Gauss-Hermite check: the rule doubled changes the outputs by at most this much
        eqs2 = Equations(law, alpha, lam, loss, 2 * n_gh)
        metrics["gh_change"] = max(abs(v - eqs2.metrics(x)[k]) for k, v in metrics.items())
    return SolveResult(ok, status, it, res, x, float(alpha), float(lam), loss, metrics, warn)


def solve_with_error(law: LatentLaw, alpha: float, lam: float, loss: str, **kw) -> SolveResult:
    """Solve on the whole QMC point set, then on each scrambling alone (warm start); the
    randomized-QMC standard error of each output is std over scramblings / sqrt(K)."""
    res = solve(law, alpha, lam, loss, **kw)
    if not res.converged or law.n_groups < 2:
        return res
    vals = []
    kw2 = dict(kw)
    kw2.pop("x0", None)
    kw2.pop("check_starts", None)
    for g in range(law.n_groups):
        r = solve(law.subset(g), alpha, lam, loss, x0=res.x, **kw2)
        if not r.converged:
            res.warnings.append(f"scrambling {g} did not converge; QMC error not available")
            return res
        vals.append({**dict(zip(UNKNOWN_NAMES, r.x)), **r.metrics})
    K = len(vals)
    res.qmc_se = {k: float(np.std([v[k] for v in vals], ddof=1) / math.sqrt(K)) for k in vals[0]
                  if k != "gh_change"}
    return res


def continuation(law: LatentLaw, alphas, lam: float, loss: str, **kw) -> list[SolveResult]:
    """Solve along a grid of alpha (in the given order), warm-starting each point from the
    previous converged one."""
    out, x0 = [], None
    for al in alphas:
        r = solve(law, al, lam, loss, x0=x0, **kw)
        if not r.converged and x0 is not None:
            r = solve(law, al, lam, loss, **kw)
        out.append(r)
        if r.converged:
            x0 = r.x
    return out
