"""One notation in every output: the prior P(y = +1) prints as pi_+ in the LaTeX document (and
the PDF report, which prints the same sections), in the HTML report's MathML and in the
notebook reprs; a Gaussian integral is written as a Gaussian mean, so the constant pi does not
appear next to the prior; verdicts carry the claim's title."""
import re

import attncheck
from numerics import latex as L
from numerics import registry
from numerics.claims.base import Comparison, Evidence, Settings, judge
from numerics.report_math import _equations_html

#: claims whose derivations use Paper A's prior
PRIOR_CLAIMS = ("A.thm3.q2_cosine", "A.cor2.ridgeless_rate", "A.thm1.linear_threshold")


def _bare_pi(tex: str) -> list[str]:
    """Every ``\\pi`` of a LaTeX text that is not the prior ``\\pi_{+}``."""
    return [m.group(0) for m in re.finditer(r"\\pi(?!_\{\+\})(?![A-Za-z])", tex)]


def test_the_prior_prints_the_same_in_latex_html_and_notebooks():
    claims = registry.claims()
    for cid in PRIOR_CLAIMS:
        claim = claims[cid]
        section = L.claim_section(claim)  # the LaTeX document and the PDF report
        assert r"\pi_{+}" in section, cid
        assert not _bare_pi(section), f"{cid}: the constant pi is printed next to the prior"
        for eq in attncheck.equations(cid):  # the notebook repr
            text = eq._repr_latex_()
            assert not _bare_pi(text), f"{cid}: {eq.name} prints a bare pi in a notebook"
        html = "\n".join(_equations_html(claim, L.Document()))  # the HTML report's MathML
        pi = "&#x003C0;"  # latex2mathml writes characters as references
        priors = len(re.findall(rf"<msub(?:sup)?><mi>{pi}</mi>(<mrow>)?<mo>&#x0002B;</mo>", html))
        assert priors and priors == html.count(pi), f"{cid}: pi in the HTML is not the prior pi_+"


def test_gaussian_means_are_printed_as_expectations():
    section = L.claim_section(registry.claims()["A.thm3.q2_cosine"])
    assert r"\mathbb{E}_{\zeta \sim \mathcal{N}(0,1)}" in section
    assert r"\int" not in section and r"\sqrt{\pi}" not in section


def test_a_verdict_carries_the_claims_title():
    claim = registry.claims()["A.thm3.q2_cosine"]
    ev = Evidence(claim.id, [Comparison("row", 1.0, 1.0, 0.1)], Settings())
    v = judge(ev, 0.0, claim)
    assert v.title == claim.title and v.to_json()["title"] == claim.title
    assert claim.title in v._repr_html_()
    assert "<math" in v._repr_html_()  # the LaTeX statement, rendered


def test_relations_print_as_equations_not_as_zero_equals():
    section = L.claim_section(registry.claims()["A.thm5.pool_test_error"])
    assert "\n0 = " not in section


# --- the notation rewrite undone: what is printed is the computed expression ---------------------
import functools  # noqa: E402
import random  # noqa: E402
from unittest import mock  # noqa: E402

import mpmath  # noqa: E402
import pytest  # noqa: E402
import sympy as sp  # noqa: E402

import derivations.core as derivations_core  # noqa: E402
from numerics.report_math import _statement_html  # noqa: E402

#: Phi and phi as mpmath's normal distribution function and density: the meaning of the printed
#: symbols, independent of derivations.core.unnotation
_NORMAL = {"Phi": mpmath.ncdf, "phi": mpmath.npdf}


@functools.lru_cache(maxsize=1)
def _printed_expressions() -> tuple:
    """Every expression the printer writes in the papers' notation (distinct): each equation's
    two sides and its printed form (``Equation.written``), each statement relation, and whatever
    the LaTeX document and the HTML report of every claim hand to ``derivations.core.notation``
    (chained steps, "where" pieces, the lines of a broken sum)."""
    claims = [c for _, c in sorted(registry.claims().items())]
    found: dict = {}

    def keep(e):
        if isinstance(e, sp.Basic):
            found.setdefault(sp.srepr(e), e)

    for claim in claims:
        for eq in claim.get_equations():
            keep(eq.lhs)
            keep(eq.rhs)
            printed = eq.extra.get("printed") if eq.extra else None
            if printed is not None:
                keep(printed[0])
        stated = claim.get_statement_eq()
        for item in stated if isinstance(stated, (tuple, list)) else (stated,):
            if isinstance(item, sp.Basic):
                keep(item)
                for side in getattr(item, "args", ()) if isinstance(item, sp.core.relational.Relational) else ():
                    keep(side)
    rewrite = derivations_core.notation

    def recorded(e):
        keep(e)
        return rewrite(e)

    with mock.patch.object(derivations_core, "notation", recorded):
        L.claims_latex(claims)
        doc = L.Document()
        for claim in claims:
            _equations_html(claim, doc)
            _statement_html(claim)
    return tuple(found.values())


def _agree_to_30_digits(a, b, symbols, functions=None) -> bool:
    """``a`` and ``b`` agree to 30 digits at three random points of their parameters (in
    (0.15, 0.85), where the printed laws are defined; integers in 1..8), one at least where they
    are not 0; ``functions`` evaluates undefined ones."""
    args = sorted(symbols, key=sp.default_sort_key)
    modules = [functions or {}, "mpmath"]
    fa, fb = (sp.lambdify(args, x, modules=modules, dummify=True) for x in (a, b))
    rng = random.Random(20261)
    checked, nonzero = 0, False
    with mpmath.workdps(40):
        for _ in range(40):
            point = [rng.randint(1, 8) if s.is_integer else mpmath.mpf(rng.randint(15, 85)) / 100 for s in args]
            try:
                va, vb = mpmath.mpmathify(fa(*point)), mpmath.mpmathify(fb(*point))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                continue
            if not all(mpmath.isfinite(v) and mpmath.im(v) == 0 for v in (va, vb)):
                continue
            if abs(va - vb) > mpmath.mpf(10) ** -30 * max(1, abs(va)):
                return False
            checked += 1
            nonzero = nonzero or abs(va) > mpmath.mpf(10) ** -10
            if checked >= 3 and nonzero:
                return True
    raise AssertionError(f"no three points where both sides are finite and real, one non-zero: {a}")


def _undone_equals(expr) -> bool:
    """``unnotation(notation(expr))`` is ``expr``: the very expression, or equal at random points."""
    back = derivations_core.unnotation(derivations_core.notation(expr))
    if back == expr:
        return True
    assert isinstance(expr, sp.Expr), f"notation changed a non-scalar expression: {expr}"
    return _agree_to_30_digits(back, expr, expr.free_symbols | back.free_symbols)


def _rewritten():
    return [e for e in _printed_expressions() if derivations_core.notation(e) != e]


def test_every_printed_expression_is_given_back_by_unnotation():
    """Each expression the document and the report print, rewritten in the papers' notation
    (erfc as Phi, a Gaussian factor as phi) and the rewrite undone, is the computed expression."""
    exprs = _printed_expressions()
    assert len(exprs) > 300 and len(_rewritten()) >= 15  # the rewrite is exercised
    wrong = [str(e)[:200] for e in exprs if not _undone_equals(e)]
    assert not wrong, "the notation rewrite changes these printed expressions:\n" + "\n".join(wrong)


def test_every_rewritten_expression_means_the_computed_one():
    """The rewritten expression, with Phi and phi read as the normal distribution function and
    density (mpmath's, not ``unnotation``), equals the computed one at random points."""
    wrong = []
    for e in _rewritten():
        assert isinstance(e, sp.Expr), e
        if not _agree_to_30_digits(derivations_core.notation(e), e, e.free_symbols, _NORMAL):
            wrong.append(f"{e}\n  printed as {derivations_core.notation(e)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["density_sqrt2", "erfc_sign", "erfc_factor"])
def test_the_check_fails_on_a_wrong_rewrite(name, monkeypatch):
    """The two checks above can fail: a density printed without its sqrt(2), and an erfc
    rewritten with the wrong sign or without its factor 2."""
    if name == "density_sqrt2":
        def wrong(e):
            ex = next(f for f in e.args if isinstance(f, sp.exp))
            return e / (ex / sp.sqrt(sp.pi)) * derivations_core.phi(sp.sqrt(sp.factor(-2 * ex.args[0])))
        monkeypatch.setattr(derivations_core, "_as_density", wrong)
    else:
        rewrite = derivations_core.notation

        def wrong(expr):
            if isinstance(expr, sp.Basic) and expr.has(sp.erfc):
                to = (lambda z: 2 * derivations_core.Phi(sp.sqrt(2) * z)) if name == "erfc_sign" else (lambda z: derivations_core.Phi(-sp.sqrt(2) * z))
                expr = expr.replace(sp.erfc, to)
            return rewrite(expr)
        monkeypatch.setattr(derivations_core, "notation", wrong)
    e = next(x for x in _rewritten() if (x.has(sp.erfc) if name != "density_sqrt2" else derivations_core.notation(x).has(derivations_core.phi)))
    assert not _undone_equals(e)
    assert not _agree_to_30_digits(derivations_core.notation(e), e, e.free_symbols, _NORMAL)
