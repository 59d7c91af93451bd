"""High-precision polish of the step-4 equations for the linear models (pooled, vectorised).

The float64 solver (``sparse_token_state_evolution.solve``: Anderson + Newton, Gauss–Hermite
in zeta) gets ~1e-10.  Here the same five equations are solved to ``dps`` digits in mpmath:

* the latent law is the two-point law of ``linear_law`` (y = +1 with c = mu, y = -1 with
  c = 0; a = 0, so w_1 = 0 is pinned by its own equation);
* the zeta-expectations by the trapezoidal rule with step halving (exponentially convergent
  for these analytic integrands; the last change is recorded as ``quad_error``), the prox
  h(omega) by Newton in mpmath on G(h) = 0 (``erm_equations.channel``);
* Newton on the unknowns with the **exact Jacobian** dF/dx = d outer/dx + d outer/dE . E[dr/dx],
  dr/dx from the implicit function theorem in SymPy (``channel``), started from the float64
  solution.  Convergence: max scaled residual < 10^-(dps + 3); otherwise the result says so.

Outputs as mpmath numbers: w1, m, b, V, Q, test_error (closed form, erfc), train_loss
(quadrature), train_error (closed form: h is increasing in omega, so y h < 0 iff
y omega < y omega0 with omega0 = sigma2 V ell'(0; y)).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import sympy as sp

from derivations.paper_a import erm_equations as E
from numerics.core.backends import to_mpf

_ARGS = (E.h, E.zeta, *E.UNKNOWNS, E.a, E.c, E.s2, E.y)


@lru_cache(maxsize=2)
def _compiled(loss: str):
    """mpmath functions of _ARGS: G, G_h (the prox), omega0, and one vector function with
    the 5 integrands r, the 25 entries of dr/dx and the loss (common subexpressions shared)."""
    ch = E.channel(loss)
    f = lambda expr: sp.lambdify(_ARGS, expr, "mpmath")  # noqa: E731
    vec = [*ch["r"], *list(ch["dr_dx"]), ch["loss"]]
    return {"G": f(ch["G"]), "G_h": f(ch["G_h"]), "omega0": f(ch["omega0"]),
            "vec": sp.lambdify(_ARGS, vec, "mpmath", cse=True)}


@dataclass
class PolishResult:
    converged: bool
    status: str
    iterations: int
    residual: mpmath.mpf
    x: list
    dps: int
    quad_error: mpmath.mpf
    metrics: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {"polish_converged": self.converged, "polish_status": self.status,
               "polish_iterations": self.iterations, "polish_residual": self.residual,
               "polish_quad_error": self.quad_error, "polish_dps": self.dps}
        if self.converged:
            out.update(dict(zip(("w1", "m", "b", "V", "Q"), self.x)))
            out.update(self.metrics)
        return out


class _TwoPoint:
    """The equations on the two-point law at working precision (mp.dps set by the caller).

    zeta-expectations: the trapezoidal rule on [-Z, Z] (exp(-Z^2/2) below the working
    precision), step halved until two successive sums agree to the working precision; for an
    integrand analytic in a strip around the real axis times the Gaussian density the rule
    converges exponentially in 1/step, so the last difference bounds the error of the
    previous sum and the returned sum is far better (``quad_error`` records the difference).
    All 31 functions (r, dr/dx, loss) are evaluated at each node from one prox solve."""

    def __init__(self, mu, s2, pi, alpha, lam, loss):
        one = mpmath.mpf(1)
        self.cls = [(one, mu, pi), (-one, mpmath.mpf(0), 1 - pi)]  # (y, c, weight)
        self.s2, self.alpha, self.lam = s2, alpha, lam
        self.f = _compiled(loss)
        self.quad_error = mpmath.mpf(0)
        self.Z = mpmath.sqrt(2 * (mpmath.mp.dps + 5) * mpmath.log(10))
        self._cache = (None, None)

    def _prox(self, x, z, y, c, start):
        w1, m, b, V, Q = x
        args = lambda hh: (hh, z, w1, m, b, V, Q, 0, c, self.s2, y)  # noqa: E731
        hh = start
        for _ in range(200):
            step = self.f["G"](*args(hh)) / self.f["G_h"](*args(hh))
            hh -= step
            if abs(step) <= 4 * mpmath.eps * (1 + abs(hh)):
                return hh
        raise ArithmeticError(f"prox Newton did not converge at zeta = {z}")

    def _class_average(self, x, y, c):
        w1, m, b, V, Q = x
        vec = self.f["vec"]
        H = {}

        def value(k, step):  # node k * step
            z = k * step
            left = H.get(round(float(z - step), 12))  # the left neighbour (always computed first)
            if left is None:
                left = (m * c + b + mpmath.sqrt(self.s2 * Q) * z) / (1 + self.s2 * V)
            hh = self._prox(x, z, y, c, left)
            H[round(float(z), 12)] = hh
            vals = vec(hh, z, w1, m, b, V, Q, 0, c, self.s2, y)
            w = mpmath.npdf(z)
            return [v * w for v in vals]

        step = mpmath.mpf(1) / 4
        K = int(mpmath.ceil(self.Z / step))
        total = [mpmath.mpf(0)] * 31
        for k in range(-K, K + 1):  # in increasing zeta: warm starts from the left neighbour
            total = [t + v for t, v in zip(total, value(k, step))]
        T = [t * step for t in total]
        tol = mpmath.eps * 100
        for _ in range(12):
            step /= 2
            K = int(mpmath.ceil(self.Z / step))
            new = [mpmath.mpf(0)] * 31
            for k in range(-K + (K % 2 == 0), K + 1, 2):  # the odd multiples of the new step
                new = [t + v for t, v in zip(new, value(k, step))]
            T_new = [t / 2 + n * step for t, n in zip(T, new)]
            diff = max(abs(p - q) for p, q in zip(T_new, T))
            T = T_new
            if diff <= tol * (1 + max(abs(t) for t in T)):
                self.quad_error = max(self.quad_error, diff)
                return T
        raise ArithmeticError("trapezoidal rule did not converge in 12 halvings")

    def averages(self, x):
        """sum over classes of weight * E_zeta[(r, dr/dx, loss)] (cached for the last x)."""
        key = tuple(x)
        if self._cache[0] != key:
            out = [mpmath.mpf(0)] * 31
            for y, c, wt in self.cls:
                out = [o + wt * v for o, v in zip(out, self._class_average(x, y, c))]
            self._cache = (key, out)
        return self._cache[1]

    def residual(self, x):
        w1, m, b, V, Q = x
        avg = self.averages(x)
        Eb, _, EV, Em, EQ = avg[:5]
        return mpmath.matrix([Eb, w1, self.lam * V + EV - 1 / self.alpha,
                              m + self.alpha * V * Em, Q - m**2 - self.alpha * V**2 * EQ])

    def jacobian(self, x):
        """d outer/dx + d outer/dE . E[dr/dx]; the (w1) row is e_1 (a = 0 pins w1 = 0)."""
        w1, m, b, V, Q = x
        avg = self.averages(x)
        _, _, _, Em, EQ = avg[:5]
        Edr = lambda i, j: avg[5 + 5 * i + j]  # noqa: E731
        J = mpmath.zeros(5, 5)
        J[1, 0] = 1
        for j in range(5):
            J[0, j] = Edr(0, j)
            J[2, j] = Edr(2, j)
            J[3, j] = self.alpha * V * Edr(3, j)
            J[4, j] = -self.alpha * V**2 * Edr(4, j)
        J[2, 3] += self.lam
        J[3, 1] += 1
        J[3, 3] += self.alpha * Em
        J[4, 1] += -2 * m
        J[4, 3] += -2 * self.alpha * V * EQ
        J[4, 4] += 1
        return J

    def scaled(self, F, x):
        return max(abs(F[0]), abs(F[1]), abs(F[2] * self.alpha), abs(F[3]), abs(F[4] / x[4]))

    def metrics(self, x):
        w1, m, b, V, Q = x
        test, train_err = mpmath.mpf(0), mpmath.mpf(0)
        for y, c, wt in self.cls:
            mu = m * c + b
            sd = mpmath.sqrt(2 * self.s2 * Q)
            test += wt * mpmath.erfc(y * mu / sd) / 2
            om0 = self.f["omega0"](0, 0, w1, m, b, V, Q, 0, c, self.s2, y)
            train_err += wt * mpmath.erfc(y * (mu - om0) / sd) / 2
        return {"test_error": test, "train_loss": self.averages(x)[30], "train_error": train_err}


#: the two-point laws of the linear models, from the SymPy module (exact until evaluation)
_LAWS = {"pool": (E.POOL_MU, E.POOL_S2, sp.Integer(1)), "vec": (E.VEC_MU, E.VEC_S2, E.L)}


@lru_cache(maxsize=2)
def _law(model: str):
    """(mu, sigma^2, dimension factor) of a linear model as one mpmath function of (L, R, theta)."""
    return sp.lambdify((E.L, E.R, E.theta), list(_LAWS[model]), "mpmath")


def polish(model: str, L: int, R: int, pi, theta, alpha1, lam, loss: str, x0, dps: int,
           max_iter: int = 30) -> PolishResult:
    """Newton in mpmath at ``dps`` digits (+10 guard digits) from the float64 solution ``x0``
    = (w1, m, b, V, Q).  Parameters are converted exactly (``backends.to_mpf``: 1e-3 is 1/1000,
    not the double nearest to it); mu, sigma^2 and alpha = alpha1 / (dimension factor) come
    from the SymPy expressions of ``erm_equations`` (POOL_MU, VEC_MU, ...)."""
    if model not in _LAWS:
        raise ValueError(f"model must be 'pool' or 'vec', got {model!r}")
    with mpmath.workdps(dps + 10):
        mu, s2, dim = (mpmath.mpf(v) for v in _law(model)(to_mpf(L), to_mpf(R), to_mpf(theta)))
        eq = _TwoPoint(mu, s2, to_mpf(pi), to_mpf(alpha1) / dim, to_mpf(lam), loss)
        x = [mpmath.mpf(0)] + [mpmath.mpf(float(v)) for v in list(x0)[1:]]
        tol = mpmath.mpf(10) ** (-(dps + 3))  # the answer is then right to ~dps digits
        status, ok = f"Newton did not reach 1e-{dps + 3} in {max_iter} iterations", False
        for it in range(max_iter + 1):
            F = eq.residual(x)
            res = eq.scaled(F, x)
            if res < tol:
                ok, status = True, f"converged (mpmath Newton, exact Jacobian, {dps} digits)"
                break
            if it == max_iter:
                break
            step = mpmath.lu_solve(eq.jacobian(x), -F)
            x = [x[k] + step[k] for k in range(5)]
            if x[3] <= 0 or x[4] <= 0:
                status = "Newton left the domain V > 0, Q > 0"
                break
        metrics = eq.metrics(x) if ok else {}
        out = PolishResult(ok, status, it, +res, [+v for v in x], dps, +eq.quad_error, metrics)
    return out
