"""Paper B's asymptotic steps (limits and leading exponents), taken so that each one can be
re-taken at numeric parameter values.

A step taken with symbolic parameters can confirm the answer it is expected to give rather
than derive it: SymPy's ``limit`` of a log-ratio with symbolic exponents, for instance, may
keep the exponent it meets first and miss a slower term that only a numeric exponent would
reveal.  So every asymptotic step of Paper B's derivations is taken through this module:

* :func:`limit` — ``sp.limit(expr, var, point)``;
* :func:`leading_exponent` — dominant balance of an explicit sum of powers of ``base**var``:
  the expression is rewritten as ``Σ_i c_i (base**var)^{e_i}`` (:func:`power_terms`; terms
  that are not of this form are refused), terms with equal exponents are merged, a merged
  term whose coefficient vanishes identically is dropped, and the exponents are ordered by
  deciding the sign of each difference ``e_i − e_k`` as a SymPy expression under the stated
  assumptions (substitutions that write the parameters through positive symbols; a comparison
  SymPy cannot decide is refused, never guessed).  With ``base > 1`` and ``var → ∞`` the
  leading exponent is the largest: ``lim log expr / log base**var = e_max``.

Each call records an :class:`AsymptoticStep` (the input expression, the operation, the
symbolic result and numeric sample points of its parameters).  :func:`check` re-takes the
step at each sample point with the parameters substituted *before* the step (for a leading
exponent also by an independent ``sp.limit`` at those values) and compares with the symbolic
result substituted *after* it: a step that holds only for the answer it expects fails there.
``tests/test_paper_b_asymptotics.py`` runs the check on every recorded step.

Pure SymPy.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy as sp

from derivations.core import active_mutants, step

#: every asymptotic step taken so far, by (name, active mutants)
RECORDS: dict[tuple, "AsymptoticStep"] = {}


@dataclass(frozen=True)
class AsymptoticStep:
    """One asymptotic step: ``op`` ("limit" or "leading_exponent") of ``expr`` in ``var``."""

    name: str
    op: str
    expr: sp.Basic
    var: sp.Symbol
    result: sp.Basic
    points: tuple  # tuple of dicts {symbol: exact number}
    options: dict = field(default_factory=dict, compare=False, hash=False)


def sample_points(expr, var, samples: dict) -> tuple:
    """Numeric points for the free symbols of ``expr`` other than ``var``: ``samples`` gives
    candidate values per symbol; the points cycle through them (as many points as the longest
    list).  Every free symbol must have candidates."""
    free = sorted(expr.free_symbols - {var}, key=str)
    missing = [str(x) for x in free if x not in samples]
    if missing:
        raise ValueError(f"asymptotic step: no sample values for {missing}")
    if not free:
        return ({},)
    n = max(len(samples[x]) for x in free)
    cyc = {x: itertools.cycle(samples[x]) for x in free}
    return tuple({x: sp.nsimplify(next(cyc[x])) for x in free} for _ in range(n))


def _record(name, op, expr, var, result, samples, **options):
    rec = AsymptoticStep(name, op, expr, var, result, sample_points(expr, var, samples), options)
    RECORDS[(name, active_mutants())] = rec
    return rec


# --- limits ------------------------------------------------------------------------------------
def limit(name: str, expr, var, point, samples: dict, *, post=sp.simplify):
    """``post(sp.limit(expr, var, point))``, recorded for :func:`check` under ``name``."""
    result = post(sp.limit(expr, var, point))
    _record(name, "limit", expr, var, result, samples, point=point)
    return result


# --- leading exponents by dominant balance ----------------------------------------------------
def power_terms(expr, var, base) -> tuple:
    """``expr`` as ``Σ_i c_i X^{e_i}`` with ``X = base**var``: a tuple of (e_i, c_i), neither
    depending on ``var``.  Every power ``base**f`` with ``f`` linear in ``var`` is rewritten;
    a term that is not a coefficient times a power of X (a sum in a denominator, ``var``
    outside an exponent) raises ValueError."""
    X = sp.Dummy("X", positive=True)

    def rewrite(p):
        e = sp.expand(p.exp)
        c1 = e.coeff(var)
        c0 = sp.expand(e - c1 * var)
        if c0.has(var) or c1.has(var):
            raise ValueError(f"power_terms: exponent {p.exp} is not linear in {var}")
        return base ** c0 * X ** c1

    rewritten = expr.replace(lambda p: p.is_Pow and p.base == base and p.exp.has(var), rewrite)
    def monomial(f, t):
        coeff, rest = sp.factor_terms(sp.expand(f)).as_independent(X, as_Add=False)
        if rest == 1:
            return coeff, sp.Integer(0)
        bb, e = sp.powsimp(rest, force=True).as_base_exp()
        if bb != X:
            raise ValueError(f"power_terms: term {t} is not a coefficient times a power of {base}**{var}")
        return coeff, e

    terms = []
    for t in sp.Add.make_args(sp.expand(rewritten)):
        num, den = sp.fraction(t)
        (cn, en), (cd, ed) = monomial(num, t), monomial(den, t)
        coeff, e = cn / cd, en - ed
        if coeff.has(var) or e.has(var) or coeff.has(X):
            raise ValueError(f"power_terms: term {t} depends on {var} outside a power of {base}")
        terms.append((sp.expand(e), coeff))
    return tuple(terms)


def merge_terms(terms, assume: dict, points=()) -> tuple:
    """Terms with equal exponents merged; merged terms whose coefficient vanishes identically
    dropped.  A coefficient that SymPy cannot decide is kept if it is non-zero at one of the
    numeric ``points`` (then it does not vanish identically), and refused otherwise."""
    groups: list[list] = []
    for e, c in terms:
        for g in groups:
            if sp.expand((e - g[0]).subs(assume)) == 0:
                g[1] += c
                break
        else:
            groups.append([e, c])
    kept = []
    for e, c in groups:
        zero = sp.simplify(c.subs(assume)).is_zero
        if zero is None:
            zero = all(sp.N(c.subs(p), 30) == 0 for p in points) if points else None
        if zero is None:
            raise ValueError(f"merge_terms: cannot decide whether the coefficient {c} of exponent {e} vanishes")
        if not zero:
            kept.append((e, c))
    return tuple(kept)


def is_greater(e1, e2, assume: dict) -> bool:
    """Whether e1 > e2, decided by SymPy on (e1 − e2) with the substitutions ``assume`` (which
    write the parameters through symbols carrying their assumptions).  Undecidable: ValueError."""
    diff = sp.simplify(sp.expand((e1 - e2).subs(assume)))
    if diff.is_positive:
        return True
    if diff.is_nonpositive:
        return False
    raise ValueError(f"cannot decide the sign of {e1 - e2} (= {diff} under {assume})")


def order_exponents(terms, assume: dict) -> tuple:
    """The exponents of ``terms``, slowest decay (largest) first; every pair compared."""
    exps = [e for e, _ in terms]
    keys = {}
    for i, e in enumerate(exps):
        keys[i] = sum(1 for k, f in enumerate(exps) if k != i and is_greater(f, e, assume))
    return tuple(exps[i] for i in sorted(keys, key=keys.get))


def leading_exponent(name: str, expr, var, base, assume: dict, samples: dict):
    """lim_{var→∞} log expr / log base**var (base > 1) by dominant balance: the largest
    exponent among the non-vanishing merged terms of :func:`power_terms`.

    Sub-steps (each a named step, so each can carry structural mutants):
    ``<name>.terms`` the merged (exponent, coefficient) terms; ``<name>.order`` the exponents,
    slowest decay first.  Recorded for :func:`check` under ``name``."""
    points = sample_points(expr, var, samples)
    terms = step(f"{name}.terms", merge_terms(power_terms(expr, var, base), assume, points))
    if not terms:
        raise ValueError(f"{name}: the expression vanishes identically")
    order = step(f"{name}.order", order_exponents(terms, assume))
    result = sp.simplify(order[0])
    _record(name, "leading_exponent", expr, var, result, samples, base=base)
    return result


# --- the check: numeric before the step against numeric after it -----------------------------
def _equal(x, y, digits: int = 30) -> bool:
    if x.is_infinite or y.is_infinite:
        return x == y
    d = sp.N(x - y, digits)
    scale = max(abs(sp.N(x, digits)), abs(sp.N(y, digits)), 1)
    return bool(abs(d) <= scale * sp.Float(10) ** (5 - digits))


def take_at(rec: AsymptoticStep, point: dict) -> list:
    """The step re-taken at one numeric point, by every route available for its kind."""
    e = rec.expr.subs(point)
    if rec.op == "limit":
        return [sp.limit(e, rec.var, rec.options["point"])]
    base = rec.options["base"].subs(point)
    terms = merge_terms(power_terms(e, rec.var, base), {}, ())
    dominant = max(ex for ex, _ in terms)
    t = sp.Dummy("t", positive=True)
    by_limit = sp.limit(sp.log(e.subs(rec.var, t)) / (t * sp.log(base)), t, sp.oo)
    return [dominant, by_limit]


def check(rec: AsymptoticStep) -> list:
    """(point, symbolic result at the point, numeric step values) for every point where they
    disagree; empty when the step holds at all its sample points."""
    bad = []
    for p in rec.points:
        sym = rec.result.subs(p)
        nums = take_at(rec, p)
        if not all(_equal(sp.sympify(sym), sp.sympify(n)) for n in nums):
            bad.append((p, sym, nums))
    return bad
