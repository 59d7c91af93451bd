"""The memo of Paper C's solves on one rule (``numerics.theory.paper_c.equations.SOLVES``): a
solve is reused when the system's expressions, the rule and the numbers are the same (a
scaling of the reported outputs, downstream of the solve), and solved again when a mutant
reaches the system (the mean squared error is computed inside the solve) or a number or the
point set changes; a reused solve is what solving again gives."""
import numpy as np
import pytest

from derivations.core import all_mutants, mutated, scaled
from numerics.theory.paper_c import equations as E

RULE = 6


def _solve(rule=RULE, **kw):
    p = {"branch": "positional", "alpha": 2.0, **kw}
    sol = E.solve_on_rule(p.pop("branch"), p.pop("alpha"), rule, **p)
    assert sol.ok
    return sol.value


@pytest.fixture(autouse=True)
def _empty_memo():
    E.SOLVES.clear()
    yield
    E.SOLVES.clear()


def test_a_scaling_of_the_reported_outputs_reuses_the_solve_and_a_copy_is_returned():
    v = _solve()
    n = len(E.SOLVES)
    v["x"][0] = -1.0  # the caller's copy: the kept solve is not changed
    with mutated(scaled("C.out.reported", 1.05)):
        w = _solve()
    assert len(E.SOLVES) == n and w["x"][0] != -1.0
    E.SOLVES.clear()
    assert _solve() == w


def test_a_mutant_reaching_the_system_is_solved_again_as_if_alone():
    v = _solve()
    n = len(E.SOLVES)
    with mutated(all_mutants()["C.out.mse:half"]):
        w = _solve()
    assert len(E.SOLVES) > n and w["mse"] == pytest.approx(v["mse"] / 2, rel=1e-12)
    E.SOLVES.clear()
    with mutated(all_mutants()["C.out.mse:half"]):
        assert _solve() == w


@pytest.mark.parametrize("change", [dict(alpha=2.1), dict(sigma=0.6), dict(lam=0.02), dict(omega=0.4),
                                    dict(branch="semantic"), dict(tol=1e-9), dict(n_sweeps=29),
                                    dict(x0=(0.1, 0.2, 12.0, 0.0)), dict(rule=5)])
def test_other_numbers_or_another_rule_are_solved_again(change):
    _solve()
    n = len(E.SOLVES)
    _solve(**change)
    assert len(E.SOLVES) > n


def test_a_point_set_is_known_by_its_values():
    X, W = E.nodes(5)
    _solve(rule=(X, W))
    n = len(E.SOLVES)
    _solve(rule=(X.copy(), W.copy()))
    assert len(E.SOLVES) == n
    X2 = X.copy()
    X2[0, 0] = np.nextafter(X2[0, 0], 1.0)
    _solve(rule=(X2, W))
    assert len(E.SOLVES) > n
