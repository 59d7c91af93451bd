"""The verification report's content, computed once for every format: per claim its verdict,
mutation power, automatic mutants, certificate and figures (:class:`Entry`), and the run's
provenance.  The HTML page (``numerics.report``) and the LaTeX document
(``numerics.report_latex``) lay it out.

:func:`collect` reads the verdict cache, and records next to it each claim's mutation power
(``numerics.claims.power.cached_power``, the records ``verify --power`` fills too) and each
figure's PNG, so a report of cached claims reruns no claim, mutant or figure (the automatic
mutants are read, computed only when asked: ``report --automatic-mutants``); its progress says
per claim what it reuses and what it computes, with an estimate from the times recorded on this
machine.
"""
from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass

from numerics.report_assets import _figure_png, figures_of, plan


#: the provenance table's row names
PROVENANCE_NAMES = {"mode": "mode", "seed": "seed", "dps": "digits (dps)", "versions": "package versions",
                    "commit": "git commit", "machine": "machine", "cpus": "CPUs", "python": "Python",
                    "generated": "generated", "seconds": "computed in (s)"}


def provenance(settings) -> dict:
    from numerics.core.cache import git_commit, versions

    return {"mode": settings.mode, "seed": settings.seed, "dps": settings.dps, "versions": versions(),
            "commit": git_commit(), "machine": platform.platform(), "cpus": os.cpu_count(),
            "python": platform.python_implementation() + " " + platform.python_version(),
            "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


@dataclass
class Entry:
    """One claim of the report: its verdict, mutation power and figures (``(id, PNG base64)``
    each, in the order the claim names them)."""

    claim: object
    verdict: object
    power: object | None
    cached: bool
    figures: list
    certificate: object | None  # numerics.theory.certify.Certificate at the defaults, or None
    #: the automatic mutants (numerics.claims.mutate.Mutation) recorded or computed, or None
    automatic: object | None = None


def collect(claims, settings, *, with_power: bool = True, with_figures: bool = True, use_cache: bool = True,
            with_automatic: bool = False, progress=None) -> tuple[list, dict]:
    """The report's content, whatever its format: ``(entries, provenance)``.  ``progress(claim,
    text)`` is told per claim, before its power and figures are computed, what is reused and what
    is computed (:func:`plan`).  The automatic mutants are those ``attncheck mutate`` recorded;
    ``with_automatic``: the missing ones are computed (``numerics.report_mutate``)."""
    from numerics.claims.base import judge
    from numerics.claims.power import cached_power
    from numerics.claims.runner import collect_all
    from numerics.report_mutate import find, plan as automatic_plan
    from numerics.theory.certify import at_defaults

    t0 = time.time()
    entries, figures_done = [], {}
    # one process: the mutants' theory (power) and the figures read the experiments from this
    # process's memo, which a pool's workers would not fill
    for claim, evidence, cached in collect_all(claims, settings, workers=1, use_cache=use_cache):
        v = judge(evidence, 0.0, claim)
        fids = figures_of(claim) if with_figures else ()
        if progress:
            progress(claim, plan(claim, settings, cached, evidence.elapsed_s, with_power=with_power, figures=fids,
                                 use_cache=use_cache, done=set(figures_done))
                     + "; " + automatic_plan(claim, settings, compute=with_automatic, use_cache=use_cache))
        p = cached_power(claim, settings, evidence, use_cache)[0] if with_power and claim.mutants else None
        for fid in fids:
            if fid not in figures_done:
                figures_done[fid] = _figure_png(fid, settings, use_cache)
        entries.append(Entry(claim, v, p, cached, [(f, figures_done[f]) for f in fids if figures_done[f]],
                             at_defaults(claim), find(claim, settings, compute=with_automatic, use_cache=use_cache)))
    prov = provenance(settings)
    prov["seconds"] = round(time.time() - t0, 1)
    return entries, prov


def _tally(entries) -> str:
    """How many verdicts passed, failed and raised (an error is never counted as passed)."""
    from collections import Counter

    n = Counter(e.verdict.status for e in entries)
    return ", ".join(f"{n[s]} {word}" for s, word in (("passed", "passed"), ("failed", "failed"), ("error", "errors"))
                     if n[s] or s == "passed")


def _killed(p) -> str:
    if p is not None and p.error:
        return "ERROR"
    return "" if p is None else f"{sum(m.killed for m in p.mutants)}/{len(p.mutants)}"


def _tolerance_note(v, cached) -> str:
    n = sum(not r.certified for r in v.rows)
    return (f"tolerance = z·se + allowance, z = {v.z_crit:.2f} (Bonferroni over {n} statistical rows); "
            f"{'recorded evidence (cache)' if cached else f'{v.elapsed_s:.1f} s'}; sizes {_provenance_text(v.sizes)}; "
            f"seed paths {_seed_paths_text(v.seed_paths[:6])}")


def _provenance_text(value) -> str:
    """A provenance value as readable text: ``numpy 2.1.3, sympy 1.13`` for a mapping, a list
    joined by commas; never a Python repr."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_provenance_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_provenance_text(v) for v in value)
    return "—" if value is None else str(value)


def _seed_paths_text(paths) -> str:
    """Seed paths (tuples of keys) as ``A.thm3/trial/3`` each."""
    return ", ".join("/".join(map(str, p)) if isinstance(p, (list, tuple)) else str(p) for p in paths)
