"""What a report reuses and what it computes: the figures a claim names, each figure's PNG
recorded in the verdict cache's folder (keyed by everything it depends on), and the per-claim
plan the report's progress prints (``numerics.report_content.collect``)."""
from __future__ import annotations

import base64
import os
import tempfile
import time


def figures_of(claim) -> tuple:
    """The figures the claim names (``Claim.figures``) that are registered."""
    from numerics import registry

    table = registry.figures()
    return tuple(f for f in getattr(claim, "figures", ()) if f in table)


def _figure_key(figure_id: str, fig, settings) -> str:
    """A figure's cache key: the code of its module (and of everything it imports: the theory
    and simulators it draws), its id, the settings it is drawn at and the matplotlib version."""
    from matplotlib import __version__ as mpl

    from numerics.core.cache import module_key

    return module_key(fig.__module__, "figure", figure_id, settings.mode, settings.seed, settings.dps,
                      settings.params, mpl)


def _figure_cached(figure_id: str, settings) -> bool:
    from numerics import registry
    from numerics.core import cache

    fig = registry.figures().get(figure_id)
    return fig is not None and cache.load_artifact("figures", _figure_key(figure_id, fig, settings)) is not None


def _figure_png(figure_id: str, settings, use_cache: bool = False) -> str | None:
    """The figure's PNG (base64), rendered once and, with ``use_cache``, recorded in the verdict
    cache's folder keyed by :func:`_figure_key` (the time it took too, for the next estimate)."""
    from numerics import registry
    from numerics.core import cache

    fig = registry.figures().get(figure_id)
    if fig is None:
        return None
    k = _figure_key(figure_id, fig, settings) if use_cache else None
    png = cache.load_artifact("figures", k) if k else None
    if png is None:
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "fig.png")
            fig(path, settings, lambda it, label: it)
            with open(path, "rb") as fh:
                png = fh.read()
        if k:
            cache.store_artifact("figures", k, png)
            cache.record_time(f"figure:{figure_id}", settings.mode, time.perf_counter() - t0)
    return base64.b64encode(png).decode()


def _about(seconds) -> str:
    if seconds is None:
        return "not timed yet"
    return f"about {seconds:.0f} s" if seconds < 90 else f"about {seconds / 60:.0f} min"


def plan(claim, settings, evidence_cached: bool, elapsed: float, *, with_power: bool, figures: tuple,
         use_cache: bool, done: set) -> str:
    """What the report reuses and what it computes for ``claim``, before it computes it: the
    verdict, the mutation power and each figure not shown yet, with an estimate from the times
    recorded on this machine (``report [3/5] C.transition: verdict cached; power: computing 12
    mutants (about 2 min); figure C.phase: cached``)."""
    from numerics.claims.power import is_cached
    from numerics.core.cache import recorded_times

    times = recorded_times(settings.mode)
    parts = ["verdict cached" if evidence_cached else f"verdict computed ({elapsed:.1f} s)"]
    if with_power and claim.mutants:
        took = times.get("power:" + claim.id)
        # not timed yet: each mutant and scaling reruns at most one collection of the claim (its
        # experiment memoised), plus the experiment once in this process
        guess = _about(took) if took is not None else (
            f"at most {_about((len(claim.mutants) + 3) * elapsed)[len('about '):]}, from the claim's own run time"
            if elapsed > 0 else "not timed yet")
        parts.append("power cached" if use_cache and is_cached(claim, settings) else
                     f"power: computing {len(claim.mutants)} mutants and the ±5 % scaling ({guess})")
    for fid in figures:
        if fid not in done:
            parts.append(f"figure {fid} cached" if use_cache and _figure_cached(fid, settings) else
                         f"figure {fid}: drawing ({_about(times.get('figure:' + fid))})")
    return "; ".join(parts)
