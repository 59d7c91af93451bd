"""``attncheck mutate``: automatic mutants of every derivation step a claim reaches, a mutation
score per claim and per step, and each survivor as a reviewer would say it (docs/mutate.md)."""
from __future__ import annotations

import sys

import click

from numerics import request as Q
from numerics.cli.app import _claims_files, _dumps, _limits, _mode, main, mode_options, requested, seed_option


@main.command("mutate", short_help="Automatic mutants of every derivation step: a score and the survivors.")
@click.argument("ids", nargs=-1)
@mode_options
@click.option("--json", "as_json", is_flag=True, help="JSON Lines, one record per claim (schema attncheck.mutate/1)")
@seed_option
@click.option("--sample", type=int, default=100, show_default=True,
              help="a claim with more mutants runs a seeded random sample of this many (score with its 95 % interval)")
@click.option("--all", "all_mutants", is_flag=True, help="run every mutant of every claim (no sample)")
@click.option("--sample-seed", type=int, default=0, show_default=True, help="the seed of the sample of mutants")
@click.option("--workers", type=int, default=1, show_default=True, help="processes: several claims are spread over them, one claim's mutants when it is alone")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="run the mutants on a dask.distributed cluster: 'local' or tcp://host:port (as many parts as "
                   "--workers, or one per thread of the cluster)")
@click.option("--budget", type=float, default=30.0, show_default=True,
              help="seconds one mutant may take; a slower one is reported as timed out, not counted")
@click.option("--no-cache", is_flag=True, help="recompute (the recorded results are not read or written)")
@click.option("-v", "--verbose", is_flag=True, help="every mutant, not only the survivors")
@_limits
@_claims_files
def mutate(ids, quick, full, as_json, seed, sample, all_mutants, sample_seed, workers, scheduler, budget, no_cache,
           verbose):
    """Generate mutants of every named step each claim's theory reaches (signs, dropped terms,
    factors, constants, exponents, symbol swaps, wiring, sum bounds), drop the equivalent ones,
    run the rest through the claim (the experiment collected once) and report killed, survived
    and below resolution.  Exit 0 iff no mutant survived.

    \b
    attncheck mutate S.mp.edge
    attncheck mutate B.kl --all --json
    attncheck mutate A.thm3 --scheduler tcp://head:8786"""
    from numerics.claims.mutate import STATUSES, mutate_all

    with requested():
        chosen, settings, sample, sample_seed, workers, budget = Q.automatic_mutants(
            list(ids), _mode(quick, full), seed, sample=sample, sample_seed=sample_seed, workers_=workers,
            budget=budget, spell=Q.option_name)
    survived = 0
    if not as_json:
        click.echo(f"  ... {len(chosen)} claim{'s' if len(chosen) != 1 else ''}", err=True)
    with requested():  # a bad --scheduler: exit 2
        for r in mutate_all(chosen, settings, sample=sample, all_mutants=all_mutants, seed=sample_seed,
                            workers=workers, budget=budget, use_cache=not no_cache, scheduler=scheduler):
            survived += len(r.survivors) + bool(r.error)
            if as_json:
                click.echo(_dumps(r.to_json()))
                continue
            for line in lines(r, verbose, STATUSES):
                click.echo(line)
    if not as_json:
        click.echo(f"{'no' if not survived else survived} surviving mutant{'s' if survived != 1 else ''} "
                   f"in {len(chosen)} claims ({settings.mode})")
    sys.exit(0 if not survived else 1)


def lines(r, verbose: bool, statuses: tuple) -> list:
    """The text report of one claim's :class:`~numerics.claims.mutate.Mutation`."""
    if r.error:
        return [f"ERROR    {r.id:34s} {r.error}"]
    from numerics.claims.mutate import summary

    word = "KILLED" if not r.survivors else "SURVIVED"
    seed = f"; sample seed {r.sample_seed}" if r.sampled else ""
    counts = ", ".join(f"{r.count(s)} {s}" for s in statuses)
    when = "cached" if r.cached else f"{r.elapsed_s:.0f} s"
    out = [f"{word:8s} {r.id:34s} {summary(r)}{seed}; {when}", f"    {counts}"]
    if r.hand_written.get("total"):
        out.append(f"    hand-written mutants: {r.hand_written['killed']} of {r.hand_written['total']} killed")
    for step, c in r.steps().items():
        out.append(f"    step {step:40s} " + " ".join(f"{c[s]:3d} {s}" for s in statuses))
    for o in r.outcomes:
        if o.status == "survived" or verbose:
            out.append(f"    {o.status.upper() if o.status == 'survived' else o.status}: {o.said()}")
            out.append(f"        ${o.latex}$")
    return out
