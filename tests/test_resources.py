"""Resource limits: requests refused up front (one line, exit 2, under a second), limits from
the options, the Python API, and the step-4 equations in row blocks (the same solution)."""
import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import attncheck
from numerics.cli import main
from numerics.core import resources
from numerics.core.params import ParameterError

OOM = ["solve", "sparse-token", "--model", "attention", "--param", "log2_points=16", "--param", "n_scrambles=64"]


def _cli(*args):
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "numerics.cli", *args], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ATTNCHECK_MAX_MEMORY": "", "ATTNCHECK_MAX_TIME": ""})
    return out, time.perf_counter() - t0


def test_the_largest_qmc_solve_is_refused_at_once():
    out, wall = _cli(*OOM)
    assert out.returncode == 2 and out.stdout == ""
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith("error: ") and "log2_points" in line and "limit" in line
    assert wall < 5  # about 0.2 s on an idle machine: no SymPy, nothing computed
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
    from numerics.problems.paper_a import sparse_token as P
    from numerics.theory.paper_a import erm_equations as SE

    assert P.MODELS == SE.MODELS and P.LOSSES == SE.LOSSES


def test_equations_in_row_blocks_give_the_same_solution(monkeypatch):
    from numerics.theory.paper_a import costs, erm_equations as SE

    law = SE.attention_law(6, 1, 0.5, 4.0, 1.0, 1.5, 0.6, log2_points=6, n_scrambles=2, seed=1)
    whole = SE.solve(law, 2.0, 1e-3, "logistic", refine=False)
    monkeypatch.setattr(costs, "CHUNK_ELEMENTS", 1000)
    eqs = SE.Equations(law, 2.0, 1e-3, "logistic")
    assert eqs.blocks is not None and len(eqs.blocks) > 5
    blocks = SE.solve(law, 2.0, 1e-3, "logistic", refine=False)
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
        t0 = time.perf_counter()
        res = CliRunner().invoke(main, argv)
        assert res.exit_code == 2, (argv, res.output)
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: --max-memory") and "1 KiB" in lines[0], lines
        assert time.perf_counter() - t0 < 5
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
    from numerics import requests as Q
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
