"""The claims engine.

A :class:`Claim` is one checkable statement of a paper.  Running it (``collect``) produces
:class:`Evidence`: a list of :class:`Comparison` rows, each a theory value next to an
experiment estimate with its standard error, plus metadata (seed, sizes, backend, dps, time).
Judging evidence (``judge``) is separate from collecting it, so that one expensive simulation
can be judged both as is and under a mutation of the theory:

    evidence = claim.collect(settings)
    judge(evidence).passed                 # the claim holds
    judge(evidence, mutate=0.05).passed    # must be False: the check can fail

The tolerance of a row is ``z * se + allowance``:

* ``se`` is the experiment's own standard error (0 for exact or deterministic experiments);
* ``allowance`` is a documented, non-statistical allowance — a finite-size bias bound that
  shrinks with d, or a numerical error bound (quadrature, solver residual) — stated by the
  claim in ``allowance_note``;
* ``z`` is the two-sided normal quantile at a family-wise false-alarm rate ``FAMILY_ALPHA``
  split over the rows of the claim (Bonferroni), so a claim with more rows is not more likely
  to fail by chance.

Mutation multiplies every theory value by ``1 + mutate`` before comparing.  See
``docs/claims.md``.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

from scipy.special import ndtri

from numerics.seeding import DEFAULT_SEED, seed_sequence

FAMILY_ALPHA = 1e-3
SCHEMA = "attncheck.verdict/1"
MODES = ("quick", "full")


def z_critical(rows: int, family_alpha: float = FAMILY_ALPHA) -> float:
    """Two-sided Bonferroni critical value for ``rows`` comparisons."""
    rows = max(int(rows), 1)
    return float(ndtri(1.0 - family_alpha / (2.0 * rows)))


@dataclass(frozen=True)
class Settings:
    """How a claim is run: mode (``quick`` reduced sizes, ``full`` the paper's), root seed,
    backend and working precision for theory values."""

    mode: str = "quick"
    seed: int = DEFAULT_SEED
    dps: int = 30
    backend: str = "mpmath"

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")

    @property
    def full(self) -> bool:
        return self.mode == "full"

    def seed_sequence(self, claim_id: str, *path):
        return seed_sequence(self.seed, claim_id, *path)


@dataclass(frozen=True)
class Comparison:
    """One theory value against one experiment estimate."""

    label: str
    theory: float
    mean: float
    se: float = 0.0
    allowance: float = 0.0
    n: int | None = None

    def __post_init__(self):
        for name in ("theory", "mean", "se", "allowance"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or math.isnan(v):
                raise ValueError(f"Comparison {self.label!r}: {name} must be a real number, got {v!r}")
        if self.se < 0 or self.allowance < 0:
            raise ValueError(f"Comparison {self.label!r}: se and allowance must be >= 0")


@dataclass
class Evidence:
    """What ``Claim.collect`` returns: unjudged comparisons plus metadata."""

    claim_id: str
    comparisons: list[Comparison]
    settings: Settings
    sizes: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    seed_path: tuple = ()


@dataclass(frozen=True)
class RowVerdict:
    label: str
    theory: float
    mutated_theory: float
    mean: float
    se: float
    allowance: float
    tolerance: float
    z: float | None
    passed: bool
    n: int | None


@dataclass
class Verdict:
    id: str
    passed: bool
    rows: list[RowVerdict]
    mode: str
    seed: int
    seed_path: tuple
    backend: str
    dps: int
    mutate: float
    z_crit: float
    sizes: dict
    details: dict
    elapsed_s: float
    reference: str = ""
    statement: str = ""

    def to_json(self) -> dict:
        d = asdict(self)
        d["schema"] = SCHEMA
        d["seed_path"] = list(self.seed_path)
        return d


def judge(evidence: Evidence, mutate: float = 0.0, claim: "Claim | None" = None) -> Verdict:
    if not evidence.comparisons:
        raise ValueError(f"{evidence.claim_id}: a claim with no comparisons checks nothing")
    zc = z_critical(len(evidence.comparisons))
    rows = []
    for c in evidence.comparisons:
        t = c.theory * (1.0 + mutate)
        tol = zc * c.se + c.allowance
        diff = c.mean - t
        z = diff / c.se if c.se > 0 else None
        rows.append(
            RowVerdict(c.label, c.theory, t, c.mean, c.se, c.allowance, tol, z, abs(diff) <= tol, c.n)
        )
    s = evidence.settings
    return Verdict(
        id=evidence.claim_id,
        passed=all(r.passed for r in rows),
        rows=rows,
        mode=s.mode,
        seed=s.seed,
        seed_path=evidence.seed_path,
        backend=s.backend,
        dps=s.dps,
        mutate=mutate,
        z_crit=zc,
        sizes=evidence.sizes,
        details=evidence.details,
        elapsed_s=evidence.elapsed_s,
        reference=claim.reference if claim else "",
        statement=claim.statement if claim else "",
    )


@dataclass
class Claim:
    """One checkable statement.

    ``experiment(settings, claim) -> (comparisons, sizes, details)`` does the work: it computes
    the theory values (from ``derivations`` through ``numerics`` backends) and the experiment
    (a simulation, or an independent computation), and returns unjudged rows.
    ``evaluate(params, dps) -> dict[str, mpf]`` (optional) gives the closed form / limit at the
    user's parameters for ``attncheck eval``; ``param_space`` validates those parameters.
    ``equations`` are :class:`derivations.Equation` objects, for ``attncheck latex`` — or a
    zero-argument callable returning them, so that listing claims never pays for a derivation
    (use :meth:`get_equations`).
    """

    id: str
    paper: str
    reference: str
    statement: str
    experiment: Callable
    equations: Sequence = ()
    evaluate: Callable | None = None
    param_space: object | None = None
    status: str = "derived"  # paper | derived | erratum | beyond
    allowance_note: str = ""
    doc: str = ""

    def get_equations(self) -> tuple:
        eqs = self.equations() if callable(self.equations) else self.equations
        return tuple(eqs)

    def collect(self, settings: Settings) -> Evidence:
        t0 = time.perf_counter()
        comparisons, sizes, details = self.experiment(settings, self)
        return Evidence(
            claim_id=self.id,
            comparisons=list(comparisons),
            settings=settings,
            sizes=dict(sizes),
            details=dict(details),
            elapsed_s=time.perf_counter() - t0,
            seed_path=(settings.seed, self.id),
        )

    def verify(self, settings: Settings, mutate: float = 0.0) -> Verdict:
        return judge(self.collect(settings), mutate, self)

    def rng(self, settings: Settings, *path):
        import numpy as np

        return np.random.default_rng(settings.seed_sequence(self.id, *path))
