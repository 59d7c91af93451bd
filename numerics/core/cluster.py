"""dask.distributed: run claims, trials and sweep points on a cluster.

``--scheduler local`` starts a LocalCluster on this machine (loopback only, one thread per
worker process, no dashboard); ``--scheduler tcp://HOST:PORT`` connects to an existing
scheduler (see docs/scaling.md for SLURM through dask-jobqueue).  Every task's seed derives
from its path, so the records are those of the in-process run.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

from numerics.core.params import ParameterError


def available_workers() -> int:
    """The CPUs this process may use (at most 8)."""
    return max(1, min(len(os.sched_getaffinity(0)), 8))


@contextmanager
def client_for(address: str, n_workers: int | None = None):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ParameterError("--scheduler needs dask.distributed: pip install 'attncheck[cluster]'") from None
    if address == "local":
        from numerics.core.tasks import interruptible, kill_children

        n = n_workers or available_workers()
        # an interrupt (SIGINT, SIGTERM) closes the cluster (its nannies must not restart the
        # workers), then terminates whatever worker process is left
        with interruptible(_quiet):
            cluster = None
            try:
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=40, preload=[__name__])
                client = Client(cluster)
                yield client
            except BaseException:
                _quiet()
                for nanny in list(getattr(cluster, "workers", {}).values()):
                    nanny.auto_restart = False  # a killed worker is not restarted
                kill_children(grace=1.0)
                if cluster is not None:
                    _close(locals().get("client"), cluster, timeout=2)
                    # not closed within the timeout: distributed's exit hook must not wait for it
                    getattr(type(cluster), "_instances", set()).discard(cluster)
                raise
            _close(client, cluster)
        return
    if not address.startswith(("tcp://", "tls://", "inproc://", "ucx://")):
        raise ParameterError(f"--scheduler must be 'local' or a scheduler address such as tcp://host:8786, got {address!r}")
    try:
        client = Client(address, timeout="10s")
    except OSError as e:
        raise ParameterError(f"--scheduler {address}: cannot connect ({e})") from None
    try:
        yield client
    except BaseException:  # an interrupt: the scheduler forgets this client's tasks
        _close(client, timeout=2)
        raise
    client.close()


def dask_setup(worker) -> None:
    """Preload of the local cluster's workers: SIGINT is the parent's to handle (a Ctrl-C reaches
    the whole process group; the parent closes the cluster)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _quiet() -> None:
    """No log tracebacks of dask's while a cluster is being torn down after an interrupt."""
    import logging

    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 10)


def _close(client, cluster=None, timeout=None) -> None:
    """Close the client (and a local cluster); after an interrupt within ``timeout`` seconds
    and quietly (the workers may be gone already)."""
    import contextlib

    for part in (client, cluster):
        if part is None:
            continue
        if timeout is None:
            part.close()
            continue
        with contextlib.suppress(Exception):
            part.close(timeout=timeout)
