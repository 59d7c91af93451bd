"""``attncheck list``, ``verify`` (and ``verify --power``), ``cache``."""
from __future__ import annotations

import sys

import click

from numerics import request as Q
from numerics.cli.app import (Integer, Number, _Listed, _claims_files, _dumps, _guard, _limits, dps_option, main,
                              mode_options, _mode, registry, requested, seed_option)


@main.command("list", short_help="List the claims (id, status, mutants, statement).")
@click.option("--json", "as_json", is_flag=True, help="one JSON record per claim")
@_claims_files
def list_cmd(as_json):
    """List the claims: id, status, whether `eval` evaluates it, whether it takes a point
    (`verify --param`, `explore`), its mutants, its statement.

    \b
    attncheck list
    attncheck list --json | jq .id"""
    index = registry.claim_index()
    if as_json:
        for rec in index:
            click.echo(_dumps({"schema": "attncheck.list/1", **rec, "certifiable": _certifiable(rec["id"])}))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 160, soft_wrap=False)
    widest = max((len(r["id"]) for r in index), default=2)
    room = max(20, console.width - widest - 8 - 4 - 5 - 7 - 5 * 2 - 1)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col, kw in (("id", {"min_width": widest}), ("status", {"min_width": 8}), ("eval", {"min_width": 4}),
                    ("point", {"min_width": 5}), ("mutants", {"justify": "right", "min_width": 7}),
                    ("statement", {"max_width": room})):
        table.add_column(col, no_wrap=True, **kw)
    for rec in index:
        text = rec["statement"] if len(rec["statement"]) <= room else rec["statement"][: room - 1] + "…"
        cells = (rec["id"], rec["status"], "yes" if rec["evaluable"] else "", "yes" if rec.get("point") else "",
                 str(rec["mutants"]), text)
        table.add_row(*(Text(c) for c in cells))  # literal text: "E[h^2]" is not rich markup
    console.print(table)


def _certifiable(claim_id: str) -> bool:
    from numerics.theory.certify import certifiable

    return certifiable(claim_id)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@main.command(cls=_Listed, lister=lambda: __import__("numerics.cli.explore", fromlist=["x"]).point_help(),
              short_help="Run claims: theory against simulation, exit 0 iff all pass.")
@click.argument("ids", nargs=-1)
@mode_options
@click.option("--json", "as_json", is_flag=True, help="JSON Lines, one verdict per claim")
@seed_option
@click.option("--mutate", type=Number(), default=0.0, show_default=True, help="multiply every theory value by (1+REL)")
@dps_option
@click.option("--power", "show_power", is_flag=True,
              help="run every structural mutant of each claim's derivation and the ±5 % scaling "
                   "of its outputs; exit 0 iff every one is killed")
@click.option("--record-ratchet", is_flag=True,
              help="with --power: record what each row of each built-in claim detects as the power "
                   "ratchet (numerics/claims/power_ratchet.json, quick size, default seed) and print "
                   "what changed, row by row")
@click.option("--workers", type=Integer(1, Q.MAX_WORKERS), default=None,
              help="claims run in a pool of this many processes (same records for any N)  "
                   "[default: one per CPU when two or more claims are computed]")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="run the claims on a dask.distributed cluster: 'local' or tcp://host:port")
@click.option("--no-cache", is_flag=True, help="recompute every claim (the verdict cache is not read or written)")
@click.option("-v", "--verbose", is_flag=True, help="show every comparison row")
@click.option("--param", "params", multiple=True, metavar="K=V",
              help="run the claim's experiment at this parameter point (repeatable; claims that "
                   "support it: A.thm3.*; `attncheck eval ID --help` lists the parameters)")
@_limits
@_claims_files
def verify(ids, quick, full, as_json, seed, mutate, dps, show_power, record_ratchet, workers, scheduler, no_cache,
           verbose, params):
    """Run claims; exit 0 iff all pass (with --mutate: iff all are rejected; with --power: iff
    every structural mutant and the ±5 % output scaling of every claim is rejected).
    Defaults: every claim, quick sizes, seed 20260429, one worker per CPU, the verdict cache
    used.

    \b
    attncheck verify --quick
    attncheck verify A.thm3 -v
    attncheck verify A.thm3.q2_cosine --param alpha0=3 --param L=6
    attncheck verify B --power
    attncheck verify C.reference --power --record-ratchet"""
    with requested():
        plan = Q.plan_verify(ids, _mode(quick, full), seed, dps, mutate_=mutate, params=params, workers_=workers,
                             scheduler=scheduler, cache=not no_cache, power=show_power, record=record_ratchet,
                             spell=Q.option_name, announce=lambda text: click.echo(text, err=True))
    if show_power:
        sys.exit(_power(plan, as_json, verbose, record=record_ratchet))
    if plan.todo and not as_json:
        todo, known = plan.todo, plan.timed
        guess = (f"about {_duration(plan.seconds / max(1, min(plan.workers, todo)))} from the times recorded on "
                 f"this machine" + (f" ({todo - known} of {todo} claims not timed yet)" if known < todo else "")
                 if known else "no recorded times yet")
        click.echo(f"running {todo} claims ({plan.settings.mode}; {plan.cached} from the cache): {guess}", err=True)

    from contextlib import nullcontext

    from numerics.cli.progress import Progress
    from numerics.core.tasks import reporting

    # progress on stderr: the claim being computed and the tracked loops inside it (trials,
    # crossings, solver iterations), a line each on a terminal, plain lines without one
    with (nullcontext() if as_json else Progress()) as progress, reporting(progress):
        runs = Q.run_verify(plan, on_start=(lambda c: progress.current(c.id)) if progress else None)
        ok_all = _print_verdicts(_guard(runs), mutate, as_json, verbose)
    if not as_json:
        n, settings = len(plan.claims), plan.settings
        if mutate:
            click.echo(f"mutation {mutate:+g}: {'all' if ok_all else 'NOT all'} of {n} claims rejected")
        else:
            at = ("; at " + ", ".join(f"{k}={v}" for k, v in settings.params)) if settings.params else ""
            click.echo(f"{'all' if ok_all else 'NOT all'} of {n} claims passed ({settings.mode}, seed {seed}{at})")
    sys.exit(0 if ok_all else 1)


def _print_verdicts(runs, mutate, as_json, verbose) -> bool:
    ok_all = True
    for claim, verdict, cached in runs:
        expected = not verdict.error and (not verdict.passed if mutate else verdict.passed)
        ok_all &= expected
        if as_json:
            click.echo(_dumps({**verdict.to_json(), "cached": cached}))
        elif verdict.error:
            click.echo(f"ERROR {claim.id:34s} {verdict.error}")
        else:
            word = verdict.word
            if mutate:
                word += " (mutation caught)" if not verdict.passed else " (mutation NOT caught)"
            zs = [abs(r.z) for r in verdict.rows if r.z is not None]
            zt = f", max|z|={max(zs):.2f}" if zs else ""
            when = "cached" if cached else f"{verdict.elapsed_s:.1f} s"
            n_cert = sum(bool(r.certified) for r in verdict.rows)
            rows = f"{len(verdict.rows) - n_cert} rows" + (" + certified" if n_cert else "")
            click.echo(f"{word:4s} {claim.id:34s} {rows}{zt}, {when}")
            from numerics.report_labels import design_line

            if design_line(verdict):  # the point the claim ran at, in the papers' notation
                    click.echo(f"    {design_line(verdict)}")
            if (verbose or not expected) and verdict.rows:  # the statistical rows, the certified ones apart
                from numerics.report_tables import render as render_table, verdict_table

                click.echo(render_table(verdict_table(verdict), "text"))
    return ok_all


def _power(plan, as_json, verbose=False, record=False) -> int:
    """``verify --power``: each claim's mutants and ±5 % scaling; at the ratchet's settings each
    built-in claim's rows against the power ratchet (``record``: written to it)."""
    from numerics.claims import mutate as automatic
    from numerics.claims import ratchet
    from numerics.claims.power import cached_power
    from numerics.claims.runner import built_in

    chosen, settings = plan.claims, plan.settings
    # the rows are compared with the record where it was made (and is there: a clone)
    compared = settings == ratchet.SETTINGS and (record or ratchet.RECORD.exists())
    recorded = ratchet.load()["claims"] if compared and ratchet.RECORD.exists() else {}
    ok_all, computed = True, {}
    for claim in chosen:
        p, _ = cached_power(claim, settings, use_cache=plan.use_cache)  # the records the report reads
        ok_all &= p.all_killed and p.scale_exact
        change = None
        if compared and built_in(claim) and not p.error:
            computed[claim.id] = p
            change = ratchet.compare(recorded.get(claim.id), p)
        if as_json:
            extra = {"ratchet": {"worse": change.worse, "better": change.better}} if change else {}
            click.echo(_dumps({**p.to_json(), **extra}))
            continue
        if p.error:
            click.echo(f"ERROR    {claim.id:34s} {p.error}")
            continue
        killed = sum(m.killed for m in p.mutants)
        word = "KILLED" if p.all_killed else "SURVIVED"
        click.echo(f"{word:8s} {claim.id:34s} {killed}/{len(p.mutants)} mutants, "
                   f"±5% scaling {'rejected' if all(p.scaled.values()) else 'NOT rejected'}")
        from numerics.report_tables import power_table, render as render_table

        click.echo(render_table(power_table(p), "text"))
        auto = automatic.recorded(claim, settings)
        click.echo("    automatic mutants of every step: " + (automatic.summary(auto) if auto else
                                                             f"not run yet (attncheck mutate {claim.id})"))
        rel = sorted((d["relative"], d["label"]) for d in p.detectable if d["relative"] is not None)
        if rel:
            click.echo(f"    smallest relative theory error each row detects: {rel[0][0]:.2g} "
                       f"({rel[0][1]}) to {rel[-1][0]:.2g} ({rel[-1][1]}); every row with -v or --json")
        if verbose and p.detectable:
            from numerics.report_tables import detectable_table

            click.echo(render_table(detectable_table(p), "text"))
        if not p.scale_exact:
            click.echo("    DEFECT: scaling the declared output steps did not scale the theory values")
        if change is not None and not record:
            for line in change.worse:
                click.echo(f"    RATCHET worse than recorded: {line}")
    if record:
        lines = ratchet.record(computed, [c.id for c in registry.claims().values() if built_in(c)])
        if not as_json:
            click.echo(f"power ratchet: {ratchet.RECORD}")
            for line in lines:
                click.echo(f"    {line}")
    if not as_json:
        click.echo(f"{'every' if ok_all else 'NOT every'} mutant of {len(chosen)} claims killed ({settings.mode})")
    return 0 if ok_all else 1


@main.group("cache", short_help="The verdict cache: where it is, clear it.")
def cache_group():
    """The verdict cache (recorded evidence keyed by the content of its code and derivations).

    \b
    attncheck cache info
    attncheck cache clear
    Its folder is the platform's user cache folder, or $ATTNCHECK_CACHE_DIR."""


@cache_group.command("info")
@click.option("--json", "as_json", is_flag=True)
def cache_info(as_json):
    """Where the cache is, how many records it holds (text, or --json).

    \b
    attncheck cache info --json"""
    from numerics.core import cache

    d = cache.info()
    if as_json:
        click.echo(_dumps({"schema": "attncheck.cache/1", **d}))
    else:
        click.echo(f"{d['path']}: {d['entries']} records, {d['bytes'] / 1e6:.1f} MB")


@cache_group.command("clear")
def cache_clear():
    """Delete every record (evidence, and the mutation power and figures derived from it).

    \b
    attncheck cache clear"""
    from numerics.core import cache

    click.echo(f"removed {cache.clear()} records from {cache.cache_dir()}")
