"""Certified enclosures (``attncheck eval --certify``): the ball printer, the generic certified
numerics, and every certified constant against the mpmath ``evaluate`` at more digits.

Every certified ball must contain the mpmath value of ``evaluate`` at N + 10 digits and be
narrower than 10^-(N-3); a structural mutant of the derivation must move the ball off the true
value (the certificate is of the derivation, not of a copy of it)."""
import json
import re

import mpmath
import pytest
import sympy as sp
from click.testing import CliRunner
from flint import acb, arb

import attncheck
from derivations.core import MUTANTS, mutated
from numerics.cli import main
from numerics.core import arb as core_arb
from numerics import registry
from numerics.core.params import ParameterError
from numerics.core import backends
from numerics.theory import certify as theory_certify

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
    "A.thm2.attention_threshold": ({}, dict(L=1000, R=2, pi=0.3, theta=3.0)),
    # a constant rule is the best there (no threshold, no c*)
    "A.thm2.sharp_threshold": ({}, dict(L=10, R=1, pi=0.3, theta=0.05)),
    "B.coercivity.identity": ({}, dict(N=7, m2=1.0, c=-0.3)),
    "B.coercivity.counterexample": ({}, dict(N=4, k=6)),
    "B.rate.exponent": ({}, dict(beta=2.5, M=1e6)),
    "B.rate.schedule_not_exponent": ({}, dict(a=0.3)),
    "B.rate.d_independence": ({}, dict(P=5, M=3e5)),
    "B.rate.smoothness": ({}, dict(P=8, M=1e7)),
    "B.rate.holder_edge": ({}, dict(beta=1.5, s=3, a=0.3)),
}


def _check(claim_id, params, N):
    claim = registry.claim(claim_id)
    values = claim.param_space.validate(params)
    balls = theory_certify.certify(claim_id, values, N)
    ref = claim.evaluate(values, N + 10)
    assert set(balls) == set(ref)
    for k, b in balls.items():
        assert b.contains(ref[k]), f"{claim_id} {k}: {mpmath.nstr(ref[k], N + 10)} not in {b}"
        assert b.width() <= 10.0 ** -(N - 3), f"{claim_id} {k}: width {b.width():.3g}"
        assert 2 * b.value.rad() <= 10.0 ** -(N - 3) * max(1, abs(float(b.value.mid())))


def test_certifiable_is_decided_by_the_claims_own_evaluator():
    # no table: the certifiable claims are those whose evaluator runs under the arb context
    assert set(theory_certify.certifiable_ids()) == set(POINTS)
    for cid in theory_certify.certifiable_ids():
        ev = registry.claim(cid).evaluate
        assert ev.supports("arb") and ev.supports("mpmath")
    src = open(theory_certify.__file__).read()
    assert ":thm3" not in src and "CERTIFIERS = {" not in src
    import numerics.theory.paper_a.certify as PC
    assert not hasattr(PC, "thm3") and not hasattr(PC, "alignment_limits")  # no copy of Theorem 3


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
        balls = theory_certify.certify("A.thm3.q2_cosine", values, 30)
    assert not balls["logistic.q2_cosine"].contains(true["logistic.q2_cosine"])
    assert not balls["square.q2_cosine"].contains(true["square.q2_cosine"])
    # and the true derivation is not masked by the mutated one (caches keyed by expression)
    assert theory_certify.certify("A.thm3.q2_cosine", values, 30)["logistic.q2_cosine"].contains(true["logistic.q2_cosine"])
    cap = registry.claim("A.cor2.ridgeless_rate")
    v2 = cap.param_space.validate({})
    t2 = cap.evaluate(v2, 40)
    with mutated(*(MUTANTS[m] for m in cap.mutants[:1])):
        b2 = theory_certify.certify("A.cor2.ridgeless_rate", v2, 30)
    assert any(not b2[k].contains(t2[k]) for k in t2)
    # the capacity: the Krawczyk box is of the mutated objective's stationary point
    cap = registry.claim("A.capacity.pool_vec_ratio")
    v3 = cap.param_space.validate({})
    t3 = cap.evaluate(v3, 40)
    with mutated(MUTANTS["A.capacity.F:sign_tphi"]):
        b3 = theory_certify.certify(cap.id, v3, 30)
    assert not b3["alpha_pool"].contains(t3["alpha_pool"]) and not b3["alpha_vec"].contains(t3["alpha_vec"])
    # the hard-max threshold: the Krawczyk ball is of the mutated dE/dc's root, at pi != 1/2
    hm = registry.claim("A.thm2.attention_threshold")
    v4 = hm.param_space.validate(dict(L=1000, R=2, pi=0.3, theta=3.0))
    t4 = hm.evaluate(v4, 40)
    with mutated(MUTANTS["A.thm2.hardmax_cdf_neg:L_minus_R"]):
        b4 = theory_certify.certify(hm.id, v4, 30)
    key = "E_max (hard attention, optimal threshold)"
    assert not b4[key].contains(t4[key]) and not b4["threshold c*"].contains(t4["threshold c*"])
    assert theory_certify.certify(hm.id, v4, 30)[key].contains(t4[key])


# ---- the printer --------------------------------------------------------------------------------
def test_rationals_integers_and_floats_are_exact_or_enclosed():
    with core_arb.precision(200):
        third = core_arb.compile_arb(sp.Rational(1, 3), ())()
        assert (3 * third).contains(1) and third.rad() < 2.0 ** -190
        big = core_arb.compile_arb(sp.Integer(10) ** 40 + 1, ())()
        assert big.is_exact() and big == arb(10) ** 40 + 1
        fifth = core_arb.compile_arb(sp.Float("0.2"), ())()  # the decimal it prints as: 1/5
        assert (5 * fifth).contains(1)
        assert core_arb.arb_of(0.2).contains(arb(1) / 5) and (5 * core_arb.arb_of("0.2")).contains(1)


def test_a_parameter_named_pi_does_not_shadow_the_constant():
    f = core_arb.compile_arb(sp.pi * pi_param + pi_param, (pi_param,))
    with core_arb.precision(100):
        v = f(arb(2))
        assert v.overlaps(2 * arb.pi() + 2) and not v.overlaps(arb(6))


@pytest.mark.parametrize("expr", [sp.gamma(x), sp.Heaviside(x), sp.Function("g")(x),
                                  sp.Integral(sp.exp(-x**2), (x, 0, 1)), sp.oo * x])
def test_unknown_or_unrigorous_functions_are_refused(expr):
    with pytest.raises(core_arb.ArbPrintError):
        core_arb.compile_arb(expr, (x,))


def test_log1p_expm1_and_sign_in_balls():
    from sympy.codegen.cfunctions import expm1, log1p

    f = core_arb.compile_arb([log1p(x), expm1(x), sp.sign(x)], (x,))
    with core_arb.precision(120):
        for v in ("1e-30", "-0.75", "3"):
            lp, em, sg = f(arb(v))
            with mpmath.workdps(40):
                assert lp.overlaps(arb(mpmath.nstr(mpmath.log1p(mpmath.mpf(v)), 40)))
                assert lp.rad() < 1e-30 * abs(float(lp.mid())) and em.rad() < 1e-30 * abs(float(em.mid()))
                assert em.overlaps(arb(mpmath.nstr(mpmath.expm1(mpmath.mpf(v)), 40)))
            assert sg == (1 if float(v) > 0 else -1) and sg.rad() == 0
        assert f(arb(0))[2] == 0
        with pytest.raises(core_arb.CertifyError, match="cannot decide"):
            f(arb(0, 1e-10))  # sign of a ball around 0: undecided, never a guess
    with pytest.raises(core_arb.ArbPrintError):
        core_arb.compile_acb(sp.sign(x), (x,))


def test_a_condition_named_by_cse_is_decided_only_where_its_piecewise_reaches_it():
    from numerics.core.arb_compile import _source

    y = sp.Symbol("y", real=True)
    pieces = [sp.Piecewise((1, x > 1), (2, y < 0), (3, True)), sp.Piecewise((4, x > 1), (5, y < 0), (6, True))]
    assert "_c1 = lambda: _lt(_a1, _K(0))" in _source(pieces, (x, y), "arb", True)  # named, and lazy
    f = core_arb.compile_arb(pieces, (x, y))
    assert f(arb(2), arb(0, 1)) == (1, 4)  # y < 0 is never asked: x > 1 decides
    assert f(arb(0), arb(-1)) == (2, 5) and f(arb(0), arb(1)) == (3, 6)
    with pytest.raises(core_arb.CertifyError, match="cannot decide"):
        f(arb(0), arb(0, 1))  # there the Piecewise needs y < 0, and the ball cannot tell


def test_free_symbols_must_be_arguments():
    with pytest.raises(core_arb.ArbPrintError):
        core_arb.compile_arb(x + sp.Symbol("y"), (x,))


def test_special_functions_and_powers():
    e = sp.erfc(x) + sp.erf(x) + sp.log(x) + sp.sqrt(x) + x ** sp.Rational(3, 2) + sp.Abs(-x) + sp.E \
        + sp.LambertW(x) + sp.binomial(5, 2)
    with mpmath.workdps(40), core_arb.precision(200):
        v = core_arb.compile_arb(e, (x,))(arb(3))
        ref = (1 + mpmath.log(3) + mpmath.sqrt(3) + mpmath.mpf(3) ** 1.5 + 3 + mpmath.e + mpmath.lambertw(3).real + 10)
        assert v.overlaps(arb(mpmath.nstr(ref, 40), "1e-37")) and v.rad() < 1e-50
        # an integer power of a ball around 0 stays finite (FLINT's generic power would be nan)
        assert core_arb.compile_arb(x**2 - x**3, (x,))(arb(0, 1e-10)).is_finite()
        pw = core_arb.compile_arb(sp.Piecewise((x, x > 0), (-x, True)), (x,))
        assert pw(arb(-2)) == 2
        with pytest.raises(core_arb.CertifyError):
            pw(arb(0, 1))  # undecidable condition: an error, never a guess


def test_the_analytic_flag_reaches_the_branch_cuts():
    f = core_arb.compile_acb(sp.sqrt(x), (x,))
    with core_arb.precision(100):
        v = acb.integral(lambda z, an: f(z, _an=an), 1, 4)
        assert v.real.overlaps(arb(14) / 3) and v.real.rad() < 1e-25


# ---- generic certified numerics -----------------------------------------------------------------
def test_gaussian_expectation_of_a_logistic_integrand():
    f = -1 / (sp.exp(x) + 1)
    M = core_arb.real_line_bound(f, x)
    assert M >= 1 and M < 1.01
    with core_arb.precision(150), mpmath.workdps(50):
        v = core_arb.gaussian_expectation(core_arb.compile_acb(f, (x,)), arb("0.3"), arb("1.7"), M, 40)
        ref = mpmath.quad(lambda z: -1 / (mpmath.exp(mpmath.mpf("0.3") + mpmath.mpf("1.7") * z) + 1)
                          * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        assert v.overlaps(arb(mpmath.nstr(ref, 45), "1e-43")) and v.rad() < 1e-40


def test_the_tail_bound_refuses_an_unbounded_integrand():
    with pytest.raises(core_arb.CertifyError):
        core_arb.real_line_bound((x + 1) ** 2, x)


def test_krawczyk_proves_a_root():
    F = core_arb.compile_arb([x**2 - 2], (x,))
    J = core_arb.compile_arb([2 * x], (x,))
    with core_arb.precision(200):
        box, _ = core_arb.krawczyk(lambda v: F(v), lambda v: [J(v)], [arb("1.4142")], 1e-3, 50)
        assert box[0].contains(arb(2).sqrt()) and 2 * box[0].rad() <= 1e-50
        with pytest.raises(core_arb.CertifyError):  # no root near 3
            core_arb.krawczyk(lambda v: F(v), lambda v: [J(v)], [arb(3)], 1e-1, 20)


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
    r = CliRunner().invoke(main, ["eval", "A.capacity.ordering", "--certify"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(main, ["list", "--json"])
    recs = [json.loads(line) for line in r.output.splitlines()]
    assert {rec["id"] for rec in recs if rec["certifiable"]} == set(theory_certify.certifiable_ids())


def test_python_api():
    out = attncheck.certify("A.cor2.ridgeless_rate", theta=4.0, dps=30)
    assert set(out) == {"pool.E_inf", "pool.C1", "vec.E_inf", "vec.C1"}
    with pytest.raises(ParameterError):
        attncheck.certify("A.capacity.ordering")


def test_the_certifiable_ids_come_from_the_index_without_importing_a_claim():
    """``certifiable_ids`` reads the claim index (written from the claims' own evaluators): in a
    fresh process it imports no claim module; without an index it asks the claims themselves
    and gets the same ids."""
    import subprocess
    import sys

    registry.claim_index()  # this session's index (the subprocess reads it)
    code = ("import sys\nfrom numerics.theory import certify\nprint(sorted(certify.certifiable_ids()), "
            "[m for m in sys.modules if m.startswith('numerics.claims.paper_')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == f"{sorted(theory_certify.certifiable_ids())} []", (out.stdout, out.stderr)
    assert set(theory_certify.certifiable_ids()) == set(POINTS)
    key = (tuple(registry.EXTRA_FILES), registry.plugin_entry_points())
    saved = theory_certify._INDEX.pop(key)
    try:
        theory_certify._INDEX[key] = {}  # an index that does not say
        assert set(theory_certify.certifiable_ids()) == set(POINTS)
        assert theory_certify.certifiable("A.cor2.ridgeless_rate") and not theory_certify.certifiable("B.kl.bound")
    finally:
        theory_certify._INDEX[key] = saved


def test_the_certify_request_refuses_in_the_callers_spelling_and_reports_its_timings(monkeypatch):
    from numerics import request as Q

    refusal = ("claim A.capacity.ordering cannot be certified; certifiable claims: "
               + ", ".join(theory_certify.certifiable_ids()))
    with pytest.raises(ParameterError) as err:
        Q.certify("A.capacity.ordering", {}, 30)
    assert str(err.value) == refusal
    # the one refusal: the request refuses before the theory is asked (it takes a certifiable claim)
    asked = []
    real = theory_certify.certify
    monkeypatch.setattr(theory_certify, "certify", lambda *a, **kw: asked.append(a) or real(*a, **kw))
    with pytest.raises(ParameterError, match="^claim A.capacity.ordering cannot be certified"):
        attncheck.certify("A.capacity.ordering")
    out = CliRunner().invoke(main, ["eval", "A.capacity.ordering", "--certify"])
    assert out.exit_code == 2 and out.output == f"error: {refusal}\n" and asked == []
    with pytest.raises(ParameterError, match="^--dps "):
        Q.certify("A.cor2.ridgeless_rate", {}, 3, spell=lambda n: f"--{n}")
    timings = {}
    values, balls = Q.certify("A.cor2.ridgeless_rate", {"theta": "4"}, 20, timings=timings)
    assert values == registry.claim("A.cor2.ridgeless_rate").param_space.validate({"theta": "4"})
    assert set(balls) == {"pool.E_inf", "pool.C1", "vec.E_inf", "vec.C1"}
    assert set(timings) == {"seconds", "guard_bits", "check_seconds"} and timings["seconds"] > 0


def test_a_certificate_is_refused_until_its_balls_are_as_narrow_as_promised():
    """A ball 2r wide with 10^-(N-3) < 2r is refused at that guard and asked again with more
    bits; a certification that never gets one names the last reason."""

    class StandIn:
        def __init__(self, widths, fails=""):
            self.widths, self.fails, self.calls = list(widths), fails, 0

        def under(self, ctx, params):
            self.calls += 1
            if self.fails:
                raise core_arb.CertifyError(self.fails)
            return {"x": arb(1, self.widths.pop(0) / 2)}

    digits = 30
    ev = StandIn([5e-27, 1e-40])  # the first 5e-27 wide: too wide for 10^-(30-3)
    timings = {}
    theory_certify._balls(ev, {}, digits, timings)
    assert ev.calls == 2 and timings["guard_bits"] == theory_certify.GUARD_BITS[1]
    ev = StandIn([5e-27] * 4)  # too wide at every guard
    with pytest.raises(core_arb.CertifyError, match=r"^no certificate at 30 digits \(balls too wide for x\)$"):
        theory_certify._balls(ev, {}, digits, None)
    with pytest.raises(core_arb.CertifyError, match=r"^no certificate at 30 digits \(an enclosure too wide\)$"):
        theory_certify._balls(StandIn([], fails="an enclosure too wide"), {}, digits, None)


def test_the_cross_check_places_the_independent_value_in_each_ball():
    """A ball's offset (independent value - midpoint) / radius at twice the digits, a zero-radius
    ball off the value (infinitely far), a key the independent evaluator does not give, and the
    distance by which a ball misses the value."""
    from numerics.core.arb import Ball

    cid, digits, k = "A.cor2.ridgeless_rate", 30, "pool.E_inf"
    params = registry.claim(cid).param_space.validate({})
    r = theory_certify.evaluator(registry.claim(cid)).reference(params, 2 * digits)[k]
    with mpmath.workdps(2 * digits + 20):
        half_below = mpmath.nstr(mpmath.mpf(r) - mpmath.mpf("0.5e-35"), 2 * digits + 10)
        far_below = mpmath.nstr(mpmath.mpf(r) - mpmath.mpf("3e-35"), 2 * digits + 10)
    checks = theory_certify.cross_check(cid, params, {
        k: Ball(half_below, "1e-35", "", None), "nope": Ball("1", "0", "", None)}, digits)
    assert checks[0].key == k and checks[0].contained and checks[0].offset == pytest.approx(0.5, abs=1e-6)
    assert (checks[1].key, checks[1].contained, checks[1].offset, checks[1].width, checks[1].why, checks[1].ball) == (
        "nope", False, float("inf"), 0.0, "nope: no independent value", "[1 ± 0]")
    off, = theory_certify.cross_check(cid, params, {k: Ball(half_below, "0", "", None)}, digits)
    assert not off.contained and off.offset == float("inf")
    miss, = theory_certify.cross_check(cid, params, {k: Ball(far_below, "1e-35", "", None)}, digits)
    assert not miss.contained and miss.offset == pytest.approx(3.0, abs=1e-6)
    assert miss.why.startswith(f"{k}: the ball [{far_below} ± 1e-35] excludes the independent value ")
    assert miss.why.endswith(" by 2.0e-35"), miss.why


def test_a_claim_certified_at_its_defaults(monkeypatch):
    """The report's certificate: the claim's id, its default point and 30 digits, with balls or,
    when the certification fails, the reason; nothing for a claim that is not certifiable."""
    claim = registry.claim("A.cor2.ridgeless_rate")
    defaults = claim.param_space.validate({})
    cert = theory_certify.at_defaults(claim)
    assert (cert.claim_id, cert.params, cert.digits, cert.error) == (claim.id, defaults, 30, None)
    assert set(cert.balls) == {"pool.E_inf", "pool.C1", "vec.E_inf", "vec.C1"}
    assert theory_certify.at_defaults(registry.claim("B.kl.bound")) is None  # no parameters
    assert theory_certify.at_defaults(registry.claim("A.capacity.ordering")) is None  # an RQMC estimate

    def fails(claim, params, digits):
        raise core_arb.CertifyError("no enclosure narrow enough")

    monkeypatch.setattr(theory_certify, "certify", fails)
    cert = theory_certify.at_defaults(claim, digits=40)
    assert (cert.claim_id, cert.params, cert.digits, cert.balls, cert.error) == (
        claim.id, defaults, 40, None, "no enclosure narrow enough")


# ---- certificates that check themselves ---------------------------------------------------------
def _wrong_variance_cutoff(bound, digits):
    """A plausible slip: the tail P(|zeta| > Z) computed as erfc(Z) (variance 1/2, not 1),
    with the cut-off searched from Z = 1: Z comes out far too small."""
    target = arb(10) ** (-(digits + 5))
    Z = arb(1)
    while not arb(bound).upper() * Z.erfc() < target:
        Z += 1
    return Z, (arb(bound).upper() * Z.erfc()).upper()


@pytest.fixture
def wrong_tail(monkeypatch):
    backends._RUNS.clear()
    monkeypatch.setattr(core_arb, "gaussian_cutoff", _wrong_variance_cutoff)
    yield
    backends._RUNS.clear()


def test_the_certified_row_passes_for_every_certifiable_claim():
    for cid in theory_certify.certifiable_ids():
        label, score, n, text = theory_certify.certified_row(registry.claim(cid), 30)
        assert score <= 1.0 and n >= 1, (cid, label, score)
        # what the row says it checked: the worst ball, the independent value and its digits
        assert re.search(r": ball \[\S+ ± \S+\] contains the independent value \S+ \(60 digits\)", text), text


def test_a_certified_row_is_apart_and_leaves_the_bonferroni_z_alone():
    from numerics.claims.base import Comparison, Evidence, Settings, judge
    from numerics.core.stats import z_critical

    stat = [Comparison(f"r{i}", 1.0, 1.0 + 0.01 * i, 0.01) for i in range(3)]
    cert = Comparison("certified", 0.0, 0.5, 0.0, 1.0, 2, certified="k: ball [1 ± 1e-30] contains ...")
    alone, both = judge(Evidence("X", stat, Settings())), judge(Evidence("X", stat + [cert], Settings()))
    assert alone.z_crit == both.z_crit == z_critical(3)
    assert [r.tolerance for r in alone.rows] == [r.tolerance for r in both.rows[:3]]
    last = both.rows[-1]
    assert last.certified and last.z is None and last.tolerance == 1.0 and last.passed
    failing = judge(Evidence("X", stat + [Comparison("certified", 0.0, 1.5, 0.0, 1.0, 2, certified="x")], Settings()))
    assert not failing.passed


def test_a_tail_bound_at_the_wrong_variance_is_refused(wrong_tail):
    claim = registry.claim("A.thm3.q2_cosine")
    values = claim.param_space.validate({})
    balls = theory_certify.certify(claim, values, 30, check=False)  # the unchecked certificate is wrong ...
    true = claim.evaluate.reference(values, 60)
    assert not balls["logistic.q2_cosine"].contains(true["logistic.q2_cosine"])
    with pytest.raises(core_arb.CertificateMismatch, match="excludes the independent value"):
        theory_certify.certify(claim, values, 30)  # ... and the checked one refuses it
    r = CliRunner().invoke(main, ["eval", "A.thm3.q2_cosine", "--certify"])
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    assert "excludes the independent value" in r.output
    label, score, _, text = theory_certify.certified_row(claim, 30)  # the row of verify fails
    assert score > 1.0 and "logistic" in label and "excludes the independent value" in text
    from numerics.claims.base import Settings, judge, Evidence
    from numerics.claims.certified import certified_rows
    rows = certified_rows(claim, Settings().dps)
    v = judge(Evidence(claim.id, rows, Settings()))
    assert not v.passed


def test_a_ball_wider_than_promised_fails_the_check():
    claim = registry.claim("A.cor2.ridgeless_rate")
    values = claim.param_space.validate({})
    balls = theory_certify.certify(claim, values, 30)
    k, b = next(iter(balls.items()))
    wide = core_arb.Ball(b.mid, "1E-20", b.digits, b.value)
    (chk,) = theory_certify.cross_check(claim, values, {k: wide}, 30)
    assert chk.contained and chk.width > 1 and not chk.ok and chk.score > 1


@pytest.mark.parametrize("bound", [1, 7])
@pytest.mark.parametrize("digits", [10, 30, 80])
def test_the_claimed_tail_covers_the_exact_tail_at_a_wider_cutoff(digits, bound):
    """The tail added to the radius, bound * P(|zeta| > Z), against the exact tail of the
    integrand f = bound (the worst case of sup |f| <= bound) on Z <= |z| <= Z + 40, computed
    by mpmath at more digits (mpmath.quad, and its closed form through mpmath's erfc): a
    claimed tail that is too small (wrong variance, one side only, a missing factor) fails."""
    with core_arb.precision(core_arb.bits(digits + 30)):
        Z, tail = core_arb.gaussian_cutoff(arb(bound), digits)
        z = float(Z.mid())
        assert tail < arb(10) ** (-(digits + 5))
    with mpmath.workdps(digits + 40):
        exact = bound * (mpmath.erfc(z / mpmath.sqrt(2)) - mpmath.erfc((z + 40) / mpmath.sqrt(2)))
        quad = 2 * bound * mpmath.quad(mpmath.npdf, mpmath.linspace(z, z + 40, 81))
        assert abs(quad / exact - 1) < mpmath.mpf(10) ** -min(digits // 2, 30)
        claimed = mpmath.mpf(tail.str(digits + 20, radius=False).strip("[]"))
        assert claimed >= exact * (1 - mpmath.mpf(10) ** -(digits + 10)), (claimed, exact)
        assert claimed <= 2 * exact  # and it is not vacuous


def test_the_tail_test_fails_for_a_wrong_tail():
    with core_arb.precision(200), mpmath.workdps(60):
        Z, tail = _wrong_variance_cutoff(arb(1), 30)
        z = float(Z.mid())
        exact = mpmath.erfc(z / mpmath.sqrt(2)) - mpmath.erfc((z + 40) / mpmath.sqrt(2))
        assert mpmath.mpf(tail.str(50, radius=False).strip("[]")) < exact


def test_the_tail_of_a_logistic_integrand_is_inside_the_ball():
    """The whole certified expectation of an integrand whose mass sits in one tail against the
    exact integral on a wider cut-off."""
    f = -1 / (sp.exp(x) + 1)
    M = core_arb.real_line_bound(f, x)
    with core_arb.precision(core_arb.bits(40) + 24), mpmath.workdps(80):
        v = core_arb.gaussian_expectation(core_arb.compile_acb(f, (x,)), arb("-3"), arb("4"), M, 35)
        g = lambda z: -1 / (mpmath.exp(mpmath.mpf(-3) + 4 * z) + 1) * mpmath.npdf(z)
        ref = mpmath.quad(g, [-60, -20, -5, 0, 5, 20, 60])
        assert v.contains(arb(mpmath.nstr(ref, 70))) or v.overlaps(arb(mpmath.nstr(ref, 70), "1e-70"))
        assert v.rad() < 1e-35


def test_the_midpoint_rounding_is_in_the_radius():
    """The printed midpoint has digits + 10 digits: the radius must cover the rounding, else
    a ball around an exact value 1/3 (radius ~2^-400) printed at 20 digits misses 1/3."""
    with core_arb.precision(400):
        third = arb(1) / 3
        b = core_arb.ball(third, 10)
        assert len(b.mid.replace("0.", "").lstrip("0")) <= 21
        assert b.contains(mpmath.mpf(1) / 3 if False else "0." + "3" * 60)
        gap = abs(sp.Rational(b.mid) - sp.Rational(1, 3))
        assert sp.Rational(b.rad) >= gap  # the rounding is in the radius
        assert sp.Rational(b.rad) <= 10 * gap + sp.Rational(third.rad().str(5, radius=False).strip("[]"))
        # an exact ball printed exactly needs no rounding: radius 0
        assert core_arb.ball(arb(1) / 4, 10).rad == "0"


# --- the width test at its boundary: the width of a ball is twice its radius ----------------------
#: (midpoint, promised width 10^-20 x this factor): a ball away from 0 is judged absolutely when
#: |mid| >= 1 and relative to |mid| below it; a ball that contains 0 absolutely
BOUNDARY = [("3", 1.0), ("-3", 1.0), ("0.25", 0.25), ("-0.25", 0.25), ("0", 1.0)]


@pytest.mark.parametrize("mid, scale", BOUNDARY)
def test_width_ok_takes_twice_the_radius_for_the_width(mid, scale):
    """``width_ok(x, 20)``: 2 rad <= 10^-20 (times min(1, |x|) unless x contains 0).  A radius
    of 0.49 of the promised width passes, 0.51 fails (its radius alone would be within it)."""
    with core_arb.precision(200):
        inside, outside = (arb(mid, arb(f"{f * scale}e-20")) for f in (0.49, 0.51))
        assert core_arb.width_ok(inside, 20)
        assert not core_arb.width_ok(outside, 20)
        assert core_arb.width_ok(arb(mid, arb(f"{0.4 * scale}e-20")), 20)


@pytest.mark.parametrize("mid, scale", BOUNDARY)
def test_the_cross_check_takes_twice_the_radius_for_the_width(mid, scale):
    """The cross-check's width (:func:`certify.width_ratio`) of a ball of ``certify(...,
    23)`` (promised width 10^-20) is 2 rad over the promise: 0.98 for a radius of 0.49 of it,
    1.02 for 0.51 (which fails the check)."""
    for f, expected in ((0.49, 0.98), (0.51, 1.02)):
        b = core_arb.Ball(mid, f"{f * scale:.6f}E-20", mid, None)
        assert theory_certify.width_ratio(b, 23) == pytest.approx(expected, rel=1e-9), (f, theory_certify.promised_width(b, 23))
        chk = theory_certify.Check("x", True, 0.0, theory_certify.width_ratio(b, 23))
        assert chk.ok is (expected <= 1)


def test_verify_prints_the_certified_row_as_what_it_showed():
    from types import SimpleNamespace

    from numerics.claims.base import RowVerdict
    from numerics.report_tables import render, verdict_table

    row = RowVerdict("certified (30 digits, defaults)", 0.0, 0.0, 0.4, 0.0, 1.0, 1.0, None, True, 2,
                     "k: ball [1.5 ± 1e-29] contains the independent value 1.5 (60 digits)")
    text = render(verdict_table(SimpleNamespace(rows=[row])), "text")
    assert text.strip() == "ok  certified: k: ball [1.5 ± 1e-29] contains the independent value 1.5 (60 digits)"
    assert "theory=" not in text and "tolerance=" not in text


def test_the_certified_row_is_of_the_defaults_and_absent_at_a_users_point():
    """A certificate is of a claim's defaults: ``verify`` at the defaults carries the certified
    row, at a point of the user's (``--param``) it does not (the row would vouch for another point)."""
    from numerics import request as Q

    claim = registry.claim("A.thm3.q2_cosine")
    at_defaults = claim.collect(Q.settings())
    assert sum(bool(c.certified) for c in at_defaults.comparisons) == 1
    at_point = claim.collect(Q.point_settings([claim], Q.settings(), {"alpha0": 3}))
    assert at_point.comparisons and not any(c.certified for c in at_point.comparisons)
