"""Paper B's asymptotic steps derive their answers: every limit and leading exponent is
re-taken at numeric parameter values and compared with the step taken symbolically
(derivations.paper_b.asymptotics), and the Hölder-edge bias exponent comes from dominant
balance of the explicit sums, right also for input whose answer is not the expected one."""
from __future__ import annotations

import pathlib
import re

import mpmath
import pytest
import sympy as sp

from derivations.core import MUTANTS, mutated
from derivations.paper_b import asymptotics
from derivations.paper_b import holder_edge as H
from derivations.paper_b import parametric_excess as PE
from derivations.paper_b import rate_exponent as RE

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _build_all():
    """Every Paper B derivation that takes an asymptotic step."""
    H.equations()
    H.kink_bias_exponent()
    H.schedule_exponent()
    RE.equations()
    PE.v_a_limits()


def test_every_asymptotic_step_goes_through_the_checked_module():
    """No bare sp.limit / series / leading-term call in Paper B's derivations."""
    pattern = re.compile(r"\b(limit|series|as_leading_term|leadterm|nseries)\(")
    offenders = []
    for path in sorted((ROOT / "derivations" / "paper_b").glob("*.py")):
        if path.name == "asymptotics.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if pattern.search(code) and "asymptotics.limit(" not in code:
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert not offenders, offenders


def test_every_step_agrees_with_its_numeric_version():
    _build_all()
    recs = [r for (name, muts), r in asymptotics.RECORDS.items() if not muts]
    names = {r.name for r in recs}
    assert {"B.holder.bias_leading", "B.holder.exponent", "B.holder.schedule_exponent",
            "B.holder.schedule_slope.term0", "B.holder.schedule_slope.term1", "B.holder.kink_exponent",
            "B.rate.exponent", "B.rate.excess.V_A_limit"} <= names
    for r in recs:
        assert len(r.points) >= 3, r.name
        assert asymptotics.check(r) == [], r.name


def test_tail_unsquared_bias_gives_beta_not_two_beta():
    """The failure mode of a symbolic-exponent limit: a squared bias whose unresolved part
    decays as K^{-beta}.  Dominant balance gives beta, and agrees with the numeric limits."""
    with mutated(MUTANTS["B.holder.bias:tail_unsquared"]):
        assert sp.simplify(H.bias_exponent() - H.beta) == 0
        assert sp.simplify(H.exponent() + H.beta / (H.beta + 1)) == 0
        rec = asymptotics.RECORDS[("B.holder.bias_leading", ("B.holder.bias:tail_unsquared",))]
        assert asymptotics.check(rec) == []


def test_bias_exponent_at_numeric_beta_and_by_mpmath_slope():
    """gamma = 2 beta at several numeric beta, and the local slope of log bias^2 at large j
    (mpmath, 50 digits) tends to it."""
    gamma = H.bias_exponent()
    f = sp.lambdify((H.beta, H.s, H.b, H.j), H.bias(), "mpmath")
    with mpmath.workdps(50):
        for bv, sv, base in ((0.25, 0, 2), (0.5, 1, 2), (0.75, 2, 2), (0.9, 1, 3)):
            bq = sp.nsimplify(bv)
            assert gamma.subs(H.beta, bq) == 2 * bq
            jj, bm = 60, mpmath.mpf(bq.p) / bq.q
            slope = mpmath.log(f(bm, sv, base, jj + 1) / f(bm, sv, base, jj)) / mpmath.log(base)
            assert abs(slope + 2 * bv) < 1e-6


def test_dominant_balance_on_plain_sums():
    j, b = sp.Symbol("j", positive=True), sp.Symbol("b", positive=True)
    beta, delta = sp.symbols("beta delta", positive=True)
    samples = {beta: ("1/3", "2/3", 2), b: (2, 3, 5)}
    assert asymptotics.leading_exponent("t.one", b ** (-beta * j) + b ** (-2 * beta * j), j, b, {}, samples) == -beta
    # a cancelling pair: the surviving term leads
    e = (b ** (-beta * j) + 3 * b ** (-2 * beta * j)) - b ** (-beta * j)
    assert asymptotics.leading_exponent("t.cancel", e, j, b, {}, samples) == -2 * beta
    for name in ("t.one", "t.cancel"):
        assert asymptotics.check(asymptotics.RECORDS[(name, ())]) == []


def test_dominant_balance_refuses_what_it_cannot_decide():
    j, b = sp.Symbol("j", positive=True), sp.Symbol("b", positive=True)
    beta = sp.Symbol("beta", positive=True)
    samples = {beta: ("1/3", 2), b: (2, 3)}
    with pytest.raises(ValueError, match="cannot decide the sign"):
        asymptotics.leading_exponent("t.sign", b ** ((beta - 1) * j) + 1, j, b, {}, samples)
    with pytest.raises(ValueError, match="not a coefficient times a power"):
        asymptotics.leading_exponent("t.sum", 1 / (1 + b ** j), j, b, {}, samples)


def test_check_catches_a_step_that_confirms():
    """A recorded result that is not what the step gives at numeric values is reported."""
    t, beta = sp.Symbol("t", positive=True), sp.Symbol("beta", positive=True)
    asymptotics.limit("t.limit", sp.log(sp.exp(-beta * t) + sp.exp(-2 * beta * t)) / t, t, sp.oo, {beta: ("1/2", 2)})
    rec = asymptotics.RECORDS[("t.limit", ())]
    assert asymptotics.check(rec) == []
    wrong = asymptotics.AsymptoticStep(rec.name, rec.op, rec.expr, rec.var, -2 * beta, rec.points, rec.options)
    assert len(asymptotics.check(wrong)) == len(rec.points)


@pytest.mark.parametrize("name", ["B.holder.bias:tail_unsquared", "B.holder.bias_leading.order:fastest",
                                  "B.holder.bias_leading.terms:taylor_only"])
def test_new_mutants_move_the_exponent(name):
    assert name in MUTANTS
    with mutated(MUTANTS[name]):
        moved = H.bias_exponent().subs({H.beta: sp.Rational(3, 4), H.s: 2})
    assert abs(float(moved) - 1.5) > 0.3
