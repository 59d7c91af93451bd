"""numerics.core.results: a non-converged iterate is never handed back as a value."""
import pytest

from numerics.core.results import RESULTS, Solution, SolveError


def test_only_a_converged_result_is_ok():
    assert RESULTS.successful.ok
    assert [r for r in RESULTS if r.ok] == [RESULTS.successful]
    assert RESULTS.suspect.value.startswith("suspect")


def test_value_and_check_refuse_a_result_that_did_not_converge():
    good = Solution(RESULTS.successful, 4, 1e-12, raw=1.5)
    assert good.ok and good.value == 1.5 and good.check() is good
    bad = Solution(RESULTS.max_steps_reached, 50, 0.25, raw=9.0, message="alpha=2")
    assert not bad.ok
    with pytest.raises(SolveError) as e:
        bad.value
    assert e.value.solution is bad
    assert str(e.value) == "not converged: iteration limit reached: alpha=2 (iterations 50, residual 0.25)"
    with pytest.raises(SolveError):
        bad.check()
    assert bad.check(throw=False) is bad
    assert str(SolveError(Solution(RESULTS.singular, 3, 1e-3))) == \
        "not converged: singular Jacobian (iterations 3, residual 0.001)"


def test_downgrade_keeps_the_iterate_and_joins_the_messages():
    s = Solution(RESULTS.successful, 7, 1e-10, raw=[1, 2], message="polished", stats={"n": 3})
    d = s.downgrade(RESULTS.suspect, "cross-check off by 1e-3")
    assert (d.result, d.iterations, d.residual, d.raw) == (RESULTS.suspect, 7, 1e-10, [1, 2])
    assert d.message == "polished; cross-check off by 1e-3"
    assert d.stats == {"n": 3} and d.stats is not s.stats
    assert Solution(RESULTS.successful, 1, 0.0).downgrade(RESULTS.failed, "x").message == "x"
    assert Solution(RESULTS.successful, 1, 0.0, message="m").downgrade(RESULTS.failed, "").message == "m"
    assert s.result is RESULTS.successful  # the original is unchanged
