"""Collect the evidence of many claims: from the verdict cache, in process, or in a pool.

Every task's seed derives from its path (claim id, then sub-task names), never from the order
tasks run in, so the evidence of a claim is the same whether it runs alone, inside its family,
in a pool of any size or from the cache (timing fields aside).

A claim whose theory or experiment raises does not stop the run: its evidence carries the
error (:func:`error_evidence`; the verdict is an error, never cached) and the other claims run.
An interrupt (SIGINT, SIGTERM) stops the pool's workers at once (``numerics.core.tasks``); the
evidence finished by then is in the cache.
"""
from __future__ import annotations

import itertools
import time
from concurrent.futures import Future
from typing import Callable, Iterator

from numerics.claims.base import CODE_ERRORS, SIDES, Evidence, Settings, raised_in
from numerics.core import cache


def built_in(claim) -> bool:
    """A claim of the project (not of a plugin or a `--claims` file)."""
    module = getattr(claim.experiment, "__module__", None) or ""
    return module.split(".")[0] in cache.PROJECT_PACKAGES


def error_text(claim_id: str, exc: BaseException, claim=None) -> tuple[str, str]:
    """``(text, side)`` of an exception a claim raised: ``side`` is where
    (:func:`numerics.claims.sides.raised_in`: ``theory``, ``experiment`` or ``claim``), and
    ``text`` one line naming the side, the claim and the exception (``experiment of ID failed:
    TYPE: MESSAGE``); a programming error (``CODE_ERRORS``) in a built-in claim is an internal
    error of attncheck."""
    what = f"{type(exc).__name__}: {exc}".strip().replace("\n", " ")
    if len(what) > 400:
        what = what[:399] + "…"
    side = raised_in(exc)
    if isinstance(exc, CODE_ERRORS) and claim is not None and built_in(claim):
        where = "claim code" if side == "claim" else side
        return f"internal error in the {where} of {claim_id}: {what} (a defect of attncheck; please report it)", side
    return f"{SIDES[side].format(id=claim_id)}: {what}", side


def error_evidence(claim_id: str, settings: Settings, exc: BaseException, claim=None,
                   elapsed_s: float = 0.0) -> Evidence:
    """The evidence of a claim that raised: no rows, and ``error`` naming the side that raised,
    the claim and the exception (:func:`error_text`).  The side is ``details["side"]``, where it
    was raised (file:line in function) ``details["raised_at"]``."""
    import traceback

    text, side = error_text(claim_id, exc, claim)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return Evidence(claim_id=claim_id, comparisons=[], settings=settings,
                    details={"side": side, "raised_at": where}, elapsed_s=elapsed_s, error=text)


def collect_one(claim, settings: Settings) -> Evidence:
    """``claim.collect(settings)``, or its error evidence when the claim raises (an interrupt,
    a refusal up front by the resource limits, or a defect of the claim's definition, a
    :class:`~numerics.registry.RegistryError`, still propagates).  At its design and unmutated,
    the steps its mutants and outputs rewrite must be reached (:func:`check_steps`)."""
    from derivations.core import active_mutants, reaching
    from numerics.claims.base import UndeclaredParameter
    from numerics.core.resources import ResourceError
    from numerics.registry import RegistryError

    t0 = time.perf_counter()
    claim = _real(claim)
    try:
        with reaching() as seen:
            evidence = claim.collect(settings)
    except ResourceError:
        raise
    except UndeclaredParameter as e:
        raise RegistryError(f"claim {claim.id}: {e}") from None
    except RegistryError:
        raise
    except Exception as e:
        return error_evidence(claim.id, settings, e, claim, time.perf_counter() - t0)
    if not settings.params and not active_mutants():
        check_steps(claim, settings, seen)
    return evidence


def check_steps(claim, settings: Settings, seen: set) -> None:
    """The steps that the claim's mutants and outputs rewrite are steps its theory reaches (else
    the mutant, or the ±5 % scaling, checks nothing): a :class:`~numerics.registry.RegistryError`
    naming the claim, the mutant or output, and the fix.

    ``seen`` is what the claim's collect reached (``derivations.core.reaching``).  A step not
    seen there may be hidden by a cache of the theory that an earlier claim of this process
    filled; those steps are probed: the claim is collected once more with an identity mutant of
    each active (its experiment from the memo; every cache of derived theory is keyed by the
    active mutants, so its theory is built afresh and reaches every step it uses).  A step that
    the probe does not reach either is never reached.  A probe that raises decides nothing."""
    from derivations.core import APPLIED, Mutant, all_mutants, mutated
    from numerics.registry import RegistryError

    table = all_mutants()
    users = {}  # step -> what rewrites it
    for name in claim.mutants:
        users.setdefault(table[name].step, f"mutant {name} rewrites step {table[name].step!r}")
    for name in claim.outputs:
        users.setdefault(name, f"output step {name!r} (scaled by the ±5 % test)")
    missing = sorted(set(users) - seen)
    if not missing:
        return
    tag = next(_PROBES)
    probes = [Mutant(f"{s}:reached?{tag}", s, "identity: is the step reached?", lambda e: e) for s in missing]
    try:
        with mutated(*probes):
            claim.collect(settings)
    except Exception:
        return
    never = [s for s, p in zip(missing, probes) if not APPLIED.get(p.name)]
    if never:
        what = users[never[0]]
        raise RegistryError(f"claim {claim.id}: {what}, which its theory never reaches; name a step of the "
                            f"derivation the claim computes (derivations.core.step), or drop it"
                            + (f" ({len(never) - 1} more such steps: {', '.join(never[1:])})" if len(never) > 1 else ""))


#: a fresh name for each probe of :func:`check_steps` (a probe must miss every cache)
_PROBES = itertools.count()


def share_memo(folder: str | None, wait: bool) -> None:
    """In a pool's process: the claims' experiment memo becomes the pool's :class:`SharedMemo`
    in ``folder``, so an experiment that several claims read is computed once in the pool;
    ``wait``: whether this task waits for an entry another process is computing."""
    from numerics.claims import base
    from numerics.core.shared_memo import SharedMemo

    if not folder:
        return
    if not (isinstance(base._MEMO, SharedMemo) and str(base._MEMO.folder) == folder):
        base._MEMO = SharedMemo(folder)
    base._MEMO.wait = wait


#: what a pool's process returns for a claim it gave back (:func:`_collect_in_worker`)
BUSY = "busy"


def _collect_in_worker(claim_id: str, settings: Settings, files: tuple = (), memo_folder: str | None = None,
                       wait: bool = True):
    """The claim's evidence, computed in a pool's process.  With ``wait=False``, a claim that
    asks for an experiment another process is computing is given back (:data:`BUSY`) instead
    of waiting for it: the process takes the next claim, and the pool starts this one again
    later, waiting then (the experiment is read from the shared memo by then)."""
    from threadpoolctl import threadpool_limits

    from numerics import registry
    from numerics.core.shared_memo import Busy

    share_memo(memo_folder, wait)
    try:
        for f in files:  # claims from the user's files exist in the worker too
            registry.add_claims_file(f)
        claim = registry.claims()[claim_id]
    except Exception as e:
        return error_evidence(claim_id, settings, e)
    try:
        with threadpool_limits(1):  # one BLAS thread per worker: the pool is the parallelism
            return collect_one(claim, settings)
    except Busy:
        return BUSY


def longest_first(todo, settings: Settings, prefix: str = "") -> list:
    """The claims in the order a pool should start them: those with no recorded time on this
    machine first (in their order), then the recorded ones, longest first, so that no long
    claim is left for the end while the other processes idle.  ``prefix``: whose times (``""``:
    collecting a claim's evidence; ``"mutate:"``: its automatic mutants)."""
    times = cache.recorded_times(settings.mode)
    return sorted(todo, key=lambda c: (prefix + c.id in times, -times.get(prefix + c.id, 0.0)))


def pool_size(workers: int | None, todo: int) -> int:
    """The processes a run of ``todo`` claims to compute uses: ``workers`` if given; else
    (the default) one per usable CPU, at most one per claim, and one process for a single
    claim (a pool's start-up costs more than a small claim)."""
    from numerics.core.cluster import available_workers

    if workers is not None:
        return int(workers)
    return max(1, min(available_workers(), todo)) if todo > 1 else 1


def collect_all(claims, settings: Settings, *, workers: int | None = None, use_cache: bool = True,
                scheduler: str | None = None,
                on_start: Callable | None = None) -> Iterator[tuple[object, Evidence, bool]]:
    """Yield ``(claim, evidence, cached)`` in the order of ``claims``: from the cache, in
    process, in a pool of ``workers`` processes (default :func:`pool_size`), or on the dask
    cluster at ``scheduler``.  The processes of a pool share one experiment memo
    (:class:`~numerics.core.shared_memo.SharedMemo` in a temporary folder).  Evidence with an
    ``error`` stands for a claim that raised; the others still run."""
    import shutil
    import tempfile

    from numerics.registry import EXTRA_FILES

    files = tuple(EXTRA_FILES)
    claims = list(claims)
    found = {c.id: cache.load(c, settings) for c in claims} if use_cache else {}
    todo = [c for c in claims if found.get(c.id) is None]
    workers = pool_size(workers, len(todo))
    stored: set = set()
    if scheduler and todo:
        from numerics.core.cluster import client_for

        with client_for(scheduler) as client:
            futures = {c.id: client.submit(_collect_in_worker, c.id, settings, files, pure=False) for c in todo}
            try:
                yield from _drain(claims, found, lambda c: futures[c.id].result(), settings, use_cache, on_start,
                                  stored)
            except BaseException:
                _keep_finished(todo, futures, lambda f: f.status == "finished", settings, use_cache, stored)
                raise
        return
    if workers > 1 and len(todo) > 1:
        from numerics.core.tasks import process_pool

        folder = tempfile.mkdtemp(prefix="attncheck-memo-")
        try:
            with process_pool(min(workers, len(todo))) as pool:
                futures = {c.id: Future() for c in todo}
                for c in longest_first(todo, settings):
                    _launch(pool, c, (settings, files, folder), futures[c.id], wait=False)
                try:
                    yield from _drain(claims, found, lambda c: futures[c.id].result(), settings, use_cache,
                                      on_start, stored)
                except BaseException:
                    _keep_finished(todo, futures, lambda f: f.done() and not f.cancelled() and f.exception() is None,
                                   settings, use_cache, stored)
                    raise
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    from numerics.core.tasks import trial_workers

    with trial_workers(workers):  # one claim to compute: its trials get the workers
        yield from _drain(claims, found, lambda c: collect_one(c, settings), settings, use_cache, on_start, stored)


def _launch(pool, c, args, final: Future, wait: bool) -> None:
    """Submit claim ``c`` to ``pool``; ``final`` gets its evidence.  A claim given back
    (:data:`BUSY`) is submitted again, behind the claims queued so far, to wait this time."""
    def done(f):
        if f.cancelled():
            final.cancel()
            return
        try:
            result = f.result()
            if result == BUSY:
                _launch(pool, c, args, final, wait=True)
                return
            final.set_result(result)
        except BaseException as e:  # a worker gone with its task, or a pool shut down
            if not final.done():
                final.set_exception(e)

    pool.submit(_collect_in_worker, c.id, *args, wait).add_done_callback(done)


def _keep_finished(todo, futures, finished, settings, use_cache, stored) -> None:
    """After an interrupt: the evidence computed but not yet yielded goes to the cache too."""
    if not use_cache:
        return
    for c in todo:
        f = futures.get(c.id)
        if c.id in stored or f is None:
            continue
        try:
            if finished(f):
                _record(c, f.result(), settings, use_cache, stored)
        except Exception:  # a worker gone with its task: nothing to keep
            continue


def _record(c, ev, settings, use_cache, stored) -> None:
    if getattr(ev, "error", ""):  # an error is not evidence: never cached, rerun next time
        return
    cache.record_time(c.id, settings.mode, ev.elapsed_s)
    if use_cache:
        cache.store(c, settings, ev)
        stored.add(c.id)


def _real(c):
    """The Claim behind an index stub (imported only when its evidence must be computed)."""
    from numerics import registry

    return registry.claim(c.id) if isinstance(c, registry.ClaimStub) else c


def _drain(claims, found, get, settings, use_cache, on_start, stored=None):
    stored = set() if stored is None else stored
    for c in claims:
        ev = found.get(c.id)
        if ev is not None:
            yield c, ev, True
            continue
        if on_start:
            on_start(c)
        ev = get(c)
        if not getattr(ev, "error", ""):
            c = _real(c)
        else:
            try:
                c = _real(c)
            except Exception:  # a claim that cannot even be imported keeps its stub
                pass
        _record(c, ev, settings, use_cache, stored)
        yield c, ev, False


def estimate(claims, settings: Settings, use_cache: bool = True) -> tuple[float, int, int]:
    """(seconds, claims with a recorded time, claims served from the cache) for a run: from the
    times recorded on this machine (``numerics.core.cache.record_time``)."""
    times = cache.recorded_times(settings.mode)
    total, known, cached = 0.0, 0, 0
    for c in claims:
        if use_cache and cache.load(c, settings) is not None:
            cached += 1
            continue
        if c.id in times:
            total += times[c.id]
            known += 1
    return total, known, cached

