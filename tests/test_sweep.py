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
