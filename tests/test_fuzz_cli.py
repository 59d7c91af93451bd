"""Fuzzing the whole command line and the Python API: every subcommand and every API function
with random parameter names and values (NaN, ±inf, huge, negative, strings, empty), random
output paths (missing or unwritable folder, wrong suffix), resource limits and option
combinations.

Asserted for every CLI input: no traceback, exit code 0, 1 or 2, an error is one line on
stderr, no NaN printed as a result, and every run ends within its time budget.  For the API:
a result, or one of the documented errors (``ParameterError``/``ResourceError``, ``SolveError``,
``ArithmeticError``), never NaN.  The number of inputs tried is asserted by the last test and
written to the terminal summary (tests/conftest.py)."""
import functools
import math
import os
import signal
import string

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from numerics.cli import main
from numerics import registry


CLAIMS = registry.claims()
EVALUABLE = sorted(cid for cid, c in CLAIMS.items() if c.evaluate is not None)
PARAM_NAMES = sorted({n for c in CLAIMS.values() if c.param_space for n in c.param_space.names}
                     | {"alpha1", "lam", "model", "log2_points", "n_scrambles", "q_norm"})
NASTY = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-1", "-0", "", " ", "abc", "1,2",
         "0x10", "1e999", "2", "0.5", "3", "10", "True", "None", "1/2", "∞", "10000000000000000000000"]
BUDGET_S = 60
TRIED = {"inputs": 0, "api": 0}
#: the fuzz tests: (test body, its strategies, its default number of inputs)
FUZZED: dict = {}
#: the fuzz tests that ran in this process (``pytest -n 2`` splits them between processes)
RAN: set = set()
#: the slow run's total number of inputs (``pytest -m slow tests/test_fuzz_cli.py``)
AT_SCALE = int(os.environ.get("ATTNCHECK_FUZZ_INPUTS", "10000"))


def _fuzz(n: int, **strategies):
    """A fuzz test of ``n`` inputs in the default run; the slow run (``test_fuzz_at_scale``)
    runs the same body and strategies scaled to :data:`AT_SCALE` inputs in all."""

    def wrap(body):
        FUZZED[body.__name__] = (body, strategies, n)
        test = settings(max_examples=n, deadline=None)(given(**strategies)(body))

        @functools.wraps(test)
        def run(*args, **kwargs):
            RAN.add(body.__name__)
            return test(*args, **kwargs)
        return run

    return wrap


class Timeout(Exception):
    pass


def _run(args, must_fail=False, time_limit=False):
    """One CLI run; with ``time_limit`` it must also end quickly (a refusal is up front)."""
    import time

    t0 = time.perf_counter()

    def alarm(*_):
        raise Timeout(f"{args} ran past {BUDGET_S} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(BUDGET_S)
    try:
        res = CliRunner().invoke(main, args, env={"ATTNCHECK_CACHE_DIR": os.environ["ATTNCHECK_CACHE_DIR"]})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    TRIED["inputs"] += 1
    if isinstance(res.exception, Timeout):
        raise res.exception
    assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception), res.output)
    assert res.exit_code in (0, 1, 2), (args, res.exit_code, res.output)
    assert "Traceback" not in res.output and "internal error" not in res.output, (args, res.output)
    if res.exit_code == 2:
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.output)
    if res.exit_code == 0:
        for token in res.output.replace("=", " ").split():
            assert token.lower() not in ("nan", "-nan"), (args, res.output)
    if must_fail:
        assert res.exit_code != 0, (args, res.output)
    if time_limit:
        assert time.perf_counter() - t0 < 20, (args, time.perf_counter() - t0)
    return res


values = st.sampled_from(NASTY) | st.floats(allow_nan=True, allow_infinity=True).map(repr) \
    | st.integers(-10**30, 10**30).map(str) | st.text(string.printable, max_size=6)
names = st.sampled_from(PARAM_NAMES) | st.text(string.ascii_letters + "_", min_size=0, max_size=8)
param_items = st.lists(st.tuples(names, values).map(lambda kv: f"{kv[0]}={kv[1]}") | st.text(max_size=5), max_size=4)
paths = st.sampled_from(["/nonexistent/dir/x", "/tmp", "", "/tmp/attncheck-fuzz-x.txt", "/proc/x.tex", "/tmp/attncheck-fuzz-out"]) \
    .flatmap(lambda p: st.sampled_from([p, p + ".tex", p + ".png", p + ".pdf", p + ".json"]))


@_fuzz(60, claim=st.sampled_from(EVALUABLE + ["nope", "", "A."]), items=param_items,
       dps=st.sampled_from(["5", "30", "4", "2001", "-1", "x"]), as_json=st.booleans())
def test_eval_never_tracebacks(claim, items, dps, as_json):
    args = ["eval", claim, "--dps", dps] + [a for it in items for a in ("--param", it)]
    _run(args + (["--json"] if as_json else []))


@_fuzz(40, model=st.sampled_from(["attention", "pool", "vec", "bogus", None]),
       loss=st.sampled_from(["logistic", "square", "hinge", None]), items=param_items)
def test_solve_never_tracebacks(model, loss, items):
    args = ["solve", "sparse-token"]
    args += ["--model", model] if model else []
    args += ["--loss", loss] if loss else []
    # every input here has at least one bad parameter (a valid solve costs seconds to minutes and
    # is checked in tests/test_paper_a_equations.py); the random ones come first
    _run(args + [a for it in items for a in ("--param", it)] + ["--param", "lam=-1"])


@_fuzz(40, cmd=st.sampled_from(["latex", "figure", "verify", "sweep", "list", "cache", "bench", "nope"]),
       ids=st.lists(st.sampled_from(list(CLAIMS) + ["nope", "A", "B.zzz", ""]), max_size=2), path=paths,
       flags=st.lists(st.sampled_from(["--quick", "--full", "--json", "--mutate", "nan", "--seed", "-3",
                                       "--workers", "0", "--dps", "1", "--power", "--grid", "beta=1:2:0",
                                       "--format", "xls", "--bogus"]), max_size=3))
def test_other_commands_never_traceback(cmd, ids, path, flags):
    if cmd == "latex":
        # no ids is the LaTeX of every claim: a minute on a busy machine (tests/test_cli.py has it)
        args = ["latex", *(ids or ["B.kl"]), "-o", path]
    elif cmd == "figure":
        args = ["figure", *(ids[:1] or ["A.thm3.fig"]), "-o", path, *[f for f in flags if f != "--full"]]
        if not any(f in flags for f in ("--bogus", "--mutate", "--grid", "--format", "--power", "--workers")) \
                and path.endswith((".png", ".pdf")) and not path.startswith(("/nonexistent", "/proc")):
            args = ["figure", "nope", "-o", path]  # a real figure costs seconds: checked elsewhere
    elif cmd == "verify":
        # verify only with bad input here (a valid verify runs claims: tests/test_claims_catalogue.py)
        args = ["verify", *ids, *flags, "--mutate", "nan"]
    elif cmd == "sweep":
        args = ["sweep", *(ids[:1] or ["nope"]), "--out", path, *flags, "--grid", "beta=1:2:0"]
    elif cmd == "bench":
        args = ["bench", "nope", *flags]
    else:
        args = [cmd, *flags]
    _run(args)


SIZES = st.sampled_from(["2", "6", "10", "16", "17", "64", "65", "100", "21201", "21202", "1000000", "-1", "nan",
                         "1e308", "x", ""])
LIMITS = st.sampled_from(["--max-memory", "--max-time"]).flatmap(
    lambda opt: st.tuples(st.just(opt), st.sampled_from(["1", "1s", "1G", "4G", "0", "-1", "nan", "inf", "", "x",
                                                         "1e999", "2h", "512M", "1.5x"])))


@_fuzz(40, sizes=st.lists(st.tuples(st.sampled_from(["L", "log2_points", "n_scrambles", "R"]), SIZES), max_size=3),
       limit=st.none() | LIMITS, where=st.sampled_from(["group", "command"]), as_json=st.booleans())
def test_solve_sizes_are_refused_up_front(sizes, limit, where, as_json):
    """Attention solves of any size: refused before any computation (a 1 s time limit is below
    every attention solve), whatever the limits given; never a traceback."""
    args = ["solve", "sparse-token", "--model", "attention"] + [a for k, v in sizes for a in ("--param", f"{k}={v}")]
    args += ["--json"] if as_json else []
    lim = list(limit) if limit else []
    res = _run(((lim + args) if where == "group" else (args + lim)) + ["--max-time", "1s"], must_fail=True,
               time_limit=True)
    assert res.exit_code == 2


@_fuzz(30, claim=st.sampled_from(["A.capacity.ordering", "A.capacity.conjecture1_fails", "A.thm1.linear_threshold"]),
       L=SIZES, limit=LIMITS)
def test_eval_sizes_and_limits(claim, L, limit):
    """eval with a size the claim's cost model prices (L of the attention capacity) and random
    limits: a result at once, or a one-line refusal."""
    res = _run([*limit, "eval", claim, "--param", f"L={L}", "--param", "R=1", "--max-time", "5s"], time_limit=True)
    assert res.exit_code in (0, 2)


@_fuzz(30, cmd=st.sampled_from(["report", "latex", "figure", "sweep", "list", "cache", "eval", "verify"]),
       path=paths, extra=st.lists(st.sampled_from(["--no-power", "--no-figures", "--no-cache", "--body", "--json",
                                                  "--snippets", "/proc/x", "--quick", "--full", "--max-time", "1s",
                                                  "--claims", "/nonexistent.py", "--from", "/tmp", "info", "--help"]),
                                 max_size=3))
def test_paths_and_options(cmd, path, extra):
    """Output paths and option combinations of the commands that write files, each run
    refused before its computation (a bad path, a bad option, or a 1 s --max-time)."""
    if cmd == "report":
        args = ["report", "B.kl.bound", "-o", path, *extra, "--max-time", "1s"]
        if path.endswith((".htm", ".html")) or not extra:
            args = ["report", "nope", "-o", path, *extra]
    elif cmd == "latex":
        args = ["latex", "B.kl", "-o", path, *extra]
    elif cmd == "figure":
        args = ["figure", "nope", "-o", path, *extra]
    elif cmd == "sweep":
        args = ["sweep", "sparse-token", "--model", "attention", "--grid", "L=10,20", "--out", path, *extra,
                "--max-time", "1s"]
    elif cmd == "eval":
        args = ["eval", "B.rate.exponent", *extra]
    elif cmd == "verify":
        args = ["verify", "B.zzz", *extra]
    else:
        args = [cmd, *extra]
    _run(args, time_limit=True)


# --- the Python API ------------------------------------------------------------------------------
API_VALUES = st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e308, -1.0, 0, 2, 0.5, 10, "", "x",
                              None, True, [1], 10**30, "2"])


def _api(fn, *args, **kw):
    """Call an API function: it returns (no NaN in the result) or raises a documented error."""
    import attncheck
    from numerics.core.params import ParameterError
    from numerics.core.results import SolveError

    TRIED["api"] += 1
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(Timeout(f"{fn} ran past {BUDGET_S} s")))
    signal.alarm(BUDGET_S)
    try:
        out = getattr(attncheck, fn)(*args, **kw)
    except (ParameterError, SolveError, ArithmeticError) as e:
        assert str(e) and "\n" not in str(e).strip(), (fn, args, kw, str(e))
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    text = repr(out) if not isinstance(out, dict) else " ".join(f"{k}={v}" for k, v in out.items())
    for token in text.replace("=", " ").replace(",", " ").replace("(", " ").split():
        assert token.lower() not in ("nan", "-nan"), (fn, args, kw, text[:300])
    return out


@_fuzz(50, claim=st.sampled_from(EVALUABLE + ["nope", ""]) | st.integers(), names=st.lists(
    st.sampled_from(PARAM_NAMES) | st.text(string.ascii_letters, max_size=5), max_size=3),
       vals=st.lists(API_VALUES, min_size=3, max_size=3), dps=st.sampled_from([5, 30, 4, 2001, "30", None, True]))
def test_api_evaluate(claim, names, vals, dps):
    _api("evaluate", claim, dps=dps, max_time="5s", **dict(zip(names, vals)))


@_fuzz(40, model=st.sampled_from(["attention", "pool", "bogus", 3, None]), names=st.lists(
    st.sampled_from(["L", "log2_points", "n_scrambles", "lam", "alpha1", "q_norm", "nope"]), max_size=3),
       vals=st.lists(API_VALUES, min_size=3, max_size=3), problem=st.sampled_from(["sparse-token", "nope", None]))
def test_api_solve(model, names, vals, problem):
    kw = dict(zip(names, vals))
    if model is not None:
        kw["model"] = model
    if kw.get("model") != "attention":
        kw["lam"] = -1  # a valid linear solve costs seconds (tests/test_paper_a_equations.py)
    _api("solve", problem, max_time="1s", **kw)


@_fuzz(30, fn=st.sampled_from(["verify", "simulate", "power", "latex", "equations"]),
       ids=st.sampled_from([None, "nope", "", 3, ["nope"], ["B.kl", 3], "A.zzz"]),
       kw=st.dictionaries(st.sampled_from(["mode", "seed", "dps", "workers", "mutate"]),
                          st.sampled_from(["bogus", -1, 0, 4, 2001, float("nan"), float("inf"), True, "1", None, 65]),
                          max_size=2))
def test_api_other_functions(fn, ids, kw):
    """Bad ids or bad options: a documented error before any claim runs."""
    if fn in ("latex", "equations"):
        kw = {}
    if fn in ("simulate", "power", "equations") and not isinstance(ids, str):
        ids = "nope"
    if fn == "power":
        kw.pop("dps", None)
        kw.pop("workers", None)
        kw.pop("mutate", None)
    if fn == "simulate":
        kw.pop("workers", None)
        kw.pop("mutate", None)
    if fn == "latex" and ids in (None, ""):
        ids = "nope"  # the LaTeX of every claim costs seconds: tests/test_latex.py
    if ids in (None, ""):
        ids = "nope"  # every claim would run
    _api(fn, ids, **kw)


def _at_scale(name: str):
    body, strategies, n = FUZZED[name]
    scale = math.ceil(AT_SCALE / sum(k for _, _, k in FUZZED.values()))
    return settings(max_examples=n * scale, deadline=None, database=None)(given(**strategies)(body))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FUZZED))
def test_fuzz_at_scale(name):
    """Every fuzz test above (every subcommand and the API) at a sample scaled so that the
    slow run tries at least AT_SCALE (10^4) inputs in all."""
    before = TRIED["inputs"] + TRIED["api"]
    _at_scale(name)()
    SCALED[name] = TRIED["inputs"] + TRIED["api"] - before


SCALED: dict = {}


@pytest.mark.slow
def test_report_inputs_tried_at_scale():
    """The slow run's count: at least AT_SCALE inputs, across every fuzz test."""
    total = TRIED["inputs"] + TRIED["api"]
    print(f"\nfuzz at scale: {TRIED['inputs']} CLI inputs and {TRIED['api']} API calls tried "
          f"({', '.join(f'{k} {v}' for k, v in sorted(SCALED.items()))}), no traceback, no silent NaN")
    assert set(SCALED) == set(FUZZED) and all(SCALED.values()), SCALED
    assert total >= AT_SCALE, (total, SCALED)


def test_report_inputs_tried():
    """Every fuzz test that ran in this process tried its full sample (the default run's
    total is 240 CLI inputs and 120 API calls, split between the processes of ``-n 2``)."""
    print(f"\nfuzz: {TRIED['inputs']} CLI inputs and {TRIED['api']} API calls tried, no traceback, no silent NaN")
    expected = sum(FUZZED[name][2] for name in RAN)
    assert TRIED["inputs"] + TRIED["api"] >= expected, (TRIED, sorted(RAN))
