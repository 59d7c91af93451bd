"""Evaluators of Paper A's closed forms that are not Theorem 3 / Corollary 1, under the
contexts of ``numerics.core.backends`` (Theorem 3 and Corollary 1 are the chains of
``numerics.theory.paper_a.alignment``, run under any context there).

* Corollary 2: E_inf and C1 of ``erm_equations.ridgeless_limit``, one :class:`Chain` per
  model, so mpmath, numpy and arb run the same compiled steps (:data:`COR2`);
* Theorem 1: the pooled oracle of ``representation_linear.pooled`` (SNR, kappa, threshold,
  error) and the fixed-position vectorised rule (``position_laws``) as a chain in balls; the
  mpmath values are the claim's own (``numerics.theory.paper_a.representation``), which
  treat S = 0 as the constant-rule limit (:func:`thm1_evaluator`);
* Theorem 2 (hard attention): the optimal threshold c* by :func:`numerics.core.arb.krawczyk`
  on the SymPy dE/dc and d2E/dc2 of ``representation_attention.hardmax_log_form`` (a unique
  root of dE/dc in the returned ball, where d2E/dc2 > 0: a strict local minimum), E on that
  ball, certified below both constant rules; b_L by Krawczyk on the SymPy b_L equation, the
  sharp-threshold ratio and the limit law on it (:func:`hardmax_evaluator`).  That c* is the
  *global* minimiser rests on the claim's scan of E over c (the mpmath evaluator's), not on
  the balls;
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
from numerics.core.backends import Chain, Closed, Evaluator, MpContext

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


def _mp(mp_evaluate):
    """A claim's ``mp_evaluate(params, dps)`` as a run under an mpmath context."""
    def run(ctx, params):
        return mp_evaluate(params, ctx.dps)
    return run


def thm1_evaluator(mp_evaluate) -> Evaluator:
    """Theorem 1's evaluator: the chain in balls (and numpy), the claim's ``mp_evaluate``
    (params, dps) in mpmath."""
    def run(ctx, params):
        return thm1_chain().run(ctx, [params[n] for n in ("theta", "L", "R", "pi")])
    return Evaluator(run, contexts=("numpy", "mpmath", "arb"), name="theorem1", own={MpContext: _mp(mp_evaluate)})


# ---- Theorem 2 (hard attention) --------------------------------------------------------------
def _root_ball(F, dF, guess, digits: int):
    """The Krawczyk ball of the one root of the scalar F near ``guess`` (dF its SymPy derivative,
    both compiled over balls), and dF on it."""
    from numerics.core.arb import arb_of, krawczyk

    (x,), _ = krawczyk(lambda z: [F(z)], lambda z: [[dF(z)]], [arb_of(guess)], 1e-6, digits + 3)
    return x, dF(x)


def hardmax_balls(params: dict, digits: int, mp_evaluate) -> dict:
    """Theorem 2's hard-attention values in balls (the keys of the claim's ``mp_evaluate``,
    which gives the guesses: its scan finds which minimum is global)."""
    from flint import arb

    from derivations.paper_a import representation_attention as att
    from numerics.core.arb import CertifyError, arb_of, compile_arb

    L, R = int(params["L"]), int(params["R"])
    guess = mp_evaluate(params, digits + 5)
    ell, Rb, P, T = arb(L).log(), arb(R), arb_of(params["pi"]), arb_of(params["theta"])
    e, d1, d2 = att.hardmax_log_form(in_log_L=True)
    args = (att.c, att.logL, att.R, att.pi_, att.theta)
    E, dE, d2E = (compile_arb(x, args) for x in (e, d1, d2))
    t_hi, t_lo = compile_arb(list(att.hardmax().trivial), (att.pi_, att.L, att.R))(P, arb(L), Rb)
    out = {}
    if "threshold c*" in guess:
        c, curv = _root_ball(lambda z: dE(z, ell, Rb, P, T), lambda z: d2E(z, ell, Rb, P, T),
                             guess["threshold c*"], digits)
        if not curv > 0:
            raise CertifyError("hard-max threshold: d2E/dc2 is not certified positive on the ball "
                               "(not a strict local minimum)")
        err = E(c, ell, Rb, P, T)
        if not (err < t_hi and err < t_lo):
            raise CertifyError("hard-max error: E(c*) is not certified below both constant rules")
        out["E_max (hard attention, optimal threshold)"], out["threshold c*"] = err, c
    else:
        out["E_max (hard attention, optimal threshold)"] = _least(t_hi, t_lo)
    if L > 2:
        eq = att.b_L_equation()
        g, dg = compile_arb(eq, (att.b, att.logL)), compile_arb(sp.diff(eq, att.b), (att.b, att.logL))
        b, _ = _root_ball(lambda z: g(z, ell), lambda z: dg(z, ell), guess["b_L = Phi^-1(1 - 1/L)"], digits)
        out["b_L = Phi^-1(1 - 1/L)"] = b
        out["theta / sqrt(2 log L)"] = T / compile_arb(att.scaling().theta_c_clt, (att.logL,))(ell)
        out["limit law min(pi Phi(b_L - theta)^R, 1 - pi)"] = compile_arb(
            att.limit_law().law, (att.pi_, att.x, att.R))(P, T - b, Rb)
    return out


def _least(a, b):
    from numerics.core.arb import CertifyError

    if a < b or a == b:
        return a
    if b < a:
        return b
    raise CertifyError("hard-max error: the two constant rules' errors are not told apart by the balls")


def hardmax_evaluator(mp_evaluate) -> Evaluator:
    """Theorem 2's hard-attention evaluator: Krawczyk balls in arb, the claim's ``mp_evaluate``
    (params, dps: a scan and Newton on dE/dc) in mpmath."""
    def run(ctx, params):
        return hardmax_balls(params, ctx.digits, mp_evaluate)
    return Evaluator(run, contexts=("mpmath", "arb"), name="hardmax", own={MpContext: _mp(mp_evaluate)})


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
        return capacity_ratio(params, ctx.digits)
    return Evaluator(run, contexts=("mpmath", "arb"), name="capacity_ratio", own={MpContext: _mp(mp_evaluate)})

