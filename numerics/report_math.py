"""The report's math in HTML: each equation printed by the LaTeX document's printer and layout
and converted to MathML (latex2mathml; SymPy's MathML printer where it is missing), the
statements' prose with inline math, and the derivation chains once per page."""
from __future__ import annotations

import html

from derivations.core import in_its_papers_notation

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
          "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "psi": "ψ", "omega": "ω",
          "Phi": "Φ", "Sigma": "Σ", "Delta": "Δ", "Gamma": "Γ", "Omega": "Ω", "otimes": "⊗", "|": "‖",
          "infty": "∞", "cdot": "·", "top": "ᵀ", "perp": "⊥", "ell": "ℓ", "hat": "", "bar": "",
          "tilde": "", "mathbb": "", "mathbf": "", "mathrm": "", "operatorname": "", "text": "",
          "mathcal": "", "left": "", "right": "", ",": " ", ";": " ", "quad": " ", "langle": "⟨",
          "rangle": "⟩", "mid": "|", "le": "≤", "ge": "≥", "to": "→", "sqrt": "√", "sum": "Σ"}
_SUP = str.maketrans("0123456789+-()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ")
_SUB = str.maketrans("0123456789+-()", "₀₁₂₃₄₅₆₇₈₉₊₋₍₎")


def _readable(name: str) -> str:
    """A symbol name written in LaTeX (``\\mathrm{KL}(N(\\mu_1,\\sigma^2)...``) as plain Unicode
    text, so that the MathML printer shows it as one identifier instead of splitting it at
    every ``_`` and ``^``."""
    import re

    def script(m, table):
        body = m.group(1) or m.group(2)
        return body.translate(table) if all(ch in "0123456789+-()n" for ch in body) else body

    t = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", name)
    t = re.sub(r"\\([A-Za-z]+|\||,|;) ?", lambda m: _GREEK.get(m.group(1), m.group(1)), t)
    t = re.sub(r"\^\{([^{}]*)\}|\^(\w)", lambda m: script(m, _SUP), t)
    t = re.sub(r"_\{([^{}]*)\}|_(\w)", lambda m: script(m, _SUB), t)
    return t.replace("{", "").replace("}", "").replace("_", "").replace("^", "")


def _mathml(eq) -> str:
    """An equation as MathML by SymPy's presentation printer: the fallback of :func:`_math`."""
    import sympy as sp
    from sympy.printing.mathml import mathml

    lhs, rhs = eq.lhs, eq.rhs
    latex_named = {x: sp.Symbol(_readable(x.name)) for x in (lhs.free_symbols | rhs.free_symbols)
                   if isinstance(x, sp.Symbol) and ("\\" in x.name or "{" in x.name)}
    if latex_named:
        lhs, rhs = lhs.xreplace(latex_named), rhs.xreplace(latex_named)
    try:
        body = mathml(sp.Eq(lhs, rhs, evaluate=False), printer="presentation")
    except Exception:  # a printer gap must not lose the equation: show its LaTeX source
        return f"<code>{html.escape(eq.latex())}</code>"
    return f'<math display="block">{body}</math>'


def _math(tex: str, display: str = "block") -> str | None:
    """LaTeX (the project's one printer's output, or a statement) as MathML, or None if the
    converter (latex2mathml) is missing or cannot read it."""
    try:
        from latex2mathml.converter import convert
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    import re

    tex = re.sub(r"\\[bB]igg?[lr]?(?![A-Za-z])", "", tex)  # delimiter sizes: MathML stretches them itself
    try:
        # HTML needs no namespace on <math> (and the file names no address)
        return convert(tex, display=display).replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    except Exception:  # noqa: BLE001 - a converter gap falls back to the SymPy printer
        return None


def _equation_html(eq, rhs=None, names=None) -> str:
    """One equation as the LaTeX document lays it out (:func:`numerics.latex.equation_parts`:
    the same printer, line breaks and "where" list), each display line as MathML."""
    from numerics.latex import equation_parts

    lhs, lines, where = equation_parts(eq, rhs=rhs, names=names)
    rows = [f"{lhs} = {lines[0]}"] + [rf"\qquad {ln}" for ln in lines[1:]]
    for name, sub in where:
        rows += [f"{name} = {sub[0]}"] + [rf"\qquad {ln}" for ln in sub[1:]]
    out = [_math(r) for r in rows]
    if any(m is None for m in out):
        return _mathml(eq)
    if where:
        k = len(lines)
        out = out[:k] + ["<p class='note'>where</p>"] + out[k:]
    return "\n".join(out)


#: the LaTeX text-mode markup a ``statement_tex`` may use outside its math, as HTML text
_PROSE = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("~", "\u00a0"),
          ("\\%", "%"), ("\\&", "&"), ("\\#", "#"), ("\\S{}", "\u00a7"), ("\\S ", "\u00a7"), ('\\"o', "\u00f6"),
          ("\\'e", "\u00e9"), ("\\ldots{}", "\u2026"), ("\\_", "_"), ("\\textasciicircum{}", "^"),
          ("\\textasciitilde{}", "~"), ("\\surd", "\u221a"))


def prose_html(tex: str) -> str | None:
    """LaTeX prose (text with ``$...$`` inline math, a claim's ``statement_tex``) as HTML: the
    text escaped, each formula as inline MathML; None if a formula cannot be converted or the
    text holds markup other than :data:`_PROSE`."""
    import re

    pieces = re.split(r"(?<!\\)\$", tex)
    if len(pieces) % 2 == 0:  # an unclosed formula
        return None
    out = []
    for k, piece in enumerate(pieces):
        if k % 2:
            m = _math(piece, display="inline")
            if m is None:
                return None
            out.append(m)
            continue
        for a, b in _PROSE:
            piece = piece.replace(a, b)
        if "\\" in piece or "{" in piece or "}" in piece:
            return None
        out.append(html.escape(piece))
    return "".join(out)


def _statement_prose_html(claim) -> str:
    """The claim's statement as a paragraph: its ``statement_tex`` as prose with math, else its
    plain ``statement``."""
    tex = getattr(claim, "statement_tex", "")
    text = prose_html(tex) if tex else None
    return f"<p class='statement'>{text if text is not None else html.escape(claim.statement)}</p>"


@in_its_papers_notation
def _statement_html(claim) -> str:
    """The claim's statement as displayed math (``statement_eq``), or nothing."""
    eq = claim.get_statement_eq() if hasattr(claim, "get_statement_eq") else None
    if eq is None:
        return ""
    from numerics.latex import latex

    items = eq if isinstance(eq, (tuple, list)) else (eq,)
    lines = []
    for item in items:
        text = item if isinstance(item, str) else latex(item)
        text = text.replace("\\begin{gathered}", "").replace("\\end{gathered}", "")
        lines.extend(part.strip() for part in text.split("\\\\") if part.strip())
    out = [_math(ln) for ln in lines]
    if any(m is None for m in out):
        return "<p><code>" + html.escape(" ; ".join(lines)) + "</code></p>"
    return "<div class='eq statement'>" + "\n".join(out) + "</div>"


def _note_html(note: str) -> str:
    """A step's note with its ASCII math as inline MathML (:func:`numerics.latex.note_tex`)."""
    from numerics.latex import note_tex

    return prose_html(note_tex(note)) or html.escape(note)


@in_its_papers_notation
def _equations_html(claim, doc) -> list[str]:
    """The claim's derivation as the chain of its named steps (:func:`numerics.latex.chain`),
    each step shown once per page: a later claim links to it."""
    from numerics.latex import Document, chain, latex

    seen, eqs = set(), []
    for eq in claim.get_equations():
        if eq.name not in seen:
            seen.add(eq.name)
            eqs.append(eq)
    out, earlier = [], []
    for link in chain(eqs):
        eq = link.eq
        key = Document.key(eq)
        sym = _math(latex(eq.lhs), display="inline") or html.escape(eq.name)
        if key in doc.printed:
            earlier.append(f"<a href='#{html.escape(doc.printed[key])}'>{sym}</a>")
            continue
        label = doc.label(claim.id, eq)
        uses = []
        for s, st in sorted(link.uses.items(), key=lambda kv: str(kv[0])):
            ref = doc.printed.get(Document.key(getattr(st, "step", st)))
            if ref:
                uses.append(f"{_math(latex(s), display='inline') or html.escape(str(s))} from "
                            f"<a href='#{html.escape(ref)}' title='{html.escape(ref)}'>its step</a>")
        # headed by the step's description in words (its name in the tooltip, for cross-checking)
        head = _note_html(eq.note) if eq.note else f"the step {sym}"
        out.append(f"<div class='eq' id='{html.escape(label)}' title='{html.escape(eq.name)}'>"
                   f"<p class='note'>{head}</p>"
                   f"{_equation_html(eq, link.rhs, doc.names)}"
                   + (f"<p class='note'>with {', '.join(uses)}</p>" if uses else "") + "</div>")
        doc.printed[key] = label
    if earlier:
        out.insert(0, f"<p class='note'>steps shown above: {', '.join(earlier)}</p>")
    return out
