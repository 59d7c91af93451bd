"""Paper B, Lemma 4.1 (reduction of the lower bound to a 1-D problem), with our proof.

Statement [paper]: fix A*; for every estimator ĝ there is ψ̂ with
    ||ĝ - g*||²_ρ  >=  ||ψ̂ - φ*||²_{L²(p_U)},     g*(x, y) = φ*(xᵀA*y),  U = X_1ᵀA*X_2.

Proof [ours]: take ψ̂(u) = E_ρ[ĝ(X_1, X_2) | U = u].  Since g* = φ*(U) is U-measurable,
    ĝ - g* = (ĝ - ψ̂(U)) + (ψ̂(U) - φ*(U))
and the cross term E[(ĝ - ψ̂(U)) (ψ̂(U) - φ*(U))] = 0 by the tower property, so
    ||ĝ - g*||²_ρ = ||ψ̂ - φ*||²_{L²(p_U)} + E[(ĝ - ψ̂(U))²]          (Pythagoras)
and the lemma follows, with gap E[Var(ĝ | U)] (zero iff ĝ is a function of U).

Worked example (used by the claim B.lemma41.projection): d = 1, A* = 1, X_1, X_2 i.i.d.
U[-1, 1], so U = X_1 X_2.  [``B.lemma41.jacobian``] (X_1, U) has density (1/4)/|x| on
|t| <= |x| <= 1 (density 1/4 of (X_1, X_2) times the Jacobian of (x, y) -> (x, xy));
[``B.lemma41.density``] integrating out x over both signs gives p_U(t) = -log|t| / 2 on
[-1, 1], and given U = t, X_1 has density ∝ 1/|x|, so for monomials

    E[X^p Y^q | U = t] = (1/(4 p_U(t))) ∫_{|t|<=|x|<=1} x^p (t/x)^q dx / |x|,

computed here in closed form for t > 0 and t < 0 (``conditional_monomial``).  With the
non-trivial ĝ = x² + x y + y/2 + x y² (not a function of U) and φ*(u) = u - u³ this gives
ψ̂(t) = t + (1 - t²)/(-2 log|t|) (y and x y² have conditional mean 0: (X, Y) -> (-X, -Y)
preserves U and the conditional law, and both are odd under it), and every term of the
identity is an explicit 1-D integral (``*_integrand``) or an exact polynomial moment;
[``B.lemma41.pythagoras``] (projected-error integrand, E ĝ², E ψ̂(U)² integrand) and
[``B.lemma41.bins``] (the numerators of the bin averages) are the named outputs.

Pure SymPy; docs: docs/paper_b.md, "B.lemma41.projection".
"""
from __future__ import annotations

import sympy as sp

from derivations.core import Equation, derivation, mutant, step

x, y = sp.symbols("x y", real=True)
t = sp.Symbol("t", real=True)
tau = sp.Symbol("tau", positive=True)  # |t|, in (0, 1)
u_ = sp.Symbol("u", real=True)

G_HAT = x**2 + x * y + y / 2 + x * y**2
PHI_STAR = u_ - u_**3


_XP = sp.Symbol("xp", positive=True)  # |x| on one side of the joint density


@derivation
def joint_weight():
    """Density of (|X_1| = xp, U) on tau <= xp <= 1, for each sign of X_1: (1/4) / xp."""
    return step("B.lemma41.jacobian", sp.Rational(1, 4) / _XP)


mutant("B.lemma41.jacobian:forgotten", "B.lemma41.jacobian",
       "Jacobian 1/|x| of (x, y) -> (x, xy) forgotten: (X_1, U) density 1/4", lambda e: sp.Rational(1, 4))


@derivation
def density_u():
    """p_U(t) for t = ±tau: the joint density integrated over x in [tau, 1] and [-1, -tau]."""
    one_side = sp.integrate(joint_weight(), (_XP, tau, 1))
    return sp.simplify(step("B.lemma41.density", 2 * one_side))


mutant("B.lemma41.density:one_sign", "B.lemma41.density",
       "p_U from x > 0 only (the two signs of X_1 not both integrated)", lambda e: e / 2)


@derivation
def conditional_monomial(p: int, q: int, sign: int):
    """E[X^p Y^q | U = sign * tau], exact, tau in (0, 1)."""
    tt = sign * tau
    xp = _XP
    # x in [tau, 1] (x = xp > 0) and x in [-1, -tau] (x = -xp), both with the joint weight
    integrand = (xp**p * (tt / xp) ** q + (-xp) ** p * (tt / (-xp)) ** q) * joint_weight()
    num = sp.integrate(sp.expand(integrand), (xp, tau, 1))
    return sp.simplify(num / density_u())


def conditional_expectation(expr, sign: int):
    """E[expr(X, Y) | U = sign * tau] for a polynomial expr."""
    poly = sp.Poly(sp.expand(expr), x, y)
    return sp.simplify(sum(cf * conditional_monomial(p, q, sign) for (p, q), cf in poly.terms()))


@derivation
def psi_hat(g_hat=G_HAT):
    """(ψ̂ on t = +tau, ψ̂ on t = -tau)."""
    return conditional_expectation(g_hat, +1), conditional_expectation(g_hat, -1)


def uniform_pair_mean(expr):
    return sp.integrate(sp.integrate(sp.expand(expr), (x, -1, 1)), (y, -1, 1)) / 4


def total_error(g_hat=G_HAT, phi=PHI_STAR):
    """||ĝ - g*||²_ρ exactly (polynomial moment)."""
    return uniform_pair_mean((g_hat - phi.subs(u_, x * y)) ** 2)


def _two_sided(f_pos, f_neg):
    """∫_{-1}^{1} F(t) dt written as ∫_0^1 (F(tau) + F(-tau)) dtau."""
    return sp.simplify(f_pos + f_neg)


def projected_error_integrand(g_hat=G_HAT, phi=PHI_STAR):
    """Integrand over tau in (0, 1) of ||ψ̂ - φ*||²_{L²(p_U)}."""
    pp, pn = psi_hat(g_hat)
    dens = density_u()
    return _two_sided((pp - phi.subs(u_, tau)) ** 2 * dens, (pn - phi.subs(u_, -tau)) ** 2 * dens)


def gap_integrand(g_hat=G_HAT):
    """Integrand over tau of E[ψ̂(U)²]; the gap is E ĝ² - E ψ̂(U)² = E[Var(ĝ | U)]."""
    pp, pn = psi_hat(g_hat)
    dens = density_u()
    return _two_sided(pp**2 * dens, pn**2 * dens)


@derivation
def pythagoras(g_hat=G_HAT, phi=PHI_STAR):
    """(integrand of ||ψ̂ - φ*||², E ĝ², integrand of E ψ̂(U)²):
    ||ĝ - g*||² = ∫ first + (second - ∫ third), the lemma's right side is ∫ first and the
    gap E[Var(ĝ | U)] = second - ∫ third."""
    return step("B.lemma41.pythagoras", (projected_error_integrand(g_hat, phi),
                                         uniform_pair_mean(g_hat**2), gap_integrand(g_hat)))


mutant("B.lemma41.pythagoras:gap_dropped", "B.lemma41.pythagoras",
       "the lemma's inequality taken as an equality: the gap E[Var(g_hat | U)] dropped",
       lambda t: (t[0], sp.Integer(0), sp.Integer(0)))


@derivation
def bin_integrands(g_hat=G_HAT):
    """(ψ̂ p_U on t > 0, ψ̂ p_U on t < 0, p_U) as functions of tau: the bin average of ĝ over
    U ∈ [a, b] is ∫ ψ̂ p_U / ∫ p_U (no bin-width bias)."""
    pp, pn = psi_hat(g_hat)
    dens = density_u()
    num_p, num_n = step("B.lemma41.bins", (sp.simplify(pp * dens), sp.simplify(pn * dens)))
    return num_p, num_n, dens


def equations():
    return (
        Equation(
            "B.lemma41.pythagoras",
            sp.Symbol(r"{\|\hat g-g^*\|_\rho^2}"),
            sp.Symbol(r"\|\hat\psi-\phi^*\|^2_{L^2(p_U)}") + sp.Symbol(r"{E[(\hat g-\hat\psi(U))^2]}"),
            "Paper B, Lemma 4.1; proof ours",
            (),
            "psi_hat(u) = E[g_hat(X1,X2) | U12 = u]; cross term vanishes by the tower property",
            status="derived",
        ),
        Equation(
            "B.lemma41.density",
            sp.Symbol("{p_U(t)}"),
            density_u().subs(tau, sp.Abs(t)),
            "docs/paper_b.md (ours): worked example d = 1, A* = 1, U[-1,1] tokens",
            (t,),
            "density of the product of two independent U[-1,1]",
            status="derived",
        ),
        Equation(
            "B.lemma41.psi_hat",
            sp.Symbol(r"\hat\psi(t)"),
            psi_hat()[0].subs(tau, sp.Abs(t)),
            "docs/paper_b.md (ours): worked example",
            (t,),
            "E[g_hat | U = t] for g_hat = x^2 + xy + y/2 + xy^2 (same form for t < 0)",
            status="derived",
        ),
    )
