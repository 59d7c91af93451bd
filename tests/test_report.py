"""The verification report: self-contained (no external URL), every section present, and it
renders in headless Chromium with its math laid out and no console error."""
import html
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from numerics import report
from numerics.claims.base import Settings
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


def test_figures_are_inlined(monkeypatch):
    def toy_figure(path, settings, progress):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.plot([0, 1], [0, 1])
        plt.savefig(path)
        plt.close()

    monkeypatch.setattr(registry, "figures", lambda: {"T.fig": toy_figure})
    assert report._figure_png("T.fig", Settings()).startswith("iVBOR")  # a PNG, base64


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
    monkeypatch.setattr(report, "pdflatex", lambda: None)
    out = CliRunner().invoke(cli.main, ["report", "B.kl.bound", "-o", str(tmp_path / "r.pdf")])
    assert out.exit_code == 2 and "texlive-latex-base" in out.output
    assert len(out.output.strip().splitlines()) == 1 and not (tmp_path / "r.pdf").exists()


@pytest.mark.skipif(shutil.which("pdflatex") is None or shutil.which("pdftotext") is None,
                    reason="needs pdflatex and pdftotext: apt-get install texlive-latex-base "
                           "texlive-latex-recommended texlive-fonts-recommended poppler-utils")
def test_report_pdf_through_latex_holds_the_claims(tmp_path):
    from click.testing import CliRunner

    from numerics.cli import main

    out = CliRunner().invoke(main, ["report", "A.thm1.linear_threshold", "B.kl.bound", "--no-figures",
                                    "--no-cache", "-o", str(tmp_path / "r.pdf")])
    assert out.exit_code == 0, out.output
    text = subprocess.run(["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True,
                          timeout=60).stdout
    for needle in ("A.thm1.linear", "B.kl.bound", "Mutation power", "Certified", "Provenance", "killed"):
        assert needle in text, needle


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
