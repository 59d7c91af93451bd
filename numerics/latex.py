"""The LaTeX of claims' equations: a standalone document, a body for ``\\input``, or snippets.

One printer (:func:`derivations.core.latex`, also behind the HTML report and the notebook
reprs) fixes the notation for every claim: the prior P(y = +1) is ``\\pi_{+}``, never the
constant ``\\pi``; ``\\Phi`` for the normal distribution function; ``\\mathbb{E}``; ``^{\\top}``.

Each claim's derivation is printed as a chain of its named steps (:func:`chain`): every step
is written in the symbols of the steps before it (``s^2 = \\|w^{(1)}\\|^2/L``), with a line
saying where each symbol is defined (``\\eqref``).  In one document each step is printed once,
under a stable label (its name); a later claim that uses it refers to it by ``\\eqref``.

An equation wider than the line is broken at its top-level sum (``multline``).  A derivation
that needs a shorter form names the piece as a step of its own (:meth:`Equation.written`); the
printer keeps a last-resort "where" list of names ``u_1, u_2, …`` for an outside claim file, and
the document test fails if any project claim needs it.

``tests/test_latex.py`` compiles the document of every claim with pdflatex and fails on a LaTeX
error, an overfull or underfull box or a multiply-defined label; snapshot tests pin the emitted
LaTeX; ``tests/test_latex_roundtrip.py`` parses the printed chains back.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import sympy as sp

from derivations.core import AttnLatexPrinter, notation  # noqa: F401  (the one printer)
from derivations.core import GaussianMean, in_its_papers_notation, latex
from numerics.latex_text import UNICODE_TEXT, _tex_text, note_tex  # noqa: F401  (text in documents)
from numerics.report_labels import point_text

#: the widest display line, in the printer's width units (about one character of 10 pt math)
LINE = 58.0
PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=2.5cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{amsthm}
\theoremstyle{definition}
\newtheorem*{result}{Claim}
\allowdisplaybreaks
\setlength{\emergencystretch}{3em}
\sloppy
\title{attncheck: the equations of the checked claims}
\author{}
\date{}
\begin{document}
\maketitle
\raggedright
"""


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
    if isinstance(expr, sp.Sum):  # the limits are small, under and over the sign
        return width(expr.function) + 3.0
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


def equation_parts(eq, *, rhs=None, names=None) -> tuple[str, list[str], list[tuple[str, list[str]]]]:
    """One equation laid out for display: ``(lhs, lines, where)``; ``lines`` are the right-hand
    side's display lines (a long sum broken, continuation lines start with their sign) and
    ``where`` the named sub-expressions, each ``(name, lines)``.  ``rhs`` is the right-hand side
    to print (default ``eq.rhs``: the chain printer passes it in the earlier steps' symbols);
    ``names`` the iterator of the "where" names (one per document, so that no name is defined
    twice on a page).  The LaTeX document and the HTML report both print these parts."""
    rhs = eq.rhs if rhs is None else rhs
    names = _symbols() if names is None else names
    where: list = []
    matrix = isinstance(rhs, sp.MatrixBase) or rhs.has(sp.MatrixSymbol) or not isinstance(rhs, sp.Expr)
    if not matrix and width(eq.lhs) + width(rhs) + 2 > LINE:
        rhs, where = _shrink(rhs, names)
    return latex(eq.lhs), _lines("", rhs), [(latex(sym), _lines(latex(sym), e)) for sym, e in where]


def equation_latex(eq, label: str, *, rhs=None, names=None) -> str:
    """One equation as LaTeX (:func:`equation_parts`): ``equation`` if it fits on one line, else
    ``multline``, plus a "where" list."""
    lhs, lines, where = equation_parts(eq, rhs=rhs, names=names)
    if len(lines) == 1:
        body = f"\\begin{{equation}}\\label{{{label}}}\n{lhs} = {lines[0]}\n\\end{{equation}}"
    else:
        joined = " \\\\\n".join(lines)
        body = f"\\begin{{multline}}\\label{{{label}}}\n{lhs} = {joined}\n\\end{{multline}}"
    if where:
        items = [f"{name} &= " + " \\\\\n  &\\quad ".join(sub) for name, sub in where]
        body += ("\n\\noindent where\n\\begin{align*}\n" + " \\\\\n".join(items) + "\n\\end{align*}")
    return body


# --- the chain of named steps ---------------------------------------------------------------
@dataclass(frozen=True)
class Link:
    """One step of a printed chain: ``eq`` with its right-hand side ``rhs`` written in the
    symbols of earlier steps; ``uses`` maps each such symbol to the step (an :class:`Equation`)
    it names, so ``rhs.xreplace({s: e.rhs for s, e in uses.items()})`` is ``eq.rhs`` again."""

    eq: object
    rhs: object
    uses: dict

    def expanded(self):
        """The printed right-hand side with every step symbol replaced by the step it names:
        equal to the computed ``eq.rhs`` (``tests/test_latex_roundtrip.py``)."""
        out, sub = self.rhs, {s: e.rhs for s, e in self.uses.items()}
        for _ in range(len(sub) + 1):  # a step may be written in the symbols of others
            new = out.xreplace(sub)
            new = new.doit() if new.has(sp.Subs) else new
            new = new.replace(lambda e: isinstance(e, GaussianMean), lambda e: e.integral())
            if new == out:
                break
            out = new
        return out


def _nameable(eq) -> bool:
    """A step whose left side can stand for it in later steps: a symbol naming a non-trivial
    scalar expression."""
    rhs = eq.rhs
    return (isinstance(eq.lhs, sp.Symbol) and isinstance(rhs, sp.Expr) and not rhs.is_Atom
            and not isinstance(rhs, sp.MatrixExpr) and not rhs.has(sp.MatrixSymbol)
            and sp.count_ops(rhs) >= 2)


def _root(name: str) -> str | None:
    """``s`` for a step named ``s^2`` (its square root is then written ``s``)."""
    m = re.fullmatch(r"(.+?)\^(?:2|\{2\})", name)
    return m.group(1) if m else None


def chain(equations) -> list[Link]:
    return list(_chain(tuple(equations)))


@functools.lru_cache(maxsize=256)
def _chain(equations: tuple) -> tuple:
    """The equations of a derivation, in order, each written in the symbols of the steps before
    it: wherever an earlier step's expression (or the radicand of a square-root step, or the
    root of a squared one) occurs, its left side is printed instead.  The latest definition of
    a symbol is the one used, and a symbol the equation itself has as a parameter is never
    used as a name.  Only whole sub-expressions (or sub-sums and sub-products, SymPy's
    ``subs``) are replaced, so the expression is unchanged: ``Link.expanded`` gives it back."""
    known: dict = {}  # lhs symbol -> the step defining it (the latest)
    out = []
    for eq in equations:
        printed = eq.extra.get("printed") if eq.extra else None
        if printed is not None:  # the derivation's own form, in the symbols of its named steps
            out.append(Link(eq, printed[0], dict(printed[1])))
            if _nameable(eq):
                known[eq.lhs] = eq
            continue
        rhs, uses = eq.rhs, {}
        if isinstance(rhs, sp.Expr) and not rhs.has(sp.MatrixSymbol) and known:
            taken = {x.name for x in rhs.free_symbols}
            order = sorted((s for s in known if s.name not in taken and s != eq.lhs),
                           key=lambda s: -sp.count_ops(known[s].rhs))
            stand: dict = {}  # placeholder -> (printed symbol, what it stands for)
            for s in order:
                step_rhs, d = known[s].rhs, sp.Dummy()
                patterns = [(step_rhs, d)]
                if isinstance(step_rhs, sp.Pow) and step_rhs.exp == sp.S.Half:
                    patterns.append((step_rhs.base, d ** 2))
                root, r = _root(s.name), sp.Dummy()
                if root is not None and root not in taken:
                    patterns.insert(0, (sp.sqrt(step_rhs), r))
                for pat, rep in patterns:
                    if not pat.free_symbols <= rhs.free_symbols:
                        continue  # no sub-expression of rhs can equal it
                    new = rhs.xreplace({pat: rep}).subs(pat, rep)
                    if new != rhs:
                        rhs = new
                        stand[d] = (s, known[s])
                        if rep is r:
                            stand[r] = (sp.Symbol(root), _Root(known[s]))
            used = {d: v for d, v in stand.items() if rhs.has(d)}
            if used:
                rhs = rhs.xreplace({d: sym for d, (sym, _) in used.items()})
                uses = {sym: step for sym, step in used.values()}
        out.append(Link(eq, rhs, uses))
        if _nameable(eq):
            known[eq.lhs] = eq
    return tuple(out)


@dataclass(frozen=True)
class _Root:
    """The square root of a step named ``s^2``: what the symbol ``s`` stands for."""

    step: object

    @property
    def rhs(self):
        return sp.sqrt(self.step.rhs)

    @property
    def name(self):
        return self.step.name


def _label(claim_id: str, name: str) -> str:
    return f"{claim_id}:{re.sub(r'[^A-Za-z0-9.:+-]', '-', name)}"


@in_its_papers_notation
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
    """A certificate (``numerics.theory.certify.at_defaults``) as a list of certified digits."""
    if cert is None:
        return None
    at = point_text(dict(cert.params), "tex")  # the point in the papers' notation
    if cert.balls is None:
        return f"\\noindent\\textbf{{Certified}}: no certificate at {at} ({_tex_text(cert.error)}).\n"
    name = lambda k: note_tex(k) if " " in k else _tex_text(k)  # a named quantity as prose
    items = "\n".join(f"\\item {name(k)}: $\\mathtt{{{b.digits}}}$" for k, b in cert.balls.items())
    return (f"\\noindent\\textbf{{Certified}} (ball arithmetic, radius $\\le 10^{{-{cert.digits - 3}}}$) at "
            f"{at}:\n\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n")


class Document:
    """What one document has printed: each step once (a later occurrence, in any claim, refers
    to it by ``\\eqref``), and one sequence of "where" names (no name is defined twice)."""

    def __init__(self):
        self.printed: dict = {}  # (lhs, rhs) -> label of the printed step
        self.bodies: dict = {}  # printed text of an equation -> its label (one text, one block)
        self.names = _symbols()
        self.labels: set = set()
        self.owner: dict = {}  # label -> the title of the claim whose section printed it

    @staticmethod
    def key(eq):
        return (sp.srepr(eq.lhs), sp.srepr(eq.rhs))

    def label(self, claim_id: str, eq) -> str:
        """A stable label per step: its name (``claim-id:name`` if the name is taken)."""
        label = _label("", eq.name)[1:]
        if label in self.labels:
            label = _label(claim_id, eq.name)
        self.labels.add(label)
        return label


def _body(text: str) -> str:
    """The printed formula of an equation block, without its label."""
    m = re.search(r"\\begin\{(equation|multline)\}(?:\\label\{[^}]*\})?\n(.*?)\\end\{\1\}", text, re.S)
    return m.group(2).strip() if m else text


def _ref(doc: Document, step) -> str | None:
    label = doc.printed.get(Document.key(getattr(step, "step", step)))
    return f"\\eqref{{{label}}}" if label else None


def _uses_line(doc: Document, link: Link) -> str:
    """``with ⟨w,ξ⟩ from (3), s from (5)``: where each step symbol of the equation is defined."""
    items = []
    for sym, step in sorted(link.uses.items(), key=lambda kv: sp.default_sort_key(kv[0])):
        ref = _ref(doc, step)
        if ref:
            root = " (the root of the step)" if isinstance(step, _Root) else ""
            items.append(f"${latex(sym)}$ from {ref}{root}")
    return ("\n\\noindent with " + ", ".join(items) + ".") if items else ""


def title(claim) -> str:
    """The claim's human title (its ``title`` if it has one, else its paper reference); the id
    is printed under it."""
    return getattr(claim, "title", "") or claim.reference


def statement_prose(claim) -> str:
    """The claim's statement as LaTeX prose: its ``statement_tex`` (text with ``$...$`` inline
    math) if it has one, else its plain ``statement`` with its ASCII math as math (:func:`note_tex`)."""
    return getattr(claim, "statement_tex", "") or note_tex(claim.statement)


@in_its_papers_notation
def claim_section(claim, *, certified: bool = False, certificate=None, doc: Document | None = None) -> str:
    """The claim's section; with ``certified=True`` its certified digits at the defaults
    (``certificate``, computed here unless given).  Its equations are printed as a chain
    (:func:`chain`); within a ``doc`` (one document) a step printed before is referred to by
    ``\\eqref`` instead of being printed again."""
    doc = Document() if doc is None else doc
    parts = [f"\\section*{{{note_tex(title(claim))}}}",
             f"\\noindent{{\\small\\texttt{{{_tex_text(claim.id)}}}}}\n",
             f"\\begin{{result}}\n{statement_prose(claim)}\n"]
    stated = statement_latex(claim)
    if stated:
        earlier_label = doc.bodies.get(_body(stated))
        if earlier_label is None:
            parts.append(stated)
            doc.bodies[_body(stated)] = _label(claim.id, "statement")
        else:  # the statement's formula was printed before in this document: one text, one block
            parts.append(f"\\noindent Its formula is \\eqref{{{earlier_label}}}.\n")
    parts.append("\\end{result}\n")
    parts.append(f"\\noindent\\textbf{{Status}}: {claim.status}. "
                 f"\\textbf{{Reference}}: {note_tex(claim.reference)}.\n")
    if certified and certificate is None:
        from numerics.theory.certify import at_defaults

        certificate = at_defaults(claim)
    cert_text = certified_latex(certificate) if certified else None
    if cert_text:
        parts.append(cert_text)
    seen, eqs = set(), []
    for eq in claim.get_equations():
        if eq.name not in seen:
            seen.add(eq.name)
            eqs.append(eq)
    earlier: list = []  # (text, label) of the steps printed in an earlier section

    def flush():
        if len(earlier) > 6:  # a shared chain: named by the section that derived it, not listed
            groups: dict = {}
            for _, label in earlier:
                groups.setdefault(doc.owner.get(label, ""), []).append(label)
            said = [f"{len(ls)} steps of the derivation under ``{owner}'', \\eqref{{{ls[0]}}} to \\eqref{{{ls[-1]}}}"
                    if len(ls) > 2 else ", ".join(f"\\eqref{{{x}}}" for x in ls) for owner, ls in groups.items()]
            parts.append("\\noindent Its derivation uses the steps printed above: " + "; ".join(said) + ".\n")
        elif earlier:
            parts.append("\\noindent The steps printed above: " + ", ".join(t for t, _ in earlier) + ".\n")
        earlier.clear()

    for link in chain(eqs):
        eq = link.eq
        # the heading in words from the step's own description; its name only in the label
        # (and a comment of the source, for cross-checking)
        head = f"% step {eq.name}\n\\paragraph{{{step_heading(eq)}}}\n"
        key = Document.key(eq)
        if key in doc.printed:
            earlier.append((f"${latex(eq.lhs)}$ {_ref(doc, eq)}", doc.printed[key]))
            continue
        text = equation_latex(eq, "@", rhs=link.rhs, names=doc.names)
        same = doc.bodies.get(_body(text))
        if same is not None:  # the same formula in this variant's symbols: printed once
            doc.printed[key] = same
            earlier.append((f"${latex(eq.lhs)}$ as {_ref(doc, eq)}", same))
            continue
        flush()
        label = doc.label(claim.id, eq)
        parts.append(head + text.replace("\\label{@}", f"\\label{{{label}}}", 1) + _uses_line(doc, link))
        doc.printed[key] = label
        doc.bodies[_body(text)] = label
        doc.owner[label] = note_tex(title(claim))
    flush()
    return "\n\n".join(parts) + "\n"


def step_heading(eq) -> str:
    """A step's heading in LaTeX prose: its note with its ASCII math as math (``note_tex``),
    capitalised, ending with a full stop; a step without a note is headed by its left-hand side."""
    if not eq.note:
        return f"The step ${latex(eq.lhs)}$."
    text = note_tex(eq.note).strip()
    text = text[0].upper() + text[1:] if text[:1].isalpha() else text
    return text if text.endswith(".") else text + "."


#: the kinds of result a reference names, in the order a paper states them at one number
_KINDS = {"prop": 0, "proposition": 0, "lemma": 0, "thm": 0, "thms": 0, "theorem": 0, "result": 0,
          "cor": 1, "corollary": 1, "fig": 2, "figure": 2, "conjecture": 3}


def paper_key(claim) -> tuple:
    """Where a claim sits in its paper, from its reference (nothing is built): the paper, then
    the number of the first theorem-like result it names (``Thm 3``, ``Lemma 4.1``, ``Result
    4.2``; of a range ``Thms 3-5`` its last, after the claims of that result alone, so that a
    chain is printed where it is first derived), corollaries after, then figures, then
    conjectures, then what names no result."""
    best = None
    for m in re.finditer(r"\b(Prop(?:osition)?|Lemma|Thms?|Theorem|Result|Cor(?:ollary)?|Fig(?:ure)?|Conjecture)"
                         r"\.?\s*\(?(\d+(?:\.\d+)*)(?:\s*-\s*(\d+))?", claim.reference):
        kind = _KINDS[m.group(1).lower()]
        number = tuple(int(x) for x in (m.group(3) or m.group(2)).split("."))
        if best is None or kind < best[0]:
            best = (kind, number, bool(m.group(3)))
    kind, number, ranged = best if best else (4, (), False)
    return (claim.paper, kind, number, ranged, claim.id)


def paper_order(claims) -> list:
    """``claims`` in the order of their papers (:func:`paper_key`), not of their ids."""
    return sorted(claims, key=paper_key)


def claims_latex(claims, *, standalone: bool = False, certified: bool = False) -> str:
    """The sections of ``claims`` in their papers' order (:func:`paper_order`), one
    :class:`Document` (each step printed once, where it is first derived); a complete document
    with ``standalone=True``, a part per paper when it holds several; with ``certified=True``
    the certified digits of each certifiable claim at its defaults."""
    doc = Document()
    ordered = paper_order(claims)
    papers = {c.paper for c in ordered}
    body, paper = [], None
    for c in ordered:
        if standalone and len(papers) > 1 and c.paper != paper:
            paper = c.paper
            body.append(f"\\part*{{Paper {_tex_text(paper)}}}\n")
        body.append(claim_section(c, certified=certified, doc=doc))
    body = "\n".join(body)
    return PREAMBLE + body + "\\end{document}\n" if standalone else body
