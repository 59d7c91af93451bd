"""``attncheck solve positional-semantic``: Paper C's Result 4.2 (tied rank-1 dot-product
attention on two tokens; docs/paper_c.md).

Option --branch semantic|positional (the starting point of the solve: theta != 0 or m != 0).
Parameters: alpha (n/d), omega (teacher's positional weight), sigma (token noise), lam (ridge),
n_nodes (Gauss-Hermite nodes per axis; the error estimate solves again with n_nodes + 4).
The result has converged/status/iterations/residual, the overlaps (q, m, V, theta), their
conjugates (6 digits), mse, Phi and each output's quadrature error (*_err), every output to
the digits its error supports.  Float64 only: the 4-D
Gauss-Hermite tensor with a Newton prox at every node has no mpmath polish (--dps does not
apply)."""
from __future__ import annotations

from numerics.core.params import Param, ParamSpace
from numerics.problems.base import ProblemSpec

BRANCHES = ("semantic", "positional")  # numerics.theory.paper_c.equations.BRANCHES (tested)

SPACE = ParamSpace((
    Param("alpha", float, 0.0, 100.0, lo_open=True, doc="sample ratio n/d, in (0, 100]", default=1.0),
    Param("omega", float, 0.0, 1.0, doc="teacher's positional weight, in [0, 1]", default=0.3),
    Param("sigma", float, 0.0, 10.0, lo_open=True, doc="token noise std, in (0, 10]", default=0.5),
    Param("lam", float, 0.0, 10.0, lo_open=True, doc="ridge penalty, in (0, 10]", default=0.01),
    Param("n_nodes", int, 4, 16, doc="Gauss-Hermite nodes per axis, in [4, 16]", default=8),
))


def _solve(options: dict, p: dict, dps: int) -> dict:
    from numerics.theory.paper_c import equations as E

    branch = options.get("branch", BRANCHES[0])
    sol = E.solve(branch, p["alpha"], sigma=p["sigma"], lam=p["lam"], omega=p["omega"], n=p["n_nodes"],
                  throw=False)
    out = {"converged": sol.ok, "status": sol.result.value + (f" ({sol.message})" if sol.message else ""),
           "iterations": sol.iterations, "residual": float(sol.residual)}
    if not sol.ok:
        return out
    from numerics.core.value import error_text, supported_digits, text

    fp = sol.value

    def shown(v, e):  # the digits the quadrature error estimate supports (the one printer)
        return text(v, supported_digits(v, e, "se", 17))

    values = {**fp.overlaps, "mse": fp.mse, "Phi": fp.phi}
    errors = {**fp.errors, "Phi": fp.errors["phi"]}
    out.update({k: shown(v, errors[k]) for k, v in values.items()})
    out.update({k: text(v, 6) for k, v in fp.conjugates.items()})
    out.update({f"{k}_err": error_text(errors[k]) for k in values})
    out["precision"] = f"float64; {fp.n_nodes - 4}^4 vs {fp.n_nodes}^4 Gauss-Hermite nodes (*_err); --dps does not apply"
    return out


PROBLEMS = {
    "positional-semantic": ProblemSpec(
        name="positional-semantic",
        doc="Paper C Result 4.2: positional vs semantic attention (two tokens, tied rank-1)",
        param_space=SPACE, solve=_solve, options={"branch": BRANCHES},
    )
}
