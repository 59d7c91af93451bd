"""The LaTeX of claims' equations: a standalone document, a body for ``\\input``, or snippets.

One printer fixes the notation for every claim:

* the prior P(y = +1) is ``\\pi_{+}`` (a Symbol named ``pi`` or ``pi_+``), never confused with the
  constant ``\\pi`` (of the Gaussian density);
* the indicator and the ones-vector are ``\\mathbf{1}``;
* an equation wider than the line is broken: long sums over several lines (``multline``), and
  sub-expressions that are still too wide are named ``u_1, u_2, …`` in a "where" list printed
  right after the equation (SymPy's common-subexpression elimination picks them);
* every label is ``claim-id:equation-name``, unique in the document.

``tests/test_latex.py`` compiles the document of every claim with pdflatex and fails on a LaTeX
error, an overfull box or a multiply-defined label; snapshot tests pin the emitted LaTeX.
"""
from __future__ import annotations

import re

import sympy as sp
from sympy.printing.latex import LatexPrinter

#: the widest display line, in the printer's width units (about one character of 10 pt math)
LINE = 58.0
PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=2.5cm]{geometry}
\usepackage{amsmath,amssymb}
\allowdisplaybreaks
\setlength{\emergencystretch}{3em}
\sloppy
\title{attncheck: the equations of the checked claims}
\date{}
\begin{document}
\maketitle
"""


class AttnLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with the project's notation."""

    def _print_Symbol(self, expr, style="plain"):
        name = expr.name
        if name in ("pi", "pi_+", "pi_plus"):
            return r"\pi_{+}"
        if r"\mathbb{1}" in name:
            return name.replace(r"\mathbb{1}", r"\mathbf{1}")
        return super()._print_Symbol(expr, style=style)


def latex(expr) -> str:
    return AttnLatexPrinter({"mul_symbol": None}).doprint(expr)


def width(expr) -> float:
    """A rough printed width of ``expr`` (fractions stack, exponents are small)."""
    if isinstance(expr, sp.Add):
        return sum(width(a) for a in expr.args) + 2.0 * (len(expr.args) - 1)
    if isinstance(expr, sp.Mul):
        num, den = expr.as_numer_denom()
        if den != 1:
            return max(width(num), width(den)) + 1.0
        return sum(width(a) for a in expr.args) + 0.5 * (len(expr.args) - 1)
    if isinstance(expr, sp.Pow):
        if expr.exp == sp.Rational(1, 2):
            return width(expr.base) + 1.5
        if expr.exp.is_negative:
            return max(width(expr.base ** -expr.exp), 1.0) + 1.0
        return width(expr.base) + 0.6 * width(expr.exp) + (1.2 if isinstance(expr.base, (sp.Add, sp.Mul)) else 0)
    if isinstance(expr, sp.Function) or expr.args:
        inner = sum(width(a) for a in expr.args) + 1.0 * (len(expr.args) - 1)
        return inner + len(type(expr).__name__) * 0.8 + 1.5
    text = latex(expr)
    text = re.sub(r"\\(mathrm|mathbf|operatorname|left|right)", "", text)
    text = re.sub(r"\\[a-zA-Z]+", "x", text)
    return max(1.0, len(re.sub(r"[{}^_ ]", "", text)) * 0.9)


def _lines(lhs: str, rhs: sp.Expr) -> list[str]:
    """The right-hand side as display lines no wider than LINE (breaking a top-level sum)."""
    if not isinstance(rhs, sp.Expr) or isinstance(rhs, sp.MatrixExpr):
        return [latex(rhs)]
    terms = list(rhs.args) if isinstance(rhs, sp.Add) else [rhs]
    lines, cur, cur_w = [], [], 0.0
    for t in sorted(terms, key=sp.default_sort_key) if isinstance(rhs, sp.Add) else terms:
        w = width(t) + 2.0
        if cur and cur_w + w > LINE:
            lines.append(cur)
            cur, cur_w = [], 0.0
        cur.append(t)
        cur_w += w
    lines.append(cur)
    out = []
    for k, group in enumerate(lines):
        text = latex(sp.Add(*group, evaluate=False)) if len(group) > 1 else latex(group[0])
        if k and not text.lstrip().startswith("-"):
            text = "+ " + text
        out.append(text)
    return out


def _shrink(rhs: sp.Expr, names) -> tuple[sp.Expr, list[tuple[sp.Symbol, sp.Expr]]]:
    """Name sub-expressions until every term of ``rhs`` (and of every name) fits on a line.

    Each round names the sub-expression that saves the most width: the widest one that fits
    on a line, weighted by how often it occurs (a repeated piece is named once)."""
    where: list[tuple[sp.Symbol, sp.Expr]] = []

    def too_wide(e):
        return any(width(t) > LINE for t in (e.args if isinstance(e, sp.Add) else (e,)))

    for _ in range(12):
        pending = [e for e in [rhs] + [x for _, x in where] if too_wide(e)]
        if not pending:
            break
        counts: dict = {}
        for e in [rhs] + [x for _, x in where]:
            for a in sp.preorder_traversal(e):
                if a.args and not isinstance(a, sp.Symbol) and 8 <= width(a) <= LINE:
                    counts[a] = counts.get(a, 0) + 1
        inside = {a for e in pending for a in sp.preorder_traversal(e)}
        best = [a for a in counts if a in inside]
        if not best:
            break
        pick = max(best, key=lambda a: (width(a) * counts[a], -len(str(a))))
        sym = next(names)
        rhs = rhs.xreplace({pick: sym})
        where = [(s, x.xreplace({pick: sym})) for s, x in where] + [(sym, pick)]
    return rhs, where


def _symbols():
    k = 0
    while True:
        k += 1
        yield sp.Symbol(f"u_{{{k}}}")


def equation_latex(eq, label: str) -> str:
    """One equation as LaTeX: ``equation`` if it fits, else ``multline``, plus a "where" list."""
    lhs = latex(eq.lhs)
    rhs = eq.rhs
    where: list = []
    matrix = isinstance(rhs, sp.MatrixBase) or rhs.has(sp.MatrixSymbol) or not isinstance(rhs, sp.Expr)
    if not matrix and width(eq.lhs) + width(rhs) + 2 > LINE:
        rhs, where = _shrink(rhs, _symbols())
    lines = _lines(lhs, rhs)
    if len(lines) == 1 and width(eq.lhs) + width(rhs) + 2 <= LINE + 6:
        body = f"\\begin{{equation}}\\label{{{label}}}\n{lhs} = {lines[0]}\n\\end{{equation}}"
    else:
        joined = " \\\\\n".join(lines)
        body = f"\\begin{{multline}}\\label{{{label}}}\n{lhs} = {joined}\n\\end{{multline}}"
    if where:
        items = []
        for sym, e in where:
            sub = _lines(latex(sym), e)
            items.append(f"{latex(sym)} &= " + " \\\\\n  &\\quad ".join(sub))
        body += ("\n\\noindent where\n\\begin{align*}\n" + " \\\\\n".join(items) + "\n\\end{align*}")
    return body


def _tex_text(text: str) -> str:
    """Plain text (statements, references) escaped for LaTeX."""
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "|": r"$|$", "<": r"$<$", ">": r"$>$"}
    out = []
    for ch in text:
        if ch in repl:
            out.append(repl[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append(UNICODE_TEXT.get(ch, "?"))
    return "".join(out)


#: the non-ASCII characters statements use, as LaTeX (text mode)
UNICODE_TEXT = {
    "≤": r"$\le$", "≥": r"$\ge$", "≈": r"$\approx$", "→": r"$\to$", "×": r"$\times$", "±": r"$\pm$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "·": r"$\cdot$", "∞": r"$\infty$", "√": r"$\surd$",
    "‖": r"$\|$", "⟂": r"$\perp$", "²": r"$^2$", "³": r"$^3$", "≍": r"$\asymp$", "∝": r"$\propto$",
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "ε": r"$\varepsilon$",
    "η": r"$\eta$", "θ": r"$\theta$", "κ": r"$\kappa$", "λ": r"$\lambda$", "μ": r"$\mu$", "ν": r"$\nu$",
    "ξ": r"$\xi$", "π": r"$\pi$", "ρ": r"$\rho$", "σ": r"$\sigma$", "φ": r"$\phi$", "ψ": r"$\psi$",
    "ö": r"\"o", "é": r"\'e", "ω": r"$\omega$", "Φ": r"$\Phi$", "Σ": r"$\Sigma$", "Δ": r"$\Delta$", "∈": r"$\in$", "≠": r"$\ne$",
    "§": r"\S{}", "⁻": r"$^-$", "¹": r"$^1$", "⁰": r"$^0$", "′": "'", "“": "``", "”": "''", "’": "'",
}


def _label(claim_id: str, name: str) -> str:
    return f"{claim_id}:{re.sub(r'[^A-Za-z0-9.:+-]', '-', name)}"


def statement_latex(claim) -> str | None:
    """The claim's statement as one numbered display (label ``claim-id:statement``): a SymPy
    relation is printed by the project's printer, a LaTeX string as it is; several lines are
    stacked (``gathered``) under the one label."""
    eq = claim.get_statement_eq() if hasattr(claim, "get_statement_eq") else None
    if eq is None:
        return None
    items = eq if isinstance(eq, (tuple, list)) else (eq,)
    lines = []
    for item in items:
        text = item if isinstance(item, str) else latex(item)
        lines.extend(part.strip() for part in text.split("\\\\") if part.strip())
    body = lines[0] if len(lines) == 1 else ("\\begin{gathered}\n" + " \\\\\n".join(lines)
                                             + "\n\\end{gathered}")
    return f"\\begin{{equation}}\\label{{{_label(claim.id, 'statement')}}}\n{body}\n\\end{{equation}}"


def certified_latex(cert) -> str | None:
    """A certificate (``numerics.theory.certify.at_defaults``) as a list of certified digits;
    None for a claim without a certifier."""
    if cert is None:
        return None
    at = ", ".join(f"{k} = {v}" for k, v in cert.params.items())
    if cert.balls is None:
        return f"\\noindent\\textbf{{Certified}}: no certificate at {_tex_text(at)} ({_tex_text(cert.error)}).\n"
    items = "\n".join(f"\\item {_tex_text(k)}: $\\mathtt{{{b.digits}}}$" for k, b in cert.balls.items())
    return (f"\\noindent\\textbf{{Certified}} (ball arithmetic, radius $\\le 10^{{-{cert.digits - 3}}}$) at "
            f"{_tex_text(at)}:\n\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n")


def claim_section(claim, *, certified: bool = False, certificate=None) -> str:
    """The claim's section; with ``certified=True`` its certified digits at the defaults
    (``certificate``, computed here unless given)."""
    parts = [f"\\section*{{\\texttt{{{_tex_text(claim.id)}}}}}",
             f"\\noindent\\textbf{{Statement}}: {_tex_text(claim.statement)}\n"]
    stated = statement_latex(claim)
    if stated:
        parts.append(stated)
    parts.append(f"\\noindent\\textbf{{Status}}: {claim.status}. "
                 f"\\textbf{{Reference}}: {_tex_text(claim.reference)}.\n")
    if certified and certificate is None:
        from numerics.theory.certify import at_defaults

        certificate = at_defaults(claim)
    cert_text = certified_latex(certificate) if certified else None
    if cert_text:
        parts.append(cert_text)
    seen = set()
    for eq in claim.get_equations():
        label = _label(claim.id, eq.name)
        if label in seen:
            continue
        seen.add(label)
        note = f" ({_tex_text(eq.note)})" if eq.note else ""
        parts.append(f"\\paragraph{{\\texttt{{{_tex_text(eq.name)}}}}}{note}\n" + equation_latex(eq, label))
    return "\n\n".join(parts) + "\n"


def claims_latex(claims, *, standalone: bool = False, certified: bool = False) -> str:
    """The sections of ``claims``; a complete document with ``standalone=True``; with
    ``certified=True`` the certified digits of each certifiable claim at its defaults."""
    body = "\n".join(claim_section(c, certified=certified) for c in claims)
    return PREAMBLE + body + "\\end{document}\n" if standalone else body
