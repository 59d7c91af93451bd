"""Solve the ERM self-consistent equations of step 4 (Paper A, Theorems 4-5) in float64.

Everything model-specific comes from ``derivations.paper_a.erm_equations.system`` (the five
equations, the prox, the integrands, their exact Jacobian by the implicit function theorem,
the outputs), compiled by ``numerics.core.backends`` to numpy, vectorised over latent points
x quadrature nodes.  This module is generic machinery:

* the latent law: ``numerics.theory.paper_a.laws`` (exact atoms or randomized QMC);
* zeta-expectations: if the prox is linear in h and every integrand is then a polynomial in
  zeta (the square loss; decided by SymPy), the smallest exact Gauss-Hermite rule; otherwise
  the trapezoidal rule on [-8.6, 8.6] (exponentially convergent for these analytic
  integrands, also when the Gaussian is wide compared with the prox's transition, where
  Gauss-Hermite converges slowly), its step halved until the solution and the outputs change
  by less than ``quad_tol`` (``quad_change`` reports the last change); the same rule as the
  mpmath polish;
* the prox by the generic safeguarded Newton of ``numerics.core.solve`` (``increasing``) on
  the compiled G(h) = 0, G_h;
* the solve: damped Newton (``newton`` of ``numerics.core.solve``; V and Q in log) with the exact SymPy
  Jacobian dF/dx + dF/dEbar . E[dr/dx]; if it fails from the start, continuation in lambda
  from lambda = 1.  Results are :class:`numerics.core.results.Solution`; a non-converged
  solve has no value.
* randomized-QMC error: :func:`solve_with_error` re-solves on each scrambling alone and
  reports std / sqrt(K) of every output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from derivations.core import active_mutants, replaying_cache
from derivations.paper_a import erm_equations as EQ
from numerics.core.backends import NUMPY, Context
from numerics.core.content_memo import ContentMemo, digest
from numerics.core.params import ParameterError
from numerics.core.quadrature import gauss_hermite, gaussian_trapezoid
from numerics.core.results import RESULTS, Solution, SolveError
from numerics.core import solve as solvers
from numerics.core.solve import increasing_root
from numerics.core.tasks import track
from numerics.theory.paper_a import costs
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.models import Loss
from numerics.theory.paper_a.laws import LatentLaw, attention_law, linear_law  # noqa: F401 (re-exported)

LOSSES = M.LOSS_NAMES
MODELS = M.MODEL_NAMES
OUTPUT_NAMES = ("test_error", "train_loss", "train_error")
DEFAULT_STEP = 0.5  # first trapezoidal step in zeta


def unknown_name(sym) -> str:
    return str(sym).replace("_", "")


# --------------------------------------------------------------------------------------------
# compiled system
@dataclass(frozen=True)
class Compiled:
    """The system of one loss, compiled under one context (cached per active mutants)."""

    names: tuple
    positive: tuple
    n: int
    prox: object  # (h, zeta, *x, a, c, s2, y) -> (G, G_h)
    omega: object
    channel: object  # (h, zeta, *x, a, c, s2, y) -> [r (n), dr/dx (n*n row-major)]
    outer: object  # (*x, alpha, lam, *Ebar) -> [F (n), dF/dx (n*n), dF/dE (n*n)]
    outputs: dict  # name -> (function of the channel arguments, needs zeta/h)
    exact_nodes: int | None  # Gauss-Hermite nodes that integrate every zeta-average exactly


def _exact_nodes(sy) -> int | None:
    """If the prox is linear in h and, with h substituted, every integrand, Jacobian entry and
    output is a polynomial in zeta of degree <= 2k - 1: k (else None)."""
    G = sy["G"]
    if sp.simplify(sp.diff(G, EQ.h, 2)) != 0:
        return None
    sol = sp.solve(G, EQ.h)
    if len(sol) != 1:
        return None
    exprs = list(sy["integrands"]) + [e for row in sy["dr_dx"] for e in row] + list(sy["outputs"].values())
    deg = 0
    for e in exprs:
        e = e.subs(EQ.h, sol[0])
        if not e.has(EQ.zeta):
            continue
        try:
            deg = max(deg, sp.Poly(sp.expand(e), EQ.zeta).degree())
        except sp.PolynomialError:
            return None
    return deg // 2 + 1


@replaying_cache(maxsize=32)
def _compiled(loss: Loss, signal_along_q: bool, context: type, mutants: tuple) -> Compiled:
    ctx = context()  # compiling depends on the number system (the context's class) alone
    sy = EQ.system(loss, signal_along_q)
    every = [sy["G"], sy["G_h"], *sy["integrands"], *sy["equations"], *sy["outputs"].values(),
             *[e for row in sy["dr_dx"] for e in row]]
    if any(e.has(sp.zoo, sp.nan) for e in every):
        raise ValueError(f"the {loss} system has an undefined expression (a division by zero)")
    x = sy["unknowns"]
    ch_args = (EQ.h, EQ.zeta, *x, *EQ.LATENT)
    n = len(x)
    chan = list(sy["integrands"]) + [e for row in sy["dr_dx"] for e in row]
    outer_args = (*x, EQ.alpha, EQ.lam, *sy["expectations"])
    outer = list(sy["equations"]) + [e for row in sy["dF_dx"] for e in row] + [e for row in sy["dF_dE"] for e in row]
    outputs = {k: (ctx.compile(e, ch_args, raw=True), e.has(EQ.zeta) or e.has(EQ.h))
               for k, e in sy["outputs"].items()}
    return Compiled(
        names=tuple(unknown_name(s) for s in x), positive=tuple(bool(s.is_positive) for s in x), n=n,
        prox=ctx.compile([sy["G"], sy["G_h"]], ch_args, cse=True, raw=True),
        omega=ctx.compile(sy["omega"], ch_args, raw=True),
        channel=ctx.compile(chan, ch_args, cse=True, raw=True),
        outer=ctx.compile(outer, outer_args, cse=True, raw=True),
        outputs=outputs, exact_nodes=_exact_nodes(sy))


def compiled(loss: Loss, signal_along_q: bool, ctx: Context = NUMPY) -> Compiled:
    """The system of ``loss`` compiled under ``ctx`` (``NumpyContext`` or ``MpContext``; one
    compilation per number system, whatever the context's precision)."""
    EQ.system(loss, bool(signal_along_q))  # a cached build; it still records the mutated steps reached
    return _compiled(loss, bool(signal_along_q), type(ctx), active_mutants())


def assemble(cmp: Compiled, x, alpha, lam, averages):
    """F(x) and its Jacobian from the averaged channel (r, dr/dx): the SymPy outer map."""
    n = cmp.n
    out = cmp.outer(*x, alpha, lam, *averages[:n])
    F = list(out[:n])
    dFdx = [list(out[n + i * n: n + (i + 1) * n]) for i in range(n)]
    dFdE = [list(out[n + n * n + i * n: n + n * n + (i + 1) * n]) for i in range(n)]
    Edr = [averages[n + i * n: n + (i + 1) * n] for i in range(n)]
    J = [[dFdx[i][j] + sum(dFdE[i][k] * Edr[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    return F, J


# --------------------------------------------------------------------------------------------
@dataclass
class FixedPoint:
    """A solution of the equations: order parameters and outputs, with their numerical error
    estimates (``quad_change``: change when the Gauss-Hermite rule is doubled, 0 when exact;
    ``qmc_se``: randomized-QMC standard errors, attention only)."""

    x: dict
    metrics: dict
    step: float | None  # trapezoidal step in zeta (None: exact Gauss-Hermite)
    nodes: int
    quad_change: dict = field(default_factory=dict)
    qmc_se: dict = field(default_factory=dict)

    @property
    def vector(self):
        return list(self.x.values())


class Equations:
    """The equations on a latent law, for one (alpha_1, lambda, loss), in float64."""

    def __init__(self, law: LatentLaw, alpha1: float, lam: float, loss: Loss, step: float | None = None):
        if not (math.isfinite(alpha1) and alpha1 > 0):
            raise ParameterError(f"parameter alpha1: must be > 0, got {alpha1!r}")
        if not (math.isfinite(lam) and lam >= 0):
            raise ParameterError(f"parameter lam: must be >= 0, got {lam!r}")
        self.law, self.loss, self.lam = law, loss, float(lam)
        self.alpha = float(alpha1) / law.dim
        self.cmp = compiled(loss, law.signal_along_q, NUMPY)
        self.exact = self.cmp.exact_nodes is not None
        self.step = None if self.exact else float(step or DEFAULT_STEP)
        zn, zw = gauss_hermite(self.cmp.exact_nodes) if self.exact else gaussian_trapezoid(self.step)
        self.nodes = len(zn)
        self.zeta, self.zw = zn[None, :], zw
        n_pts = len(law.weight)
        # a law of more than costs.CHUNK_ELEMENTS points x nodes is processed in blocks of rows
        # (the working memory does not grow with the QMC points); within one block (every
        # claim's law) it is summed in one piece
        if n_pts * self.nodes <= costs.CHUNK_ELEMENTS:
            self.blocks = None
            self.W = law.weight[:, None] * zw[None, :]
            self.lat = tuple(v[:, None] for v in law.latent)
        else:  # row blocks; the proximal points are not kept between evaluations
            rows = max(1, costs.CHUNK_ELEMENTS // self.nodes)
            self.blocks = [(i, min(i + rows, n_pts)) for i in range(0, n_pts, rows)]
        self._h = None

    def _args(self, x):
        return (self.zeta, *[float(v) for v in x], *self.lat)

    def prox(self, x):
        args = self._args(x)
        h0 = self._h if self._h is not None else np.broadcast_to(self.cmp.omega(0.0, *args), self.W.shape)
        h = increasing_root(self.cmp.prox, args, h0)
        self._h = h
        return h, args

    @staticmethod
    def _sums(W, vals):
        return [float(np.sum(W * np.broadcast_to(np.asarray(v, dtype=float), W.shape))) for v in vals]

    def _averages(self, x, values) -> list:
        """E over the law and zeta of ``values(h, *args)`` (a list of arrays) at x: in one
        piece, or as the sum over the row blocks."""
        if self.blocks is None:
            h, args = self.prox(x)
            return self._sums(self.W, values(h, *args))
        total = None
        for i, j in self.blocks:
            W = self.law.weight[i:j, None] * self.zw[None, :]
            args = (self.zeta, *[float(v) for v in x], *(v[i:j, None] for v in self.law.latent))
            h = increasing_root(self.cmp.prox, args, np.broadcast_to(self.cmp.omega(0.0, *args), W.shape))
            part = self._sums(W, values(h, *args))
            total = part if total is None else [t + p for t, p in zip(total, part)]
        return total

    def evaluate(self, x):
        """(F, J) at x: the compiled outer map of the averaged compiled channel."""
        with np.errstate(all="ignore"):  # a non-finite F is the Newton solver's to reject
            avg = self._averages(x, self.cmp.channel)
        return assemble(self.cmp, x, self.alpha, self.lam, avg)

    def metrics(self, x) -> dict:
        fns = list(self.cmp.outputs.items())
        avg = self._averages(x, lambda h, *args: [f(h, *args) for _, (f, _) in fns])
        return {k: v for (k, _), v in zip(fns, avg)}


def _newton(eqs: Equations, x0, tol, max_steps) -> Solution:
    try:
        return solvers.solve("newton", eqs.evaluate, eqs.cmp.positive, tol=tol, x0=x0, max_steps=max_steps,
                             throw=False)
    except SolveError as e:  # a proximal point not found: this start does not lead to a solution
        return e.solution


def _start(eqs: Equations) -> list:
    """A neutral start: zero overlaps and bias, V = 1/alpha, Q = 1 (any start that leads to a
    root gives the same root; V and Q are solved in log)."""
    guess = {"w1": 0.0, "m": 0.0, "b": 0.0, "V": 1.0 / eqs.alpha, "Q": 1.0}
    return [guess[k] for k in eqs.cmp.names]


#: the solves at a fixed rule done in this process (:func:`_solve_rule`), by what they depend on
SOLVES = ContentMemo(kept=4096)


def _solve_key(law, alpha1, lam, loss, step, x0, tol, max_steps) -> tuple:
    """What a solve at a fixed rule depends on: the SymPy expressions it compiles (the prox, the
    channel, the outer map and their derivatives: not the outputs, which only the metrics
    read), the quadrature rule they imply (exact nodes, or the trapezoid step given), the law's
    digest and the numbers given.  A mutant of an output step (or a scaling of it) has the key
    of the true system; a mutant that reaches the equations, the prox or the law has another."""
    sy = EQ.system(loss, law.signal_along_q)
    system = (sy["G"], sy["G_h"], sy["omega"], sy["unknowns"], sy["expectations"], sy["equations"],
              sy["integrands"], *(tuple(r) for k in ("dr_dx", "dF_dx", "dF_dE") for r in sy[k]))
    law_digest = digest(law.weight, *law.latent, float(law.dim), bool(law.signal_along_q))
    exact_nodes = compiled(loss, law.signal_along_q, NUMPY).exact_nodes
    return (system, exact_nodes, law_digest, loss, float(alpha1), float(lam), step,
            None if x0 is None else tuple(float(v) for v in x0), float(tol), int(max_steps))


def _solve_rule(law, alpha1, lam, loss, step, x0, tol, max_steps) -> Solution:
    """Newton at a fixed quadrature rule; if it fails from x0, continuation in lambda from
    lambda = 1 down to the target (steps of up to a decade in log lambda, halved after a
    failure; a target lambda = 0 is reached from 1e-12).  The value's ``Equations`` are fresh
    (the metrics start from no earlier proximal point), so a solve found in the process's
    memo (:func:`_solve_key`: the same system, law and numbers) gives what solving again
    would, bit for bit, with the outputs of the current derivation."""
    def compute():
        sol = _solve_from(Equations(law, alpha1, lam, loss, step), law, alpha1, lam, loss, step, x0, tol,
                          max_steps)
        x, lam_k = (tuple(sol.raw[1]), sol.raw[0].lam) if sol.ok else (None, None)
        return sol.result, sol.iterations, sol.residual, x, lam_k, sol.message

    key = _solve_key(law, alpha1, lam, loss, step, x0, tol, max_steps)
    result, its, residual, x, lam_k, message = SOLVES.get(key, compute)
    raw = None if x is None else (Equations(law, alpha1, lam_k, loss, step), list(x))
    return Solution(result, its, residual, raw, message)


def _solve_from(eqs, law, alpha1, lam, loss, step, x0, tol, max_steps) -> Solution:
    """:func:`_solve_rule` without the memo: the value is (the equations solved, x)."""
    start = list(x0) if x0 is not None else _start(eqs)
    sol = _newton(eqs, start, tol, max_steps if x0 is not None else min(max_steps, 20))
    if sol.ok:
        return Solution(sol.result, sol.iterations, sol.residual, (eqs, sol.raw))
    its = sol.iterations
    if lam >= 1.0:
        return Solution(sol.result, its, sol.residual, None, "no solution by Newton from the start")
    target = math.log10(lam) if lam > 0 else -12.0
    x = _newton(Equations(law, alpha1, 1.0, loss, step), _start(eqs), tol, max_steps)
    its += x.iterations
    if not x.ok:
        return Solution(x.result, its, x.residual, None, "no solution at lambda = 1 to continue from")
    x, at, dlog = x.raw, 0.0, 1.0
    while at > target or (lam == 0 and at != float("-inf")):
        nxt = max(at - dlog, target) if at > target else float("-inf")  # -inf: lambda = 0
        lam_k = 10.0**nxt if nxt != float("-inf") else 0.0
        eqs = Equations(law, alpha1, lam_k, loss, step)
        s = _newton(eqs, x, tol, max_steps)
        its += s.iterations
        if s.ok:
            x, at, dlog = s.raw, nxt, min(1.0, 2 * dlog)
            continue
        dlog /= 2
        if dlog < 1 / 8 or nxt == float("-inf"):
            return Solution(s.result, its, s.residual, None,
                            f"no solution by Newton from the start nor by continuation in lambda "
                            f"(stopped at lambda = {lam_k:g}: {s.result.value})")
    return Solution(RESULTS.successful, its, s.residual, (eqs, x), "continuation in lambda")


def solve(law: LatentLaw, alpha1: float, lam: float, loss: Loss, *, x0=None, step: float | None = None,
          tol: float = 1e-11, quad_tol: float = 1e-9, x_quad_tol: float | None = None,
          max_nodes: int = 2**14, max_steps: int = 60, refine: bool = True) -> Solution:
    """Solve the equations; the value is a :class:`FixedPoint`.  ``step``: the first
    trapezoidal step in zeta (default 0.5; unused when the loss has an exact rule); with
    ``refine`` it is halved until the outputs change by at most ``quad_tol`` and the order
    parameters by at most ``x_quad_tol`` (relative; default ``quad_tol``)."""
    x_quad_tol = quad_tol if x_quad_tol is None else x_quad_tol
    its = 0
    if x0 is None and law.n_groups > 1:  # start from the solution on one scrambling (cheaper)
        coarse = _solve_rule(law.subset(0), alpha1, lam, loss, step, None, tol, max_steps)
        if not coarse.ok:  # the representative subset has no solution: neither, in all likelihood,
            return coarse  # has the whole law (and its continuation would cost K times more)
        its, x0 = coarse.iterations, coarse.raw[1]
    sol = _solve_rule(law, alpha1, lam, loss, step, x0, tol, max_steps)
    sol.iterations += its
    if not sol.ok:
        return sol
    eqs, x = sol.raw
    its = sol.iterations
    change, result, message = {}, RESULTS.successful, sol.message
    metrics = eqs.metrics(x)
    while refine and not eqs.exact:
        finer = eqs.step / 2
        if 2 * eqs.nodes > max_nodes:
            result = RESULTS.failed
            message = (f"quadrature in zeta not converged at step {eqs.step:g} "
                       f"(change {max(change.values()) if change else float('nan'):.2g})")
            break
        s2 = _solve_rule(law, alpha1, lam, loss, finer, x, tol, max_steps)
        its += s2.iterations
        if not s2.ok:
            return Solution(s2.result, its, s2.residual, None, f"at zeta step {finer:g}: {s2.message}")
        eqs2, x2 = s2.raw
        m2 = eqs2.metrics(x2)
        dx = {k: abs(u - v) / max(1.0, abs(v)) for k, u, v in zip(eqs.cmp.names, x, x2)}
        dm = {k: abs(m2[k] - metrics[k]) for k in m2}
        change = {**dx, **dm}
        eqs, x, metrics = eqs2, x2, m2
        if max(dm.values()) <= quad_tol and max(dx.values()) <= x_quad_tol:
            break
    fp = FixedPoint(dict(zip(eqs.cmp.names, x)), metrics, eqs.step, eqs.nodes,
                    {k: change.get(k, 0.0) for k in metrics})
    stats = {"quad_nodes": eqs.nodes, "quad_step": eqs.step,
             "quad_change": max(change.values()) if change else 0.0, "exact_quadrature": eqs.exact}
    res = sol.residual
    return Solution(result, its, res, fp, message if not result.ok else sol.message, stats)


def solve_with_error(law: LatentLaw, alpha1: float, lam: float, loss: Loss, **kw) -> Solution:
    """Solve on the whole QMC point set, then on each scrambling alone (warm start, the same
    rule); the randomized-QMC standard error of each output is std over scramblings / sqrt(K)."""
    sol = solve(law, alpha1, lam, loss, **kw)
    if not sol.ok or law.n_groups < 2:
        return sol
    fp = sol.raw
    kw2 = {k: v for k, v in kw.items() if k in ("tol", "max_steps")}
    vals = []
    for g in track(range(law.n_groups), "solve per scrambling (the QMC error)"):
        r = solve(law.subset(g), alpha1, lam, loss, x0=fp.vector, step=fp.step, refine=False, **kw2)
        if not r.ok:
            return sol.downgrade(RESULTS.suspect, f"scrambling {g} did not converge: no QMC error")
        vals.append({**r.raw.x, **r.raw.metrics})
    K = len(vals)
    fp.qmc_se = {k: float(np.std([v[k] for v in vals], ddof=1) / math.sqrt(K)) for k in vals[0]}
    return sol


def continuation(law: LatentLaw, alphas, lam: float, loss: Loss, **kw) -> list[Solution]:
    """Solve along a grid of alpha_1 (in the given order), warm-starting each point from the
    previous converged one."""
    out, x0 = [], None
    for al in alphas:
        r = solve(law, al, lam, loss, x0=x0, **kw)
        if not r.ok and x0 is not None:
            r = solve(law, al, lam, loss, **kw)
        out.append(r)
        if r.ok:
            x0 = r.raw.vector
    return out


def report(sol: Solution, extra: dict | None = None) -> Solution:
    """A solve as a problem's answer (``numerics.problems.base.ProblemSpec``): its status, and
    only if it converged the order parameters, the outputs (each a ``Value``, a QMC estimate
    with its standard error) and ``extra`` numbers before them; the quadrature in ``stats``."""
    from numerics.core.value import values

    if not sol.ok:
        return Solution(sol.result, sol.iterations, float(sol.residual), {}, sol.message)
    fp = sol.raw
    out = {k: float(v) for k, v in (extra or {}).items()}
    out.update({k: float(v) for k, v in fp.x.items()})
    out.update({k: float(v) for k, v in fp.metrics.items()})
    if sol.stats.get("quad_change"):
        out["quad_change"] = sol.stats["quad_change"]
    out.update({f"{k}_qmc_se": float(v) for k, v in fp.qmc_se.items()})
    quadrature = (f"exact Gauss-Hermite, {fp.nodes} nodes" if fp.step is None
                  else f"trapezoid in zeta, step {fp.step:g} ({fp.nodes} nodes)")
    return Solution(sol.result, sol.iterations, float(sol.residual), values(out, 15), sol.message,
                    {"quadrature": quadrature})
