"""High-precision polish of the ERM self-consistent equations for exact-atom latent laws.

The float64 solution of :func:`numerics.theory.paper_a.erm_equations.solve` is polished in
mpmath at ``dps`` digits with THE SAME compiled SymPy system
(``erm_equations.compiled(loss, signal_along_q, MpContext(dps))``: the five equations, the prox, the
integrands and their implicit-function-theorem Jacobian, the outputs):

* the latent law: the atoms of ``LatentLaw.mp_atoms`` (the SymPy law evaluated in mpmath,
  parameters converted exactly: 1e-3 is 1/1000);
* zeta-expectations by the trapezoidal rule with step halving
  (``numerics.core.quadrature.gaussian_trapezoid_mp``; the last change is ``quad_error``),
  the prox at every node by the generic bracketed Newton of ``numerics.core.solve``
  (``increasing-scalar``);
* Newton on the unknowns (``newton`` of ``numerics.core.solve``, mpmath arithmetic) with the exact
  Jacobian, started from the float64 solution; converged when the Newton correction is below
  10^-(dps + 2).

Randomized-QMC laws (attention) have no exact representation: their error is the QMC
error, so they are not polished.
"""
from __future__ import annotations

import mpmath

from numerics.core.backends import MpContext, to_mpf
from numerics.core.quadrature import gaussian_trapezoid_mp
from numerics.core.results import RESULTS, Solution, SolveError
from numerics.core.solve import MPMATH_OPS, increasing_root_scalar, solve
from numerics.theory.paper_a.erm_equations import FixedPoint, assemble, compiled
from numerics.theory.paper_a.laws import LatentLaw
from numerics.theory.paper_a.models import Loss


class _Averages:
    """The averaged channel (r, dr/dx) and the h-dependent outputs at working precision,
    cached for the last x."""

    def __init__(self, cmp, atoms):
        self.cmp, self.atoms = cmp, atoms
        self.h_outputs = [k for k, (_, needs) in cmp.outputs.items() if needs]
        self.n_values = cmp.n + cmp.n * cmp.n + len(self.h_outputs)
        self.quad_error = mpmath.mpf(0)
        self._last = (None, None)

    def __call__(self, x):
        key = tuple(x)
        if self._last[0] == key:
            return self._last[1]
        cmp = self.cmp
        tol = mpmath.eps * 8
        total = [mpmath.mpf(0)] * self.n_values
        for w, a, c, s2, y in self.atoms:
            def f(z):
                args = (z, *x, a, c, s2, y)
                h = increasing_root_scalar(lambda hh: cmp.prox(hh, *args), cmp.omega(0, *args), tol=tol)
                return list(cmp.channel(h, *args)) + [cmp.outputs[k][0](h, *args) for k in self.h_outputs]

            vals, err = gaussian_trapezoid_mp(f, self.n_values)
            self.quad_error = max(self.quad_error, err)
            total = [t + w * v for t, v in zip(total, vals)]
        self._last = (key, total)
        return total


def polish(law: LatentLaw, alpha1, lam, loss: Loss, x0, dps: int, max_steps: int = 30) -> Solution:
    """Newton in mpmath at ``dps`` digits (+10 guard digits) from the float64 solution ``x0``
    (a FixedPoint, a dict or a list in the order of the unknowns).  The value is a
    :class:`FixedPoint` of mpmath numbers; ``stats["quad_error"]`` the last trapezoid change."""
    if law.exact is None:
        raise ValueError("only exact-atom latent laws (pooled, vectorised) can be polished")
    with mpmath.workdps(dps + 10):
        cmp = compiled(loss, law.signal_along_q, MpContext(dps))
        atoms = law.mp_atoms()
        alpha = to_mpf(alpha1) / law.mp_dim()
        lam_mp = to_mpf(lam)
        avg = _Averages(cmp, atoms)
        n = cmp.n

        def fun(x):
            return assemble(cmp, x, alpha, lam_mp, avg(x)[: n + n * n])

        if isinstance(x0, FixedPoint):
            x0 = x0.vector
        elif isinstance(x0, dict):
            x0 = [x0[k] for k in cmp.names]
        start = [mpmath.mpf(float(v)) for v in x0]
        try:
            sol = solve("newton", fun, cmp.positive, tol=mpmath.mpf(10) ** (-(dps + 2)), ops=MPMATH_OPS, x0=start,
                        max_steps=max_steps, throw=False)
        except (SolveError, ArithmeticError) as e:
            msg = e.solution.message if isinstance(e, SolveError) else str(e)
            return Solution(RESULTS.failed, 0, float("inf"), None, f"mpmath polish: {msg}")
        stats = {"quad_error": +avg.quad_error, "dps": dps}
        if not sol.ok:
            return Solution(sol.result, sol.iterations, sol.residual, None,
                            f"mpmath Newton: {sol.result.value}", stats)
        x = sol.raw
        values = avg(x)
        metrics = {}
        for k, (fn, needs) in cmp.outputs.items():
            if needs:
                metrics[k] = +values[n + n * n + avg.h_outputs.index(k)]
            else:
                metrics[k] = +sum(w * fn(0, 0, *x, a, c, s2, y) for w, a, c, s2, y in atoms)
        fp = FixedPoint({k: +v for k, v in zip(cmp.names, x)}, metrics, None, 0)
        return Solution(RESULTS.successful, sol.iterations, sol.residual, fp,
                        f"mpmath Newton, exact Jacobian, {dps} digits", stats)
