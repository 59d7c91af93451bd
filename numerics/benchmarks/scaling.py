"""Benchmarks of the machinery around the claims: cache, workers, cluster, precision.

* ``verify_cache_workers``: ``verify`` of a group of claims cold (no cache, one process), warm
  (every verdict from the cache) and cold with two worker processes; ratios to the cold run.
* ``eval_vs_dps``: the time of ``eval`` of Theorem 3 (A.thm3.q2_cosine) against the working
  precision, and its h-moment quadrature against mpmath.quad.
* ``sim_vs_blas``: the sparse-token training simulator at d = 1000 against the bare BLAS
  products (and the data draw) it cannot avoid.
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


def verify_cache_workers(settings) -> dict:
    """verify of a few claims: cold, warm (from the cache) and with two workers; ratios to cold."""
    ids = settings.pick(QUICK_CLAIMS, FULL_CLAIMS)
    with tempfile.TemporaryDirectory() as tmp:
        cold = _verify(ids, tmp)
        warm = _verify(ids, tmp)
        pool = _verify(ids, tmp, "--no-cache", "--workers", "2")
    return {"claims": " ".join(ids), "cold_s": round(cold, 2), "warm_s": round(warm, 2),
            "workers2_s": round(pool, 2), "warm_speedup": round(cold / warm, 1),
            "workers2_speedup": round(cold / pool, 2), "cpus": os.cpu_count()}


def eval_vs_dps(settings) -> dict:
    """``evaluate`` of A.thm3.q2_cosine (both losses; the logistic h-moments by the shared-node
    trapezoid of ``numerics.core.quadrature.gaussian_expect_mp``) against dps, after one
    warm-up call that compiles the derivation; and, at dps 30 and 100, the four logistic
    h-moments by that trapezoid against mpmath.quad (tanh-sinh) one moment at a time."""
    import attncheck
    from numerics.theory.paper_a.alignment import h_moments
    from numerics.theory.paper_a.models import LOGISTIC

    claim = "A.thm3.q2_cosine"
    attncheck.evaluate(claim, dps=15)  # compile the derivation once
    out = {"claim": claim}
    for dps in settings.pick((30, 100, 300), (30, 100, 300, 500, 1000)):
        out[f"dps{dps}_s"] = round(_cpu(lambda: attncheck.evaluate(claim, dps=dps)), 3)
    for dps in (30, 100):
        trap = _cpu(lambda: h_moments(LOGISTIC, dps=dps))
        ts = _cpu(lambda: h_moments(LOGISTIC, rule="tanh-sinh", dps=dps))
        out[f"h_moments_dps{dps}_trapezoid_s"] = round(trap, 4)
        out[f"h_moments_dps{dps}_speedup_vs_tanh_sinh"] = round(ts / trap, 1)
    out["time"] = "process CPU time (the machine may be shared)"
    return out


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def sim_vs_blas(settings) -> dict:
    """Steps 1-3 of the sparse-token training simulator (``run_two_steps``, both losses on one
    D0) at d = 1000, L = 10, against, in the same run and on the same shapes, (a) the bare
    BLAS matrix-vector products it cannot avoid (per loss: g @ X^T 1/L, X w and p @ X with X
    viewed as (n0 L, d): three reads of X) and (b) those products plus one draw of the data
    (n0 L d standard normals, the floor of any simulator of this model).  Best of 3 each.
    ``ratio_bound_...`` is the largest bare-products / simulator ratio that any simulator drawing
    its data can reach: the products over the products plus the cheapest draw of the same normals
    among numpy's bit generators, in float64 and float32."""
    import numpy as np
    from threadpoolctl import threadpool_info

    from numerics.experiments.paper_a.sparse_token import SparseTokenModel
    from numerics.experiments.paper_a.sparse_token_training import run_two_steps

    d, L = 1000, 10
    n0 = settings.pick(d, 2 * d)
    model = SparseTokenModel(L=L, R=3, pi=0.2, theta=6.0, d=d)
    ss = np.random.SeedSequence(0)
    sim = _best(lambda: run_two_steps(model, n0, ("logistic", "square"), eta_w=0.5, eta_b=0.5, eta_q=0.5,
                                      beta=1.0, seed=ss))
    rng = np.random.default_rng(0)
    X2 = rng.standard_normal((n0 * L, d))
    p, w = rng.standard_normal(n0 * L), rng.standard_normal(d)

    def products():
        for _ in range(2):  # two losses
            p @ X2, X2 @ w, p @ X2
    blas = _best(products)
    draw = _best(lambda: rng.standard_normal((n0, L, d)))
    # the cheapest draw of the same n0 L d normals that numpy offers (bit generator x dtype):
    # blas / (blas + that draw) bounds the ratio of any simulator that draws its data
    fastest, fastest_s = None, float("inf")
    for bits in (np.random.PCG64, np.random.SFC64, np.random.Philox):
        gen = np.random.Generator(bits(0))
        for dtype in (np.float64, np.float32):
            buf = np.empty((n0, L, d), dtype)
            t = _best(lambda: gen.standard_normal(out=buf, dtype=dtype))
            if t < fastest_s:
                fastest, fastest_s = f"{bits.__name__} {np.dtype(dtype).name}", t
    kernels = sorted({f"{i['internal_api']}:{i.get('architecture', '?')}x{i['num_threads']}"
                      for i in threadpool_info() if i["user_api"] == "blas"})
    return {"d": d, "L": L, "n0": n0, "X_MB": round(n0 * L * d * 8 / 1e6), "simulator_s": round(sim, 3),
            "blas_products_s": round(blas, 3), "draw_s": round(draw, 3),
            "ratio_blas_over_simulator": round(blas / sim, 2),
            "ratio_blas_plus_draw_over_simulator": round((blas + draw) / sim, 2),
            "fastest_draw": fastest, "fastest_draw_s": round(fastest_s, 3),
            "ratio_bound_blas_over_blas_plus_fastest_draw": round(blas / (blas + fastest_s), 2),
            "blas": " ".join(kernels)}


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def sweep_cluster(settings) -> dict:
    """Sweep throughput in process against a dask LocalCluster on loopback."""
    from numerics import sweep as SW

    grid = {"beta": [repr(float(b)) for b in range(1, settings.pick(9, 33))], "M": ["1000", "100000"]}
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


def cheap_start(settings) -> dict:
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


BENCHMARKS = {"verify.cache_workers": verify_cache_workers, "eval.dps": eval_vs_dps, "sim.two_steps": sim_vs_blas,
              "sweep.cluster": sweep_cluster, "start.cheap": cheap_start}
