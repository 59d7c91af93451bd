"""Verdict rows in the papers' notation: each row carries its parameter point (``at``), and the
terminal (Unicode), the HTML report (MathML) and the PDF (LaTeX) print it through the one
renderer, ``numerics.report_labels``, each name through the one printer; the design point is
one line in each format; ``verify --json`` has the structured point.  Every built-in claim gives
each row the point its label writes (``name=value``), as numbers: no number is read back from a
label."""
import json

import pytest
from click.testing import CliRunner

from numerics import registry
from numerics import report_labels
from numerics.claims.base import SCHEMA, Claim, Comparison, Evidence, Settings, judge
from numerics.claims.runner import built_in

LABEL = "q2_cosine[logistic, L=10, a0=3]"
AT = {"L": 10, "a0": 3.0}
CLAIMS = [c for c in registry.claims().values() if built_in(c)]


def test_a_row_point_is_its_at_never_its_label():
    assert Comparison(LABEL, 1.0, 1.0, at=AT).at == AT
    assert Comparison(LABEL, 1.0, 1.0).at == {}  # no point given: none read from the label
    assert Comparison("alpha*_vec", 1.0, 1.0, at=None).at == {}
    # a point's value is typeset where the label writes its name; without a point the label is text
    assert report_labels.render_label(LABEL, "text", {"L": 10, "a0": 3.0}) == "q2_cosine[logistic, L = 10, α₀ = 3]"
    assert report_labels.render_label(LABEL, "text") == LABEL
    assert report_labels.render_label(LABEL, "text", {"L": 10}) == "q2_cosine[logistic, L = 10, a0=3]"
    # a fraction, a power or a list is not a plain number: not where a point is written
    text = "shift=1/2, x=0.0 L=10^(10^8), M=1e6, K = 16, 32, 64 (L=10,R=1,pi=.5)"
    assert [m.group(1) for m in report_labels.ASSIGNMENT.finditer(text)] == ["x", "M", "L", "R", "pi"]


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_every_row_gives_the_point_its_label_writes(claim, quick_evidence):
    """The names a built-in claim's row label writes as ``name=value`` are the keys of its ``at``,
    and each value written is the point's (as numbers): a claim that forgets ``at`` fails here."""
    ev = quick_evidence(claim)
    assert not ev.error, f"{claim.id}: {ev.error}"
    for c in ev.comparisons:
        if c.certified:  # a certified row has no point (``judge``)
            continue
        written = [(m.group(1), m.group(2)) for m in report_labels.ASSIGNMENT.finditer(c.label)]
        at = c.at
        assert sorted(n for n, _ in written) == sorted(at), \
            f"{claim.id}: row {c.label!r} writes {[n for n, _ in written]}, its at is {c.at!r}"
        for name, text in written:
            assert isinstance(at[name], (int, float)) and not isinstance(at[name], bool), (claim.id, c.label, at)
            assert float(text) == at[name], f"{claim.id}: row {c.label!r} writes {name}={text}, its at {at[name]!r}"


def test_names_print_through_the_one_printer():
    assert report_labels.assignment("alpha0", 3, "text") == "α₀ = 3"
    assert report_labels.assignment("a0", 3, "text") == "α₀ = 3"
    assert report_labels.assignment("pi", 0.3, "text") == "π₊ = 0.3"
    assert report_labels.assignment("lam", 1e-05, "text") == "λ = 1e-05"
    assert report_labels.assignment("eta_q", 0.5, "text") == "η_q = 0.5"
    assert report_labels.assignment("sigma2", 2, "text") == "σ² = 2"
    assert report_labels.assignment("alpha0", 3, "tex") == r"\alpha_{0} = 3"
    assert report_labels.assignment("pi", 0.3, "tex") == r"\pi_{+} = 0.3"
    assert report_labels.assignment("lam", 2, "tex") == r"\lambda = 2"


def test_a_label_renders_in_each_format():
    row = Comparison(LABEL, 1.0, 1.0, at=AT)
    assert report_labels.render(row, "text") == "q2_cosine[logistic, L = 10, α₀ = 3]"
    assert report_labels.render(row, "tex") == r"q2\_cosine[logistic, $L = 10$, $\alpha_{0} = 3$]"
    page = report_labels.render(row, "html")
    assert page.startswith("q2_cosine[logistic, ") and page.count("<math") == 2
    assert "a0" not in page and "\\" not in page and "$" not in page
    with pytest.raises(ValueError):
        report_labels.render(row, "rtf")


def test_a_structured_point_is_rendered_even_when_the_label_does_not_write_it():
    row = Comparison("E_test", 1.0, 1.0, at={"alpha0": 3, "pi": 0.3})
    assert report_labels.render(row, "text") == "E_test at α₀ = 3, π₊ = 0.3"
    assert report_labels.render(row, "tex") == r"E\_test at $\alpha_{0} = 3$, $\pi_{+} = 0.3$"


def _verdict(details=None, params=()):
    ev = Evidence("T.row", [Comparison(LABEL, 1.0, 1.0, 0.1, at=AT), Comparison("sqrt2", 1.0, 1.0)],
                  Settings(params=params), details=details or {})
    return judge(ev)


def test_the_verdict_rows_carry_their_point_and_the_json_has_it():
    v = _verdict({"setting": {"pi": 0.3, "theta": 5.0}})
    assert [r.at for r in v.rows] == [AT, {}]
    rec = v.to_json()
    assert SCHEMA == "attncheck.verdict/3" and rec["schema"] == SCHEMA
    assert rec["rows"][0]["at"] == AT and rec["rows"][0]["label"] == LABEL
    assert rec["design"] == {"pi": 0.3, "theta": 5.0} and rec["point"] == {}


def test_the_design_line_in_each_format():
    v = _verdict({"setting": {"pi": 0.3, "theta": 5.0}})
    assert report_labels.design_line(v) == "design point: π₊ = 0.3, θ = 5"
    assert report_labels.design_line(v, "tex") == r"design point: $\pi_{+} = 0.3$, $\theta = 5$"
    assert "<math" in report_labels.design_line(v, "html")
    # named groups of points, one line
    v = _verdict({"params": {"L=10": {"L": 10, "pi": 0.4}, "L=4": {"L": 4, "pi": 0.5}}})
    assert report_labels.design_line(v) == "design point: L=10: L = 10, π₊ = 0.4; L=4: L = 4, π₊ = 0.5"
    # the user's point wins, and says so
    v = _verdict({"setting": {"pi": 0.3}}, params=(("alpha0", 2.0),))
    assert report_labels.design_line(v) == "point: α₀ = 2"
    assert report_labels.design_line(_verdict()) == ""


def test_the_notebook_and_the_report_show_the_notation_and_the_design():
    from numerics import report

    v = _verdict({"setting": {"pi": 0.3}})
    page = v._repr_html_()
    assert "design point: " in page and "a0=3" not in page and page.count("<math") >= 3
    table = report._verdict_table(v)
    assert "a0=3" not in table and "<math" in table


def _design(settings, claim):
    return ([Comparison("E at a0=3", 1.0, 1.0, 0.1, at={"a0": 3}),
             Comparison("E at lam=2", 1.0, 1.0, 0.1, at={"lam": 2})], {},
            {"setting": {"pi": 0.3, "theta": 5.0}})


@pytest.fixture
def toy(monkeypatch):
    toys = {"T.design": Claim("T.design", "A", "toy", "a toy at a design point", _design)}
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 1)
    monkeypatch.setattr(registry, "claims", lambda: toys)
    monkeypatch.setattr(registry, "claim_index", lambda: [registry._describe(c) for c in toys.values()])
    return CliRunner()


def test_verify_prints_the_notation_and_the_design_line(toy):
    from numerics.cli import main

    out = toy.invoke(main, ["verify", "T.design", "-v", "--no-cache"])
    assert out.exit_code == 0, out.output
    assert "    design point: π₊ = 0.3, θ = 5" in out.output
    assert "E at α₀ = 3" in out.output and "E at λ = 2" in out.output and "a0=3" not in out.output
    rec = json.loads(toy.invoke(main, ["verify", "T.design", "--json", "--no-cache"]).output)
    assert [r["at"] for r in rec["rows"]] == [{"a0": 3}, {"lam": 2}]
    assert [r["label"] for r in rec["rows"]] == ["E at a0=3", "E at lam=2"]  # the stable keys
    assert rec["design"] == {"pi": 0.3, "theta": 5.0}
