"""ERM over g(x, y) = phi(x^T A y): phi a degree-s spline with K pieces, A = U V^T of rank r.

Paper B, Theorem 3.1 (docs/paper_b.md "The estimator").  The empirical loss

    E_M(g) = (1/(M N)) sum_m sum_i |Y_i^m - R_g[X^m]_i|^2

is linear least squares in the spline coefficients c for fixed A, so we use *variable
projection*: F(U, V) = min_c E_M(phi_c(x^T U V^T y)) + mu |c|^2, with the inner problem solved
exactly (SVD least squares, minimum-norm in directions no data reach; optional ridge
mu = ``ridge``, 0 by default — see ``solve_coef`` for why not normal equations), and (U, V) found by L-BFGS on F with the analytic
gradient (envelope theorem: at the inner optimum dF/dA is the partial derivative at fixed c):

    G = dF/dA = sum_m X_m^T W_m X_m,
    W_m[i, j] = -(2/(M N)) r_mi phi_c'(u_mij) / (N - 1)  (j != i),   r = Y - Phi c.

The size of A.  Theorem 3.1's class bounds A by a_bar; only g = phi(x^T A y) is identifiable
(phi(c u) with A / c is the same g), and with knots fixed on [lo, hi] an unconstrained A can
grow until most pairs fall outside the knots, where phi continues as the boundary cells'
polynomials: unconstrained, the fitted ||A|| ran away at d = 30 and phi_hat extrapolated to
errors ~1e8.  We therefore fit on the sphere ||A||_F = a_bar (``a_bar``, default 1): the
optimiser sees free factors theta = (U0, V0) and the model uses A = a_bar U0 V0^T /
||U0 V0^T||_F (a smooth map away from U0 V0^T = 0; the loss is invariant under scaling of
theta, so its gradient is tangent to the sphere — ``projected`` has the chain rule).  This
removes the scale gauge entirely (only A -> -A with phi(u) -> phi(-u) remains, handled by the
sign-flipped spectral start).  For i.i.d. Uniform[-1, 1] tokens E (x^T A y)^2 = ||A||_F^2 / 9,
so the spread of u_ij is fixed by a_bar whatever the direction of A; the simulator's
coordinate A* of rank 1 has ||A*||_F = 1 and |x^T A* y| <= 1, i.e. it lies in the class with
a_bar = 1 and knots on [-1, 1] (rank r: ||A*||_F = 1/sqrt r, pass a_bar accordingly).

Spline basis.  Uniform (cardinal) B-splines on the extended grid lo + h k: the K + s basis
functions restricted to [lo, hi] span exactly the splines of degree s with K equal pieces
(the same space as clamped knots), and outside [lo, hi] each basis function continues as its
polynomial piece of the boundary cell, so phi is a smooth polynomial there.  Knots are fixed
on [lo, hi] = [-1, 1]: this fixes the scale gauge of (phi, A) (only g is identifiable), and
A* of the simulator satisfies |x^T A* y| <= 1 on the cube.

Pieces K_M: ``pieces_for(M, beta, c, s)`` = round(c M^{1/(2 beta + 1)}) - s, so that the
dimension of the spline space is n = K + s = c M^{1/(2beta+1)} (docs/paper_b.md explains why we
drop the paper's log M in the rate experiments).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from numerics.core.params import ParameterError
from numerics.papers.paper_b.vocabulary import A_BAR, FIT_DEGREE, FIT_PIECES, FIT_RANK, RESTARTS, RIDGE
from numerics.experiments.paper_b.interacting_particles import LowRank, pair_values


# --- cardinal B-spline basis ---------------------------------------------------------------
def _cardinal_pieces(s: int) -> np.ndarray:
    """C[l, p]: coefficient of t^p (t in [0, 1] the position inside a cell) of the basis
    function stored in column cell + l.

    Computed exactly in rational arithmetic from Cox–de Boor for the cardinal B-spline on
    [0, s+1]: B_0 = 1 on [0, 1), B_s(x) = (x B_{s-1}(x) + (s+1-x) B_{s-1}(x-1)) / s.  With
    p_k(x) its piece on [k, k+1], column cell + l uses piece k = s - l at x = t + k."""
    pieces = [[Fraction(1)]]  # pieces[k] = coefficients of p_k in powers of x
    for deg in range(1, s + 1):
        new = []
        for k in range(deg + 1):
            acc = [Fraction(0)] * (deg + 1)
            if k < deg:  # x * p_k
                for n, a in enumerate(pieces[k]):
                    acc[n + 1] += a
            if k >= 1:  # (deg + 1 - x) * q(x - 1), q = piece k-1 of B_{deg-1}
                q = _shift_exact(pieces[k - 1], 1)
                for n, a in enumerate(q):
                    acc[n] += (deg + 1) * a
                    acc[n + 1] -= a
            new.append([a / deg for a in acc])
        pieces = new
    C = np.zeros((s + 1, s + 1))
    for l in range(s + 1):
        k = s - l
        local = _shift_exact(pieces[k], -k)  # p_k(t + k) in powers of t
        C[l, : len(local)] = [float(a) for a in local]
    return C


def _shift_exact(coef, a: int):
    """Coefficients of q(x) = p(x - a), exactly."""
    out = [Fraction(0)] * len(coef)
    for n, cn in enumerate(coef):
        for p in range(n + 1):
            out[p] += cn * comb(n, p) * Fraction(-a) ** (n - p)
    return out


@dataclass(frozen=True)
class SplineBasis:
    """Degree-s splines with K equal pieces on [lo, hi]; n = K + s basis functions."""

    s: int
    K: int
    lo: float = -1.0
    hi: float = 1.0
    C: np.ndarray = field(init=False, repr=False, compare=False)
    dC: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        FIT_DEGREE.parse(self.s)
        FIT_PIECES.parse(self.K)
        if not (np.isfinite(self.lo) and np.isfinite(self.hi) and self.lo < self.hi):
            raise ParameterError(f"parameters lo, hi: need finite lo < hi, got [{self.lo}, {self.hi}]")
        C = _cardinal_pieces(self.s)
        dC = np.zeros_like(C)
        dC[:, :-1] = C[:, 1:] * np.arange(1, self.s + 1)
        object.__setattr__(self, "C", C)
        object.__setattr__(self, "dC", dC)

    @property
    def n(self) -> int:
        return self.K + self.s

    @property
    def h(self) -> float:
        return (self.hi - self.lo) / self.K

    def knots(self) -> np.ndarray:
        """The extended uniform knot vector (for scipy.interpolate.BSpline)."""
        return self.lo + self.h * np.arange(-self.s, self.K + self.s + 1)

    def local(self, u: np.ndarray, derivative: bool = False):
        """(cell, values): cell index in [0, K-1] (clipped: outside [lo, hi] the boundary cell's
        polynomials continue) and the s+1 non-zero basis values (or derivatives) at u, which
        belong to columns cell .. cell + s."""
        x = (np.asarray(u, dtype=float) - self.lo) / self.h
        cell = np.clip(np.floor(x), 0, self.K - 1).astype(np.intp)
        t = x - cell
        powers = t[..., None] ** np.arange(self.s + 1)
        vals = powers @ (self.dC / self.h if derivative else self.C).T
        return cell, vals

    def design(self, u: np.ndarray) -> np.ndarray:
        """Dense design matrix B[p, l] = B_l(u_p), shape (len(u), n)."""
        u = np.ravel(u)
        cell, vals = self.local(u)
        out = np.zeros((u.size, self.n))
        rows = np.arange(u.size)[:, None]
        out[rows, cell[:, None] + np.arange(self.s + 1)] = vals
        return out

    def evaluate(self, coef: np.ndarray, u: np.ndarray, derivative: bool = False) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        cell, vals = self.local(u, derivative)
        idx = cell[..., None] + np.arange(self.s + 1)
        return np.sum(vals * np.asarray(coef)[idx], axis=-1)

    def _pieces(self, u: np.ndarray):
        x = (u - self.lo) * (1.0 / self.h)
        cell = np.floor(x)
        np.clip(cell, 0, self.K - 1, out=cell)
        t = x - cell
        powers = np.empty(u.shape + (self.s + 1,))
        powers[..., 0] = 1.0
        for p in range(1, self.s + 1):
            np.multiply(powers[..., p - 1], t, out=powers[..., p])
        return cell.astype(np.intp), powers

    def averaged_design(self, Upair: np.ndarray, with_derivative: bool = False):
        """Phi[(m, i), l] = (1/(N-1)) sum_{j != i} B_l(u_mij), shape (M N, n).

        Computed on the full (M, N, N) array with the diagonal weighted by 0 (cheaper than
        gathering the off-diagonal pairs).  With ``with_derivative`` also returns the local
        pieces for phi'(u_mij) (see :meth:`pair_derivative`)."""
        M, N, _ = Upair.shape
        cell, powers = self._pieces(Upair)
        q = self.s + 1
        # one 2-D gemm (a stacked (..., q) @ (q, q) would be M N tiny gemms)
        vals = (powers.reshape(-1, q) @ self.C.T).reshape(M, N, N, q)
        vals[:, np.arange(N), np.arange(N), :] = 0.0  # j = i is not in the sum
        base = (np.arange(M * N).reshape(M, N, 1) * self.n + cell).ravel()
        flat = np.zeros(M * N * self.n)
        for l in range(q):  # column cell + l of row (m, i)
            flat[l:] += np.bincount(base, weights=vals[..., l].ravel(), minlength=M * N * self.n)[: flat.size - l]
        Phi = flat.reshape(M * N, self.n) * (1.0 / (N - 1))
        if with_derivative:
            return Phi, (cell, powers)
        return Phi

    def pair_derivative(self, coef: np.ndarray, local) -> np.ndarray:
        """phi_c'(u_mij) for every pair, shape (M, N, N), from the pieces of
        :meth:`averaged_design`."""
        cell, powers = local
        q = self.s + 1
        # per cell, phi' is a polynomial in t: poly[cell, p] = sum_l coef[cell + l] dC[l, p] / h
        c = np.asarray(coef)
        poly = np.stack([c[k: k + q] for k in range(self.K)]) @ (self.dC / self.h)  # (K, q)
        return np.einsum("...p,...p->...", powers, poly[cell])


def pieces_for(M: int, beta: float, c: float, s: int) -> int:
    """K_M = round(c M^{1/(2 beta + 1)}) - s (>= 1): spline dimension n = c M^{1/(2beta+1)}."""
    return max(1, int(round(c * M ** (1.0 / (2.0 * beta + 1.0)))) - s)


# --- results ------------------------------------------------------------------------------
@dataclass
class FitResult:
    basis: SplineBasis
    coef: np.ndarray
    A: LowRank
    loss: float
    converged: bool
    iterations: int
    message: str
    restarts: int = 1
    grad_norm: float = float("nan")
    timings: dict = field(default_factory=dict)
    u_range: tuple | None = None

    def phi(self, u):
        """phi_hat(u); with ``u_range`` (the training range of u_ij widened to the knot interval)
        u is clipped to it, i.e. phi_hat is continued by constants beyond both the data and the
        knots instead of by its end polynomials, which blew up to errors ~1e8 for learnt A at
        d = 30 (docs/paper_b.md)."""
        if self.u_range is not None:
            u = np.clip(u, *self.u_range)
        return self.basis.evaluate(self.coef, u)

    def g(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.phi(self.A.form(x, y))


@dataclass
class _Timer:
    t: dict = field(default_factory=lambda: {"pairs_matmul": 0.0, "design": 0.0, "lstsq": 0.0,
                                              "gradient_matmul": 0.0, "other": 0.0})

    def add(self, key, t0):
        self.t[key] += time.perf_counter() - t0
        return time.perf_counter()


# --- the estimator ------------------------------------------------------------------------
@dataclass
class PairwiseERM:
    """Variable-projection ERM; see the module docstring."""

    s: int
    K: int
    r: int = 1
    ridge: float = 0.0
    restarts: int = 3
    maxiter: int = 200
    gtol: float = 1e-7
    ftol: float = 1e-10
    a_bar: float = 1.0
    blas_threads: int | None = 1
    lo: float = -1.0
    hi: float = 1.0

    def __post_init__(self):
        self.basis = SplineBasis(FIT_DEGREE.parse(self.s), FIT_PIECES.parse(self.K), self.lo, self.hi)
        FIT_RANK.parse(self.r)
        RIDGE.parse(self.ridge)
        RESTARTS.parse(self.restarts)
        A_BAR.parse(self.a_bar)

    # inner problem ---------------------------------------------------------------------
    def solve_coef(self, Phi: np.ndarray, y: np.ndarray):
        """argmin_c (1/n)|y - Phi c|^2 + ridge |c|^2 (n = rows).

        ridge = 0 (default): SVD least squares (LAPACK gelsd, minimum-norm for directions below
        rcond = eps * max(shape), e.g. cells no data reach).  Normal equations would square
        the condition number: for degree 8 the extended-knot basis functions that barely
        reach into [-1, 1] give singular values ~1e-8 of Phi / sqrt(n), and even a ridge of
        1e-10 then adds an approximation bias of order 1e-5 (measured; docs/paper_b.md).
        ridge > 0: the same problem written as an augmented least-squares system."""
        n = Phi.shape[0]
        if self.ridge > 0:
            aug = np.vstack([Phi / np.sqrt(n), np.sqrt(self.ridge) * np.eye(Phi.shape[1])])
            rhs = np.concatenate([y / np.sqrt(n), np.zeros(Phi.shape[1])])
            return np.linalg.lstsq(aug, rhs, rcond=None)[0]
        return np.linalg.lstsq(Phi, y, rcond=None)[0]

    def fit_phi(self, X: np.ndarray, Y: np.ndarray, A: LowRank) -> FitResult:
        """The oracle variant: A fixed (e.g. A = A*), phi by least squares."""
        X, Y = _check_data(X, Y)
        Upair = pair_values(X, A)
        Phi = self.basis.averaged_design(Upair)
        y = Y.ravel()
        coef = self.solve_coef(Phi, y)
        res = y - Phi @ coef
        loss = float(res @ res / y.size + self.ridge * coef @ coef)
        return FitResult(self.basis, coef, A, loss, True, 0, "oracle A: exact least squares",
                         u_range=_off_diagonal_range(Upair, self.lo, self.hi))

    def factors(self, theta: np.ndarray, d: int):
        """(U, V) with A = U V^T on the sphere ||A||_F = a_bar: theta = (vec U0, vec V0) is
        mapped to U = (a_bar / ||U0 V0^T||_F) U0, V = V0."""
        U0 = theta[: d * self.r].reshape(d, self.r)
        V = theta[d * self.r:].reshape(d, self.r)
        norm = np.sqrt(max(float(np.sum((U0.T @ U0) * (V.T @ V))), 1e-300))  # ||U0 V^T||_F
        return (self.a_bar / norm) * U0, V, self.a_bar / norm

    def projected(self, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, timer: _Timer | None = None):
        """(F, dF/dtheta, coef) at theta = (vec U0, vec V0), A = a_bar U0 V0^T / ||U0 V0^T||_F.

        With G = dF/dA (envelope theorem, inner optimum) and B = U0 V0^T, the normalisation
        A = a_bar B/||B||_F gives dF/dB = a (G - <G, A> A / a_bar^2), a = a_bar/||B||_F, so
        dF/dU0 = a (G V0 - <G, A>/a_bar^2 A V0),  dF/dV0 = a (G^T U0 - <G, A>/a_bar^2 A^T U0);
        G V0 = sum_m X_m^T W_m (X_m V0) and <G, A> = sum W_mij u_mij never form a d x d matrix."""
        M, N, d = X.shape
        timer = timer or _Timer()
        t0 = time.perf_counter()
        U, V, a = self.factors(theta, d)  # U = a U0
        Xf = X.reshape(M * N, d)
        XU = (Xf @ U).reshape(M, N, self.r)
        XV = (Xf @ V).reshape(M, N, self.r)
        Upair = np.matmul(XU, np.swapaxes(XV, 1, 2))
        t0 = timer.add("pairs_matmul", t0)
        Phi, local = self.basis.averaged_design(Upair, with_derivative=True)
        t0 = timer.add("design", t0)
        y = Y.ravel()
        coef = self.solve_coef(Phi, y)
        res = y - Phi @ coef
        t0 = timer.add("lstsq", t0)
        F = float(res @ res / y.size + self.ridge * coef @ coef)
        W = self.basis.pair_derivative(coef, local)
        W *= (-2.0 / (y.size * (N - 1))) * res.reshape(M, N, 1)
        W[:, np.arange(N), np.arange(N)] = 0.0
        gamma = float(np.sum(W * Upair)) / self.a_bar**2  # <G, A> / a_bar^2
        t0 = timer.add("other", t0)
        WXV = np.matmul(W, XV)  # (M, N, r)
        WtXU = np.matmul(np.swapaxes(W, 1, 2), XU)
        GV = Xf.T @ WXV.reshape(M * N, self.r)  # G V0
        GtU = Xf.T @ WtXU.reshape(M * N, self.r)  # G^T U = a G^T U0
        timer.add("gradient_matmul", t0)
        gU = a * (GV - gamma * U @ (V.T @ V))  # A V0 = U (V0^T V0)
        gV = GtU - gamma * V @ (U.T @ U)  # a (G^T U0 - gamma A^T U0), A^T U0 = V U^T U / a
        return F, np.concatenate([gU.ravel(), gV.ravel()]), coef

    def initial(self, rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
        """A random dense start (U0, V0 i.i.d. normal; the normalisation fixes the scale)."""
        d = X.shape[2]
        return np.concatenate([rng.standard_normal(d * self.r), rng.standard_normal(d * self.r)])

    def moment_start(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """A spectral start: the top-r SVD of the cross moment
        (1/(M N (N-1))) sum_m sum_{i != j} (Y_mi - Ybar) X_mi X_mj^T, which estimates
        E[phi*(U_12) X_1 X_2^T] (up to the centring); for i.i.d. centred tokens it lies in
        span(A*) whenever phi* has a component correlated with U_12."""
        M, N, d = X.shape
        Yc = Y - Y.mean()
        S = X.sum(axis=1)  # (M, d)
        YX = Yc[:, :, None] * X  # (M, N, d)
        mom = (YX.reshape(M * N, d).T @ np.repeat(S, N, axis=0) - YX.reshape(M * N, d).T @ X.reshape(M * N, d))
        u, sv, vt = np.linalg.svd(mom / (M * N * (N - 1)))
        root = np.sqrt(sv[: self.r])
        return np.concatenate([(u[:, : self.r] * root).ravel(), (vt[: self.r].T * root).ravel()])

    def hessian_start(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """A second-order spectral start (principal Hessian directions, Li 1992): Y_mi depends
        on its own token through X_mi^T U and on the others through X_mj^T V, so the
        Y-weighted second moments

            S_row = mean_{m,i} (Y_mi - Ybar) X_mi X_mi^T,
            S_col = mean_{m,i} (Y_mi - Ybar) (1/(N-1)) sum_{j != i} X_mj X_mj^T

        differ from their null value (a multiple of the token covariance, 0 after centring for
        i.i.d. tokens) only in span(U*) and span(V*).  Their top-r eigenvectors by |eigenvalue|
        give A = Qa Qb^T.  Unlike :meth:`moment_start` this does not vanish when phi* is even
        (then E[phi*(U_12) X_1 X_2^T] = 0 and the first moment carries no information)."""
        M, N, d = X.shape
        Yc = (Y - Y.mean()).reshape(M * N)
        Xf = X.reshape(M * N, d)
        S_row = (Xf * Yc[:, None]).T @ Xf / (M * N)
        # sum_{m,i} Yc_mi sum_j X_mj X_mj^T = sum_{m,j} (sum_i Yc_mi) X_mj X_mj^T
        w = np.repeat(Yc.reshape(M, N).sum(axis=1), N)
        S_all = (Xf * w[:, None]).T @ Xf / (M * N)
        S_col = (S_all - S_row) / (N - 1)

        def top(S):
            w, v = np.linalg.eigh(S)
            return v[:, np.argsort(-np.abs(w))[: self.r]]

        return np.concatenate([top(S_row).ravel(), top(S_col).ravel()])

    def fit(self, X: np.ndarray, Y: np.ndarray, rng: np.random.Generator,
            init: LowRank | None = None) -> FitResult:
        """Full ERM: L-BFGS on the projected loss from ``restarts`` starts — the best (lowest
        projected loss) of four spectral candidates, :meth:`moment_start`,
        :meth:`hessian_start` and their sign flips A -> -A (the spectral directions fix span(A*)
        at best, not the sign) — and ``restarts - 1`` random ones (plus ``init`` if given); the
        best final loss wins.  ``converged`` is L-BFGS's own verdict for the winning start."""
        X, Y = _check_data(X, Y)
        M, N, d = X.shape
        if self.r > d:
            raise ParameterError(f"parameter r: must be an integer in [1, d] = [1, {d}], got {self.r}")
        timer = _Timer()
        t_start = time.perf_counter()
        candidates = []
        for th in (self.moment_start(X, Y), self.hessian_start(X, Y)):
            candidates += [th, np.concatenate([-th[: d * self.r], th[d * self.r:]])]  # A, -A
        with threadpool_limits(self.blas_threads):
            spectral = min(candidates, key=lambda th: self.projected(th, X, Y, timer)[0])
        starts = [spectral] + [self.initial(rng, X) for _ in range(self.restarts - 1)]
        if init is not None:
            starts.insert(0, np.concatenate([init.U.ravel(), init.V.ravel()]))
        best = None
        for theta0 in starts:
            with threadpool_limits(self.blas_threads):
                out = minimize(lambda th: self.projected(th, X, Y, timer)[:2], theta0, jac=True,
                               method="L-BFGS-B",
                               options={"maxiter": self.maxiter, "gtol": self.gtol, "ftol": self.ftol})
            if best is None or out.fun < best.fun:
                best = out
        F, grad, coef = self.projected(best.x, X, Y, timer)
        U, V, _ = self.factors(best.x, d)
        timings = dict(timer.t)
        timings["total"] = time.perf_counter() - t_start
        u_range = _off_diagonal_range(pair_values(X, LowRank(U, V)), self.lo, self.hi)
        return FitResult(self.basis, coef, LowRank(U, V), F, bool(best.success), int(best.nit),
                         str(best.message), len(starts), float(np.max(np.abs(grad))), timings,
                         u_range)


def _off_diagonal_range(Upair: np.ndarray, lo: float, hi: float) -> tuple:
    """The training range of u_ij (j != i), widened to the knot interval [lo, hi]."""
    N = Upair.shape[1]
    u = Upair[:, ~np.eye(N, dtype=bool)]
    return min(float(u.min()), lo), max(float(u.max()), hi)


def _check_data(X, Y):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if X.ndim != 3 or X.shape[1] < 2:
        raise ParameterError(f"parameter X: must have shape (M, N, d) with N >= 2, got {X.shape}")
    if Y.shape != X.shape[:2]:
        raise ParameterError(f"parameter Y: must have shape (M, N) = {X.shape[:2]}, got {Y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise ParameterError("parameters X, Y: must be finite")
    return X, Y


def g_error(fit: FitResult, g_star, x1: np.ndarray, x2: np.ndarray):
    """Monte Carlo estimate of ||g_hat - g*||^2_rho on fresh pairs (x1, x2) ~ rho:
    (mean, standard error)."""
    e = (fit.g(x1, x2) - g_star(x1, x2)) ** 2
    return float(e.mean()), float(e.std(ddof=1) / np.sqrt(e.size))
