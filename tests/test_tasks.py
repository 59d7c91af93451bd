"""Trials inside a claim: same results for any number of workers, progress reported."""
import numpy as np
import pytest

from numerics.core.seeding import seed_sequence
from numerics.core.tasks import map_tasks, reporting, track, trial_workers


def _draw(task):
    key, n = task
    return np.random.default_rng(seed_sequence(7, "test.tasks", key)).standard_normal(n).tolist()


def test_map_tasks_gives_the_same_results_serially_and_in_a_pool():
    tasks = [(k, 5) for k in range(6)]
    serial = map_tasks(_draw, tasks, "draws")
    with trial_workers(2):
        pooled = map_tasks(_draw, tasks, "draws")
    assert pooled == serial
    assert len({tuple(x) for x in serial}) == 6  # different paths, different draws


def test_progress_is_reported_for_tracked_loops_and_maps():
    seen = []
    with reporting(lambda label, done, total: seen.append((label, done, total))):
        assert list(track(range(3), "loop")) == [0, 1, 2]
        map_tasks(_draw, [(0, 1), (1, 1)], "map")
    assert seen[-1] == ("map", 2, 2) and ("loop", 3, 3) in seen and ("loop", 0, 3) in seen
    assert list(track([1, 2], "silent")) == [1, 2]  # no reporter: nothing happens


def _sigint_disposition(_):
    import signal

    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_pool_workers_leave_sigint_to_the_parent_and_end_with_the_pool():
    import signal

    from numerics.core.tasks import _pool_processes, process_pool

    before = signal.getsignal(signal.SIGINT)
    with process_pool(2) as pool:
        assert pool.submit(_sigint_disposition, 0).result() is True
        assert signal.getsignal(signal.SIGINT) is not before  # the parent's handler stops the pool
        procs = _pool_processes(pool)
    assert signal.getsignal(signal.SIGINT) is before
    assert procs and not any(p.is_alive() for p in procs)


def test_a_pool_left_by_an_exception_terminates_its_workers_at_once():
    import time

    from numerics.core.tasks import _pool_processes, process_pool

    t0 = time.monotonic()
    try:
        with process_pool(2) as pool:
            pool.submit(time.sleep, 600)
            pool.submit(time.sleep, 600)
            pool.submit(time.sleep, 600)  # never started: cancelled
            procs = _pool_processes(pool)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    # the pool's manager thread may reap a worker while stop_pool waits for it: is_alive() can
    # lag for a moment, so poll (workers left running would sleep for 600 s)
    while any(p.is_alive() for p in procs) and time.monotonic() - t0 < 10:
        time.sleep(0.02)
    assert time.monotonic() - t0 < 10 and not any(p.is_alive() for p in procs)


def _worker_view(_):
    import os

    from threadpoolctl import threadpool_info

    return os.getpid(), os.environ.get("ATTNCHECK_TRIAL_WORKERS"), max(
        [i["num_threads"] for i in threadpool_info()] or [1])


def test_trial_workers_are_granted_inside_the_block_only():
    import os

    os.environ.pop("ATTNCHECK_TRIAL_WORKERS", None)
    with trial_workers(3.0):
        assert os.environ["ATTNCHECK_TRIAL_WORKERS"] == "3"
        with trial_workers(2):
            assert os.environ["ATTNCHECK_TRIAL_WORKERS"] == "2"
        assert os.environ["ATTNCHECK_TRIAL_WORKERS"] == "3"  # the outer grant is restored
    assert "ATTNCHECK_TRIAL_WORKERS" not in os.environ


def test_map_tasks_uses_a_pool_only_when_workers_and_tasks_are_more_than_one():
    import os

    me = os.getpid()
    assert [r[0] for r in map_tasks(_worker_view, [0, 1], "x")] == [me, me]  # no grant
    with trial_workers(2):
        assert [r[0] for r in map_tasks(_worker_view, [0], "x")] == [me]  # one task: here
        seen = []
        with reporting(lambda *a: seen.append(a)):
            out = map_tasks(_worker_view, [0, 1, 2], "pool")
    assert all(pid != me for pid, _, _ in out)
    # in a worker the tasks run serially, on one BLAS thread
    assert all(env == "1" and threads == 1 for _, env, threads in out)
    assert sorted(seen) == [("pool", 1, 3), ("pool", 2, 3), ("pool", 3, 3)]
    with trial_workers(1):
        assert [r[0] for r in map_tasks(_worker_view, [0, 1], "x")] == [me, me]
    with trial_workers(2):  # two tasks, two workers: a pool
        assert all(r[0] != me for r in map_tasks(_worker_view, [0, 1], "x"))
    os.environ["ATTNCHECK_TRIAL_WORKERS"] = ""  # set but empty: one worker
    try:
        assert [r[0] for r in map_tasks(_worker_view, [0, 1], "x")] == [me, me]
    finally:
        os.environ.pop("ATTNCHECK_TRIAL_WORKERS")


def _stubborn(ready):
    import signal
    import time

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ready.set()
    time.sleep(120)


def _sleeper(ready):
    import time

    ready.set()
    time.sleep(120)


def test_terminate_kills_what_ignores_sigterm_after_the_grace():
    import multiprocessing
    import signal

    from numerics.core.tasks import _terminate, kill_children

    ctx = multiprocessing.get_context("spawn")
    ready = [ctx.Event(), ctx.Event()]
    stubborn, polite = ctx.Process(target=_stubborn, args=(ready[0],)), ctx.Process(target=_sleeper, args=(ready[1],))
    stubborn.start()
    polite.start()
    assert all(r.wait(120) for r in ready)  # both have installed their handlers
    _terminate([stubborn, polite], grace=0.3)
    assert not stubborn.is_alive() and stubborn.exitcode == -signal.SIGKILL
    assert not polite.is_alive() and polite.exitcode == -signal.SIGTERM
    left = ctx.Process(target=_sleeper, args=(ctx.Event(),))
    left.start()
    kill_children(grace=0.5)
    assert not left.is_alive() and left.exitcode == -signal.SIGTERM


def test_an_interrupt_inside_interruptible_stops_first_then_raises():
    import os
    import signal
    import threading

    import pytest

    from numerics.core.tasks import interruptible

    stopped = []
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        with interruptible(lambda: stopped.append(1)):
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs before the next bytecode
    assert stopped == [1]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    seen = []

    def elsewhere():
        with interruptible(lambda: None):
            seen.append(signal.getsignal(signal.SIGINT))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert seen == [before[0]]  # outside the main thread nothing changes


def _slow_to_stop(ready):
    import os
    import signal
    import time

    def leave(*_):
        time.sleep(0.3)
        os._exit(0)

    signal.signal(signal.SIGTERM, leave)
    ready.set()
    time.sleep(120)


def test_a_terminated_process_is_given_the_grace_before_it_is_killed():
    import multiprocessing
    import signal

    from numerics.core.tasks import _terminate

    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    p = ctx.Process(target=_slow_to_stop, args=(ready,))
    p.start()
    assert ready.wait(120)
    _terminate([p], grace=30.0)
    assert p.exitcode == 0  # it finished its own cleanup: not killed
    ready = ctx.Event()
    p = ctx.Process(target=_slow_to_stop, args=(ready,))
    p.start()
    assert ready.wait(120)
    _terminate([p], grace=0.05)
    assert p.exitcode == -signal.SIGKILL  # its cleanup outlived the grace


class _FakePool:
    def __init__(self):
        import signal

        self._processes = {}
        self.calls = []
        self.signal = signal

    def shutdown(self, **kw):
        s = self.signal
        self.calls.append((kw, s.getsignal(s.SIGINT), s.getsignal(s.SIGTERM)))


def test_stop_pool_cancels_waits_and_ignores_interrupts_meanwhile():
    import signal
    import threading

    from numerics.core.tasks import stop_pool

    def on_int(*_):
        pass

    def on_term(*_):
        pass

    old = signal.signal(signal.SIGINT, on_int), signal.signal(signal.SIGTERM, on_term)
    try:
        pool = _FakePool()
        stop_pool(pool)
        assert pool.calls == [({"wait": False, "cancel_futures": True}, signal.SIG_IGN, signal.SIG_IGN),
                              ({"wait": True}, signal.SIG_IGN, signal.SIG_IGN)]
        assert signal.getsignal(signal.SIGINT) is on_int and signal.getsignal(signal.SIGTERM) is on_term
        elsewhere = _FakePool()
        errors = []

        def run():
            try:
                stop_pool(elsewhere)
            except Exception as e:  # signal handlers can be set in the main thread only
                errors.append(e)

        t = threading.Thread(target=run)
        t.start()
        t.join()
        assert errors == [] and [c[1:] for c in elsewhere.calls] == [(on_int, on_term)] * 2
    finally:
        signal.signal(signal.SIGINT, old[0])
        signal.signal(signal.SIGTERM, old[1])


def test_a_pool_has_as_many_processes_as_granted_and_no_more_than_tasks(monkeypatch):
    from numerics.core import tasks

    sizes = []
    real = tasks.process_pool

    def counted(n):
        sizes.append(n)
        return real(n)

    monkeypatch.setattr(tasks, "process_pool", counted)
    with trial_workers(5):
        map_tasks(_worker_view, [0, 1, 2], "x")
    with trial_workers(2):
        map_tasks(_worker_view, [0, 1, 2], "x")
    assert sizes == [3, 2]



# a parent that opens a pool of 2, prints its workers' pids (once both have started and run a
# task, or at once, while they are still starting) and sleeps
_ORPHAN_SCRIPT = """
import os, sys, time
from numerics.core.tasks import _pool_processes, process_pool
with process_pool(2) as pool:
    if sys.argv[1] == "started":
        seen = set()
        while len(seen) < 2:
            seen |= {f.result() for f in [pool.submit(os.getpid) for _ in range(8)]}
    else:
        pool.submit(os.getpid), pool.submit(os.getpid)
    print(' '.join(str(p.pid) for p in _pool_processes(pool)), flush=True)
    time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie waiting for whoever adopted it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("when", ["started", "starting"])
def test_a_pool_s_workers_die_with_a_parent_killed_outright(when):
    """SIGKILL gives the parent no chance to stop its pool: each worker's parent-death signal
    ends it, and a worker that was still starting when its parent died ends on noticing it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    if not os.path.isdir("/proc/self"):
        pytest.skip("the parent-death signal is Linux's; this test reads /proc")
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_SCRIPT, when], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert len(workers) == 2 and not any(_gone(p) for p in workers)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    t0 = time.monotonic()
    while not all(_gone(p) for p in workers) and time.monotonic() - t0 < 60:
        time.sleep(0.05)
    left = [p for p in workers if not _gone(p)]
    for p in left:  # do not leave them waiting for ever
        os.kill(p, signal.SIGKILL)
    assert not left, f"pool workers {left} outlived their parent"
