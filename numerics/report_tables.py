"""The verdict and power tables, built once as data and rendered as text, HTML or LaTeX.

A table is its columns and its rows of cells; a cell knows what it is (a row label in the
papers' notation, a number to so many significant digits, a z score, a pass/fail mark, a
mutant's name, plain text) and :func:`render` writes it in the format asked for.  The terminal
(``verify -v``, ``verify --power``), the notebook (``Verdict._repr_html_``), the HTML report
and the PDF report all print a verdict with :func:`verdict_table` and a mutation power with
:func:`power_table`, so that the four show the same rows, columns and digits.  A certified row
is not a score: it is a note after the table (what the ball arithmetic showed).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

FORMATS = ("text", "html", "tex")


# --- cells -----------------------------------------------------------------------------------------
def _signed(out: str, fmt: str) -> str:
    """A number's text with a true minus sign in HTML and LaTeX."""
    return {"text": out, "html": out.replace("-", "\u2212"), "tex": out.replace("-", "$-$")}[fmt]


@dataclass(frozen=True)
class Number:
    """A number to ``digits`` significant digits (a true minus sign in HTML and LaTeX); None: a dash.
    The one number format of the verdict and power tables."""
    x: float | None
    digits: int = 6

    def render(self, fmt: str) -> str:
        if self.x is None:
            return "—" if fmt != "tex" else "---"
        return _signed(f"{self.x:.{self.digits}g}", fmt)


@dataclass(frozen=True)
class Z:
    """A z score to two decimals, or ``exact`` (a row without a standard error)."""
    z: float | None

    def render(self, fmt: str) -> str:
        if self.z is None:
            return "exact"
        return _signed(f"{self.z:+.2f}", fmt)


@dataclass(frozen=True)
class Mark:
    """Pass or fail, in words (``ok`` / ``FAIL``, ``killed`` / ``ALIVE``); a failure stands out."""
    ok: bool
    yes: str = "ok"
    no: str = "FAIL"

    def render(self, fmt: str) -> str:
        word = self.yes if self.ok else self.no
        if fmt == "html":
            return f"<span class='{'pass' if self.ok else 'fail'}'>{word}</span>"
        if fmt == "tex":
            return word if self.ok else f"\\textbf{{{word}}}"
        return word


@dataclass(frozen=True)
class Label:
    """A row's label (a verdict row, or the label itself with its point ``at``) with its
    parameter point in the papers' notation."""
    row: object
    at: dict | None = None

    def render(self, fmt: str) -> str:
        from numerics.report_labels import render, render_label

        return render_label(self.row, fmt, self.at) if isinstance(self.row, str) else render(self.row, fmt)


@dataclass(frozen=True)
class Count:
    """A whole number."""
    n: int

    def render(self, fmt: str) -> str:
        return str(self.n)


@dataclass(frozen=True)
class Code:
    """An identifier (a mutant's name): typewriter, breakable after its dots in LaTeX."""
    text: str

    def render(self, fmt: str) -> str:
        if fmt == "html":
            return f"<code>{html.escape(self.text)}</code>"
        if fmt == "tex":
            return breakable_tex(self.text)
        return self.text


@dataclass(frozen=True)
class Text:
    """Plain text, escaped for the format."""
    text: str

    def render(self, fmt: str) -> str:
        if fmt == "html":
            return html.escape(self.text)
        if fmt == "tex":
            from numerics.latex_text import _tex_text

            return _tex_text(self.text)
        return self.text


def breakable_tex(text: str) -> str:
    """An identifier in typewriter type that may break after its dots, colons, dashes and
    underscores (a long mutant name stays in its column)."""
    from numerics.latex_text import _tex_text

    out = _tex_text(text)
    for ch in (".", ":", "-", "/"):
        out = out.replace(ch, ch + "\\allowbreak{}")
    return f"\\texttt{{{out.replace(chr(92) + '_', chr(92) + '_' + chr(92) + 'allowbreak{}')}}}"


# --- tables ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    head: str  #: the header (text; LaTeX and HTML escape it, ``tex_head`` overrides)
    width: float  #: the LaTeX column's share of the line
    right: bool = False  #: numbers are right-aligned
    tex_head: str | None = None


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[tuple, ...]
    notes: tuple[tuple[Mark, Text], ...] = ()  #: what is not a row: (its mark, what it showed)
    css: str = ""  #: the HTML table's class
    text_widths: tuple[int, int] = (3, 28)  #: the terminal's mark and first column


def render(table: Table, fmt: str) -> str:
    """``table`` as ``text`` (one line per row: the mark, the first column, then the text
    columns and ``head=value`` of the numbers),
    ``html`` (a table, the notes as paragraphs) or ``tex`` (a longtable, the notes as small
    paragraphs)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    return {"text": _text, "html": _html, "tex": _tex}[fmt](table)


def _text(t: Table) -> str:
    lines = []
    mark_w, first_w = t.text_widths
    for row in t.rows:  # the mark first (if any), the first column next, then the numbers as head=value
        mark = next((cell for cell in row if isinstance(cell, Mark)), None)
        cells = [(c, cell) for c, cell in zip(t.columns, row) if cell is not mark]
        first, rest = cells[0][1].render("text"), cells[1:]
        words = "  ".join(f"{c.head}={cell.render('text')}" if c.right else cell.render("text") for c, cell in rest)
        head = f"{mark.render('text'):{mark_w}s} " if mark else ""
        lines.append(f"    {head}{first:{first_w}s} {words}".rstrip())
    lines += [f"    {mark.render('text'):{mark_w}s} certified: {note.render('text')}" for mark, note in t.notes]
    return "\n".join(lines)


def _html(t: Table) -> str:
    out = ""
    if t.rows:
        head = "".join(f"<th>{html.escape(c.head)}</th>" for c in t.columns)
        body = "".join("<tr>" + "".join(f"<td>{cell.render('html')}</td>" for cell in row) + "</tr>"
                       for row in t.rows)
        cls = f" class='{t.css}'" if t.css else ""
        out = f"<table{cls}><tr>{head}</tr>{body}</table>"
    return out + "".join(f"<p class='note'><b>Certified</b> {mark.render('html')}: {note.render('html')}</p>"
                         for mark, note in t.notes)


def _tex(t: Table) -> str:
    out = ""
    if t.rows:
        spec = "".join(f"{'R' if c.right else 'L'}{{{c.width:g}}}" for c in t.columns)
        head = " & ".join(c.tex_head if c.tex_head is not None else Text(c.head).render("tex") for c in t.columns)
        out = longtable(head, spec, [[cell.render("tex") for cell in row] for row in t.rows])
    for mark, note in t.notes:  # long digit strings may break every ten digits
        text = re.sub(r"(\d{10})(?=\d)", lambda m: m.group(1) + "\\allowbreak{}", note.render("tex"))
        out += f"{{\\small Certified ({mark.render('tex')}): {text}}}\\par\n"
    return out


def longtable(head: str, spec: str, rows: list[list[str]]) -> str:
    """A LaTeX longtable of rendered cells (the column types ``L``/``R`` of the report's preamble)."""
    body = " \\\\\n".join(" & ".join(r) for r in rows)
    return (f"\\begin{{longtable}}{{@{{}}{spec}@{{}}}}\n{head} \\\\ \\hline\n\\endhead\n{body}"
            + (" \\\\\n" if rows else "") + "\\end{longtable}\n")


# --- the two tables of a claim ---------------------------------------------------------------------
VERDICT_COLUMNS = (Column("row", 0.23), Column("theory", 0.12, True), Column("experiment", 0.13, True),
                   Column("se", 0.1, True), Column("allowance", 0.12, True), Column("tolerance", 0.12, True),
                   Column("z", 0.08, True, "$z$"), Column("", 0.07))


def verdict_table(v) -> Table:
    """A verdict's statistical rows (theory as judged, the experiment's mean and standard error,
    the allowance, the tolerance, z, pass/fail), its certified rows as notes."""
    rows = tuple((Label(r), Number(r.mutated_theory), Number(r.mean), Number(r.se, 2), Number(r.allowance, 2),
                  Number(r.tolerance, 2), Z(r.z), Mark(r.passed)) for r in v.rows if not r.certified)
    notes = tuple((Mark(r.passed), Text(r.certified)) for r in v.rows if r.certified)
    return Table(VERDICT_COLUMNS, rows, notes)


POWER_COLUMNS = (Column("mutant", 0.3), Column("what is wrong", 0.38), Column("", 0.1), Column("how", 0.22))


def power_table(p) -> Table:
    """A claim's mutation power: each structural mutant and each scaling of its outputs, killed
    or alive, and how."""
    rows = tuple((Code(m.name), Text(m.description), Mark(m.killed, "killed", "ALIVE"), Text(m.how))
                 for m in p.mutants)
    rows += tuple((Text(f"theory × (1 {k[0]} {k[1:]})"), Text("output steps scaled, allowances recomputed"),
                   Mark(killed, "killed", "ALIVE"), Text("")) for k, killed in p.scaled.items())
    return Table(POWER_COLUMNS, rows, css="text", text_widths=(7, 44))


DETECTABLE_COLUMNS = (Column("row", 0.4), Column("detects", 0.12, True), Column("", 0.14),
                      Column("sensitivity", 0.12, True), Column("allowance", 0.12, True),
                      Column("rejects alone", 0.1, True))


def detectable_table(p) -> Table:
    """What each row of a claim detects (``numerics.claims.power.detectable``): the smallest
    change of its theory it rejects, relative to its outputs (or absolute, where the theory is
    0), the sensitivity of its value to the output steps, its allowance, and how many structural
    mutants it rejects on its own."""
    rows = tuple((Label(d["label"], d.get("at")),
                  Number(d["absolute"] if d["relative"] is None else d["through_outputs"], 2),
                  Text("absolute" if d["relative"] is None else "of its outputs"),
                  Number(d["sensitivity"], 3), Number(d["allowance"], 2), Count(len(d["rejects"])))
                 for d in p.detectable)
    return Table(DETECTABLE_COLUMNS, rows, text_widths=(0, 40))
