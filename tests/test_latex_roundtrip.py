"""What is printed is what is computed: every printed equation parsed back and compared.

Each distinct equation of every claim is printed by the project's one printer
(:func:`numerics.latex.equation_latex`: line breaking, ``multline`` and the "where" list
included), parsed back by SymPy's LaTeX parser (lark backend) and compared with the equation's
own expression at random parameter points.  A printed step whose structure differs from the
computed one (a factor outside the sum it belongs to, a lost bracket, a sign dropped at a line
break, a "where" name standing for the wrong piece) fails here.

The parser knows neither the project's symbol names (``\\pi_{+}``, ``\\mathbb{E}[\\ell']``) nor
functions such as erfc, so the structure is checked on a renamed copy: every free symbol is
printed as a placeholder ``z_{k}``, the constant π as a placeholder, and each function the
parser lacks as one it knows (the argument structure is what is tested).  The symbols' own
printing is checked separately: distinct symbols print distinctly.  The exemptions, with their
reasons, are listed in ``EXEMPT_KINDS``; at least ``COVERAGE`` of the distinct equations must be
checked.
"""
from __future__ import annotations

import random
import re
from typing import Callable

import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

lark = pytest.importorskip("lark", reason="the LaTeX parser's lark backend (pip install lark)")
from sympy.parsing.latex import parse_latex  # noqa: E402

from derivations.core import GaussianMean, Phi  # noqa: E402
from derivations.paper_a.gradient import SampleSum  # noqa: E402
from numerics import registry  # noqa: E402
import numerics.latex as printer  # noqa: E402
from numerics.latex import AttnLatexPrinter, latex, notation  # noqa: E402

#: the fraction of distinct printed equations that the round trip must cover
COVERAGE = 0.80

#: equations the parser cannot read back, by kind, with the reason
EXEMPT_KINDS = {
    "matrix": "matrix expressions (transposes, matrix products): the lark grammar has no transpose",
    "binomial": "binomial coefficients: the lark grammar has no \\binom",
    "sum": "finite sums with symbolic bounds built from Min/Max: the lark grammar reads no \\min/\\max bound",
    "lambertw": "the Lambert W function: printed as W, which the parser reads as a symbol",
    "sample_sum": "a sum over the samples of a data set (\\sum_{i \\in D_0}): the grammar reads only index ranges",
    "gaussian_mean": "a Gaussian mean E_{zeta ~ N(0,1)}[f]: the grammar has no subscripted expectation "
                     "(its expansion into the computed integral is checked by the chain test)",
    "subs": "an evaluation bar |_{h = w}: the grammar has no substitution (its expansion is checked by the chain test)",
}

#: equations whose printed text the lark grammar reads in several ways (an ``\\left(`` after a
#: function is also read as ``\\le ft(``); the test below keeps this list honest
AMBIGUOUS = {
    "A.capacity.pool": "a product of a number and a function of a bracket",
    "A.capacity.vec": "a product of a number and a function of a bracket",
    "A.erm.prox": "a product of a function of a bracket",
    "A.thm1.threshold": "a difference of logarithms of brackets",
    "A.thm1.pool_error": "logarithms of brackets inside a function",
    "B.lemma41.psi_hat": "a logarithm of an absolute value",
}

#: functions the parser knows, used as stand-ins for those it does not (one per function class)
_STAND_INS = (sp.sin, sp.cos, sp.tan, sp.sinh, sp.cosh, sp.tanh, sp.asin, sp.acos, sp.atan)
#: one-letter names for integration variables (the grammar's differential takes one letter)
_LETTERS = "tsrv"
#: one-letter placeholders for the free symbols (the grammar reads juxtaposed letters reliably)
_PLACEHOLDERS = [sp.Symbol(c) for c in "abcfghjklmnopqxyzABCDGHJKLMNOPQRSTUVWXYZ"]


def _distinct_equations():
    seen = {}
    for cid, claim in sorted(registry.claims().items()):
        for eq in claim.get_equations():
            seen.setdefault((eq.name, sp.srepr(eq.rhs)), (cid, eq))
    return list(seen.values())


def _kind(expr) -> str | None:
    """The exemption kind of an expression, or None if the round trip covers it."""
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixExpr) or expr.has(sp.MatrixSymbol):
        return "matrix"
    if expr.has(sp.binomial):
        return "binomial"
    if expr.has(sp.Sum):
        return "sum"
    if expr.has(sp.LambertW):
        return "lambertw"
    if any(isinstance(a, SampleSum) for a in sp.preorder_traversal(expr)):
        return "sample_sum"
    if expr.has(GaussianMean):
        return "gaussian_mean"
    if expr.has(sp.Subs):
        return "subs"
    return None


def _checked(eq):
    """What an equation states: its right side, or its left side for a relation ``F = 0``."""
    return eq.lhs if eq.rhs == 0 and not isinstance(eq.lhs, sp.Symbol) else eq.rhs


class _Renamed:
    """``expr`` with placeholders for its symbols, π and the functions the parser lacks."""

    def __init__(self, expr: sp.Expr, notation: bool = False):
        """``notation``: keep what the printer's notation rewrite acts on (erfc, the constant π;
        ``derivations.core.notation``), so that the rewrite is part of the round trip; the
        printed Φ, φ and π are then read back by :func:`_notation_read`."""
        bound = set()
        for integral in expr.atoms(sp.Integral):
            bound |= {lim[0] for lim in integral.limits}
        free = sorted(expr.free_symbols | bound, key=sp.default_sort_key)
        letters = iter(_LETTERS)
        self.symbols = {}
        k = 0
        for s in free:
            if s in bound:
                self.symbols[s] = sp.Symbol(next(letters))
            else:
                self.symbols[s] = _PLACEHOLDERS[k]
                k += 1
        self.pi = sp.Symbol("w")
        used = {type(f) for f in expr.atoms(sp.Function)}
        spare = iter(f for f in _STAND_INS if f not in used)
        self.functions = {}
        for f in sorted(used, key=lambda c: c.__name__):
            if f in (sp.exp, sp.log, sp.Abs) or f in _STAND_INS or (notation and f is sp.erfc):
                continue
            self.functions[f] = next(spare)
        renamed = expr.xreplace(self.symbols)
        renamed = renamed if notation else renamed.subs(sp.pi, self.pi)
        for f, g in self.functions.items():
            renamed = renamed.replace(lambda e, f=f: isinstance(e, f), lambda e, g=g: g(*e.args))
        self.expr = renamed

    def back(self, parsed: sp.Expr) -> sp.Expr:
        inverse = {v: k for k, v in self.symbols.items()}
        inverse[self.pi] = sp.pi
        inverse[sp.Symbol("e")] = sp.E
        out = parsed.xreplace(inverse)
        for f, g in self.functions.items():
            out = out.replace(lambda e, g=g: isinstance(e, g), lambda e, f=f: f(*e.args))
        return out


def _with_explicit_products(fn, *args):
    """Run the document printer with products written as ``\\cdot``: the lark grammar misreads
    juxtaposition (``\\left(1 - b\\right)`` as ``\\le ft``), and the separator of a product is
    the one thing this changes; breaking, bracketing and naming are the document's own."""
    explicit = AttnLatexPrinter({"mul_symbol": "dot"})
    saved = printer.latex
    printer.latex = lambda expr: explicit.doprint(notation(expr))
    try:
        return fn(*args)
    finally:
        printer.latex = saved


_BODY = re.compile(r"\\begin\{(equation|multline)\}\\label\{[^}]*\}\n(.*?)\n\\end\{\1\}", re.S)


def _parse(text: str) -> sp.Expr:
    """The printed text parsed back; the grammar reads one-character subscripts only, so the
    "where" names ``u_{k}`` are read as ``u_{<k-th letter>}``."""
    text = text.replace("&", "").replace("\\quad", "").replace("\\mathrm{d}", "d")  # the upright measure
    text = re.sub(r"u_\{(\d+)\}", lambda m: f"u_{{{_WHERE_LETTERS[int(m.group(1))]}}}", text)
    # a broken line is a top-level sum: its lines are read one by one (the parser's cost grows
    # fast with the length of the text) and added up
    out = sp.Integer(0)
    for line in text.split("\\\\\n"):
        line = line.strip()
        term = parse_latex(line[1:] if line.startswith("+") else line, backend="lark")
        if not isinstance(term, sp.Basic):
            raise Ambiguous(f"the lark grammar finds several readings of {line[:80]!r}")
        out += term
    return out


class Ambiguous(ValueError):
    """The parser returns several readings of the printed text."""


_WHERE_LETTERS = "0abcdefghijklmnopqrstuvwxyz"


def _printed_back(renamed: _Renamed, read: Callable[[str], str] = lambda text: text) -> sp.Expr:
    """Print ``y = renamed`` as the document does, parse it back, resolve the "where" names;
    ``read`` edits the printed text into what the grammar reads (:func:`_notation_read`)."""
    eq = sp.Eq(sp.Symbol("y"), 0)  # only for its lhs in the printer's Equation protocol

    class _Eq:
        lhs, rhs = eq.lhs, renamed.expr

    text = read(_with_explicit_products(printer.equation_latex, _Eq, "roundtrip"))
    body = _BODY.search(text).group(2)
    lhs, rhs = body.split("=", 1)
    assert lhs.strip() == "y", text
    parsed = _parse(rhs)
    where = text.split("\\begin{align*}\n", 1)[1].split("\n\\end{align*}")[0] if "where" in text else ""
    names = {}
    for item in filter(None, re.split(r" \\\\\n(?=u_\{\d+\} &=)", where)):
        name, value = item.split("&=", 1)
        names[_parse(name)] = _parse(value)
    for _ in range(len(names) + 1):  # a name may be defined through earlier names
        parsed = parsed.xreplace(names)
    return parsed


def _value(expr: sp.Expr, point: dict):
    return complex(sp.N(expr.xreplace(point), 20))


def _concrete(expr: sp.Expr) -> sp.Expr:
    """Undefined functions (the paper's F, an expectation E) replaced by one known function, the
    same on both sides, so that the two can be compared numerically."""
    expr = expr.replace(lambda e: isinstance(e, AppliedUndef),
                        lambda e: sp.exp(-sp.Add(*e.args) ** 2 / 3) + 1)
    return expr.replace(lambda e: isinstance(e, sp.Integral), _integral_fingerprint)


def _integral_fingerprint(integral: sp.Integral) -> sp.Expr:
    """An integral replaced by its integrand at two fixed points plus its limits: what the
    round trip must preserve, without paying for quadrature."""
    f = integral.function
    out = sp.Integer(0)
    for k, (x, a, b) in enumerate(integral.limits):
        out += f.xreplace({x: sp.Rational(3 + k, 7)}) + 2 * f.xreplace({x: -sp.Rational(2, 5 + k)})
        out += sp.atan(a) + 3 * sp.atan(b)
    return out


def _elementary(expr: sp.Expr) -> sp.Expr:
    """The logistic loss's softplus and sigmoid in exp and log (they have no numeric evaluation)."""
    return expr.replace(lambda e: type(e).__name__ in ("softplus", "sigmoid"), lambda e: e.rewrite(sp.exp))


def _agree(a: sp.Expr, b: sp.Expr, symbols) -> bool:
    a, b = _elementary(_concrete(a)), _elementary(_concrete(b))
    rng = random.Random(20260)
    checked = 0
    for _ in range(12):
        point = {s: sp.Rational(rng.randint(15, 85), 100) for s in symbols}
        try:
            va, vb = _value(a, point), _value(b, point)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if not all(map(lambda z: z == z and abs(z) < 1e300, (va, vb))):
            continue
        if abs(va - vb) > 1e-9 * max(1.0, abs(va)):
            return False
        checked += 1
        if checked >= 3:
            break
    assert checked, "no parameter point where both sides are finite"
    return True


EQUATIONS = _distinct_equations()
COVERED = [(cid, eq) for cid, eq in EQUATIONS if _kind(_checked(eq)) is None and eq.name not in AMBIGUOUS]


def test_coverage_and_exemptions_are_stated():
    kinds = {}
    for _, eq in EQUATIONS:
        k = _kind(_checked(eq))
        if k is not None:
            kinds.setdefault(k, []).append(eq.name)
    assert set(kinds) <= set(EXEMPT_KINDS), f"unlisted exemption kinds: {set(kinds) - set(EXEMPT_KINDS)}"
    assert len(COVERED) >= COVERAGE * len(EQUATIONS), (
        f"round trip covers {len(COVERED)} of {len(EQUATIONS)} distinct equations; exempt: {kinds}, "
        f"ambiguous: {sorted(AMBIGUOUS)}")


@pytest.mark.parametrize("name", sorted(AMBIGUOUS))
def test_the_ambiguous_list_is_honest(name):
    """Each listed equation exists and is still read ambiguously (else it belongs in the round trip)."""
    found = [eq for _, eq in EQUATIONS if eq.name == name]
    assert found, f"{name} is listed as ambiguous but no claim prints it"
    with pytest.raises(Ambiguous):
        _printed_back(_Renamed(_checked(found[0])))


@pytest.mark.parametrize("cid,eq", COVERED, ids=[f"{c}:{e.name}" for c, e in COVERED])
def test_printed_equation_parses_back_to_the_computed_one(cid, eq):
    stated = _elementary(_checked(eq))  # the stand-ins of softplus, sigmoid would be odd or even
    renamed = _Renamed(stated)
    back = renamed.back(_printed_back(renamed))
    free = sorted(stated.free_symbols, key=sp.default_sort_key)
    assert _agree(back, stated, free), (
        f"{cid}: {eq.name} prints as something else\n printed: {latex(eq.rhs)}\n parsed:  {back}")


#: symbols of one paper that print the same because they are one quantity under two names
SAME_QUANTITY = {
    frozenset({"pi", "pi_+"}): "Paper A's prior P(y = +1): named pi_+ where lambdify would shadow the constant",
    frozenset({"sigma2", "sigma^2"}): "Paper A's variance of the latent law's bulk, sigma^2",
}


def test_distinct_symbols_print_distinctly():
    """Within one paper, symbols that print the same are the same quantity."""
    claims = registry.claims()
    printed = {}
    for cid, eq in EQUATIONS:
        rhs = eq.rhs if isinstance(eq.rhs, sp.Basic) else sp.Integer(0)
        for s in rhs.free_symbols | getattr(eq.lhs, "free_symbols", set()):
            printed.setdefault((claims[cid].paper, latex(s)), set()).add(s.name)
    clashes = {k: v for k, v in printed.items() if len(v) > 1 and frozenset(v) not in SAME_QUANTITY}
    assert not clashes, f"distinct symbols print the same: {clashes}"


def test_the_round_trip_catches_a_misprint():
    """The check can fail: a printer that drops a bracket is caught."""
    x, y = sp.symbols("x y", positive=True)
    expr = x * (y + 1)
    renamed = _Renamed(expr)
    text = _with_explicit_products(printer.latex, renamed.expr)
    wrong = _parse(text.replace("\\left(", "").replace("\\right)", ""))
    assert not _agree(renamed.back(wrong), expr, [x, y])


# --- the chain: each step printed in the symbols of the steps before it --------------------------
def _distinct_links():
    seen = {}
    for cid, claim in sorted(registry.claims().items()):
        eqs, names = [], set()
        for eq in claim.get_equations():
            if eq.name not in names:
                names.add(eq.name)
                eqs.append(eq)
        for link in printer.chain(eqs):
            if link.uses:
                seen.setdefault((link.eq.name, sp.srepr(link.rhs)), (cid, link))
    return list(seen.values())


LINKS = _distinct_links()
COVERED_LINKS = [(cid, ln) for cid, ln in LINKS if _kind(ln.rhs) is None and ln.eq.name not in AMBIGUOUS]


def test_the_chain_names_steps():
    """The chain does write steps in earlier steps' symbols (s^2 in terms of ||w^(1)||), and
    the round trip covers the chained steps."""
    names = {ln.eq.name for _, ln in LINKS}
    assert {"A.thm3.s2.logistic", "A.thm3.q2_norm_sq.logistic", "A.thm3.h1p.logistic"} <= names
    s2 = next(ln for _, ln in LINKS if ln.eq.name == "A.thm3.s2.logistic")
    assert latex(s2.rhs) == r"\frac{\|w^{(1)}\|^{2}}{L}"
    # every chained step is parsed back, or is of a listed exempt kind (its expansion into the
    # computed expression is then checked by test_a_chained_step_expands_to_the_computed_one)
    assert all(_kind(ln.rhs) in EXEMPT_KINDS for _, ln in LINKS if (_, ln) not in COVERED_LINKS
               and ln.eq.name not in AMBIGUOUS)
    assert len(COVERED_LINKS) >= 0.75 * len(LINKS)


@pytest.mark.parametrize("cid,link", LINKS, ids=[f"{c}:{ln.eq.name}" for c, ln in LINKS])
def test_a_chained_step_expands_to_the_computed_one(cid, link):
    """Every step symbol replaced by the step it names gives the computed expression back."""
    if link.rhs.has(GaussianMean) and not link.eq.rhs.has(sp.Integral):
        # a Gaussian mean printed for a closed form (a polynomial): its exact Gaussian moments
        from derivations.paper_a.erm_equations import gaussian_expectation

        mean = link.rhs.replace(lambda e: isinstance(e, GaussianMean), lambda e: gaussian_expectation(*e.args))
        link = printer.Link(link.eq, mean, link.uses)
    expanded = link.expanded()
    if expanded == link.eq.rhs:  # the very expression (a finite sum with symbolic bounds has no cheap value)
        return
    free = sorted(link.eq.rhs.free_symbols | expanded.free_symbols, key=sp.default_sort_key)
    assert _agree(expanded, link.eq.rhs, free), f"{cid}: {link.eq.name}"


@pytest.mark.parametrize("cid,link", COVERED_LINKS, ids=[f"{c}:{ln.eq.name}" for c, ln in COVERED_LINKS])
def test_printed_chained_step_parses_back_to_the_computed_one(cid, link):
    """What the document prints for a chained step, parsed back, with each step symbol
    replaced by its step, is the computed expression."""
    renamed = _Renamed(_elementary(link.rhs))
    back = renamed.back(_printed_back(renamed)).xreplace({s: st.rhs for s, st in link.uses.items()})
    free = sorted(link.eq.rhs.free_symbols, key=sp.default_sort_key)
    assert _agree(back, link.eq.rhs, free), (
        f"{cid}: {link.eq.name} prints as something else\n printed: {latex(link.rhs)}\n parsed:  {back}")


def test_the_phi_notation_is_exact():
    """``erfc`` is printed as Phi by an exact rewrite (erfc(z) = 2 Phi(-sqrt 2 z))."""
    from derivations.core import notation, unnotation

    t, p = sp.symbols("t p", positive=True)
    expr = p * sp.erfc(sp.sqrt(2) * t / 2) / 2 + (1 - p) * (1 - sp.erfc(t) / 2)
    assert latex(sp.erfc(sp.sqrt(2) * t / 2) / 2) == r"\Phi{\left(- t \right)}"
    assert sp.simplify(unnotation(notation(expr)) - expr) == 0


# --- the notation rewrite in the round trip -------------------------------------------------------
#: the functions the grammar reads in place of the printed Phi and phi: neither occurs in a
#: printed equation that the notation rewrites, and SymPy takes no sign out of their arguments
#: (as it does for an odd or even function), so each stands for its function exactly
_PHI_READ, _DENSITY_READ = sp.acos, sp.asec


def _normal_cdf(x):
    """What the printed Phi means: the standard normal distribution function."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def _normal_pdf(x):
    """What the printed phi means: the standard normal density."""
    return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)


def _notation_read(text: str) -> str:
    """The printed ``\\Phi{\\left(x\\right)}`` and ``\\varphi\\left(x\\right)`` as functions
    the grammar reads (:data:`_PHI_READ`, :data:`_DENSITY_READ`), each in braces (the grammar
    reads an unbraced function of a bracket in several ways), and the constant ``\\pi`` as the
    placeholder ``w`` (the free symbols are placeholders, so no prior is printed)."""
    for opening, command, brace in ((r"\\Phi(\^\{[^{}]*\})?\{\\left\(", r"\arccos", True),
                                    (r"\\varphi\\left\(", r"\arcsec", False)):
        while (m := re.search(opening, text)) is not None:
            k, depth = m.end(), 1
            while True:  # the \right) that closes this \left(: \left and \right come in pairs
                if text.startswith(r"\left", k):
                    depth, k = depth + 1, k + len(r"\left")
                elif text.startswith(r"\right", k):
                    depth -= 1
                    if not depth:
                        break
                    k += len(r"\right")
                else:
                    k += 1
            after = k + len(r"\right)") + (1 if brace else 0)
            assert text[k:after] == r"\right)" + ("}" if brace else ""), text[m.start():after]
            power = (m.groups() or (None,))[0] or ""
            text = text[:m.start()] + "{" + command + r"{\left(" + text[m.end():k] + r"\right)}}" + power + text[after:]
    return re.sub(r"\\pi(?![A-Za-z_])", "w", text)


def _notated():
    """What the document prints and the printer rewrites in the notation, among the covered
    equations and chained steps: ``(cid, name, printed, uses, computed)``.  A step printed in
    the chain is taken in its chained form only (its expansion is the equation itself, and
    parsing the expanded form of the longest steps costs 10 s each)."""
    chained = {link.eq.name for _, link in COVERED_LINKS}
    out = []
    for cid, eq in COVERED:
        stated = _elementary(_checked(eq))
        if eq.name not in chained and notation(stated) != stated:
            out.append((cid, eq.name, stated, {}, stated))
    for cid, link in COVERED_LINKS:
        printed = _elementary(link.rhs)
        if notation(printed) != printed:
            out.append((cid, link.eq.name + " (chained)", printed, {s: st.rhs for s, st in link.uses.items()},
                        link.eq.rhs))
    return out


NOTATED = _notated()


def test_the_notation_round_trip_covers_phi_and_the_density():
    """Equations printed with Phi and with the density phi are both read back below."""
    assert any(notation(p).has(Phi) for _, _, p, _, _ in NOTATED)
    assert {"A.capacity.F", "A.cor2.pool.C1 (chained)", "A.cor2.vec.C1 (chained)"} <= {n for _, n, *_ in NOTATED}
    assert len(NOTATED) >= 10


@pytest.mark.parametrize("cid,name,printed,uses,computed", NOTATED, ids=[f"{c}:{n}" for c, n, *_ in NOTATED])
def test_printed_notation_parses_back_to_the_computed_one(cid, name, printed, uses, computed):
    """The printed text of an equation that the printer rewrites in the papers' notation (erfc
    as Phi, a Gaussian factor as phi), parsed back with Phi and phi read as the normal
    distribution function and density, is the computed expression."""
    renamed = _Renamed(printed, notation=True)
    assert not {_PHI_READ, _DENSITY_READ} & (set(renamed.functions.values()) | {type(f) for f in printed.atoms(sp.Function)})
    back = renamed.back(_printed_back(renamed, _notation_read))
    back = back.replace(lambda e: isinstance(e, _PHI_READ), lambda e: _normal_cdf(e.args[0]))
    back = back.replace(lambda e: isinstance(e, _DENSITY_READ), lambda e: _normal_pdf(e.args[0])).xreplace(uses)
    free = sorted(computed.free_symbols, key=sp.default_sort_key)
    assert _agree(back, computed, free), (
        f"{cid}: {name} prints as something else\n printed: {latex(printed)}\n parsed:  {back}")
