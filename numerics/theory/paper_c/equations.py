"""Result 4.2 of Paper C solved: the compiled SymPy system, Gaussian averages, Newton.

Everything model-specific comes from ``derivations.paper_c.attention_erm``; this module holds
the machinery only:

* **averages** over (xi_1, xi_2, eta_1, eta_2) ~ N(0, I_4) by the tensor Gauss-Hermite rule
  with ``n`` nodes per axis (``numerics.core.quadrature.gauss_hermite``) or a QMC point set;
  the prox at every node by the vectorised Newton minimiser of ``prox2d`` on the objective
  compiled in (h, w, s, V) (fields once per node), cold-started at the cavity field, 0 and the
  last prox (the lowest minimum kept), warm-started from each start's last minimum within a
  solve, with a cold check at every root (:class:`Averages`, :func:`_newton`);
* **Jacobian**: dE[r]/dx = E[d_x r + d_h r dh*/dx], dh*/dx = -H^{-1} d_x g (implicit function
  theorem, all partial derivatives compiled from SymPy), then J = dF/dx + dF/dE dE/dx;
* **Newton** on the four overlaps (``numerics.core.solve``, method ``newton``; q and V positive), started after
  damped fixed-point sweeps from a branch's starting point (on the cheap ``PRESOLVE_N`` rule,
  with a first Newton solve there, when a larger rule is asked for);
* **error estimate**: the solve is repeated with ``n + 4`` nodes per axis; the change of every
  output is its quadrature error (reported as ``*_err``).

The semantic branch has m = 0 and the positional branch theta = 0; both subspaces are
invariant under the map (token swap, s -> -s symmetry of the Gauss-Hermite nodes), so Newton on
all four unknowns stays on its branch.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import sympy as sp

from derivations.core import active_mutants, replaying_cache
from derivations.paper_c import attention_erm as D
from numerics.core.backends import NUMPY
from numerics.core.content_memo import ContentMemo, digest
from numerics.core.quadrature import gauss_hermite, gaussian_sobol
from numerics.core.results import RESULTS, Solution
from numerics.core.solve import solve as run_solver
from numerics.theory.paper_c.prox2d import minimise
from numerics.papers.paper_c.vocabulary import BRANCHES

ARGS = D.H + D.NOISE + D.OVERLAPS + (D.sigma, D.omega)
#: the prox objective's own arguments: the fields are computed once per node, not per prox step
PARGS = D.H + (D.w1, D.w2, D.s1, D.s2, D.V, D.sigma, D.omega)
XARGS = D.OVERLAPS + D.AVERAGES + (D.alpha, D.lam, D.sigma)

#: branch -> starting point (q, m, V, theta) of the damped sweeps (the authors' starts)
STARTS = dict(zip(BRANCHES, ((0.9, 0.0, 14.6, 0.35), (0.02, 0.2, 14.6, 0.0))))
#: damping of the fixed-point sweeps before Newton (the authors' value)
DAMPING = 0.8
#: the sweeps stop early once a damped step changes every overlap by less than this: the
#: iterate is then well inside Newton's reach (|F| < 5e-3), and Newton does the rest
SWEEP_STOP = 1e-3


@dataclass(frozen=True)
class Compiled:
    obj: object
    grad: object
    hess: object
    field: object
    r: object
    dr_dp: object
    dr_dh: object
    dg_dp: object
    denv_dp: object
    F: object
    dF_dx: object
    dF_dE: object
    hats: object
    phi_rest: object
    mse: object
    teacher: object  # the teacher's field s(xi, eta; x)
    pobj: object  # the prox objective, gradient and Hessian in (h, w, s, V, sigma, omega)
    pgrad: object
    phess: object
    pgradhess: object


def _system() -> tuple:
    """The derivation's parts that :func:`_compiled` compiles (the channel, the fixed-point map,
    the outputs, the fields, the prox), as built under the mutants in force."""
    return D.channel(), D.fixed_point(), D.outputs(), D.fields(), D.prox()


def _expressions(part) -> tuple:
    """Every SymPy expression of a part of the system, in a fixed order (a hashable key)."""
    if isinstance(part, dict):
        return tuple((k, _expressions(v)) for k, v in part.items())
    if isinstance(part, (list, tuple)):
        return tuple(_expressions(v) for v in part)
    if isinstance(part, sp.MatrixBase):
        return sp.ImmutableMatrix(part)
    return part


@replaying_cache(maxsize=16)
def _compiled(_mutants) -> Compiled:
    ch, fp, out, fi, pr = _system()
    c = lambda e, a=ARGS: NUMPY.compile(e, a, cse=True, raw=True)  # noqa: E731
    hats = [fp["conjugates"][k] for k in D.CONJUGATES]
    return Compiled(
        obj=c(ch["objective"]), grad=c(list(ch["grad"])), hess=c(list(ch["hess"])),
        field=c(list(fi["omega"])), r=c(list(ch["r"])), dr_dp=c(list(ch["dr_dp"])),
        dr_dh=c(list(ch["dr_dh"])), dg_dp=c(list(ch["dg_dp"])), denv_dp=c(list(ch["denv_dp"])),
        F=c(list(fp["F"]), XARGS), dF_dx=c(list(fp["dF_dx"]), XARGS), dF_dE=c(list(fp["dF_dE"]), XARGS),
        hats=c(hats, XARGS),
        phi_rest=NUMPY.compile(out["phi_rest"], D.OVERLAPS + D.CONJUGATES + (D.lam, D.sigma), raw=True),
        mse=c(out["mse"]),
        teacher=c(list(fi["s"])),
        pobj=c(pr["objective"], PARGS), pgrad=c(list(pr["grad"]), PARGS), phess=c(list(pr["hess"]), PARGS),
        pgradhess=c(list(pr["grad"]) + list(pr["hess"]), PARGS),
    )


def compiled() -> Compiled:
    return _compiled(active_mutants())


@lru_cache(maxsize=8)
def nodes(n: int):
    """Tensor Gauss-Hermite nodes (4, n^4) and weights (n^4,) for N(0, I_4)."""
    x, w = gauss_hermite(n)
    g = np.meshgrid(x, x, x, x, indexing="ij")
    W = np.einsum("i,j,k,l->ijkl", w, w, w, w)
    return np.stack([a.ravel() for a in g]), W.ravel()


def _bc(v, size):
    return np.broadcast_to(np.asarray(v, dtype=float), (size,))


def _arr(out, *shape):
    """A compiled list output as an array of ``shape`` (constant entries broadcast)."""
    n = shape[-1]
    return np.stack([_bc(v, n) for v in out]).reshape(shape)


class Averages:
    """E[r], dE[r]/dx and E[M] at x = (q, m, V, theta) with the n-node tensor rule.

    The prox at every node is the lowest of the minima reached from several starts.  Cold
    (the first call, and after :meth:`reset`): the cavity field, 0 and the last prox.  Warm
    (every later call, ``warm=True``): the minima the previous call reached from each of its
    starts, so that each local minimum is tracked as x moves (a few Newton steps instead of
    ten).  A solve ends with a cold evaluation at its root (:func:`_solve_n`): a minimum the
    warm starts lost is found again there."""

    def __init__(self, cmp: Compiled, n, sigma: float, omega: float, *, warm: bool = True):
        """``n``: nodes per axis of the tensor Gauss-Hermite rule, or a point set (X (4, N), W (N,))."""
        self.cmp, self.n, self.sigma, self.omega, self.warm = cmp, n, sigma, omega, warm
        self.X, self.W = nodes(n) if isinstance(n, int) else n
        self._last = (None, None)
        self._h = None  # the last prox (a third start: the nearest minimum when x moves little)
        self._minima = None  # the minima of the last call, one per start (the warm starts)

    def reset(self):
        """The next call starts cold (its starts: the cavity field, 0 and the last prox)."""
        self._last, self._minima = (None, None), None

    def __call__(self, x):
        # exp overflow in a saturated softmax weight is exact (-> 0); a trial point outside the
        # domain (theta^2 > rho q: the teacher's field is NaN) fails the prox, and Newton damps
        with np.errstate(over="ignore", invalid="ignore"):
            return self._call(x)

    def _call(self, x):
        key = tuple(float(v) for v in x)
        if self._last[0] == key:
            return self._last[1]
        cmp, X, W = self.cmp, self.X, self.W
        N = W.size
        rest = (*X, *(_bc(v, N) for v in key), self.sigma, self.omega)
        w0 = _arr(cmp.field(0, 0, *rest), 2, N)
        s0 = _arr(cmp.teacher(0, 0, *rest), 2, N)
        pargs = (w0[0], w0[1], s0[0], s0[1], _bc(key[2], N), self.sigma, self.omega)
        if self.warm and self._minima is not None:
            starts = self._minima
        else:
            starts = [w0, np.zeros((2, N))] + ([self._h] if self._h is not None else [])
        sol = minimise(cmp.pobj, cmp.pgrad, cmp.phess, starts, pargs, gradhess=cmp.pgradhess)
        if not sol.ok:
            out = sol
        else:
            h, env = sol.value
            self._h, self._minima = h, sol.stats["minima"]
            args = (h[0], h[1], *rest)
            r = _arr(cmp.r(*args), 4, N)
            Hm = _arr(cmp.hess(*args), 2, 2, N)
            dg = _arr(cmp.dg_dp(*args), 2, 4, N)
            det = Hm[0, 0] * Hm[1, 1] - Hm[0, 1] * Hm[1, 0]
            Hinv = np.array([[Hm[1, 1], -Hm[0, 1]], [-Hm[1, 0], Hm[0, 0]]]) / det
            dh = -np.einsum("ijn,jkn->ikn", Hinv, dg)  # (2, 4, N)
            dr = (_arr(cmp.dr_dp(*args), 4, 4, N)
                  + np.einsum("ijn,jkn->ikn", _arr(cmp.dr_dh(*args), 4, 2, N), dh))
            denv = _arr(cmp.denv_dp(*args), 4, N)
            out = Solution(RESULTS.successful, sol.iterations, sol.residual,
                           {"E": r @ W, "dE": dr @ W, "M": env @ W, "dM": denv @ W})
        self._last = (key, out)
        return out


@dataclass
class FixedPoint:
    """A converged solution of one branch: the overlaps, the conjugates, the outputs and their
    quadrature errors (the change from n to n + 4 nodes per axis)."""

    branch: str
    alpha: float
    sigma: float
    lam: float
    omega: float
    overlaps: dict
    conjugates: dict
    mse: float
    phi: float
    errors: dict
    iterations: int
    residual: float
    n_nodes: int
    status: str = RESULTS.successful.value
    stats: dict = field(default_factory=dict)

    @property
    def train_loss(self) -> float:
        return -self.phi


def _fun(avg: Averages, alpha, lam, sigma):
    cmp = avg.cmp

    def fun(x):
        s = avg(x)
        if not s.ok:
            raise ArithmeticError(s.message)
        E, dE = s.raw["E"], s.raw["dE"]
        a = (*x, *E, alpha, lam, sigma)
        F = np.array(cmp.F(*a), dtype=float)
        J = np.array(cmp.dF_dx(*a), dtype=float).reshape(4, 4) + np.array(cmp.dF_dE(*a), dtype=float).reshape(4, 4) @ dE
        return list(F), [list(row) for row in J]
    return fun


def _sweeps(avg, x, alpha, lam, sigma, n_sweeps, damping=DAMPING):
    cmp = avg.cmp
    x = np.array(x, dtype=float)
    for _ in range(n_sweeps):
        s = avg(x)
        if not s.ok:
            break
        F = np.array(cmp.F(*x, *s.raw["E"], alpha, lam, sigma), dtype=float)
        x_new = x - F
        if not (x_new[0] > 0 and x_new[2] > 0 and x_new[3] ** 2 < sigma**2 * x_new[0]):
            break
        x_next = damping * x + (1 - damping) * x_new
        done = np.max(np.abs(x_next - x)) < SWEEP_STOP
        x = x_next
        if done:
            break
    return x


#: the cheap rule (Gauss-Hermite nodes per axis) of the damped sweeps and a first Newton solve
#: when a larger rule is asked for: its root is a start within Newton's reach of the larger rule's
PRESOLVE_N = 6


def _newton(avg, x, alpha, lam, sigma, tol):
    """Newton on the rule of ``avg`` from x, then a cold evaluation of the prox at the root (all
    fresh starts): if it finds a lower minimum somewhere, Newton goes on from there."""
    iters = 0
    for _ in range(4):
        try:
            sol = run_solver("newton", _fun(avg, alpha, lam, sigma), positive=(True, False, True, False), tol=tol,
                             x0=list(x), max_steps=60, throw=False)
        except ArithmeticError as e:  # the prox found no minimum at some node of an iterate
            return Solution(RESULTS.failed, iters, float("inf"), list(x), str(e))
        iters += sol.iterations
        if not sol.ok:
            return sol
        x = [float(v) for v in sol.raw]
        avg(x)
        h_warm = avg._h
        avg.reset()
        cold = avg(x)
        if not cold.ok:
            return cold
        # the same minima up to the prox tolerance (a different minimum is O(1) away)
        if np.all(np.abs(avg._h - h_warm) <= 1e-6 * (1 + np.abs(h_warm))):
            return Solution(RESULTS.successful, iters, sol.residual, x)
    return Solution(RESULTS.failed, iters, sol.residual, x, "the prox's global minimum keeps changing at the root")


#: the solves on one rule done in this process (:func:`_solve_n`), by what they read
SOLVES = ContentMemo(kept=512)


def _solve_n(branch, alpha, sigma, lam, omega, n, x0, tol, n_sweeps):
    """The root on one rule and its outputs, ``(Solution, dict or None)``: solved, or found in
    the process's memo under the same key (the system's expressions, the rule, the numbers),
    which a mutant or a scaling of a step downstream (``C.out.reported``) leaves unchanged."""
    rule = (n,) if isinstance(n, int) else (digest(*n),)
    key = (_expressions(_system()), rule, branch, *map(float, (alpha, sigma, lam, omega, tol)),
           tuple(float(v) for v in x0), int(n_sweeps))
    sol, res = SOLVES.get(key, lambda: _solve_n_fresh(branch, alpha, sigma, lam, omega, n, x0, tol, n_sweeps))
    return replace(sol), (None if res is None else copy.deepcopy(res))


def _solve_n_fresh(branch, alpha, sigma, lam, omega, n, x0, tol, n_sweeps):
    cmp = compiled()
    if n_sweeps and not (isinstance(n, int) and n <= PRESOLVE_N):
        sol0, res0 = _solve_n(branch, alpha, sigma, lam, omega, PRESOLVE_N, x0, tol, n_sweeps)
        if res0 is not None:  # else the sweeps run on the rule asked for
            x0, n_sweeps = res0["x"], 0
    avg = Averages(cmp, n, sigma, omega)
    x = _sweeps(avg, x0, alpha, lam, sigma, n_sweeps)
    sol = _newton(avg, x, alpha, lam, sigma, tol)
    if not sol.ok:
        return sol, None
    x = sol.raw
    s = avg(x)
    E = s.raw["E"]
    xa = (*x, *E, alpha, lam, sigma)
    hats = [float(v) for v in cmp.hats(*xa)]
    Xn, W = avg.X, avg.W
    N = W.size  # the test error on the same rule
    rest = (*Xn, *(_bc(v, N) for v in x), sigma, omega)
    # the test error at the clean field (no prox): h is replaced by the field in the step itself
    with np.errstate(over="ignore"):
        mse = float(np.asarray(cmp.mse(0, 0, *rest), dtype=float) @ W)
    phi = float(cmp.phi_rest(*x, *hats, lam, sigma)) - alpha * float(s.raw["M"])
    return sol, {"x": x, "hats": hats, "mse": mse, "phi": phi}


def solve_on_rule(branch: str, alpha: float, rule, *, sigma: float = 0.5, lam: float = 0.01, omega: float = 0.3,
                  x0=None, tol: float = 1e-8, n_sweeps: int = 30):
    """The root of one fixed rule (``rule``: Gauss-Hermite nodes per axis, or a point set
    (X (4, N), W (N,))), no error estimate: a Solution whose value is a dict with the overlaps
    ``x``, the conjugates ``hats``, ``mse`` and ``phi`` (the benchmark's and the polish's unit)."""
    if branch not in STARTS:
        raise ValueError(f"branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
    sol, res = _solve_n(branch, alpha, sigma, lam, omega, rule, STARTS[branch] if x0 is None else x0, tol, n_sweeps)
    return sol if res is None else Solution(RESULTS.successful, sol.iterations, sol.residual, res)


def solve(branch: str, alpha: float, *, sigma: float = 0.5, lam: float = 0.01, omega: float = 0.3,
          n: int = 12, x0=None, tol: float = 1e-8, n_sweeps: int = 30, throw: bool = True):
    """Solve one branch at (alpha, sigma, lambda, omega) with n and n + 4 Gauss-Hermite nodes per
    axis.  Returns a Solution whose value is a :class:`FixedPoint`; never a non-converged one."""
    if branch not in STARTS:
        raise ValueError(f"branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
    start = STARTS[branch] if x0 is None else x0
    sol, res = _solve_n(branch, alpha, sigma, lam, omega, n, start, tol, n_sweeps)
    if res is None:
        return sol.check(throw)
    sol2, res2 = _solve_n(branch, alpha, sigma, lam, omega, n + 4, res["x"], tol, 0)
    if res2 is None:
        return sol2.check(throw)
    names = ("q", "m", "V", "theta")
    err = {k: abs(a - b) for k, a, b in zip(names, res["x"], res2["x"])}
    err["mse"] = abs(res["mse"] - res2["mse"])
    err["phi"] = abs(res["phi"] - res2["phi"])
    fpt = FixedPoint(branch, alpha, sigma, lam, omega, dict(zip(names, res2["x"])),
                     dict(zip(("qhat", "mhat", "Vhat", "thetahat"), res2["hats"])), res2["mse"], res2["phi"],
                     err, sol.iterations + sol2.iterations, max(sol.residual, sol2.residual), n + 4)
    return Solution(RESULTS.successful, fpt.iterations, fpt.residual, fpt)


# --- the reported values and their error estimates --------------------------------------------
@replaying_cache(maxsize=16)
def _reported(_mutants):
    syms = (D.MSE, D.PHI) + D.OVERLAPS
    return NUMPY.compile(D.reported(), syms)


def reported(fp: FixedPoint) -> dict:
    """The reported outputs of a fixed point (step ``C.out.reported``) and their quadrature
    errors (the step's derivative applied to the errors: the step is linear)."""
    f = _reported(active_mutants())
    names = D.REPORTED
    val = [float(v) for v in f(fp.mse, fp.phi, *(fp.overlaps[k] for k in ("q", "m", "V", "theta")))]
    one = [abs(float(v)) for v in f(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)]
    key = {"mse": "mse", "Phi": "phi"}
    err = {k: e * fp.errors[key.get(k, k)] for k, e in zip(names, one)}
    return dict(zip(names, val)), err


@replaying_cache(maxsize=16)
def _sensitivity(_mutants):
    """d mse / d x (the test-error integrand's gradient in the overlaps, from SymPy)."""
    out = D.outputs()
    return NUMPY.compile(list(sp.Matrix([out["mse"]]).jacobian(sp.Matrix(D.OVERLAPS))), ARGS, cse=True, raw=True)


def mse_sensitivity(fp: FixedPoint, n: int = 8) -> list:
    """E[d mse-integrand / d x] at the fixed point: how a change of the overlaps moves mse."""
    X, W = nodes(n)
    N = W.size
    x = [fp.overlaps[k] for k in ("q", "m", "V", "theta")]
    rest = (*X, *(_bc(v, N) for v in x), fp.sigma, fp.omega)
    return [float(_bc(v, N) @ W) for v in _sensitivity(active_mutants())(0, 0, *rest)]


def continuation(branch: str, alphas, **kw):
    """Solutions along ``alphas`` (in the given order), each started from the previous one
    (the first from the branch's start).  Stops at the first failure (its Solution is
    returned in place of the rest)."""
    out, x0 = [], None
    for a in alphas:
        sol = solve(branch, a, x0=x0, n_sweeps=30 if x0 is None else 0, throw=False, **kw)
        out.append(sol)
        if not sol.ok:
            break
        x0 = tuple(sol.value.overlaps[k] for k in ("q", "m", "V", "theta"))
    return out


def rqmc_rules(branch: str, alpha: float, log2_points: int, n_scrambles: int, seed=0):
    """The point sets of :func:`solve_rqmc`, one per scrambling (generated one at a time):
    ``(X (4, N), W (N,))``, N = 2^log2_points scrambled Sobol points mapped to N(0, I_4), equal
    weights; each scrambling seeded by its path (seed, branch, alpha, k)."""
    from numerics.core.seeding import seed_sequence

    for k in range(n_scrambles):
        X = gaussian_sobol(4, log2_points, seed_sequence(seed, "C.theory.rqmc", branch, f"{alpha:.12g}", k)).T
        yield np.ascontiguousarray(X), np.full(X.shape[1], 1.0 / X.shape[1])


def solve_rqmc(branch: str, alpha: float, *, sigma: float = 0.5, lam: float = 0.01, omega: float = 0.3,
               log2_points: int = 14, n_scrambles: int = 4, seed=0, x0=None, tol: float = 1e-8,
               n_sweeps: int = 30):
    """The same fixed point with randomized QMC averages: one solve per scrambled Sobol set of
    2^log2_points points in R^4 (``numerics.core.quadrature.gaussian_sobol``); the outputs are
    the mean over the scramblings and their errors the standard error of that mean (an honest
    error where the integrands are not smooth enough for Gauss-Hermite; docs/paper_c.md §5).
    Returns a Solution whose value is a FixedPoint (errors: the se), or the first failure."""
    if branch not in STARTS:
        raise ValueError(f"branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
    runs, iters, resid, x = [], 0, 0.0, (STARTS[branch] if x0 is None else x0)
    for k, pts in enumerate(rqmc_rules(branch, alpha, log2_points, n_scrambles, seed)):
        sol, res = _solve_n(branch, alpha, sigma, lam, omega, pts, x, tol, n_sweeps if k == 0 else 0)
        if res is None:
            return sol
        runs.append(res)
        iters, resid = iters + sol.iterations, max(resid, sol.residual)
        x = res["x"]
    names = ("q", "m", "V", "theta")
    arr = np.array([[*r["x"], r["mse"], r["phi"]] for r in runs])
    mean, se = arr.mean(axis=0), arr.std(axis=0, ddof=1) / np.sqrt(len(runs))
    hat_runs = np.array([r["hats"] for r in runs])
    hats = hat_runs.mean(axis=0)
    hat_names = ("qhat", "mhat", "Vhat", "thetahat")
    err = dict(zip((*names, "mse", "phi"), map(float, se)))
    err.update(zip(hat_names, map(float, hat_runs.std(axis=0, ddof=1) / np.sqrt(len(runs)))))
    fpt = FixedPoint(branch, alpha, sigma, lam, omega, dict(zip(names, map(float, mean[:4]))),
                     dict(zip(("qhat", "mhat", "Vhat", "thetahat"), map(float, hats))), float(mean[4]),
                     float(mean[5]), err, iters, resid, 0, stats={"rule": f"RQMC 2^{log2_points} x {n_scrambles}"})
    return Solution(RESULTS.successful, iters, resid, fpt)
