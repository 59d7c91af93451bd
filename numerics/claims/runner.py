"""Collect the evidence of many claims: from the verdict cache, in process, or in a pool.

Every task's seed derives from its path (claim id, then sub-task names), never from the order
tasks run in, so the evidence of a claim is the same whether it runs alone, inside its family,
in a pool of any size or from the cache (timing fields aside).
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterator

from numerics.claims.base import Evidence, Settings
from numerics.core import cache


def _collect_in_worker(claim_id: str, settings: Settings, files: tuple = ()) -> Evidence:
    from threadpoolctl import threadpool_limits

    from numerics.core import registry

    for f in files:  # claims from the user's files exist in the worker too
        registry.add_claims_file(f)
    with threadpool_limits(1):  # one BLAS thread per worker: the pool is the parallelism
        return registry.claims()[claim_id].collect(settings)


def collect_all(claims, settings: Settings, *, workers: int = 1, use_cache: bool = True,
                scheduler: str | None = None,
                on_start: Callable | None = None) -> Iterator[tuple[object, Evidence, bool]]:
    """Yield ``(claim, evidence, cached)`` in the order of ``claims``: from the cache, in
    process, in a pool of ``workers`` processes, or on the dask cluster at ``scheduler``."""
    from numerics.core.registry import EXTRA_FILES

    files = tuple(EXTRA_FILES)
    claims = list(claims)
    found = {c.id: cache.load(c, settings) for c in claims} if use_cache else {}
    todo = [c for c in claims if found.get(c.id) is None]
    if scheduler and todo:
        from numerics.core.cluster import client_for

        with client_for(scheduler) as client:
            futures = {c.id: client.submit(_collect_in_worker, c.id, settings, files, pure=False) for c in todo}
            yield from _drain(claims, found, lambda c: futures[c.id].result(), settings, use_cache, on_start)
        return
    if workers > 1 and len(todo) > 1:
        ctx = __import__("multiprocessing").get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=ctx) as pool:
            futures = {c.id: pool.submit(_collect_in_worker, c.id, settings, files) for c in todo}
            yield from _drain(claims, found, lambda c: futures[c.id].result(), settings, use_cache, on_start)
        return
    from numerics.core.tasks import trial_workers

    with trial_workers(workers):  # one claim to compute: its trials get the workers
        yield from _drain(claims, found, lambda c: _real(c).collect(settings), settings, use_cache, on_start)


def _real(c):
    """The Claim behind an index stub (imported only when its evidence must be computed)."""
    from numerics.core import registry

    return registry.claim(c.id) if isinstance(c, registry.ClaimStub) else c


def _drain(claims, found, get, settings, use_cache, on_start):
    for c in claims:
        ev = found.get(c.id)
        if ev is not None:
            yield c, ev, True
            continue
        if on_start:
            on_start(c)
        ev = get(c)
        c = _real(c)
        cache.record_time(c.id, settings.mode, ev.elapsed_s)
        if use_cache:
            cache.store(c, settings, ev)
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

