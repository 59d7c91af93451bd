"""``attncheck eval`` (and ``eval --certify``) and ``attncheck solve``: a closed form or a
problem at the user's parameters, through the request layer (numerics.request)."""
from __future__ import annotations

import sys

import click

from numerics import request as Q
from numerics.cli.app import (_claims_files, _dumps, _limits, _Listed, _eval_help, _param_rows, _problems_help,
                              dps_option, main, parse_assignments, requested)


@main.command("eval", cls=_Listed, lister=_eval_help,
              short_help="Evaluate a claim's closed form at your parameters, to --dps digits.")
@click.argument("claim_id")
@click.option("--param", "params", multiple=True, metavar="K=V", help="a parameter (repeatable); unset ones take their default")
@dps_option
@click.option("--json", "as_json", is_flag=True)
@click.option("--certify", is_flag=True,
              help="rigorous enclosures (ball arithmetic): midpoint ± radius and the certified digits")
@click.option("--list-params", is_flag=True, help="list the claim's parameters (range, default) and exit")
@_limits
@_claims_files
def eval_cmd(claim_id, params, dps, as_json, certify, list_params):
    """Evaluate a claim's closed form / limit at your parameters, to DPS digits.

    \b
    attncheck eval A.thm3.q2_cosine --list-params      # its parameters, ranges, defaults
    attncheck eval A.thm3.q2_cosine --param alpha0=2 --dps 50
    attncheck eval A.thm3.q2_cosine --certify --dps 40  # rigorous intervals
    attncheck eval B.rate.exponent --param beta=2 --param M=1e6 --json

    Defaults: every parameter at its default (--list-params), 30 digits, text output."""
    with requested():
        claim = Q.claim(claim_id)
    if certify:
        return _certify_eval(claim, params, dps, as_json)
    with requested():
        Q.evaluable(claim_id)
    if list_params:
        rows = claim.param_space.describe() if claim.param_space else []
        if as_json:
            click.echo(_dumps({"schema": "attncheck.params/1", "id": claim_id, "params": rows}))
        else:
            for line in _param_rows(claim.param_space) if rows else ["(no parameters)"]:
                click.echo(line)
        return
    with requested():
        Q.dps(dps, claim, Q.option_name)  # refuse at once what the claim cannot reach in bounded time
        res = Q.evaluate(claim_id, parse_assignments(params), dps, spell=Q.option_name,
                         announce=lambda text: click.echo(text, err=True))
    from numerics.core import value as V

    folded = V.flatten(res.values)  # the one printer: each number to the digits it supports
    text = {k: folded[k] for k in res.raw}
    if as_json:
        click.echo(_dumps({"schema": "attncheck.eval/1", "id": claim_id, "dps": dps, "params": res.params,
                           "defaults_from": _defaults_from(claim), "values": text}))
    else:
        click.echo(f"{claim_id} at " + ", ".join(f"{k}={v}" for k, v in res.params.items()) + f"  ({dps} digits)")
        click.echo(f"  (parameters not given: {_defaults_from(claim)})")
        for k in res.raw:
            click.echo(f"  {k} = {text[k]}")


def _certify_eval(claim, params, dps, as_json):
    """``eval --certify``: every value as a certified ball (numerics.theory.certify)."""
    timings: dict = {}
    with requested():
        values, out = Q.certify(claim.id, parse_assignments(params), dps, spell=Q.option_name, timings=timings)
    if as_json:
        click.echo(_dumps({"schema": "attncheck.certify/1", "id": claim.id, "dps": dps, "params": values,
                           "values": {k: {"mid": b.mid, "rad": b.rad, "digits": b.digits} for k, b in out.items()},
                           "seconds": timings.get("seconds")}))
        return
    click.echo(f"{claim.id} at " + ", ".join(f"{k}={v}" for k, v in values.items())
               + f"  (certified, width <= 1e-{dps - 3})")
    for k, b in out.items():
        click.echo(f"  {k} = {b.digits}")
        click.echo(f"  {' ' * len(k)}   in [{b.mid} ± {b.rad}]")


def _defaults_from(claim) -> str:
    source = getattr(claim.param_space, "source", "")
    return f"defaults of {claim.id}, {source}" if source else f"defaults of {claim.id} (attncheck list --json)"


@main.command(cls=_Listed, lister=_problems_help,
              short_help="Solve a problem's equations (e.g. sparse-token) at your parameters.")
@click.argument("problem")
@click.option("--model", default=None, help="the problem's model (listed below; sparse-token: default attention)")
@click.option("--loss", default=None, help="the problem's loss (listed below; sparse-token: default logistic)")
@click.option("--branch", default=None, help="the problem's branch (listed below; positional-semantic: "
                                             "default semantic)")
@click.option("--param", "params", multiple=True, metavar="K=V", help="a parameter (repeatable; listed below)")
@dps_option
@click.option("--json", "as_json", is_flag=True)
@_limits
def solve(problem, model, loss, branch, params, dps, as_json):
    """Solve a problem's equations at your parameters; exit 1 if the solver does not converge.

    \b
    attncheck solve sparse-token --model attention --loss logistic --param alpha1=2
    attncheck solve sparse-token --model pool --loss square --param lam=0.01 --json

    Defaults: each option its first choice below (sparse-token: --model attention --loss
    logistic), every parameter its listed default, 30 digits."""
    from numerics.cli.progress import Progress
    from numerics.core import value as V
    from numerics.core.tasks import reporting

    # progress on stderr: the QMC draws and each solver iteration (a bar on a terminal, else lines)
    with requested(), Progress() as progress, reporting(progress):
        res = Q.solve(problem, {"model": model, "loss": loss, "branch": branch}, parse_assignments(params), dps,
                      spell=Q.option_name, announce=progress.line)
    # the one printer: each Value to the digits it supports, its error on its key's suffix
    result = {"converged": res.ok, "status": res.status, "iterations": res.iterations, "residual": res.residual,
              **V.flatten(res.raw or {}), **res.stats}
    if as_json:
        click.echo(_dumps({"schema": "attncheck.solve/2", "problem": problem, "options": res.options,
                           "params": res.params, **result}))
    else:
        opts = ", ".join(f"{k}={v}" for k, v in res.options.items())
        click.echo(f"{problem}" + (f" ({opts})" if opts else "") + " at "
                   + ", ".join(f"{k}={v}" for k, v in res.params.items()))
        for k, v in result.items():
            click.echo(f"{k:24s} {v}")
    if not res.ok:
        click.echo(f"solver did not converge: {res.status}", err=True)
        sys.exit(1)
