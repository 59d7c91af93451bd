"""``mutate.workers``: automatic mutants of one claim (``attncheck mutate``) on one process
against two, and the time per mutant; ``mutate.claims``: several claims on one process against
two, each claim's mutants in one process of the pool (``mutate_all``).  Every figure is
measured in this run, on this machine."""
from __future__ import annotations

import time

#: a claim whose theory is a closed form of a few steps (quick: a sample of 20 of its mutants)
CLAIM = "B.kl.bound"


def mutate_workers(settings) -> dict:
    """The same seeded sample of ``CLAIM``'s automatic mutants on 1 and on 2 processes (the
    claim collected once beforehand, so imports and the experiment are not timed on 1 process;
    each process of the pool collects it once, which is timed)."""
    from numerics import registry
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate, reference

    claim = registry.claims()[CLAIM]
    run = Settings(mode="quick", seed=settings.seed)
    reference(claim, run)
    n = settings.pick(20, 100)
    out = {"claim": CLAIM, "sample": n}
    for workers in (1, 2):
        t0 = time.perf_counter()
        r = mutate(claim, run, sample=n, workers=workers, use_cache=False)
        out[f"workers{workers}_s"] = round(time.perf_counter() - t0, 2)
    out["generated"] = r.generated
    out["per_mutant_ms"] = round(1000 * out["workers1_s"] / max(1, len(r.outcomes)))
    out["score"] = r.score
    out["ratio_2_over_1"] = round(out["workers2_s"] / out["workers1_s"], 2)
    return out


#: claims of closed forms (quick: a sample of 8 mutants each, as the catalogue run of docs/mutate.md)
CLAIMS = ("B.kl.bound", "B.forward.linearity", "B.coercivity.identity", "B.lemma41.projection")


def mutate_claims(settings) -> dict:
    """The same seeded samples of ``CLAIMS``' automatic mutants, the claims in turn on one process
    against the claims spread over a pool of two (each spawned process imports the project and
    collects its claims, which is timed)."""
    from numerics import registry
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate_all

    claims = [registry.claims()[c] for c in CLAIMS]
    run = Settings(mode="quick", seed=settings.seed)
    n = settings.pick(8, 100)
    out = {"claims": list(CLAIMS), "sample": n}
    for workers in (1, 2):
        t0 = time.perf_counter()
        results = list(mutate_all(claims, run, sample=n, workers=workers, use_cache=False))
        out[f"workers{workers}_s"] = round(time.perf_counter() - t0, 2)
        out[f"outcomes{workers}"] = [[(o.name, o.status) for o in r.outcomes] for r in results]
    out["same_outcomes"] = out.pop("outcomes1") == out.pop("outcomes2")
    out["ratio_2_over_1"] = round(out["workers2_s"] / out["workers1_s"], 2)
    return out


BENCHMARKS = {"mutate.workers": mutate_workers, "mutate.claims": mutate_claims}
