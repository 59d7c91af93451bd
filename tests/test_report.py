"""The verification report: self-contained (no external URL), every section present, and it
renders in headless Chromium with its math laid out and no console error."""
import html
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from numerics import report, report_assets, report_content, report_latex
from numerics.claims.base import Settings
from numerics.report_labels import render_label
from numerics import registry

EXAMPLE = str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "ridge_claim.py")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def html_report():
    registry.add_claims_file(EXAMPLE)
    try:
        claims = registry.select(["B.kl.bound", "X.ridge.test_error"])
        yield report.build(claims, Settings(), with_figures=False, use_cache=False)
    finally:
        registry.EXTRA_FILES.remove(EXAMPLE)
        registry.claims.cache_clear()


def test_report_is_self_contained_and_complete(html_report):
    assert not re.search(r"""(src|href)=['"]?(https?:)?//""", html_report)
    assert "http" not in html_report
    for section in ("Equations", "Verdict", "Mutation power", "Provenance", "<math", "X.ridge.variance:no-gamma"):
        assert section in html_report, section


def toy_figure(path, settings, progress):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.plot([0, 1], [0, 1])
    plt.savefig(path)
    plt.close()


def test_figures_are_inlined(monkeypatch):
    monkeypatch.setattr(registry, "figures", lambda: {"T.fig": toy_figure})
    assert report_assets._figure_png("T.fig", Settings()).startswith("iVBOR")  # a PNG, base64


@pytest.mark.skipif(CHROMIUM is None, reason="needs headless Chromium: apt-get install chromium")
def test_report_renders_in_headless_chromium(html_report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(html_report, encoding="utf-8")
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=5000", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    body = re.search(r"<body[^>]*>", dom.stdout).group(0)
    total = int(re.search(r'data-math-total="(\d+)"', body).group(1))
    rendered = int(re.search(r'data-math-rendered="(\d+)"', body).group(1))
    assert total > 0 and rendered == total, body
    console = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln]
    assert not console, console
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1200,2000", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("ATTNCHECK_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, keep)


@pytest.mark.skipif(CHROMIUM is None or shutil.which("pdftotext") is None,
                    reason="needs headless Chromium and pdftotext: apt-get install chromium poppler-utils")
def test_report_pdf_holds_the_claims(tmp_path):
    from click.testing import CliRunner

    from numerics.cli import main

    out = CliRunner().invoke(main, ["report", "B.kl.bound", "--no-figures", "--no-power", "--no-cache",
                                    "-o", str(tmp_path / "r.html"), "--pdf", "--pdf-engine", "chromium"])
    assert out.exit_code == 0, out.output
    pdf = tmp_path / "r.pdf"
    assert (tmp_path / "r.html").exists() and pdf.read_bytes()[:5] == b"%PDF-"
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, timeout=60).stdout
    assert "B.kl.bound" in text and "Provenance" in text


def test_report_pdf_without_chromium_is_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from numerics import cli

    monkeypatch.setattr(report, "chromium", lambda: None)
    out = CliRunner().invoke(cli.main, ["report", "B.kl.bound", "-o", str(tmp_path / "r.pdf"), "--pdf-engine", "chromium"])
    assert out.exit_code == 2 and "apt-get install chromium" in out.output
    assert len(out.output.strip().splitlines()) == 1 and not (tmp_path / "r.pdf").exists()
    monkeypatch.setattr(report_latex, "pdflatex", lambda: None)
    out = CliRunner().invoke(cli.main, ["report", "B.kl.bound", "-o", str(tmp_path / "r.pdf")])
    assert out.exit_code == 2 and "texlive-latex-base" in out.output
    assert len(out.output.strip().splitlines()) == 1 and not (tmp_path / "r.pdf").exists()


LATEX = shutil.which("pdflatex") is not None and shutil.which("pdftotext") is not None
needs_latex = pytest.mark.skipif(not LATEX, reason="needs pdflatex and pdftotext: apt-get install texlive-latex-base "
                                                   "texlive-latex-recommended texlive-fonts-recommended poppler-utils")
BOTH = ["report", "A.thm1.linear_threshold", "B.kl.bound", "--no-figures"]


@pytest.fixture(scope="module")
def both_formats(tmp_path_factory):
    """``report ... -o r.html -o r.pdf`` run once (its own verdict cache folder), counting the
    computations: ``(folder, result, number of collect calls)``."""
    from click.testing import CliRunner

    from numerics.cli import main
    from numerics.core import cache

    folder = tmp_path_factory.mktemp("both")
    calls = []
    real = report_content.collect
    mp = pytest.MonkeyPatch()
    mp.setenv(cache.ENV, str(folder / "cache"))
    mp.setattr(report_content, "collect", lambda *a, **k: calls.append(1) or real(*a, **k))
    try:
        out = CliRunner().invoke(main, [*BOTH, "-o", str(folder / "r.html"), "-o", str(folder / "r.pdf")])
    finally:
        mp.undo()
    return folder, out, len(calls)


@needs_latex
def test_html_and_pdf_come_from_one_computation(both_formats):
    folder, out, calls = both_formats
    assert out.exit_code == 0, out.output
    assert calls == 1
    assert (folder / "r.html").exists() and (folder / "r.pdf").read_bytes()[:5] == b"%PDF-"
    text = subprocess.run(["pdftotext", str(folder / "r.pdf"), "-"], capture_output=True, text=True,
                          timeout=60).stdout
    for needle in ("A.thm1.linear", "B.kl.bound", "Mutation power", "Certified", "Provenance", "killed",
                   "git commit", "package versions"):
        assert needle in text, needle
    # progress without a terminal: one plain line per claim, saying what it computes and how long
    # that is expected to take (nothing is cached or timed in the fixture's fresh folder)
    assert "report [1/2] A.thm1.linear_threshold: verdict computed (" in out.output
    assert "report [2/2] B.kl.bound: verdict computed (" in out.output
    assert "power: computing" in out.output and "from the claim's own run time)" in out.output
    assert "cached" not in out.output


@needs_latex
def test_a_cached_report_reruns_nothing(both_formats, monkeypatch):
    """The second report reads the evidence, the mutation power and the figures from the cache:
    no claim, mutant or figure runs again."""
    from click.testing import CliRunner

    from numerics.claims import power as power_module
    from numerics.cli import main
    from numerics.core import cache

    folder, first, _ = both_formats
    monkeypatch.setenv(cache.ENV, str(folder / "cache"))

    def rerun(*a, **k):
        raise AssertionError("a mutant ran again")

    monkeypatch.setattr(power_module, "power", rerun)
    out = CliRunner().invoke(main, [*BOTH, "-o", str(folder / "again.html")])
    assert out.exit_code == 0, out.output
    # told per claim what is reused, and nothing said to be cached is computed (power raises)
    assert "B.kl.bound: verdict cached; power cached" in out.output
    assert "A.thm1.linear_threshold: verdict cached; power cached" in out.output
    again, before = (folder / "again.html").read_text(), (folder / "r.html").read_text()
    assert "recorded evidence (cache)" in again
    for needle in ("<math", ">killed<", "<h2 id="):  # the same report
        assert again.count(needle) == before.count(needle), needle


@needs_latex
def test_pdf_tables_fit_and_no_heading_ends_a_page(both_formats, monkeypatch):
    """The PDF's tables are ragged-right columns that fit the line (pdflatex reports no overfull
    box), identifiers may break, and no page ends with a heading."""
    from numerics.core import cache

    folder, _, _ = both_formats
    monkeypatch.setenv(cache.ENV, str(folder / "cache"))  # the fixture's records: nothing recomputed

    entries, prov = report_content.collect(registry.select(BOTH[1:3]), Settings(), with_figures=False)
    tex = report_latex.latex_document(entries, prov, Settings(), {})
    assert not re.search(r"\{longtable\}\{[^\n]*\bp\{", tex), "a justified p-column"
    work = folder / "tex"
    work.mkdir()
    (work / "r.tex").write_text(tex)
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "r.tex"], cwd=work, capture_output=True, timeout=300)
    log = (work / "r.log").read_text(errors="replace")
    assert "Overfull \\hbox" not in log, [ln for ln in log.splitlines() if "Overfull" in ln][:3]
    pages = subprocess.run(["pdftotext", "-layout", str(work / "r.pdf"), "-"], capture_output=True, text=True,
                           timeout=60).stdout.split("\f")
    for page in pages[:-1]:
        last = [ln.strip() for ln in page.splitlines() if ln.strip() and not ln.strip().isdigit()]
        assert last and not re.match(r"(Verdict: (PASS|FAIL)|Mutation power|Figure|Provenance)$", last[-1]), last[-3:]


def test_each_figure_is_embedded_once(monkeypatch):
    """Claims that share a figure show it once; the others link to it."""
    monkeypatch.setattr(registry, "figures", lambda: {"T.fig": toy_figure})
    monkeypatch.setattr(report_content, "figures_of", lambda claim: ("T.fig",))
    page = report.build(registry.select(["B.kl.bound", "A.thm1.linear_threshold"]), Settings(), with_power=False)
    assert page.count("data:image/png;base64,") == 1
    assert "href='#figure-T.fig'" in page
    prov = page.split("<h2>Provenance</h2>", 1)[1]
    assert "<th>git commit</th>" in prov and "<th>package versions</th>" in prov


def test_every_paper_has_figures_each_claim_names_its_own():
    """A claim's figures are named by the claim and registered (no central map); every paper's
    report has at least one."""
    from numerics.claims.runner import built_in

    table = registry.figures()
    named = {c.id: tuple(c.figures) for c in registry.claims().values()}
    for cid, figs in named.items():
        assert all(f in table for f in figs), (cid, figs)
    for paper in registry.papers():
        if any(built_in(c) for c in paper.get_claims()):  # attncheck's own papers
            assert any(c.figures for c in paper.get_claims()), paper.prefix
    assert "C.phase" in named["C.transition"]


def test_a_plugin_figure_is_registered_and_reported(monkeypatch):
    """A claim file registers its figures as the built-in papers do (a FIGURES dict); its
    claim names it, and the report shows it (drawn from the experiment's memo)."""
    added = EXAMPLE not in registry.EXTRA_FILES  # (the module's fixture may hold it)
    registry.add_claims_file(EXAMPLE)
    try:
        assert "X.ridge.curve" in registry.figures()
        page = report.build(registry.select(["X.ridge.test_error"]), Settings(), with_power=False, use_cache=False)
        assert "<h3 id='figure-X.ridge.curve'>" in page and page.count("data:image/png;base64,") == 1
    finally:
        if added:
            registry.EXTRA_FILES.remove(EXAMPLE)
        registry.claims.cache_clear()
        registry.figures.cache_clear()


def test_a_certified_row_is_shown_apart():
    from numerics.claims.base import Comparison, Evidence, judge

    stat = Comparison("α₀ = 3", 1.0, 1.01, 0.01)
    cert = Comparison("certified (30 digits)", 0.0, 0.4, 0.0, 1.0, 2,
                      certified="k: ball [1.5 ± 1e-29] contains the independent value 1.5 (60 digits)")
    v = judge(Evidence("X", [stat, cert], Settings()))
    table = report._verdict_table(v)
    assert table.count("<tr>") == 2 and "0.4" not in table  # the score is not shown as a number
    assert "<b>Certified</b>" in table and "contains the independent value 1.5 (60 digits)" in table
    assert "Bonferroni over 1 statistical rows" in report_content._tolerance_note(v, True)


def test_certifiable_claims_show_their_certified_digits():
    from numerics import registry as reg

    from numerics.theory.certify import at_defaults

    table = report._certified_table(at_defaults(reg.claim("A.thm1.linear_threshold")))
    assert "Certified values" in table and "±" in table and "not certified" not in table
    assert at_defaults(reg.claim("B.kl.bound")) is None  # not certifiable: no section
    assert report._certified_table(None) == ""


def test_equations_are_math_in_the_papers_notation(html_report):
    """Every equation, a LaTeX-named left side too, is MathML from the one LaTeX printer: no
    LaTeX name flattened into one identifier (``fracE|Rh[X]...``), no LaTeX source shown; the
    provenance is text, not a Python repr; numbers carry a true minus sign."""
    assert "fracE" not in html_report and "\\frac" not in html_report
    flat = [m for m in re.findall(r"<mi>([^<]*)</mi>", html.unescape(html_report)) if len(m) > 3]
    assert not flat, flat[:5]
    assert "𝔼" in html_report or "&#x1D53C;" in html_report  # the expectation, one way
    prov = html_report.split("<h2>Provenance</h2>", 1)[1]
    body = html_report.split("<body>", 1)[1]
    assert "{'" not in prov and "('" not in body and "['" not in body
    assert "KL(P" not in html_report.split("<h3>Verdict</h3>")[0].split("<h3>Equations</h3>", 1)[-1]
    assert not re.search(r"<td>-\d", html_report), "a hyphen for a minus sign"


def test_a_figure_label_survives_latex():
    from numerics.report_latex import _fig_label

    # an underscore, escaped for LaTeX, inside a label stops pdflatex (Missing endcsname)
    assert _fig_label("A.sharp_threshold") == "fig:A.sharp-threshold"


def test_a_row_label_with_math_is_rendered_not_shown_as_source():
    """A curve's label ``attention, $\\eta_q\\beta = 50$`` is MathML in the HTML and math in the
    LaTeX report, never its source as text."""
    label = r"attention, $\eta_q\beta = 50$"
    page = render_label(label, "html")
    assert "<math" in page and "\\" not in page and "$" not in page
    assert render_label(label, "tex") == r"attention, $\eta_q\beta = 50$"
    assert render_label("a_b & c", "tex") == r"a\_b \& c"


# --- the automatic mutants (attncheck mutate) ------------------------------------------------------
PLANTED = str(pathlib.Path(__file__).resolve().parent / "data" / "planted_blind_claim.py")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """The planted claim (one term its rows cannot see) and B.kl.bound, in a fresh verdict cache
    where ``attncheck mutate`` recorded the planted claim's mutants only: ``(claims, result)``."""
    from derivations.core import derivation_caches_restored
    from numerics.claims.mutate import mutate
    from numerics.core import cache

    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    registry.add_claims_file(PLANTED)
    try:
        claims = registry.select(["T.blind", "B.kl.bound"])
        with derivation_caches_restored():
            yield claims, mutate(claims[0], Settings())
    finally:
        registry.EXTRA_FILES.remove(PLANTED)
        registry.claims.cache_clear()


def _survivor_divs(page: str) -> list:
    return re.findall(r"<div class='eq survivor'>.*?</div>", page, re.S)


def test_the_report_shows_the_recorded_automatic_mutants(planted):
    claims, r = planted
    assert r.survivors and not r.sampled
    page = report.build(claims, Settings(), with_power=False, with_figures=False)
    blind = page[page.index("<h2 id='T.blind'"):page.index("<h2 id='B.kl.bound'")]
    kl = page[page.index("<h2 id='B.kl.bound'"):page.index("<h2>Provenance")]
    assert "<h3>Automatic mutants</h3>" in blind and "<h3>Automatic mutants</h3>" in kl
    # the score line and the table per step (generated, run, each status, the score)
    from numerics.claims.mutate import summary

    assert html.escape(summary(r)) in blind and "recorded by attncheck mutate" in blind
    counts = [r.count(s) for s in ("equivalent", "not applied", "timed out", "below resolution", "killed", "survived")]
    for step in ("T.blind.f", "all steps"):
        cells = re.search(rf"<tr><td><code>{re.escape(step)}</code></td>(.*?)</tr>", blind).group(1)
        assert re.findall(r"<td>([^<]*)</td>", cells) == [str(r.generated), str(len(r.outcomes)),
                                                           *map(str, counts), f"{100 * r.score:.1f} %"]
    # each survivor as a reviewer says it: step, operator, change, the row moved most, the point of
    # the domain moved most, and the mutated step as MathML of the one printer's LaTeX
    divs = _survivor_divs(blind)
    assert len(divs) == len(r.survivors)
    for div, o in zip(divs, r.survivors):
        assert f"step <code>{o.step}</code>, operator <code>{o.operator}</code>" in div
        assert f"moves row {render_label(o.row, 'html', o.row_at)} most" in div  # its point in the papers' notation
        assert "moves the theory most at <code>f</code> at x=" in div and "eps=" in div
        assert "<math display=\"block\">" in div
    dropped = next(d for d, o in zip(divs, r.survivors) if o.latex == "x^{2}")
    assert "dropped" in dropped and "<msup><mi>x</mi>" in dropped
    # nothing recorded for B.kl.bound: said, with how to record it; the report ran no mutant
    assert "not run yet at these settings: <code>attncheck mutate B.kl.bound</code> records them" in kl
    assert "<code>report --automatic-mutants</code> runs the missing ones" in kl
    summary_row = re.search(r"<tr><td><a href='#B.kl.bound'>.*?</tr>", page).group(0)
    assert summary_row.endswith("<td>not run</td></tr>")
    assert re.search(r"<tr><td><a href='#T.blind'>.*?<td>57.9 %</td></tr>", page) or f"{100 * r.score:.1f} %" in page


def test_a_sampled_score_carries_its_interval(planted):
    from dataclasses import replace

    from numerics.core.stats import binomial_interval
    from numerics.report_mutate import section_html

    claims, r = planted
    s = replace(r, sampled=True)
    lo, hi = binomial_interval(s.count("killed"), s.counted)
    page = section_html(claims[0], s, True)
    assert "<th>score (95 % interval)</th>" in page
    assert f"{100 * s.score:.1f} % ({100 * lo:.1f}–{100 * hi:.1f} %)" in page
    assert "not read: --no-cache" in section_html(claims[0], None, False)


def test_report_runs_the_automatic_mutants_only_when_asked(planted, tmp_path):
    """By default the report reads the records of ``attncheck mutate`` and says per claim which
    are missing; ``--automatic-mutants`` runs the missing ones (and records them)."""
    from click.testing import CliRunner

    from numerics.cli import main

    claims, _ = planted
    out = CliRunner().invoke(main, ["report", "B.kl.bound", "--claims", PLANTED, "T.blind", "--no-power",
                                    "--no-figures", "-o", str(tmp_path / "a.html")])
    assert out.exit_code == 0, out.output
    assert "B.kl.bound: verdict computed" in out.output and "automatic mutants not run (attncheck mutate B.kl.bound)" in out.output
    assert "T.blind: verdict computed" in out.output and "automatic mutants recorded" in out.output
    runner = CliRunner()
    ran = []
    import numerics.claims.mutate as mutation

    real = mutation.mutate
    mp = pytest.MonkeyPatch()
    mp.setattr(mutation, "mutate", lambda claim, settings, **kw: ran.append(claim.id) or real(claim, settings, sample=5, **kw))
    try:
        out = runner.invoke(main, ["report", "T.blind", "--claims", PLANTED, "B.kl.bound", "--no-power", "--no-figures",
                                   "--automatic-mutants", "-o", str(tmp_path / "b.html")])
    finally:
        mp.undo()
    assert out.exit_code == 0, out.output
    assert "B.kl.bound: verdict cached; automatic mutants: running a sample of up to 100 (not timed yet)" in out.output
    assert ran == ["B.kl.bound"]  # the recorded one is read
    page = (tmp_path / "b.html").read_text()
    kl = page[page.index("<h2 id='B.kl.bound'"):page.index("<h2>Provenance")]
    assert "over a sample of 5 of" in kl and "<th>score (95 % interval)</th>" in kl


@needs_latex
def test_the_pdf_shows_the_automatic_mutants(planted, tmp_path):
    claims, r = planted
    entries, prov = report_content.collect(claims, Settings(), with_power=False, with_figures=False)
    tex = report_latex.latex_document(entries, prov, Settings(), {})
    assert tex.count("\\fitmath{") == len(r.survivors) and "\\fitmath{x^{2}}" in tex
    (tmp_path / "r.tex").write_text(tex)
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "r.tex"], cwd=tmp_path, capture_output=True, timeout=300)
    log = (tmp_path / "r.log").read_text(errors="replace")
    assert "Overfull \\hbox" not in log, [ln for ln in log.splitlines() if "Overfull" in ln][:3]
    text = subprocess.run(["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True,
                          timeout=60).stdout
    text = " ".join(text.split())
    for needle in ("Automatic mutants", "all steps", "survived: step T.blind.f, operator drop",
                   "moves the theory most at f at x=2, eps=0.5, by 20 %", "attncheck mutate B.kl.bound records them",
                   "with --all"):
        assert needle in text, needle
    assert text.count("survived: step") == len(r.survivors)


def test_a_long_mutated_step_is_shown_by_its_changed_part(planted):
    """A survivor of a step too long to print on a line: the HTML shows the changed part and the
    step folded; the PDF shows the changed part and says where the step is."""
    from dataclasses import replace

    from numerics.report_mutate import TEX_LIMIT, section_html, section_tex

    claims, r = planted
    o = next(o for o in r.survivors if o.node_latex)
    long = replace(o, latex=" + ".join([o.latex] * (TEX_LIMIT // len(o.latex) + 1)))
    m = replace(r, outcomes=[long])
    page = section_html(claims[0], m, True)
    assert "the changed part now reads" in page and "<details><summary class='note'>the mutated step</summary>" in page
    tex = section_tex(claims[0], m, True)
    assert f"\\fitmath{{{o.node_latex}}}" in tex and f"{len(long.latex)} characters of LaTeX, in the HTML report" in tex
