"""The latent law of (y, a, c, sigma^2) for the step-4 equations: one facade, two representations.

* exact atoms (pooled, vectorised): the two atoms of ``erm_equations.linear_law`` (SymPy),
  evaluated in float64 for the solver and in mpmath at any precision for the polish;
* randomized QMC (attention at fixed q): ``n_scrambles`` independently scrambled Sobol point
  sets of z ~ N(0, I_L) per class (``numerics.core.quadrature.gaussian_sobol``); (a, c,
  sigma^2) of each point from the compiled SymPy reduction
  ``attention_reduction.explicit_softmax(L, R)`` (by exchangeability the signal tokens are the
  first R); the classes, their exact weights and their signal shifts from the steps of
  ``erm_equations.class_law`` (the model object's ``latent_law``).

A law is a weighted point set; ``group`` labels the scrambling of a point (-1 for exact atoms),
so that the randomized-QMC error can be estimated by solving on each scrambling alone.
``signal_along_q`` is False when a = 0 identically (the linear models: w_1 does not enter);
``dim`` is the dimension factor, alpha = alpha_1 / dim.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from derivations.core import active_mutants, replaying_cache
from derivations.paper_a import attention_reduction as AR
from derivations.paper_a import erm_equations as EQ
from numerics.core.backends import MPMATH, NUMPY, to_mpf
from numerics.core.params import ParameterError
from numerics.core.quadrature import gaussian_sobol
from numerics.core.seeding import child, children
from numerics.core.tasks import track
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.costs import attention_law_cost, check_L  # noqa: F401 (re-exported)


LATENT_NAMES = ("a", "c", "s2", "y")


@dataclass(frozen=True)
class LatentLaw:
    y: np.ndarray
    a: np.ndarray
    c: np.ndarray
    s2: np.ndarray
    weight: np.ndarray
    group: np.ndarray
    signal_along_q: bool
    dim: float = 1.0
    n_groups: int = 0
    info: dict = field(default_factory=dict)
    #: exact representation (linear models): the SymPy atoms and the parameter values
    exact: tuple | None = None

    @property
    def latent(self):
        return self.a, self.c, self.s2, self.y

    def subset(self, g: int) -> "LatentLaw":
        """The law restricted to scrambling g (plus the exact atoms), renormalised per class."""
        keep = (self.group == g) | (self.group < 0)
        w = self.weight[keep].copy()
        y = self.y[keep]
        for cls in (-1.0, 1.0):
            tot_all = self.weight[self.y == cls].sum()
            sel = y == cls
            if sel.any() and w[sel].sum() > 0:
                w[sel] *= tot_all / w[sel].sum()
        return replace(self, y=y, a=self.a[keep], c=self.c[keep], s2=self.s2[keep], weight=w,
                       group=self.group[keep], n_groups=1)

    def mp_atoms(self):
        """The atoms (weight, a, c, s2, y) as mpmath numbers at the working precision, from the
        SymPy law (exact parameters: 1e-3 is 1/1000)."""
        if self.exact is None:
            raise ValueError("this latent law has no exact representation (randomized QMC)")
        law, values = self.exact
        params = (EQ.theta, EQ.R, EQ.L, EQ.pi_)
        vals = [to_mpf(v) for v in values]
        out = []
        for w, atom in law["atoms"]:
            exprs = [w] + [atom[s] for s in (EQ.a, EQ.c, EQ.s2, EQ.y)]
            f = MPMATH.compile(exprs, params, raw=True)
            out.append(tuple(f(*vals)))
        return out

    def mp_dim(self):
        law, values = self.exact
        f = MPMATH.compile(law["dim"], (EQ.theta, EQ.R, EQ.L, EQ.pi_), raw=True)
        return f(*[to_mpf(v) for v in values])


def _check(name, value, lo, hi):
    if not (math.isfinite(value) and (lo is None or value >= lo) and (hi is None or value <= hi)):
        raise ParameterError(f"parameter {name}: must be in [{lo}, {hi}], got {value!r}")


def linear_law(model: M.Model, L: int, R: int, pi: float, theta: float) -> LatentLaw:
    """The two-atom law of a linear model (its object's ``latent_law``: ``erm_equations.linear_law``
    on the classes of ``erm_equations.class_law``; docs §3)."""
    law = model.latent_law()
    if "atoms" not in law:
        raise ParameterError(f"parameter model: {model.name} has no exact two-atom law (it sees q)")
    params = (EQ.theta, EQ.R, EQ.L, EQ.pi_)
    rows = []
    for w, atom in law["atoms"]:
        f = NUMPY.compile([w] + [atom[s] for s in (EQ.a, EQ.c, EQ.s2, EQ.y)], params)
        rows.append([float(v) for v in f(float(theta), float(R), float(L), float(pi))])
    wt, a, c, s2, y = (np.array(col) for col in zip(*rows))
    dim = float(NUMPY.compile(law["dim"], params, raw=True)(float(theta), float(R), float(L), float(pi)))
    return LatentLaw(y=y, a=a, c=c, s2=s2, weight=wt, group=np.full(len(y), -1),
                     signal_along_q=False, dim=dim, n_groups=0,
                     info={"model": model.name, "mu": float(c.max()), "sigma2": float(s2[0])},
                     exact=(law, (theta, R, L, pi)))


def _attention_classes(L: int, R: int):
    return _attention_classes_cached(int(L), int(R), active_mutants())


@replaying_cache(maxsize=32)
def _attention_classes_cached(L: int, R: int, mutants: tuple):
    """The compiled attention law: per class (``erm_equations.class_law``), its label, its
    weight as a numpy function of pi and the compiled reduction (a, c, sigma^2) of
    (z_1..z_L, theta, beta, q_norm, s_q) at the class's signal indicator."""
    law = M.ATTENTION.latent_law(L, R)
    z, (a, c, sigma2) = law["z"], law["points"]
    args = (*z, AR.theta, AR.beta, AR.qn, AR.s_q)
    out = []
    for weight, vals in law["classes"]:
        at = {law["signal"]: vals[law["signal"]]}
        f = NUMPY.compile([e.subs(at) for e in (a, c, sigma2)], args, raw=True)
        out.append((float(vals[EQ.y]), NUMPY.compile(weight, (EQ.pi_,), raw=True), f))
    return out


def attention_law(L: int, R: int, pi: float, theta: float, beta: float, q_norm: float, s_q: float,
                  *, log2_points: int = 12, n_scrambles: int = 8, seed=0) -> LatentLaw:
    """Randomized QMC point set for the attention latents at fixed q = (||q||, s_q); ``seed``
    an int or a SeedSequence (the scramblings are its children).  The classes, their weights
    and their signal shifts are the steps of ``erm_equations.class_law``."""
    _check("s_q", s_q, -1.0, 1.0)
    _check("q_norm", q_norm, 0.0, None)
    check_L(L)
    classes = _attention_classes(L, R)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    n = 2**log2_points
    parts = {k: [] for k in ("y", "a", "c", "s2", "w", "g")}
    for g_idx, group in enumerate(track(children(ss, n_scrambles), "attention law: QMC scramblings")):
        for k, (cls, weight, f) in enumerate(classes):
            z = gaussian_sobol(L, log2_points, child(group, 0) if k == 0 else group)
            with np.errstate(over="ignore", invalid="ignore"):
                vals = f(*z.T, theta, beta, q_norm, s_q)
            a, c, s2 = (np.broadcast_to(np.asarray(v, dtype=float), (n,)) for v in vals)
            parts["y"].append(np.full(n, cls))
            parts["a"].append(a)
            parts["c"].append(c)
            parts["s2"].append(s2)
            parts["w"].append(np.full(n, float(weight(float(pi))) / (n * n_scrambles)))
            parts["g"].append(np.full(n, g_idx))
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    if not all(np.all(np.isfinite(cat[k])) for k in ("a", "c", "s2")):
        raise ParameterError(f"attention latents not finite at beta ||q|| = {beta * q_norm}, theta = {theta} "
                             "(softmax overflow: lower beta or q_norm)")
    return LatentLaw(y=cat["y"], a=cat["a"], c=cat["c"], s2=cat["s2"], weight=cat["w"],
                     group=cat["g"].astype(int), signal_along_q=True, n_groups=n_scrambles,
                     info={"model": M.ATTENTION.name, "points_per_class_per_scramble": n,
                           "n_scrambles": n_scrambles, "seed": seed})
