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
