"""Verdicts and mutation power as tidy tables (``attncheck.verify(...).to_pandas()``,
``attncheck.power(...).to_pandas()``), through the one table layer (``numerics.core.tables``:
pandas and xarray as the optional extra ``tables``, imported when a table is asked for)."""
from __future__ import annotations

#: the columns of a verdict table: one row per compared row of each claim
VERDICT_COLUMNS = ("claim", "status", "row", "at", "theory", "experiment", "se", "allowance", "tolerance", "z", "passed",
                   "n", "mode", "seed", "error")


class VerdictSet(list):
    """The verdicts of a run (a list of ``Verdict``), with the table in memory:
    :meth:`to_pandas` one row per compared row of each claim (the theory value as judged, the
    experiment's mean and standard error, the allowance, the tolerance, z, passed; a claim that
    could not run is one row with its ``error``), :meth:`to_xarray` the same indexed by
    (claim, row)."""

    def rows(self) -> list[dict]:
        out = []
        for v in self:
            head = {"claim": v.id, "status": v.status, "mode": v.mode, "seed": v.seed, "error": v.error or None}
            if not v.rows:
                out.append({**head, "row": None, "passed": False})
            for r in v.rows:
                out.append({**head, "row": r.label, "at": getattr(r, "at", {}) or None, "theory": r.mutated_theory, "experiment": r.mean, "se": r.se,
                            "allowance": r.allowance, "tolerance": r.tolerance, "z": r.z, "passed": r.passed,
                            "n": r.n})
        return out

    def to_pandas(self):
        from numerics.core import tables

        return tables.frame(self.rows(), list(VERDICT_COLUMNS), ("row", "error"))

    def to_xarray(self):
        from numerics.core import tables

        tables.require("xarray", "to_xarray()")
        return self.to_pandas().set_index(["claim", "row"]).to_xarray()


def power_rows(p) -> list[dict]:
    """One row per structural mutant of a ``Power``, then one per output scaling."""
    rows = [{"claim": p.id, "mutant": m.name, "description": m.description, "applied": m.applied,
             "killed": m.killed, "how": m.how} for m in p.mutants]
    rows += [{"claim": p.id, "mutant": f"scale {k}", "description": f"every theory value times (1 {k[0]} {k[1:]})",
              "applied": True, "killed": bool(v), "how": "verdict failed" if v else "survived"}
             for k, v in p.scaled.items()]
    return rows
