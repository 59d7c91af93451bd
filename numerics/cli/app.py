"""The shell every subcommand shares: the group, one-line errors, the common options, the
JSON output.  The work is done by the request layer (numerics.request)."""
from __future__ import annotations

import contextlib
import json
import math
import sys

import click

from numerics import request as Q
from numerics import registry
from numerics.core import resources
from numerics.core.params import ParameterError, parse_assignments  # noqa: F401  (used by the commands)
from numerics.core.precision import DEFAULT_DPS, MAX_DPS, MIN_DPS

DEFAULT_SEED = 20260429  # numerics.core.seeding.DEFAULT_SEED (tests/test_cli.py checks they agree)


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
    with requested():
        return Q.output_path(path, suffixes, option)


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
    with requested():
        return resources.check_cost(estimate, announce=lambda text: click.echo(text, err=True))


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
    with requested():
        return Q.select(list(ids))


@contextlib.contextmanager
def requested():
    """A request-layer error as the command line reports it: bad input exit 2 (one line), a
    numerical failure exit 1 (one line)."""
    try:
        yield
    except ParameterError as e:
        _fail(str(e))
    except Q.EvaluationError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)


def _spelled(param) -> str:
    """An option as the user typed it (its long form), an argument by its name."""
    if isinstance(param, click.Argument):
        return param.human_readable_name
    return max(param.opts, key=len)


class Integer(click.IntRange):
    """An integer option in [lo, hi] (``hi`` None: no upper end), refused in the request layer's
    one line (``--seed must be an integer in [0, inf], got -1``, exit 2), not click's."""

    def __init__(self, lo: int | None = None, hi: int | None = None):
        super().__init__(lo, hi)
        self.lo = lo

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                number = value
        if self.lo is None:  # no declared range here: the request layer checks it
            if isinstance(number, int):
                return number
            _fail(f"{_spelled(param)} must be an integer, got {value!r}")
        with requested():
            return Q.integer(_spelled(param), number, self.lo, self.max, spell=str)


class Number(click.ParamType):
    """A number option, refused in one line (``--mutate must be a number, got 'x'``)."""

    name = "float"

    def convert(self, value, param, ctx):
        try:
            return float(value)
        except (TypeError, ValueError):
            _fail(f"{_spelled(param)} must be a number, got {value!r}")


class OneOf(click.Choice):
    """A choice, refused in one line (``--format must be one of parquet, csv, got 'x'``)."""

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        _fail(f"{_spelled(param)} must be one of {', '.join(self.choices)}, got {value!r}")


def dps_option(fn):
    """``--dps``: its domain is declared once (numerics.core.precision)."""
    return click.option("--dps", type=Integer(MIN_DPS, MAX_DPS), default=DEFAULT_DPS, show_default=True)(fn)


def seed_option(fn):
    return click.option("--seed", type=Integer(0, None), default=DEFAULT_SEED, show_default=True)(fn)


def mode_options(fn):
    fn = click.option("--full", is_flag=True, help="the paper's sizes")(fn)
    return click.option("--quick", is_flag=True, help="reduced sizes (default)")(fn)


def _mode(quick, full):
    if quick and full:
        _fail("--quick and --full are exclusive")
    return "full" if full else "quick"


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
        except registry.RegistryError as e:  # a claim's definition (or a plugin) is inconsistent: bad input
            click.echo(f"error: {e}", err=True)
            sys.exit(2)
        except click.ClickException as e:
            msg = e.format_message().replace("\n", " ").strip()
            if isinstance(e, click.MissingParameter) and e.param is not None:
                msg = f"{_spelled(e.param)} is required"
            elif isinstance(e, click.BadParameter) and e.param is not None and e.message:
                # click's "Invalid value for '--out': ..." as the project's one line: the option first
                msg = f"{_spelled(e.param)}: {e.message[:1].lower()}{e.message[1:].rstrip('.')}"
            elif isinstance(e, click.UsageError) and e.ctx is not None and not isinstance(e, UsageFailure):
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
        kw.setdefault("context_settings", {"max_content_width": 100})
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
    """The first paragraph of a callable's docstring, else of its module's, whole (a listing
    wraps it; it never cuts a description mid-sentence)."""
    import inspect

    doc = inspect.getdoc(obj) or inspect.getdoc(inspect.getmodule(obj)) or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def _param_rows(space) -> list[str]:
    return [f"{p['name']:12s} default {p['default']!s:8s} {p['range']}; {p['doc']}" for p in space.describe()]


def _problems_help():
    out = []
    for name, spec in registry.problems().items():
        rows = [spec.doc, ""]
        rows += [f"--{opt} {' | '.join(choices)} (default {choices[0]})" for opt, choices in spec.options.items()]
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
    """attncheck: check the derivations of attention-theory papers (SymPy derivations against
    independent simulations), print their LaTeX, draw their figures.

    \b
    A tour:  attncheck list                            attncheck verify A.thm3 -v
             attncheck report B -o b.html -o b.pdf     attncheck figure A.fig1 -o fig1.png

    Each command's --help has examples and its defaults."""
