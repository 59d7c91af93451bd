"""Every solver of attncheck: one driver, one alias table, one typed result.

As ``mpmath.findroot(..., solver=...)`` selects its method by name, :func:`solve` selects one
of :data:`SOLVERS` and runs it through :func:`iterate`; the answer is always a
:class:`numerics.core.results.Solution` (status, iterations, residual), and a non-converged
iterate is never a value.  Nothing here knows a model: functions, Jacobians and Hessians are
compiled from SymPy by the caller.

==========================  ==================================================================
``newton`` / ``damped``     :class:`Newton`: damped Newton for a small system F(x) = 0 with an
                            exact Jacobian, float64 or mpmath; positive unknowns in log
``mdnewton``                :class:`MPNewton`: ``mpmath.findroot``'s multidimensional Newton
                            with the exact Jacobian (high-precision polish)
``rtsafe``                  :class:`BracketedNewton`: a root in a sign-change bracket, Newton
                            safeguarded by bisection (Numerical Recipes' rtsafe)
``increasing``              :class:`IncreasingRoot`: roots of increasing functions, vectorised
                            over arrays (numpy)
``increasing-scalar``       :class:`IncreasingRootScalar`: the same for one root in any number
                            type (mpmath), bracketed by steps growing away from the start
``brent``                   :class:`Brent`: scipy's ``brentq`` in a bracket (no derivative)
``golden``                  :class:`GoldenSection`: minimiser of a unimodal function
``newton-ascent``           :class:`NewtonAscent`: Newton steps on a gradient with the exact
                            Hessian, step halved until the objective does not decrease
==========================  ==================================================================

A solver is a small object over a state (the optimistix shape)::

    init(x0)         -> state
    step(state)      -> state
    terminate(state) -> (done: bool, result: RESULTS)
    residual(state)  -> float   (what ``Solution.residual`` reports)
    value(state)     -> the solution value

:func:`iterate` owns the loop, the iteration limit and the typed outcome, so no solver writes
its own "keep the last iterate" loop.
"""
from __future__ import annotations

from numerics.core.results import RESULTS, Solution, SolveError  # noqa: F401  (the one result type)
from numerics.core.solve.bracket import BracketedNewton, Brent, GoldenSection
from numerics.core.solve.driver import Solver, finite, inside, iterate
from numerics.core.solve.increasing import IncreasingRoot, IncreasingRootScalar, increasing_root, increasing_root_scalar
from numerics.core.solve.newton import FLOAT64_OPS, MPMATH_OPS, MPNewton, AscentState, Newton, NewtonAscent, Ops

#: the solvers by name (:func:`solve`)
SOLVERS = {
    "newton": Newton,
    "damped": Newton,
    "mdnewton": MPNewton,
    "rtsafe": BracketedNewton,
    "increasing": IncreasingRoot,
    "increasing-scalar": IncreasingRootScalar,
    "brent": Brent,
    "golden": GoldenSection,
    "newton-ascent": NewtonAscent,
}


def solve(method: str, *args, x0=None, max_steps: int = 1000, throw: bool = True, message: str = "",
          **options) -> Solution:
    """``SOLVERS[method](*args, **options)`` run from ``x0`` by :func:`iterate`."""
    try:
        cls = SOLVERS[method]
    except KeyError:
        raise ValueError(f"solver {method!r}: expected one of {', '.join(sorted(SOLVERS))}") from None
    return iterate(cls(*args, **options), x0, max_steps=max_steps, throw=throw, message=message)


__all__ = ["SOLVERS", "solve", "iterate", "Solver", "finite", "inside", "Newton", "MPNewton", "NewtonAscent",
           "AscentState", "Ops", "FLOAT64_OPS", "MPMATH_OPS", "BracketedNewton", "Brent", "GoldenSection", "IncreasingRoot",
           "IncreasingRootScalar", "increasing_root", "increasing_root_scalar"]
