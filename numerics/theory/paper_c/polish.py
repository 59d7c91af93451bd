"""The mpmath polish of Paper C's fixed point on one tensor Gauss-Hermite rule.

The float64 root of a rule (``equations.solve_on_rule``: Newton with the exact Jacobian) is
polished in mpmath at ``dps`` digits: the rule's nodes and weights in mpmath
(``mpmath.gauss_quadrature``), the prox at every node by Newton on its SymPy gradient and
Hessian, started at the float64 prox (the global minimum chosen there, so the polish keeps the
same minimum at every node), and Newton on the four overlaps with the same exact Jacobian
(implicit function theorem) compiled for mpmath (``numerics.core.solve``, method ``newton``,
ops ``mpmath``).

What this certifies, and what it does not: the polished digits are those of the *rule's*
fixed point (the iteration and rounding error of the float64 root is their difference, about
1e-10 relative).  The distance of the rule's fixed point to the true one (the Gaussian
expectation) is the quadrature error, estimated by the change from n to n + 4 nodes per axis
(1e-4 to 1e-2 relative, docs/paper_c.md §3); it, not the iteration, limits the digits of the
model's values.  A tensor rule is the only rule this applies to: a QMC point set has no
exact-arithmetic meaning beyond its float64 points, and its error is statistical.
"""
from __future__ import annotations


import mpmath
import numpy as np

from derivations.core import active_mutants, replaying_cache
from derivations.paper_c import attention_erm as D
from numerics.core.backends import MPMATH
from numerics.core.results import RESULTS, Solution
from numerics.core.solve import MPMATH_OPS, solve as run_solver
from numerics.theory.paper_c import equations as E



@replaying_cache(maxsize=8)
def _compiled_mp(_mutants):
    ch, fp, fi, pr = D.channel(), D.fixed_point(), D.fields(), D.prox()
    c = lambda e, a=E.ARGS: MPMATH.compile(e, a, raw=True)  # noqa: E731
    return {
        "field": c(list(fi["omega"])), "teacher": c(list(fi["s"])),
        "pgrad": c(list(pr["grad"]), E.PARGS), "phess": c(list(pr["hess"]), E.PARGS),
        "r": c(list(ch["r"])), "dr_dp": c(list(ch["dr_dp"])), "dr_dh": c(list(ch["dr_dh"])),
        "dg_dp": c(list(ch["dg_dp"])), "hess": c(list(ch["hess"])),
        "F": c(list(fp["F"]), E.XARGS), "dF_dx": c(list(fp["dF_dx"]), E.XARGS),
        "dF_dE": c(list(fp["dF_dE"]), E.XARGS),
    }


def _rule_mp(n: int):
    """The n-node Gauss-Hermite rule for N(0, 1) in the working precision."""
    x, w = mpmath.gauss_quadrature(n, "hermite")
    s2, sp_ = mpmath.sqrt(2), mpmath.sqrt(mpmath.pi)
    return [s2 * x[i] for i in range(n)], [w[i] / sp_ for i in range(n)]


def _prox_mp(cm, h, pargs, tol, max_steps=30):
    """Newton on the prox's stationarity condition from h (a point near the minimum)."""
    h1, h2 = h
    for _ in range(max_steps):
        g = cm["pgrad"](h1, h2, *pargs)
        a, b, c, d = cm["phess"](h1, h2, *pargs)
        det = a * d - b * c
        d1, d2 = (d * g[0] - b * g[1]) / det, (-c * g[0] + a * g[1]) / det
        h1, h2 = h1 - d1, h2 - d2
        if max(abs(d1), abs(d2)) < tol * (1 + abs(h1) + abs(h2)):
            return h1, h2
    raise ArithmeticError("mpmath prox: Newton did not converge at a node")


def polish(branch: str, alpha: float, n: int, *, sigma: float = 0.5, lam: float = 0.01, omega: float = 0.3,
           dps: int = 30, x0=None, n_sweeps: int = 30) -> Solution:
    """The fixed point of the n-node tensor rule to ``dps`` digits (float64 root, then mpmath
    Newton).  The value: dict with ``x`` (mpf overlaps), ``x_float`` (the float64 root) and
    ``digits`` (the agreement of the two, in decimal digits: the float64 root's accuracy)."""
    fl = E.solve_on_rule(branch, alpha, n, sigma=sigma, lam=lam, omega=omega, x0=x0, tol=1e-12,
                         n_sweeps=n_sweeps)
    if not fl.ok:
        return fl
    x_float = fl.value["x"]
    avg = E.Averages(E.compiled(), n, sigma, omega)
    avg.reset()
    if not avg(x_float).ok:  # the float64 prox at the root: the minimum chosen at each node
        return Solution(RESULTS.failed, 0, float("inf"), None, "float64 prox failed at the root")
    h_float = avg._h
    X = avg.X
    cm = _compiled_mp(active_mutants())
    with mpmath.workdps(dps):
        tol = mpmath.mpf(10) ** (-(dps - 4))
        xs, ws = _rule_mp(n)
        # the float64 node order of equations.nodes: the same tensor product, index ijkl
        idx = np.stack(np.meshgrid(*(np.arange(n),) * 4, indexing="ij")).reshape(4, -1)
        noise = [[xs[i] for i in idx[a]] for a in range(4)]
        wts = [ws[i] * ws[j] * ws[k] * ws[l] for i, j, k, l in idx.T]
        # the float64 nodes are the same points (checked): the prox minima transfer node by node
        assert np.allclose(np.array(noise, dtype=float), X, atol=1e-12)
        prox_h = [(mpmath.mpf(h_float[0, i]), mpmath.mpf(h_float[1, i])) for i in range(len(wts))]
        sg, om, al, la = mpmath.mpf(sigma), mpmath.mpf(omega), mpmath.mpf(alpha), mpmath.mpf(lam)

        def fun(x):
            Eavg = [mpmath.mpf(0)] * 4
            dE = [[mpmath.mpf(0)] * 4 for _ in range(4)]
            for i, wt in enumerate(wts):
                nz = [noise[a][i] for a in range(4)]
                rest = (*nz, *x, sg, om)
                w = cm["field"](0, 0, *rest)
                s = cm["teacher"](0, 0, *rest)
                h1, h2 = _prox_mp(cm, prox_h[i], (w[0], w[1], s[0], s[1], x[2], sg, om), tol)
                prox_h[i] = (h1, h2)
                args = (h1, h2, *rest)
                r = cm["r"](*args)
                a, b, c, d = cm["hess"](*args)
                det = a * d - b * c
                Hinv = ((d / det, -b / det), (-c / det, a / det))
                dg = cm["dg_dp"](*args)  # 2 x 4, row-major
                drp = cm["dr_dp"](*args)  # 4 x 4
                drh = cm["dr_dh"](*args)  # 4 x 2
                dh = [[-(Hinv[p][0] * dg[k] + Hinv[p][1] * dg[4 + k]) for k in range(4)] for p in range(2)]
                for j in range(4):
                    Eavg[j] += wt * r[j]
                    for k in range(4):
                        dE[j][k] += wt * (drp[4 * j + k] + drh[2 * j] * dh[0][k] + drh[2 * j + 1] * dh[1][k])
            xa = (*x, *Eavg, al, la, sg)
            F = cm["F"](*xa)
            Jx, JE = cm["dF_dx"](*xa), cm["dF_dE"](*xa)
            J = [[Jx[4 * j + k] + mpmath.fsum(JE[4 * j + l] * dE[l][k] for l in range(4)) for k in range(4)]
                 for j in range(4)]
            return list(F), J

        sol = run_solver("newton", fun, positive=(True, False, True, False), tol=tol, ops=MPMATH_OPS,
                         x0=[mpmath.mpf(v) for v in x_float], max_steps=12, throw=False)
        if not sol.ok:
            return sol
        x = list(sol.raw)
        rel = max(abs(mpmath.mpf(a) - b) / max(abs(b), mpmath.mpf(1e-300)) for a, b in zip(x_float, x) if abs(b) > 1e-12)
        digits = float(-mpmath.log10(rel)) if rel > 0 else float(dps)
        return Solution(RESULTS.successful, sol.iterations, float(sol.residual),
                        {"x": x, "x_float": x_float, "digits": digits, "dps": dps, "n": n})
