"""The two objects every derivation is made of.

* :class:`Equation`: one named, referenced, exact statement (for LaTeX and ``attncheck eval``);
* named steps (:func:`step`) and their structural mutants (:class:`Mutant`): a derivation is a
  chain of named expressions, and a mutant is a realistic error in one of them (a sign flip, a
  dropped term, a factor of 2, a wrong exponent).  ``numerics`` computes every theory value
  from these steps, so a mutant changes the theory exactly as the error would; the claims must
  then fail (``tests/test_mutation_catalogue.py``, ``attncheck verify --power``).
"""
from __future__ import annotations

import contextvars
import dataclasses
import functools
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import sympy as sp
from sympy.printing.latex import LatexPrinter


class EquationError(ValueError):
    """An :class:`Equation` that is inconsistent (raised when it is made): the message names the
    equation and the fix."""


@dataclass(frozen=True)
class Equation:
    """``lhs = rhs``, exact, with where it comes from.

    ``name``       stable id (usually the claim id or a sub-step of it).
    ``lhs``        a SymPy expression or symbol naming the quantity.
    ``rhs``        the exact SymPy expression (constants stay exact).
    ``reference``  the paper item it encodes, or our docs page for [derived] results.
    ``params``     the free parameters, in the order evaluators take them: every free symbol of
                   ``rhs`` (empty for a step of a derivation that is not evaluated on its own,
                   written in the symbols of the steps before it).
    ``note``       one line: what it is, and whether it is the paper's or ours.
    """

    name: str
    lhs: sp.Basic
    rhs: sp.Basic
    reference: str
    params: tuple[sp.Symbol, ...] = ()
    note: str = ""
    status: str = "derived"  # "paper" | "derived" | "erratum"
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        if self.status not in ("paper", "derived", "erratum"):
            raise EquationError(f"equation {self.name}: status must be paper, derived or erratum, got "
                                f"{self.status!r}")
        missing = self.rhs.free_symbols - set(self.params) if self.params else set()
        if missing:
            raise EquationError(
                f"equation {self.name}: its right-hand side has free symbols {', '.join(sorted(map(str, missing)))} "
                f"not in its params ({', '.join(map(str, self.params))}); add them to params"
            )

    @property
    def paper(self) -> str | None:
        """The prefix of the paper the equation belongs to (``A`` for ``A.thm3.q2_cosine``), whose
        notation prints it; None for a name without one."""
        return self.name.split(".")[0] if "." in self.name else None

    def latex(self) -> str:
        """``lhs = rhs`` in the project's notation (:func:`latex`), as in the LaTeX document: in
        the derivation's own form (:meth:`written`) where it has one."""
        printed = self.extra.get("printed") if self.extra else None
        with printing_for(self.paper):
            return f"{latex(self.lhs)} = {latex(self.rhs if printed is None else printed[0])}"

    def _repr_latex_(self) -> str:  # notebooks render the equation
        return f"$\\displaystyle {self.latex()}$"

    def written(self, rhs, uses: dict) -> "Equation":
        """This step as the derivation writes it: ``rhs`` in the symbols of earlier named steps,
        ``uses`` mapping each such symbol to the :class:`Equation` it names.  The LaTeX chain
        prints ``rhs``; ``rhs.xreplace({s: e.rhs for s, e in uses.items()})`` must be the
        computed ``self.rhs`` (``tests/test_latex_roundtrip.py`` checks it)."""
        return dataclasses.replace(self, extra={**self.extra, "printed": (rhs, dict(uses))})

    def as_eq(self) -> sp.Eq:
        return sp.Eq(self.lhs, self.rhs, evaluate=False)

    def subs(self, values: dict) -> sp.Basic:
        """The right-hand side with (some) parameters substituted exactly."""
        return self.rhs.subs(values)


# --- the one printer: the papers' notation -----------------------------------------------------
#: Phi, the standard normal distribution function, in printed steps (as in the statements)
Phi = sp.Function("Phi")



#: the entry-point group in which a paper declares the module of its notation (the entry
#: point's name is the paper's prefix: ``A = "derivations.paper_a.notation"``); attncheck's own
#: papers are declared there as every plugin declares its own
NOTATION_GROUP = "attncheck.notation"

#: the paper whose claim or equation is being printed (its prefix), or None: every paper's symbols
_PRINTING: contextvars.ContextVar = contextvars.ContextVar("attncheck_printing_paper", default=None)


@functools.lru_cache(maxsize=None)
def notation_tables() -> dict:
    """Each paper's notation: prefix -> ``(symbols, roots)``, symbol name -> LaTeX of the symbol
    and of its square root (the ``SYMBOLS`` and ``ROOTS`` of the module the paper declares in
    :data:`NOTATION_GROUP`; read from the installed metadata, so that what is printed never
    depends on which paper was imported first)."""
    from importlib.metadata import entry_points

    tables = {}
    for ep in sorted(entry_points(group=NOTATION_GROUP), key=lambda ep: (ep.name, ep.value)):
        if ep.name in tables:
            raise ValueError(f"notation: paper {ep.name} declares two notation modules in {NOTATION_GROUP}; "
                             "keep one")
        try:
            mod = ep.load()
        except Exception as e:  # a broken plugin names itself
            raise ValueError(f"notation: the entry point {ep.name!r} ({ep.value}) of {NOTATION_GROUP} failed to "
                             f"load: {type(e).__name__}: {e}") from e
        tables[ep.name] = tuple(dict(getattr(mod, kind, {})) for kind in ("SYMBOLS", "ROOTS"))
    return tables


@functools.lru_cache(maxsize=None)
def papers_notation(paper: str | None = None) -> tuple[dict, dict]:
    """The symbols as the printer writes them: ``(symbols, roots)`` of the paper with prefix
    ``paper``, or, for ``None`` or a paper without a notation module, of every paper merged,
    where a name two papers print differently is left as SymPy prints it (in its own paper's
    equations it prints as that paper writes it)."""
    tables = notation_tables()
    if paper in tables:
        return tables[paper]
    merged = ({}, {})  # name -> LaTeX, or None where two papers print it differently
    for own in tables.values():
        for table, names in zip(merged, own):
            for name, tex in names.items():
                table[name] = tex if table.get(name, tex) == tex else None
    return tuple({name: tex for name, tex in table.items() if tex is not None} for table in merged)


@contextmanager
def printing_for(paper: str | None):
    """Print in the notation of the paper with prefix ``paper`` alone, if it has one (a symbol
    another paper renames keeps its own name in this paper's equations); ``None``, or a paper
    without a notation module: every paper's (:func:`papers_notation`)."""
    token = _PRINTING.set(paper)
    try:
        yield
    finally:
        _PRINTING.reset(token)


def in_its_papers_notation(fn):
    """``fn(claim, ...)`` printing in the notation of ``claim.paper`` alone (:func:`printing_for`)."""
    @functools.wraps(fn)
    def printing(claim, *args, **kwargs):
        with printing_for(getattr(claim, "paper", None) or None):
            return fn(claim, *args, **kwargs)

    return printing


def _printing() -> tuple[dict, dict]:
    return papers_notation(_PRINTING.get())


class GaussianMean(sp.Function):
    """``GaussianMean(f, z)``: the mean of ``f`` over ``z ~ N(0, 1)``, as the papers write a
    Gaussian integral, 𝔼_{z∼𝒩(0,1)}[f].  Only printed; :meth:`integral` is its value."""

    nargs = 2

    def integral(self):
        f, z = self.args
        return sp.Integral(f * sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, sp.oo))


#: phi, the standard normal density, in printed steps (so that the constant pi is not printed)
phi = sp.Function("phi")


def _is_density(e) -> bool:
    """A product holding ``exp(A)`` and ``1/sqrt(pi)``: a normal density in disguise."""
    return (isinstance(e, sp.Mul) and any(isinstance(f, sp.exp) for f in e.args)
            and any(f == 1 / sp.sqrt(sp.pi) for f in e.args))


def _as_density(e):
    """``exp(A)/sqrt(pi)`` in ``e`` as ``sqrt(2) phi(sqrt(-2 A))`` (phi(z) = exp(-z^2/2)/sqrt(2 pi))."""
    ex = next(f for f in e.args if isinstance(f, sp.exp))
    z = sp.sqrt(sp.factor(-2 * ex.args[0]))
    return e / (ex / sp.sqrt(sp.pi)) * sp.sqrt(2) * phi(z)


def notation(expr):
    """``expr`` rewritten, exactly, in the papers' notation before printing: each
    ``erfc(z)`` as ``2 Phi(-sqrt(2) z)`` (so ``erfc(x/sqrt 2)/2`` prints as ``Phi(-x)``), and a
    Gaussian factor ``exp(-z^2/2)/sqrt(2 pi)`` as the density ``phi(z)``."""
    if isinstance(expr, sp.Basic) and expr.has(sp.erfc):
        expr = expr.replace(sp.erfc, lambda z: 2 * Phi(-sp.sqrt(2) * z))
    if isinstance(expr, sp.Basic) and expr.has(sp.pi) and expr.has(sp.exp) and not expr.has(sp.Integral):
        expr = expr.replace(_is_density, _as_density)
    return expr


def unnotation(expr):
    """The inverse of :func:`notation`: Phi(x) as erfc(-x/sqrt 2)/2, phi(x) as the density."""
    if not isinstance(expr, sp.Basic):
        return expr
    expr = expr.replace(phi, lambda x: sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi))
    return expr.replace(Phi, lambda x: sp.erfc(-x / sp.sqrt(2)) / 2)


_EXPECTATION = re.compile(r"(?<![A-Za-z\\])E(?=\[|\||\(|\\langle)")
_MOMENT = re.compile(r"([A-Za-z])(\d+)_([A-Za-z0-9+-]+)(?:\^(inf))?")


def _nested_factors(expr):
    """The factors of a product flattened through nested products (and ``UnevaluatedExpr``) if a
    nested one holds a fraction, else None (SymPy's own product printing is kept)."""
    out, nested = [], False

    def walk(e, inner):
        nonlocal nested
        if isinstance(e, sp.UnevaluatedExpr):
            e, inner = e.args[0], True
        if e.is_Mul:  # a product inside the product
            for a in e.args:
                walk(a, True)
            return
        nested |= inner and ((e.is_Pow and e.exp.is_negative) or (e.is_Rational and e.q != 1))
        out.append(e)

    for a in expr.args:
        walk(a, False)
    return out if nested else None


class AttnLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with the project's notation: each paper's symbols as the paper
    writes them (:func:`papers_notation`: Paper A's prior P(y = +1) is ``\\pi_{+}``, never the
    constant ``\\pi``), the indicator and ones-vector ``\\mathbf{1}``, an expectation
    ``\\mathbb{E}``, a transpose ``^{\\top}``, ``h1_p`` as ``h_{1p}``, Phi as ``\\Phi``."""

    def _print_Symbol(self, expr, style="plain"):
        name = expr.name
        symbols, _ = _printing()
        if name in symbols:
            return symbols[name]
        if _MOMENT.fullmatch(name):
            m = _MOMENT.fullmatch(name)
            sup = "^{\\infty}" if m.group(4) else ""
            return f"{m.group(1)}_{{{m.group(2)}{m.group(3)}}}{sup}"
        if "||" in name and "\\" not in name:
            return name.replace("||", r"\|")
        if "\\" in name or "{" in name or "[" in name or "|" in name:
            return _EXPECTATION.sub(r"\\mathbb{E}", name.replace(r"\mathbb{1}", r"\mathbf{1}"))
        return super()._print_Symbol(expr, style=style)

    def _print_Mul(self, expr):
        """A product holding a fraction (an unevaluated factor ``a/b``) as one fraction of
        products, ``\\frac{a c}{b d}``, never a fraction inside a numerator."""
        factors = _nested_factors(expr)
        if factors is None:
            return super()._print_Mul(expr)
        num, den = [], []
        for f in factors:
            if f.is_Rational and f.q != 1:
                num.append(sp.Integer(f.p))
                den.append(sp.Integer(f.q))
            elif f.is_Pow and f.exp.is_negative:
                den.append(sp.Pow(f.base, -f.exp, evaluate=False) if f.exp != -1 else f.base)
            else:
                num.append(f)
        sign = "- " if sum(1 for f in num if f.is_Number and f.is_negative) % 2 else ""
        num = [abs(f) if f.is_Number else f for f in num if f not in (sp.S.One, sp.S.NegativeOne)]
        den = [f for f in den if f != sp.S.One]
        top = self._print(sp.Mul(*num, evaluate=False)) if num else "1"
        if not den:
            return sign + top
        return f"{sign}\\frac{{{top}}}{{{self._print(sp.Mul(*den, evaluate=False))}}}"

    def _print_Pow(self, expr, *args, **kwargs):
        """A power of a norm or an inner product symbol without brackets: ``\\|w\\|^{2}``."""
        roots = _printing()[1]
        if isinstance(expr.base, sp.Symbol) and expr.exp == sp.S.Half and expr.base.name in roots:
            return roots[expr.base.name]
        if isinstance(expr.base, sp.Symbol) and expr.exp.is_Integer and expr.exp > 1:
            text = self._print(expr.base)
            if text.endswith((r"\|", r"\rangle")):
                return f"{text}^{{{expr.exp}}}"
        return super()._print_Pow(expr, *args, **kwargs)

    def _print_Integral(self, expr):
        """The measure with an upright d: ``\\, \\mathrm{d}\\zeta``."""
        return re.sub(r"\\, d(?=[\\A-Za-z])", r"\\, \\mathrm{d}", super()._print_Integral(expr))

    def _print_Function(self, expr, exp=None):
        """The normal density ``phi`` as ``\\varphi`` (SymPy prints an undefined function by name)."""
        if expr.func == phi:
            text = r"\varphi\left(%s\right)" % self._print(expr.args[0])
            return text if exp is None else f"{text}^{{{exp}}}"
        return super()._print_Function(expr, exp)

    def _print_GaussianMean(self, expr):
        f, z = expr.args
        return r"\mathbb{E}_{%s \sim \mathcal{N}(0,1)}\left[%s\right]" % (self._print(z), self._print(f))

    def _print_softplus(self, expr):
        """softplus(x) as the paper writes the logistic loss: ``\\log(1 + e^{x})``."""
        return r"\log\left(1 + e^{%s}\right)" % self._print(expr.args[0])

    def _print_Identity(self, expr):
        """The identity matrix as the papers write it: ``I``."""
        return "I"

    def _print_MatAdd(self, expr):
        """A sum of matrices as the papers write it: the terms with a plus sign first, a negative
        term after a minus (``I - \\frac{1}{L} \\mathbf{1} \\mathbf{1}^{\\top}``, the same sum
        SymPy prints ``- \\frac{1}{L} \\mathbf{1} \\mathbf{1}^{\\top} + I``)."""
        from sympy.core.function import _coeff_isneg

        terms = sorted(expr.args, key=lambda t: bool(_coeff_isneg(t)))  # stable: SymPy's order otherwise
        out = []
        for t in terms:
            if _coeff_isneg(t):
                out.append(" - " + self._print(-t))
            else:
                out.append((" + " if out else "") + self._print(t))
        return "".join(out).lstrip()

    def _print_Transpose(self, expr):
        text = super()._print_Transpose(expr)
        return text[:-len("^{T}")] + "^{\\top}" if text.endswith("^{T}") else text


def latex(expr, **settings) -> str:
    """The one printer of every equation (LaTeX document, HTML report, notebook reprs)."""
    return AttnLatexPrinter({"mul_symbol": None, **settings}).doprint(notation(expr))


#: short names a parameter goes by in code and in row labels, as the symbol the papers write:
#: ``a0`` is alpha_0, ``lam`` the ridge lambda, ``ell`` a script l, ``eta_qbeta`` the product eta_q beta
SYMBOL_ALIASES = {"a0": "alpha0", "a1": "alpha1", "lam": "lambda", "ell": "\\ell", "eta_qbeta": "eta_q*beta"}


def name_latex(name: str) -> str:
    """A parameter's name (``alpha0``, ``pi``, ``eta_q``, ``lam``) as the one printer writes its
    symbol (``\\alpha_{0}``, ``\\pi_{+}``, ``\\eta_{q}``, ``\\lambda``)."""
    parts = SYMBOL_ALIASES.get(name, name).split("*")
    return " ".join(latex(sp.Symbol(p)) for p in parts)


# --- named steps and structural mutants ------------------------------------------------------
#
# A derivation is a chain of named steps.  ``step(name, expr)`` marks one: it returns ``expr``
# unchanged, unless a structural mutant of that step is active, in which case it returns the
# mutated expression.  Every later step is built from the returned object, so a mutant
# propagates through the rest of the derivation exactly as a real error in that step would.
# Builders that derive steps are cached with :func:`derivation`, whose cache key includes the
# active mutants, so a mutated derivation is rebuilt once and the true one is never touched.

_ACTIVE: contextvars.ContextVar[tuple] = contextvars.ContextVar("attncheck_mutants", default=())
#: every mutant defined anywhere in ``derivations``, by name
MUTANTS: dict[str, "Mutant"] = {}
#: how often each step name was reached while a mutant of it was active (a mutant that never
#: reaches its step checks nothing; the catalogue test asserts that it was applied)
APPLIED: dict[str, int] = {}


@dataclass(frozen=True)
class Mutant:
    """A realistic error in one named step of a derivation.

    ``name``         stable id, ``<step>:<what>`` by convention (e.g. ``A.erm.eq_m:sign``);
    ``step``         the name passed to :func:`step` that this mutant rewrites;
    ``description``  one line, as a reviewer would say it ("sign of the (m) equation flipped");
    ``transform``    expr -> mutated expr (SymPy in, SymPy out).
    """

    name: str
    step: str
    description: str
    transform: Callable = field(compare=False, hash=False, repr=False)

    def __call__(self, expr):
        return self.transform(expr)


def mutant(name: str, step_name: str, description: str, transform: Callable, *, register: bool = True) -> Mutant:
    """Define (and register) a structural mutant."""
    m = Mutant(name, step_name, description, transform)
    if register:
        old = MUTANTS.get(name)
        if old is not None and (old.step, old.description) != (m.step, m.description):
            raise ValueError(f"mutant {name!r} defined twice")
        MUTANTS[name] = m
    return m


def scaled(step_name: str, factor) -> Mutant:
    """The generic perturbation ``expr -> factor * expr`` of one step (not registered): used to
    change a claim's theory values by a relative amount through the claim's normal path."""
    f = sp.nsimplify(factor)
    return Mutant(f"{step_name}:x{factor}", step_name, f"step scaled by {factor}",
                  lambda e, f=f: _map(e, lambda x: f * x))


def _map(expr, fn):
    if isinstance(expr, (tuple, list)):
        return type(expr)(_map(e, fn) for e in expr)
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(fn)
    return fn(expr)


#: the set that the steps reached are added to, inside :func:`reaching` (None: not recorded)
_REACHED: contextvars.ContextVar = contextvars.ContextVar("attncheck_reached", default=None)


@contextmanager
def reaching():
    """The names of the steps reached inside the block: a set, filled as :func:`step` is called
    (a cached derivation, :func:`derivation`, counts the steps it reached when it was built).
    Nested blocks each see the steps reached inside them."""
    outer, seen = _REACHED.get(), set()
    token = _REACHED.set(seen)
    try:
        yield seen
    finally:
        _REACHED.reset(token)
        if outer is not None:
            outer |= seen


def _reached(names) -> None:
    seen = _REACHED.get()
    if seen is not None:
        seen.update(names)


#: the most distinct values of one step :func:`recording_steps` keeps (a step evaluated at many
#: points: its first ones)
MAX_RECORDED = 8
#: the list that ``(name, expression)`` of each step reached is appended to, inside
#: :func:`recording_steps` (None: not recorded)
_VALUES: contextvars.ContextVar = contextvars.ContextVar("attncheck_step_values", default=None)


@contextmanager
def recording_steps():
    """The steps evaluated inside the block, with their expressions: a dict ``{name: [value,
    ...]}`` (each distinct value a step took, as :func:`step` received it, before any active
    mutant; at most :data:`MAX_RECORDED`), filled as the steps are reached; a cached derivation (:func:`derivation`) counts
    the values its build recorded.  What automatic mutants are generated from
    (``derivations.automutants``)."""
    outer, seen = _VALUES.get(), []
    token = _VALUES.set(seen)
    out: dict = {}
    try:
        yield out
    finally:
        _VALUES.reset(token)
        if outer is not None:
            outer.extend(seen)
        for name, value in seen:
            values = out.setdefault(name, [])
            if len(values) < MAX_RECORDED and not any(v is value or _same(v, value) for v in values):
                values.append(value)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an object whose == is not a truth value (an array): not the same
        return False


def _record(pairs) -> None:
    seen = _VALUES.get()
    if seen is not None:
        seen.extend(pairs)


def step(name: str, expr):
    """Mark ``expr`` as the derivation step ``name``; apply the active mutants of that step."""
    _reached((name,))
    _record(((name, expr),))
    for m in _ACTIVE.get():
        if m.step == name:
            expr = m.transform(expr)
            APPLIED[m.name] = APPLIED.get(m.name, 0) + 1
    return expr


def active_mutants() -> tuple:
    """The names of the active mutants: part of every cache key of derived or compiled theory."""
    return tuple(m.name for m in _ACTIVE.get())


@contextmanager
def mutated(*mutants: Mutant):
    """Run the enclosed code with these mutants active (nested calls accumulate)."""
    for m in mutants:
        if not isinstance(m, Mutant):
            raise TypeError(f"mutated() takes Mutant objects, got {m!r}")
    token = _ACTIVE.set(_ACTIVE.get() + tuple(mutants))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


@contextmanager
def unmutated():
    """Run the enclosed code with no mutant active (the true derivation), inside a mutated run."""
    token = _ACTIVE.set(())
    try:
        yield
    finally:
        _ACTIVE.reset(token)


#: the cache of every builder made by :func:`derivation` (:func:`derivation_caches_restored`)
_CACHES: list[dict] = []


@contextmanager
def derivation_caches_restored():
    """Run the enclosed code, then forget every build of :func:`derivation` it cached (the ones
    cached before stay): a test that tampers with the cache keys leaves no entry behind."""
    before = [set(cache) for cache in _CACHES]
    try:
        yield
    finally:
        for i, cache in enumerate(_CACHES):
            kept = before[i] if i < len(before) else set()
            for key in [k for k in cache if k not in kept]:
                del cache[key]


def derivation(fn=None, *, maxsize: int = 64):
    """Cache a derivation builder per (arguments, active mutants).

    The true derivation is built once; under a mutant it is rebuilt (and cached separately), so
    a mutant never leaks into the true derivation and the true one never masks a mutant.
    A cache hit counts the mutants the cached build applied as applied again (``APPLIED``),
    and the steps it reached as reached again (:func:`reaching`): the caller does use them, it
    just does not rebuild them."""
    def wrap(f):
        return _replaying(f, maxsize, by_mutants=True)

    return wrap(fn) if fn is not None else wrap


def replaying_cache(maxsize: int = 64):
    """Cache a function of compiled or solved theory by its arguments alone, which must name
    the active mutants it depends on (``active_mutants()``, or the part of them that matters),
    as :func:`derivation` does: a hit replays what the build did, the mutants it applied
    (``APPLIED``), the steps it reached (:func:`reaching`) and the values it recorded
    (:func:`recording_steps`).  A plain ``functools.lru_cache`` there would hide them on a hit:
    what a process computed earlier would change which steps a claim is seen to reach, and so
    which automatic mutants it gets."""
    return lambda f: _replaying(f, maxsize, by_mutants=False)


def _replaying(f, maxsize: int, by_mutants: bool):
    """``f`` cached per (its arguments, with ``by_mutants`` the active mutants), each entry with
    the mutants applied, the steps reached and the step values recorded while it was built,
    replayed on a hit (the oldest entry goes first beyond ``maxsize``)."""
    cache: dict = {}
    _CACHES.append(cache)

    @functools.wraps(f)
    def inner(*args, **kwargs):
        active = active_mutants()
        key = (active if by_mutants else (), args, tuple(sorted(kwargs.items())))
        try:
            out, applied, steps, values = cache[key]
        except KeyError:
            pass
        else:
            for name in applied:
                APPLIED[name] = APPLIED.get(name, 0) + 1
            _reached(steps)
            _record(values)
            return out
        before = {name: APPLIED.get(name, 0) for name in active}
        values: list = []
        token = _VALUES.set(values)
        try:
            with reaching() as steps:
                out = f(*args, **kwargs)
        finally:
            _VALUES.reset(token)
            _record(values)
        applied = tuple(name for name in active if APPLIED.get(name, 0) > before[name])
        if len(cache) >= maxsize:
            cache.pop(next(iter(cache)))
        cache[key] = (out, applied, frozenset(steps), tuple(values))
        return out

    inner.cache_clear = cache.clear
    return inner


class Named:
    """A table of named objects (losses, models) with their aliases: one lookup for each kind."""

    def __init__(self, kind: str, cls: type, objects):
        self.kind, self.cls, self.objects = kind, cls, tuple(objects)
        self._by_name = {n: o for o in self.objects for n in (o.name, *o.aliases)}

    def __call__(self, name):
        """The object called ``name`` (an object of the kind is returned as is); ValueError
        naming the choices."""
        if isinstance(name, self.cls):
            return name
        try:
            return self._by_name[getattr(name, "value", name)]
        except (KeyError, TypeError):
            raise ValueError(f"{self.kind} must be one of {', '.join(o.name for o in self.objects)}, "
                             f"got {name!r}") from None


class ByName:
    """An object of a :class:`Named` table (``by_name`` in the object's module) that travels, to a
    worker or into a memo, by its name, whatever it holds (a loss's form is a lambda)."""

    def __reduce__(self):
        return _by_name, (type(self).__module__, self.name)


def _by_name(module: str, name: str):
    """The object called ``name`` in ``module``'s table: what a pickled :class:`ByName` is read
    back as."""
    import importlib

    return importlib.import_module(module).by_name(name)


def all_mutants() -> dict[str, Mutant]:
    """Import every derivation module and return the registered mutants by name."""
    import importlib
    import pkgutil

    import derivations

    for info in pkgutil.walk_packages(derivations.__path__, prefix="derivations."):
        importlib.import_module(info.name)
    return dict(sorted(MUTANTS.items()))


# common transforms, so that mutants read as what they are
def flip_sign(expr):
    return _map(expr, lambda e: -e)


def times(factor):
    return lambda expr: _map(expr, lambda e: sp.nsimplify(factor) * e)


def drop(term):
    """Remove ``term`` (a sub-expression) by setting it to zero."""
    return lambda expr: _map(expr, lambda e: e.subs(term, 0))


def replace(old, new):
    return lambda expr: _map(expr, lambda e: e.xreplace({old: new}) if not isinstance(old, sp.Symbol) else e.subs(old, new))
