"""``solve``: a problem at the user's options and parameters, priced, solved and returned as
a typed result."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from numerics.core import resources
from numerics.core.precision import DPS
from numerics.core.results import Solution
from numerics.request.find import problem
from numerics.request.validate import dps, options, python_name


@dataclass
class SolveResult(Solution):
    """A problem solved at the user's parameters, the same shape for every model: the
    ``Solution`` fields (``result``, ``iterations``, ``residual``, ``message`` = the solver's
    status) with ``raw`` = ``{name: Value}`` (order parameters, test error, ...; a QMC
    estimate carries its standard error), and ``stats`` the descriptive fields (quadrature,
    precision), as the problem's solve returned them (``numerics.problems.base.ProblemSpec``)."""

    problem: str = ""
    options: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return self.value[key]

    def keys(self):
        return self.value.keys()

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v}" for k, v in self.options.items())
        vals = ", ".join(f"{k}={v}" for k, v in list((self.raw or {}).items())[:4])
        more = ", ..." if len(self.raw or {}) > 4 else ""
        return (f"SolveResult({self.problem}{opts}: {self.result.value}, {self.iterations} iterations, "
                f"residual {self.residual:.2g}; {vals}{more})")


def solve_request(name, given_options: Mapping, params: Mapping, spell: Callable = python_name):
    """``(spec, options, validated params, Estimate)`` of a solve: the one place where a solve's
    options and parameters get their defaults and its cost is priced, for the command line and
    the Python API alike (``attncheck.solve_estimate``); nothing is computed."""

    spec = problem(name)
    opts = options(spec, given_options, spell)
    values = spec.param_space.validate(params)
    return spec, opts, values, resources.priced(spec.cost, opts, values, what=f"solve of {name}")


def solve(name, given_options: Mapping, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name,
          announce=None, max_memory=None, max_time=None) -> SolveResult:
    """Validate, price and solve.  The result is returned whether or not it converged (the
    caller decides: the API raises SolveError, the CLI prints the status and exits 1); a
    non-converged result has no values."""
    spec, opts, values, estimate = solve_request(name, given_options, params, spell)
    digits = dps(dps_, None, spell)
    resources.check_cost(estimate, announce=announce, max_memory=max_memory, max_time=max_time)
    sol = spec.solve(opts, values, digits)
    return SolveResult(sol.result, sol.iterations, sol.residual, sol.raw if sol.ok else {}, sol.message,
                       dict(sol.stats), problem=spec.name, options=opts, params=values)
