"""Capacity (separability threshold) alpha* of pooled, vectorised and attention features.

Everything model-specific is compiled from ``derivations.paper_a.capacity``
(docs/paper_a_capacity.md):

    alpha* = max_{rho, w1, b} U (1 - rho^2) / E[F(y (rho c + w1 a + b) / sigma)],
    F(t) = E[(zeta - t)_+^2],

* the latent law of (y, a, c, sigma^2) is a weighted point set (:class:`LatentLaw`): two
  exact atoms for the pooled / vectorised features (``model_latents``), randomised QMC over
  z ~ N(0, I_L) for attention at a fixed query (``laws.attention_law``: the explicit-softmax
  reduction compiled to numpy; Sobol points from ``numerics.core.quadrature.gaussian_sobol``,
  ``n_rep`` independent scramblings; by exchangeability the signal tokens are the first R);
* the objective is the sample average of the compiled summand F(T) (float64 form, with its
  SymPy gradient and Hessian) inside the compiled outer function log(U alpha*(w))
  (``numerics.core.optimize.sample_average``), maximised by ``numerics.core.optimize.maximize``
  (L-BFGS-B, then Newton with the exact Hessian; a non-converged or non-maximal point raises
  :class:`SolveError`);
* pooled / vectorised: the float64 maximiser is polished in mpmath (``polish_mp``) on the
  exact SymPy gradient of the closed-form objective at any dps, and cross-checked against
  the float64 value;
* attention: the standard error is that of the objective at the maximiser over the
  independent scramblings (envelope theorem: the error of a max is, to first order, the
  error of the objective at the argmax).

Every compiled piece is cached with ``derivations.core.derivation`` (key: arguments and active
mutants), so a structural mutant recompiles the theory and never meets a stale cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp
from threadpoolctl import threadpool_limits

from derivations.core import derivation
from derivations.paper_a import capacity as dcap
from derivations.paper_a.capacity import POOL, VEC, VEC_FIXED, CapacityModel  # noqa: F401  (re-exported)
from derivations.paper_a.models import ATTENTION, Model
from numerics.core.backends import MPMATH, NUMPY, to_mpf
from numerics.theory.paper_a.laws import LatentLaw, attention_law
from numerics.core.optimize import maximize, polish_mp, sample_average
from numerics.core.params import ParamSpace
from numerics.papers.paper_a.vocabulary import GAMMA, L as L_P, PI, R as R_P, S_Q, THETA
from numerics.core.results import RESULTS, SolveError  # noqa: F401  (re-exported)

# ---- parameters -------------------------------------------------------------------------------
BASE_SPACE = ParamSpace(
    (L_P.with_default(10), R_P.with_default(1), PI.with_default(0.5), THETA.with_default(5.0)),
)
ATTENTION_SPACE = ParamSpace(
    BASE_SPACE.params + (S_Q.with_default(0.9), GAMMA.with_default(1.0)),
)

#: L-BFGS-B starts: (rho, b) for the two-atom laws, (rho, w1, b) for attention
STARTS_NO_A = ((0.0, 0.0), (0.46, -0.2), (0.76, -0.5), (0.9, 0.3))
STARTS = ((0.0, 0.0, 0.0), (0.46, 0.5, -0.5), (0.76, 1.0, -1.0))


@dataclass(frozen=True)
class CapacityResult:
    """alpha* and its maximiser, from a converged solve only.  ``residual`` is max |grad log
    objective| at the returned point; ``se`` the randomised-QMC standard error (0 for the
    two-atom laws)."""

    model: CapacityModel | Model
    alpha: float | mpmath.mpf
    argmax: dict
    iterations: int
    residual: float
    se: float = 0.0
    details: dict = field(default_factory=dict)


# ---- compiled pieces (cached per active mutants) ----------------------------------------------
def _rows(M):
    return sp.Tuple(*[sp.Tuple(*r) for r in M])


@derivation
def compiled_F():
    """(F, F', F'') of t, compiled for numpy in their float64-stable form (``dcap.stable``)."""
    return tuple(NUMPY.compile(e, (dcap.t,), raw=True) for e in dcap.F_stable())


@derivation
def _prior():
    return NUMPY.compile(sp.Tuple(*dcap.label_prior()), (dcap.pi_,), raw=True)


@derivation
def _linear_latents(model: CapacityModel):
    lat = dcap.model_latents(model)
    return NUMPY.compile(sp.Tuple(*lat["pos"], *lat["neg"], lat["units"]), (dcap.theta, dcap.R, dcap.L), raw=True)


@derivation
def _summand(variables: tuple):
    """(value and gradient, Hessian) of F(T) per point, numpy (float64 form)."""
    h, grad, hess = dcap.summand(variables)
    args = (dcap.y, dcap.a_sym, dcap.c_sym, dcap.s2) + tuple(variables)
    return (NUMPY.compile(sp.Tuple(h, *grad), args, cse=True, raw=True),
            NUMPY.compile(_rows(hess), args, cse=True, raw=True))


@derivation
def _outer(variables: tuple):
    """log(U alpha*(w)) in (variables, D, U) with its derivatives in (variables, D), and
    U alpha*(w) itself."""
    g, grad, hess = dcap.log_alpha_w(variables)
    args = tuple(variables) + (dcap.D, dcap.U)
    return (NUMPY.compile(sp.Tuple(g, sp.Tuple(*grad), _rows(hess)), args, raw=True),
            NUMPY.compile(dcap.alpha_in_units(), args, raw=True))


@derivation
def _closed_form_mp(model: CapacityModel):
    obj, grad, hess = dcap.closed_form_system(model)
    args = dcap.CLOSED_FORM_ARGS
    return (MPMATH.compile(obj, args, raw=True), MPMATH.compile(sp.Tuple(*grad), args, raw=True),
            MPMATH.compile(_rows(hess.tolist()), args, raw=True))


# ---- latent laws ------------------------------------------------------------------------------
def linear_law(model: CapacityModel, L: int, R: int, pi: float, theta: float) -> LatentLaw:
    """The two-atom law (y = +1, y = -1) of the pooled (``POOL``), vectorised (``VEC``) or
    vectorised-with-fixed-positions (``VEC_FIXED``) features."""
    ap, cp, vp, an, cn, vn, units = (float(v) for v in _linear_latents(model)(theta, R, L))
    pp, pn = (float(v) for v in _prior()(pi))
    return LatentLaw(y=np.array([1.0, -1.0]), a=np.array([ap, an]), c=np.array([cp, cn]),
                     s2=np.array([vp, vn]), weight=np.array([pp, pn]), group=np.array([-1, -1]),
                     signal_along_q=False, dim=units, info={"model": model.name})


# ---- the objective of a law and its maximiser ------------------------------------------------
def _variables(law: LatentLaw) -> tuple:
    return dcap.VARIABLES if law.signal_along_q else dcap.VARIABLES_NO_A


def _inner(law: LatentLaw, variables):
    f01, f2 = _summand(variables)
    k, n = len(variables), law.y.size
    cols = lambda vals: np.array([np.broadcast_to(np.asarray(v, dtype=float), (n,)) for v in vals])

    def inner(x, order):
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            hg = cols(f01(law.y, law.a, law.c, law.s2, *x))
            d2h = cols([e for row in f2(law.y, law.a, law.c, law.s2, *x) for e in row]).reshape(k, k, n) \
                if order >= 2 else None
        return hg[0], hg[1:], d2h

    return inner


def _outer_fn(law: LatentLaw, variables):
    f, _ = _outer(variables)

    def outer(x, Dv, order):
        with np.errstate(divide="ignore", invalid="ignore"):
            g, dg, d2g = f(*x, Dv, law.dim)
        return float(g), np.asarray(dg, dtype=float), np.asarray(d2g, dtype=float)

    return outer


def law_objective(law: LatentLaw):
    """x -> log(U alpha*(w)) of the law with its exact gradient and Hessian."""
    variables = _variables(law)
    return sample_average(_inner(law, variables), _outer_fn(law, variables), law.weight)


def _group_denominators(law: LatentLaw, h: np.ndarray) -> np.ndarray:
    """E[F(T)] within each scrambling (weights renormalised)."""
    num = np.bincount(law.group, weights=law.weight * h, minlength=law.n_groups)
    den = np.bincount(law.group, weights=law.weight, minlength=law.n_groups)
    return num / den


def capacity_of_law(law: LatentLaw, model: CapacityModel | Model, starts=None) -> CapacityResult:
    """alpha* = max over (rho, [w1,] b) of U alpha*(w) for the law (float64); raises
    :class:`SolveError` unless the maximiser converged to a strict interior maximum."""
    with threadpool_limits(1):  # vector reductions over the points: BLAS threads only cost
        return _capacity_of_law(law, model, starts)


def _capacity_of_law(law, model, starts):
    variables = _variables(law)
    names = [str(v) for v in variables]
    bounds = [(-1.0, 1.0) if v == dcap.rho else (None, None) for v in variables]
    starts = starts or (STARTS if law.signal_along_q else STARTS_NO_A)
    sol = maximize(law_objective(law), starts, bounds, names=names)
    if not sol.ok:
        sol.message = f"{model} capacity: {sol.message}"
    x = sol.value
    h = _inner(law, variables)(x, 0)[0]
    _, alpha_f = _outer(variables)
    alpha = float(alpha_f(*x, float(law.weight @ h), law.dim))
    se, details = 0.0, {"newton_steps": sol.stats["newton_steps"],
                        "hessian_eigenvalues": sol.stats["hessian_eigenvalues"]}
    if law.n_groups > 1:
        reps = np.array([float(alpha_f(*x, Dr, law.dim)) for Dr in _group_denominators(law, h)])
        se = float(reps.std(ddof=1) / np.sqrt(law.n_groups))
        details.update({"rep_values": reps.tolist(), **law.info})
    return CapacityResult(model, alpha, dict(zip(names, map(float, x))), sol.iterations, sol.residual, se, details)


# ---- pooled and vectorised: float64 maximiser + mpmath polish -------------------------------
def closed_form_capacity(model: CapacityModel, L: int, R: int, pi: float, theta: float,
                         dps: int = 30) -> CapacityResult:
    """alpha* of the pooled (``POOL``), vectorised (``VEC``: exchangeable positions) or
    vectorised-with-fixed-positions (``VEC_FIXED``) features, to ``dps`` digits."""
    BASE_SPACE.validate({"L": L, "R": R, "pi": pi, "theta": theta})
    flt = capacity_of_law(linear_law(model, L, R, pi, theta), model)
    f, g, h = _closed_form_mp(model)
    with mpmath.workdps(dps + 15):
        # decimal conversion: pi = 0.2 means exactly 1/5, as for SymPy's evalf
        pars = (to_mpf(float(theta)), int(R), int(L), to_mpf(float(pi)))
        sol = polish_mp(lambda r_, b_: g(r_, b_, *pars), lambda r_, b_: h(r_, b_, *pars),
                        (flt.argmax["rho"], flt.argmax["b"]), dps, [(-1, 1), (None, None)])
        if not sol.ok:
            sol.message = f"{model}: polish from {flt.argmax}: {sol.message}"
        r_, b_ = sol.value
        alpha = f(r_, b_, *pars)
        if not abs(alpha - flt.alpha) <= 1e-6 * abs(flt.alpha):
            sol.downgrade(RESULTS.suspect, f"{model}: polished value {mpmath.nstr(alpha, 10)} far from the "
                                           f"float64 maximum {flt.alpha}").check()
        return CapacityResult(model, +alpha, {"rho": +r_, "b": +b_}, sol.iterations, sol.residual,
                              details={"float64": flt.alpha, "float64_argmax": flt.argmax})


def pool_capacity(L, R, pi, theta, dps=30):
    return closed_form_capacity(dcap.POOL, L, R, pi, theta, dps)


def vec_capacity(L, R, pi, theta, dps=30):
    return closed_form_capacity(dcap.VEC, L, R, pi, theta, dps)


@derivation
def _vec_general(Lval: int, Rval: int, exchangeable: bool):
    m, obj = dcap.vec_general_objective(Lval, Rval, exchangeable)
    return NUMPY.compile(obj, tuple(m) + (dcap.b, dcap.theta, dcap.pi_), raw=True)


def vec_general_m_objective(m, b, L, R, pi, theta, exchangeable: bool = True) -> float:
    """The vectorised threshold for a general signal-coordinate vector m (``||m|| < 1``), the
    expectation over positions exact (``dcap.vec_general_objective``): exchangeable positions,
    or the signal on the first R tokens."""
    return float(_vec_general(int(L), int(R), bool(exchangeable))(*np.asarray(m, dtype=float), b, theta, pi))


# ---- attention --------------------------------------------------------------------------------
def attention_capacity(L: int, R: int, pi: float, theta: float, s_q: float, gamma: float, *,
                       log2_points: int = 12, n_rep: int = 16, ss: np.random.SeedSequence | None = None,
                       law: LatentLaw | None = None) -> CapacityResult:
    """alpha*_A at a fixed query (s_q, gamma = beta ||q||), RQMC with its standard error."""
    ATTENTION_SPACE.validate({"L": L, "R": R, "pi": pi, "theta": theta, "s_q": s_q, "gamma": gamma})
    if law is None:
        # the step-4 facade at ||q|| = 1 and beta = gamma (the law depends on them only through
        # beta ||q||)
        law = attention_law(L, R, pi, theta, gamma, 1.0, s_q, log2_points=log2_points, n_scrambles=n_rep,
                            seed=np.random.SeedSequence(0) if ss is None else ss)
    return capacity_of_law(law, ATTENTION)
