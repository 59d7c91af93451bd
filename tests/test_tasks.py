"""Trials inside a claim: same results for any number of workers, progress reported."""
import numpy as np

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
