"""Automatic mutants of every named step: mutation operators on SymPy expression trees.

Mutation testing of code (mutmut, PIT) changes one node of the syntax tree at a time; here the
tree is the SymPy expression a named step (:func:`derivations.core.step`) evaluates, and the
operators speak the vocabulary of a derivation:

``sign``      the sign of each term of a sum, of an exponent, of a function's argument
              (``erfc(x)`` -> ``erfc(-x)``, ``exp(x)`` -> ``exp(-x)``);
``drop``      each term of a sum, each factor of a product, dropped;
``factor``    x2 and x1/2 on each term of a sum and on the whole step;
``constant``  a numeric constant changed: 1/2 <-> 1, 2 <-> 1, pi -> 1, n -> n +- 1;
``exponent``  each numeric exponent +-1, a square root removed, a square root added (on a
              symbol), a symbol x as 1/x;
``swap``      two symbols of the same role exchanged, or one replaced by the other
              (:data:`SAME_ROLE`, and symbols named alike: ``alpha1``/``alpha2``);
``wiring``    the value of an earlier step, used in this one, replaced by a sibling step of the
              same shape (the same free symbols);
``bounds``    a ``Sum``'s lower or upper limit off by one.

Each operator is a function ``(node, context) -> iterable of (description, new_node)``
registered in :data:`OPERATORS` (:func:`operator`: a paper or a user adds its own).  A mutant
is one change at one place (:class:`Site`): the step, the entry of a tuple/matrix step, the
path of the node in the tree, the operator and its description; its ``transform`` applies the
same change to whatever value the step takes when the theory is recomputed, so it propagates
through the derivation exactly as a hand-written :class:`~derivations.core.Mutant` does.

A mutant equal to its step on the step's domain is *equivalent* (:func:`equivalent`): SymPy
proves the difference zero, or the two agree to 30 digits at random points of the domain of
the step's symbols (points of the claim's parameter domain for the symbols named as its
parameters, the others drawn by their assumptions: positive, integer, ...).  Pure SymPy and
mpmath.
"""
from __future__ import annotations

import functools
import itertools
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

import sympy as sp

from derivations.core import Mutant, unnotation

#: operator name -> function (node, context) -> iterable of (description, new node)
OPERATORS: dict[str, Callable] = {}
#: pairs of symbol names of the same role (besides names alike, ``alpha1``/``alpha2``)
SAME_ROLE: set = {frozenset(("n", "d")), frozenset(("L", "R")), frozenset(("N", "d")), frozenset(("M", "N"))}
#: the operators that act on the whole step only (they read the step's context)
WHOLE_STEP = {"swap", "wiring"}
#: the most changes one operator makes at one node (a step of many same-role symbols: the first)
MAX_PER_NODE = 12
#: the largest number of tree nodes a step's value is mutated at, over all its entries (a larger
#: one: its first nodes, in preorder)
MAX_NODES = 400


def operator(name: str, *, whole_step: bool = False):
    """Register ``fn(node, context)`` as the operator ``name`` (a decorator); ``whole_step``:
    it is given the step's whole expression only."""
    def reg(fn):
        OPERATORS[name] = fn
        if whole_step:
            WHOLE_STEP.add(name)
        return fn
    return reg


@dataclass
class Context:
    """What an operator may read besides its node: the step's name and whole expression, and
    the other steps evaluated before it, ``{name: value}`` (in the order they were reached)."""

    step: str
    root: sp.Basic
    earlier: dict = field(default_factory=dict)


@functools.lru_cache(maxsize=1024)
def _order(node) -> dict:
    """The position of each term of a sum as it is printed."""
    try:
        return {t: i for i, t in enumerate(node.as_ordered_terms())}
    except Exception:  # a sum SymPy cannot order: its arguments' order
        return {t: i for i, t in enumerate(node.args)}


def _term(node, t) -> str:
    """``term 2 `x*y``` : a term of a sum numbered as it is printed."""
    i = _order(node).get(t, node.args.index(t))
    return f"term {i + 1} `{_short(t)}`"


@functools.lru_cache(maxsize=4096)
def _short(e, n: int = 40) -> str:
    text = sp.sstr(e)
    return text if len(text) <= n else text[:n - 3] + "..."


@operator("sign")
def _sign(node, ctx):
    if isinstance(node, sp.Add):
        for i, t in enumerate(node.args):
            yield f"{_term(node, t)} of `{_short(node)}` sign flipped", node.func(*(-a if j == i else a
                                                                             for j, a in enumerate(node.args)))
    elif isinstance(node, sp.Pow) and node.exp != sp.S.One:  # 1/x -> x too
        yield f"exponent of `{_short(node)}` sign flipped", sp.Pow(node.base, -node.exp)
    elif isinstance(node, sp.Function) and len(node.args) == 1 and not isinstance(node, sp.Abs):
        yield f"argument of `{_short(node)}` sign flipped", node.func(-node.args[0])


@operator("drop")
def _drop(node, ctx):
    if isinstance(node, sp.Add):
        for i, t in enumerate(node.args):
            yield f"{_term(node, t)} of `{_short(node)}` dropped", node.func(
                *(a for j, a in enumerate(node.args) if j != i))
    elif isinstance(node, sp.Mul):
        for i, f in enumerate(node.args):
            if f != -1:
                yield f"factor `{_short(f)}` of `{_short(node)}` dropped", node.func(
                    *(a for j, a in enumerate(node.args) if j != i))


@operator("factor")
def _factor(node, ctx):
    if node is ctx.root and not isinstance(node, sp.Number):
        yield "the step x2", 2 * node
        yield "the step x1/2", node / 2
    if isinstance(node, sp.Add):
        for i, t in enumerate(node.args):
            for k, text in ((2, "x2"), (sp.S.Half, "x1/2")):
                yield f"{_term(node, t)} of `{_short(node)}` {text}", node.func(
                    *(k * a if j == i else a for j, a in enumerate(node.args)))


def _constant_changes(c) -> list:
    if c is sp.pi:
        return [sp.S.One]
    if not isinstance(c, sp.Rational) or c in (0, -1):
        return []
    table = {sp.S.Half: [sp.S.One], sp.S.One: [sp.S.Half, sp.Integer(2)], sp.Integer(2): [sp.S.One],
             -sp.S.Half: [-sp.S.One], sp.Integer(-2): [-sp.S.One]}
    if c in table:
        return table[c]
    if c.is_Integer:
        return [c - 1, c + 1]
    return [2 * c, c / 2]


@operator("constant")
def _constant(node, ctx):
    for new in _constant_changes(node):
        yield f"constant {sp.sstr(node)} -> {sp.sstr(new)}", new


@operator("exponent")
def _exponent(node, ctx):
    if isinstance(node, sp.Pow) and node.exp.is_Number:
        for k in (1, -1):
            yield f"exponent of `{_short(node)}` {k:+d}", sp.Pow(node.base, node.exp + k)
        if node.exp == sp.S.Half:
            yield f"square root of `{_short(node.base)}` removed", node.base
        elif node.exp == -sp.S.Half:
            yield f"square root of `{_short(node.base)}` removed", 1 / node.base
    if isinstance(node, sp.Symbol):
        yield f"`{node}` as sqrt({node})", sp.sqrt(node)
        yield f"`{node}` as 1/{node}", 1 / node


def _stem(name: str) -> str:
    return re.sub(r"[_\d]+[A-Za-z+-]?$|[_]?(plus|minus|hat)$", "", name)


def same_role(a: sp.Symbol, b: sp.Symbol) -> bool:
    """Two symbols of the same role: a declared pair (:data:`SAME_ROLE`), or names alike
    (``alpha1``/``alpha2``, ``h1``/``h2``, ``q_1``/``q_2``) with the same assumptions."""
    if a == b or a.assumptions0 != b.assumptions0:
        return False
    if frozenset((a.name, b.name)) in SAME_ROLE:
        return True
    sa, sb = _stem(a.name), _stem(b.name)
    return bool(sa) and sa == sb and a.name != sa


@operator("swap", whole_step=True)
def _swap(node, ctx):
    syms = sorted((s for s in node.free_symbols if isinstance(s, sp.Symbol)), key=lambda s: s.name)
    for i, a in enumerate(syms):
        for b in syms[i + 1:]:
            if same_role(a, b):
                yield f"`{a}` <-> `{b}` exchanged", node.xreplace({a: b, b: a})
                yield f"`{a}` replaced by `{b}`", node.xreplace({a: b})
                yield f"`{b}` replaced by `{a}`", node.xreplace({b: a})


def _shape(e) -> frozenset:
    return frozenset(e.free_symbols)


@operator("wiring", whole_step=True)
def _wiring(node, ctx):
    earlier = [(n, v) for n, v in ctx.earlier.items() if isinstance(v, sp.Basic) and v.free_symbols
               and not v.is_Symbol and n != ctx.step]
    for name, value in earlier:
        if not node.has(value):
            continue
        for other, sibling in earlier:
            if other != name and sibling != value and _shape(sibling) == _shape(value):
                yield f"step `{other}` wired in for step `{name}`", node.xreplace({value: sibling})


@operator("bounds")
def _bounds(node, ctx):
    if isinstance(node, sp.Sum):
        for k, (var, lo, hi) in enumerate(node.limits):
            for which, idx in (("lower", 1), ("upper", 2)):
                for d in (1, -1):
                    lim = [var, lo, hi]
                    lim[idx] = lim[idx] + d
                    limits = list(node.limits)
                    limits[k] = tuple(lim)
                    yield f"{which} limit of the sum over {var} {d:+d}", sp.Sum(node.function, *limits)


# --- where the mutants act: entries of a step's value, nodes of their trees ----------------------
def entries(value) -> list:
    """``[(loc, expr)]``: the SymPy expressions a step's value holds (a tuple/list by index, a
    matrix by (row, column), itself otherwise); values of other kinds hold none."""
    if isinstance(value, (tuple, list)):
        return [((i, *loc), e) for i, v in enumerate(value) for loc, e in entries(v)]
    if isinstance(value, sp.MatrixBase):
        return [((i, j), value[i, j]) for i in range(value.rows) for j in range(value.cols)]
    if isinstance(value, sp.Basic):
        return [((), value)]
    return []


def _get(value, loc):
    if not loc:
        return value
    if isinstance(value, sp.MatrixBase):
        return _get(value[loc[0], loc[1]], loc[2:])
    return _get(value[loc[0]], loc[1:])


def _put(value, loc, new):
    if not loc:
        return new
    if isinstance(value, sp.MatrixBase):
        out = sp.Matrix(value)
        out[loc[0], loc[1]] = _put(value[loc[0], loc[1]], loc[2:], new)
        return out.as_immutable() if isinstance(value, sp.ImmutableMatrix) else out
    items = list(value)
    items[loc[0]] = _put(items[loc[0]], loc[1:], new)
    return type(value)(items)


def nodes(expr) -> list:
    """``[(path, node)]`` in preorder (path: the argument indices from the root); at most
    :data:`MAX_NODES`."""
    out, stack = [], [((), expr)]
    while stack and len(out) < MAX_NODES:
        path, e = stack.pop()
        out.append((path, e))
        if isinstance(e, sp.Basic) and not isinstance(e, (sp.Symbol, sp.Number, sp.NumberSymbol)):
            stack.extend(reversed([((*path, i), a) for i, a in enumerate(e.args)]))
    return out


def _at(expr, path):
    for i in path:
        expr = expr.args[i]
    return expr


def _replace_at(expr, path, new):
    if not path:
        return new
    args = list(expr.args)
    args[path[0]] = _replace_at(args[path[0]], path[1:], new)
    return expr.func(*args)


@dataclass(frozen=True)
class Site:
    """One automatic mutant: in step ``step``, entry ``loc`` of its value, node ``path`` of the
    entry's tree, the ``operator``'s change described ``description``."""

    step: str
    loc: tuple
    path: tuple
    operator: str
    description: str
    #: the node's parent, where the node is a symbol or a number (said, not matched)
    within: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        where = ".".join(map(str, self.loc)) or "-"
        return f"{self.step}:auto:{where}:{'.'.join(map(str, self.path)) or 'root'}:{self.operator}:{self.description}"

    def said(self) -> str:
        """The change as a reviewer says it (the entry named where the step is a tuple/matrix)."""
        entry = f"entry {', '.join(map(str, self.loc))}: " if self.loc else ""
        where = f" in `{self.within}`" if self.within else ""
        return f"{entry}{self.description}{where}"


def _changes(site: Site, expr, earlier: dict):
    """The new node of ``site`` in ``expr`` (the entry's tree), or None where it does not apply."""
    try:
        node = _at(expr, site.path)
    except (IndexError, AttributeError):
        return None
    ctx = Context(site.step, expr, earlier)
    if site.operator in WHOLE_STEP and site.path:
        return None
    for description, new in OPERATORS[site.operator](node, ctx):
        if description == site.description:
            return new
    return None


def mutate_value(site: Site, value, earlier: dict | None = None):
    """``value`` (a step's value) with ``site``'s change; ``value`` itself where it does not apply."""
    try:
        expr = _get(value, site.loc)
    except (IndexError, KeyError, TypeError):
        return value
    if not isinstance(expr, sp.Basic):
        return value
    new = _changes(site, expr, earlier or {})
    if new is None:
        return value
    return _put(value, site.loc, _replace_at(expr, site.path, new))


#: how often each automatic mutant changed the value of its step (a mutant that never did checks nothing)
HITS: dict[str, int] = {}


def as_mutant(site: Site, earlier: dict | None = None) -> Mutant:
    """The :class:`~derivations.core.Mutant` (not registered) that applies ``site``."""
    def transform(value, site=site):
        out = mutate_value(site, value, earlier)
        if out is not value:
            HITS[site.name] = HITS.get(site.name, 0) + 1
        return out
    return Mutant(site.name, site.step, site.said(), transform)


def generate(step: str, value, earlier: dict | None = None, operators: Iterable[str] | None = None) -> list:
    """``[(site, mutated entry)]``: every single change of every operator at every node of the
    step's value (the first :data:`MAX_NODES` nodes over all its entries; the same mutated
    entry twice kept once)."""
    earlier = earlier or {}
    names = list(operators) if operators is not None else list(OPERATORS)
    out, seen, left = [], set(), MAX_NODES
    for loc, expr in entries(value):
        if left <= 0:
            break
        ctx = Context(step, expr, earlier)
        tree = nodes(expr)[:left]
        left -= len(tree)
        for path, node in tree:
            for op in names:
                if op in WHOLE_STEP and path:
                    continue
                try:
                    changes = list(itertools.islice(OPERATORS[op](node, ctx), MAX_PER_NODE))
                except Exception:  # an operator that cannot act on this node: no mutant
                    continue
                for description, new in changes:
                    try:
                        mutated = _replace_at(expr, path, new)
                    except Exception:
                        continue
                    if mutated == expr or (loc, mutated) in seen:
                        continue
                    seen.add((loc, mutated))
                    leaf = path and isinstance(node, (sp.Symbol, sp.Number, sp.NumberSymbol))
                    within = _short(_at(expr, path[:-1])) if leaf else ""
                    out.append((Site(step, loc, path, op, description, within), mutated))
    return out


# --- equivalence ---------------------------------------------------------------------------------
def _draw(sym: sp.Symbol, rng: random.Random):
    a = sym.assumptions0
    if a.get("integer"):
        lo = 1 if a.get("positive") else 0 if a.get("nonnegative") else -5
        return sp.Integer(rng.randint(max(lo, 2) if lo >= 0 else lo, 9))
    v = sp.Rational(rng.randint(150, 2900), 1000)  # in (0.15, 2.9), exact
    if a.get("positive") or a.get("nonnegative") or rng.random() < 0.75:
        return v
    return -v


def _given(sym: sp.Symbol, point: dict):
    """The value ``point`` (``{parameter name: number}``) gives ``sym``, as an exact SymPy number:
    the parameter named as the symbol, or as its compact name (``m2`` for ``m_2``, ``alpha0`` for
    ``\\alpha_{0}``); None where there is none, or it contradicts the symbol's assumptions."""
    compact = re.sub(r"[\\{}_ ]", "", sym.name)
    v = point.get(sym.name)
    if v is None:
        v = next((x for n, x in point.items() if n.replace("_", "") == compact), None)
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or abs(v) == float("inf"):
        return None
    v = sp.Integer(v) if isinstance(v, int) else sp.Rational(repr(float(v)))
    a = sym.assumptions0
    if (a.get("positive") and v <= 0) or (a.get("nonnegative") and v < 0) or (a.get("negative") and v >= 0) \
            or (a.get("nonzero") and v == 0) or (a.get("integer") and not v.is_Integer):
        return None
    return v


def domain_points(expr, k: int = 3, seed: int = 0, given: list | None = None) -> list:
    """``k`` seeded points of the domain of ``expr``'s symbols: a symbol named as a parameter of
    ``given`` (points of a claim's parameter domain, ``{name: number}``; the ``i``-th point from
    the ``i``-th) takes its value there, the others are drawn by their assumptions."""
    rng = random.Random(seed)
    syms = [s for s in sorted(expr.free_symbols, key=lambda s: s.name) if isinstance(s, sp.Symbol)]
    out = []
    for i in range(k):
        at = given[i] if given and i < len(given) else {}
        point = {}
        for s in syms:
            v = _given(s, at) if at else None
            point[s] = v if v is not None else _draw(s, rng)
        out.append(point)
    return out


def _number(expr, point, dps: int = 30):
    """``expr`` at ``point`` to ``dps`` digits, as (real, imaginary) SymPy Floats; ArithmeticError
    where it is not a finite number there.  A value that is not an integer enters as a Float of
    ``dps + 10`` digits: an exact rational raised to a symbolic power would be kept exact (SymPy
    factors its numerator and denominator, which can take minutes), while integers stay exact
    for a ``Sum``'s bounds and ``(-1)**n``."""
    point = {s: x if x.is_Integer else sp.Float(x, dps + 10) for s, x in point.items()}
    v = unnotation(expr).xreplace(point)
    if v.has(sp.Sum, sp.Integral):
        v = v.doit()
    re_, im_ = sp.N(v, dps + 10).as_real_imag()
    if not (re_.is_Number and im_.is_Number) or any(x.has(sp.nan, sp.zoo, sp.oo, -sp.oo) for x in (re_, im_)):
        raise ArithmeticError("not a finite number")
    return re_, im_


def agree(a, b, k: int = 3, dps: int = 30, seed: int = 0, given: list | None = None):
    """True: ``a`` and ``b`` agree to ``dps`` digits at ``k`` random points of their domain
    (:func:`domain_points`: from the claim's parameter domain ``given`` where it names a symbol);
    False: they differ at one; None: they could not be evaluated there (an indexed object, a
    function without a numerical value, a non-finite value)."""
    expr = sp.Tuple(a, b)
    if expr.has(sp.Indexed, sp.IndexedBase, sp.MatrixSymbol):
        return None
    for point in domain_points(expr, k, seed, given):
        try:
            (xr, xi), (yr, yi) = _number(a, point, dps), _number(b, point, dps)
            scale = max(abs(xr), abs(xi), abs(yr), abs(yi))
            differ = bool(abs(xr - yr) + abs(xi - yi) > scale * sp.Float(10) ** (-dps + 5))
        except Exception:  # not a number there (e.g. an undefined function): undecided
            return None
        if differ:
            return False
    return True


def equivalent(a, b, k: int = 3, dps: int = 30, seed: int = 0, given: list | None = None) -> bool:
    """A mutant ``b`` of ``a`` is equivalent: they agree at ``k`` random points of the domain to
    ``dps`` digits (:func:`agree`; ``given``: points of the claim's parameter domain, for the
    symbols named as its parameters), or, where they cannot be evaluated, SymPy simplifies
    their difference to zero (small expressions only)."""
    if a == b:
        return True
    try:
        same = agree(a, b, k, dps, seed, given)
    except Exception:  # an object the points cannot be drawn for: undecided
        same = None
    if same is not None:
        return same
    try:
        if sp.count_ops(a) + sp.count_ops(b) > 120:
            return False
        return sp.simplify(a - b) == 0
    except Exception:
        return False
