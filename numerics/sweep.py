"""Sweeps: a claim's theory values, or a problem's solve, over a grid of parameters.

``attncheck sweep TARGET --grid name=start:stop:num --grid name=v1,v2,... --out DIR``.

* Each grid point is content-addressed: its file ``DIR/points/<sha256>.json`` is named by a
  hash of the target, options, parameters and dps, and written atomically (a temporary file
  renamed), so a sweep that is killed and restarted computes only the missing points and ends
  with every point present exactly once.
* The tidy table (one row per point: the grid parameters, then every output as a float) goes to
  ``DIR/sweep.parquet`` (or ``sweep.csv`` with ``--format csv``); ``DIR/provenance.json``
  records the target, grid, versions, commit, machine and times.
* :class:`Sweep` (what ``attncheck.sweep`` returns) is the provenance with the table in
  memory: ``.to_pandas()`` and ``.to_xarray()`` (``numerics.core.tables``), the values at the
  sweep's ``dps`` where they carry more digits than a float64.
* Points run in process, in a process pool (``--workers``) or on a dask.distributed cluster
  (``--scheduler``); a point's value never depends on where it ran.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import platform
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from numerics.core.params import ParameterError

FORMATS = ("parquet", "csv")


@dataclass(frozen=True)
class Target:
    kind: str  # "claim" | "problem"
    name: str
    options: tuple = ()  # sorted (option, value) pairs of a problem

    def describe(self) -> dict:
        return {"kind": self.kind, "name": self.name, "options": dict(self.options)}


def parse_grid(items) -> dict[str, list[str]]:
    """``name=start:stop:num`` (num points from start to stop, inclusive) or ``name=v1,v2,...``.
    Values stay strings: the target's parameter space parses and checks them."""
    grid: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"--grid expects name=start:stop:num or name=v1,v2,..., got {item!r}")
        name, spec = (x.strip() for x in item.split("=", 1))
        if not name or not spec:
            raise ParameterError(f"--grid expects name=start:stop:num or name=v1,v2,..., got {item!r}")
        if name in grid:
            raise ParameterError(f"--grid {name} given twice; give it once")
        if ":" in spec:
            parts = spec.split(":")
            if len(parts) != 3:
                raise ParameterError(f"--grid {name}: expected start:stop:num, got {spec!r}")
            try:
                start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
            except ValueError:
                raise ParameterError(f"--grid {name}: expected numbers start:stop:num, got {spec!r}") from None
            if not (math.isfinite(start) and math.isfinite(stop)) or not 1 <= num <= 10_000:
                raise ParameterError(f"--grid {name}: start and stop must be finite and num in [1, 10000], got {spec!r}")
            grid[name] = [repr(float(v)) for v in np.linspace(start, stop, num)]
        else:
            values = [v.strip() for v in spec.split(",")]
            if any(not v for v in values):
                raise ParameterError(f"--grid {name}: empty value in {spec!r}")
            grid[name] = values
    if not grid:
        raise ParameterError("sweep needs at least one --grid name=...")
    n = math.prod(len(v) for v in grid.values())
    if n > 100_000:
        raise ParameterError(f"--grid: {n} points requested; at most 100000 per sweep")
    return grid


def points(grid: dict[str, list[str]]) -> list[dict[str, str]]:
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def point_key(target: Target, params: dict, dps: int) -> str:
    blob = json.dumps({"target": target.describe(), "params": params, "dps": dps}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _to_float(v):
    if isinstance(v, bool):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def compute_point(target: Target, params: dict, dps: int, files: tuple = ()) -> dict:
    """One grid point: the claim's ``evaluate`` or the problem's ``solve`` (in any process;
    ``files``: the user's claim files, ``--claims``, registered in that process too).  A point
    whose closed form raised, or whose solve did not converge, is an error: ``ok`` false, no
    values (a non-converged iterate is never a result), and ``error`` naming the target and
    why (:func:`error_of`)."""
    from numerics import registry

    for f in files:
        registry.add_claims_file(f)
    t0 = time.perf_counter()
    if target.kind == "claim":
        claim = registry.claims()[target.name]
        values = claim.param_space.validate(params)
        try:
            out = claim.evaluate(values, dps)
        except ParameterError:
            raise
        except Exception as e:
            return _failed(values, error_of(target, e), t0)
        import mpmath

        text = {k: (str(v).lower() if isinstance(v, bool) else mpmath.nstr(v, dps) if not isinstance(v, int) else str(v))
                for k, v in out.items()}
    else:
        spec = registry.problems()[target.name]
        values = spec.param_space.validate(params)
        try:
            sol = spec.solve(dict(target.options), values, dps)
        except ParameterError:
            raise
        except Exception as e:
            return _failed(values, error_of(target, e), t0)
        if not sol.ok:
            return _failed(values, error_of(target, None, sol), t0)
        from numerics.core.value import flatten

        out = {"converged": True, "iterations": sol.iterations, "residual": sol.residual, **flatten(sol.raw, True)}
        text = {"converged": "True", "status": sol.status, "iterations": str(sol.iterations),
                "residual": str(sol.residual), **flatten(sol.raw), **sol.stats}
    numbers = {k: _to_float(v) for k, v in out.items()}
    return {"params": values, "values": {k: v for k, v in numbers.items() if v is not None},
            "text": text, "ok": True, "elapsed_s": time.perf_counter() - t0}


def error_of(target: Target, exc: BaseException | None, sol=None) -> str:
    """One line: why a point of ``target`` has no values (the closed form of a claim is its
    theory; a problem's solve raised, or did not converge: ``sol`` its ``Solution``)."""
    if exc is None:
        return (f"solve of {target.name} did not converge: {sol.status} "
                f"({sol.iterations} iterations, residual {sol.residual:.3g})")
    what = f"{type(exc).__name__}: {exc}".strip().replace("\n", " ")[:400]
    if target.kind == "claim":
        return f"theory of {target.name} not computable: {what}"
    return f"solve of {target.name} failed: {what}"


def _failed(values: dict, error: str, t0: float) -> dict:
    return {"params": values, "values": {}, "text": {}, "ok": False, "error": error,
            "elapsed_s": time.perf_counter() - t0}


def _done(path: Path) -> bool:
    """A point computed before (its file is there and holds no error: an error is retried)."""
    try:
        return "error" not in json.loads(path.read_text())
    except (OSError, ValueError):
        return False


def _write_atomic(path: Path, text: str) -> None:
    """``numerics.core.cache.write_atomic`` of ``text`` in UTF-8."""
    from numerics.core.cache import write_atomic

    write_atomic(path, text.encode())


def run(target: Target, grid: dict, out_dir: Path, *, dps: int = 30, workers: int = 1,
        scheduler: str | None = None, fmt: str = "parquet", progress=None) -> dict:
    """Compute every missing point of the grid, then write the table and the provenance."""
    from numerics.core.cache import git_commit, versions

    if fmt not in FORMATS:
        raise ParameterError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    out_dir = Path(out_dir)
    todo_all = points(grid)
    keyed = [(point_key(target, p, dps), p) for p in todo_all]
    pdir = out_dir / "points"
    missing = [(k, p) for k, p in keyed if not _done(pdir / f"{k}.json")]
    from numerics.registry import EXTRA_FILES

    files = tuple(EXTRA_FILES)  # a pool's or a cluster's workers load the user's claim files too
    t0 = time.time()

    def record(k, p, res):
        _write_atomic(pdir / f"{k}.json", json.dumps({"key": k, "grid_point": p, **res}, sort_keys=True))

    if scheduler:
        from numerics.core.cluster import client_for

        with client_for(scheduler) as client:
            futures = client.map(compute_point, [target] * len(missing), [p for _, p in missing],
                                 [dps] * len(missing), [files] * len(missing), pure=False)
            from distributed import as_completed as finished

            where = {fut.key: kp for kp, fut in zip(missing, futures)}
            for fut in finished(futures):  # each point is written as soon as it is computed
                record(*where[fut.key], fut.result())
                if progress:
                    progress(1)
    elif workers > 1 and len(missing) > 1:
        from numerics.core.tasks import process_pool

        with process_pool(workers) as pool:  # an interrupt stops it at once; written points stay
            from concurrent.futures import as_completed

            futs = {pool.submit(compute_point, target, p, dps, files): (k, p) for k, p in missing}
            for fut in as_completed(futs):  # each point is written as soon as it is computed
                record(*futs[fut], fut.result())
                if progress:
                    progress(1)
    else:
        for k, p in missing:
            record(k, p, compute_point(target, p, dps))
            if progress:
                progress(1)
    rows, errors, names, outputs = [], [], {}, {}
    for k, p in keyed:
        rec = json.loads((pdir / f"{k}.json").read_text())
        rows.append({**{n: _to_float(v) for n, v in rec["params"].items()}, **rec["values"],
                     "ok": rec["ok"], "key": k})
        names.update(dict.fromkeys(rec["params"]))
        outputs.update(dict.fromkeys(rec["values"]))
        if rec.get("error"):
            errors.append({"grid_point": p, "error": rec["error"]})
    table = out_dir / f"sweep.{fmt}"
    _write_table(rows, table, fmt)
    prov = {"schema": "attncheck.sweep/1", "target": target.describe(), "grid": grid, "dps": dps,
            "points": len(keyed), "computed": len(missing), "reused": len(keyed) - len(missing),
            # a point whose closed form raised or whose solve did not converge: the sweep fails
            "passed": not errors, "errors": errors,
            "table": table.name, "params": list(names), "outputs": list(outputs),
            "versions": versions(), "commit": git_commit(),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "started": t0, "finished": time.time(),
            "where": scheduler or (f"{workers} processes" if workers > 1 else "in process")}
    _write_atomic(out_dir / "provenance.json", json.dumps(prov, indent=1))
    return prov


def _write_table(rows, path: Path, fmt: str) -> None:
    columns = list(dict.fromkeys(c for r in rows for c in r))
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
        _write_atomic(path, buf.getvalue())
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    tbl = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in rows])
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    os.close(fd)
    pq.write_table(tbl, tmp)
    os.replace(tmp, path)


def read_table(out_dir: Path) -> tuple[list[dict], dict]:
    """The rows and the provenance of a finished sweep (for ``attncheck figure --from``)."""
    out_dir = Path(out_dir)
    prov = json.loads((out_dir / "provenance.json").read_text())
    path = out_dir / prov["table"]
    if path.suffix == ".csv":
        import csv

        with open(path) as fh:
            rows = [{k: (None if v == "" else v == "True" if v in ("True", "False") else float(v))
                     for k, v in r.items() if k != "key"} for r in csv.DictReader(fh)]
    else:
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
    return rows, prov


def _target_of(prov: dict) -> Target:
    t = prov["target"]
    return Target(t["kind"], t["name"], tuple(sorted(t.get("options", {}).items())))


def _cell(text: str, dps: int):
    """A number's decimal text (as a point records it) at ``dps`` digits, or the text itself."""
    import mpmath

    if text in ("true", "false", "True", "False"):
        return text.lower() == "true"
    try:
        with mpmath.workdps(dps + 10):
            return mpmath.mpf(text)
    except (TypeError, ValueError):
        return text


class Sweep(dict):
    """A finished sweep: the provenance (this dict: ``points``, ``computed``, ``reused``,
    ``passed``, ``errors``, ``grid``, ``dps``, ``params``, ``outputs``...) and its folder, with
    the table in memory, one row per grid point in grid order:

    * :meth:`to_pandas` — a DataFrame: every parameter of the point (swept and fixed), then
      the outputs, then ``ok`` (False: the point has no values, see ``errors``);
    * :meth:`to_xarray` — a Dataset with one dimension per swept parameter and one variable
      per output, the fixed parameters in ``attrs``.

    ``values`` says what an output cell is: ``"float"`` (float64; a standard error in its own
    ``NAME_se`` column), ``"value"`` (an object column of :class:`~numerics.core.value.Value`
    at the sweep's dps, a standard error folded into its estimate's Value), ``"text"`` (the
    decimal strings the points recorded, every digit), or ``"auto"`` (the default): float64 at
    ``dps`` <= 15, Values above."""

    def __init__(self, folder, prov: dict):
        super().__init__(prov)
        self.folder = Path(folder)

    @classmethod
    def read(cls, folder) -> "Sweep":
        """The finished sweep in ``folder`` (``attncheck sweep --out``)."""
        return cls(folder, json.loads((Path(folder) / "provenance.json").read_text()))

    def records(self) -> list[dict]:
        """Every point's record (``params``, ``values``, ``text``, ``ok``, ``error``), grid order."""
        target, pdir = _target_of(self), self.folder / "points"
        return [json.loads((pdir / f"{point_key(target, p, self['dps'])}.json").read_text())
                for p in points(self["grid"])]

    def _cells(self, rec: dict, kind: str) -> dict:
        if not rec["ok"]:
            return {}
        if kind == "float":
            return dict(rec["values"])
        if kind == "text":
            return dict(rec["text"])
        from numerics.core import value as V

        return V.values({k: _cell(t, self["dps"]) for k, t in rec["text"].items()}, self["dps"])

    def _table(self, values: str):
        from numerics.core import tables

        kind = tables.kind(values, self["dps"])
        recs = self.records()
        cells = [self._cells(r, kind) for r in recs]
        params = list(dict.fromkeys(k for r in recs for k in r["params"]))  # as the provenance lists them
        outputs = list(dict.fromkeys(k for c in cells for k in c))
        return kind, recs, cells, params, outputs

    def to_pandas(self, values: str = "auto"):
        """One row per grid point: the parameters, the outputs (``values``: class docstring),
        ``ok``."""
        from numerics.core import tables

        kind, recs, cells, params, outputs = self._table(values)
        rows = [{**r["params"], **c, "ok": r["ok"]} for r, c in zip(recs, cells)]
        return tables.frame(rows, params + outputs + ["ok"], outputs if kind != "float" else ())

    def to_xarray(self, values: str = "auto"):
        """One dimension per swept parameter (its grid values as coordinates), one variable per
        output (NaN, or None, at a point without values), the fixed parameters, target and dps
        in ``attrs``."""
        from numerics.core import tables

        kind, recs, cells, params, outputs = self._table(values)
        swept = [k for k, v in self["grid"].items() if len(v) > 1] or list(self["grid"])[:1]
        dims = {k: list(dict.fromkeys(r["params"][k] for r in recs)) for k in swept}
        data = {o: {tuple(r["params"][k] for k in swept): c.get(o) for r, c in zip(recs, cells)} for o in outputs}
        data["ok"] = {tuple(r["params"][k] for k in swept): r["ok"] for r in recs}
        fixed = {k: v for k, v in recs[0]["params"].items() if k not in swept}  # a sweep has a point
        attrs = {"target": self["target"]["name"], "dps": self["dps"], **fixed}
        return tables.dataset(dims, data, attrs, set(outputs) if kind != "float" else ())
