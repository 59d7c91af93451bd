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


def verdict_html(v) -> str:
    """A verdict as HTML (the notebook repr): its statement, its design point, the table of its
    statistical rows with each label in the papers' notation, its certified rows apart."""
    import html

    from numerics.claims.labels import design_line, render
    from numerics.report_math import prose_html

    head = ("<tr><th>row</th><th>theory</th><th>experiment</th><th>± se</th><th>tolerance</th>"
            "<th>z</th><th></th></tr>")
    body = "".join(  # a label in the papers' notation, never shown as source
        f"<tr><td>{render(r, 'html')}</td><td>{r.mutated_theory:.6g}</td><td>{r.mean:.6g}</td>"
        f"<td>{r.se:.2g}</td><td>{r.tolerance:.2g}</td><td>{'' if r.z is None else f'{r.z:+.2f}'}</td>"
        f"<td>{'ok' if r.passed else 'FAIL'}</td></tr>" for r in v.rows if not r.certified)
    body += "".join(f"<tr><td colspan='6'>certified: {html.escape(r.certified)}</td>"
                    f"<td>{'ok' if r.passed else 'FAIL'}</td></tr>" for r in v.rows if r.certified)
    heading = f"<p><b>{html.escape(v.title)}</b></p>" if v.title else ""
    if v.error:
        return f"{heading}<p><b>{v.word}</b> <code>{html.escape(v.id)}</code>: {html.escape(v.error)}</p>"
    design = f"<p>{design_line(v, 'html')}</p>" if design_line(v) else ""
    stated = (prose_html(v.statement_tex) if v.statement_tex else None) or html.escape(v.statement)
    return (f"{heading}<p><b>{v.word}</b> <code>{html.escape(v.id)}</code> ({v.mode}, seed {v.seed}): "
            f"{stated}</p>{design}<table>{head}{body}</table>")
