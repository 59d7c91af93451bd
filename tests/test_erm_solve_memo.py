"""The memo of Paper A's step-4 solves (``numerics.theory.paper_a.erm_equations.SOLVES``): a
solve is reused exactly when what it reads is the same (the system's equations, the law, the
numbers), and a reused solve gives, bit for bit, what solving again gives, with the outputs of
the derivation in force."""
import pytest

from derivations.core import all_mutants, mutated, scaled
from numerics.theory.paper_a import erm_equations as erm_theory
from numerics.theory.paper_a import models as M

POINT = dict(alpha1=4.0, lam=1e-2, loss=M.LOGISTIC)


def _law(pi=0.3):
    return erm_theory.linear_law(M.POOLED, 10, 1, pi, 2.0)


def _solve(law=None, **kw):
    p = {**POINT, **kw}
    return erm_theory.solve(law or _law(), p["alpha1"], p["lam"], p["loss"], step=p.get("step"), refine=False).value


def _fresh(*mutants, **kw):
    erm_theory.SOLVES.clear()
    with mutated(*mutants):
        return _solve(**kw)


@pytest.fixture(autouse=True)
def _empty_memo():
    erm_theory.SOLVES.clear()
    yield
    erm_theory.SOLVES.clear()


def test_a_solve_is_kept_and_reused_with_the_outputs_in_force():
    fp = _solve()
    assert len(erm_theory.SOLVES) == 1
    with mutated(all_mutants()["A.erm.test_error:sqrt2"]):  # an output step: the same solve
        fp_out = _solve()
    assert len(erm_theory.SOLVES) == 1
    assert fp_out.x == fp.x and fp_out.metrics["test_error"] != fp.metrics["test_error"]
    assert fp_out.metrics == _fresh(all_mutants()["A.erm.test_error:sqrt2"]).metrics  # as if solved again
    with mutated(scaled("A.erm.test_error", 1.05)):
        fp_scaled = _solve()
    assert fp_scaled.x == fp.x and fp_scaled.metrics["test_error"] == pytest.approx(1.05 * fp.metrics["test_error"], rel=1e-12)


@pytest.mark.parametrize("name", ["A.erm.eq_m:sign", "A.erm.prox:factor2", "A.erm.integrand_Q:drop_sigma2",
                                  "A.law.pool.sigma2:unaveraged"])
def test_a_mutant_of_the_equations_the_prox_or_the_law_is_solved_again(name):
    fp = _solve()
    m = all_mutants()[name]
    with mutated(m):
        law = _law()  # the law is built under the mutant, as a claim builds it
        fp_m = _solve(law)
    assert len(erm_theory.SOLVES) == 2 and fp_m.x != fp.x
    erm_theory.SOLVES.clear()
    with mutated(m):
        assert _solve(_law()).x == fp_m.x  # the same as solved alone


@pytest.mark.parametrize("change", [dict(alpha1=4.5), dict(lam=2e-2), dict(loss=M.SQUARE), dict(law=0.4),
                                    dict(step=0.25)])
def test_a_solve_at_other_numbers_or_another_law_is_solved_again(change):
    fp = _solve()
    if "law" in change:
        fp2 = _solve(_law(change["law"]))
    else:
        fp2 = _solve(**change)
    assert len(erm_theory.SOLVES) == 2 and fp2.x != fp.x


def test_the_memo_keeps_its_latest_solves_only(monkeypatch):
    monkeypatch.setattr(erm_theory.SOLVES, "kept", 2)
    for al in (3.0, 4.0, 5.0):
        _solve(alpha1=al)
    assert len(erm_theory.SOLVES) == 2
    _solve(alpha1=4.0)  # kept: a hit, now the latest
    _solve(alpha1=6.0)  # drops the oldest, alpha1 = 5
    assert [k[4] for k in erm_theory.SOLVES.keys()] == [4.0, 6.0]
