"""Sweeps: content-addressed points, restart after a kill, the table, the figure, and a
dask LocalCluster (loopback) giving the in-process records."""
import json

import pytest
from click.testing import CliRunner

from numerics import sweep as SW
from numerics.cli import main
from numerics.core.params import ParameterError

TARGET = SW.Target("claim", "B.rate.exponent")
GRID = {"beta": ["1.0", "2.0", "3.0"], "M": ["1000", "10000"]}


def test_grid_parsing():
    g = SW.parse_grid(["a=0:1:3", "b=1,2"])
    assert g == {"a": ["0.0", "0.5", "1.0"], "b": ["1", "2"]}
    assert len(SW.points(g)) == 6
    for bad in (["a"], ["a=1:2"], ["a=1:2:0"], ["a=x:2:3"], ["a=1,,2"], ["a=1", "a=2"], []):
        with pytest.raises(ParameterError):
            SW.parse_grid(bad)


class Killed(Exception):
    pass


def test_killed_sweep_restarts_with_every_point_once(tmp_path):
    done = []

    def die_after_two(_):
        done.append(1)
        if len(done) == 2:
            raise Killed

    with pytest.raises(Killed):
        SW.run(TARGET, GRID, tmp_path, progress=die_after_two)
    assert len(list((tmp_path / "points").glob("*.json"))) == 2
    prov = SW.run(TARGET, GRID, tmp_path)
    assert (prov["computed"], prov["reused"], prov["points"]) == (4, 2, 6)
    files = list((tmp_path / "points").glob("*.json"))
    assert len(files) == 6 and not list((tmp_path / "points").glob(".tmp-*"))
    rows, prov2 = SW.read_table(tmp_path)
    assert len(rows) == 6 and len({(r["beta"], r["M"]) for r in rows}) == 6
    exps = {r["beta"]: r["exponent"] for r in rows}
    assert exps[2.0] == pytest.approx(-0.8)


def test_cli_sweep_csv_and_figure(tmp_path):
    out = tmp_path / "s"
    r = CliRunner().invoke(main, ["sweep", "B.rate.exponent", "--grid", "beta=1:2:3", "--param", "M=1000",
                                  "--format", "csv", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "sweep.csv").read_text().count("\n") == 4
    r = CliRunner().invoke(main, ["figure", "--from", str(out), "-o", str(tmp_path / "s.png")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s.png").stat().st_size > 1000
    for args in (["--grid", "beta=1,2", "--param", "beta=3"], ["--grid", "beta=-1,2"], ["--grid", "nope=1,2"]):
        r = CliRunner().invoke(main, ["sweep", "B.rate.exponent", *args, "--out", str(tmp_path / "x")])
        assert r.exit_code == 2 and r.output.count("\n") == 1, r.output


def test_local_cluster_gives_the_in_process_records(tmp_path):
    pytest.importorskip("distributed", reason="needs dask.distributed: pip install 'attncheck[cluster]'")
    here = SW.run(TARGET, GRID, tmp_path / "here")
    there = SW.run(TARGET, GRID, tmp_path / "there", scheduler="local")
    assert here["computed"] == there["computed"] == 6
    a, _ = SW.read_table(tmp_path / "here")
    b, _ = SW.read_table(tmp_path / "there")
    assert a == b
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path / "cache")}
    ids = ["B.coercivity.counterexample", "B.kl.bound"]
    recs = []
    for extra in ([], ["--scheduler", "local"]):
        res = CliRunner().invoke(main, ["verify", *ids, "--json", "--no-cache", *extra], env=env)
        assert res.exit_code == 0, res.output
        recs.append([{k: v for k, v in json.loads(line).items() if k not in ("elapsed_s", "cached")}
                     for line in res.output.splitlines() if line.startswith("{")])
    assert recs[0] == recs[1]


def test_grid_bounds_and_messages():
    assert SW.parse_grid([" a = 1:3:3 ", "b= x ,y"]) == {"a": ["1.0", "2.0", "3.0"], "b": ["x", "y"]}
    assert len(SW.parse_grid(["a=0:1:10000"])["a"]) == 10_000
    assert SW.parse_grid(["a=2:2:1"]) == {"a": ["2.0"]}
    cases = {
        "a": "--grid expects name=start:stop:num or name=v1,v2,..., got 'a'",
        "=1,2": "--grid expects name=start:stop:num or name=v1,v2,..., got '=1,2'",
        "a=": "--grid expects name=start:stop:num or name=v1,v2,..., got 'a='",
        "a=1:2": "--grid a: expected start:stop:num, got '1:2'",
        "a=1:2:3:4": "--grid a: expected start:stop:num, got '1:2:3:4'",
        "a=1:y:3": "--grid a: expected numbers start:stop:num, got '1:y:3'",
        "a=1:2:2.5": "--grid a: expected numbers start:stop:num, got '1:2:2.5'",
        "a=inf:2:3": "--grid a: start and stop must be finite and num in [1, 10000], got 'inf:2:3'",
        "a=1:nan:3": "--grid a: start and stop must be finite and num in [1, 10000], got '1:nan:3'",
        "a=1:2:10001": "--grid a: start and stop must be finite and num in [1, 10000], got '1:2:10001'",
        "a=1:2:0": "--grid a: start and stop must be finite and num in [1, 10000], got '1:2:0'",
        "a=1, ,2": "--grid a: empty value in '1, ,2'",
    }
    for item, message in cases.items():
        with pytest.raises(ParameterError) as e:
            SW.parse_grid([item])
        assert str(e.value) == message
    with pytest.raises(ParameterError, match="--grid a given twice; give it once"):
        SW.parse_grid(["a=1", "a=2"])
    with pytest.raises(ParameterError, match="sweep needs at least one --grid name=..."):
        SW.parse_grid([])
    assert len(SW.points(SW.parse_grid(["a=0:1:1000", "b=0:1:100", "c=1"]))) == 100_000
    with pytest.raises(ParameterError, match="--grid: 100100 points requested; at most 100000 per sweep"):
        SW.parse_grid(["a=0:1:1001", "b=0:1:100"])


def test_points_keys_and_numbers():
    assert SW.points({"a": ["1", "2"], "b": ["x", "y"]}) == [
        {"a": "1", "b": "x"}, {"a": "1", "b": "y"}, {"a": "2", "b": "x"}, {"a": "2", "b": "y"}]
    t = SW.Target("problem", "sparse-token", (("loss", "square"),))
    assert t.describe() == {"kind": "problem", "name": "sparse-token", "options": {"loss": "square"}}
    k = SW.point_key(t, {"a": "1"}, 30)
    assert len(k) == 64 and k == SW.point_key(SW.Target("problem", "sparse-token", (("loss", "square"),)), {"a": "1"}, 30)
    others = {SW.point_key(SW.Target("claim", "sparse-token", (("loss", "square"),)), {"a": "1"}, 30),
              SW.point_key(SW.Target("problem", "other", (("loss", "square"),)), {"a": "1"}, 30),
              SW.point_key(SW.Target("problem", "sparse-token", (("loss", "logistic"),)), {"a": "1"}, 30),
              SW.point_key(t, {"a": "2"}, 30), SW.point_key(t, {"a": "1"}, 31)}
    assert len(others | {k}) == 6
    assert [SW._to_float(v) for v in (True, False, "2.5", 3, "x", None, [1])] == [1.0, 0.0, 2.5, 3.0, None, None, None]


def test_a_point_of_a_claim_and_the_provenance_of_a_sweep(tmp_path):
    rec = SW.compute_point(TARGET, {"beta": "2", "M": "1000"}, 25)
    assert rec["params"] == {"beta": 2.0, "M": 1000.0} and rec["ok"] is True and rec["elapsed_s"] >= 0
    assert rec["values"]["exponent"] == pytest.approx(-0.8)
    assert rec["text"]["exponent"] == "-0.8" and len(rec["text"]["K_star"].replace(".", "")) >= 20
    with pytest.raises(ParameterError, match="--format must be one of parquet, csv, got 'xlsx'"):
        SW.run(TARGET, {"beta": ["2"]}, tmp_path / "x", fmt="xlsx")
    grid = {"beta": ["1.0", "2.0"], "M": ["1000"]}
    prov = SW.run(TARGET, grid, tmp_path / "csv", dps=20, fmt="csv")
    assert prov["schema"] == "attncheck.sweep/1" and prov["target"] == TARGET.describe()
    assert (prov["grid"], prov["dps"], prov["points"], prov["computed"], prov["reused"]) == (grid, 20, 2, 2, 0)
    assert prov["table"] == "sweep.csv" and prov["where"] == "in process"
    assert prov["finished"] >= prov["started"] and prov["machine"]["cpus"] >= 1 and prov["versions"]["python"]
    assert json.loads((tmp_path / "csv" / "provenance.json").read_text()) == prov
    rows, again = SW.read_table(tmp_path / "csv")
    assert again == prov and [r["beta"] for r in rows] == [1.0, 2.0]
    assert all(r["ok"] is True and "key" not in r and isinstance(r["M"], float) for r in rows)
    header = (tmp_path / "csv" / "sweep.csv").read_text().splitlines()[0].split(",")
    assert set(header[:2]) == {"beta", "M"} and header[-2:] == ["ok", "key"]
    prov = SW.run(TARGET, grid, tmp_path / "pq", dps=20, workers=2)
    assert prov["table"] == "sweep.parquet" and prov["where"] == "2 processes" and prov["computed"] == 2
    pq_rows, _ = SW.read_table(tmp_path / "pq")
    assert [{k: v for k, v in r.items() if k != "key"} for r in pq_rows] == rows
    # the points in a pool are the points in process, file for file
    for f in (tmp_path / "csv" / "points").glob("*.json"):
        a, b = json.loads(f.read_text()), json.loads((tmp_path / "pq" / "points" / f.name).read_text())
        assert {k: v for k, v in a.items() if k != "elapsed_s"} == {k: v for k, v in b.items() if k != "elapsed_s"}


# --- the table in memory ---------------------------------------------------------------------------
def test_a_sweep_is_a_table_in_memory_at_its_precision(tmp_path):
    """``attncheck.sweep`` returns the provenance with the table: one row per point, the values
    at the sweep's dps (Values), as floats or as the recorded strings on request."""
    import mpmath
    import numpy as np

    import attncheck
    from numerics.core.value import Value

    pd = pytest.importorskip("pandas", reason="pip install 'attncheck[tables]'")
    s = attncheck.sweep("A.thm3.q2_cosine", tmp_path / "a" / "cos", grid={"alpha0": [0.5, 2.0, 8.0], "pi": [0.3, 0.5]},
                        dps=40)
    assert s["points"] == 6 and s["outputs"] == ["logistic.q2_cosine", "square.q2_cosine"]
    assert {"alpha0", "pi", "L", "theta"} <= set(s["params"])
    df = s.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 6 and df["ok"].all()
    assert list(df.columns[-3:]) == ["logistic.q2_cosine", "square.q2_cosine", "ok"]
    row = df[(df["alpha0"] == 2.0) & (df["pi"] == 0.3)].iloc[0]
    cos = row["logistic.q2_cosine"]
    assert isinstance(cos, Value) and df["logistic.q2_cosine"].dtype == object
    direct = attncheck.evaluate("A.thm3.q2_cosine", alpha0=2.0, pi=0.3, dps=40)["logistic.q2_cosine"]
    with mpmath.workdps(50):
        assert abs(mpmath.mpf(cos) - mpmath.mpf(direct)) < mpmath.mpf(10) ** -38  # 40 digits, not 16
    text = s.to_pandas("text")["logistic.q2_cosine"]
    assert text.dtype == object and len(text[0].replace("0.", "").lstrip("0")) >= 38
    floats = s.to_pandas("float")
    assert floats["logistic.q2_cosine"].dtype == np.float64
    assert floats["logistic.q2_cosine"][0] == pytest.approx(float(s.to_pandas()["logistic.q2_cosine"][0]), rel=1e-15)
    with pytest.raises(attncheck.ParameterError, match="values must be one of auto, float, value, text"):
        s.to_pandas("decimal")
    xr = pytest.importorskip("xarray", reason="pip install 'attncheck[tables]'")
    ds = s.to_xarray("float")
    assert isinstance(ds, xr.Dataset) and dict(ds.sizes) == {"alpha0": 3, "pi": 2}
    assert ds["logistic.q2_cosine"].sel(alpha0=2.0, pi=0.3).item() == pytest.approx(float(cos), rel=1e-15)
    assert ds["ok"].dtype == bool and ds.attrs["target"] == "A.thm3.q2_cosine" and ds.attrs["theta"] == 6.0
    assert isinstance(s.to_xarray()["square.q2_cosine"].values[0, 0], Value)
    again = SW.Sweep.read(tmp_path / "a" / "cos")  # the folder alone, as the CLI leaves it
    assert again["computed"] == 6 and again.to_pandas("float").equals(floats)


def test_a_point_without_values_and_a_standard_error_in_the_table(tmp_path, monkeypatch):
    """A failed point is a row with ``ok`` False and no values; a solve's standard error is its
    own float column, or folded into its estimate's Value."""
    pytest.importorskip("pandas", reason="pip install 'attncheck[tables]'")
    from numerics.core.value import Value

    def fake(target, params, dps, files=()):
        beta = float(params["beta"])
        if beta == 2.0:
            return SW._failed(params, "theory of X not computable: boom", 0.0)
        return {"params": params, "values": {"y": beta, "y_se": 0.25}, "text": {"y": repr(beta), "y_se": "0.25"},
                "ok": True, "elapsed_s": 0.0}

    monkeypatch.setattr(SW, "compute_point", fake)
    prov = SW.run(TARGET, {"beta": ["1.0", "2.0", "3.0"]}, tmp_path, dps=20, fmt="csv")
    s = SW.Sweep(tmp_path, prov)
    df = s.to_pandas()  # dps 20: Values
    assert list(df["ok"]) == [True, False, True] and df["y"][1] is None
    assert isinstance(df["y"][0], Value) and float(df["y"][0].error) == 0.25 and "y_se" not in df
    fl = s.to_pandas("float")
    assert fl["y_se"][0] == 0.25 and fl["y"].isna()[1]
    ds = s.to_xarray("float")
    assert list(ds["ok"].values) == [True, False, True] and str(ds["y"].values[1]) == "nan"


def test_without_pandas_the_table_says_what_to_install(tmp_path, monkeypatch):
    import sys

    SW.run(TARGET, {"beta": ["1.0", "2.0"]}, tmp_path, fmt="csv")
    s = SW.Sweep.read(tmp_path)
    monkeypatch.setitem(sys.modules, "pandas", None)  # an import of it raises ImportError
    monkeypatch.setitem(sys.modules, "xarray", None)
    from numerics.core.tables import MissingExtra

    with pytest.raises(MissingExtra, match=r"to_pandas\(\) needs pandas, an optional extra: pip install "
                                           r"'attncheck\[tables\]' \(or pip install pandas\)"):
        s.to_pandas()
    with pytest.raises(ImportError, match=r"to_xarray\(\) needs xarray"):
        s.to_xarray()


def test_figure_from_a_sweep_draws_its_outputs_not_its_fixed_parameters(tmp_path, monkeypatch):
    """``figure --from``: each panel an output against the swept parameter; the parameters the
    point was computed at (fixed, given or by default) are columns of the table, never panels."""
    r = CliRunner().invoke(main, ["sweep", "A.thm3.q2_cosine", "--grid", "alpha0=0.5:8:3", "--grid", "pi=0.3,0.5",
                                  "--out", str(tmp_path / "new" / "deeper" / "cos")])
    assert r.exit_code == 0, r.output  # the missing parent folders are made
    drawn = []
    import matplotlib.axes

    orig = matplotlib.axes.Axes.set_title
    monkeypatch.setattr(matplotlib.axes.Axes, "set_title",
                        lambda ax, t, *a, **k: (drawn.append(t), orig(ax, t, *a, **k)))
    r = CliRunner().invoke(main, ["figure", "--from", str(tmp_path / "new" / "deeper" / "cos"), "-o",
                                  str(tmp_path / "cos.png")])
    assert r.exit_code == 0, r.output
    assert drawn == ["logistic.q2_cosine", "square.q2_cosine"]


def test_a_sweep_is_planned_whole_before_any_point_is_computed(monkeypatch):
    """The plan of a problem's sweep (its options, every point validated, the cost priced with
    its workers) and of a claim's (no options; its dps cap), and the refusals, word by word."""
    from dataclasses import replace

    from numerics import registry
    from numerics.core import resources
    from numerics.request import plan as P

    spec = registry.problems()["sparse-token"]
    opts = {"model": "attention", "loss": "square"}  # the attention model's solve is priced
    plan = P.plan_sweep("sparse-token", {"alpha1": [1, 2]}, {"lam": "0.01"}, opts, 15)
    assert plan.target == SW.Target("problem", "sparse-token", (("loss", "square"), ("model", "attention")))
    assert (plan.grid, plan.points) == ({"lam": ["0.01"], "alpha1": ["1", "2"]}, 2)
    priced = [spec.cost(opts, spec.param_space.validate({"lam": "0.01", "alpha1": a})) for a in ("1", "2")]
    assert plan.cost == resources.many(priced, 1, what="sweep of 2 points") and plan.cost.seconds > 0
    two = P.plan_sweep("sparse-token", {"alpha1": [1, 2]}, {"lam": "0.01"}, opts, 15, workers_=2)
    assert two.cost == resources.many(priced, 2, what="sweep of 2 points") != plan.cost
    claim = P.plan_sweep("B.rate.exponent", {"beta": [1, 2]}, {"M": "1000"}, {"model": None}, 15)
    assert claim.target == SW.Target("claim", "B.rate.exponent", ()) and claim.points == 2
    refusals = {
        ("B.rate.exponent", (("model", "pool"),)): "model/loss are options of a problem, not of a claim",
        ("sparse-token", (("model", "vecc"),)): "model must be one of attention, pool, vec, got 'vecc'",
        ("sparse-token", (("branch", "semantic"),)): "problem sparse-token takes no branch",
        ("Z.nope", ()): "unknown sweep target 'Z.nope': a claim id with 'eval' in `attncheck list`, or a problem "
                        f"({', '.join(registry.problems())})",
    }
    for (target, given), message in refusals.items():
        with pytest.raises(ParameterError) as err:
            P.plan_sweep(target, {"beta": [1, 2]}, {}, dict(given), 15)
        assert str(err.value) == message
    with pytest.raises(ParameterError, match="^--model/--loss are options"):
        P.plan_sweep("B.rate.exponent", {"beta": [1]}, {}, {"model": "pool"}, 15, spell=lambda n: f"--{n}")
    dashed = {"spell": lambda n: f"--{n}"}
    for kw, name in (({"dps_": 3}, "--dps"), ({"workers_": 0}, "--workers"), ({"given": {"model": "x"}}, "--model")):
        args = {"given_options": kw.pop("given", {"model": None}), **kw, **dashed}
        with pytest.raises(ParameterError, match=f"^{name} "):
            P.plan_sweep("sparse-token", {"alpha1": [1]}, {}, **args)
    with pytest.raises(ParameterError) as err:
        P.plan_sweep("sparse-token", {}, {"alpha1": "1"}, {}, 15)
    assert str(err.value) == "sweep needs at least one grid parameter"
    unpriced = P.plan_sweep("positional-semantic", {"alpha": [1, 2]}, {}, {}, 15)  # a problem without a cost
    assert unpriced.cost == resources.many([], 1, what="sweep of 2 points")
    monkeypatch.setattr(P, "MAX_POINTS", 4)
    assert P.plan_sweep("B.rate.exponent", {"beta": [1, 2], "M": [1000, 2000]}, {}, {}, 15).points == 4
    with pytest.raises(ParameterError) as err:
        P.plan_sweep("B.rate.exponent", {"beta": [1, 2, 3], "M": [1000, 2000]}, {}, {}, 15)
    assert str(err.value) == "grid: 6 points requested; at most 4 per sweep"
    capped = replace(registry.claim("B.rate.exponent"), max_dps=20)
    monkeypatch.setattr(P, "evaluable", lambda target: capped)
    with pytest.raises(ParameterError, match=r"^--dps 25: B.rate.exponent supports --dps 5..20$"):
        P.plan_sweep("B.rate.exponent", {"beta": [1]}, {}, {}, 25, spell=lambda n: f"--{n}")


def test_the_sweeps_helpers_word_by_word():
    import time
    from types import SimpleNamespace

    import mpmath

    with pytest.raises(ParameterError) as e:
        SW.parse_grid([])
    assert str(e.value) == "sweep needs at least one --grid name=..."
    assert SW.parse_grid(["a=b=c", " x = 1"]) == {"a": ["b=c"], "x": ["1"]}  # the first '=' splits
    with pytest.raises(ParameterError) as e:  # the point limit at its edge
        SW.parse_grid(["a=0:1:9091", "b=" + ",".join(map(str, range(11)))])
    assert str(e.value) == "--grid: 100001 points requested; at most 100000 per sweep"
    # a cell's text: a truth value, a number at dps + 10 digits, or the text itself
    assert [SW._cell(t, 20) for t in ("true", "True", "false", "False")] == [True, True, False, False]
    assert SW._cell("TRUE", 20) == "TRUE" and SW._cell("converged", 20) == "converged"
    with mpmath.workdps(40):
        tenth = mpmath.mpf("0.1")
    with mpmath.workdps(41):
        assert SW._cell("0.1", 30) == tenth != mpmath.mpf("0.1")
    # why a point has no values, on one line of at most 400 characters of the error
    claim, problem = SW.Target("claim", "A.x"), SW.Target("problem", "p")
    long = ValueError("line one\nline two " + "y" * 500)
    assert SW.error_of(claim, long) == "theory of A.x not computable: " + (
        "ValueError: line one line two " + "y" * 500)[:400]
    assert SW.error_of(problem, KeyError("k")) == "solve of p failed: KeyError: 'k'"
    sol = SimpleNamespace(status="not converged", iterations=12, residual=3.14159e-4)
    assert SW.error_of(problem, None, sol) == "solve of p did not converge: not converged (12 iterations, residual 0.000314)"
    rec = SW._failed({"a": "1"}, "why", time.perf_counter() - 1.0)
    assert rec == {"params": {"a": "1"}, "values": {}, "text": {}, "ok": False, "error": "why",
                   "elapsed_s": rec["elapsed_s"]} and 1.0 <= rec["elapsed_s"] < 60
    # the target of a provenance: a problem's options sorted, none for a claim
    assert SW._target_of({"target": {"kind": "problem", "name": "p", "options": {"b": 2, "a": 1}}}) == \
        SW.Target("problem", "p", (("a", 1), ("b", 2)))
    assert SW._target_of({"target": {"kind": "claim", "name": "c"}}) == SW.Target("claim", "c", ())


def _fake_sweep(tmp_path, monkeypatch, grid, dps=40):
    def fake(target, params, dps, files=()):
        beta = float(params.get("beta", 1.0))
        return {"params": params, "values": {"y": beta / 3}, "text": {"y": mpmath_third(beta, dps)},
                "ok": True, "elapsed_s": 0.0}

    monkeypatch.setattr(SW, "compute_point", fake)
    return SW.Sweep(tmp_path, SW.run(TARGET, grid, tmp_path, dps=dps, fmt="csv"))


def mpmath_third(beta, dps):
    """beta / 3 as the decimal text a point records (every digit of dps + 10)."""
    import mpmath

    with mpmath.workdps(dps + 10):
        return mpmath.nstr(mpmath.mpf(beta) / 3, dps + 10)


def test_a_sweeps_table_its_dimensions_attributes_and_precision(tmp_path, monkeypatch):
    pytest.importorskip("pandas", reason="pip install 'attncheck[tables]'")
    xr = pytest.importorskip("xarray", reason="pip install 'attncheck[tables]'")
    import mpmath

    s = _fake_sweep(tmp_path / "a", monkeypatch, {"beta": ["1.0", "2.0", "3.0"], "c": ["5"]})
    ds = s.to_xarray("float")
    assert isinstance(ds, xr.Dataset) and dict(ds.sizes) == {"beta": 3}  # c has one value: fixed
    assert ds.attrs["target"] == "B.rate.exponent" and ds.attrs["dps"] == 40 and ds.attrs["c"] == "5"
    y = s.to_pandas()["y"][0]  # a Value at the sweep's 40 digits
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(y) - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -45 and y.dps == 40
    # the table's parameters come from the records when the provenance does not list them
    bare = SW.Sweep(s.folder, {k: v for k, v in s.items() if k != "params"})
    assert list(bare.to_pandas("float").columns) == list(s.to_pandas("float").columns)
    # a sweep of one point: its one parameter is the dimension
    one = _fake_sweep(tmp_path / "b", monkeypatch, {"beta": ["2.0"], "c": ["5"]})
    assert dict(one.to_xarray("float").sizes) == {"beta": 1} and one.to_xarray("float").attrs["c"] == "5"


def test_a_point_of_a_claim_its_text_and_its_error(monkeypatch, tmp_path):
    """``compute_point`` on a claim: booleans as true/false, integers exactly, numbers to dps
    digits; a closed form that raises is a record without values, naming the claim and why."""
    from types import SimpleNamespace

    import mpmath

    from numerics import registry
    from numerics.core.params import Param, ParamSpace

    def evaluate(values, dps):
        if values["x"] > 1:
            raise ArithmeticError("no root beyond 1")
        return {"flag": values["x"] > 0, "n": 123456789012345678, "third": mpmath.mpf(1) / 3}

    fake = SimpleNamespace(param_space=ParamSpace((Param("x", float, -5.0, 5.0, default=0.5, doc="x"),)),
                           evaluate=evaluate)
    monkeypatch.setattr(registry, "claims", lambda: {"T.point": fake})
    target = SW.Target("claim", "T.point")
    rec = SW.compute_point(target, {"x": "0.5"}, 12)
    # an integer exactly, every digit (not to dps digits)
    assert rec["ok"] and rec["text"] == {"flag": "true", "n": "123456789012345678", "third": "0.333333333333"}
    bad = SW.compute_point(target, {"x": "2"}, 12)
    assert bad == {"params": {"x": 2.0}, "values": {}, "text": {}, "ok": False,
                   "error": "theory of T.point not computable: ArithmeticError: no root beyond 1",
                   "elapsed_s": bad["elapsed_s"]} and 0 <= bad["elapsed_s"] < 60
    # the user's claim files are registered in the process that computes the point
    seen = []
    monkeypatch.setattr(registry, "add_claims_file", seen.append)
    SW.compute_point(target, {"x": "0.5"}, 12, files=("mine.py",))
    assert seen == ["mine.py"]


def test_a_sweeps_csv_table_reads_back_missing_cells_and_truth_values(tmp_path, monkeypatch):
    def fake(target, params, dps, files=()):
        beta = float(params["beta"])
        if beta == 2.0:
            return SW._failed(params, "theory of X not computable: boom", 0.0)
        return {"params": params, "values": {"y": beta, "big": beta > 2}, "text": {"y": repr(beta), "big": str(beta > 2)},
                "ok": True, "elapsed_s": 0.0}

    monkeypatch.setattr(SW, "compute_point", fake)
    SW.run(TARGET, {"beta": ["1.0", "2.0", "3.0"]}, tmp_path, dps=20, fmt="csv")
    rows, prov = SW.read_table(tmp_path)
    assert [r["y"] for r in rows] == [1.0, None, 3.0] and [r["big"] for r in rows] == [False, None, True]
    assert prov["points"] == 3



def test_a_point_of_a_problem_its_solution_its_failure_and_its_error(monkeypatch):
    """``compute_point`` on a problem: the solve's values, status, iterations and residual; a
    solve that did not converge or raised is a record without values (never its iterate)."""
    from types import SimpleNamespace

    from numerics import registry
    from numerics.core.params import Param, ParamSpace
    from numerics.core.value import Value

    calls = []

    def solve(options, values, dps):
        calls.append((options, dict(values), dps))
        if values["x"] > 2:
            raise ZeroDivisionError("a singular Jacobian")
        ok = values["x"] <= 1
        return SimpleNamespace(ok=ok, status="converged" if ok else "not converged", iterations=4, residual=1e-12,
                               raw={"root": Value(0.5, 1e-13, "dps", 12)}, stats={"steps": "4"})

    spec = SimpleNamespace(param_space=ParamSpace((Param("x", float, -5.0, 5.0, default=0.5, doc="x"),)), solve=solve)
    monkeypatch.setattr(registry, "problems", lambda: {"p": spec})
    target = SW.Target("problem", "p", (("branch", "a"),))
    rec = SW.compute_point(target, {"x": "0.5"}, 12)
    assert calls == [({"branch": "a"}, {"x": 0.5}, 12)] and rec["ok"] and rec["params"] == {"x": 0.5}
    assert rec["values"] == {"converged": True, "iterations": 4, "residual": 1e-12, "root": 0.5}
    assert rec["text"]["converged"] == "True" and rec["text"]["status"] == "converged"
    assert rec["text"]["iterations"] == "4" and rec["text"]["residual"] == "1e-12" and rec["text"]["steps"] == "4"
    slow = SW.compute_point(target, {"x": "1.5"}, 12)
    assert slow == {"params": {"x": 1.5}, "values": {}, "text": {}, "ok": False, "elapsed_s": slow["elapsed_s"],
                    "error": "solve of p did not converge: not converged (4 iterations, residual 1e-12)"}
    bad = SW.compute_point(target, {"x": "3"}, 12)
    assert bad["error"] == "solve of p failed: ZeroDivisionError: a singular Jacobian" and bad["params"] == {"x": 3.0}
    assert not bad["ok"] and bad["values"] == {} and 0 <= bad["elapsed_s"] < 60


def test_a_points_key_ignores_the_order_of_its_parameters_and_an_error_is_retried(tmp_path):
    target = SW.Target("claim", "A.x")
    assert SW.point_key(target, {"a": "1", "b": "2"}, 30) == SW.point_key(target, {"b": "2", "a": "1"}, 30)
    assert SW.point_key(target, {"a": "1"}, 30) != SW.point_key(target, {"a": "1"}, 31)
    done, failed, broken = tmp_path / "done.json", tmp_path / "failed.json", tmp_path / "broken.json"
    done.write_text(json.dumps({"params": {}, "ok": True}))
    failed.write_text(json.dumps({"params": {}, "ok": False, "error": "boom"}))
    broken.write_text("{")
    assert SW._done(done) and not SW._done(failed) and not SW._done(broken) and not SW._done(tmp_path / "none")


def test_a_sweeps_provenance_names_its_commit_machine_and_default_precision(tmp_path, monkeypatch):
    def fake(target, params, dps, files=()):
        return {"params": params, "values": {"y": 1.0}, "text": {"y": "1.0"}, "ok": True, "elapsed_s": 0.0}

    monkeypatch.setattr(SW, "compute_point", fake)
    prov = SW.run(TARGET, {"beta": ["1.0"]}, tmp_path, fmt="csv")
    assert prov["dps"] == 30 and prov["commit"] and set(prov["machine"]) == {"platform", "cpus"}
    assert json.loads((tmp_path / "provenance.json").read_text()) == prov
