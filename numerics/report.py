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

``collect`` computes the content once for every format.  It reads the verdict cache, and records
next to it each claim's mutation power (``numerics.claims.power.cached_power``, the records
``verify --power`` fills too) and each figure's PNG (``_figure_png``), so a report of cached
claims reruns no claim, mutant or figure (the automatic mutants are read, computed only when
asked: ``report --automatic-mutants``); its progress says per claim what it reuses and what it
computes, with an estimate from the times recorded on this machine.  A claim names its own
figures (``Claim.figures``; a plugin registers its figures as the built-in papers do, a
``FIGURES`` dict next to its claims).  Each figure is embedded once, with the first claim that
uses it; later claims link to it.
"""
from __future__ import annotations

import html
import os
import platform
import time
from dataclasses import dataclass

from numerics.report_labels import design_line
from numerics.report_tables import power_table, render as render_table, verdict_table
from numerics.report_assets import _figure_png, figures_of, plan
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


def _label_html(label: str, at: dict | None = None) -> str:
    """A row label as HTML, its parameter point ``at`` in the papers' notation (``labels``)."""
    from numerics.report_labels import render_label

    return render_label(label, "html", at)


def _label_tex(label: str, at: dict | None = None) -> str:
    """A row label in the LaTeX report, its parameter point ``at`` in the papers' notation."""
    from numerics.report_labels import render_label

    return render_label(label, "tex", at)


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


#: the provenance table's row names
PROVENANCE_NAMES = {"mode": "mode", "seed": "seed", "dps": "digits (dps)", "versions": "package versions",
                    "commit": "git commit", "machine": "machine", "cpus": "CPUs", "python": "Python",
                    "generated": "generated", "seconds": "computed in (s)"}


def provenance(settings) -> dict:
    from numerics.core.cache import git_commit, versions

    return {"mode": settings.mode, "seed": settings.seed, "dps": settings.dps, "versions": versions(),
            "commit": git_commit(), "machine": platform.platform(), "cpus": os.cpu_count(),
            "python": platform.python_implementation() + " " + platform.python_version(),
            "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


@dataclass
class Entry:
    """One claim of the report: its verdict, mutation power and figures (``(id, PNG base64)``
    each, in the order the claim names them)."""

    claim: object
    verdict: object
    power: object | None
    cached: bool
    figures: list
    certificate: object | None  # numerics.theory.certify.Certificate at the defaults, or None
    #: the automatic mutants (numerics.claims.mutate.Mutation) recorded or computed, or None
    automatic: object | None = None


def collect(claims, settings, *, with_power: bool = True, with_figures: bool = True, use_cache: bool = True,
            with_automatic: bool = False, progress=None) -> tuple[list, dict]:
    """The report's content, whatever its format: ``(entries, provenance)``.  ``progress(claim,
    text)`` is told per claim, before its power and figures are computed, what is reused and what
    is computed (:func:`plan`).  The automatic mutants are those ``attncheck mutate`` recorded;
    ``with_automatic``: the missing ones are computed (``numerics.report_mutate``)."""
    from numerics.claims.base import judge
    from numerics.claims.power import cached_power
    from numerics.claims.runner import collect_all
    from numerics.report_mutate import find, plan as automatic_plan
    from numerics.theory.certify import at_defaults

    t0 = time.time()
    entries, figures_done = [], {}
    # one process: the mutants' theory (power) and the figures read the experiments from this
    # process's memo, which a pool's workers would not fill
    for claim, evidence, cached in collect_all(claims, settings, workers=1, use_cache=use_cache):
        v = judge(evidence, 0.0, claim)
        fids = figures_of(claim) if with_figures else ()
        if progress:
            progress(claim, plan(claim, settings, cached, evidence.elapsed_s, with_power=with_power, figures=fids,
                                 use_cache=use_cache, done=set(figures_done))
                     + "; " + automatic_plan(claim, settings, compute=with_automatic, use_cache=use_cache))
        p = cached_power(claim, settings, evidence, use_cache)[0] if with_power and claim.mutants else None
        for fid in fids:
            if fid not in figures_done:
                figures_done[fid] = _figure_png(fid, settings, use_cache)
        entries.append(Entry(claim, v, p, cached, [(f, figures_done[f]) for f in fids if figures_done[f]],
                             at_defaults(claim), find(claim, settings, compute=with_automatic, use_cache=use_cache)))
    prov = provenance(settings)
    prov["seconds"] = round(time.time() - t0, 1)
    return entries, prov


def _tally(entries) -> str:
    """How many verdicts passed, failed and raised (an error is never counted as passed)."""
    from collections import Counter

    n = Counter(e.verdict.status for e in entries)
    return ", ".join(f"{n[s]} {word}" for s, word in (("passed", "passed"), ("failed", "failed"), ("error", "errors"))
                     if n[s] or s == "passed")


def _killed(p) -> str:
    if p is not None and p.error:
        return "ERROR"
    return "" if p is None else f"{sum(m.killed for m in p.mutants)}/{len(p.mutants)}"


def _tolerance_note(v, cached) -> str:
    n = sum(not r.certified for r in v.rows)
    return (f"tolerance = z·se + allowance, z = {v.z_crit:.2f} (Bonferroni over {n} statistical rows); "
            f"{'recorded evidence (cache)' if cached else f'{v.elapsed_s:.1f} s'}; sizes {_provenance_text(v.sizes)}; "
            f"seed paths {_seed_paths_text(v.seed_paths[:6])}")


def build(claims, settings, **kw) -> str:
    """The report's HTML for ``claims`` (evidence from the verdict cache where recorded)."""
    return html_page(*collect(claims, settings, **kw), settings, kw.get("use_cache", True))


def _provenance_text(value) -> str:
    """A provenance value as readable text: ``numpy 2.1.3, sympy 1.13`` for a mapping, a list
    joined by commas; never a Python repr."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_provenance_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_provenance_text(v) for v in value)
    return "—" if value is None else str(value)


def _seed_paths_text(paths) -> str:
    """Seed paths (tuples of keys) as ``A.thm3/trial/3`` each."""
    return ", ".join("/".join(map(str, p)) if isinstance(p, (list, tuple)) else str(p) for p in paths)


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
