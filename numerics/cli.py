"""The ``attncheck`` command line.

    attncheck list [--json]
    attncheck verify [IDS...] [--quick|--full] [--json] [--seed N] [--mutate REL] [--power] [-v]
    attncheck verify ID --param k=v ...
    attncheck eval ID --param k=v ... [--dps N] [--json] [--certify] | attncheck eval ID --list-params
    attncheck latex [IDS...] [-o FILE] [--body | --snippets DIR] [--certified]
    attncheck report [IDS...] -o FILE.html [--pdf] | -o FILE.pdf [--pdf-engine latex|chromium]
    attncheck solve PROBLEM [--model M] [--loss L] --param k=v ... [--dps N] [--json]
    attncheck figure ID -o FILE.png|.pdf|.svg [--quick|--full] [--seed N]
    attncheck bench [NAMES...] [--quick]
    attncheck [--max-memory SIZE] [--max-time DURATION] COMMAND ...   (also per command)

Exit codes: 0 success (verify: every selected claim passed; with --mutate: every one was
rejected), 1 a check failed / a solve did not converge, 2 bad usage or bad parameters.
The JSON schema is documented in docs/cli.md.
"""
from __future__ import annotations

import json
import math
import sys

import click

from numerics.core import registry
from numerics.core.params import ParameterError, parse_assignments

DEFAULT_SEED = 20260429  # numerics.core.seeding.DEFAULT_SEED (tests/test_cli.py checks they agree)


def Settings(**kw):  # noqa: N802 - the claims' Settings, imported on first use (SymPy is slow to import)
    from numerics.claims.base import Settings as S

    return S(**kw)


def judge(*a, **kw):
    from numerics.claims.base import judge as j

    return j(*a, **kw)


class UsageFailure(click.ClickException):
    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.message}", err=True)


def _fail(msg: str):
    raise UsageFailure(msg)


def _json_default(o):
    try:
        import mpmath

        if isinstance(o, mpmath.mpf):
            return str(o)
    except ImportError:  # pragma: no cover
        pass
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


def _dumps(obj) -> str:
    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return str(x)
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(obj), default=_json_default)


def _check_output(path: str, suffixes: tuple[str, ...], option: str = "-o/--output") -> str:
    """An output path is checked before any computation: its suffix and its folder."""
    import os

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in suffixes:
        _fail(f"{option} {path!r}: the file name must end in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        _fail(f"{option} {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        _fail(f"{option} {path!r}: not writable")
    if os.path.isdir(path):
        _fail(f"{option} {path!r}: is a folder, expected a file")
    return path


def _claims_files(fn):
    """``--claims FILE.py`` (repeatable): claims of the user's own, next to the built-in ones."""

    def load(ctx, param, value):
        for path in value or ():
            try:
                registry.add_claims_file(path)
            except registry.RegistryError as e:
                _fail(str(e))
        return value

    return click.option("--claims", "claim_files", multiple=True, expose_value=False, callback=load,
                        is_eager=True, metavar="FILE.py",
                        help="a Python file defining CLAIMS (see docs/adding-a-claim.md); repeatable")(fn)


def _limits(fn):
    """``--max-memory SIZE`` and ``--max-time DURATION`` (on the group or on a command): the
    limits a request's estimated memory and time are checked against before it runs
    (numerics/core/resources.py; default: half the available memory, 2 h)."""

    def store(ctx, param, value):
        if value is not None:
            from numerics.core import resources

            try:
                resources.set_limits(**{param.name: value})
                resources.check(resources.unpriced(ctx.command_path))  # any command: its interpreter
            except ParameterError as e:
                _fail(f"--{param.name.replace('_', '-')}: {e}")
        return value

    fn = click.option("--max-time", "max_time", default=None, metavar="DURATION", expose_value=False,
                      callback=store, help="refuse a request estimated to take longer (90s, 30m, 2h; default 2h)")(fn)
    return click.option("--max-memory", "max_memory", default=None, metavar="SIZE", expose_value=False,
                        callback=store, help="refuse a request estimated to need more memory (4G, 512M; "
                                             "default half the available memory)")(fn)


def _check_cost(estimate):
    """Refuse a request above the memory/time limits (exit 2, one line), announce a long one."""
    from numerics.core import resources

    try:
        return resources.check(estimate, announce=lambda text: click.echo(text, err=True))
    except ParameterError as e:
        _fail(str(e))


def _guard(iterator):
    """Turn a ParameterError raised while iterating (e.g. a bad --scheduler) into exit 2."""
    try:
        yield from iterator
    except ParameterError as e:
        _fail(str(e))


def _probe_write(path: str) -> None:
    """Open the output for writing before a long computation (a folder may pass the access
    check and still refuse files, e.g. /proc)."""
    import os

    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        _fail(f"-o/--output {path!r}: cannot write ({e.strerror or e})")
    if not existed:
        os.remove(path)


def _select(ids):
    try:
        return registry.select(ids)
    except KeyError as e:
        _fail(f"unknown claim id {e.args[0]!r}; run `attncheck list` for the ids")


class _OneLineErrors(click.Group):
    """Every usage error (unknown option, bad choice, missing argument) is one line on stderr
    and exit 2, like a bad parameter: no usage block, no traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        import contextvars

        try:  # in a context of its own: --max-memory/--max-time do not outlive the invocation
            return contextvars.copy_context().run(super().main, args, prog_name, complete_var,
                                                  standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.Abort as e:  # an interrupt (SIGINT, SIGTERM in a pool: numerics.core.tasks) exits 130
            interrupted = isinstance(e.__cause__, KeyboardInterrupt)
            click.echo("error: interrupted" if interrupted else "error: aborted", err=True)
            sys.exit(130 if interrupted else 1)
        except (KeyboardInterrupt, SystemExit):
            raise
        except click.ClickException as e:
            msg = e.format_message().replace("\n", " ").strip()
            if isinstance(e, click.UsageError) and e.ctx is not None and not isinstance(e, UsageFailure):
                msg = f"{e.ctx.command_path}: {msg} (see --help)"
            click.echo(f"error: {msg}", err=True)
            sys.exit(e.exit_code)
        except Exception as e:  # a defect of attncheck, not of the input: one line, exit 1
            import os

            if os.environ.get("ATTNCHECK_TRACEBACK"):
                raise
            click.echo(f"error: internal error: {type(e).__name__}: {e} (set ATTNCHECK_TRACEBACK=1 "
                       "for the traceback, and please report it)", err=True)
            sys.exit(1)


class _Listed(click.Command):
    """A subcommand whose --help ends with a list built from the registry (problems, figures,
    benchmarks, evaluable claims) when the help is shown, never at start-up: ``attncheck
    --help`` imports none of them."""

    def __init__(self, *args, lister=None, **kw):
        super().__init__(*args, **kw)
        self.lister = lister

    def format_epilog(self, ctx, formatter):
        super().format_epilog(ctx, formatter)
        if self.lister is None:
            return
        import textwrap

        for title, rows, hang in self.lister():
            with formatter.section(title):
                room = max(40, formatter.width - formatter.current_indent)
                for line in rows:
                    lead = " " * (len(line) - len(line.lstrip()) + hang)
                    for part in textwrap.wrap(line, room, subsequent_indent=lead) or [""]:
                        formatter.write(" " * formatter.current_indent + part + "\n")


def _first_line(obj) -> str:
    """The first line of a callable's docstring, else of its module's."""
    import inspect

    doc = inspect.getdoc(obj) or inspect.getdoc(inspect.getmodule(obj)) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _param_rows(space) -> list[str]:
    return [f"{p['name']:12s} default {p['default']!s:8s} {p['range']}; {p['doc']}" for p in space.describe()]


def _problems_help():
    out = []
    for name, spec in registry.problems().items():
        rows = [spec.doc, ""]
        rows += [f"--{opt} {' | '.join(choices)}" for opt, choices in spec.options.items()]
        rows += ["", "parameters (--param NAME=VALUE):"] + ["  " + r for r in _param_rows(spec.param_space)]
        out.append((f"Problem {name}", rows, 30))
    return out


def _figures_help():
    return [("Figures (FIGURE_ID)", [f"{fid:18s} {_first_line(fn)}" for fid, fn in registry.figures().items()], 19)]


def _bench_help():
    return [("Benchmarks (NAMES)", [f"{name:22s} {_first_line(fn)}" for name, fn in registry.benchmarks().items()], 23)]


def _eval_help():
    rows = [f"{r['id']:30s} {', '.join(p['name'] for p in r['params'])}"
            for r in registry.claim_index() if r["evaluable"]]
    return [("Evaluable claims (CLAIM_ID) and their parameters; `attncheck eval ID --list-params` gives "
             "each one's range and default", rows, 31)]


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="attncheck")
@_limits
def main():
    """attncheck: check the derivations of two ICLR 2026 attention-theory papers."""


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="one JSON record per claim")
@_claims_files
def list_cmd(as_json):
    """List the claims: id, status, whether `eval` evaluates it, its mutants, its statement.

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
    room = max(20, console.width - widest - 8 - 4 - 7 - 4 * 2 - 1)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col, kw in (("id", {"min_width": widest}), ("status", {"min_width": 8}), ("eval", {"min_width": 4}),
                    ("mutants", {"justify": "right", "min_width": 7}), ("statement", {"max_width": room})):
        table.add_column(col, no_wrap=True, **kw)
    for rec in index:
        text = rec["statement"] if len(rec["statement"]) <= room else rec["statement"][: room - 1] + "…"
        cells = (rec["id"], rec["status"], "yes" if rec["evaluable"] else "", str(rec["mutants"]), text)
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


def _mode(quick, full):
    if quick and full:
        _fail("--quick and --full are exclusive")
    return "full" if full else "quick"


def _row_text(r) -> str:
    z = f"z={r.z:+.2f}" if r.z is not None else "exact"
    mark = "ok " if r.passed else "BAD"
    return (
        f"    {mark} {r.label:28s} theory={r.mutated_theory:.6g}  exp={r.mean:.6g} ± {r.se:.2g}"
        f"  tol={r.tolerance:.2g}  {z}"
    )


@main.command()
@click.argument("ids", nargs=-1)
@click.option("--quick", is_flag=True, help="reduced sizes (default)")
@click.option("--full", is_flag=True, help="the paper's sizes")
@click.option("--json", "as_json", is_flag=True, help="JSON Lines, one verdict per claim")
@click.option("--seed", type=click.IntRange(0, None), default=DEFAULT_SEED, show_default=True)
@click.option("--mutate", type=float, default=0.0, help="multiply every theory value by (1+REL)")
@click.option("--dps", type=click.IntRange(5, 2000), default=30, show_default=True)
@click.option("--power", "show_power", is_flag=True,
              help="run every structural mutant of each claim's derivation and the ±5%% scaling "
                   "of its outputs; exit 0 iff every one is killed")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="claims run in a pool of this many processes (same records for any N)")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="run the claims on a dask.distributed cluster: 'local' or tcp://host:port")
@click.option("--no-cache", is_flag=True, help="recompute every claim (the verdict cache is not read or written)")
@click.option("-v", "--verbose", is_flag=True, help="show every comparison row")
@click.option("--param", "params", multiple=True, metavar="K=V",
              help="run the claim's experiment at this parameter point (repeatable; claims that "
                   "support it: A.thm3.*; `attncheck eval ID --help` lists the parameters)")
@_limits
@_claims_files
def verify(ids, quick, full, as_json, seed, mutate, dps, show_power, workers, scheduler, no_cache, verbose,
           params):
    """Run claims; exit 0 iff all pass (with --mutate: iff all are rejected; with --power: iff
    every structural mutant and the ±5%% output scaling of every claim is rejected).

    \b
    attncheck verify --quick
    attncheck verify A.thm3 -v
    attncheck verify A.thm3.q2_cosine --param alpha0=3 --param L=6
    attncheck verify B --power"""
    if not math.isfinite(mutate) or mutate <= -1:
        _fail(f"--mutate must be a finite number > -1, got {mutate}")
    if show_power and mutate:
        _fail("--power and --mutate are exclusive")
    settings = Settings(mode=_mode(quick, full), seed=seed, dps=dps)
    if params:  # a parameter point of the user's: only claims whose experiment takes one
        chosen = _select(ids)
        point = None
        for claim in chosen:
            if claim.point_space is None:
                _fail(f"claim {claim.id} runs at its built-in design only and takes no --param "
                      f"(claims that do: {', '.join(_point_claims()) or 'none'})")
            try:
                values = claim.point_space.validate(parse_assignments(params))
            except ParameterError as e:
                _fail(str(e))
            point = point or values
        settings = Settings(mode=settings.mode, seed=seed, dps=dps, params=tuple(sorted(point.items())))
        no_cache = True  # a one-off point: neither read nor written
    if show_power:
        sys.exit(_power(_select(ids), settings, as_json))
    try:  # index stubs: a claim is imported only if its evidence is not in the cache
        chosen = registry.stubs(ids) if not no_cache else _select(ids)
    except KeyError as e:
        _fail(f"unknown claim id {e.args[0]!r}; run `attncheck list` for the ids")
    from numerics.claims.runner import collect_all, estimate

    seconds, known, cached = estimate(chosen, settings, use_cache=not no_cache)
    todo = len(chosen) - cached
    from numerics.core import resources

    if todo and resources.explicit():  # an explicit --max-time or --max-memory
        _check_cost(resources.verify_cost(seconds, todo, workers))
    if todo and not as_json:
        guess = (f"about {_duration(seconds / max(1, min(workers, todo)))} from the times recorded on this "
                 f"machine" + (f" ({todo - known} of {todo} claims not timed yet)" if known < todo else "")
                 if known else "no recorded times yet")
        click.echo(f"running {todo} claims ({settings.mode}; {cached} from the cache): {guess}", err=True)

    def started(c):
        if not as_json:
            click.echo(f"  ... {c.id}", err=True)

    runs = collect_all(chosen, settings, workers=workers, use_cache=not no_cache, scheduler=scheduler,
                       on_start=started if sys.stderr.isatty() else None)
    from numerics.core.tasks import reporting

    with reporting(_trial_progress if sys.stderr.isatty() and not as_json else None):
        ok_all = _print_verdicts(_guard(runs), mutate, as_json, verbose)
    if not as_json:
        n = len(chosen)
        if mutate:
            click.echo(f"mutation {mutate:+g}: {'all' if ok_all else 'NOT all'} of {n} claims rejected")
        else:
            at = ("; at " + ", ".join(f"{k}={v}" for k, v in settings.params)) if settings.params else ""
            click.echo(f"{'all' if ok_all else 'NOT all'} of {n} claims passed ({settings.mode}, seed {seed}{at})")
    sys.exit(0 if ok_all else 1)


def _trial_progress(label: str, done: int, total: int) -> None:
    """One transient line per tracked loop inside a claim (trials, crossings, grid points)."""
    click.echo(f"\r      {label}: {done}/{total}\x1b[K" if done < total else "\r\x1b[K", err=True, nl=False)


def _print_verdicts(runs, mutate, as_json, verbose) -> bool:
    ok_all = True
    for claim, evidence, cached in runs:
        verdict = judge(evidence, mutate, claim)
        expected = not verdict.error and (not verdict.passed if mutate else verdict.passed)
        ok_all &= expected
        if as_json:
            click.echo(_dumps({**verdict.to_json(), "cached": cached}))
        elif verdict.error:
            click.echo(f"ERROR {claim.id:34s} {verdict.error}")
        else:
            word = "PASS" if verdict.passed else "FAIL"
            if mutate:
                word += " (mutation caught)" if not verdict.passed else " (mutation NOT caught)"
            zs = [abs(r.z) for r in verdict.rows if r.z is not None]
            zt = f", max|z|={max(zs):.2f}" if zs else ""
            when = "cached" if cached else f"{verdict.elapsed_s:.1f} s"
            click.echo(f"{word:4s} {claim.id:34s} {len(verdict.rows)} rows{zt}, {when}")
            if verbose or not expected:
                for r in verdict.rows:
                    click.echo(_row_text(r))
    return ok_all


def _point_claims() -> list[str]:
    return [c.id for c in registry.claims().values() if getattr(c, "point_space", None) is not None]


def _power(chosen, settings, as_json) -> int:
    from numerics.claims.base import power

    ok_all = True
    for claim in chosen:
        p = power(claim, settings)
        ok_all &= p.all_killed and p.scale_exact
        if as_json:
            click.echo(_dumps(p.to_json()))
            continue
        if p.error:
            click.echo(f"ERROR    {claim.id:34s} {p.error}")
            continue
        killed = sum(m.killed for m in p.mutants)
        word = "KILLED" if p.all_killed else "SURVIVED"
        click.echo(f"{word:8s} {claim.id:34s} {killed}/{len(p.mutants)} mutants, "
                   f"±5% scaling {'rejected' if all(p.scaled.values()) else 'NOT rejected'}")
        for m in p.mutants:
            click.echo(f"    {'killed ' if m.killed else 'ALIVE  '} {m.name:44s} {m.description} [{m.how}]")
        rel = sorted((d["relative"], d["label"]) for d in p.detectable if d["relative"] is not None)
        if rel:
            click.echo(f"    smallest relative theory error each row detects: {rel[0][0]:.2g} "
                       f"({rel[0][1]}) to {rel[-1][0]:.2g} ({rel[-1][1]}); every row with --json")
        if not p.scale_exact:
            click.echo("    DEFECT: scaling the declared output steps did not scale the theory values")
    if not as_json:
        click.echo(f"{'every' if ok_all else 'NOT every'} mutant of {len(chosen)} claims killed ({settings.mode})")
    return 0 if ok_all else 1


@main.group("cache")
def cache_group():
    """The verdict cache (recorded evidence keyed by the content of its code and derivations).

    \b
    attncheck cache info
    attncheck cache clear
    Its folder is the platform's user cache folder, or $ATTNCHECK_CACHE_DIR."""


@cache_group.command("info")
@click.option("--json", "as_json", is_flag=True)
def cache_info(as_json):
    """Where the cache is, how many records it holds."""
    from numerics.core import cache

    d = cache.info()
    if as_json:
        click.echo(_dumps({"schema": "attncheck.cache/1", **d}))
    else:
        click.echo(f"{d['path']}: {d['entries']} records, {d['bytes'] / 1e6:.1f} MB")


@cache_group.command("clear")
def cache_clear():
    """Delete every record."""
    from numerics.core import cache

    click.echo(f"removed {cache.clear()} records from {cache.cache_dir()}")


@main.command("eval", cls=_Listed, lister=_eval_help)
@click.argument("claim_id")
@click.option("--param", "params", multiple=True, metavar="K=V", help="a parameter (repeatable); unset ones take their default")
@click.option("--dps", type=click.IntRange(5, 2000), default=30, show_default=True)
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
    attncheck eval B.rate.exponent --param beta=2 --param M=1e6 --json"""
    try:
        claim = registry.claim(claim_id)
    except KeyError:
        claim = None
    if claim is None:
        _fail(f"unknown claim id {claim_id!r}; run `attncheck list` for the ids")
    if certify:
        return _certify_eval(claim, params, dps, as_json)
    if claim.evaluate is None:
        _fail(f"claim {claim_id} has no closed form to evaluate; evaluable claims are marked 'eval' in `attncheck list`")
    if list_params:
        rows = claim.param_space.describe() if claim.param_space else []
        if as_json:
            click.echo(_dumps({"schema": "attncheck.params/1", "id": claim_id, "params": rows}))
        else:
            for line in _param_rows(claim.param_space) if rows else ["(no parameters)"]:
                click.echo(line)
        return
    if dps > claim.max_dps:  # refuse at once what the claim cannot reach in bounded time
        _fail(f"--dps {dps}: {claim_id} supports --dps 5..{claim.max_dps}")
    try:
        values = claim.param_space.validate(parse_assignments(params))
        if claim.cost is not None:
            _check_cost(claim.cost(values))
        out = claim.evaluate(values, dps)
    except ParameterError as e:
        _fail(str(e))
    except (ArithmeticError, ValueError) as e:  # numerical failure, not bad input
        click.echo(f"error: {claim_id} could not be evaluated at these parameters: {e}", err=True)
        sys.exit(1)
    import mpmath

    bad = [k for k, v in out.items() if not isinstance(v, (bool, int)) and not mpmath.isfinite(v)]
    if bad:
        click.echo(f"error: {claim_id}: non-finite value for {', '.join(bad)} at these parameters", err=True)
        sys.exit(1)

    text = {k: _value_text(out, k, dps) for k in out}
    if as_json:
        click.echo(_dumps({"schema": "attncheck.eval/1", "id": claim_id, "dps": dps, "params": values,
                           "defaults_from": _defaults_from(claim), "values": text}))
    else:
        click.echo(f"{claim_id} at " + ", ".join(f"{k}={v}" for k, v in values.items()) + f"  ({dps} digits)")
        click.echo(f"  (parameters not given: {_defaults_from(claim)})")
        for k in out:
            click.echo(f"  {k} = {text[k]}")


def _certify_eval(claim, params, dps, as_json):
    """``eval --certify``: every value as a certified ball (numerics.theory.certify)."""
    from numerics.theory import certify as cert

    if not cert.certifiable(claim.id):
        _fail(f"claim {claim.id} cannot be certified; certifiable claims: {', '.join(cert.CERTIFIERS)}")
    from numerics.core.arb import ArbPrintError, CertifyError

    timings: dict = {}
    try:
        values = claim.param_space.validate(parse_assignments(params))
        out = cert.certify(claim.id, values, dps, timings=timings)
    except ParameterError as e:
        _fail(str(e))
    except (CertifyError, ArbPrintError, ArithmeticError, ValueError) as e:
        click.echo(f"error: {claim.id} could not be certified at these parameters: {e}", err=True)
        sys.exit(1)
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


_SE_SUFFIXES = ("_se", "_rqmc_se", "_qmc_se", "_mc_se")


def _solve_value_text(result: dict, key: str, dps: int) -> str:
    """A solve's numbers: Monte Carlo / QMC estimates to the digits their se supports, se's to
    two digits, mpmath values as they are (polished to dps), everything else unchanged."""
    import mpmath

    v = result[key]
    if isinstance(v, bool) or not isinstance(v, (float, mpmath.mpf)):
        return str(v)
    se_keys = [key + s for s in _SE_SUFFIXES if key + s in result]
    if key.endswith(_SE_SUFFIXES) or se_keys:
        return _value_text({k: mpmath.mpf(result[k]) for k in [key] + se_keys}, key, dps)
    return str(v)


def _value_text(out: dict, key: str, dps: int) -> str:
    """Booleans and counts (Python bool/int) as they are; numbers to the digits they support."""
    import mpmath

    v = out[key]
    if isinstance(v, (bool, int)):
        return str(v).lower() if isinstance(v, bool) else str(v)
    return mpmath.nstr(v, _digits(out, key, dps), strip_zeros=False).rstrip(".")


def _digits(out: dict, key: str, dps: int) -> int:
    """dps digits, except for a Monte Carlo estimate (a companion key + _se / _rqmc_se / ...):
    two digits beyond its standard error; a standard error itself gets two digits."""
    import mpmath

    if key.endswith(_SE_SUFFIXES):
        return min(dps, 2)
    for suffix in _SE_SUFFIXES:
        se = out.get(key + suffix)
        if se is not None and se > 0 and out[key] != 0:
            return int(max(2, min(dps, mpmath.floor(mpmath.log10(abs(out[key]) / se)) + 2)))
    return dps


@main.command()
@click.argument("ids", nargs=-1)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None)
@click.option("--body", is_flag=True, help="only the sections, for \\input into your own document")
@click.option("--snippets", "snippets", type=click.Path(file_okay=False), default=None,
              help="write one file per claim into this folder (ID.tex)")
@click.option("--certified", is_flag=True,
              help="add the certified digits (ball arithmetic) of each certifiable claim at its defaults")
@_claims_files
def latex(ids, output, body, snippets, certified):
    """The LaTeX of each claim's equations: a standalone document (amsmath, amssymb) unless
    --body; labels are claim-id:equation-name.

    \b
    attncheck latex A.thm3 -o alignment.tex && pdflatex alignment.tex
    attncheck latex B --body -o paper_b_body.tex
    attncheck latex --snippets eqs/
    attncheck latex A.thm3.q2_cosine --certified -o cos.tex"""
    import os

    if output:
        _check_output(output, (".tex",))
    from numerics.latex import claim_section, claims_latex

    chosen = _select(ids)
    if snippets:
        if not os.path.isdir(snippets):
            try:
                os.makedirs(snippets)
            except OSError as e:
                _fail(f"--snippets {snippets!r}: cannot create the folder ({e.strerror or e})")
        for claim in chosen:
            with open(os.path.join(snippets, f"{claim.id}.tex"), "w") as fh:
                fh.write(claim_section(claim, certified=certified))
        click.echo(f"wrote {len(chosen)} snippets to {snippets}", err=True)
        if not output:
            return
    text = claims_latex(chosen, standalone=not body, certified=certified)
    if output:
        try:
            with open(output, "w") as fh:
                fh.write(text)
        except OSError as e:
            _fail(f"-o/--output {output!r}: cannot write ({e.strerror or e})")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@main.command()
@click.argument("ids", nargs=-1)
@click.option("-o", "--output", required=True, help="the report file, .html (or .pdf)")
@click.option("--pdf", "as_pdf", is_flag=True, help="also write the PDF (next to the .html, same name)")
@click.option("--pdf-engine", type=click.Choice(["latex", "chromium"]), default="latex", show_default=True,
              help="typeset the PDF with pdflatex, or print the HTML with headless Chromium")
@click.option("--quick", is_flag=True, help="reduced sizes (default)")
@click.option("--full", is_flag=True, help="the paper's sizes")
@click.option("--seed", type=click.IntRange(0, None), default=DEFAULT_SEED, show_default=True)
@click.option("--no-power", is_flag=True, help="leave out the structural-mutant runs")
@click.option("--no-figures", is_flag=True, help="leave out the figures")
@click.option("--no-cache", is_flag=True, help="recompute every claim")
@_claims_files
def report(ids, output, as_pdf, pdf_engine, quick, full, seed, no_power, no_figures, no_cache):
    """A self-contained HTML verification report (works offline; math as MathML), or its PDF.

    \b
    attncheck report B -o paper_b.html
    attncheck report B -o paper_b.html --pdf     # paper_b.html and paper_b.pdf
    attncheck report A.thm3 --no-figures -o thm3.pdf

    Per claim: statement, status, equations, the verdict table, the mutation power, its
    figure, and the provenance of the run. The PDF is the same content typeset by pdflatex
    (Debian packages texlive-latex-base, texlive-latex-recommended, texlive-fonts-recommended),
    or with --pdf-engine chromium the HTML printed by headless Chromium (Debian package
    chromium; run without network access, in a fresh profile)."""
    import os

    from numerics import report as R

    _check_output(output, (".html", ".htm", ".pdf"))
    pdf_only = output.lower().endswith(".pdf")
    pdf = output if pdf_only else (os.path.splitext(output)[0] + ".pdf" if as_pdf else None)
    if pdf and pdf_engine == "chromium" and R.chromium() is None:
        _fail("a PDF report needs headless Chromium: apt-get install chromium")
    if pdf and pdf_engine == "latex" and R.pdflatex() is None:
        _fail("a PDF report needs pdflatex: apt-get install texlive-latex-base texlive-latex-recommended "
              "texlive-fonts-recommended (or --pdf-engine chromium)")
    for path in (output, pdf):
        if path:
            _probe_write(path)
    settings = Settings(mode=_mode(quick, full), seed=seed)
    chosen = _select(ids)
    with click.progressbar(length=len(chosen), label="report", file=sys.stderr) as bar:
        entries, prov = R.collect(chosen, settings, with_power=not no_power, with_figures=not no_figures,
                                  use_cache=not no_cache, progress=lambda c: bar.update(1))
    text = R.html_page(entries, prov, settings)
    if not pdf_only:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        click.echo(f"wrote {output}", err=True)
    if pdf:
        try:
            if pdf_engine == "latex":
                R.to_latex_pdf(entries, prov, settings, pdf)
            else:
                R.to_pdf(text, pdf)
        except (RuntimeError, OSError) as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)
        click.echo(f"wrote {pdf}", err=True)


@main.command(cls=_Listed, lister=_problems_help)
@click.argument("problem")
@click.option("--model", default=None, help="the problem's model (listed below)")
@click.option("--loss", default=None, help="the problem's loss (listed below)")
@click.option("--param", "params", multiple=True, metavar="K=V", help="a parameter (repeatable; listed below)")
@click.option("--dps", type=click.IntRange(5, 2000), default=30, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@_limits
def solve(problem, model, loss, params, dps, as_json):
    """Solve a problem's equations at your parameters; exit 1 if the solver does not converge.

    \b
    attncheck solve sparse-token --model attention --loss logistic --param alpha1=2
    attncheck solve sparse-token --model pool --loss square --param lam=0.01 --json"""
    table = registry.problems()
    if problem not in table:
        _fail(f"unknown problem {problem!r}; known: {', '.join(table) or 'none'}")
    spec = table[problem]
    options = {}
    for name, value in (("model", model), ("loss", loss)):
        if value is None:
            continue
        if name not in spec.options:
            _fail(f"problem {problem} takes no --{name}")
        if value not in spec.options[name]:
            _fail(f"--{name} must be one of {', '.join(spec.options[name])}, got {value!r}")
        options[name] = value
    try:
        values = spec.param_space.validate(parse_assignments(params))
        if spec.cost is not None:
            _check_cost(spec.cost(options, values))
        result = spec.solve(options, values, dps)
    except ParameterError as e:
        _fail(str(e))
    if as_json:
        click.echo(_dumps({"schema": "attncheck.solve/1", "problem": problem, "options": options,
                           "params": values, **result}))
    else:
        opts = ", ".join(f"{k}={v}" for k, v in options.items())
        click.echo(f"{problem}" + (f" ({opts})" if opts else "") + " at "
                   + ", ".join(f"{k}={v}" for k, v in values.items()))
        for k, v in result.items():
            click.echo(f"{k:24s} {_solve_value_text(result, k, dps)}")
    if not result.get("converged", False):
        click.echo(f"solver did not converge: {result.get('status')}", err=True)
        sys.exit(1)


@main.command()
@click.argument("target")
@click.option("--grid", "grid_items", multiple=True, required=True,
              help="name=start:stop:num or name=v1,v2,... (repeatable: the Cartesian product)")
@click.option("--param", "params", multiple=True, help="fixed k=v (repeatable)")
@click.option("--model", default=None, help="problem option (sweeps of a problem)")
@click.option("--loss", default=None, help="problem option (sweeps of a problem)")
@click.option("--dps", type=click.IntRange(5, 2000), default=30, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="'local' or tcp://host:port (dask)")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet", show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True)
@_limits
@_claims_files
def sweep(target, grid_items, params, model, loss, dps, workers, scheduler, fmt, out_dir):
    """A claim's theory values (``eval``) or a problem's solve over a grid.

    \b
    attncheck sweep A.thm3.q2_cosine --grid alpha0=0.5:8:16 --out sweeps/cos
    attncheck sweep sparse-token --model pool --grid alpha1=1,2,4 --param lam=0.01 --out sweeps/pool
    attncheck figure --from sweeps/cos -o cos.png

    Points are content-addressed files written atomically: a killed sweep, restarted, computes
    only the missing points."""
    import os

    from numerics import sweep as SW

    claims, problems = registry.claims(), registry.problems()
    options = {}
    if target in claims:
        if claims[target].evaluate is None:
            _fail(f"claim {target} has no closed form to sweep; evaluable claims are marked 'eval' in `attncheck list`")
        if model or loss:
            _fail("--model/--loss are options of a problem, not of a claim")
        space, kind = claims[target].param_space, "claim"
        if dps > claims[target].max_dps:
            _fail(f"--dps {dps}: {target} supports --dps 5..{claims[target].max_dps}")
    elif target in problems:
        spec, kind = problems[target], "problem"
        space = spec.param_space
        for name, value in (("model", model), ("loss", loss)):
            if value is None:
                continue
            if name not in spec.options or value not in spec.options[name]:
                _fail(f"--{name} must be one of {', '.join(spec.options.get(name, ())) or 'nothing'}, got {value!r}")
            options[name] = value
    else:
        _fail(f"unknown sweep target {target!r}: a claim id with 'eval' in `attncheck list`, or a problem "
              f"({', '.join(problems)})")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        _fail(f"--out {out_dir!r}: exists and is not a folder")
    parent = os.path.dirname(os.path.abspath(out_dir))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        _fail(f"--out {out_dir!r}: folder {parent!r} does not exist or is not writable")
    try:
        grid = SW.parse_grid(grid_items)
        fixed = parse_assignments(params)
        clash = sorted(set(fixed) & set(grid))
        if clash:
            raise ParameterError(f"parameter {clash[0]} is both fixed (--param) and swept (--grid)")
        pts = [{**fixed, **p} for p in SW.points(grid)]
        checked = [space.validate(p) for p in pts]  # every point is validated before any is computed
        from numerics.core import resources

        price = claims[target].cost if kind == "claim" else (
            (lambda v: spec.cost(options, v)) if spec.cost is not None else None)
        cost = resources.many([price(v) for v in checked] if price else [], workers,
                              what=f"sweep of {len(pts)} points")
    except ParameterError as e:
        _fail(str(e))
    _check_cost(cost)
    tgt = SW.Target(kind, target, tuple(sorted(options.items())))
    grid_all = {**{k: [v] for k, v in fixed.items()}, **grid}
    with click.progressbar(length=len(pts), label=f"sweep {target}", file=sys.stderr) as bar:
        try:
            prov = SW.run(tgt, grid_all, out_dir, dps=dps, workers=workers, scheduler=scheduler, fmt=fmt,
                          progress=bar.update)
        except ParameterError as e:
            _fail(str(e))
    click.echo(f"wrote {prov['points']} points ({prov['computed']} computed, {prov['reused']} reused) "
               f"to {os.path.join(out_dir, prov['table'])}", err=True)


@main.command(cls=_Listed, lister=_figures_help)
@click.argument("figure_id", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), required=True)
@click.option("--from", "from_dir", type=click.Path(file_okay=False), default=None,
              help="draw a finished sweep (attncheck sweep --out DIR) instead of a paper figure")
@click.option("--quick", is_flag=True, help="reduced sizes (default; a few minutes at most)")
@click.option("--full", is_flag=True, help="the paper's sizes")
@click.option("--seed", type=click.IntRange(0, None), default=DEFAULT_SEED, show_default=True)
def figure(figure_id, output, from_dir, quick, full, seed):
    """Reproduce a figure of a paper (theory lines + simulation points), or draw a sweep.
    The format follows the suffix of -o: .png, .pdf or .svg.

    \b
    attncheck figure A.thm3.fig -o alignment.png
    attncheck figure A.fig1 --full -o fig1.pdf
    attncheck figure --from sweeps/cos -o cos.png"""
    _check_output(output, (".png", ".pdf", ".svg"))
    _probe_write(output)
    if from_dir:
        from numerics.figures.sweep_plot import draw_sweep

        try:
            draw_sweep(from_dir, output)
        except (OSError, KeyError, ValueError) as e:
            _fail(f"--from {from_dir!r}: not a finished sweep folder ({e})")
        click.echo(f"wrote {output}", err=True)
        return
    table = registry.figures()
    if figure_id not in table:
        _fail(f"unknown figure {figure_id!r}; known: {', '.join(table) or 'none'}")
    settings = Settings(mode=_mode(quick, full), seed=seed)

    def progress(iterable, label):
        items = list(iterable)
        with click.progressbar(items, label=label, file=sys.stderr) as bar:
            yield from bar

    table[figure_id](output, settings, progress)
    click.echo(f"wrote {output}", err=True)


@main.command(cls=_Listed, lister=_bench_help)
@click.argument("names", nargs=-1)
@click.option("--quick", is_flag=True, help="smaller problem sizes")
@click.option("--json", "as_json", is_flag=True)
def bench(names, quick, as_json):
    """Benchmarks (ratios against a baseline run in the same process); all of them without NAMES.

    \b
    attncheck bench --quick
    attncheck bench eval.dps start.cheap --json"""
    table = registry.benchmarks()
    for n in names:
        if n not in table:
            _fail(f"unknown benchmark {n!r}; known: {', '.join(table) or 'none'}")
    import platform

    machine = {"platform": platform.platform(), "cpus": __import__("os").cpu_count(),
               "python": platform.python_version()}
    for name in names or table:
        if not as_json:
            click.echo(f"running benchmark {name} ...", err=True)
        report = table[name](quick)
        if as_json:
            click.echo(_dumps({"schema": "attncheck.bench/1", "name": name, "machine": machine, **report}))
            continue
        from rich.console import Console
        from rich.table import Table

        t = Table(title=name, show_header=True, header_style="bold", title_justify="left")
        t.add_column("measure", no_wrap=True)
        t.add_column("value", overflow="fold")
        for k, v in report.items():
            t.add_row(str(k), f"{v:.4g}" if isinstance(v, float) else str(v))
        Console(width=None if sys.stdout.isatty() else 120).print(t)


if __name__ == "__main__":  # pragma: no cover
    main()
