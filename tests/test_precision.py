"""Precision is checked everywhere.

* Every evaluable claim of the registry (iterated, not listed here): ``evaluate`` at dps N and
  at dps 2N agree to at least N - 2 significant digits, for N = 15 and N = 50 (capped by the
  claim's ``max_dps``), and are not the same bits unless the value is a short dyadic (an
  evaluator that ignores dps agrees with itself to every digit).  Monte Carlo / QMC estimates (an output with a companion ``*_se`` key,
  and the standard errors themselves) are exempt: their digits are bounded by the standard
  error, not by dps (the CLI prints them to that error).
* The mpmath backend keeps high-precision constants: Rationals, many-digit Floats and pi survive
  compilation (``MpContext.compile``) to the working precision, and a parameter Symbol named
  "pi" does not shadow pi.
* The generic vector quadrature reaches its dps and its error estimate is honest.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from derivations.paper_a.losses import LOGISTIC
from numerics import registry
from numerics.core.backends import MpContext, agree_digits, mp_eval
from numerics.core.quadrature import expect_mp_err, gaussian_expect_mp

SE_SUFFIXES = ("_se", "_rqmc_se", "_qmc_se", "_mc_se")
EVALUABLE = sorted(cid for cid, c in registry.claims().items() if c.evaluate is not None)


def _monte_carlo(out: dict, key: str) -> bool:
    """A standard error, or an estimate with a companion standard error."""
    return key.endswith(SE_SUFFIXES) or any(key + s in out for s in SE_SUFFIXES)


def test_the_registry_has_evaluable_claims():
    assert len(EVALUABLE) >= 10


def identical_but_inexact(a, b) -> bool:
    """``a`` (computed at N digits) and ``b`` (at 2N) are the same number bit for bit, and it is
    not a short dyadic (0.5, 3, 1.5 ...): an evaluator that ignores its dps gives the same bits at
    every precision, which agreement to N digits cannot see."""
    with mpmath.workdps(1000):
        x, y = +mpmath.mpf(a), +mpmath.mpf(b)
    return x == y and x != 0 and int(x.man).bit_length() > 64


def test_identical_but_inexact():
    with mpmath.workdps(60):
        third = mpmath.mpf(1) / 3
    assert identical_but_inexact(third, third) and not identical_but_inexact(0.5, mpmath.mpf("0.5"))
    assert not identical_but_inexact(third, mpmath.mpf(1) / 3) and not identical_but_inexact(0, 0)


@pytest.mark.parametrize("claim_id", EVALUABLE)
def test_evaluate_agrees_with_twice_the_digits(claim_id):
    claim = registry.claim(claim_id)
    values = claim.param_space.validate({})
    checked = 0
    for n in (15, 50):
        if 2 * n > claim.max_dps:
            continue
        lo, hi = claim.evaluate(values, n), claim.evaluate(values, 2 * n)
        assert set(lo) == set(hi)
        for key, a in lo.items():
            if isinstance(a, (bool, int)) or _monte_carlo(lo, key):
                continue
            b = hi[key]
            assert agree_digits(a, b) >= n - 2, f"{claim_id} {key} at dps {n} vs {2 * n}: {a} vs {b}"
            assert not identical_but_inexact(a, b), f"{claim_id} {key}: the same bits at dps {n} and {2 * n}"
            checked += 1
    assert checked, f"{claim_id}: no value was compared"


# --- the mpmath backend ---------------------------------------------------------------------------
def test_high_precision_constants_survive_compilation():
    x = sp.Symbol("x")
    expr = sp.Rational(1, 3) * x + sp.Float("0.1", 60) + sp.pi
    with mpmath.workdps(80):
        ref = mpmath.mpf(1) / 3 * mpmath.mpf(2) + mpmath.mpf("0.1") + mpmath.pi
    got = mp_eval(expr, {x: 2}, dps=60)
    assert agree_digits(got, ref) >= 60


def test_parameter_named_pi_does_not_shadow_the_constant():
    prior = sp.Symbol("pi", positive=True)  # the prior pi of Paper A, not 3.14159...
    expr = prior * sp.pi + sp.Rational(1, 7)
    f = MpContext().compile(expr, (prior,), raw=True)
    with mpmath.workdps(70):
        got = f(mpmath.mpf("0.2"))
        ref = mpmath.mpf("0.2") * mpmath.pi + mpmath.mpf(1) / 7
    assert agree_digits(got, ref) >= 60


# --- the generic vector quadrature -----------------------------------------------------------------
def test_vector_quadrature_polynomial_moments_exact():
    for dps in (30, 200):
        vals, err = gaussian_expect_mp(lambda z: [z**2, z**4, 1 + z**3], 3, dps)
        for v, exact in zip(vals, (1, 3, 1)):
            assert agree_digits(v, mpmath.mpf(exact)) >= dps
        assert err < mpmath.mpf(10) ** -dps


def test_vector_quadrature_sigmoid_moments_against_mpmath_quad():
    mu, s = mpmath.mpf("0.3"), mpmath.mpf(2)

    def vec(z):
        g = 1 / (1 + mpmath.exp(mu + s * z))
        return [-g, g * g]

    vals, err = gaussian_expect_mp(vec, 2, 40)
    with mpmath.workdps(60):
        ref = [expect_mp_err(lambda y: -1 / (1 + mpmath.exp(y)), mu, s, 50)[0],
               expect_mp_err(lambda y: 1 / (1 + mpmath.exp(y)) ** 2, mu, s, 50)[0]]
    for v, r in zip(vals, ref):
        assert agree_digits(v, r) >= 40
    assert err < mpmath.mpf(10) ** -40


def test_vector_quadrature_refuses_a_pole_on_the_line():
    with pytest.raises(ArithmeticError):
        gaussian_expect_mp(lambda z: [1 / (z * z + mpmath.mpf(10) ** -30)], 1, 30, max_nodes=10**4)


def test_theorem3_h_moments_trapezoid_against_tanh_sinh():
    """The shared-node trapezoid of the logistic h-moments against mpmath.quad per moment."""
    from numerics.theory.paper_a.alignment import h_moments

    trap, err = h_moments(LOGISTIC, dps=40)
    ref, _ = h_moments(LOGISTIC, rule="tanh-sinh", dps=40)
    for a, b in zip(trap, ref):
        assert agree_digits(a, b) >= 40
    assert err < mpmath.mpf(10) ** -40


def test_theorem3_and_corollary1_logistic_limits_at_hundreds_of_digits():
    """The shared-node trapezoid carries the logistic limits to hundreds of digits (dps 250
    against dps 500)."""
    from numerics.theory.paper_a.alignment import ALIGNMENT_SPACE, RATE_SPACE, alignment_limits, rate_constants

    p = ALIGNMENT_SPACE.validate({})
    lo, hi = alignment_limits(LOGISTIC, **p, dps=250), alignment_limits(LOGISTIC, **p, dps=500)
    for k in lo:
        assert agree_digits(lo[k], hi[k]) >= 248, k
    r = RATE_SPACE.validate({})
    lo, hi = rate_constants(LOGISTIC, **r, dps=250), rate_constants(LOGISTIC, **r, dps=500)
    for k in lo:
        assert agree_digits(lo[k], hi[k]) >= 248, k
