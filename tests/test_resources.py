"""Resource limits: requests refused up front (one line, exit 2, under a second), limits from
the options, the Python API, and the step-4 equations in row blocks (the same solution)."""
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import attncheck
from numerics.cli import main
from numerics.core import resources
from numerics.core.params import ParameterError

OOM = ["solve", "sparse-token", "--model", "attention", "--param", "log2_points=16", "--param", "n_scrambles=64"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "numerics.cli", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ATTNCHECK_MAX_MEMORY": "", "ATTNCHECK_MAX_TIME": ""})


def test_the_largest_qmc_solve_is_refused_at_once():
    # refused before anything is computed (about 0.2 s on an idle machine: the start-up
    # benchmark `start.cheap` measures it; a test asserts no time)
    out = _cli(*OOM)
    assert out.returncode == 2 and out.stdout == ""
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith("error: ") and "log2_points" in line and "limit" in line
    res = CliRunner().invoke(main, ["--max-memory", "1G", *OOM])  # the option's refusal: in process
    assert res.exit_code == 2 and res.stdout == "" and "memory" in res.stderr and "1 GiB" in res.stderr


def test_L_beyond_the_sobol_dimension_is_refused_with_its_range():
    out = CliRunner().invoke(main, ["solve", "sparse-token", "--model", "attention", "--param", "L=1000000"])
    assert out.exit_code == 2 and "parameter L" in out.stderr and "21201" in out.stderr
    res = CliRunner().invoke(main, ["eval", "A.capacity.ordering", "--param", "L=1000000"])
    assert res.exit_code == 2 and "21201" in res.output


@pytest.mark.parametrize("where", ["group", "command"])
def test_limits_from_options(where):
    lim = ["--max-time", "1s"]
    args = lim + OOM[:4] if where == "group" else OOM[:4] + lim
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2 and "above the limit 1 s (--max-time)" in res.output
    res = CliRunner().invoke(main, OOM[:4] + ["--max-memory", "lots"])
    assert res.exit_code == 2 and "--max-memory" in res.output
    # the limit does not outlive its invocation
    assert resources.limits().time_source == resources.DEFAULT_TIME_SOURCE


def test_api_refuses_before_running():
    with pytest.raises(resources.ResourceError, match="log2_points"):
        attncheck.solve("sparse-token", model="attention", log2_points=16, n_scrambles=64)
    with pytest.raises(ParameterError, match="max_memory="):
        attncheck.solve("sparse-token", model="attention", max_memory="1M")
    with pytest.raises(ParameterError, match="21201"):
        attncheck.evaluate("A.capacity.ordering", L=10**6)


def test_sizes_and_durations_parse():
    assert resources.parse_size("4G") == 4 * 2**30 and resources.parse_size("512M") == 512 * 2**20
    assert resources.parse_duration("2h") == 7200 and resources.parse_duration("90") == 90
    for bad in ("", "x", "-1", "0", "1e999", "nan", "4Q"):
        with pytest.raises(ParameterError):
            resources.parse_size(bad)
    assert resources.available_memory() > 0


def test_sparse_token_option_names_are_the_solvers():
    from numerics.problems.paper_a import sparse_token
    from numerics.theory.paper_a import erm_equations as erm_theory

    assert sparse_token.MODELS == erm_theory.MODELS and sparse_token.LOSSES == erm_theory.LOSSES


def test_equations_in_row_blocks_give_the_same_solution(monkeypatch):
    from numerics.theory.paper_a import costs, erm_equations as erm_theory
    from numerics.theory.paper_a import models as M

    law = erm_theory.attention_law(6, 1, 0.5, 4.0, 1.0, 1.5, 0.6, log2_points=6, n_scrambles=2, seed=1)
    whole = erm_theory.solve(law, 2.0, 1e-3, M.LOGISTIC, refine=False)
    monkeypatch.setattr(costs, "CHUNK_ELEMENTS", 1000)
    eqs = erm_theory.Equations(law, 2.0, 1e-3, M.LOGISTIC)
    assert eqs.blocks is not None and len(eqs.blocks) > 5
    blocks = erm_theory.solve(law, 2.0, 1e-3, M.LOGISTIC, refine=False)
    assert whole.ok and blocks.ok
    for k, v in whole.raw.x.items():
        assert blocks.raw.x[k] == pytest.approx(v, rel=1e-12, abs=1e-12)
    for k, v in whole.raw.metrics.items():
        assert blocks.raw.metrics[k] == pytest.approx(v, rel=1e-12, abs=1e-14)


# --- every subcommand honours the limits, or rejects them ----------------------------------------
COMMANDS = {
    "list": ["list"], "latex": ["latex", "B.kl"], "eval": ["eval", "B.rate.exponent"],
    "certify": ["eval", "A.thm3.q2_cosine", "--certify"], "solve": ["solve", "sparse-token", "--model", "pool"],
    "sweep": ["sweep", "B.rate.exponent", "--grid", "beta=2,3", "--out", "/tmp/attncheck-never-written"],
    "verify": ["verify", "B.kl.bound", "--no-cache"], "report": ["report", "B.kl.bound", "-o", "/tmp/never.html"],
    "figure": ["figure", "A.thm3.fig", "-o", "/tmp/never.png"], "bench": ["bench", "eval.dps"],
    "cache": ["cache", "info"],
}
WITH_OPTIONS = ("eval", "certify", "solve", "sweep", "verify")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_honours_a_memory_limit_below_its_interpreter(name):
    """`attncheck --max-memory 1K COMMAND` (and `COMMAND --max-memory 1K` where the command takes
    the option) is refused at once: no command runs in less than its interpreter."""
    args = COMMANDS[name]
    runs = [["--max-memory", "1K", *args]] + ([[*args, "--max-memory", "1K"]] if name in WITH_OPTIONS else [])
    for argv in runs:
        res = CliRunner().invoke(main, argv)
        assert res.exit_code == 2, (argv, res.output)
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: --max-memory") and "1 KiB" in lines[0], lines
    assert resources.limits().memory_source == resources.DEFAULT_MEMORY_SOURCE  # not outliving the call


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - set(WITH_OPTIONS)))
def test_commands_without_a_cost_model_reject_the_options_of_their_own(name):
    res = CliRunner().invoke(main, [*COMMANDS[name], "--max-time", "1h"])
    assert res.exit_code == 2 and "--max-time" in res.output and len(res.output.strip().splitlines()) == 1


def test_verify_counts_the_interpreters_of_its_pool():
    res = CliRunner().invoke(main, ["verify", "B.kl.bound", "B.coercivity.counterexample", "--no-cache",
                                    "--workers", "4", "--max-memory", "600M"])
    assert res.exit_code == 2 and "verify of 2 claims" in res.output and "--workers" not in res.output.split(":")[0]


def test_api_honours_the_memory_limit_without_a_cost_model():
    assert attncheck.claims()["B.rate.exponent"].cost is None  # a closed form without a cost model
    with pytest.raises(resources.ResourceError, match="max_memory="):
        attncheck.evaluate("B.rate.exponent", max_memory="1K")
    with pytest.raises(resources.ResourceError, match="max_memory="):
        attncheck.solve("sparse-token", model="pool", alpha1=2, lam=0.01, max_memory="1K")
    assert attncheck.evaluate("B.rate.exponent", max_memory="4G")


@pytest.mark.parametrize("request_", [
    {"model": "attention", "loss": "logistic", "alpha1": 2},  # the defaults of both entry points
    {"model": "attention", "loss": "square", "alpha1": 2, "log2_points": 9, "n_scrambles": 4, "L": 5},
    {"model": "pool", "loss": "square", "lam": 0.01},
])
def test_the_api_solve_is_estimated_and_refused_as_the_cli_solve(request_):
    """One request layer: the API's estimate of a solve equals the command line's for the same
    request (same defaults, same cost model), and both refuse it above a limit with the same
    estimate in the message (nothing is computed)."""
    from numerics import request as Q
    from numerics.core.params import parse_assignments

    opts = {k: v for k, v in request_.items() if k in ("model", "loss")}
    params = [f"{k}={v}" for k, v in request_.items() if k not in opts]
    cli = Q.solve_request("sparse-token", opts, parse_assignments(params), Q.option_name)
    api = attncheck.solve_estimate("sparse-token", **request_)
    assert api == cli[3]
    if api.seconds == 0:
        return
    args = ["solve", "sparse-token", *[x for k, v in opts.items() for x in (f"--{k}", v)],
            *[x for p in params for x in ("--param", p)], "--max-time", "1s"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    with pytest.raises(resources.ResourceError) as err:
        attncheck.solve("sparse-token", max_time="1s", **request_)
    assert str(err.value).replace("max_time=", "--max-time") == res.stderr.strip().removeprefix("error: ")


@pytest.fixture
def clean_limits(monkeypatch):
    monkeypatch.delenv("ATTNCHECK_MAX_MEMORY", raising=False)
    monkeypatch.delenv("ATTNCHECK_MAX_TIME", raising=False)
    resources.reset_limits()
    yield
    resources.reset_limits()


def test_estimates_without_and_with_a_cost_model(clean_limits):
    B = resources.BASE_BYTES
    one = resources.unpriced("latex")
    assert (one.bytes, one.seconds, one.knobs, one.what) == (B, 0.0, (), "latex (the Python interpreter alone)")
    three = resources.unpriced("sweep", processes=3)
    assert (three.bytes, three.knobs, three.what) == (3 * B, ("--workers",), "sweep (the Python interpreters alone)")
    assert resources.unpriced(processes=0).bytes == B and resources.unpriced().what == "(the Python interpreter alone)"
    two = resources.unpriced("verify", processes=2)
    assert two.knobs == ("--workers",) and two.what == "verify (the Python interpreters alone)"
    assert resources.priced(None, 1, 2, what="x") == resources.unpriced("x")
    assert resources.priced(lambda a, b: resources.Estimate(a, b), 5.0, 6.0) == resources.Estimate(5.0, 6.0)


def test_verify_and_many_share_the_time_among_the_workers(clean_limits):
    B = resources.BASE_BYTES
    assert not resources.explicit()
    assert resources.verify_cost(100.0, 4, 2).seconds == 0.0  # the default 2 h: priced requests only
    with resources.limited(max_time="10h"):
        assert resources.explicit()
        assert resources.verify_cost(100.0, 4, 2).seconds == 50.0
        assert resources.verify_cost(100.0, 1, 4).seconds == 100.0  # one claim: one worker's time
        assert resources.verify_cost(100.0, 0, 3).seconds == 100.0
    with resources.limited(max_memory="8G"):
        assert resources.explicit()
    assert resources.verify_cost(1.0, 3, 1).bytes == B and resources.verify_cost(1.0, 3, 2).bytes == 3 * B
    est = resources.verify_cost(1.0, 4)
    assert est.bytes == B and est.what == "verify of 4 claims"
    assert est.knobs == ("the number of claims (or use --quick, more --workers)",)
    assert resources.many([], 2, "sweep") == resources.Estimate(what="sweep")
    es = [resources.Estimate(10.0, 3.0, ("--n",)), resources.Estimate(30.0, 5.0, ("--d", "--n"))]
    m = resources.many(es, workers=4, what="grid")
    assert (m.bytes, m.seconds, m.what) == (60.0, 4.0, "grid")  # at most one worker per point
    assert m.knobs == ("--n", "--d", "the number of grid points")
    assert resources.many(es, workers=1).seconds == 8.0 and resources.many(es, workers=0).bytes == 30.0
    one = resources.many(es)  # one process by default
    assert (one.seconds, one.bytes, one.what) == (8.0, 30.0, "")


def test_more_sizes_and_durations(clean_limits):
    P = resources.parse_size
    assert P("2.5GB") == 2.5 * 2**30 and P(" 512 mib ") == 512 * 2**20 and P("1e3") == 1000.0
    assert P("3k") == 3 * 2**10 and P("2T") == 2 * 2**40 and P(".5kb") == 512 and P("7b") == 7
    D = resources.parse_duration
    assert D("1.5h") == 5400 and D("10min") == 600 and D("2d") == 172800 and D("30 s") == 30
    assert D("3m") == 180 and D("4sec") == 4
    with pytest.raises(ParameterError, match=r"duration must look like 90s, 30m, 2h or 600 \(seconds\), got '2w'"):
        D("2w")
    with pytest.raises(ParameterError, match=r"memory size must be finite and > 0, got '0'"):
        P("0")
    with pytest.raises(ParameterError) as e:
        P("4 G B")
    assert str(e.value) == "memory size must look like 4G, 512M or 2000000000 (bytes), got '4 G B'"
    T = resources.size_text
    assert [T(512), T(1023), T(1024), T(1.5 * 2**30), T(2**40), T(3 * 2**20)] == \
        ["512 B", "1023 B", "1 KiB", "1.5 GiB", "1 TiB", "3 MiB"]
    S = resources.duration_text
    assert [S(89), S(90), S(5399), S(5400), S(3 * 86400 - 1), S(3 * 86400), S(10 * 86400)] == \
        ["89 s", "2 min", "90 min", "1.5 h", "72.0 h", "3 days", "10 days"]
    assert S(5580) == "1.6 h" and S(868320) == "10.1 days"  # 1.55 h, 10.05 days: the units exact


def test_limits_from_the_environment_the_options_and_the_api(clean_limits, monkeypatch):
    lim = resources.limits()
    assert lim.seconds == 7200.0 and lim.time_source == resources.DEFAULT_TIME_SOURCE
    assert lim.memory_source == resources.DEFAULT_MEMORY_SOURCE and 0 < lim.bytes < resources.available_memory()
    monkeypatch.setenv("ATTNCHECK_MAX_MEMORY", "1G")
    monkeypatch.setenv("ATTNCHECK_MAX_TIME", "5m")
    lim = resources.limits()
    assert (lim.bytes, lim.memory_source, lim.seconds, lim.time_source) == \
        (2**30, "$ATTNCHECK_MAX_MEMORY", 300.0, "$ATTNCHECK_MAX_TIME")
    resources.set_limits(max_memory="2G")  # an option wins over the environment
    lim = resources.limits()
    assert (lim.bytes, lim.memory_source, lim.seconds) == (2 * 2**30, "--max-memory", 300.0)
    resources.set_limits(max_time="1h")
    assert resources.limits().bytes == 2 * 2**30 and resources.limits().time_source == "--max-time"
    with resources.limited(max_time="2m") as inside:
        assert (inside.seconds, inside.time_source, inside.bytes) == (120.0, "max_time=", 2 * 2**30)
    assert resources.limits().seconds == 3600.0  # restored on leaving the block
    resources.reset_limits()
    assert resources.limits().memory_source == "$ATTNCHECK_MAX_MEMORY"


def test_check_refuses_in_one_line_and_announces_long_requests(clean_limits):
    said = []
    small = resources.Estimate(1e6, 30.0, ("--n",), "solve x")
    assert resources.check(small, said.append) is small and said == []  # 30 s: not announced
    long = resources.Estimate(1e6, 31.0, (), "")
    resources.check(long, said.append)
    assert said == ["estimated 31 s, 977 KiB of memory"]
    with resources.limited(max_memory="100M"):
        # an explicit memory limit is compared with at least one interpreter
        with pytest.raises(resources.ResourceError) as e:
            resources.check(resources.Estimate(1.0, 0.0, ("--a", "--b"), "eval"))
        assert str(e.value) == ("eval: needs about 238 MiB of memory, above the limit 100 MiB "
                                "(max_memory=): lower --a or --b, or raise the limit")
    assert resources.check(resources.Estimate(1.0)).bytes == 1.0  # the default limit: as estimated
    with resources.limited(max_memory="1G", max_time="60s"):
        assert resources.check(resources.Estimate(2**30, 60.0)).bytes == 2**30  # at the limits: allowed
        with pytest.raises(resources.ResourceError) as e:
            resources.check(resources.Estimate(1e6, 61.0))
        assert str(e.value) == "would take about 61 s, above the limit 60 s (max_time=): raise the limit"
        with pytest.raises(resources.ResourceError, match="needs about 1 GiB"):
            resources.check(resources.Estimate(2**30 + 1, 1.0))
    resources.within("L", 5, 1, 5, "the Sobol dimension")
    resources.within("L", 1, 1, 5, "the Sobol dimension")
    with pytest.raises(resources.ResourceError) as e:
        resources.within("L", 6, 1, 5, "the Sobol dimension")
    assert str(e.value) == "parameter L: must be in [1, 5] (the Sobol dimension), got 6"
    assert isinstance(e.value, ParameterError)


def test_a_small_estimate_under_a_users_limit_counts_the_interpreter_and_keeps_its_name():
    est = resources.Estimate(1000, 0.5, ("L",), "a law", {"L": 3})
    with resources.limited(10 * resources.BASE_BYTES, None):
        out = resources.check(est)
    assert out.bytes == resources.BASE_BYTES
    assert (out.seconds, out.knobs, out.what, out.parts) == (0.5, ("L",), "a law", {"L": 3})
    assert resources.check(est) == est  # under the default limit the estimate is left as it is


def test_a_request_without_a_cost_model_is_the_interpreter_alone():
    assert resources.priced(None).what == "(the Python interpreter alone)"
    assert resources.priced(None, what="a law").what == "a law (the Python interpreter alone)"
    assert resources.priced(lambda n: resources.Estimate(n, 1.0), 7) == resources.Estimate(7, 1.0)


def test_available_memory_is_memavailable_or_16_gib(monkeypatch):
    import io

    opened = []

    def fake_open(path, *a, **k):
        opened.append(path)
        return io.StringIO("MemTotal:       8000 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n")

    monkeypatch.setattr(resources, "open", fake_open, raising=False)
    assert resources.available_memory() == 2048 * 1024 and opened == ["/proc/meminfo"]

    def no_proc(path, *a, **k):
        raise FileNotFoundError(path)
    monkeypatch.setattr(resources, "open", no_proc, raising=False)
    assert resources.available_memory() == 16.0 * 2**30


def test_the_default_memory_limit_is_half_the_available_memory(monkeypatch):
    monkeypatch.delenv("ATTNCHECK_MAX_MEMORY", raising=False)
    monkeypatch.setattr(resources, "available_memory", lambda: 12.0 * 2**30)
    resources.reset_limits()
    lim = resources.limits()
    assert lim.bytes == 6.0 * 2**30 and lim.memory_source == resources.DEFAULT_MEMORY_SOURCE
