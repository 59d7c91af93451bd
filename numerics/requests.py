"""The one request layer under the command line and the Python API.

Every user request (``eval``, ``eval --certify``, ``solve``, ``sweep``, ``verify``, ``figure``,
``report``) is parsed and validated here, once: the claim ids, ``dps`` (its domain declared in
:mod:`numerics.core.precision`), ``seed``, ``mode``, ``workers``, ``mutate``, the problem options
and the parameters (through each claim's or problem's ``ParamSpace``).  The estimated memory
and time are checked against the limits (:mod:`numerics.core.resources`) before anything runs.
Results come back typed: :class:`Evaluation`, :class:`SolveResult` (numbers as
:class:`numerics.core.value.Value`), certified balls, sweep provenance.

Bad input raises :class:`ParameterError` (exit 2 on the command line, one line);
a numerical failure raises :class:`EvaluationError` (an ``ArithmeticError``; exit 1), a solve that
did not converge :class:`SolveError` (exit 1).  ``spell`` turns a parameter name into the way
the caller spells it in messages (``"dps"`` in Python, ``"--dps"`` on the command line).

``numerics.cli`` and ``attncheck`` import this module; it imports neither.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Callable, Mapping

from numerics import registry
from numerics.core import resources
from numerics.core.params import ParameterError
from numerics.core.precision import DPS, MAX_DPS, MIN_DPS
from numerics.core.results import RESULTS, SolveError, Solution  # noqa: F401  (SolveError: raised by callers)

MAX_WORKERS = 64
#: the most points one request (an array evaluation, a sweep) may ask for
MAX_POINTS = 100_000


class EvaluationError(ArithmeticError):
    """A closed form that could not be evaluated at valid parameters (a numerical failure, not
    bad input), or that gave a non-finite value: never returned as a result."""


def python_name(name: str) -> str:
    return name


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


# --- scalars ------------------------------------------------------------------------------------
def integer(name: str, value, lo: int, hi: int | None, spell: Callable = python_name) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo or (
            hi is not None and value > hi):
        raise ParameterError(f"{spell(name)} must be an integer in [{lo}, {hi if hi is not None else 'inf'}], "
                             f"got {value!r}")
    return int(value)


def dps(value, claim=None, spell: Callable = python_name) -> int:
    """``dps`` in [MIN_DPS, MAX_DPS], and at most the claim's ``max_dps``."""
    value = integer("dps", value, MIN_DPS, MAX_DPS, spell)
    cap = getattr(claim, "max_dps", MAX_DPS) or MAX_DPS
    if value > cap:
        raise ParameterError(f"{spell('dps')} {value}: {claim.id} supports {spell('dps')} {MIN_DPS}..{cap}")
    return value


def seed(value, spell: Callable = python_name) -> int:
    from numerics.core.seeding import DEFAULT_SEED

    return DEFAULT_SEED if value is None else integer("seed", value, 0, None, spell)


def mode(value) -> str:
    from numerics.claims.base import MODES

    if not isinstance(value, str) or value not in MODES:
        raise ParameterError(f"mode must be one of {', '.join(MODES)}, got {value!r}")
    return value


def claims_dps(chosen, value: int, spell: Callable = python_name) -> None:
    """``verify`` at a working precision other than the default: every chosen claim must compute
    its theory at that precision (``Claim.uses_dps``), up to its ``max_dps``; else the request is
    refused up front, naming the claims."""
    if value == DPS.default:
        return
    ignore = [c.id for c in chosen if not getattr(c, "uses_dps", True)]
    if ignore:
        verb = "does" if len(ignore) == 1 else "do"
        raise ParameterError(f"{spell('dps')} {value}: {', '.join(ignore)} {verb} not evaluate the theory at "
                             f"{spell('dps')} digits (float64, or a working precision of its own); run "
                             f"{'it' if len(ignore) == 1 else 'them'} without {spell('dps')}")
    for c in chosen:
        dps(value, c, spell)


def workers(value, spell: Callable = python_name) -> int:
    return integer("workers", value, 1, MAX_WORKERS, spell)


def mutate(value, spell: Callable = python_name) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= -1:
        raise ParameterError(f"{spell('mutate')} must be a finite number > -1, got {value!r}")
    return float(value)


def automatic_mutants(ids, mode_: str = "quick", seed_=None, *, sample=100, sample_seed=0, workers_=1,
                      budget=30.0, spell: Callable = python_name) -> tuple:
    """A validated ``mutate`` request: ``(claims, settings, sample, sample seed, workers, budget)``
    (``budget``: seconds per mutant, > 0, or None for no limit)."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, numbers.Real)
                               or not math.isfinite(budget) or budget <= 0):
        raise ParameterError(f"{spell('budget')} must be a number of seconds > 0, got {budget!r}")
    return (select(ids), settings(mode_, seed_), integer("sample", sample, 1, None, spell),
            integer("sample_seed", sample_seed, 0, None, spell), workers(workers_, spell), budget)


def settings(mode_: str = "quick", seed_=None, dps_: int = DPS.default, params: tuple = ()):
    """Validated claim settings (``numerics.claims.base.Settings``)."""
    from numerics.claims.base import Settings

    return Settings(mode=mode(mode_), seed=seed(seed_), dps=dps(dps_), params=params)


def point_settings(chosen, base, params: Mapping, spell: Callable = python_name):
    """``verify`` at a parameter point of the user's: every chosen claim must run its experiment
    at a point (``point_space``); the point is validated by the first one's space and the
    settings carry it (``Settings.params``).  No params: ``base`` unchanged."""
    if not params:
        return base
    point = None
    for c in chosen:
        if getattr(c, "point_space", None) is None:
            takers = [x.id for x in registry.claims().values() if getattr(x, "point_space", None) is not None]
            raise ParameterError(f"claim {c.id} runs at its built-in design only and takes no {spell('param')} "
                                 f"(claims that do: {', '.join(takers) or 'none'})")
        values = c.point_space.validate(params)
        point = point or values
    from dataclasses import replace

    return replace(base, params=tuple(sorted(point.items())))


def explore_request(ids, examples, max_shrinks, spell: Callable = python_name, within: Mapping | None = None):
    """``explore``: the chosen claims (all for none; a claim without a ``point_space`` runs its
    design), and the budget is bounded; returns the claims.  ``within`` (parameters pinned,
    ``explore --param``): each chosen claim must take every one of them; returns ``(claims,
    pinned values)`` then."""
    chosen = select(ids)
    integer("examples", examples, 1, 1000, spell)
    integer("shrinks", max_shrinks, 0, 1000, spell)
    if within is None:
        return chosen
    pinned = {}
    for c in chosen:
        space = getattr(c, "point_space", None)
        if space is None:
            raise ParameterError(f"claim {c.id} runs at its built-in design only and takes no {spell('param')}")
        unknown = sorted(set(within) - set(space.names))
        if unknown:
            raise ParameterError(f"claim {c.id}: unknown parameter(s) {', '.join(unknown)}; valid: "
                                 f"{', '.join(space.names)}")
        values = {n: space[n].parse(v) for n, v in within.items()}
        space.validate(values)  # with the defaults for the others: dependent endpoints, constraints
        pinned = pinned or values
    return chosen, pinned


# --- what is asked for --------------------------------------------------------------------------
def known(ids) -> None:
    """Refuse an unknown claim id (or prefix) from the index, before any claim is imported."""
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    try:
        registry.check_ids([i for i in ids if isinstance(i, str)])
    except KeyError as e:
        raise ParameterError(f"unknown claim id {e.args[0]!r}; `attncheck list` (attncheck.claims()) "
                             "lists them") from None


def claim(claim_id):
    if isinstance(claim_id, str):
        known([claim_id])
    table = registry.claims()
    if not isinstance(claim_id, str) or claim_id not in table:
        raise ParameterError(f"unknown claim id {claim_id!r}; `attncheck list` (attncheck.claims()) lists them")
    return table[claim_id]


def select(ids) -> list:
    """Claims by ids or prefixes (all for None or an empty list)."""
    if ids is not None and not isinstance(ids, (str, list, tuple)):
        raise ParameterError(f"ids must be a claim id, a list of ids or None, got {ids!r}")
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    if not all(isinstance(i, str) for i in ids):
        raise ParameterError(f"claim ids must be strings, got {ids!r}")
    try:
        return registry.select(ids)
    except KeyError as e:
        raise ParameterError(f"unknown claim id {e.args[0]!r}; `attncheck list` (attncheck.claims()) "
                             "lists them") from None


def evaluable(claim_id):
    c = claim(claim_id)
    if c.evaluate is None:
        raise ParameterError(f"claim {claim_id} has no closed form to evaluate; evaluable claims are marked "
                             "'eval' in `attncheck list`")
    return c


def problem(name):
    table = registry.problems()
    if not isinstance(name, str) or name not in table:
        raise ParameterError(f"unknown problem {name!r}; known: {', '.join(table) or 'none'}")
    return table[name]


def options(spec, given: Mapping, spell: Callable = python_name) -> dict:
    """A problem's options (``model``, ``loss``): each one it takes, among its choices."""
    out = {}
    for name, value in given.items():
        if value is None:
            continue
        if name not in spec.options:
            raise ParameterError(f"problem {spec.name} takes no {spell(name)}")
        if value not in spec.options[name]:
            raise ParameterError(f"{spell(name)} must be one of {', '.join(spec.options[name])}, got {value!r}")
        out[name] = value
    return out


# --- eval ---------------------------------------------------------------------------------------
@dataclass
class Evaluation:
    """A claim's closed forms at the user's parameters: ``values`` ({name: Value}, or {name:
    object array of Values} when parameters were arrays), ``raw`` (the evaluator's own dict, for
    a single point), the validated ``params`` and ``dps``."""

    claim_id: str
    params: dict
    dps: int
    values: dict
    raw: dict | None = None
    shape: tuple | None = None

    def __getitem__(self, key):
        return self.values[key]


def _one(c, values: dict, digits: int) -> dict:
    import mpmath

    try:
        out = c.evaluate(values, digits)
    except ParameterError:
        raise
    except (ArithmeticError, ValueError) as e:  # numerical failure, not bad input
        raise EvaluationError(f"{c.id} could not be evaluated at these parameters: {e}") from None
    bad = [k for k, v in out.items() if not isinstance(v, (bool, int)) and not mpmath.isfinite(v)]
    if bad:  # a non-finite value is never returned as a result
        raise EvaluationError(f"{c.id}: non-finite value for {', '.join(bad)} at these parameters")
    return out


def evaluate(claim_id, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name, announce=None,
             max_memory=None, max_time=None) -> Evaluation:
    """Validate and evaluate.  A parameter given as a numpy array (or several, broadcast
    together) evaluates the claim elementwise through its mpmath evaluator: every point is
    validated and priced before any is computed, and each output is an object array of Values
    of the broadcast shape (``np.asarray(a, dtype=float)`` gives the floats)."""
    import numpy as np

    from numerics.core import value as V

    c = evaluable(claim_id)
    digits = dps(dps_, c, spell)
    arrays = {k: v for k, v in params.items() if isinstance(v, np.ndarray)}
    if not arrays:
        values = c.param_space.validate(params)
        resources.check_cost(resources.priced(c.cost, values, what=f"evaluate of {c.id}"), announce=announce,
                   max_memory=max_memory, max_time=max_time)
        raw = _one(c, values, digits)
        return Evaluation(c.id, values, digits, V.values(raw, digits), raw)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        raise ParameterError(f"array parameters {', '.join(arrays)} do not broadcast together: "
                             f"shapes {', '.join(str(a.shape) for a in arrays.values())}") from None
    if math.prod(shape) == 0:
        raise ParameterError(f"array parameters {', '.join(arrays)}: no points (an empty array)")
    if math.prod(shape) > MAX_POINTS:
        raise ParameterError(f"array parameters {', '.join(arrays)}: {math.prod(shape)} points requested; "
                             f"at most {MAX_POINTS} per request")
    grids = {k: np.broadcast_to(a, shape) for k, a in arrays.items()}
    points = []
    for idx in np.ndindex(shape):
        point = {**params, **{k: g[idx].item() for k, g in grids.items()}}
        points.append(c.param_space.validate(point))
    if c.cost is not None:
        resources.check_cost(resources.many([c.cost(p) for p in points], 1, what=f"evaluation at {len(points)} points"),
                   announce=announce, max_memory=max_memory, max_time=max_time)
    results = [V.values(_one(c, p, digits), digits) for p in points]
    out = {}
    for key in results[0]:
        arr = np.empty(len(results), dtype=object)
        arr[:] = [r[key] for r in results]
        out[key] = arr.reshape(shape)
    validated = {**points[0], **{k: np.broadcast_to(a, shape).copy() for k, a in arrays.items()}}
    return Evaluation(c.id, validated, digits, out, None, shape)


def certify(claim_id, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name,
            timings: dict | None = None) -> tuple[dict, dict]:
    """``(validated params, {name: Ball})``: rigorous enclosures, each narrower than
    10^-(dps-3) (``numerics.theory.certify``); raises ParameterError for a claim without a
    certifier, EvaluationError when no certificate is found."""
    from numerics.theory import certify as cert

    c = claim(claim_id)
    if not cert.certifiable(c.id):
        raise ParameterError(f"claim {c.id} cannot be certified; certifiable claims: {', '.join(cert.certifiable_ids())}")
    digits = dps(dps_, None, spell)
    values = c.param_space.validate(params)
    from numerics.core.arb import ArbPrintError, CertifyError

    try:
        return values, cert.certify(c.id, values, digits, timings=timings)
    except ParameterError:
        raise
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        raise EvaluationError(f"{c.id} could not be certified at these parameters: {e}") from None


# --- solve --------------------------------------------------------------------------------------
@dataclass
class SolveResult(Solution):
    """A problem solved at the user's parameters, the same shape for every model: the
    ``Solution`` fields (``result``, ``iterations``, ``residual``, ``message`` = the solver's
    status) with ``raw`` = ``{name: Value}`` (order parameters, test error, ...; a QMC
    estimate carries its standard error), and ``stats`` the descriptive fields (quadrature,
    precision), as the problem's solve returned them (``numerics.problems.base.ProblemSpec``)."""

    problem: str = ""
    options: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return self.value[key]

    def keys(self):
        return self.value.keys()

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v}" for k, v in self.options.items())
        vals = ", ".join(f"{k}={v}" for k, v in list((self.raw or {}).items())[:4])
        more = ", ..." if len(self.raw or {}) > 4 else ""
        return (f"SolveResult({self.problem}{opts}: {self.result.value}, {self.iterations} iterations, "
                f"residual {self.residual:.2g}; {vals}{more})")


def solve_request(name, given_options: Mapping, params: Mapping, spell: Callable = python_name):
    """``(spec, options, validated params, Estimate)`` of a solve: the one place where a solve's
    options and parameters get their defaults and its cost is priced, for the command line and
    the Python API alike (``attncheck.solve_estimate``); nothing is computed."""

    spec = problem(name)
    opts = options(spec, given_options, spell)
    values = spec.param_space.validate(params)
    return spec, opts, values, resources.priced(spec.cost, opts, values, what=f"solve of {name}")


def solve(name, given_options: Mapping, params: Mapping, dps_=DPS.default, *, spell: Callable = python_name,
          announce=None, max_memory=None, max_time=None) -> SolveResult:
    """Validate, price and solve.  The result is returned whether or not it converged (the
    caller decides: the API raises SolveError, the CLI prints the status and exits 1); a
    non-converged result has no values."""
    spec, opts, values, estimate = solve_request(name, given_options, params, spell)
    digits = dps(dps_, None, spell)
    resources.check_cost(estimate, announce=announce, max_memory=max_memory, max_time=max_time)
    sol = spec.solve(opts, values, digits)
    return SolveResult(sol.result, sol.iterations, sol.residual, sol.raw if sol.ok else {}, sol.message,
                       dict(sol.stats), problem=spec.name, options=opts, params=values)


# --- sweep --------------------------------------------------------------------------------------
@dataclass
class SweepPlan:
    target: object  # numerics.sweep.Target
    grid: dict  # name -> list of raw values (fixed parameters as one-element lists)
    points: int
    cost: object  # numerics.core.resources.Estimate


def plan_sweep(target: str, grid: Mapping, fixed: Mapping, given_options: Mapping, dps_=DPS.default, *,
               workers_: int = 1, spell: Callable = python_name) -> SweepPlan:
    """A sweep of a claim's closed forms or of a problem's solve over the Cartesian product of
    ``grid`` ({name: list of values}) with ``fixed`` parameters: every point validated and the
    whole priced before any is computed."""
    from numerics import sweep as SW

    try:  # a target that is neither a claim (read from the index) nor a problem: refused before the claims load
        registry.check_ids([target] if isinstance(target, str) and target else [])
    except KeyError:
        if target not in registry.problems():
            raise ParameterError(f"unknown sweep target {target!r}: a claim id with 'eval' in `attncheck list`, or "
                                 f"a problem ({', '.join(registry.problems())})") from None
    claims, problems = registry.claims(), registry.problems()
    digits = dps(dps_, None, spell)
    n_workers = workers(workers_, spell)
    if target in claims:
        c = evaluable(target)
        if any(v is not None for v in given_options.values()):
            raise ParameterError(f"{spell('model')}/{spell('loss')} are options of a problem, not of a claim")
        dps(digits, c, spell)
        space, opts, price = c.param_space, {}, c.cost
    elif target in problems:
        spec = problems[target]
        opts = options(spec, given_options, spell)
        space = spec.param_space
        price = (lambda v: spec.cost(opts, v)) if spec.cost is not None else None
    else:
        raise ParameterError(f"unknown sweep target {target!r}: a claim id with 'eval' in `attncheck list`, or a "
                             f"problem ({', '.join(problems)})")
    if not grid:
        raise ParameterError("sweep needs at least one grid parameter")
    clash = sorted(set(fixed) & set(grid))
    if clash:
        raise ParameterError(f"parameter {clash[0]} is both fixed and swept")
    grid = {k: [str(x) if not isinstance(x, str) else x for x in v] for k, v in grid.items()}
    n = math.prod(len(v) for v in grid.values())
    if n > MAX_POINTS:
        raise ParameterError(f"grid: {n} points requested; at most {MAX_POINTS} per sweep")
    pts = [{**fixed, **p} for p in SW.points(grid)]
    checked = [space.validate(p) for p in pts]
    cost = resources.many([price(v) for v in checked] if price else [], n_workers, what=f"sweep of {len(pts)} points")
    tgt = SW.Target("claim" if target in claims else "problem", target, tuple(sorted(opts.items())))
    return SweepPlan(tgt, {**{k: [str(v)] for k, v in fixed.items()}, **grid}, len(pts), cost)


# --- figures ------------------------------------------------------------------------------------
def figure_fn(figure_id):
    table = registry.figures()
    if not isinstance(figure_id, str) or figure_id not in table:
        raise ParameterError(f"unknown figure {figure_id!r}; known: {', '.join(table) or 'none'}")
    return table[figure_id]


def output_path(path, suffixes: tuple, spell_option: str = "path") -> str:
    """An output path checked before any computation: its suffix, its folder, writable."""
    import os

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in suffixes:
        raise ParameterError(f"{spell_option} {path!r}: the file name must end in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ParameterError(f"{spell_option} {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ParameterError(f"{spell_option} {path!r}: not writable")
    if os.path.isdir(path):
        raise ParameterError(f"{spell_option} {path!r}: is a folder, expected a file")
    return path
