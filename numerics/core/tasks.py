"""Trials inside a claim: progress, and a process pool when the claim runs alone.

``track(items, label)`` wraps a loop so that the command running it can show progress (the CLI
installs a reporter with ``reporting``; elsewhere it costs nothing).  ``map_tasks(fn, items,
label)`` is ``[fn(x) for x in items]`` with progress, run in a pool of processes when the
caller granted workers to the trials of this claim (``trial_workers``: ``verify --workers N``
with fewer claims to compute than N).  Every task's seed must derive from its own arguments
(its path), never from the order the tasks run in, so the results are identical for any
number of workers.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterable

_REPORTER: Callable[[str, int, int], None] | None = None
_ENV = "ATTNCHECK_TRIAL_WORKERS"


@contextmanager
def reporting(reporter: Callable[[str, int, int], None] | None):
    """Send ``(label, done, total)`` of every tracked loop to ``reporter`` inside the block."""
    global _REPORTER
    old, _REPORTER = _REPORTER, reporter
    try:
        yield
    finally:
        _REPORTER = old


def _report(label: str, done: int, total: int) -> None:
    if _REPORTER is not None:
        _REPORTER(label, done, total)


def track(items: Iterable, label: str):
    """Iterate over ``items``, reporting progress under ``label``."""
    items = list(items)
    for i, x in enumerate(items):
        _report(label, i, len(items))
        yield x
    _report(label, len(items), len(items))


@contextmanager
def trial_workers(n: int):
    """Let ``map_tasks`` inside the block use ``n`` processes (inherited by nothing else: the
    pool's own processes run their tasks serially)."""
    old = os.environ.get(_ENV)
    os.environ[_ENV] = str(int(n))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(_ENV, None)
        else:
            os.environ[_ENV] = old


def _serial_in_worker(fn, x):
    os.environ[_ENV] = "1"
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # one BLAS thread per process: the pool is the parallelism
        return fn(x)


def map_tasks(fn: Callable, items: Iterable, label: str) -> list:
    """``[fn(x) for x in items]`` in order, with progress; in a pool of processes when trial
    workers were granted.  ``fn`` must be a module-level function (picklable)."""
    items = list(items)
    n = int(os.environ.get(_ENV, "1") or 1)
    if n <= 1 or len(items) <= 1:
        return [fn(x) for x in track(items, label)]
    import multiprocessing

    out = [None] * len(items)
    with ProcessPoolExecutor(max_workers=min(n, len(items)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_serial_in_worker, fn, x): i for i, x in enumerate(items)}
        from concurrent.futures import as_completed

        for done, f in enumerate(as_completed(futures), 1):
            out[futures[f]] = f.result()
            _report(label, done, len(items))
    return out
