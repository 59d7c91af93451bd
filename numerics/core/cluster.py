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
        n = n_workers or available_workers()
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    if not address.startswith(("tcp://", "tls://", "inproc://", "ucx://")):
        raise ParameterError(f"--scheduler must be 'local' or a scheduler address such as tcp://host:8786, got {address!r}")
    try:
        client = Client(address, timeout="10s")
    except OSError as e:
        raise ParameterError(f"--scheduler {address}: cannot connect ({e})") from None
    try:
        yield client
    finally:
        client.close()
