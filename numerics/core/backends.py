"""Turn exact SymPy expressions into evaluators: mpmath (any precision) or numpy (vectorised).

One expression, every backend.  ``mp_eval`` evaluates at a requested number of decimal
digits; ``evalf_reference`` is the independent check (SymPy's own ``evalf`` at the same
substitution), used by the tests to confirm the compiled mpmath code agrees to the asked
digits.

One chain, every number system: :class:`Chain` (named steps: closed forms and Gaussian
expectations) runs under a :class:`Context` (:class:`NumpyContext` over arrays,
:class:`MpContext` at any dps, :class:`ArbContext` in FLINT balls), and :class:`Evaluator` is
a claim's closed forms under any context (the claim is certifiable when it runs under arb).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp


@lru_cache(maxsize=512)
def _compile_cached(expr, args: tuple, backend: str, extra: tuple, cse: bool, raw: bool):
    """The code of :meth:`NumpyContext.compile` and :meth:`MpContext.compile`, once per
    (expr, args, backend, extra, cse, raw): every argument is in the key (``expr`` a SymPy object,
    hashable: :func:`_compile` makes a list of outputs a ``Tuple``)."""
    modules = [dict(extra), backend] if extra else [backend]
    # Rename the arguments first: a parameter Symbol named like a constant (the prior "pi")
    # would otherwise shadow that constant inside the generated code (sympy's dummify=True
    # still leaks the name into the namespace).
    safe = tuple(sp.Symbol(f"_arg{i}") for i in range(len(args)))
    f = sp.lambdify(safe, sp.sympify(expr).xreplace(dict(zip(args, safe))), modules=modules, cse=cse)
    if raw:
        return f
    if backend == "numpy":
        return lambda *v: tuple(np.asarray(o, dtype=float) for o in f(*v))
    return lambda *v: tuple(o if isinstance(o, mpmath.mpc) else mpmath.mpf(o) for o in f(*v))


def _compile(exprs, args, backend: str, extra: Mapping | None, cse: bool, raw: bool):
    """:func:`_compile_cached` with hashable arguments (a list of outputs becomes a SymPy
    Tuple, whose compiled function returns a tuple) and the special functions of ``backend``
    (``numerics.core.special``) beneath ``extra``."""
    from numerics.core.special import namespace

    if not raw:
        exprs = list(exprs)
    extra_t = tuple(sorted({**namespace(backend), **(extra or {})}.items()))
    key = sp.Tuple(*exprs) if isinstance(exprs, (list, tuple)) else exprs
    return _compile_cached(key, tuple(args), backend, extra_t, bool(cse), bool(raw))


def mp_eval(expr: sp.Basic, values: Mapping[sp.Symbol, object], dps: int = 30):
    """Evaluate ``expr`` in mpmath at ``dps`` digits.  Parameters are converted from their
    decimal string so that e.g. 0.2 means exactly 1/5, as it does for ``evalf``."""
    args = tuple(values)
    f = MPMATH.compile(expr, args, raw=True)  # the special functions' mpmath namespace included
    with mpmath.workdps(dps + 10):
        out = f(*[to_mpf(values[a]) for a in args])
        return +mpmath.mpf(out) if not isinstance(out, mpmath.mpc) else out


def to_mpf(x) -> mpmath.mpf:
    """Exact-ish conversion: ints and decimal strings are exact, floats via repr."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, (int, np.integer)):
        return mpmath.mpf(int(x))
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.N(x, mpmath.mp.dps + 5))
    return mpmath.mpf(repr(float(x))) if not isinstance(x, str) else mpmath.mpf(x)


def evalf_reference(expr: sp.Basic, values: Mapping[sp.Symbol, object], dps: int) -> mpmath.mpf:
    """The independent reference: SymPy's own evalf, with each parameter given as a Float of
    dps + 20 digits from its decimal string (0.2 is 1/5 to that precision).  Floats rather than
    exact rationals: substituting huge rationals into powers makes SymPy factor integers."""
    def convert(v):
        if isinstance(v, sp.Basic):
            return v
        if isinstance(v, (int, np.integer)):
            return sp.Integer(int(v))
        return sp.Float(v if isinstance(v, str) else repr(float(v)), dps + 20)

    subs = {k: convert(v) for k, v in values.items()}
    with mpmath.workdps(dps + 10):
        return mpmath.mpf(sp.N(expr, dps + 5, subs=subs))


def agree_digits(a, b) -> float:
    """Number of agreeing significant decimal digits between two mp numbers.

    Works at a precision above the CLI's maximum (2000 digits) whatever the caller's context,
    so two 50-digit values are never rounded to doubles before they are compared."""
    with mpmath.workdps(2100):
        a, b = mpmath.mpf(a), mpmath.mpf(b)  # exact: no mp number has more digits than this
        if a == b:
            return float("inf")
        return float(-mpmath.log10(abs(a - b) / max(abs(a), abs(b))))  # a != b: the scale is > 0


# ---- number systems: one compiled chain, three contexts ---------------------------------------
# As mpmath runs one algorithm under ctx_mp / ctx_fp / ctx_iv, a compiled chain of SymPy steps
# (:class:`Chain`) runs under a context: ``NumpyContext`` (float64, vectorised over arrays),
# ``MpContext`` (mpmath at any dps) or ``ArbContext`` (FLINT balls: every value is a rigorous
# enclosure).  A context knows how to take a user number, compile a list of expressions, run
# Gaussian expectations of compiled integrands and round the outputs; the chain knows nothing
# of the number system.
class Context:
    """The interface of a number system (see :class:`Chain`)."""

    name = ""

    def number(self, x):
        raise NotImplementedError

    def compile(self, exprs, args, *, extra: Mapping | None = None, cse: bool = False, raw: bool = False):
        """A function of ``args`` returning the tuple of ``exprs`` (SymPy) as numbers of this
        context, compiled once per (exprs, args, options): compiling again in a loop costs a
        cache look-up.

        ``extra`` maps further SymPy function names to implementations (beside the special
        functions of ``numerics.core.special``, which the compiled code always finds);
        ``cse`` computes common subexpressions once (large vectorised expressions);
        ``raw``: ``exprs`` is compiled in its own shape (one expression, a SymPy Tuple, nested
        lists) and the function returns the backend's output unconverted (a scalar, a nested
        tuple, an array)."""
        raise NotImplementedError

    def expect(self, groups, var):
        """Gaussian expectations: ``groups`` is a list of ``(fs, mu, s)`` (``fs`` SymPy
        integrands in ``var``, ``mu``/``s`` numbers of this context); returns the list of
        E f(mu + s zeta), zeta ~ N(0, 1), group by group, and an error estimate (0 for balls:
        the error is in the radius)."""
        raise NotImplementedError

    def finish(self, x):
        return x

    def like(self, outputs, inputs):
        """The outputs in the shape of the inputs (numpy: broadcast to their common shape)."""
        return outputs

    def scope(self):
        """The working precision of the context (a context manager)."""
        import contextlib

        return contextlib.nullcontext()

    def key(self):
        """What the numbers depend on (None: do not memoise runs under this context)."""
        return None


class NumpyContext(Context):
    """float64, every input broadcast as a numpy array; Gaussian expectations by the trapezoidal
    rule (steps h and h/2, the difference the error estimate) along a trailing axis."""

    name = "numpy"

    def __init__(self, step: float = 1 / 16, width: float = 9.0):
        self.step, self.width = step, width

    def number(self, x):
        return np.asarray(x, dtype=float)

    def like(self, outputs, inputs):
        shape = np.broadcast_shapes(*(np.shape(v) for v in inputs))
        return [np.array(np.broadcast_to(o, shape)) for o in outputs]

    def compile(self, exprs, args, *, extra=None, cse=False, raw=False):
        """See :meth:`Context.compile`; the numbers are float64 arrays."""
        return _compile(exprs, args, "numpy", extra, cse, raw)

    def expect(self, groups, var):
        from numerics.core.quadrature import gaussian_trapezoid

        out, err = [], 0.0
        for fs, mu, s in groups:
            f = self.compile(fs, (var,))
            mu_, s_ = np.asarray(mu, float)[..., None], np.asarray(s, float)[..., None]
            vals = []
            for h in (2 * self.step, self.step):
                z, w = gaussian_trapezoid(h, self.width)
                vals.append([np.sum(w * np.broadcast_to(v, np.broadcast(mu_, z).shape), axis=-1)
                             for v in f(mu_ + s_ * z)])
            out.extend(vals[1])
            err = max([err] + [float(np.max(np.abs(a - b))) for a, b in zip(*vals)])
        return out, err


class MpContext(Context):
    """mpmath at ``dps`` digits (working at dps + 10).  ``rule``: ``"trapezoid"`` (every
    expectation of a chain on shared nodes, ``quadrature.gaussian_expect_mp``) or
    ``"tanh-sinh"`` (``mpmath.quad`` on the whole line, one integrand at a time: the
    independent reference)."""

    name = "mpmath"

    def __init__(self, dps: int = 30, rule: str = "trapezoid"):
        if rule not in ("trapezoid", "tanh-sinh"):
            raise ValueError(f"rule must be trapezoid or tanh-sinh, got {rule!r}")
        self.dps, self.rule = int(dps), rule

    def scope(self):
        return mpmath.workdps(self.dps + 10)

    def key(self):
        return ("mpmath", self.dps, self.rule)

    def number(self, x):
        return to_mpf(x)

    def compile(self, exprs, args, *, extra=None, cse=False, raw=False):
        """See :meth:`Context.compile`; the numbers are mpf (mpc where complex) at the caller's
        working precision (compiling does not depend on ``dps``)."""
        return _compile(exprs, args, "mpmath", extra, cse, raw)

    def expect(self, groups, var):
        from numerics.core.quadrature import expect_mp_err, gaussian_expect_mp

        compiled = [(self.compile(fs, (var,)), len(fs), mu, s) for fs, mu, s in groups]
        if self.rule == "tanh-sinh":
            out, err = [], mpmath.mpf(0)
            for (fs, _, _), (_, n, mu, s) in zip(groups, compiled):
                for f in fs:
                    fk = self.compile([f], (var,))
                    fk = (lambda g: lambda z: g(z)[0])(fk)
                    v, e = expect_mp_err(fk, mu, s, self.dps + 5)
                    out.append(v)
                    err = max(err, e)
            return out, err
        n_total = sum(n for _, n, _, _ in compiled)

        def vector(z):
            vals = []
            for f, _, mu, s in compiled:
                vals.extend(f(mu + s * z))
            return vals
        vals, err = gaussian_expect_mp(vector, n_total, self.dps + 5)
        return list(vals), err

    def finish(self, x):
        with mpmath.workdps(self.dps):
            return +x


class ArbContext(Context):
    """FLINT balls at the working precision set by the caller (``numerics.core.arb.precision``);
    ``digits`` sets the Gaussian-tail target of the certified quadrature
    (``arb.gaussian_expectation`` with the tail bound ``arb.real_line_bound`` of each
    integrand)."""

    name = "arb"

    def __init__(self, digits: int = 30):
        self.digits = int(digits)

    def key(self):
        from flint import ctx

        return ("arb", self.digits, ctx.prec)

    def number(self, x):
        from numerics.core.arb import arb_of

        return arb_of(x)

    def compile(self, exprs, args, *, extra=None, cse=False, raw=False):
        """See :meth:`Context.compile`; ball code always computes common subexpressions once,
        and knows its functions itself (``extra`` is refused)."""
        from numerics.core.arb import compile_arb

        if extra:
            raise ValueError("the arb context compiles its own functions: no extra implementations")
        return compile_arb(exprs if raw else list(exprs), args)

    def expect(self, groups, var):
        from numerics.core.arb import compile_acb, gaussian_expectation, real_line_bound

        out = []
        for fs, mu, s in groups:
            for f in fs:
                out.append(gaussian_expectation(compile_acb(f, (var,)), mu, s, real_line_bound(f, var),
                                                self.digits))
        return out, 0


#: runs memoised by (chain, context key, values): a chain is built per active mutant set, so a
#: mutated derivation never meets a run of the true one
_RUNS: dict = {}

CONTEXTS = {"numpy": NumpyContext, "mpmath": MpContext, "arb": ArbContext}
#: the compilers of the two float contexts with their defaults (compiling depends on the number
#: system alone, not on the precision: an mpmath caller sets its own working precision)
NUMPY, MPMATH = NumpyContext(), MpContext()


@dataclass(frozen=True)
class Closed:
    """A step ``symbol = expr`` (expr in the chain's inputs and earlier steps)."""

    symbol: sp.Symbol
    expr: sp.Expr


@dataclass(frozen=True)
class Expect:
    """A step ``symbol = E f(mu + s zeta)``, zeta ~ N(0, 1): ``f`` in ``var``, ``mu`` and
    ``s`` in the chain's inputs and earlier steps.  Consecutive expectations at the same law
    (mu, s) share their nodes."""

    symbol: sp.Symbol
    f: sp.Expr
    var: sp.Symbol
    mu: sp.Expr
    s: sp.Expr

    def __post_init__(self):
        extra = sp.sympify(self.f).free_symbols - {self.var}
        if extra:  # the parameters enter through the law (mu, s): f is one function of var
            raise ValueError(f"the integrand of {self.symbol} depends on {sorted(map(str, extra))} "
                             f"besides {self.var}; put them in mu and s")


@dataclass(frozen=True)
class Chain:
    """A compiled chain of derivation steps: ``inputs`` (Symbols, the parameters), ``steps``
    (:class:`Closed` / :class:`Expect`, in order) and ``outputs`` ({name: expr} in the inputs
    and the step symbols).  :meth:`run` evaluates it under a :class:`Context`; the chain is
    written once and every number system runs the same steps."""

    inputs: tuple
    steps: tuple
    outputs: tuple  # ((name, expr), ...)

    def run(self, ctx: Context, values) -> dict:
        """{output name: value} and ``"_quad_err"`` (the quadrature error estimate) at
        ``values`` (a sequence aligned with ``inputs``, or a mapping by Symbol name)."""
        if isinstance(values, Mapping):
            values = [values[s.name] if s.name in values else values[s] for s in self.inputs]
        key = ctx.key()
        if key is not None:
            try:
                key = (self, key, tuple(values))
                hit = _RUNS.get(key)
            except TypeError:  # unhashable values (arrays): not memoised
                key = hit = None
            if hit is not None:
                return dict(hit)
        res = self._run(ctx, values)
        if key is not None:
            _RUNS[key] = res
            while len(_RUNS) > 128:
                _RUNS.pop(next(iter(_RUNS)))
        return dict(res)

    def _run(self, ctx: Context, values) -> dict:
        with ctx.scope():
            syms, vals = list(self.inputs), [ctx.number(v) for v in values]
            err = 0
            i, steps = 0, self.steps
            while i < len(steps):
                st = steps[i]
                if isinstance(st, Closed):
                    j = i
                    while j < len(steps) and isinstance(steps[j], Closed):
                        j += 1
                    block = steps[i:j]
                    new = ctx.compile([b.expr for b in block], tuple(syms))(*vals)
                else:
                    j = i
                    while j < len(steps) and isinstance(steps[j], Expect) and steps[j].var == st.var:
                        j += 1
                    block = steps[i:j]
                    laws: dict = {}
                    for b in block:
                        laws.setdefault((b.mu, b.s), []).append(b)
                    law_vals = ctx.compile([e for law in laws for e in law], tuple(syms))(*vals)
                    groups = [([b.f for b in members], law_vals[2 * k], law_vals[2 * k + 1])
                              for k, members in enumerate(laws.values())]
                    flat, e = ctx.expect(groups, st.var)
                    by_symbol = dict(zip([b.symbol for members in laws.values() for b in members], flat))
                    new = [by_symbol[b.symbol] for b in block]
                    err = max(err, e)
                syms += [b.symbol for b in block]
                vals += list(new)
                i = j
            names = [n for n, _ in self.outputs]
            out = ctx.like(ctx.compile([e for _, e in self.outputs], tuple(syms))(*vals), vals[:len(self.inputs)])
            res = {n: ctx.finish(v) for n, v in zip(names, out)}
            res["_quad_err"] = err
            res["_steps"] = dict(zip([s.name for s in syms[len(self.inputs):]], vals[len(self.inputs):]))
            return res


class Evaluator:
    """A claim's closed forms under any context: ``run(ctx, params) -> {key: value}``.

    Called as a claim's ``evaluate(params, dps)`` it runs under ``MpContext(dps)``;
    ``under(ctx, params)`` runs it in another number system.  ``contexts`` names the systems
    it runs under: a claim whose evaluator runs under ``"arb"`` is certifiable
    (``numerics.theory.certify``), decided by the claim's own evaluator.
    ``reference(params, dps)`` is the independent value a certificate is checked against:
    by default the same chain in mpmath with the other Gaussian rule (tanh-sinh on the whole
    line instead of the shared trapezoid); ``run`` may branch on ``ctx.rule`` for another
    independent algorithm.  ``own`` maps a context class to a run of its own under that
    context (``{MpContext: newton_polish}``: another algorithm for the same values), chosen by
    the context's type, never by its name."""

    def __init__(self, run, *, contexts=("numpy", "mpmath", "arb"), name: str = "", own=None):
        self.run = run
        self.own = dict(own or {})
        self.contexts = tuple(contexts)
        self.__name__ = name or getattr(run, "__name__", "evaluate")
        self.__doc__ = getattr(run, "__doc__", None)

    def supports(self, context: str) -> bool:
        return context in self.contexts

    def under(self, ctx: Context, params: dict) -> dict:
        if ctx.name not in self.contexts:
            raise ValueError(f"{self.__name__} does not run under the {ctx.name} context "
                             f"(it runs under {', '.join(self.contexts)})")
        run = self.own.get(type(ctx), self.run)
        return {k: v for k, v in run(ctx, params).items() if not k.startswith("_")}

    def __call__(self, params: dict, dps: int) -> dict:
        return self.under(MpContext(dps), params)

    def reference(self, params: dict, dps: int) -> dict:
        return self.under(MpContext(dps, rule="tanh-sinh"), params)

    def __repr__(self) -> str:
        return f"Evaluator({self.__name__}, contexts={self.contexts})"


def chain_evaluator(build, names: Sequence[str], *, name: str = "") -> Evaluator:
    """The :class:`Evaluator` of a claim whose closed forms are one chain: ``build()`` returns
    the :class:`Chain` (cache it per active mutant set with ``derivations.core.derivation``)
    and ``names`` are the claim's parameter names aligned with the chain's inputs."""
    names = tuple(names)

    def run(ctx, params):
        return build().run(ctx, [params[n] for n in names])
    return Evaluator(run, name=name or getattr(build, "__name__", "chain"))
