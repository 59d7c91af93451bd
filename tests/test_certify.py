"""Certified enclosures (``attncheck eval --certify``): the ball printer, the generic certified
numerics, and every certified constant against the mpmath ``evaluate`` at more digits.

Every certified ball must contain the mpmath value of ``evaluate`` at N + 10 digits and be
narrower than 10^-(N-3); a structural mutant of the derivation must move the ball off the true
value (the certificate is of the derivation, not of a copy of it)."""
import json
import time

import mpmath
import pytest
import sympy as sp
from click.testing import CliRunner
from flint import acb, arb

import attncheck
from derivations.core import MUTANTS, mutated
from numerics.cli import main
from numerics.core import arb as A
from numerics import registry
from numerics.core.params import ParameterError
from numerics.theory import certify as C

x = sp.Symbol("x", real=True)
pi_param = sp.Symbol("pi", positive=True)

# two parameter points per certified claim (the claim's defaults and a second point)
ALIGN_2 = dict(L=6, R=2, pi=0.5, theta=3.0, alpha0=5.0, eta_w=1.0, eta_b=0.0, eta_q=0.25, beta=2.0)
POINTS = {
    "A.thm3.w1_alignment": ({}, ALIGN_2),
    "A.thm3.q2_overlap": ({}, ALIGN_2),
    "A.thm3.q2_norm": ({}, ALIGN_2),
    "A.thm3.q2_cosine": ({}, ALIGN_2),
    "A.cor1.alignment_rate": ({}, {k: v for k, v in ALIGN_2.items() if k != "alpha0"}),
    "A.cor2.ridgeless_rate": ({}, dict(L=8, R=2, pi=0.3, theta=4.0)),
    "A.thm1.linear_threshold": ({}, dict(L=50, R=2, pi=0.2, theta=3.0)),
    "A.capacity.pool_vec_ratio": ({}, dict(L=6, R=2, pi=0.3, theta=3.0)),
}


def _check(claim_id, params, N):
    claim = registry.claim(claim_id)
    values = claim.param_space.validate(params)
    balls = C.certify(claim_id, values, N)
    ref = claim.evaluate(values, N + 10)
    assert set(balls) == set(ref)
    for k, b in balls.items():
        assert b.contains(ref[k]), f"{claim_id} {k}: {mpmath.nstr(ref[k], N + 10)} not in {b}"
        assert b.width() <= 10.0 ** -(N - 3), f"{claim_id} {k}: width {b.width():.3g}"
        assert 2 * b.value.rad() <= 10.0 ** -(N - 3) * max(1, abs(float(b.value.mid())))


def test_every_certifier_is_a_claim():
    assert set(C.CERTIFIERS) == set(POINTS)
    for cid in C.CERTIFIERS:
        assert registry.claim(cid).evaluate is not None


@pytest.mark.parametrize("point", [0, 1])
@pytest.mark.parametrize("claim_id", sorted(POINTS))
def test_certified_ball_contains_the_mpmath_value(claim_id, point):
    _check(claim_id, POINTS[claim_id][point], 30)


def test_certified_at_100_digits():
    # the logistic h-moments go through the certified quadrature
    _check("A.thm3.q2_cosine", {}, 100)


def test_a_mutant_moves_the_ball_off_the_true_value():
    true = registry.claim("A.thm3.q2_cosine").evaluate(registry.claim("A.thm3.q2_cosine").param_space.validate({}), 40)
    values = registry.claim("A.thm3.q2_cosine").param_space.validate({})
    with mutated(MUTANTS["A.thm3.s2:x2"]):  # the variance of the law the h-moments integrate over
        balls = C.certify("A.thm3.q2_cosine", values, 30)
    assert not balls["logistic.q2_cosine"].contains(true["logistic.q2_cosine"])
    assert not balls["square.q2_cosine"].contains(true["square.q2_cosine"])
    # and the true derivation is not masked by the mutated one (caches keyed by expression)
    assert C.certify("A.thm3.q2_cosine", values, 30)["logistic.q2_cosine"].contains(true["logistic.q2_cosine"])
    cap = registry.claim("A.cor2.ridgeless_rate")
    v2 = cap.param_space.validate({})
    t2 = cap.evaluate(v2, 40)
    with mutated(*(MUTANTS[m] for m in cap.mutants[:1])):
        b2 = C.certify("A.cor2.ridgeless_rate", v2, 30)
    assert any(not b2[k].contains(t2[k]) for k in t2)
    # the capacity: the Krawczyk box is of the mutated objective's stationary point
    cap = registry.claim("A.capacity.pool_vec_ratio")
    v3 = cap.param_space.validate({})
    t3 = cap.evaluate(v3, 40)
    with mutated(MUTANTS["A.capacity.F:sign_tphi"]):
        b3 = C.certify(cap.id, v3, 30)
    assert not b3["alpha_pool"].contains(t3["alpha_pool"]) and not b3["alpha_vec"].contains(t3["alpha_vec"])


# ---- the printer --------------------------------------------------------------------------------
def test_rationals_integers_and_floats_are_exact_or_enclosed():
    with A.precision(200):
        third = A.compile_arb(sp.Rational(1, 3), ())()
        assert (3 * third).contains(1) and third.rad() < 2.0 ** -190
        big = A.compile_arb(sp.Integer(10) ** 40 + 1, ())()
        assert big.is_exact() and big == arb(10) ** 40 + 1
        fifth = A.compile_arb(sp.Float("0.2"), ())()  # the decimal it prints as: 1/5
        assert (5 * fifth).contains(1)
        assert A.arb_of(0.2).contains(arb(1) / 5) and (5 * A.arb_of("0.2")).contains(1)


def test_a_parameter_named_pi_does_not_shadow_the_constant():
    f = A.compile_arb(sp.pi * pi_param + pi_param, (pi_param,))
    with A.precision(100):
        v = f(arb(2))
        assert v.overlaps(2 * arb.pi() + 2) and not v.overlaps(arb(6))


@pytest.mark.parametrize("expr", [sp.gamma(x), sp.Heaviside(x), sp.Function("g")(x), sp.sign(x),
                                  sp.Integral(sp.exp(-x**2), (x, 0, 1)), sp.oo * x])
def test_unknown_or_unrigorous_functions_are_refused(expr):
    with pytest.raises(A.ArbPrintError):
        A.compile_arb(expr, (x,))


def test_free_symbols_must_be_arguments():
    with pytest.raises(A.ArbPrintError):
        A.compile_arb(x + sp.Symbol("y"), (x,))


def test_special_functions_and_powers():
    e = sp.erfc(x) + sp.erf(x) + sp.log(x) + sp.sqrt(x) + x ** sp.Rational(3, 2) + sp.Abs(-x) + sp.E \
        + sp.LambertW(x) + sp.binomial(5, 2)
    with mpmath.workdps(40), A.precision(200):
        v = A.compile_arb(e, (x,))(arb(3))
        ref = (1 + mpmath.log(3) + mpmath.sqrt(3) + mpmath.mpf(3) ** 1.5 + 3 + mpmath.e + mpmath.lambertw(3).real + 10)
        assert v.overlaps(arb(mpmath.nstr(ref, 40), "1e-37")) and v.rad() < 1e-50
        # an integer power of a ball around 0 stays finite (FLINT's generic power would be nan)
        assert A.compile_arb(x**2 - x**3, (x,))(arb(0, 1e-10)).is_finite()
        pw = A.compile_arb(sp.Piecewise((x, x > 0), (-x, True)), (x,))
        assert pw(arb(-2)) == 2
        with pytest.raises(A.CertifyError):
            pw(arb(0, 1))  # undecidable condition: an error, never a guess


def test_the_analytic_flag_reaches_the_branch_cuts():
    f = A.compile_acb(sp.sqrt(x), (x,))
    with A.precision(100):
        v = acb.integral(lambda z, an: f(z, _an=an), 1, 4)
        assert v.real.overlaps(arb(14) / 3) and v.real.rad() < 1e-25


# ---- generic certified numerics -----------------------------------------------------------------
def test_gaussian_expectation_of_a_logistic_integrand():
    f = -1 / (sp.exp(x) + 1)
    M = A.real_line_bound(f, x)
    assert M >= 1 and M < 1.01
    with A.precision(150), mpmath.workdps(50):
        v = A.gaussian_expectation(A.compile_acb(f, (x,)), arb("0.3"), arb("1.7"), M, 40)
        ref = mpmath.quad(lambda z: -1 / (mpmath.exp(mpmath.mpf("0.3") + mpmath.mpf("1.7") * z) + 1)
                          * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        assert v.overlaps(arb(mpmath.nstr(ref, 45), "1e-43")) and v.rad() < 1e-40


def test_the_tail_bound_refuses_an_unbounded_integrand():
    with pytest.raises(A.CertifyError):
        A.real_line_bound((x + 1) ** 2, x)


def test_krawczyk_proves_a_root():
    F = A.compile_arb([x**2 - 2], (x,))
    J = A.compile_arb([2 * x], (x,))
    with A.precision(200):
        box, _ = A.krawczyk(lambda v: F(v), lambda v: [J(v)], [arb("1.4142")], 1e-3, 50)
        assert box[0].contains(arb(2).sqrt()) and 2 * box[0].rad() <= 1e-50
        with pytest.raises(A.CertifyError):  # no root near 3
            A.krawczyk(lambda v: F(v), lambda v: [J(v)], [arb(3)], 1e-1, 20)


# ---- CLI and API --------------------------------------------------------------------------------
def test_cli_certify_text_json_and_refusal():
    r = CliRunner().invoke(main, ["eval", "A.thm1.linear_threshold", "--certify", "--dps", "40"])
    assert r.exit_code == 0, r.output
    assert "±" in r.output and "certified" in r.output
    r = CliRunner().invoke(main, ["eval", "A.cor2.ridgeless_rate", "--certify", "--json"])
    rec = json.loads(r.output)
    assert rec["schema"] == "attncheck.certify/1"
    b = rec["values"]["pool.E_inf"]
    assert float(b["rad"]) < 1e-30 and b["mid"].startswith(b["digits"][:20])
    r = CliRunner().invoke(main, ["eval", "A.thm2.attention_threshold", "--certify"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(main, ["list", "--json"])
    recs = [json.loads(line) for line in r.output.splitlines()]
    assert {rec["id"] for rec in recs if rec["certifiable"]} == set(C.CERTIFIERS)


def test_python_api():
    t0 = time.perf_counter()
    out = attncheck.certify("A.cor2.ridgeless_rate", theta=4.0, dps=30)
    assert time.perf_counter() - t0 < 30
    assert set(out) == {"pool.E_inf", "pool.C1", "vec.E_inf", "vec.C1"}
    with pytest.raises(ParameterError):
        attncheck.certify("A.thm2.attention_threshold")
