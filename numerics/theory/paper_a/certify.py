"""Certified enclosures (ball arithmetic) of Paper A's closed forms, from the SymPy derivations.

Each function takes the claim's validated parameters and a number of digits N and returns
``{key: flint.arb}`` with the keys of the claim's ``evaluate``; every ball contains the value
of the derivation's expression at the parameters (the parameters themselves are balls around
their decimal values: 0.2 is 1/5).  What is computed is exactly what ``evaluate`` computes,
compiled by ``numerics.core.arb`` instead of mpmath:

* Theorem 3 / Corollary 1: the limits of ``derivations.paper_a.alignment`` (``limits``) and
  ``alignment_rate`` (``rate_constants``) in the parameters and the h-moments; the h-moments
  are the derivation's closed forms (square loss) or E f(mu + s zeta) of the derivation's
  integrands (f, mu, s) (logistic loss), by ``gaussian_expectation`` with the tail bound
  ``real_line_bound`` of f;
* Corollary 2: E_inf and C1 of ``erm_equations.ridgeless_limit``;
* Theorem 1: the pooled oracle of ``representation_linear.pooled`` (SNR, kappa, threshold,
  error) and the fixed-position vectorised rule (``position_laws``);
* capacity: the stationary point of the SymPy objective of ``capacity.closed_form_system``
  (pooled, vectorised) by :func:`numerics.core.arb.krawczyk` on the SymPy gradient and
  Hessian (a unique stationary point in the returned box, where the Hessian is negative
  definite: a strict local maximum), and alpha* = the objective on that box.

Compiled code is keyed by the expression (``numerics.core.arb``), so a structural mutant
(``derivations.core.mutated``) changes the certified balls as it changes the derivation.
"""
from __future__ import annotations

from flint import arb

from derivations.core import derivation
from derivations.paper_a import alignment as A
from derivations.paper_a import alignment_rate as AR
from numerics.theory.paper_a import models as M
from numerics.core.arb import (CertifyError, arb_of, compile_acb, compile_arb, gaussian_expectation,
                               krawczyk, negative_definite, real_line_bound)

LOSSES = M.LOSS_NAMES
ALIGN_NAMES = ("theta", "L", "R", "pi", "alpha0", "eta_w", "eta_b", "eta_q", "beta")


# ---- h-moments --------------------------------------------------------------------------------
def _h_balls(loss: str, integrands: dict, closed: dict | None, params: tuple, vals: list, digits: int) -> list:
    """(h1_p, h1_m, h2_p, h2_m) as balls: the compiled closed forms (square loss) or certified
    Gaussian expectations of the derivation's integrands."""
    if M.loss(loss).polynomial:  # exact Gaussian moments (the square loss)
        return [compile_arb(closed[k], params)(*vals) for k in A.H_KEYS]
    out = []
    for k in A.H_KEYS:
        f, mu, s = integrands[k]
        law = compile_arb([mu, s], params)(*vals)
        out.append(gaussian_expectation(compile_acb(f, (A.yhat,)), law[0], law[1], real_line_bound(f, A.yhat),
                                        digits))
    return out


def alignment_limits(loss: str, params: dict, digits: int, keys) -> dict:
    """Theorem-3 limits ``keys`` (of alignment.limits) as balls."""
    lim = A.limits(loss)
    vals = [arb_of(params[n]) for n in ALIGN_NAMES]
    H = _h_balls(loss, A.h_integrands(loss), lim["h"], A.PARAMS, vals, digits)
    f = compile_arb([lim[k] for k in keys], A.PARAMS + A.H_SYMBOLS)
    return dict(zip(keys, f(*(vals + H))))


def thm3(keys):
    def certify(params: dict, digits: int) -> dict:
        out = {}
        for loss in LOSSES:
            res = alignment_limits(loss, params, digits, keys)
            out.update({f"{loss}.{k}": res[k] for k in keys})
        return out
    return certify


def cor1(params: dict, digits: int) -> dict:
    """Corollary 1: C per loss and C_w (from the square-loss derivation, as ``evaluate``)."""
    names = [n for n in ALIGN_NAMES if n != "alpha0"]
    vals = [arb_of(params[n]) for n in names]
    out = {}
    for loss in LOSSES:
        rc = AR.rate_constants(loss)
        H = _h_balls(loss, rc["h_integrands_inf"], rc.get("h_inf"), AR.RATE_PARAMS, vals, digits)
        out[f"{loss}.C"] = compile_arb(rc["C"], AR.RATE_PARAMS + AR.H_INF)(*(vals + H))
        cw = compile_arb(rc["C_w"], AR.RATE_PARAMS)(*vals)
    out["C_w"] = cw
    return out


# ---- Corollary 2 ------------------------------------------------------------------------------
def cor2(params: dict, digits: int) -> dict:
    from derivations.paper_a import erm_equations as EQ

    args = (EQ.theta, EQ.R, EQ.L, EQ.pi_)
    vals = [arb_of(params[n]) for n in ("theta", "R", "L", "pi")]
    out = {}
    for model in EQ.LINEAR_MODELS:
        lim = EQ.ridgeless_limit(model)
        E, C1 = compile_arb([lim["E_inf"], lim["C1"]], args)(*vals)
        out[f"{model}.E_inf"], out[f"{model}.C1"] = E, C1
    return out


# ---- Theorem 1 (linear baselines) ---------------------------------------------------------------
@derivation
def _constant_rule_error():
    """The S -> 0 limit: the better constant rule, min over c = +-oo of the error of the
    threshold at S = 0 (SymPy limits of the derivation's error_of_threshold)."""
    import sympy as sp

    from derivations.paper_a import representation_linear as lin

    e0 = lin.pooled().error_of_threshold.subs(lin.S, 0)
    return sp.Min(sp.limit(e0, lin.c, sp.oo), sp.limit(e0, lin.c, -sp.oo))


def thm1(params: dict, digits: int) -> dict:
    from derivations.paper_a import representation_linear as lin

    P = lin.pooled()
    pos = lin.position_laws()
    th, L, R, pi = (arb_of(params[n]) for n in ("theta", "L", "R", "pi"))
    S = compile_arb(P.snr, (lin.theta, lin.L, lin.R))(th, L, R)
    err = compile_arb(P.error_S, (lin.S, lin.pi_))
    S_fixed = compile_arb(pos.snr_fixed, (lin.theta, lin.R))(th, R)
    return {
        "SNR S = theta R/sqrt(L)": S,
        "kappa = log((1-pi)/pi)": compile_arb(P.kappa, (lin.pi_,))(pi),
        "E*_pool = E*_vec(uniform, mean rule)": err(S, pi),
        "E*_vec(fixed positions) [S -> theta sqrt(R)]": err(S_fixed, pi),
        "limit S -> 0 (fixed theta, L -> oo)": compile_arb(_constant_rule_error(), (lin.pi_,))(pi),
        "threshold c* = S/2 + kappa/S": compile_arb(P.threshold, (lin.S, lin.pi_))(S, pi),
    }


# ---- capacity ---------------------------------------------------------------------------------
def capacity_ball(model: str, params: dict, digits: int) -> dict:
    """alpha* of the pooled / vectorised features: the Krawczyk box of the stationary point of
    log objective (SymPy gradient and Hessian) and the objective on it."""
    from derivations.paper_a import capacity as dcap
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
    pool = capacity_ball("pool", params, digits)
    vec = capacity_ball("vec", params, digits)
    return {"alpha_pool": pool["alpha"], "alpha_vec": vec["alpha"], "alpha_vec/alpha_pool": vec["alpha"] / pool["alpha"],
            "rho_pool": pool["rho"], "b_pool": pool["b"]}


thm3_w1 = thm3(("w1_cosine", "w1_norm"))
thm3_q2_overlap = thm3(("q2_overlap",))
thm3_q2_norm = thm3(("q2_norm",))
thm3_q2_cosine = thm3(("q2_cosine",))
