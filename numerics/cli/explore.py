"""``attncheck explore``: property-based exploration of claims over their parameter domains
(numerics.explore)."""
from __future__ import annotations

import sys

import click

from numerics import request as Q
from numerics.cli.app import (Integer, _Listed, _claims_files, _dumps, _limits, _mode, main, mode_options,
                              requested, seed_option)
from numerics import registry


def point_help():
    """The claims that take a parameter point (verify --param, explore): each one's free
    parameters with their ranges, and the parameters it does not take free with the reason."""
    rows, design = [], {}
    for c in registry.claims().values():
        space = getattr(c, "point_space", None)
        if space is None:
            design.setdefault(getattr(c, "design_only", "") or "(no reason declared)", []).append(c.id)
            continue
        rows.append(f"{c.id}: {space.free_text()}")
        rows += [f"  {p['name']:8s} default {p['default']!s:6s} {p['range']}" for p in space.describe()]
    out = [("Claims that take --param (free parameters; fixed ones and why)", rows, 4)]
    rows = [f"{', '.join(ids)}: {why}" for why, ids in design.items()]
    return out + [("Claims at their built-in design only (no --param), and why", rows, 4)]


def _point_text(point: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in point.items())


@main.command(cls=_Listed, lister=point_help,
              short_help="Property-based search for a failing parameter point of a claim.")
@click.argument("ids", nargs=-1)
@_claims_files
@click.option("--examples", type=Integer(), default=3, show_default=True, help="points drawn per claim")
@click.option("--shrinks", type=Integer(), default=8, show_default=True,
              help="at most this many new points tried while shrinking a confirmed failure")
@click.option("--param", "params", multiple=True, metavar="K=V",
              help="pin a parameter (repeatable): the points are drawn with the others free")
@seed_option
@mode_options
@click.option("--workers", type=Integer(1, Q.MAX_WORKERS), default=1, show_default=True,
              help="processes for the trials of each run (as verify)")
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: one record per point (params, verdict, seed paths), one summary per claim")
@_limits
def explore(ids, examples, shrinks, params, seed, quick, full, workers, as_json):
    """Draw points from each claim's parameter domain (hypothesis, seeded by --seed) and run the
    claim's verify at each; a failing point is re-run at full size with a fresh seed and only a
    confirmed failure counts (run-wide false-alarm rate <= 1e-3, Bonferroni over the confirm
    runs and their rows); a confirmed failure is shrunk to a minimal point and printed with the
    command that reproduces it.  Exit 0 iff no confirmed failure and no error (a point at which
    the claim's theory or experiment raised).

    \b
    attncheck explore A.thm3.q2_cosine --examples 3
    attncheck explore A.thm3 --examples 5 --seed 7 --json
    attncheck explore A.thm5.pool_test_error --param pi=0.2 --examples 2

    Defaults: every claim that takes a point, 3 examples, 8 shrinks, quick sizes, seed 20260429."""
    with requested():
        Q.known(ids)  # from the index, before the claims are imported
    from numerics import explore as X

    with requested():
        chosen, pinned = Q.explore_request(list(ids), examples, shrinks, Q.option_name), None
        if params:
            from numerics.core.params import parse_assignments

            chosen, pinned = Q.explore_request(list(ids), examples, shrinks, Q.option_name,
                                               within=parse_assignments(params))
        settings = Q.settings(_mode(quick, full), seed)

    def shown(run):
        if as_json:
            click.echo(_dumps(run.to_json()))
            return
        extra = ""
        if run.confirm:
            extra = f" -> confirm ({run.confirm['mode']}, seed {run.confirm['seed']}): " + (
                f"FAIL {', '.join(run.confirm['failing_rows'])}" if run.verdict == "failed" else
                f"ERROR {run.error}" if run.verdict == "error" else "not confirmed")
        elif run.verdict == "error":
            extra = f": {run.error}"
        click.echo(f"  {run.stage:8s} {run.claim_id} at {_point_text(run.params)}: {run.verdict}{extra}", err=True)

    from numerics.claims.runner import estimate
    from numerics.core import resources
    from numerics.core.tasks import reporting
    from numerics.cli.app import _check_cost
    from numerics.cli.progress import Progress

    if resources.explicit():  # an explicit --max-time or --max-memory: priced as verify, per screen run
        seconds, _, _ = estimate(chosen, settings, use_cache=False)
        from dataclasses import replace

        cost = resources.verify_cost(seconds * examples, len(chosen) * examples, workers)
        _check_cost(replace(cost, knobs=("--examples", "the number of claims"),
                            what=f"explore of {len(chosen)} claims at {examples} points"))
    from contextlib import nullcontext

    with requested(), (nullcontext() if as_json else Progress()) as progress, reporting(progress):
        found = X.explore(chosen, examples=examples, seed=settings.seed, mode=settings.mode, dps=settings.dps,
                          workers=workers, max_shrinks=shrinks, on_point=shown, within=pinned)
    ok = True
    for e in found:
        ok &= e.passed
        if as_json:
            click.echo(_dumps(e.to_json()))
            continue
        if e.design_only:
            word = "ERROR" if e.errors else "FAIL" if e.failed else "PASS"
            click.echo(f"{word} {e.claim_id:34s} its design only (it takes no point: {e.design_only})")
            if e.errors:
                click.echo(f"    {e.error}")
            elif e.failed:
                click.echo(f"    failing rows: {', '.join(e.failing_rows)}")
        elif e.errors:
            click.echo(f"ERROR {e.claim_id:34s} raised at {len(e.errors)} of {len(e.runs)} points, first at "
                       f"{_point_text(e.errors[0].params)}: {e.error}")
            if e.failed:
                click.echo(f"    and confirmed failing at {_point_text(e.minimal)}: {', '.join(e.failing_rows)}")
        elif not e.failed:
            click.echo(f"PASS {e.claim_id:34s} {len(e.runs)} points, no confirmed failure")
        else:
            word = "COUNTEREXAMPLE" if e.counterexamples else "FAIL"
            click.echo(f"{word} {e.claim_id:34s} confirmed at {_point_text(e.minimal)}")
            click.echo(f"    failing rows: {', '.join(e.failing_rows)}")
            click.echo(f"    reproduce: {e.command}")
            if e.counterexamples:
                click.echo(f"    (expected: the statement as written has counterexamples: {e.counterexamples})")
    if not as_json and found:
        points = [e for e in found if not e.design_only]
        design = len(found) - len(points)
        bad = sum(e.failed and not e.counterexamples for e in points)
        text = (f"{bad or 'no'} confirmed failure{'s' if bad > 1 else ''} in {sum(len(e.runs) for e in points)} points "
                f"of {len(points)} claims (run-wide false-alarm rate <= {found[0].family_alpha:g}, Bonferroni over at "
                f"most {found[0].confirm_runs_bound} confirm runs x rows)")
        found_cx = sum(e.failed and bool(e.counterexamples) for e in points)
        if found_cx:
            text += f"; {found_cx} counterexample{'s' if found_cx > 1 else ''} found (statements declared to have them)"
        if design:
            text += f"; {design} claims at their design only, {sum(e.failed for e in found if e.design_only)} failed"
        errors = sum(bool(e.errors) for e in found)
        if errors:
            text += f"; {errors} claim{'s' if errors > 1 else ''} raised (ERROR)"
        click.echo(text)
    sys.exit(0 if ok else 1)
