"""Every claim has a human title and its statement as LaTeX prose; the headings of the LaTeX
document and of the HTML report are the title (the id under it, small and monospace), a claim
without a title falls back to its reference, and ``attncheck list --json`` carries the title."""
import html
import re
import sys
import pathlib

import pytest

from numerics import latex as L
from numerics import registry, report, report_content
from numerics.claims.base import Claim, Comparison, Evidence, Settings, judge

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _third_paper_claims():
    sys.path.insert(0, str(ROOT / "examples" / "third_paper"))
    try:
        from spiked_covariance.claims import CLAIMS
    finally:
        sys.path.remove(str(ROOT / "examples" / "third_paper"))
    return list(CLAIMS)


ALL = {c.id: c for c in list(registry.claims().values()) + _third_paper_claims()}


@pytest.mark.parametrize("cid", sorted(ALL))
def test_every_claim_has_a_title_and_a_prose_statement(cid):
    claim = ALL[cid]
    assert claim.title.strip() and claim.title != claim.reference, f"{cid}: no title"
    assert len(claim.title) <= 100, f"{cid}: the title is a heading, not a paragraph"
    tex = claim.statement_tex
    assert tex.strip(), f"{cid}: no statement_tex"
    assert len(re.findall(r"(?<!\\)\$", tex)) % 2 == 0, f"{cid}: an unclosed formula"
    assert report.prose_html(tex) is not None, f"{cid}: statement_tex does not convert to HTML"


def test_the_prior_is_never_the_constant_pi():
    """Paper A's "pi" is the prior pi_+; Paper B's cos(2^k pi u) is the constant."""
    for claim in ALL.values():
        bare = re.findall(r"\\pi(?!_\{\+\})(?![a-zA-Z])", claim.statement_tex)
        if claim.paper == "A":
            assert not bare, f"{claim.id}: the prior is printed \\pi_{{+}}"
    assert r"\cos(2^k\pi u)" in ALL["B.rate.holder_edge"].statement_tex


def _toy_claim(**kw):
    return Claim(id="T.toy", paper="T", reference="Paper T, Lemma 1", statement="x -> 0",
                 experiment=lambda s, c: ([Comparison("x", 1.0, 1.0)], {}, {}), **kw)


def test_latex_heading_is_the_title_with_the_id_under_it():
    claim = ALL["A.thm3.q2_cosine"]
    section = L.claim_section(claim)
    head, idline = section.split("\n\n")[:2]
    assert head == r"\section*{Alignment of the trained query with the signal (Thm 3)}"
    assert idline.strip() == r"\noindent{\small\texttt{A.thm3.q2\_cosine}}"
    assert "\\begin{result}\n$\\cos(q^{(2)}, \\xi) \\to s_q" in section  # the statement, theorem-like
    assert "cos(q^(2), xi)" not in section.split("\\textbf{Reference}")[0]  # the ASCII is for the terminal
    plain = L.claim_section(_toy_claim())
    assert plain.startswith(r"\section*{Paper T, Lemma 1}")  # no title: the reference
    assert "\\begin{result}\n$x \\to 0$" in plain  # no statement_tex: the plain statement, its ASCII math as math


def _page(claim):
    ev = Evidence(claim.id, [Comparison("x", 1.0, 1.0)], Settings())
    entry = report_content.Entry(claim, judge(ev, 0.0, claim), None, True, [], None)
    return report.html_page([entry], {"mode": "quick"}, Settings())


def test_html_heading_is_the_title_and_the_statement_is_math():
    claim = ALL["B.kl.bound"]
    page = _page(claim)
    assert f"<h2 id='B.kl.bound'>{html.escape(claim.title)} " in page
    assert "<p class='claim-id'><code>B.kl.bound</code></p>" in page
    stated = re.search(r"<p class='statement'>(.*?)</p>", page, re.S).group(1)
    assert stated.startswith("Under Gaussian noise, <math") and "KL(P_g1^M" not in stated
    titled = re.search(r"<table class='text'><tr><th>claim</th>.*?</table>", page, re.S).group(0)
    assert html.escape(claim.title) in titled  # the summary names the claim by its title
    plain = _page(_toy_claim())
    assert "<h2 id='T.toy'>Paper T, Lemma 1 " in plain and "<p class='statement'>x -&gt; 0</p>" in plain


def test_list_json_carries_the_title():
    index = {r["id"]: r for r in registry.claim_index()}
    assert set(index) == set(registry.claims())
    for cid, rec in index.items():
        assert rec["title"] == ALL[cid].title
    assert registry._describe(_toy_claim())["title"] == "Paper T, Lemma 1"
