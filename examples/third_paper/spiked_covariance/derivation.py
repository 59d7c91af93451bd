"""The derivation: the top of the spectrum of a spiked sample covariance (BBP transition).

Pure SymPy, one named step per line of the appendix (``derivations.core.step``), so that a
structural mutant of any step propagates to every value computed from it.

Model.  x ~ N(0, Sigma) in R^p, Sigma = I + ell v v^T (|v| = 1, ell >= 0), n samples,
gamma = p/n held fixed as p -> infinity; S = Sigma^{1/2} W Sigma^{1/2} with W = Z^T Z / n white.

1. ``S.mp.cauchy``  The Cauchy transform g(z) = int dmu(t) / (z - t) of the Marchenko-Pastur
   law mu of W solves  gamma z g^2 - (z + gamma - 1) g + 1 = 0  (z outside the support).
2. ``S.mp.discriminant``  The support ends where the two roots in g meet: the discriminant of
   step 1 in g vanishes.
3. ``S.mp.edge``  The bulk edge: the larger root in z of step 2, (1 + sqrt gamma)^2.
4. ``S.bbp.secular``  z is an eigenvalue of S outside the bulk iff det(z Sigma^{-1} - W) = 0;
   with Sigma^{-1} = I - ell/(1 + ell) v v^T this is 1 = z ell/(1 + ell) v^T (z - W)^{-1} v,
   and v^T (z - W)^{-1} v -> g(z):  z g - (1 + ell)/ell = 0.
5. ``S.bbp.outlier``  Steps 1 and 4 together: the outlier z(ell) = (1 + ell)(1 + gamma/ell) and
   g there.
6. ``S.bbp.threshold``  The outlier exists while z(ell) is increasing (the branch of g that
   is a Cauchy transform): dz/dell = 0 at ell_c = sqrt gamma; z(ell_c) is the edge of step 3.
7. ``S.bbp.resolvent_sq``  The eigenvector: (z - W) y = c v for y = Sigma^{1/2} u, so
   y ~ (z - W)^{-1} v, v^T y ~ g and |y|^2 ~ v^T (z - W)^{-2} v -> h = -g'(z) (implicit
   differentiation of step 1).
8. ``S.bbp.overlap_num``  <u, v>^2 |y|^2-normalised: (v^T Sigma^{-1/2} y)^2 = g^2 / (1 + ell).
9. ``S.bbp.overlap_den``  |u|^2 = y^T Sigma^{-1} y = h - ell/(1 + ell) g^2.
10. ``S.bbp.overlap``  <u_1, v>^2 -> step 8 / step 9 at the outlier, (1 - gamma/ell^2)/(1 + gamma/ell).
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, flip_sign, mutant, replace, step

gamma = sp.Symbol("gamma", positive=True)
ell = sp.Symbol("ell", positive=True)
z = sp.Symbol("z", positive=True)
g = sp.Symbol("g", positive=True)
h = sp.Symbol("h", positive=True)
PARAMS = (gamma, ell)
REFERENCE = ("Baik, Ben Arous, Peche (2005); Baik, Silverstein (2006); Paul (2007): spiked "
             "sample covariance, top eigenvalue and eigenvector")

#: a point inside every domain at which roots are told apart (a larger root is larger there)
_PROBE = {gamma: sp.Rational(1, 2), ell: 2}


def _largest(roots, at):
    return max(roots, key=lambda e: float(sp.re(sp.N(e.subs(at)))))


@derivation
def bulk() -> dict:
    """Steps 1-3."""
    cauchy = step("S.mp.cauchy", gamma * z * g**2 - (z + gamma - 1) * g + 1)
    disc = step("S.mp.discriminant", sp.discriminant(cauchy, g))
    edge = step("S.mp.edge", _largest(sp.solve(disc, z), _PROBE))
    return {"cauchy": cauchy, "discriminant": disc, "edge": sp.simplify(edge)}


@derivation
def spike() -> dict:
    """Steps 4-10."""
    cauchy = bulk()["cauchy"]
    secular = step("S.bbp.secular", z * g - (1 + ell) / ell)
    sols = [s for s in sp.solve([cauchy, secular], [z, g], dict=True) if s[z].has(ell)]
    sol = max(sols, key=lambda s: float(s[z].subs(_PROBE)))  # the root that grows with ell
    outlier = step("S.bbp.outlier", sp.factor(sol[z]))
    g_out = sp.factor(sol[g])
    crit = [r for r in sp.solve(sp.diff(outlier, ell), ell) if r.is_positive is not False]
    threshold = step("S.bbp.threshold", _largest(crit, _PROBE) if crit else sp.nan)
    dg = -sp.diff(cauchy, z) / sp.diff(cauchy, g)  # g'(z) on the curve of step 1
    h_of = step("S.bbp.resolvent_sq", -dg)
    num = step("S.bbp.overlap_num", g**2 / (1 + ell))
    den = step("S.bbp.overlap_den", h - ell / (1 + ell) * g**2)
    at = {g: g_out, z: outlier}
    overlap = step("S.bbp.overlap", sp.factor(sp.simplify((num / den).subs(h, h_of).subs(at))))
    return {"outlier": outlier, "g": g_out, "threshold": threshold, "overlap": overlap,
            "edge_at_threshold": sp.simplify(outlier.subs(ell, threshold))}


# --- structural mutants: the errors a reviewer would make ---------------------------------------
mutant("S.mp.cauchy:companion", "S.mp.cauchy",
       "(z - gamma + 1) g for (z + gamma - 1) g: the companion law's equation (gamma <-> n/p convention)",
       lambda e: e + 2 * (gamma - 1) * g)
mutant("S.mp.cauchy:quadratic-x2", "S.mp.cauchy", "2 gamma z g^2 for gamma z g^2 (factor 2)",
       lambda e: e + gamma * z * g**2)
mutant("S.mp.edge:exponent", "S.mp.edge", "gamma for sqrt(gamma) in the edge (wrong exponent)",
       replace(sp.sqrt(gamma), gamma))
mutant("S.mp.edge:lower-root", "S.mp.edge", "the lower edge (1 - sqrt gamma)^2 taken (sign of sqrt gamma)",
       replace(sp.sqrt(gamma), -sp.sqrt(gamma)))
mutant("S.bbp.secular:first-order", "S.bbp.secular",
       "z g = 1/ell: Sigma^{-1} expanded to first order in ell (the 1 of (1 + ell)/ell dropped)",
       lambda e: e + 1)
mutant("S.bbp.resolvent_sq:sign", "S.bbp.resolvent_sq", "h = +g'(z) (sign of the derivative)", flip_sign)
mutant("S.bbp.overlap_den:unwhitened", "S.bbp.overlap_den",
       "|u|^2 = |y|^2: the Sigma^{-1} of y^T Sigma^{-1} y forgotten (dropped term)",
       lambda e: e + ell / (1 + ell) * g**2)
mutant("S.bbp.overlap_num:no-prefactor", "S.bbp.overlap_num",
       "(v^T y)^2 for (v^T Sigma^{-1/2} y)^2 (the 1/(1 + ell) dropped)", lambda e: e * (1 + ell))


#: the names of the limits (left-hand sides), printed as spiked_covariance/notation.py writes them
LAMBDA_1 = sp.Symbol("lambda_1")
OVERLAP = sp.Symbol("overlap") ** 2
EDGE = sp.Symbol("lambda_plus")
ELL_C = sp.Symbol("ell_c")


def equations(*names) -> tuple:
    """The limits as Equations (all of them, or those named), for ``attncheck latex``."""
    b, s = bulk(), spike()
    eqs = (
        Equation("S.bbp.threshold", ELL_C, s["threshold"], REFERENCE, (gamma,),
                 "BBP threshold: an outlier separates from the bulk for ell > ell_c", status="paper"),
        Equation("S.bbp.outlier", LAMBDA_1, s["outlier"], REFERENCE, PARAMS,
                 "top eigenvalue above the threshold", status="paper"),
        Equation("S.bbp.overlap", OVERLAP, s["overlap"], REFERENCE, PARAMS,
                 "squared overlap of the top eigenvector with the spike above the threshold", status="paper"),
        Equation("S.mp.edge", EDGE, b["edge"], REFERENCE, (gamma,),
                 "Marchenko-Pastur bulk edge: the limit of the top eigenvalue for ell < ell_c", status="paper"),
        Equation("S.bbp.edge_at_threshold", sp.Symbol(r"\lambda_1(\ell_c)"), s["edge_at_threshold"], REFERENCE,
                 (gamma,), "the outlier meets the bulk edge at the threshold", status="derived"),
    )
    return tuple(e for e in eqs if not names or e.name in names)
