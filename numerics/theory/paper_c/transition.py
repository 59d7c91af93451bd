"""The positional-semantic transition of Paper C from the theory: alpha_c(omega) and the
alpha above which attention beats the linear positional baseline.

* ``alpha_c``: the root in alpha of Delta Phi = Phi_semantic - Phi_positional (the training loss
  is -Phi, so above the root the semantic minimum has the lower training loss), bracketed
  (a scan of ``grid`` for a sign change, then Brent: ``numerics.core.solve``, method ``brent``).
* ``alpha_linear``: the root of mse_semantic(alpha) - mse_lin(omega) (the semantic branch is the
  global minimum above alpha_c; the positional branch's test error stays above the baseline's
  at omega = 0.3, docs/paper_c.md §8).

Every evaluation solves both branches on one fixed tensor Gauss-Hermite rule (``rule`` nodes
per axis: a deterministic function of alpha, which Brent needs), each continued from its last
root; the root is then recomputed on the rule with ``rule + 4`` nodes, and the change is the
reported quadrature error.  Machinery only: every value comes from the derivation through
``equations.solve_on_rule`` and ``linear.mse_linear``.
"""
from __future__ import annotations

from dataclasses import dataclass

from numerics.core.results import RESULTS, Solution
from numerics.core.solve import solve as run_solver
from numerics.theory.paper_c import equations as E

SETTING = {"sigma": 0.5, "lam": 0.01}


@dataclass
class Crossing:
    omega: float
    alpha: float
    error: float  # the change of the root from rule to rule + 4 nodes per axis
    rule: int
    kind: str  # "phi" (alpha_c) or "linear"


class _Branches:
    """Both branches at one (omega, rule), each continued from its last root."""

    def __init__(self, omega, rule, sigma, lam):
        self.omega, self.rule, self.sigma, self.lam = omega, rule, sigma, lam
        self.x0 = {b: None for b in E.BRANCHES}
        self.calls = 0

    def solve(self, branch, alpha):
        self.calls += 1
        x0 = self.x0[branch]
        sol = E.solve_on_rule(branch, alpha, self.rule, sigma=self.sigma, lam=self.lam, omega=self.omega,
                              x0=x0, n_sweeps=30 if x0 is None else 5)
        if not sol.ok and x0 is not None:  # a cold start from the branch's own start
            sol = E.solve_on_rule(branch, alpha, self.rule, sigma=self.sigma, lam=self.lam, omega=self.omega)
        if not sol.ok:
            raise ArithmeticError(f"{branch} branch: no fixed point at alpha = {alpha:.6g} ({sol.message})")
        self.x0[branch] = tuple(sol.value["x"])
        return sol.value

    def delta_phi(self, alpha):
        return self.solve("semantic", alpha)["phi"] - self.solve("positional", alpha)["phi"]

    def gap_linear(self, alpha, mse_lin):
        return self.solve("semantic", alpha)["mse"] - mse_lin


def _root(fn, grid):
    """The first sign change of fn on ``grid`` (ascending), refined by Brent."""
    prev = None
    for a in grid:
        try:
            v = fn(a)
        except ArithmeticError:
            prev = None
            continue
        if prev is not None and (prev[1] < 0) != (v < 0):
            return run_solver("brent", fn, prev[0], a, xtol=1e-6, rtol=1e-10, throw=False)
        prev = (a, v)
    return Solution(RESULTS.no_bracket, 0, float("inf"), None, "no sign change on the grid")


def _crossing(kind, omega, grid, rule, sigma, lam):
    mse_lin = None
    if kind == "linear":
        from numerics.theory.paper_c.linear import mse_linear

        mse_lin = mse_linear(sigma, omega, n=40)[0]
    roots = []
    for n in (rule, rule + 4):
        br = _Branches(omega, n, sigma, lam)
        fn = br.delta_phi if kind == "phi" else (lambda a, br=br: br.gap_linear(a, mse_lin))
        try:
            sol = _root(fn, grid if not roots else (roots[0] - 0.02, roots[0] + 0.02))
        except ArithmeticError as e:
            return Solution(RESULTS.failed, 0, float("inf"), None, str(e))
        if not sol.ok:
            return sol
        roots.append(float(sol.value))
    return Solution(RESULTS.successful, 0, abs(roots[1] - roots[0]),
                    Crossing(omega, roots[1], abs(roots[1] - roots[0]), rule + 4, kind))


def alpha_c(omega: float, grid=(0.9, 1.1, 1.3, 1.5, 1.7, 2.0), *, rule: int = 6, sigma: float = 0.5,
            lam: float = 0.01) -> Solution:
    """The alpha where the semantic branch's Phi crosses the positional one's (a Crossing)."""
    return _crossing("phi", omega, grid, rule, sigma, lam)


def alpha_linear(omega: float, grid=(1.0, 1.2, 1.4, 1.6, 1.8, 2.0), *, rule: int = 6, sigma: float = 0.5,
                 lam: float = 0.01) -> Solution:
    """The alpha above which the semantic branch's test error is below the linear baseline's."""
    return _crossing("linear", omega, grid, rule, sigma, lam)
