"""A run that fails well: a claim that raises is an error verdict and the run goes on; an
interrupted pool stops at once (exit 130, no process left); the verdict cache survives two
processes at once and a corrupted entry."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

from numerics.cli import main
from numerics import registry

CHEAP = "B.kl.bound"
PLUGIN = '''
from numerics.claims.base import Claim, Comparison


def _raises(settings, claim):
    raise ValueError("the fixed point has no real root at these parameters")


def _code_error(settings, claim):
    return None.rows  # a user's programming error: still an error verdict, the run goes on


def _holds(settings, claim):
    return [Comparison("one", 1.0, 1.0)], {}, {}


CLAIMS = [
    Claim(id="Y.raises", paper="Y", reference="-", statement="a theory that cannot be computed",
          experiment=_raises),
    Claim(id="Y.broken", paper="Y", reference="-", statement="a claim with a bug of its own",
          experiment=_code_error),
    Claim(id="Y.holds", paper="Y", reference="-", statement="one equals one", experiment=_holds),
]
'''


@pytest.fixture
def plugin(tmp_path):
    path = tmp_path / "raising_claims.py"
    path.write_text(PLUGIN)
    yield str(path)
    if str(path) in registry.EXTRA_FILES:
        registry.EXTRA_FILES.remove(str(path))
    registry.claims.cache_clear()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_plugin_claim_that_raises_is_an_error_verdict_and_the_run_goes_on(plugin, workers):
    res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y", CHEAP, "--no-cache", "--json",
                                    "--workers", workers])
    assert res.exit_code == 1, res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    recs = {r["id"]: r for r in (json.loads(ln) for ln in res.output.splitlines() if ln.startswith("{"))}
    assert set(recs) == {"Y.raises", "Y.broken", "Y.holds", CHEAP}
    assert recs["Y.raises"]["status"] == "error" and not recs["Y.raises"]["passed"]
    assert recs["Y.raises"]["error"] == ("claim code of Y.raises failed: ValueError: the fixed point has no real "
                                         "root at these parameters")
    assert recs["Y.raises"]["details"]["side"] == "claim"
    assert recs["Y.broken"]["status"] == "error" and "AttributeError" in recs["Y.broken"]["error"]
    assert recs["Y.holds"]["status"] == "passed" and recs[CHEAP]["status"] == "passed"


def test_the_text_output_names_the_claim_and_a_mutation_run_does_not_count_it_caught(plugin):
    res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y.raises", "Y.holds", "--no-cache"])
    assert res.exit_code == 1
    line = next(ln for ln in res.output.splitlines() if ln.startswith("ERROR"))
    assert "Y.raises" in line and "claim code of Y.raises failed: ValueError: the fixed point" in line
    assert "NOT all of 2 claims passed" in res.output
    res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y.raises", "--no-cache", "--mutate", "0.05"])
    assert res.exit_code == 1 and "NOT all of 1 claims rejected" in res.output


def test_an_error_is_never_cached(plugin, tmp_path):
    from numerics.core import cache

    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):
        res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y.raises", "--json"], env=env)
        assert res.exit_code == 1 and '"cached": false' in res.output
    old = os.environ.get(cache.ENV)
    os.environ[cache.ENV] = env["ATTNCHECK_CACHE_DIR"]
    try:
        assert cache.info()["entries"] == 0
    finally:
        os.environ[cache.ENV] = old


# --- an error is never a pass, and names the side that raised ------------------------------------
SIDES_PLUGIN = '''
import sympy as sp

from derivations.core import active_mutants, derivation, mutant, step
from numerics.claims.base import Claim, Comparison, memo
from numerics.core.backends import mp_eval
from numerics.core.params import Param, ParamSpace

x = sp.Symbol("x", positive=True)
SPACE = ParamSpace((Param("x", float, 0.0, 4.0, doc="x", default=1.0),))


@derivation
def law():
    return step("V.law", 1 / x)


mutant("V.law:x2", "V.law", "twice the law", lambda e: 2 * e)
mutant("V.law:pole", "V.law", "a pole at the default", lambda e: 1 / (x - 1))


def _simulate(point, mutants):
    # the experiment raises away from x = 1 (and, through a memo key that wrongly holds the
    # active mutants, under every mutant)
    if point["x"] != 1.0 or mutants:
        raise FloatingPointError(f"the simulation overflowed at x={point['x']}")
    return 1.0


def _experiment(settings, claim):
    point = settings.point or {"x": 1.0}
    theory = float(mp_eval(law(), {x: point["x"]}, settings.dps))  # raises at x = 0 (1/x)
    mean = memo(settings, (claim.id, point["x"], active_mutants()), lambda: _simulate(point, active_mutants()))
    return [Comparison("1/x", theory, mean)], {}, {}


def _evaluate(values, dps):
    return {"law": mp_eval(law(), {x: values["x"]}, dps)}


CLAIMS = [Claim(id="V.sides", paper="V", reference="-", statement="1/x", experiment=_experiment,
                evaluate=_evaluate, param_space=SPACE, point_space=SPACE,
                mutants=("V.law:x2", "V.law:pole"), outputs=("V.law",))]
'''


@pytest.fixture
def sides(tmp_path):
    path = tmp_path / "sides_claims.py"
    path.write_text(SIDES_PLUGIN)
    registry.add_claims_file(str(path))  # for the API (the command line loads it with --claims)
    yield str(path)
    if str(path) in registry.EXTRA_FILES:
        registry.EXTRA_FILES.remove(str(path))
    registry.claims.cache_clear()


def test_explore_counts_a_point_whose_experiment_raised_as_an_error(sides):
    """The experiment raises at every point but the default: the second drawn point is an error,
    so the exploration fails (exit 1, "passed": false with the error naming the experiment and
    the claim), although no point was a confirmed failure."""
    res = CliRunner().invoke(main, ["explore", "--claims", sides, "V.sides", "--examples", "2", "--shrinks", "0",
                                    "--json"])
    assert res.exit_code == 1, res.output
    point0, point1, summary = (json.loads(ln) for ln in res.stdout.splitlines())
    assert point0["verdict"] == "passed" and point1["verdict"] == "error"
    assert point1["error"].startswith("experiment of V.sides failed: FloatingPointError: the simulation overflowed")
    assert summary["passed"] is False and summary["failed"] is False
    assert summary["error"] == point1["error"] and summary["errors"][0]["params"] == point1["params"]
    res = CliRunner().invoke(main, ["explore", "--claims", sides, "V.sides", "--examples", "2", "--shrinks", "0"])
    assert res.exit_code == 1 and res.stdout.startswith("ERROR V.sides"), res.output
    assert "experiment of V.sides failed" in res.stdout.splitlines()[0] and "1 claim raised (ERROR)" in res.stdout
    import attncheck

    e, = attncheck.explore("V.sides", examples=2, shrinks=0)
    assert not e.passed and e.error.startswith("experiment of V.sides failed") and "ERRORS" in repr(e)


def test_verify_and_the_api_name_the_side_that_raised(sides):
    import attncheck

    for x, side, text in (("2", "experiment", "experiment of V.sides failed: FloatingPointError"),
                          ("0", "theory", "theory of V.sides not computable: ZeroDivisionError")):
        res = CliRunner().invoke(main, ["verify", "--claims", sides, "V.sides", "--param", f"x={x}", "--json"])
        rec = json.loads(res.stdout)
        assert res.exit_code == 1 and rec["status"] == "error" and rec["passed"] is False, res.output
        assert rec["error"].startswith(text) and rec["details"]["side"] == side, rec
        v, = attncheck.verify("V.sides", params={"x": float(x)})
        assert not v.passed and v.status == "error" and v.error.startswith(text)
    v, = attncheck.verify("V.sides", cache=False)
    assert v.passed


def test_power_never_counts_an_experiment_that_raised_under_a_mutant_as_a_kill(sides):
    """Under V.law:pole the theory raises (a kill); under V.law:x2 and the output scalings the
    experiment raises (its memo key holds the mutants): not a kill, so the claim's power fails."""
    import attncheck

    p = attncheck.power("V.sides")
    how = {m.name: (m.killed, m.how) for m in p.mutants}
    assert how["V.law:pole"][0] and how["V.law:pole"][1].startswith("theory of V.sides not computable")
    assert not how["V.law:x2"][0] and how["V.law:x2"][1].startswith("experiment of V.sides failed")
    assert not any(p.scaled.values()) and not p.all_killed
    res = CliRunner().invoke(main, ["verify", "--claims", sides, "V.sides", "--power"])
    assert res.exit_code == 1 and "ALIVE   V.law:x2" in res.output, res.output


def test_a_sweep_point_that_raised_is_an_error_of_the_sweep(sides, tmp_path):
    """The closed form 1/x raises at x = 0: the other points are written, the sweep exits 1
    naming the point and the theory, its provenance says "passed": false with the error, and
    a rerun retries that point (and only it)."""
    import attncheck

    out = tmp_path / "sw"
    res = CliRunner().invoke(main, ["sweep", "--claims", sides, "V.sides", "--grid", "x=0,1,2", "--format", "csv",
                                    "--out", str(out)])
    assert res.exit_code == 1, res.output
    line = next(ln for ln in res.stderr.splitlines() if ln.startswith("ERROR"))
    assert line.startswith("ERROR at x=0: theory of V.sides not computable: ZeroDivisionError"), res.stderr
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["passed"] is False and [e["grid_point"] for e in prov["errors"]] == [{"x": "0"}]
    again = attncheck.sweep("V.sides", out, grid={"x": ["0", "1", "2"]}, format="csv")
    assert again["passed"] is False and again["computed"] == 1 and again["reused"] == 2
    fine = attncheck.sweep("V.sides", tmp_path / "fine", grid={"x": [1, 2]}, format="csv")
    assert fine["passed"] is True and fine["errors"] == []


def test_a_sweep_point_whose_solve_did_not_converge_has_no_values(tmp_path, monkeypatch):
    from numerics import sweep as SW
    from numerics.core.params import Param, ParamSpace
    from numerics.problems.base import ProblemSpec

    from numerics.core.results import RESULTS, Solution
    from numerics.core.value import values as typed

    def solve(options, values, dps):
        if values["a"] < 2:
            return Solution(RESULTS.successful, 50, 1e-12, typed({"root": values["a"] / 3}, 15))
        return Solution(RESULTS.max_steps_reached, 50, 0.3, {}, "50 steps")

    spec = ProblemSpec("toy", "a toy", ParamSpace((Param("a", float, 0.0, 4.0, doc="a", default=1.0),)), solve)
    monkeypatch.setattr(registry, "problems", lambda: {"toy": spec})
    prov = SW.run(SW.Target("problem", "toy"), {"a": ["1", "3"]}, tmp_path, fmt="csv")
    assert prov["passed"] is False
    (err,) = prov["errors"]
    assert err["grid_point"] == {"a": "3"} and err["error"].startswith("solve of toy did not converge: not converged: iteration limit reached (50 steps)")
    rows, _ = SW.read_table(tmp_path)
    assert [(r["a"], r["ok"], r.get("root")) for r in rows] == [(1.0, True, 1 / 3), (3.0, False, None)]


def test_the_report_shows_an_error_as_an_error(plugin, tmp_path):
    out = tmp_path / "r.html"
    res = CliRunner().invoke(main, ["report", "--claims", plugin, "Y.raises", "Y.holds", "--no-power", "--no-figures",
                                    "--no-cache", "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "2 claims (1 passed, 1 errors)" in page and "<span class='fail'>ERROR</span>" in page
    assert "claim code of Y.raises failed: ValueError: the fixed point has no real root" in page


# --- interrupts ----------------------------------------------------------------------------------
SLOW_PLUGIN = '''
import os
import time

from numerics.claims.base import Claim, Comparison


def _slow(settings, claim):
    time.sleep(600)
    return [Comparison("never", 1.0, 1.0)], {}, {}


def _quick(settings, claim):
    open(os.environ["ATTNCHECK_TEST_MARKER"], "w").close()
    return [Comparison("one", 1.0, 1.0)], {}, {}


CLAIMS = [
    Claim(id="Z.slow", paper="Z", reference="-", statement="never ends", experiment=_slow),
    Claim(id="Z.quick", paper="Z", reference="-", statement="one equals one", experiment=_quick),
]
'''


def _group_processes(pgid: int, zombies: bool = False) -> list[int]:
    """The live processes of a process group (from /proc); with ``zombies``, the zombies too
    (a process that ended and that no parent has reaped yet)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and (zombies or fields[0] != "Z"):
            out.append(int(entry))
    return out


def _no_process_left(pgid: int, within: float = 3.0) -> list[int]:
    end = time.monotonic() + within
    while (left := _group_processes(pgid)) and time.monotonic() < end:
        time.sleep(0.1)
    return left


def _attncheck(*args):
    return [sys.executable, "-c", "from numerics.cli import main; main()", *args]


def _interrupt_after(args, env, marker, sig):
    """Start ``args`` in a process group of its own, wait until it writes ``marker`` (and one
    second more, for what it computed to reach the parent), send ``sig`` to the group; return
    (process, stdout, stderr, seconds from the signal to the exit)."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        end = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.2)
        assert marker.exists(), proc.communicate(timeout=5)
        time.sleep(1.0)
        t0 = time.monotonic()
        os.killpg(proc.pid, sig)
        out, err = proc.communicate(timeout=15)
        return proc, out, err, time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.parametrize("sig,route", [(signal.SIGINT, ("--workers", "2")), (signal.SIGTERM, ("--workers", "2")),
                                       (signal.SIGINT, ("--scheduler", "local"))],
                         ids=["sigint-workers", "sigterm-workers", "sigint-scheduler"])
def test_an_interrupted_pool_stops_at_once_and_keeps_what_it_computed(tmp_path, sig, route):
    """A slow claim and a quick one in a pool of two: after the quick one is done, SIGINT or
    SIGTERM to the whole process group ends the run within 5 s, exit 130, one line, no
    process left; the quick claim's evidence is in the cache (the slow one ran first in the
    claims' order, so it was never printed)."""
    path = tmp_path / "slow_claims.py"
    path.write_text(SLOW_PLUGIN)
    marker = tmp_path / "quick-done"
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(tmp_path / "cache"), "ATTNCHECK_TEST_MARKER": str(marker)}
    if route[0] == "--scheduler":
        pytest.importorskip("distributed")
    proc, out, err, elapsed = _interrupt_after(
        _attncheck("verify", "--claims", str(path), "Z.slow", "Z.quick", *route), env, marker, sig)
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert elapsed < 5, elapsed
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "error: interrupted", err
    assert not _no_process_left(proc.pid)
    from numerics.core import cache

    old = os.environ.get(cache.ENV)
    os.environ[cache.ENV] = env["ATTNCHECK_CACHE_DIR"]
    try:
        assert cache.info()["entries"] == 1  # Z.quick, computed before the interrupt
    finally:
        os.environ[cache.ENV] = old


def test_no_process_of_an_interrupted_pool_is_left_a_second_after_it_exits(tmp_path):
    """`verify --workers 2` on two claims, SIGINT once the work started: one second after the
    run exits, no process of its group is left, zombies included (the workers, and the resource
    tracker that the pool's spawned workers start, are ended and reaped before it exits)."""
    path = tmp_path / "slow_claims.py"
    path.write_text(SLOW_PLUGIN)
    marker = tmp_path / "quick-done"
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(tmp_path / "cache"), "ATTNCHECK_TEST_MARKER": str(marker)}
    proc, out, err, _ = _interrupt_after(
        _attncheck("verify", "--claims", str(path), "Z.slow", "Z.quick", "--workers", "2", "--no-cache"), env, marker,
        signal.SIGINT)
    assert proc.returncode == 130, (proc.returncode, out, err)
    time.sleep(1.0)
    left = _group_processes(proc.pid, zombies=True)
    assert not left, [open(f"/proc/{p}/stat").read() for p in left if os.path.exists(f"/proc/{p}/stat")]


def test_timeout_interrupts_a_parallel_verify():
    """`timeout --preserve-status -s INT 8 attncheck verify --quick --workers 2 --no-cache`
    returns within 15 s with exit 130 and no child process left."""
    import shutil

    if shutil.which("timeout") is None:
        pytest.skip("needs coreutils timeout")
    t0 = time.monotonic()
    proc = subprocess.Popen(["timeout", "--preserve-status", "-s", "INT", "8",
                             *_attncheck("verify", "--quick", "--workers", "2", "--no-cache")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert elapsed < 15, elapsed
    assert "Traceback" not in err, err
    assert not _no_process_left(proc.pid)


SWEEP_PLUGIN = '''
import os
import time

import mpmath

from numerics.claims.base import Claim, Comparison
from numerics.core.params import Param, ParamSpace


def _evaluate(values, dps):
    if values["x"] > 1:
        time.sleep(600)
    open(os.environ["ATTNCHECK_TEST_MARKER"], "w").close()
    return {"y": mpmath.mpf(values["x"])}


CLAIMS = [Claim(id="Z.sweepable", paper="Z", reference="-", statement="y = x",
                experiment=lambda s, c: ([Comparison("one", 1.0, 1.0)], {}, {}), evaluate=_evaluate,
                param_space=ParamSpace((Param("x", float, 0.0, None, doc="x", default=1.0),)))]
'''


def test_an_interrupted_sweep_stops_at_once_and_keeps_its_points(tmp_path):
    """A sweep in a pool of two: one point done, one never ends; SIGINT ends it within 5 s,
    exit 130, no process left, the finished point on disk (a restart computes only the rest)."""
    path = tmp_path / "sweep_claims.py"
    path.write_text(SWEEP_PLUGIN)
    marker, out_dir = tmp_path / "point-done", tmp_path / "sweep"
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(tmp_path / "cache"), "ATTNCHECK_TEST_MARKER": str(marker)}
    proc, out, err, elapsed = _interrupt_after(
        _attncheck("sweep", "--claims", str(path), "Z.sweepable", "--grid", "x=2,1", "--workers", "2",
                   "--out", str(out_dir)), env, marker, signal.SIGINT)
    assert proc.returncode == 130 and elapsed < 5, (proc.returncode, elapsed, err)
    assert "Traceback" not in err and err.strip().splitlines()[-1].endswith("error: interrupted"), err
    assert not _no_process_left(proc.pid)
    assert len(list((out_dir / "points").glob("*.json"))) == 1


# --- the verdict cache ---------------------------------------------------------------------------
CACHED = ["B.coercivity.counterexample", "B.kl.bound"]
TIMING = ("elapsed_s", "cached")


def _records(text: str) -> list[dict]:
    return [{k: v for k, v in json.loads(ln).items() if k not in TIMING}
            for ln in text.splitlines() if ln.startswith("{")]


def test_two_processes_sharing_one_cache_both_succeed_with_identical_records(tmp_path):
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen(_attncheck("verify", *CACHED, "--json"), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert not any("warning" in err for _, err in outs), outs
    first, second = (_records(out) for out, _ in outs)
    assert len(first) == len(CACHED) and first == second
    res = CliRunner().invoke(main, ["verify", *CACHED, "--json"], env={"ATTNCHECK_CACHE_DIR": env["ATTNCHECK_CACHE_DIR"]})
    assert res.exit_code == 0 and _records(res.stdout) == first
    assert all(json.loads(ln)["cached"] for ln in res.stdout.splitlines())
    assert not list((tmp_path / "cache").rglob(".tmp-*"))  # no temporary file left behind


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "other object"])
def test_a_damaged_cache_record_is_reported_once_and_recomputed(tmp_path, damage):
    import pickle

    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    run = lambda: CliRunner().invoke(main, ["verify", CACHED[0], "--json"], env=env)  # noqa: E731
    cold = run()
    assert cold.exit_code == 0
    (record,) = (tmp_path / "evidence").rglob("*.pickle")
    data = record.read_bytes()
    record.write_bytes({"truncated": data[: len(data) // 2], "garbage": np.random.default_rng(np.random.SeedSequence(
                           [ord(ch) for ch in "cache/garbage"])).bytes(len(data)), "empty": b"",
                        "other object": pickle.dumps({"not": "evidence"})}[damage])
    again = run()
    assert again.exit_code == 0, again.output
    warnings = [ln for ln in again.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and str(record) in warnings[0] and "recomputing" in warnings[0], again.stderr
    assert [json.loads(ln)["cached"] for ln in again.stdout.splitlines()] == [False]
    assert _records(again.stdout) == _records(cold.stdout)
    warm = run()
    assert warm.exit_code == 0 and "warning" not in warm.stderr
    assert [json.loads(ln)["cached"] for ln in warm.stdout.splitlines()] == [True]


# --- the tests and the user's cache --------------------------------------------------------------
def test_the_session_writes_its_own_cache_only():
    """Whatever $ATTNCHECK_CACHE_DIR said when the session started, records go to the
    session's own folder (tests/conftest.py)."""
    import tempfile

    from numerics.core import cache

    user = os.environ.get("ATTNCHECK_TEST_USER_CACHE")
    here = cache.cache_dir()
    assert str(here).startswith(tempfile.gettempdir()) and here.name.startswith("attncheck-test-cache-")
    assert user is None or os.path.abspath(user) != os.path.abspath(here)
    res = CliRunner().invoke(main, ["verify", "B.coercivity.counterexample", "--json"])
    assert res.exit_code == 0 and cache.info()["entries"] >= 1


def test_the_tests_never_touch_the_users_cache(tmp_path):
    user = tmp_path / "users-cache"
    env = {**os.environ, "ATTNCHECK_CACHE_DIR": str(user), "ATTNCHECK_TEST_USER_CACHE": str(user)}
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          f"{__file__}::test_the_session_writes_its_own_cache_only"],
                         env=env, capture_output=True, text=True, timeout=300,
                         cwd=os.path.dirname(os.path.dirname(__file__)))
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert not user.exists() or not any(user.rglob("*")), sorted(user.rglob("*"))


def test_power_of_a_claim_that_raises_is_an_error_and_the_others_still_run(plugin):
    res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y.raises", "Y.holds", "--power"])
    assert res.exit_code == 1 and "internal error" not in res.output, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("ERROR"))
    assert "Y.raises" in line and "claim code of Y.raises failed: ValueError" in line
    assert "Y.holds" in res.output
    res = CliRunner().invoke(main, ["verify", "--claims", plugin, "Y.raises", "--power", "--json"])
    rec = json.loads(res.stdout.splitlines()[0])
    assert res.exit_code == 1 and rec["error"].startswith("claim code of Y.raises failed") and not rec["all_killed"]


def test_a_programming_error_of_a_built_in_claim_is_named_an_internal_error(monkeypatch):
    claim = registry.claims()["B.coercivity.counterexample"]

    def broken(settings, claim):
        raise TypeError("unsupported operand type(s) for +: 'Symbol' and 'NoneType'")

    broken.__module__ = claim.experiment.__module__  # a defect inside attncheck's own claim code
    monkeypatch.setattr(claim, "experiment", broken)  # in this process: --workers 1 runs it here
    res = CliRunner().invoke(main, ["verify", claim.id, CHEAP, "--no-cache", "--json", "--workers", "1"])
    assert res.exit_code == 1, res.output
    recs = {r["id"]: r for r in (json.loads(ln) for ln in res.output.splitlines() if ln.startswith("{"))}
    assert recs[claim.id]["status"] == "error"
    assert recs[claim.id]["error"].startswith(f"internal error in the claim code of {claim.id}: TypeError: unsupported "
                                              "operand")
    assert "please report it" in recs[claim.id]["error"] and recs[CHEAP]["status"] == "passed"
