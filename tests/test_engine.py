"""The claims engine: judging, mutation, tolerances, seeding."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from numerics.claims.base import Claim, Comparison, Evidence, Settings, judge, z_critical
from numerics.core.seeding import rng, seed_sequence, stable_key


def _evidence(rows):
    return Evidence("T.toy", rows, Settings())


def test_z_critical_is_bonferroni():
    assert z_critical(1) == pytest.approx(3.2905, abs=1e-4)  # two-sided 1e-3
    assert z_critical(10) > z_critical(1)


def test_judge_passes_within_tolerance_and_mutation_fails():
    rows = [Comparison("a", theory=1.0, mean=1.001, se=0.001)]
    assert judge(_evidence(rows)).passed
    assert not judge(_evidence(rows), mutate=0.05).passed
    assert not judge(_evidence(rows), mutate=-0.05).passed


def test_allowance_adds_to_statistical_tolerance():
    rows = [Comparison("a", theory=1.0, mean=1.02, se=0.001, allowance=0.02)]
    v = judge(_evidence(rows))
    assert v.passed and v.rows[0].tolerance == pytest.approx(v.z_crit * 0.001 + 0.02)


def test_exact_rows_have_no_z():
    v = judge(_evidence([Comparison("e", theory=0.5, mean=0.5)]))
    assert v.passed and v.rows[0].z is None


def test_bad_rows_are_refused():
    with pytest.raises(ValueError, match="mean"):
        Comparison("x", theory=1.0, mean=float("nan"))
    with pytest.raises(ValueError, match=">= 0"):
        Comparison("x", theory=1.0, mean=1.0, se=-1.0)
    with pytest.raises(ValueError, match="checks nothing"):
        judge(_evidence([]))


def test_settings_mode_is_checked():
    with pytest.raises(ValueError, match="mode"):
        Settings(mode="medium")


def test_claim_collect_records_seed_and_time():
    def experiment(settings, claim):
        x = claim.rng(settings).standard_normal(10_000)
        return [Comparison("mean+1", 1.0, 1.0 + x.mean(), x.std(ddof=1) / math.sqrt(x.size))], {"n": x.size}, {}

    c = Claim("T.toy", "A", "toy", "toy", experiment, equations=("x",))
    ev = c.collect(Settings(seed=7))
    assert ev.seed_paths == [[7, "T.toy"]] and ev.sizes == {"n": 10_000} and ev.elapsed_s >= 0
    again = c.collect(Settings(seed=7))
    assert ev.comparisons == again.comparisons  # fully reproducible from the seed
    assert judge(ev).to_json()["schema"] == "attncheck.verdict/3"


def test_seeding_is_stable_and_independent():
    assert stable_key("A.thm3.q2_cosine") == stable_key("A.thm3.q2_cosine")
    a = rng(1, "A.x").standard_normal(5)
    b = rng(1, "A.y").standard_normal(5)
    assert not np.allclose(a, b)
    assert np.allclose(a, np.random.default_rng(seed_sequence(1, "A.x")).standard_normal(5))


@given(st.floats(0.01, 100), st.floats(1e-6, 1e-2))
def test_mutation_of_five_percent_is_caught_when_se_is_small(theory, rel_se):
    # Rows whose standard error is below 1% of the value must reject a 5% mutation.
    se = rel_se * theory
    rows = [Comparison("a", theory=theory, mean=theory, se=se)]
    assert judge(_evidence(rows)).passed
    if z_critical(1) * se < 0.05 * theory:
        assert not judge(_evidence(rows), mutate=0.05).passed


def test_backends_do_not_let_the_prior_pi_shadow_the_constant():
    import sympy as sp

    from numerics.core.backends import NumpyContext, evalf_reference, mp_eval

    prior = sp.Symbol("pi", positive=True)  # Paper A's prior is called pi
    expr = prior * sp.sqrt(2 * sp.pi)
    want = 0.5 * (2 * math.pi) ** 0.5
    assert float(mp_eval(expr, {prior: 0.5}, 30)) == pytest.approx(want, rel=1e-15)
    compiled = NumpyContext().compile([expr], (prior,))
    assert float(compiled(0.5)[0]) == pytest.approx(want, rel=1e-15)
    assert float(evalf_reference(expr, {prior: 0.5}, 30)) == pytest.approx(want, rel=1e-15)


def test_mp_eval_gives_an_mpf_at_dps_plus_ten_digits_or_a_complex_value_as_it_is():
    import mpmath
    import sympy as sp

    from numerics.core.backends import mp_eval

    x = sp.Symbol("x")
    for dps in (None, 50):
        got = mp_eval(sp.sqrt(x), {x: 2}) if dps is None else mp_eval(sp.sqrt(x), {x: 2}, dps)
        with mpmath.workdps((dps or 30) + 10):
            assert got == mpmath.sqrt(2)  # rounded once, at dps + 10 digits (30 by default)
        with mpmath.workdps((dps or 30) + 11):
            assert got != mpmath.sqrt(2)
    two = mp_eval(sp.Integer(2), {}, 20)
    assert type(two) is mpmath.mpf and two == 2
    root = mp_eval(sp.sqrt(x), {x: -4}, 20)
    assert isinstance(root, mpmath.mpc) and root == mpmath.mpc(0, 2)


def test_agree_digits_and_evalf_reference_keep_their_precision():
    import mpmath
    import sympy as sp

    from numerics.core.backends import agree_digits, evalf_reference

    with mpmath.workdps(60):
        a = mpmath.mpf(1) / 3
        b = a + mpmath.mpf(10) ** -30
    # at the default 15-digit context these would look identical
    with mpmath.workdps(60):
        want = float(-mpmath.log10(mpmath.mpf(10) ** -30 / b))  # relative to the larger one
    assert agree_digits(a, b) == pytest.approx(want, abs=1e-12) and agree_digits(b, a) == agree_digits(a, b)
    assert agree_digits(1000, 1000.001) == pytest.approx(6.0, abs=1e-6)  # any number type
    assert agree_digits(-2, 2) == pytest.approx(-math.log10(2)) and agree_digits(0, 0) == math.inf
    x = sp.Symbol("x", positive=True)
    ref = evalf_reference(sp.sqrt(x), {x: 2}, 50)
    with mpmath.workdps(70):
        assert agree_digits(ref, mpmath.sqrt(2)) > 50


def test_a_cached_derivation_still_counts_its_mutant_as_applied():
    """A mutated derivation built once and reused from the cache (a second claim, a second
    run) must still record that the mutated step was reached."""
    import sympy as sp

    from derivations.core import APPLIED, derivation, mutant, mutated, step

    x = sp.Symbol("x")

    @derivation
    def build():
        return step("T.engine.cached", x + 1)

    m = mutant("T.engine.cached:sign", "T.engine.cached", "toy", lambda e: -e, register=False)
    for _ in range(2):
        before = APPLIED.get(m.name, 0)
        with mutated(m):
            assert build() == -x - 1
        assert APPLIED.get(m.name, 0) == before + 1
    assert build() == x + 1
