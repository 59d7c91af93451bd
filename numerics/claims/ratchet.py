"""The power ratchet: what every row of every built-in claim can detect, recorded.

``numerics/claims/power_ratchet.json`` holds, for each row of each built-in claim at quick size
and the default seed, the quantities of :func:`numerics.claims.power.detectable` that a later
change must not make worse:

* ``detectable``: the smallest relative change of the claim's output steps the row rejects
  (``through_outputs``: (tolerance + |mean - theory|) / |theory|, over how the row's theory
  follows the output steps; infinite for a row whose theory does not move with them);
* ``allowance``: the row's allowance over |theory| (so that a loosened allowance shows even
  where z * se dominates the tolerance);
* for a row whose theory is 0 (a certified row, an identity that is zero) both in absolute
  terms (``"zero": true``): tolerance + |mean|, and the allowance;
* ``rejects``: the structural mutants the row rejects on its own by a clear margin.

:func:`compare` tells a row that got worse (by more than ``MARGIN``, relative), disappeared,
appeared unrecorded or stopped rejecting a recorded mutant from one that got better. The
default suite checks every claim against the record (``tests/test_power_ratchet.py``); a
deliberate change is recorded with ``attncheck verify --power --record-ratchet`` (docs/claims.md,
"The power ratchet")."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from numerics.claims.base import Settings

RECORD = Path(__file__).with_name("power_ratchet.json")
SCHEMA = "attncheck.power_ratchet/1"
#: the settings the record is made and checked at: quick size, the default seed and dps
SETTINGS = Settings(mode="quick")
#: how much a recorded quantity may grow before the row counts as worse (relative).  The
#: evidence is deterministic at a fixed seed: two runs of every claim in one process agreed
#: bit for bit, and with one BLAS thread instead of two the rows moved by at most 1.2e-11
#: (docs/claims.md, "The power ratchet"); the margin leaves room for a solver's tolerance on
#: another platform.  A doubled allowance is +100 %, a tenfold one +900 %.
MARGIN = 1e-3
#: an allowance below this fraction of |theory| (2**-40, about 4000 float64 ulps) is float
#: rounding: a converged quadrature's refinement change, a least-squares residual.  Its last
#: bits differ between CPUs (0 on one machine, 3e-16 on another; 8.4e-14 and 1.1e-13), and
#: doubling it changes no verdict, so the ratchet compares such allowances as equal.  The
#: detectable change is compared without a floor: where the allowance is the whole tolerance (an
#: exact check at 30 digits, its allowance 1e-21 of |theory|), any loosening still shows there.
ROUNDING = 2.0 ** -40
#: significant digits kept in the record (its own rounding is far below MARGIN)
DIGITS = 6


def _round(x: float) -> float | str:
    if x is None:
        return None
    if not math.isfinite(x):
        return "inf"
    return float(f"{x:.{DIGITS - 1}e}")


def _number(x) -> float:
    return math.inf if x == "inf" else float(x)


def entries(p, clear: float = MARGIN) -> list[dict]:
    """The recorded quantities of each row of ``p`` (a :class:`numerics.claims.power.Power`).
    ``rejects`` names the mutants the row rejects by more than ``clear`` (its |mean - theory|
    beyond 1 + ``clear`` times its tolerance): a record keeps the clear rejections only, and the
    rows compared with it (``clear=0``) every rejection, so a borderline one can neither fail the
    ratchet nor be demanded of a later change."""
    out = []
    for d in p.detectable:
        if d["relative"] is None:  # theory 0: absolute terms
            e = {"label": d["label"], "zero": True, "detectable": _round(d["absolute"]),
                 "allowance": _round(d["allowance"])}
        else:
            through = d["through_outputs"]
            e = {"label": d["label"], "detectable": _round(math.inf if through is None else through),
                 "allowance": _round(d["allowance"])}
        e["rejects"] = sorted(name for name, ratio in d["rejects"].items() if ratio > 1 + clear)
        out.append(e)
    return out


def _keyed(rows: list[dict]) -> dict:
    """Rows by label (a repeated label gets its occurrence number: ``label #2``)."""
    seen, out = {}, {}
    for r in rows:
        k = seen[r["label"]] = seen.get(r["label"], 0) + 1
        out[r["label"] if k == 1 else f"{r['label']} #{k}"] = r
    return out


@dataclass
class Change:
    """How a claim's rows compare with their record: ``worse`` fails the ratchet, ``better``
    does not (each one line naming the row and the quantity)."""

    claim_id: str
    worse: list = field(default_factory=list)
    better: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.worse

    def message(self) -> str:
        lines = [f"{self.claim_id}: row {w}" for w in self.worse]
        return "\n".join(lines)


def _text(x) -> str:
    return x if isinstance(x, str) else f"{x:.3g}"


def _what(name: str, zero: bool) -> str:
    if name == "detectable":
        return "detectable change (absolute, theory 0)" if zero else "detectable change of its output steps"
    return "allowance (absolute, theory 0)" if zero else "allowance / |theory|"


def compare(recorded: list | None, p, margin: float = MARGIN) -> Change:
    """The rows of the power run ``p`` (:func:`entries`, every rejection) against the
    ``recorded`` ones of its claim (None: the claim is not in the record)."""
    claim_id, current = p.id, entries(p, clear=0.0)
    ch = Change(claim_id)
    if recorded is None:
        ch.worse.append(f"(every row): {claim_id} is not in the record "
                        f"({RECORD.name}; `attncheck verify {claim_id} --power --record-ratchet`)")
        return ch
    old, new = _keyed(recorded), _keyed(current)
    for label in old:
        if label not in new:
            ch.worse.append(f"{label!r}: disappeared")
    for label, r in new.items():
        o = old.get(label)
        if o is None:
            ch.worse.append(f"{label!r}: new, not in the record")
            continue
        zero = bool(r.get("zero"))
        if zero != bool(o.get("zero")):
            ch.worse.append(f"{label!r}: its theory value {'became' if zero else 'is no longer'} 0")
            continue
        for q in ("detectable", "allowance"):
            a, b = _number(o[q]), _number(r[q])
            if q == "allowance" and not zero:
                a, b = max(a, ROUNDING), max(b, ROUNDING)
            if b > a * (1 + margin):
                ch.worse.append(f"{label!r}: {_what(q, zero)} grew from {_text(o[q])} to {_text(r[q])}")
            elif b < a * (1 - margin):
                ch.better.append(f"{label!r}: {_what(q, zero)} fell from {_text(o[q])} to {_text(r[q])}")
        lost = sorted(set(o["rejects"]) - set(r["rejects"]))
        if lost:
            ch.worse.append(f"{label!r}: no longer rejects {', '.join(lost)}")
        gained = sorted(set(r["rejects"]) - set(o["rejects"]))
        if gained:
            ch.better.append(f"{label!r}: now rejects {', '.join(gained)}")
    return ch


def load(path: Path | None = None) -> dict:
    """The record (:data:`RECORD` unless ``path``): ``{"schema", "mode", "seed", "margin",
    "claims": {id: [row, ...]}}``."""
    return json.loads(Path(path or RECORD).read_text())


def write(claims: dict, path: Path | None = None) -> None:
    """Write the record of ``claims`` (``{id: entries}``), ids sorted, one row per line."""
    lines = ["{", f'  "schema": "{SCHEMA}",', f'  "mode": "{SETTINGS.mode}",', f'  "seed": {SETTINGS.seed},',
             f'  "margin": {MARGIN},', '  "claims": {']
    ids = sorted(claims)
    for i, cid in enumerate(ids):
        rows = claims[cid]
        lines.append(f"    {json.dumps(cid)}: [")
        for j, r in enumerate(rows):
            lines.append("      " + json.dumps(r, ensure_ascii=False) + ("," if j < len(rows) - 1 else ""))
        lines.append("    ]" + ("," if i < len(ids) - 1 else ""))
    lines += ["  }", "}"]
    Path(path or RECORD).write_text("\n".join(lines) + "\n")


def record(computed: dict, registered, path: Path | None = None) -> list[str]:
    """Write the rows of ``computed`` (``{claim id: Power}``) into the record at ``path``,
    keeping the recorded rows of the other claims that are still ``registered`` (the others are
    dropped).  Returns what changed, one line per row (worse, better, new or dropped claims)."""
    path = Path(path or RECORD)
    old = load(path)["claims"] if path.exists() else {}
    new = {cid: rows for cid, rows in old.items() if cid in set(registered)}
    lines = [f"{cid}: dropped (no such claim)" for cid in old if cid not in new]
    for cid, p in sorted(computed.items()):
        new[cid] = entries(p)
        if cid not in old:
            lines.append(f"{cid}: recorded, {len(new[cid])} rows (not in the record before)")
            continue
        ch = compare(old[cid], p)
        lines += [f"{cid}: worse: row {w}" for w in ch.worse] + [f"{cid}: better: row {b}" for b in ch.better]
    write(new, path)
    return lines or ["no row changed"]
