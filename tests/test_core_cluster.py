"""numerics.core.cluster: the scheduler address, the workers' share of the machine, and the
quiet, bounded close of a cluster (the local cluster itself: tests/test_sweep.py, test_runner.py)."""
import logging
import os
import signal
import threading

import pytest

from numerics.core import cluster
from numerics.core.params import ParameterError


def test_available_workers_is_the_cpus_of_this_process_at_most_eight(monkeypatch):
    assert cluster.available_workers() == max(1, min(len(os.sched_getaffinity(0)), 8))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(32)))
    assert cluster.available_workers() == 8
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert cluster.available_workers() == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set())
    assert cluster.available_workers() == 1


def test_a_scheduler_address_is_local_or_a_url():
    for bad in ("127.0.0.1:8786", "http://x:1", "", "LOCAL"):
        with pytest.raises(ParameterError) as e:
            with cluster.client_for(bad):
                pass
        assert str(e.value) == ("--scheduler must be 'local' or a scheduler address such as "
                                f"tcp://host:8786, got {bad!r}")


def test_dask_setup_leaves_sigint_to_the_parent_in_the_main_thread_only():
    before = signal.getsignal(signal.SIGINT)
    try:
        seen = []
        t = threading.Thread(target=lambda: (cluster.dask_setup(None), seen.append(signal.getsignal(signal.SIGINT))))
        t.start()
        t.join()
        assert seen == [before]
        cluster.dask_setup(None)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_quiet_silences_the_teardown_loggers():
    names = ("distributed", "tornado", "asyncio")
    old = {n: logging.getLogger(n).level for n in names}
    try:
        cluster._quiet()
        assert all(logging.getLogger(n).level == logging.CRITICAL + 10 for n in names)
    finally:
        for n, level in old.items():
            logging.getLogger(n).setLevel(level)


class Part:
    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def close(self, **kw):
        self.calls.append(kw)
        if self.fail:
            raise RuntimeError("already gone")


def test_close_is_plain_without_a_timeout_and_quiet_with_one():
    client, cl = Part(), Part()
    cluster._close(client, cl)
    assert client.calls == [{}] and cl.calls == [{}]
    client, cl = Part(fail=True), Part(fail=True)
    cluster._close(client, cl, timeout=2)  # after an interrupt: errors suppressed
    assert client.calls == [{"timeout": 2}] and cl.calls == [{"timeout": 2}]
    with pytest.raises(RuntimeError):
        cluster._close(Part(fail=True))
    only = Part()
    cluster._close(only, None, timeout=1)
    cluster._close(None, only)
    assert only.calls == [{"timeout": 1}, {}]
