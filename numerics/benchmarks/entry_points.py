"""Benchmarks of the entry points against each other.

* ``solve_api_cli``: ``attncheck.solve(...)`` against ``attncheck solve`` for the same request,
  each in a fresh process: wall time and peak resident memory (``os.wait4``), as ratios.
* ``sweep_cluster_heavy``: a sweep of step-4 attention solves (seconds each) on a dask
  LocalCluster of 2 workers against one of 1 worker, both started before the clock starts.
Every figure is measured in this run, on this machine.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

#: the documented request (``docs/benchmarks.md``); quick: a smaller QMC law of the same model
REQUEST = {"model": "attention", "loss": "logistic", "alpha1": 2}
QUICK_QMC = {"log2_points": 8, "n_scrambles": 2}


def _child(args) -> tuple[float, float]:
    """(wall s, peak RSS bytes) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])}... exited {proc.returncode}")
    return time.perf_counter() - t0, usage.ru_maxrss * 1024.0


def solve_api_cli(settings) -> dict:
    """The same solve through the Python API and the command line, one fresh process each."""
    request = {**REQUEST, **settings.pick(QUICK_QMC, {})}
    opts = {k: v for k, v in request.items() if k in ("model", "loss")}
    params = {k: v for k, v in request.items() if k not in opts}
    cli = [sys.executable, "-m", "numerics.cli", "solve", "sparse-token",
           *[x for k, v in opts.items() for x in (f"--{k}", v)], *[x for k, v in params.items()
                                                                   for x in ("--param", f"{k}={v}")]]
    api = [sys.executable, "-c", f"import attncheck; attncheck.solve('sparse-token', **{request!r})"]
    api_s, api_b = _child(api)
    cli_s, cli_b = _child(cli)
    return {"request": " ".join(f"{k}={v}" for k, v in request.items()), "api_s": round(api_s, 2),
            "cli_s": round(cli_s, 2), "api_peak_MB": round(api_b / 1e6), "cli_peak_MB": round(cli_b / 1e6),
            "ratio_api_over_cli_time": round(api_s / cli_s, 2), "ratio_api_over_cli_memory": round(api_b / cli_b, 2)}


#: heavy points: an attention solve each (QMC 2^9 x 4 on L = 10, a few seconds on one core)
HEAVY_QMC = {"log2_points": "9", "n_scrambles": "4"}


def sweep_cluster_heavy(settings) -> dict:
    """The same sweep of heavy points (step-4 attention solves over alpha1) on a LocalCluster
    of 2 worker processes against 1; the clusters are started (and one point computed on each
    worker, so that imports and compilation are not timed) before the clock starts."""
    import tempfile

    from numerics import sweep as SW
    from numerics.core.cluster import client_for

    n = settings.pick(6, 12)
    alphas = [repr(round(1.0 + 0.25 * i, 2)) for i in range(n)]
    grid = {"alpha1": alphas, **{k: [v] for k, v in HEAVY_QMC.items()}}
    target = SW.Target("problem", "sparse-token", (("loss", "logistic"), ("model", "attention")))
    out = {"points": n, "point": f"attention solve, {HEAVY_QMC}"}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            with client_for("local", n_workers=workers) as client:
                address = client.scheduler.address
                warm = {"alpha1": ["0.5", "0.75"][:workers], **{k: [v] for k, v in HEAVY_QMC.items()}}
                SW.run(target, warm, os.path.join(tmp, f"warm{workers}"), scheduler=address)
                t0 = time.perf_counter()
                SW.run(target, grid, os.path.join(tmp, f"w{workers}"), scheduler=address)
                out[f"workers{workers}_s"] = round(time.perf_counter() - t0, 2)
    out["seconds_per_point_1_worker"] = round(out["workers1_s"] / n, 2)
    out["ratio_2_workers_over_1"] = round(out["workers1_s"] / out["workers2_s"], 2)
    return out


BENCHMARKS = {"solve.api_cli": solve_api_cli, "sweep.cluster_heavy": sweep_cluster_heavy}
