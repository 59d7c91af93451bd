"""Trials inside a claim: progress, and a process pool when the claim runs alone.

``track(items, label)`` wraps a loop so that the command running it can show progress (the CLI
installs a reporter with ``reporting``; elsewhere it costs nothing).  ``map_tasks(fn, items,
label)`` is ``[fn(x) for x in items]`` with progress, run in a pool of processes when the
caller granted workers to the trials of this claim (``trial_workers``: ``verify --workers N``
with fewer claims to compute than N).  Every task's seed must derive from its own arguments
(its path), never from the order the tasks run in, so the results are identical for any
number of workers.

Every pool of the project (claims, trials, sweep points) is a :func:`process_pool`: its workers
ignore SIGINT (a Ctrl-C or ``timeout -s INT`` reaches the whole process group; the parent
alone decides), and while it is open SIGINT and SIGTERM make the parent terminate the workers
at once, drop the tasks not started and raise ``KeyboardInterrupt`` (the command line exits
130).  No worker outlives the pool, and no helper process outlives the process (not even as a
zombie: :func:`_end_resource_tracker`).
"""
from __future__ import annotations

import os
import signal
import threading
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


def _report(label: str, done: int, total: int | None) -> None:
    if _REPORTER is not None:
        _REPORTER(label, done, total)


def progress(label: str, done: int, total: int | None = None) -> None:
    """Report ``done`` steps of ``total`` (None: no end known, e.g. a solver's iterations) under
    ``label`` to the reporter of :func:`reporting`, if any (elsewhere it costs nothing)."""
    _report(label, done, total)


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


# --- pools that stop at once --------------------------------------------------------------------
#: the pools (and other stoppers) open in this process: what an interrupt terminates
_LIVE: list = []
#: seconds a terminated worker gets before it is killed
GRACE_S = 2.0


def _worker_init() -> None:
    """In each worker: SIGINT is the parent's to handle; SIGTERM ends the worker (default); the
    worker dies with its parent (Linux), even if the parent is killed outright, and even if the
    parent died while the worker was starting, before it asked for the signal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked since its start (_Pool)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # adopted: the parent is gone already
        os._exit(1)


class _Pool(ProcessPoolExecutor):
    """A worker starts with SIGINT blocked (the mask survives fork and exec), so an interrupt
    that reaches the process group while the worker's interpreter starts, before
    :func:`_worker_init` ignores SIGINT, prints no traceback."""

    def _spawn_process(self):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super()._spawn_process()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _pool_processes(pool) -> list:
    return list((getattr(pool, "_processes", None) or {}).values())


def _terminate(processes, grace: float = GRACE_S) -> None:
    """SIGTERM every process, wait up to ``grace`` seconds, then SIGKILL the rest."""
    import time

    for p in processes:
        if p.is_alive():
            try:
                p.terminate()
            except (OSError, ValueError):
                pass
    end = time.monotonic() + grace
    for p in processes:
        p.join(max(0.0, end - time.monotonic()))
    for p in processes:
        if p.is_alive():
            try:
                p.kill()
            except (OSError, ValueError):
                pass
            p.join(1.0)


def stop_pool(pool) -> None:
    """Stop a pool now: cancel the tasks not started, terminate its workers (a second
    interrupt meanwhile is ignored, so the cleanup completes)."""
    main = threading.current_thread() is threading.main_thread()
    old = [signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)] if main else None
    try:
        processes = _pool_processes(pool)
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except Exception:  # pragma: no cover - an already broken pool
            pass
        _terminate(processes)
        try:
            pool.shutdown(wait=True)  # the pool's own threads end (its workers are gone)
        except Exception:  # pragma: no cover
            pass
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old[0])
            signal.signal(signal.SIGTERM, old[1])


def _on_interrupt(signum, frame):
    for stopper in list(_LIVE):  # the workers first: nothing keeps computing
        try:
            stopper()
        except Exception:  # pragma: no cover
            pass
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextmanager
def interruptible(stopper: Callable[[], None]):
    """Inside the block SIGINT and SIGTERM call ``stopper()`` (terminate the workers) and then
    raise ``KeyboardInterrupt`` in the main thread; outside a main thread, nothing changes."""
    main = threading.current_thread() is threading.main_thread()
    old = None
    _LIVE.append(stopper)
    if main:
        old = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
        signal.signal(signal.SIGINT, _on_interrupt)
        signal.signal(signal.SIGTERM, _on_interrupt)
    try:
        yield
    finally:
        _LIVE.remove(stopper)
        if old is not None:
            signal.signal(signal.SIGINT, old[0] if old[0] is not None else signal.SIG_DFL)
            signal.signal(signal.SIGTERM, old[1] if old[1] is not None else signal.SIG_DFL)


def _end_resource_tracker(grace: float = GRACE_S) -> None:
    """At exit: end multiprocessing's resource tracker and reap it.  Spawned workers start it
    (a helper process of this one, which keeps track of the pool's named semaphores); left
    alone it ends only once it sees this process gone, after it, and stays a zombie of no
    process of the run until init reaps it.  The finalizers multiprocessing runs at exit run
    first (those it runs before it joins its children: they release the semaphores), so nothing
    needs the tracker any more; then it is told to stop (its pipe closed), waited for ``grace``
    seconds, killed if it is still there (a process that holds its pipe), and reaped."""
    import sys
    import time

    rt = sys.modules.get("multiprocessing.resource_tracker")
    tracker = getattr(rt, "_resource_tracker", None)
    fd, pid = getattr(tracker, "_fd", None), getattr(tracker, "_pid", None)
    if fd is None or pid is None:
        return
    from multiprocessing import util

    util._run_finalizers(0)  # as multiprocessing's exit hook does first (each finalizer runs once)
    tracker._fd = tracker._pid = None
    os.close(fd)
    end = time.monotonic() + grace
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > end:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.01)
    except ChildProcessError:  # reaped already
        pass


_AT_EXIT: list = []


def _reap_helpers_at_exit() -> None:
    """Once per process, after multiprocessing is imported (its exit hook registered): at exit,
    :func:`_end_resource_tracker` (atexit runs the hooks last registered first)."""
    if not _AT_EXIT:
        import atexit
        import multiprocessing.util  # noqa: F401  (its exit hook first, so that this one runs before it)

        atexit.register(_end_resource_tracker)
        _AT_EXIT.append(True)


@contextmanager
def process_pool(n: int):
    """A ``ProcessPoolExecutor`` of ``n`` spawned workers that ignore SIGINT.  Leaving the block
    normally waits for the pool; leaving it by an exception or an interrupt (SIGINT, SIGTERM:
    ``KeyboardInterrupt``) cancels what has not started and terminates the workers at once.
    The process's helpers end with it (:func:`_end_resource_tracker`)."""
    import multiprocessing

    _reap_helpers_at_exit()
    pool = _Pool(max_workers=n, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init)
    with interruptible(lambda: _terminate(_pool_processes(pool), grace=0.5)):
        try:
            yield pool
        except BaseException:  # also GeneratorExit: a consumer that stopped early
            stop_pool(pool)
            raise
        pool.shutdown(wait=True)


def kill_children(grace: float = GRACE_S) -> None:
    """Terminate every child process this process started with multiprocessing (after an
    interrupt: e.g. the nannies and workers of a local dask cluster)."""
    import multiprocessing

    _terminate(multiprocessing.active_children(), grace)


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
    out = [None] * len(items)
    with process_pool(min(n, len(items))) as pool:
        futures = {pool.submit(_serial_in_worker, fn, x): i for i, x in enumerate(items)}
        from concurrent.futures import as_completed

        for done, f in enumerate(as_completed(futures), 1):
            out[futures[f]] = f.result()
            _report(label, done, len(items))
    return out


class OverBudget(BaseException):
    """A block took more than its budget (:func:`time_budget`; a BaseException: no ``except
    Exception`` of the code it ran, e.g. a claim under a mutant, turns it into a result)."""


@contextmanager
def time_budget(seconds: float | None):
    """Raise :class:`OverBudget` in the block after ``seconds``: an interval timer in the main
    thread of a POSIX process, elsewhere (a task of a dask worker) a timer thread that raises it
    in this thread (both between two bytecodes, not inside one long C call)."""
    import signal
    import threading

    if not seconds:
        yield
        return
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        def over(signum, frame):
            raise OverBudget()

        old = signal.signal(signal.SIGALRM, over)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return
    import ctypes

    me, lock, on = threading.get_ident(), threading.Lock(), [True]

    def late():
        with lock:
            if on[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(me), ctypes.py_object(OverBudget))
    timer = threading.Timer(seconds, late)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            on[0] = False
        timer.cancel()
