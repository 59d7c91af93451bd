"""The verification report typeset by pdflatex: the LaTeX driver of ``attncheck report --pdf``
and ``attncheck latex -o FILE.pdf``.

:func:`latex_document` lays out the content :func:`numerics.report_content.collect` computed (the claims'
sections of ``attncheck latex``, each verdict and power table from the one table renderer,
``numerics.report_tables``, the automatic mutants, the figures, the provenance);
:func:`typeset` runs pdflatex as often as its log asks.  The HTML page is ``numerics.report``'s.
"""
from __future__ import annotations

import base64
import os
import re
import tempfile

from numerics.report_content import PROVENANCE_NAMES, _killed, _provenance_text, _tally, _tolerance_note
from numerics.report_labels import design_line
from numerics.report_tables import breakable_tex, longtable, power_table, render as render_table, verdict_table

#: report-only preamble: tables of ragged-right columns sized as fractions of the line (they
#: always fit and never stretch a cell's words apart), and a heading that keeps its first lines
#: on its page (``\keepwithnext{space}``: a page break before the heading unless ``space`` remains);
#: ``\fitmath{tex}``: a formula on a line of its own, scaled down to the line where it is wider
REPORT_PREAMBLE = r"""\usepackage{graphicx,longtable,array}
\newcolumntype{L}[1]{>{\raggedright\arraybackslash}p{\dimexpr #1\linewidth-2\tabcolsep\relax}}
\newcolumntype{R}[1]{>{\raggedleft\arraybackslash}p{\dimexpr #1\linewidth-2\tabcolsep\relax}}
\newcommand{\keepwithnext}[1]{\par\penalty-100\begingroup\dimen0=#1\relax\dimen2=\pagegoal
  \advance\dimen2-\pagetotal\ifdim\dimen0>\dimen2\ifdim\dimen2>0pt\vfil\fi\penalty-10000\fi\endgroup}
\setlength{\LTpre}{2pt}\setlength{\LTpost}{4pt}
\newsavebox{\fitbox}\newlength{\fitwidth}
\newcommand{\fitmath}[1]{\par\noindent\hspace*{1.5em}\setlength{\fitwidth}{\linewidth}\addtolength{\fitwidth}{-1.5em}%
  \sbox{\fitbox}{$\displaystyle #1$}\ifdim\wd\fitbox>\fitwidth
  \resizebox{\fitwidth}{!}{\usebox{\fitbox}}\else\usebox{\fitbox}\fi\par}
"""


def _heading(text: str, space: str = "6\\baselineskip") -> str:
    """A run-in heading that is never the last line of its page."""
    return f"\\keepwithnext{{{space}}}\\paragraph{{{text}}}\\mbox{{}}\n"


def _fig_label(fid: str) -> str:
    """A figure's LaTeX label: letters, digits and dots only (an escaped ``\\_`` breaks
    ``\\label``: A.sharp_threshold)."""
    return "fig:" + re.sub(r"[^A-Za-z0-9.]", "-", fid)


def latex_document(entries, prov, settings, figure_files: dict, use_cache: bool = True) -> str:
    """The report as a LaTeX document: the claims' sections of ``attncheck latex`` (statement,
    statement equation, equations, certified digits) with the verdict table, the mutation
    power, the automatic mutants, the figure (``figure_files``: figure id -> PNG file name; each
    figure once, where it is first used, referred to later) and the provenance table."""
    from numerics.latex import PREAMBLE, Document, _tex_text, claim_section, title
    from numerics.report_mutate import score_cell, section_tex

    t = _tex_text
    pre = PREAMBLE.replace("\\usepackage{amsmath,amssymb}", "\\usepackage{amsmath,amssymb}\n" + REPORT_PREAMBLE)
    pre = pre.replace("the equations of the checked claims", "verification report")
    summary = longtable("claim & status & verdict & mutants killed & automatic", "L{0.44}L{0.14}L{0.12}L{0.15}L{0.15}",
                        [[f"{t(title(e.claim))} {{\\small{breakable_tex(e.claim.id)}}}", e.claim.status,
                          e.verdict.word if e.verdict.passed else f"\\textbf{{{e.verdict.word}}}", _killed(e.power),
                          t(score_cell(e.automatic))] for e in entries])
    doc = Document()  # each step printed once in the PDF, later uses refer to it
    parts = [f"\\noindent {len(entries)} claims ({_tally(entries)}), {settings.mode} mode, seed {settings.seed}.\n",
             summary]
    shown: dict = {}
    for e in entries:
        v, p = e.verdict, e.power
        parts += ["\\keepwithnext{12\\baselineskip}\n",
                  claim_section(e.claim, certified=True, certificate=e.certificate, doc=doc)]
        parts += [_heading(f"Verdict: {v.word}"),
                  f"\\textbf{{{t(v.error)}}}\n" if v.error else render_table(verdict_table(v), "tex"),
                  f"{{\\small {design_line(v, 'tex')}}}\n\n" if design_line(v) else "",
                  f"{{\\small {t(_tolerance_note(v, e.cached))}}}\n"]
        if e.claim.allowance_note:
            parts.append(f"{{\\small Allowance: {t(e.claim.allowance_note)}}}\n")
        if p is not None:
            parts += [_heading("Mutation power"), render_table(power_table(p), "tex")]
        parts.append(section_tex(e.claim, e.automatic, use_cache))
        for fid, _ in e.figures:
            if fid in figure_files and fid not in shown:  # the heading and its image on one page
                shown[fid] = e.claim.id
                parts.append(f"\\par\\noindent\\begin{{minipage}}{{\\linewidth}}\\paragraph{{Figure "
                             f"\\texttt{{{t(fid)}}}}}\\label{{{_fig_label(fid)}}}\\mbox{{}}\\par\\smallskip\\centering"
                             f"\\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]"
                             f"{{{figure_files[fid]}}}\\end{{minipage}}\n")
            elif fid in figure_files:
                parts.append(f"\\par{{\\small Figure \\texttt{{{t(fid)}}}: shown with {breakable_tex(shown[fid])}, "
                             f"page~\\pageref{{{_fig_label(fid)}}}.}}\n")
    prov_rows = [[t(PROVENANCE_NAMES.get(k, k)), t(_provenance_text(val))] for k, val in prov.items()]
    parts += ["\\keepwithnext{10\\baselineskip}\n\\section*{Provenance}\n",
              longtable("\\textbf{what} & \\textbf{value}", "L{0.22}L{0.78}", prov_rows)]
    return pre + "\n".join(parts) + "\\end{document}\n"


def pdflatex() -> str | None:
    """The pdflatex executable (Debian packages texlive-latex-base, -latex-recommended,
    -fonts-recommended), or None."""
    import shutil

    return shutil.which("pdflatex")


def to_latex_pdf(entries, prov, settings, pdf_path: str, *, timeout: float = 300.0, use_cache: bool = True) -> None:
    """Typeset the report with pdflatex (:func:`typeset`) into ``pdf_path``; raise RuntimeError
    if pdflatex is missing or fails."""
    files = {}
    for e in entries:
        for fid, png in e.figures:
            if fid not in files:
                files[fid] = (f"fig{len(files)}.png", base64.b64decode(png))
    tex = latex_document(entries, prov, settings, {fid: name for fid, (name, _) in files.items()}, use_cache)
    typeset(tex, pdf_path, files=dict(files.values()), timeout=timeout)


#: what pdflatex's log says while a cross-reference is still unresolved
_RERUN = ("Rerun to get", "Label(s) may have changed", "There were undefined references")


def typeset(tex: str, pdf_path: str, *, files: dict | None = None, timeout: float = 300.0) -> int:
    """Compile the LaTeX document ``tex`` (with ``files``: name -> bytes beside it) into
    ``pdf_path``, running pdflatex as often as its log asks (at most four passes), so that no
    reference is left as ``??``; the number of passes.  RuntimeError if pdflatex is missing,
    fails, or leaves a reference unresolved."""
    import shutil
    import subprocess

    exe = pdflatex()
    if exe is None:
        raise RuntimeError("a LaTeX PDF needs pdflatex: apt-get install texlive-latex-base "
                           "texlive-latex-recommended texlive-fonts-recommended")
    work = tempfile.mkdtemp(prefix="attncheck-tex-")
    try:
        for name, data in (files or {}).items():
            with open(os.path.join(work, name), "wb") as fh:
                fh.write(data)
        with open(os.path.join(work, "doc.tex"), "w", encoding="utf-8") as fh:
            fh.write(tex)
        for passes in range(1, 5):
            run = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=work,
                                 capture_output=True, text=True, timeout=timeout)
            with open(os.path.join(work, "doc.log"), errors="replace") as fh:
                log = fh.read()
            if run.returncode != 0:
                first = next((ln for ln in log.splitlines() if ln.startswith("!")), f"exit {run.returncode}")
                raise RuntimeError(f"pdflatex failed: {first[:200]}")
            if passes > 1 and not any(w in log for w in _RERUN):
                break
        else:
            raise RuntimeError("pdflatex left references unresolved after 4 passes")
        shutil.move(os.path.join(work, "doc.pdf"), pdf_path)
        return passes
    finally:
        shutil.rmtree(work, ignore_errors=True)
