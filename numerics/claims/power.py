"""Mutation power of a claim: each structural mutant of its derivation, and a ±delta scaling of
its output steps, applied to the SymPy objects; the experiment is collected once (memo) and only
the theory is recomputed.  ``attncheck verify --power`` and the mutation catalogue test run it."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from numerics.claims.base import CODE_ERRORS, Claim, Evidence, Settings, judge, statistical_rows
from numerics.core.stats import z_critical


@dataclass
class MutantOutcome:
    name: str
    description: str
    killed: bool
    #: "verdict failed" | "survived" | "not applied: ..." | the error the mutated claim raised
    #: (``numerics.claims.runner.error_text``: a kill unless its experiment raised)
    how: str
    applied: bool


@dataclass
class Power:
    id: str
    mutants: list[MutantOutcome]
    scaled: dict  # {"+0.05": killed, "-0.05": killed}
    scale_exact: bool  # the output scaling scaled every non-zero theory value as declared
    detectable: list  # per row: what it detects (``detectable``: relative, through_outputs, ...)
    #: non-empty: the claim itself could not be run (as ``Verdict.error``); nothing was killed
    error: str = ""

    @property
    def all_killed(self) -> bool:
        return not self.error and all(m.killed for m in self.mutants) and all(self.scaled.values())

    def to_pandas(self):
        """One row per structural mutant (name, description, applied, killed, how), then one
        per ±5 % output scaling (pandas: the optional extra ``tables``)."""
        from numerics.claims.verdicts import power_rows
        from numerics.core import tables

        return tables.frame(power_rows(self), ["claim", "mutant", "description", "applied", "killed", "how"])

    def to_json(self) -> dict:
        d = asdict(self)
        d["schema"] = "attncheck.power/1"
        d["all_killed"] = self.all_killed
        return d


def _run_mutated(claim: "Claim", settings: Settings, mutants) -> tuple[bool, str, Evidence | None]:
    from derivations.core import APPLIED, mutated
    from numerics.claims.runner import error_text

    try:
        with mutated(*mutants):
            ev = claim.collect(settings)
    except CODE_ERRORS:
        raise
    except Exception as e:
        # the mutated theory could not be computed, or the claim's code refused its values: the
        # claim rejects the mutant; an experiment that raised rejects nothing (the mutant
        # changes only the derivation, never the experiment)
        text, side = error_text(claim.id, e, claim)
        return side != "experiment", text[:300], None
    # reached at least once in this process (a cached mutated derivation does not reach it again)
    applied = all(APPLIED.get(m.name, 0) > 0 for m in mutants)
    if not applied:
        return False, "not applied: the claim never reached the mutated step", ev
    v = judge(ev, 0.0, claim)
    return (not v.passed), ("verdict failed" if not v.passed else "survived"), ev


def detectable(evidence: Evidence, sensitivity: list | None = None, rejects: list | None = None) -> list:
    """What each row of ``evidence`` can detect, one dict per row (``docs/claims.md``, "Power of
    each row"):

    ``label``; ``at``: its parameter point (:attr:`Comparison.at`);
    ``relative``: the smallest relative change of its theory value that the row rejects in both
    directions, (tolerance + |mean - theory|) / |theory| (None for a zero theory value);
    ``sensitivity``: how the row's theory follows the claim's output steps,
    |theory(1 + delta) - theory(1 - delta)| / (2 delta |theory|) from :func:`power`'s two scaled
    runs (1 when it follows them exactly; 0 when it does not move; None if unmeasured or zero);
    ``through_outputs``: ``relative / sensitivity``, the smallest relative change *of the
    output steps* the row rejects (infinite for a row that does not follow them);
    ``allowance``: the allowance over |theory| (the absolute allowance for a zero theory value);
    ``tolerance``: z * se + allowance, absolute;
    ``absolute``: the smallest absolute change of the theory value the row rejects in both
    directions, tolerance + |mean - theory| (what a zero theory value is recorded by);
    ``rejects``: ``{mutant: ratio}``, the structural mutants this row rejects on its own, each
    with its |mean - theory| under the mutant over its tolerance (> 1; infinite for a zero
    tolerance).

    ``sensitivity`` and ``rejects`` are per-row lists from a :func:`power` run (or None)."""
    zc = z_critical(statistical_rows(evidence.comparisons))
    out = []
    for i, c in enumerate(evidence.comparisons):
        tol = zc * c.se + c.allowance
        rel = (tol + abs(c.mean - c.theory)) / abs(c.theory) if c.theory else None
        s = sensitivity[i] if sensitivity is not None and c.theory else None
        through = None if rel is None or s is None else (rel / s if s > 0 else math.inf)
        out.append({"label": c.label, "at": dict(c.at), "relative": rel, "sensitivity": s, "through_outputs": through,
                    "allowance": c.allowance / abs(c.theory) if c.theory else c.allowance,
                    "tolerance": tol, "absolute": tol + abs(c.mean - c.theory),
                    "rejects": dict(rejects[i]) if rejects is not None else {}})
    return out


def _sensitivity(base: Evidence, plus: Evidence | None, minus: Evidence | None, delta: float) -> list:
    """Per row, |theory(+delta) - theory(-delta)| / (2 delta |theory|): 0 for every row when a
    scaled run gave no rows or other rows (nothing shows that the row follows its outputs)."""
    n = len(base.comparisons)
    if plus is None or minus is None or len(plus.comparisons) != n or len(minus.comparisons) != n:
        return [0.0] * n
    return [abs(p.theory - m.theory) / (2 * delta * abs(c.theory)) if c.theory else None
            for c, p, m in zip(base.comparisons, plus.comparisons, minus.comparisons)]


def _rejections(base: Evidence, runs: list, claim) -> list:
    """Per row of ``base``, ``{mutant: |mean - theory| / tolerance}`` of the mutants whose run
    (``(name, evidence)``, rows aligned with ``base``) the row rejects."""
    out = [{} for _ in base.comparisons]
    for name, ev in runs:
        if ev is None or len(ev.comparisons) != len(base.comparisons):
            continue
        for i, r in enumerate(judge(ev, 0.0, claim).rows):
            if not r.passed:
                diff = abs(r.mean - r.mutated_theory)
                out[i][name] = diff / r.tolerance if r.tolerance > 0 else math.inf
    return out


def power(claim: "Claim", settings: Settings, delta: float = 0.05,
          evidence: Evidence | None = None) -> Power:
    """Run ``claim`` under each of its structural mutants and under ±``delta`` scalings of its
    output steps; the experiment is collected once (memo) and only the theory recomputed.

    ``evidence``: the claim's unmutated evidence at ``settings`` when the caller already has it
    (it is the reference of the scaling check and of ``detectable``); otherwise it is collected
    here. Each mutant still recomputes its theory."""
    from derivations.core import all_mutants, scaled
    from numerics.claims.runner import collect_one

    if evidence is not None:
        if evidence.claim_id != claim.id or evidence.settings != settings:
            raise ValueError(f"power({claim.id}): the evidence given is of {evidence.claim_id} at "
                             f"{evidence.settings}, not of this claim at {settings}")
        base = evidence
    else:
        base = collect_one(claim, settings)  # a claim that raises is an error, not a crash of the run
    if base.error:
        return Power(claim.id, [], {}, False, [], error=base.error)
    table = all_mutants()
    outcomes, runs = [], []
    for name in claim.mutants:
        m = table[name]
        killed, how, ev = _run_mutated(claim, settings, (m,))
        applied = not how.startswith("not applied")
        outcomes.append(MutantOutcome(name, m.description, killed and applied, how, applied))
        runs.append((name, ev if applied else None))
    scaled_out, scaled_ev, exact = {}, {}, True
    for sign in (+1, -1):
        f = 1.0 + sign * delta
        killed, how, ev = _run_mutated(claim, settings, tuple(scaled(s, f) for s in claim.outputs))
        scaled_out[f"{sign * delta:+g}"] = killed and ev is not None
        scaled_ev[sign] = ev
        if ev is None or len(ev.comparisons) != len(base.comparisons):
            exact = False
            continue
        for c0, c1 in zip(base.comparisons, ev.comparisons):
            if c0.theory and not math.isclose(c1.theory, f * c0.theory, rel_tol=1e-6, abs_tol=0.0):
                exact = False
    rows = detectable(base, _sensitivity(base, scaled_ev[+1], scaled_ev[-1], delta),
                      _rejections(base, runs, claim))
    return Power(claim.id, outcomes, scaled_out, exact and bool(claim.outputs), rows)


# --- the power recorded with the verdicts ---------------------------------------------------------
def power_key(claim: Claim, settings: Settings) -> str:
    """The cache key of the claim's mutation power: the key of its evidence (its code, its
    derivation and mutants, the settings, the package versions) and the code of this module."""
    from numerics.core import cache

    return cache.module_key(__name__, "power", cache.key(claim, settings))


def is_cached(claim: Claim, settings: Settings) -> bool:
    """Whether the claim's mutation power at ``settings`` is recorded in the verdict cache."""
    from numerics.core import cache

    return cache.load_artifact("power", power_key(claim, settings)) is not None


def cached_power(claim: Claim, settings: Settings, evidence: Evidence | None = None,
                 use_cache: bool = True) -> tuple[Power, bool]:
    """:func:`power`, recorded in the verdict cache's folder next to the evidence (``verify
    --power`` and ``report`` fill and read the same records): ``(power, reused)``.  A power run
    that raised is not recorded; the time of a computed one is, for the next estimate
    (:func:`numerics.core.cache.record_time`, id ``power:CLAIM``)."""
    import pickle
    import time

    from numerics.core import cache

    k = power_key(claim, settings) if use_cache else None
    data = cache.load_artifact("power", k) if k else None
    if data is not None:
        try:
            return pickle.loads(data), True
        except Exception:  # an unreadable record is recomputed
            pass
    same = evidence is not None and evidence.settings == settings and evidence.claim_id == claim.id
    t0 = time.perf_counter()
    p = power(claim, settings, evidence=evidence if same else None)
    if k and not p.error:
        cache.store_artifact("power", k, pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL))
        cache.record_time(f"power:{claim.id}", settings.mode, time.perf_counter() - t0)
    return p, False
