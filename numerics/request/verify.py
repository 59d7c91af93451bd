"""``verify``: which claims run, at which settings, on how many processes, and how long that
should take, decided before anything runs; then the run itself.

:func:`plan_verify` is the one orchestration of a verify, the same for ``attncheck verify`` and
``attncheck.verify``.  It refuses a bad request in a fixed order: an unknown id (from the claim
index, nothing imported yet), the mutation, ``power``'s exclusions, the settings and workers,
the parameter point, the claims' precision.  It then chooses the claims (index stubs when the
verdict cache is read: a claim is imported only when its evidence must be computed; a point of
the user's neither reads nor writes the cache), estimates the run from the times recorded on
this machine, sizes the pool and, when a limit was given, checks the estimate against it.
:func:`run_verify` collects and judges what the plan chose.  Showing the run (progress, the
verdicts, an exit code) is the caller's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator, Mapping

from numerics import registry
from numerics.core import resources
from numerics.core.params import ParameterError, parse_assignments
from numerics.core.precision import DPS
from numerics.request import validate
from numerics.request.find import ids_of, known, select, stubs
from numerics.request.validate import python_name


@dataclass(frozen=True)
class VerifyPlan:
    """A verify validated and priced, nothing computed: ``claims`` (index stubs when the cache
    is read), their ``settings``, ``mutate`` (every theory value times 1 + mutate), whether the
    verdict cache is read and written (``use_cache``), the processes (``workers``) and the
    cluster (``scheduler``) the claims run on, and the estimate from the times recorded on this
    machine: ``seconds`` on one core for the claims to compute, ``timed`` of them with a
    recorded time, ``cached`` served from the cache.  A ``power`` plan holds the claims
    themselves and no estimate."""

    claims: tuple
    settings: object  # numerics.claims.base.Settings
    mutate: float = 0.0
    use_cache: bool = True
    workers: int = 1
    scheduler: str | None = None
    seconds: float = 0.0
    timed: int = 0
    cached: int = 0

    @property
    def todo(self) -> int:
        """The claims whose evidence is computed (not read from the cache)."""
        return len(self.claims) - self.cached


def plan_verify(ids=None, mode_: str = "quick", seed_=None, dps_: int = DPS.default, *, mutate_=0.0,
                params: Mapping | Iterable[str] | None = None, workers_=None, scheduler: str | None = None,
                cache: bool = True, power: bool = False, record: bool = False, spell: Callable = python_name,
                announce: Callable | None = None) -> VerifyPlan:
    """The plan of a verify of ``ids`` (ids or prefixes; all for None), every refusal a
    ParameterError in the caller's spelling.  ``params``: a point of the user's ({name: value},
    or ``NAME=VALUE`` items as typed on the command line); ``workers_`` None: one process per
    CPU when two or more claims are computed (``numerics.claims.runner.pool_size``); ``power``:
    the claims' mutants instead of their verdicts, ``record`` (with ``power``): recorded as the
    power ratchet; ``announce(text)``: told of a run estimated long."""
    ids = ids_of(ids)
    known(ids)  # from the index: an unknown id is refused before anything heavy is imported
    shift = validate.mutate(mutate_, spell)
    if power and shift:
        raise ParameterError(f"{spell('power')} and {spell('mutate')} are exclusive")
    if record and not power:
        raise ParameterError(f"{spell('record_ratchet')} records what {spell('power')} computes: give "
                             f"{spell('power')} too")
    run = validate.settings(mode_, seed_, dps_, spell=spell)
    if workers_ is not None:
        validate.workers(workers_, spell)
    if record:
        _ratchet_settings(run, params, spell)
    if params:  # a parameter point of the user's: only claims whose experiment takes one
        point = parse_assignments(params) if not isinstance(params, Mapping) else params
        run = point_settings(select(ids), run, point, spell)
        cache = False  # a one-off point: neither read nor written
    if run.dps != DPS.default:
        claims_dps(select(ids), run.dps, spell)
    if power:
        chosen = tuple(select(ids))
        if record:
            _built_in_only(chosen, spell)
        return VerifyPlan(chosen, run, shift, bool(cache), 1, scheduler)
    from numerics.claims.runner import estimate, pool_size

    chosen = tuple(stubs(ids) if cache else select(ids))
    seconds, timed, cached = estimate(chosen, run, use_cache=bool(cache))
    todo = len(chosen) - cached
    workers = pool_size(workers_, todo)
    if todo and resources.explicit():  # a limit given (option, argument or environment)
        resources.check(resources.verify_cost(seconds, todo, workers), announce=announce)
    return VerifyPlan(chosen, run, shift, bool(cache), workers, scheduler, seconds, timed, cached)


def run_verify(plan: VerifyPlan, on_start: Callable | None = None) -> Iterator[tuple]:
    """``(claim, verdict, cached)`` for each claim of the plan, in its order: the evidence read
    from the cache or computed (in process, in a pool, on the cluster:
    ``numerics.claims.runner.collect_all``), judged under the plan's mutation.  ``on_start(claim)``
    is called as a claim's computation starts."""
    from numerics.claims.base import judge
    from numerics.claims.runner import collect_all

    for claim, evidence, cached in collect_all(plan.claims, plan.settings, workers=plan.workers,
                                               use_cache=plan.use_cache, scheduler=plan.scheduler,
                                               on_start=on_start):
        yield claim, judge(evidence, plan.mutate, claim), cached


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
        validate.dps(value, c, spell)


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
    return replace(base, params=tuple(sorted(point.items())))


def _ratchet_settings(run, params, spell: Callable) -> None:
    """The power ratchet is recorded at quick size, the default seed and dps, at the design."""
    from numerics.claims.ratchet import SETTINGS

    for given, option in ((run.mode != SETTINGS.mode, "full"), (run.seed != SETTINGS.seed, "seed"),
                          (run.dps != SETTINGS.dps, "dps"), (params, "param")):
        if given:
            raise ParameterError(f"{spell('record_ratchet')} records at quick size, seed {SETTINGS.seed} and "
                                 f"dps {SETTINGS.dps}: drop {spell(option)}")


def _built_in_only(chosen, spell: Callable) -> None:
    """The power ratchet records the project's claims, not a plugin's."""
    from numerics.claims.runner import built_in

    plugins = [c.id for c in chosen if not built_in(c)]
    if plugins:
        raise ParameterError(f"{spell('record_ratchet')} records the built-in claims only, not {', '.join(plugins)}")
