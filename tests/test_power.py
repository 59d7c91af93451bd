"""A claim's mutation power (``numerics/claims/power.py``) on a toy claim whose every number is
known: which structural mutant it rejects and how, the ±5 % scalings of its output step, and
what each row can detect (relative, through the outputs, in absolute terms for a zero theory,
the mutants it rejects on its own and by how much).  Nothing here runs a paper's claim."""
import math

import pytest
import sympy as sp

from derivations.core import derivation, mutant, step
from numerics.claims.base import Claim, Comparison, Settings
from numerics.claims.power import Power, _sensitivity, detectable, power
from numerics.core.backends import mp_eval
from numerics.core.stats import z_critical

x = sp.Symbol("x", positive=True)
SETTINGS = Settings(mode="quick")


@derivation
def _f() -> sp.Expr:
    return step("P.toy.f", 2 * x)


@derivation
def _g() -> sp.Expr:
    return step("P.toy.g", x + 1)


mutant("P.toy.f:x3", "P.toy.f", "three times x, not two", lambda e: 3 * e / 2)
mutant("P.toy.f:ulp", "P.toy.f", "a change below any tolerance", lambda e: e * (1 + sp.Rational(1, 10**12)))
mutant("P.toy.f:pole", "P.toy.f", "a pole where the row is", lambda e: 1 / (x - 1))
NEVER = mutant("P.toy.h:never", "P.toy.h", "a step the claim never reaches", lambda e: -e)


def _theory(expr, at: float) -> float:
    return float(mp_eval(expr, {x: at}, 30))


def _experiment(settings, claim):
    f = _theory(_f(), 1.0)  # 2 at x = 1
    rows = [Comparison("f at x=1", f, 2.01, 0.01, 0.002, 100),  # follows the output step
            Comparison("g at x=1", _theory(_g(), 1.0), 2.0, 0.02, 0.0, 100),  # does not follow it
            Comparison("f - 2 at x=1", f - 2.0, 0.001, 0.001, 0.0005, 100),  # theory 0
            Comparison("f + 2 at x=1", f + 2.0, 4.0, 0.01, 0.0, 100)]  # follows it by half: sensitivity 1/2
    return rows, {"n": 100}, {}


TOY = Claim(id="P.toy", paper="P", reference="a test", statement="f = 2x, g = x + 1",
            experiment=_experiment, mutants=("P.toy.f:x3", "P.toy.f:ulp", "P.toy.f:pole"),
            outputs=("P.toy.f",), design_only="a test claim")


@pytest.fixture
def toy_power():
    """Computed by each test that reads it (a tenth of a second): a test's record of the code it
    reaches (mutation testing, docs/mutation.md) must hold the power run it checks."""
    return power(TOY, SETTINGS)


def test_each_structural_mutant_is_rejected_or_not_and_says_how(toy_power):
    by = {m.name: m for m in toy_power.mutants}
    assert list(by) == list(TOY.mutants)
    assert (by["P.toy.f:x3"].killed, by["P.toy.f:x3"].how, by["P.toy.f:x3"].applied) == (True, "verdict failed", True)
    assert (by["P.toy.f:ulp"].killed, by["P.toy.f:ulp"].how) == (False, "survived")
    assert by["P.toy.f:pole"].killed and by["P.toy.f:pole"].applied and by["P.toy.f:pole"].how not in (
        "verdict failed", "survived")  # the theory could not be computed: a rejection, with its error
    assert by["P.toy.f:x3"].description == "three times x, not two"
    assert not toy_power.all_killed and not toy_power.error


def test_the_output_step_scaled_both_ways_is_rejected_and_scales_the_theory_exactly(toy_power):
    from dataclasses import replace

    assert toy_power.scaled == {"+0.05": True, "-0.05": True}
    assert toy_power.scale_exact is False  # the g row's non-zero theory does not follow the output step

    def followers(settings, claim):
        rows, sizes, details = _experiment(settings, claim)
        return [rows[0], rows[2]], sizes, details  # f, and f - 2 whose theory is 0 (not compared)

    def wide(settings, claim):  # an allowance of 15 %: a 5 % change of the outputs passes
        rows, sizes, details = followers(settings, claim)
        return [replace(rows[0], allowance=0.3)], sizes, details

    p = power(replace(TOY, id="P.followers", experiment=followers), SETTINGS)
    assert p.scale_exact is True and p.scaled == {"+0.05": True, "-0.05": True}
    p = power(replace(TOY, id="P.wide", experiment=wide), SETTINGS)
    assert p.scale_exact is True and p.scaled == {"+0.05": False, "-0.05": False} and not p.all_killed

    def nearly(settings, claim):  # theory f (1 + 1e-7 f): scales as declared to 1e-8, inside 1e-6
        rows, sizes, details = followers(settings, claim)
        return [replace(rows[0], theory=rows[0].theory * (1 + 1e-7 * rows[0].theory))], sizes, details

    assert power(replace(TOY, id="P.nearly", experiment=nearly), SETTINGS).scale_exact is True

    def lopsided(settings, claim):  # the estimate 3 % above the theory, allowance 3.5 %: -5 % shows, +5 % not
        rows, sizes, details = followers(settings, claim)
        return [replace(rows[0], mean=2.06, se=0.0, allowance=0.07)], sizes, details

    assert power(replace(TOY, id="P.lopsided", experiment=lopsided), SETTINGS).scaled == {"+0.05": False,
                                                                                           "-0.05": True}


def test_what_each_row_detects(toy_power):
    f, g, zero, half = toy_power.detectable
    zc = z_critical(4)
    # a row that follows the output step: relative = (z se + allowance + |mean - theory|) / |theory|
    tol = zc * 0.01 + 0.002
    assert f["label"] == "f at x=1" and f["tolerance"] == pytest.approx(tol, rel=1e-12)
    assert f["relative"] == pytest.approx((tol + 0.01) / 2, rel=1e-12)
    assert f["absolute"] == pytest.approx(tol + 0.01, rel=1e-12)
    assert f["allowance"] == pytest.approx(0.001, rel=1e-12)
    assert f["sensitivity"] == pytest.approx(1.0, rel=1e-9)
    assert f["through_outputs"] == pytest.approx(f["relative"], rel=1e-9)
    # x3 moves it by 1 against a tolerance of 0.05: rejected on its own, with the ratio
    assert set(f["rejects"]) == {"P.toy.f:x3"}
    assert f["rejects"]["P.toy.f:x3"] == pytest.approx(abs(2.01 - 3.0) / tol, rel=1e-9)
    # a row that does not follow the outputs: detects nothing through them
    assert g["sensitivity"] == 0 and g["through_outputs"] == math.inf and g["rejects"] == {}
    assert g["relative"] == pytest.approx(zc * 0.02 / 2, rel=1e-12)
    # a zero theory value: absolute terms, no relative change or sensitivity
    assert zero["relative"] is None and zero["sensitivity"] is None and zero["through_outputs"] is None
    assert zero["allowance"] == 0.0005 and zero["absolute"] == pytest.approx(zc * 0.001 + 0.0005 + 0.001)
    assert set(zero["rejects"]) == {"P.toy.f:x3"}  # f - 2 = 1 under x3
    # a row that follows the output step by half: a change of the outputs shows half as much
    assert half["sensitivity"] == pytest.approx(0.5, rel=1e-9)
    assert half["through_outputs"] == pytest.approx(2 * half["relative"], rel=1e-9)


def test_detectable_without_a_power_run_and_with_certified_rows():
    ev = TOY.collect(SETTINGS)
    rows = detectable(ev)
    assert [r["sensitivity"] for r in rows] == [None] * 4 and all(r["rejects"] == {} for r in rows)
    assert rows[0]["through_outputs"] is None
    # a certified row takes no part in the Bonferroni family of the others
    from dataclasses import replace

    cert = replace(ev, comparisons=list(ev.comparisons) + [Comparison("ball", 1.0, 0.5, 0.0, 0.0, None, "a ball")])
    assert detectable(cert)[0]["tolerance"] == pytest.approx(z_critical(4) * 0.01 + 0.002, rel=1e-12)


def test_sensitivity_is_zero_for_every_row_when_a_scaled_run_has_no_rows_or_other_rows():
    ev = TOY.collect(SETTINGS)
    assert _sensitivity(ev, None, ev, 0.05) == [0.0] * 4
    assert _sensitivity(ev, ev, None, 0.05) == [0.0] * 4
    from dataclasses import replace

    short = replace(ev, comparisons=ev.comparisons[:2])
    assert _sensitivity(ev, short, ev, 0.05) == [0.0] * 4 and _sensitivity(ev, ev, short, 0.05) == [0.0] * 4
    assert _sensitivity(ev, ev, ev, 0.05) == [0.0, 0.0, None, 0.0]


def test_the_evidence_given_must_be_of_the_claim_and_the_settings():
    ev = TOY.collect(SETTINGS)
    with pytest.raises(ValueError, match=r"power\(P.toy\): the evidence given is of P.toy at"):
        power(TOY, Settings(mode="quick", seed=7), evidence=ev)
    from dataclasses import replace

    with pytest.raises(ValueError, match="the evidence given is of Q.other"):
        power(TOY, SETTINGS, evidence=replace(ev, claim_id="Q.other"))
    assert power(TOY, SETTINGS, evidence=ev).detectable[0]["label"] == "f at x=1"


def test_a_claim_that_cannot_run_has_an_error_and_kills_nothing():
    from dataclasses import replace

    def broken(settings, claim):
        raise RuntimeError("the simulator crashed")

    p = power(replace(TOY, id="P.broken", experiment=broken), SETTINGS)
    assert p.error and "the simulator crashed" in p.error and p.id == "P.broken"
    assert (p.mutants, p.scaled, p.scale_exact, p.detectable) == ([], {}, False, [])
    assert not p.all_killed


def test_all_killed_and_the_json():
    p = Power("P.x", [], {"+0.05": True, "-0.05": True}, True, [])
    assert p.all_killed
    assert not Power("P.x", [], {"+0.05": True, "-0.05": False}, True, []).all_killed
    assert not Power("P.x", [], {"+0.05": True}, True, [], error="no").all_killed
    d = p.to_json()
    assert d["schema"] == "attncheck.power/1" and d["all_killed"] is True and d["id"] == "P.x"


def test_a_claim_without_outputs_has_no_exact_scaling():
    from dataclasses import replace

    p = power(replace(TOY, id="P.no_outputs", outputs=(), mutants=("P.toy.f:x3",)), SETTINGS)
    assert p.scale_exact is False and p.scaled == {"+0.05": False, "-0.05": False}


def test_a_mutant_whose_step_is_never_reached_rejects_nothing(monkeypatch):
    """A claim is refused at collection when a mutant's step is never reached
    (``runner.check_steps``); past that check, ``power`` still counts such a mutant as not
    applied, never as killed."""
    from dataclasses import replace

    from numerics.claims import runner

    monkeypatch.setattr(runner, "check_steps", lambda *a: None)
    p = power(replace(TOY, id="P.never", mutants=("P.toy.h:never", "P.toy.f:x3")), SETTINGS)
    never, x3 = p.mutants
    assert (never.name, never.killed, never.applied) == ("P.toy.h:never", False, False)
    assert never.how == "not applied: the claim never reached the mutated step"
    assert x3.killed and p.detectable[0]["rejects"].keys() == {"P.toy.f:x3"}


def test_the_power_is_recorded_in_the_verdict_cache_and_reused():
    from dataclasses import replace

    from numerics.claims.power import cached_power, is_cached, power_key

    claim = replace(TOY, id="P.cached")
    other = Settings(mode="quick", seed=11)
    assert power_key(claim, SETTINGS) != power_key(claim, other)
    assert power_key(claim, SETTINGS) == power_key(claim, Settings(mode="quick"))
    assert not is_cached(claim, SETTINGS)
    first, reused = cached_power(claim, SETTINGS)
    assert not reused and is_cached(claim, SETTINGS) and not is_cached(claim, other)
    again, reused = cached_power(claim, SETTINGS)
    assert reused and again == first
    fresh, reused = cached_power(claim, SETTINGS, use_cache=False)
    assert not reused and fresh.detectable == first.detectable
    ev = claim.collect(other)  # evidence of these settings is used, and the result recorded under them
    p, reused = cached_power(claim, other, evidence=ev)
    assert not reused and is_cached(claim, other) and p.detectable == power(claim, other, evidence=ev).detectable


def test_a_power_run_that_failed_is_not_recorded():
    from dataclasses import replace

    from numerics.claims.power import cached_power, is_cached

    def broken(settings, claim):
        raise RuntimeError("the simulator crashed")

    claim = replace(TOY, id="P.cached_broken", experiment=broken)
    p, reused = cached_power(claim, SETTINGS)
    assert p.error and not reused and not is_cached(claim, SETTINGS)


def test_the_power_as_a_table(toy_power):
    """One row per structural mutant, then one per output scaling (pandas, the extra ``tables``)."""
    pytest.importorskip("pandas", reason="pandas (pip install -e '.[tables]')")
    df = toy_power.to_pandas()
    assert list(df.columns) == ["claim", "mutant", "description", "applied", "killed", "how"]
    assert list(df["mutant"]) == ["P.toy.f:x3", "P.toy.f:ulp", "P.toy.f:pole", "scale +0.05", "scale -0.05"]
    assert list(df["killed"]) == [True, False, True, True, True] and set(df["claim"]) == {"P.toy"}
    assert df.loc[1, "how"] == "survived" and df.loc[3, "description"] == "every theory value times (1 + 0.05)"


def _raising(side: str | None, message: str = "the simulation diverged"):
    """The toy's experiment, raising (on ``side``, or unnamed: the claim's own code) whenever its
    theory is not the true one."""
    def experiment(settings, claim):
        rows, sizes, details = _experiment(settings, claim)
        if rows[0].theory != 2.0:
            err = RuntimeError(message)
            if side:
                err.side = side
            raise err
        return rows, sizes, details
    return experiment


def test_a_mutant_the_experiment_raises_under_is_not_a_rejection():
    """The mutant changes only the derivation: an experiment that raised says nothing of it (not
    killed, and the scalings neither), and the error is kept to 300 characters."""
    from dataclasses import replace

    p = power(replace(TOY, id="P.exp_raises", experiment=_raising("experiment", "x" * 500)), SETTINGS)
    x3 = p.mutants[0]
    assert (x3.killed, x3.applied) == (False, True)
    assert x3.how.startswith("experiment of P.exp_raises failed: RuntimeError: xxx") and len(x3.how) == 300
    assert p.scaled == {"+0.05": False, "-0.05": False} and p.scale_exact is False


def test_a_mutant_the_claim_refuses_is_a_rejection_and_its_scalings_are_not_exact():
    """The claim's own code refuses the mutated theory values (it raised, outside the experiment):
    rejected.  The ±5 % scalings are rejected only by a verdict: refused, they have no rows, so
    neither counts, and their exactness is unknown (False); both are reported."""
    from dataclasses import replace

    p = power(replace(TOY, id="P.refuses", experiment=_raising(None)), SETTINGS)
    x3 = p.mutants[0]
    assert x3.killed and "P.refuses" in x3.how and "the simulation diverged" in x3.how
    assert p.scaled == {"+0.05": False, "-0.05": False} and p.scale_exact is False
    assert all(r["sensitivity"] in (0.0, None) and r["rejects"] == {} for r in p.detectable)


def test_a_zero_tolerance_row_rejects_with_an_infinite_ratio():
    from dataclasses import replace

    def exact(settings, claim):
        rows, sizes, details = _experiment(settings, claim)
        return [replace(rows[0], mean=2.0, se=0.0, allowance=0.0)], sizes, details

    p = power(replace(TOY, id="P.exact", experiment=exact, mutants=("P.toy.f:x3", "P.toy.f:ulp")), SETTINGS)
    assert p.detectable[0]["rejects"] == {"P.toy.f:x3": math.inf, "P.toy.f:ulp": math.inf}


def test_cached_power_uses_the_evidence_given_only_when_it_is_of_the_claim_and_settings():
    from dataclasses import replace

    from numerics.claims.power import cached_power

    claim = replace(TOY, id="P.given")
    ev = claim.collect(SETTINGS)
    doctored = replace(ev, comparisons=[replace(ev.comparisons[0], mean=2.5)] + list(ev.comparisons[1:]))
    tol = z_critical(4) * 0.01 + 0.002
    p, _ = cached_power(claim, SETTINGS, evidence=doctored, use_cache=False)
    assert p.detectable[0]["absolute"] == pytest.approx(tol + 0.5, rel=1e-12)  # the evidence given
    for other in (replace(doctored, settings=Settings(mode="quick", seed=5)), replace(doctored, claim_id="P.else")):
        p, _ = cached_power(claim, SETTINGS, evidence=other, use_cache=False)
        assert p.detectable[0]["absolute"] == pytest.approx(tol + 0.01, rel=1e-12)  # collected afresh


def test_cached_power_records_its_time_for_the_next_estimate():
    import time
    from dataclasses import replace

    from numerics.claims.power import cached_power
    from numerics.core.cache import recorded_times

    claim = replace(TOY, id="P.timed")
    t0 = time.perf_counter()
    cached_power(claim, SETTINGS)
    elapsed = time.perf_counter() - t0
    assert 0.0 <= recorded_times("quick")["power:P.timed"] <= round(elapsed, 2) + 0.01


def test_the_power_key_follows_the_code_of_this_module(monkeypatch):
    """A change of ``numerics/claims/power.py`` (or of what it imports) makes every recorded
    power stale: the key holds that module's code, not only the evidence's."""
    from numerics.claims.power import power_key
    from numerics.core import cache

    before = power_key(TOY, SETTINGS)
    real = cache._module_digest
    monkeypatch.setattr(cache, "_module_digest", lambda m: real(m) + ("changed" if m == "numerics.claims.power" else ""))
    assert power_key(TOY, SETTINGS) != before
    assert power_key(TOY, SETTINGS) != cache.key(TOY, SETTINGS)
