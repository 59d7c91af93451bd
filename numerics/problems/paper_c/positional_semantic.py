"""``attncheck solve positional-semantic``: Paper C's Result 4.2 (tied rank-1 dot-product
attention on two tokens; docs/paper_c.md).

Option --branch semantic|positional (the starting point of the solve: theta != 0 or m != 0).
Parameters: alpha (n/d), omega (teacher's positional weight), sigma (token noise), lam (ridge),
and the randomized-QMC controls log2_points, n_scrambles, qmc_seed (numerics.theory.paper_c.
equations.solve_rqmc: one Newton solve per scrambled Sobol set, the outputs their mean).
The result has converged/status/iterations/residual, the overlaps (q, m, V, theta), mse, Phi,
and the conjugates, each with its standard error over the scramblings (*_rqmc_se: the one
printer shows the digits it supports).  Float64 only (--dps does not apply): the digits are
limited by the rule's standard error, not the iteration; the mpmath polish of a tensor rule's
root is numerics.theory.paper_c.polish (docs/paper_c.md §3)."""
from __future__ import annotations

from numerics.core.params import Param, ParamSpace
from numerics.papers.paper_c.vocabulary import ALPHA, BRANCHES, LAMBDA, OMEGA, SIGMA
from numerics.problems.base import ProblemSpec

SPACE = ParamSpace((
    ALPHA.with_default(1.0), OMEGA.with_default(0.3), SIGMA.with_default(0.5), LAMBDA.with_default(0.01),
    Param("log2_points", int, 8, 16, doc="RQMC points per scrambling = 2^log2_points, in [8, 16]", default=14),
    Param("n_scrambles", int, 2, 32, doc="independent Sobol scramblings (the se), in [2, 32]", default=4),
    Param("qmc_seed", int, 0, None, doc="seed of the Sobol scramblings", default=0),
))


def _solve(options: dict, p: dict, dps: int):
    from numerics.core.results import Solution
    from numerics.core.value import values
    from numerics.theory.paper_c import equations as E

    branch = options.get("branch", BRANCHES[0])
    sol = E.solve_rqmc(branch, p["alpha"], sigma=p["sigma"], lam=p["lam"], omega=p["omega"],
                       log2_points=p["log2_points"], n_scrambles=p["n_scrambles"], seed=p["qmc_seed"])
    if not sol.ok:
        return Solution(sol.result, sol.iterations, float(sol.residual), {}, sol.message)
    fp = sol.value
    errors = {**fp.errors, "Phi": fp.errors["phi"]}
    out = {}
    for k, v in {**fp.overlaps, "mse": fp.mse, "Phi": fp.phi, **fp.conjugates}.items():
        out[k], out[f"{k}_rqmc_se"] = v, errors[k]
    precision = (f"float64; randomized QMC, 2^{p['log2_points']} points x {p['n_scrambles']} scramblings "
                 "(*_rqmc_se: the se over scramblings); --dps does not apply")
    return Solution(sol.result, sol.iterations, float(sol.residual), values(out, 15), sol.message,
                    {"precision": precision})


PROBLEMS = {
    "positional-semantic": ProblemSpec(
        name="positional-semantic",
        doc="Paper C Result 4.2: positional vs semantic attention (two tokens, tied rank-1)",
        param_space=SPACE, solve=_solve, options={"branch": BRANCHES},
    )
}
