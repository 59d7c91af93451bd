"""Evaluators of Paper A's closed forms that are not Theorem 3 / Corollary 1, under the
contexts of ``numerics.core.backends`` (Theorem 3 and Corollary 1 are the chains of
``numerics.theory.paper_a.alignment``, run under any context there).

* Corollary 2: E_inf and C1 of ``erm_equations.ridgeless_limit``, one :class:`Chain` per
  model, so mpmath, numpy and arb run the same compiled steps (:data:`COR2`);
* Theorem 1: the pooled oracle of ``representation_linear.pooled`` (SNR, kappa, threshold,
  error) and the fixed-position vectorised rule (``position_laws``) as a chain in balls; the
  mpmath values are the claim's own (``numerics.theory.paper_a.representation``), which
  treat S = 0 as the constant-rule limit (:func:`thm1_evaluator`);
* capacity: the stationary point of the SymPy objective of ``capacity.closed_form_system``
  (pooled, vectorised) by :func:`numerics.core.arb.krawczyk` on the SymPy gradient and
  Hessian (a unique stationary point in the returned box, where the Hessian is negative
  definite: a strict local maximum), and alpha* = the objective on that box; in mpmath the
  Newton polish of ``numerics.theory.paper_a.capacity`` (:func:`capacity_evaluator`), an
  independent algorithm for the certificate's cross-check.

Each is a :class:`numerics.core.backends.Evaluator`, the claim's ``evaluate``: the claim's own
evaluator decides that it is certifiable (it runs under the arb context).  Compiled code is
keyed by the expression, so a structural mutant (``derivations.core.mutated``) changes the
certified balls as it changes the derivation.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derivations.core import derivation
from numerics.core.backends import Chain, Closed, Evaluator

if TYPE_CHECKING:
    from derivations.paper_a.capacity import CapacityModel


# ---- Corollary 2 ------------------------------------------------------------------------------
@derivation
def cor2_chain() -> Chain:
    """Corollary 2 as one chain: E_inf and C1 of every linear model."""
    from derivations.paper_a import erm_equations as EQ
    from derivations.paper_a.models import LINEAR

    outputs = []
    for model in LINEAR:
        lim = EQ.ridgeless_limit(model)
        outputs += [(f"{model}.E_inf", lim["E_inf"]), (f"{model}.C1", lim["C1"])]
    return Chain((EQ.theta, EQ.R, EQ.L, EQ.pi_), (), tuple(outputs))


def _cor2(ctx, params: dict) -> dict:
    return cor2_chain().run(ctx, [params[n] for n in ("theta", "R", "L", "pi")])


#: Corollary 2 under any context
COR2 = Evaluator(_cor2, name="corollary2")


# ---- Theorem 1 (linear baselines) ---------------------------------------------------------------
@derivation
def _constant_rule_error():
    """The S -> 0 limit: the better constant rule, min over c = +-oo of the error of the
    threshold at S = 0 (SymPy limits of the derivation's error_of_threshold)."""
    from derivations.paper_a import representation_linear as lin

    e0 = lin.pooled().error_of_threshold.subs(lin.S, 0)
    return sp.Min(sp.limit(e0, lin.c, sp.oo), sp.limit(e0, lin.c, -sp.oo))


S_FIXED = sp.Symbol("S_fixed", positive=True)


@derivation
def thm1_chain() -> Chain:
    """Theorem 1 as one chain: S, the fixed-position S, then kappa, both errors, the constant
    rule and the threshold (``representation_linear``)."""
    from derivations.paper_a import representation_linear as lin

    P, pos = lin.pooled(), lin.position_laws()
    return Chain((lin.theta, lin.L, lin.R, lin.pi_),
                 (Closed(lin.S, P.snr), Closed(S_FIXED, pos.snr_fixed)),
                 (("SNR S = theta R/sqrt(L)", lin.S),
                  ("kappa = log((1-pi)/pi)", P.kappa),
                  ("E*_pool = E*_vec(uniform, mean rule)", P.error_S),
                  ("E*_vec(fixed positions) [S -> theta sqrt(R)]", P.error_S.subs(lin.S, S_FIXED)),
                  ("limit S -> 0 (fixed theta, L -> oo)", _constant_rule_error()),
                  ("threshold c* = S/2 + kappa/S", P.threshold)))


def thm1_evaluator(mp_evaluate) -> Evaluator:
    """Theorem 1's evaluator: the chain in balls (and numpy), the claim's ``mp_evaluate``
    (params, dps) in mpmath."""
    def run(ctx, params):
        if ctx.name == "mpmath":
            return mp_evaluate(params, ctx.dps)
        return thm1_chain().run(ctx, [params[n] for n in ("theta", "L", "R", "pi")])
    return Evaluator(run, contexts=("numpy", "mpmath", "arb"), name="theorem1")


# ---- capacity ---------------------------------------------------------------------------------
def capacity_ball(model: CapacityModel, params: dict, digits: int) -> dict:
    """alpha* of the pooled / vectorised features: the Krawczyk box of the stationary point of
    log objective (SymPy gradient and Hessian) and the objective on it."""
    from flint import arb

    from derivations.paper_a import capacity as dcap
    from numerics.core.arb import CertifyError, arb_of, compile_arb, krawczyk, negative_definite
    from numerics.core.results import SolveError
    from numerics.theory.paper_a.capacity import capacity_of_law, linear_law

    obj, grad, hess = dcap.closed_form_system(model)
    x = (dcap.rho, dcap.b)
    par = (dcap.theta, dcap.R, dcap.L, dcap.pi_)
    fo = compile_arb(obj, x + par)
    fg = compile_arb(list(grad), x + par)
    fh = compile_arb(list(hess), x + par)
    pv = [arb_of(params[n]) for n in ("theta", "R", "L", "pi")]
    n = len(x)

    def F(*xs):
        return fg(*xs, *pv)

    def J(*xs):
        flat = fh(*xs, *pv)
        return [flat[i * n:(i + 1) * n] for i in range(n)]

    # the guess: the float64 maximiser of the same compiled derivation (any guess will do:
    # the certificate is the Krawczyk inclusion, not the solver)
    try:
        guess = capacity_of_law(linear_law(model, params["L"], params["R"], params["pi"], params["theta"]), model)
    except SolveError as e:
        raise CertifyError(f"capacity: no starting point for the root proof ({e})") from None
    box, _ = krawczyk(F, J, [arb(repr(guess.argmax[str(v)])) for v in x], 1e-6, digits + 3)
    if not abs(box[0]) < 1:
        raise CertifyError("capacity: the certified stationary point is not inside |rho| < 1")
    if not negative_definite(J, box):
        raise CertifyError("capacity: the Hessian is not certified negative definite on the box "
                           "(not a strict local maximum)")
    return {"alpha": fo(*box, *pv), "rho": box[0], "b": box[1]}


def capacity_ratio(params: dict, digits: int) -> dict:
    from derivations.paper_a.capacity import POOL, VEC

    pool = capacity_ball(POOL, params, digits)
    vec = capacity_ball(VEC, params, digits)
    return {"alpha_pool": pool["alpha"], "alpha_vec": vec["alpha"], "alpha_vec/alpha_pool": vec["alpha"] / pool["alpha"],
            "rho_pool": pool["rho"], "b_pool": pool["b"]}


def capacity_evaluator(mp_evaluate) -> Evaluator:
    """The capacity ratio's evaluator: Krawczyk boxes in balls, the claim's ``mp_evaluate``
    (params, dps: the Newton polish) in mpmath."""
    def run(ctx, params):
        if ctx.name == "mpmath":
            return mp_evaluate(params, ctx.dps)
        return capacity_ratio(params, ctx.digits)
    return Evaluator(run, contexts=("mpmath", "arb"), name="capacity_ratio")
