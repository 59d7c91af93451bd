"""Benchmarks of the machinery around the claims: cache, workers, cluster, precision.

* ``verify_cache_workers``: ``verify`` of a group of claims cold (no cache, one process), warm
  (every verdict from the cache) and cold with two worker processes; ratios to the cold run.
* ``eval_vs_dps``: the time of ``eval`` of a closed form against the working precision.
* ``sweep_cluster``: sweep throughput in process against a dask LocalCluster on loopback.
* ``cheap_start``: ``attncheck list`` and the first ``eval`` of a claim in a fresh process.
Every figure is measured in this run, on this machine.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

QUICK_CLAIMS = ["B.coercivity", "B.kl.bound", "B.lemma41.projection"]
FULL_CLAIMS = ["B", "A.grad", "A.thm1"]


def _verify(ids, cache_dir, *extra) -> float:
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": cache_dir}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "numerics.cli", "verify", *ids, *extra], env=env,
                   capture_output=True, check=True)
    return time.perf_counter() - t0


def verify_cache_workers(quick: bool) -> dict:
    """verify of a few claims: cold, warm (from the cache) and with two workers; ratios to cold."""
    ids = QUICK_CLAIMS if quick else FULL_CLAIMS
    with tempfile.TemporaryDirectory() as tmp:
        cold = _verify(ids, tmp)
        warm = _verify(ids, tmp)
        pool = _verify(ids, tmp, "--no-cache", "--workers", "2")
    return {"claims": " ".join(ids), "cold_s": round(cold, 2), "warm_s": round(warm, 2),
            "workers2_s": round(pool, 2), "warm_speedup": round(cold / warm, 1),
            "workers2_speedup": round(cold / pool, 2), "cpus": os.cpu_count()}


def eval_vs_dps(quick: bool) -> dict:
    """The time of `eval` of a closed form against the working precision (dps)."""
    import attncheck

    claim, params = "B.rate.exponent", {"beta": 2, "M": 10_000}
    out = {"claim": claim}
    for dps in (15, 50, 200) if quick else (15, 50, 200, 500, 1000):
        t0 = time.perf_counter()
        attncheck.evaluate(claim, dps=dps, **params)
        out[f"dps{dps}_s"] = round(time.perf_counter() - t0, 4)
    return out


def sweep_cluster(quick: bool) -> dict:
    """Sweep throughput in process against a dask LocalCluster on loopback."""
    from numerics import sweep as SW

    grid = {"beta": [repr(float(b)) for b in range(1, 9 if quick else 33)], "M": ["1000", "100000"]}
    target = SW.Target("claim", "B.rate.exponent")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        SW.run(target, grid, os.path.join(tmp, "a"))
        here = time.perf_counter() - t0
        t0 = time.perf_counter()
        SW.run(target, grid, os.path.join(tmp, "b"), scheduler="local")
        there = time.perf_counter() - t0
    n = len(grid["beta"]) * len(grid["M"])
    return {"points": n, "in_process_points_per_s": round(n / here, 1),
            "local_cluster_points_per_s": round(n / there, 1),
            "note": "the cluster's start (about 2-4 s) is included; it pays off for costly points"}


def cheap_start(quick: bool) -> dict:
    """`attncheck list` and the first `eval` of a claim in a fresh process."""
    env = dict(os.environ)
    out = {}
    for name, args in (("list_s", ["list"]), ("first_eval_s", ["eval", "B.rate.exponent"])):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "numerics.cli", *args], env=env, capture_output=True, check=True)
            best = min(best, time.perf_counter() - t0)
        out[name] = round(best, 3)
    return out


BENCHMARKS = {"verify.cache_workers": verify_cache_workers, "eval.dps": eval_vs_dps,
              "sweep.cluster": sweep_cluster, "start.cheap": cheap_start}
