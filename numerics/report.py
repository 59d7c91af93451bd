"""The verification report: one self-contained HTML file (``attncheck report``).

Per claim: statement (and its display), status and reference; its derivation as the chain of
its named steps, printed by the LaTeX document's printer and layout and converted to MathML
(latex2mathml: no script, no font or CDN needed, browsers render it natively), each step once
per page; the verdict table
(theory, experiment ± se, tolerance, z); the mutation power (each structural mutant and the
±5 % output scaling); the automatic mutants of every step (``numerics.report_mutate``: the
results ``attncheck mutate`` recorded); the claim's figure, where one exists, as an inline PNG; and the
provenance of the run (seed, seed paths, package versions, git commit, machine, times) as a
table.  Nothing in the file refers to anything outside it.  The PDF is the same content typeset
by pdflatex (``numerics.report_latex``), or the HTML printed by headless Chromium.

The content is computed once for every format (``numerics.report_content.collect``).  A claim names its own
figures (``Claim.figures``; a plugin registers its figures as the built-in papers do, a
``FIGURES`` dict next to its claims).  Each figure is embedded once, with the first claim that
uses it; later claims link to it.
"""
from __future__ import annotations

import html

from numerics.report_content import PROVENANCE_NAMES, _killed, _provenance_text, _tally, _tolerance_note, collect
from numerics.report_labels import design_line
from numerics.report_tables import power_table, render as render_table, verdict_table
from numerics.report_math import _equations_html, _statement_html, _statement_prose_html, prose_html  # noqa: F401

CSS = """
body{font-family:system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem} h2{font-size:1.15rem;margin-top:2.2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem} td,th{padding:.15rem .5rem;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left} table.text td,table.text th{text-align:left} .pass{color:#176117;font-weight:600} .fail{color:#a11;font-weight:600}
.eq{margin:.6rem 0 .6rem 1rem} .eq math[display=block]{display:block;overflow-x:auto;overflow-y:hidden;padding:.35em 0;max-width:100%}
.eq p.note{margin:.1rem 0} .note{color:#555;font-size:.85rem} img{max-width:100%}
code{background:#f4f4f4;padding:0 .2rem} p.claim-id{margin:.2rem 0 .6rem;font-size:.8rem;color:#555}
@page{margin:1.5cm} @media print{body{max-width:none;margin:0;padding:0} .eq math{overflow:visible} table,img{break-inside:avoid}}
"""

# after load: count the <math> elements that were laid out (non-zero width); tests read it
CHECK = """
window.addEventListener('load',function(){var m=document.getElementsByTagName('math'),ok=0;
for(var i=0;i<m.length;i++){if(m[i].getBoundingClientRect().width>0){ok++;}}
document.body.setAttribute('data-math-total',m.length);document.body.setAttribute('data-math-rendered',ok);});
"""


def _verdict_table(v) -> str:
    return render_table(verdict_table(v), "html")


def _power_table(p) -> str:
    rel = [d["relative"] for d in p.detectable if d["relative"] is not None]
    note = (f"<p class='note'>smallest relative error of the theory each row detects: "
            f"{min(rel):.2g} to {max(rel):.2g}</p>") if rel else ""
    return render_table(power_table(p), "html") + note


def _certified_table(cert) -> str:
    """A certificate (``numerics.theory.certify.at_defaults``) as a table, or nothing."""
    if cert is None:
        return ""
    at = ", ".join(f"{k}={v}" for k, v in cert.params.items())
    if cert.balls is None:
        return f"<h3>Certified values</h3><p class='note'>not certified at {html.escape(at)}: {html.escape(cert.error)}</p>"
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td><code>{html.escape(b.digits)}</code></td>"
                   f"<td><code>[{html.escape(b.mid)} ± {html.escape(b.rad)}]</code></td></tr>"
                   for k, b in cert.balls.items())
    return (f"<h3>Certified values</h3><p class='note'>ball arithmetic (python-flint), width ≤ "
            f"10<sup>-{cert.digits - 3}</sup>, at the default parameters {html.escape(at)} "
            f"(<code>attncheck eval {html.escape(cert.claim_id)} --certify</code>)</p>"
            f"<table class='text'><tr><th>value</th><th>certified digits</th><th>enclosure</th></tr>{rows}</table>")


def build(claims, settings, **kw) -> str:
    """The report's HTML for ``claims`` (evidence from the verdict cache where recorded)."""
    return html_page(*collect(claims, settings, **kw), settings, kw.get("use_cache", True))


def html_page(entries, prov, settings, use_cache: bool = True) -> str:
    from numerics.latex import Document, title
    from numerics.report_mutate import score_cell, section_html

    doc = Document()  # each step shown once on the page
    parts, summary, shown = [], [], {}
    for e in entries:
        claim, v, p = e.claim, e.verdict, e.power
        word = v.word  # PASS, FAIL or ERROR (the claim raised: never a pass)
        css = "pass" if v.passed else "fail"
        summary.append(f"<tr><td><a href='#{html.escape(claim.id)}'>{html.escape(title(claim))}</a></td>"
                       f"<td><code>{html.escape(claim.id)}</code></td><td>{claim.status}</td><td class='{css}'>{word}</td><td>{_killed(p)}</td>"
                       f"<td>{score_cell(e.automatic)}</td></tr>")
        sec = [f"<h2 id='{html.escape(claim.id)}'>{html.escape(title(claim))} "
               f"<span class='{css}'>{word}</span></h2>",
               f"<p class='claim-id'><code>{html.escape(claim.id)}</code></p>",
               _statement_prose_html(claim), _statement_html(claim),
               f"<p class='note'>status <b>{claim.status}</b> · {html.escape(claim.reference)}</p>"]
        eqs = _equations_html(claim, doc)
        if eqs:
            sec.append("<h3>Equations</h3>")
            sec += eqs
        sec += ["<h3>Verdict</h3>",
                f"<p class='fail'>{html.escape(v.error)}</p>" if v.error else _verdict_table(v),
                f"<p class='note'>{design_line(v, 'html')}</p>" if design_line(v) else "",
                f"<p class='note'>{html.escape(claim.allowance_note)}</p>" if claim.allowance_note else "",
                f"<p class='note'>{html.escape(_tolerance_note(v, e.cached))}</p>"]
        if p is not None:
            sec += ["<h3>Mutation power</h3>", _power_table(p)]
        sec.append(section_html(claim, e.automatic, use_cache))
        sec.append(_certified_table(e.certificate))
        for fid, png in e.figures:
            if fid not in shown:  # each figure embedded once, where first used
                shown[fid] = claim.id
                sec.append(f"<h3 id='figure-{html.escape(fid)}'>Figure {html.escape(fid)}</h3>"
                           f"<img alt='{html.escape(fid)}' src='data:image/png;base64,{png}'>")
            else:
                sec.append(f"<p class='note'>Figure: <a href='#figure-{html.escape(fid)}'>"
                           f"{html.escape(fid)}</a> (shown with {html.escape(shown[fid])})</p>")
        parts.append("\n".join(sec))
    prov_rows = "".join(f"<tr><th>{html.escape(PROVENANCE_NAMES.get(k, k))}</th>"
                        f"<td>{html.escape(_provenance_text(val))}</td></tr>" for k, val in prov.items())
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<title>attncheck verification report</title>"
        f"<style>{CSS}</style><script>{CHECK}</script></head><body>"
        f"<h1>attncheck verification report</h1><p class='note'>{len(parts)} claims ({_tally(entries)}), {settings.mode} mode, "
        f"seed {settings.seed}</p>"
        f"<table class='text'><tr><th>claim</th><th>id</th><th>status</th><th>verdict</th><th>mutants killed</th><th>automatic mutants</th></tr>{''.join(summary)}</table>"
        + "\n".join(parts)
        + f"<h2>Provenance</h2><table class='text provenance'>{prov_rows}</table></body></html>"
    )


# --- PDF: the HTML printed by headless Chromium (numerics.report_chromium) -----------------------
from numerics.report_chromium import CHROMIUM_FLAGS, chromium, to_pdf  # noqa: F401
