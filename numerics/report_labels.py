"""Row labels, design points and verdicts in the papers' notation: the one place they are printed.

Every printer renders a row's label through :func:`render`: the terminal in Unicode (``α₀ = 3``),
the HTML report and the PDF as LaTeX (``$\\alpha_{0} = 3$``), each name through the one printer
(``derivations.core.name_latex``).  A claim's design point (``Verdict.design``) is printed as
one line, ``design point: π₊ = 0.4, θ = 4``, by :func:`design_line`; a verdict as the notebook's HTML table by :func:`verdict_html`, which
``attncheck`` registers as the verdicts' ``_repr_html_`` (the claims never import a printer)."""
from __future__ import annotations

import re

#: ``name=value`` in a label: an identifier, then a plain number (not ``L=10^(10^8)``, not a
#: fraction ``shift=1/2``, not the first of a list ``K = 16, 32, 64``).  It locates where a label
#: writes a name of its point (the printers typeset the point's value there); the values are the
#: point's (``Comparison.at``), never the label's text
ASSIGNMENT = re.compile(r"(?<![\w.*])([A-Za-z][A-Za-z0-9_]*)\s*=\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
                        r"(?![\w.^(/])(?!\s*,\s*\d)")

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
          "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
          "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Omega": "Ω",
          "infty": "∞", "ell": "ℓ"}
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_SUP = dict(zip("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"))
_FORMATS = ("text", "tex", "html")


def name_tex(name: str) -> str:
    from derivations.core import name_latex

    return name_latex(name)


def tex_to_unicode(tex: str) -> str:
    """A symbol as the one printer writes it (``\\alpha_{0}``, ``\\pi_{+}``, ``\\sigma^{2}``,
    ``\\eta_{q} \\beta``) in Unicode: ``α₀``, ``π₊``, ``σ²``, ``η_q β``."""
    out = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), tex)

    def script(table, mark):
        def fix(m):
            body = m.group(1) if m.group(1) is not None else m.group(2)
            return "".join(table[c] for c in body) if all(c in table for c in body) else f"{mark}{body}"
        return fix
    out = re.sub(r"_\{([^{}]*)\}|_(\w)", script(_SUB, "_"), out)
    out = re.sub(r"\^\{([^{}]*)\}|\^(\w)", script(_SUP, "^"), out)
    return out.replace("{", "").replace("}", "")


def _value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def assignment(name: str, value, fmt: str) -> str:
    """``name = value`` in the format's notation (``tex``: math without the ``$``)."""
    tex = f"{name_tex(name)} = {_value(value)}"
    return tex_to_unicode(tex) if fmt == "text" else tex


def _piece(text: str, fmt: str) -> str:
    """Label text between assignments: as is (text), escaped (tex, html): the tables' text cell."""
    from numerics.report_tables import Text

    return Text(text).render(fmt)


def _math(tex: str, fmt: str) -> str:
    if fmt == "tex":
        return f"${tex}$"
    from numerics.report_math import prose_html

    return prose_html(f"${tex}$") or _piece(tex_to_unicode(tex), "html")


def render(row, fmt: str = "text") -> str:
    """A row's label with its parameter point (``row.at``) in the papers' notation."""
    return render_label(row.label, fmt, dict(row.at))


def render_label(label: str, fmt: str = "text", at: dict | None = None) -> str:
    """A label with its parameter point in the papers' notation: ``text`` Unicode (terminal),
    ``tex`` LaTeX for the PDF, ``html`` HTML with MathML for the report.  Where the label writes
    ``name=value`` of a name of ``at``, the point's value is typeset there (the value is the
    point's, never read from the label); names of ``at`` that the label does not write are added
    after it (``at α₀ = 3``); without a point (None) the label is text.  A label already in LaTeX
    prose (``$...$``) keeps its math, rendered, never shown as source."""
    if fmt not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {fmt!r}")
    at = at or {}
    if "$" in label:
        return _prose(label, fmt)
    out, end, seen = [], 0, set()
    for m in ASSIGNMENT.finditer(label):
        if m.group(1) not in at:
            continue
        seen.add(m.group(1))
        out.append(_piece(label[end:m.start()], fmt))
        out.append(point_text({m.group(1): at[m.group(1)]}, fmt))
        end = m.end()
    out.append(_piece(label[end:], fmt))
    rest = {k: v for k, v in at.items() if k not in seen}
    if rest:
        out.append(_piece(" at ", fmt) + point_text(rest, fmt))
    return "".join(out)


def _prose(label: str, fmt: str) -> str:
    """A label in LaTeX prose: its math kept as math (tex), as MathML (html), as is (text)."""
    if fmt == "tex":
        pieces = re.split(r"(?<!\\)\$", label)
        if len(pieces) % 2 == 0:  # an unclosed formula: all text
            return _piece(label, fmt)
        return "".join(f"${p}$" if k % 2 else _piece(p, fmt) for k, p in enumerate(pieces))
    if fmt == "html":
        from numerics.report_math import prose_html

        return prose_html(label) or _piece(label, "html")
    return label


def point_text(at: dict, fmt: str = "text") -> str:
    """A parameter point, ``π₊ = 0.4, θ = 4`` (tex: a formula per assignment; html: MathML)."""
    if fmt == "text":
        return ", ".join(assignment(k, v, "text") for k, v in at.items())
    return ", ".join(_math(assignment(k, v, "tex"), fmt) for k, v in at.items())  # a line may break between


def design_line(verdict, fmt: str = "text") -> str:
    """One line, ``design point: π₊ = 0.4, θ = 4`` (named groups separated by ``;``); empty
    when the claim reports no design point."""
    d = verdict.design
    if not d:
        return ""
    word = "point" if getattr(verdict, "point", None) else "design point"
    if all(isinstance(v, dict) for v in d.values()):
        body = "; ".join(f"{_piece(str(k), fmt)}: {point_text(v, fmt)}" for k, v in d.items())
    else:
        body = point_text(d, fmt)
    return f"{word}: {body}"


def verdict_html(v) -> str:
    """A verdict as HTML (the notebook repr): its statement, its design point, and its table
    (``numerics.report_tables.verdict_table``: the report's rows and digits)."""
    import html

    from numerics.report_math import prose_html
    from numerics.report_tables import render as render_table, verdict_table

    heading = f"<p><b>{html.escape(v.title)}</b></p>" if v.title else ""
    if v.error:
        return f"{heading}<p><b>{v.word}</b> <code>{html.escape(v.id)}</code>: {html.escape(v.error)}</p>"
    design = f"<p>{design_line(v, 'html')}</p>" if design_line(v) else ""
    stated = (prose_html(v.statement_tex) if v.statement_tex else None) or html.escape(v.statement)
    return (f"{heading}<p><b>{v.word}</b> <code>{html.escape(v.id)}</code> ({v.mode}, seed {v.seed}): "
            f"{stated}</p>{design}{render_table(verdict_table(v), 'html')}")


def _register() -> None:
    from numerics.claims.base import Verdict

    Verdict.html_renderer = verdict_html


_register()  # a verdict shows its table in a notebook once its printer is loaded (attncheck loads it)
