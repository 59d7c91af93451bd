"""The claims engine.

A :class:`Claim` is one checkable statement of a paper.  Running it (``collect``) produces
:class:`Evidence`: a list of :class:`Comparison` rows, each a theory value next to an
experiment estimate with its standard error, plus metadata (seed, sizes, dps, time).
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

Two kinds of mutation show that a claim can fail (``docs/claims.md``):

* ``judge(evidence, mutate=δ)`` multiplies every recorded theory value by ``1 + δ``;
* :func:`power` re-runs the claim through its normal path under each *structural mutant* of
  its derivation (``Claim.mutants``, SymPy errors registered in ``derivations``) and under the
  generic scaling of its output steps (``Claim.outputs``), so the theory — and any allowance
  the claim computes — is recomputed.  The experiment does not depend on the theory: the claim
  memoises it (:func:`memo`), so only the theory is recomputed under a mutant.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, ClassVar, Sequence

from numerics.claims.sides import SIDES, raised_in  # noqa: F401  (re-exported)
from numerics.core.seeding import DEFAULT_SEED, recording, replay, seed_sequence
from numerics.core.stats import FAMILY_ALPHA, z_critical  # noqa: F401  (re-exported)
from numerics.registry import RegistryError

SCHEMA = "attncheck.verdict/3"
MODES = ("quick", "full")


class UndeclaredParameter(RegistryError):
    """A claim's experiment read a parameter that its ``point_space`` does not declare: a defect
    of the claim's definition (``numerics.claims.runner.collect_one`` adds the claim's id)."""


class Point(dict):
    """A parameter point as a claim's experiment reads it (``Settings.point``): a validated
    point holds every parameter of the claim's ``point_space``, so a name it does not hold is
    one the space does not declare."""

    def __missing__(self, name):
        if not self:
            raise UndeclaredParameter(f"its experiment reads parameter {name!r} at its built-in design, where no "
                                      "point is given; read it only when settings.point is not empty")
        raise UndeclaredParameter(f"its experiment reads parameter {name!r}, which its point_space does not "
                                  f"declare (it declares {', '.join(self)}); declare {name} in the point_space")


@dataclass(frozen=True)
class Settings:
    """How a claim is run: mode (``quick`` reduced sizes, ``full`` the paper's), root seed,
    working precision for theory values, and ``params``: a parameter point of the
    user's (sorted ``(name, value)`` pairs; ``verify --param``) at which a claim with a
    ``point_space`` runs its experiment instead of its built-in design (empty: the design)."""

    mode: str = "quick"
    seed: int = DEFAULT_SEED
    dps: int = 30
    params: tuple = ()

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")

    @property
    def full(self) -> bool:
        return self.mode == "full"

    @property
    def point(self) -> "Point":
        """``params`` as a dict (empty: run the claim's built-in design); a parameter it does not
        hold raises :class:`UndeclaredParameter`."""
        return Point(self.params)

    def seed_sequence(self, claim_id: str, *path):
        return seed_sequence(self.seed, claim_id, *path)

    def pick(self, quick, full):
        """The one quick/full size declaration: ``quick`` at reduced size, ``full`` at the papers'.
        A table ``{"quick": ..., "full": ...}`` is read with ``settings.pick(**TABLE)``; claims,
        figures and benchmarks all size themselves through it."""
        return full if self.full else quick


# --- the experiment memo -------------------------------------------------------------------------
_MEMO: dict = {}


def memo(settings: Settings, key, compute: Callable):
    """The experiment memo: ``compute()`` once per (settings, key) in this process.

    Only experiments (simulations, independent computations that share nothing with the
    derivation under test) go through the memo; theory values never do, so a structural mutant
    recomputes the theory against the same experiment.  The seed paths the experiment drew
    from are stored with it and re-recorded on every hit."""
    k = (settings.mode, settings.seed, settings.params, key)
    if k not in _MEMO:
        try:
            with recording() as paths:
                value = compute()
        except BaseException as exc:  # a memo shared by processes does not keep the entry locked
            getattr(_MEMO, "release_all", lambda: None)()
            _name_side(exc)
            raise
        _MEMO[k] = (value, list(paths))
    value, paths = _MEMO[k]
    replay(paths)
    return value


def _name_side(exc: BaseException) -> None:
    """What raised while the memo computed an entry is the experiment's, unless a frame of theory
    code inside it raised (``raised_in``): the memo names the side on the exception itself, so
    that the attribution does not hang on the memo's function name."""
    if getattr(exc, "side", None) is None:
        with contextlib.suppress(AttributeError, TypeError):  # an exception without attributes
            exc.side = "theory" if raised_in(exc) == "theory" else "experiment"


def clear_memo() -> None:
    _MEMO.clear()


#: the side of a claim each number of a :class:`Comparison` comes from
_FIELD_SIDE = {"theory": "theory", "mean": "experiment", "se": "experiment", "allowance": "claim"}


@dataclass(frozen=True)
class Comparison:
    """One theory value against one experiment estimate."""

    label: str
    theory: float
    mean: float
    se: float = 0.0
    allowance: float = 0.0
    n: int | None = None
    #: non-empty for a certified row (``numerics.theory.certify.certified_row``): what was
    #: checked, "ball [a ± r] contains the independent value b (N digits)"; the row passes when
    #: the score ``mean`` is <= 1.  It is not a statistical estimate: it is listed apart and
    #: takes no part in the Bonferroni correction of the others
    certified: str = ""
    #: the row's parameter point (name -> value; None: none), the values its label writes
    #: (``numerics.report_labels`` prints it in the papers' notation; no number is read back from a label)
    at: dict | None = None

    def __post_init__(self):
        object.__setattr__(self, "at", dict(self.at) if self.at else {})
        for name in ("theory", "mean", "se", "allowance"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or math.isnan(v):
                err = ValueError(f"Comparison {self.label!r}: {name} must be a real number, got {v!r}")
                err.side = _FIELD_SIDE[name]  # the side that gave the value (raised_in)
                raise err
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
    seed_paths: list = field(default_factory=list)
    #: why no rows were collected: the claim's theory or experiment raised (one line naming the
    #: exception; numerics.claims.runner.error_evidence). Never stored in the verdict cache.
    error: str = ""


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
    #: a certified row's text (:attr:`Comparison.certified`), printed apart from the statistical rows
    certified: str = ""
    at: dict = field(default_factory=dict)  #: the row's parameter point (:attr:`Comparison.at`)


def statistical_rows(comparisons) -> int:
    """How many of ``comparisons`` are statistical (not certified): the Bonferroni family."""
    return sum(not getattr(c, "certified", "") for c in comparisons)


#: the one table of verdict names (status -> the word the CLI, the report and notebooks print)
VERDICT_WORDS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}


@dataclass
class Verdict:
    id: str
    passed: bool
    rows: list[RowVerdict]
    mode: str
    seed: int
    seed_paths: list
    dps: int
    mutate: float
    z_crit: float
    sizes: dict
    details: dict
    elapsed_s: float
    reference: str = ""
    statement: str = ""
    #: the claim's human title (the heading of its section in the documents)
    title: str = ""
    #: the statement as LaTeX prose (``$...$`` inline math), rendered by the notebook repr
    statement_tex: str = ""
    #: Python and the numerical packages of the run (numerics.core.cache.versions)
    versions: dict = field(default_factory=dict)
    #: non-empty: the claim could not be run (its theory or experiment raised); no rows, not passed
    error: str = ""
    point: dict = field(default_factory=dict)  #: the user's ``--param`` point (empty: the design)

    @property
    def status(self) -> str:
        """``passed``, ``failed`` (a row outside its tolerance) or ``error`` (nothing judged)."""
        return "error" if self.error else "passed" if self.passed else "failed"

    @property
    def word(self) -> str:
        """How every printer names the verdict (:data:`VERDICT_WORDS` of its status)."""
        return VERDICT_WORDS[self.status]

    def __repr__(self) -> str:  # one line; the rows are in .rows, the table in _repr_html_
        zs = [abs(r.z) for r in self.rows if r.z is not None]
        zt = f", max|z|={max(zs):.2f}" if zs else ""
        mut = f", mutate={self.mutate:+g}" if self.mutate else ""
        return (f"Verdict({self.id!r}, {self.word}, {len(self.rows)} rows{zt}, "
                f"{self.mode}, seed {self.seed}{mut})")

    #: the verdict as HTML, for notebooks: the presentation's ``numerics.report_labels.verdict_html``,
    #: which ``attncheck`` registers here (a claim never imports a printer)
    html_renderer: ClassVar[Callable[["Verdict"], str] | None] = None

    def _repr_html_(self) -> str | None:  # notebooks render the verdict table (None: the text repr)
        return type(self).html_renderer(self) if type(self).html_renderer else None

    @property
    def design(self) -> dict:
        """The point the claim ran at: the user's ``--param`` point, else the design its experiment
        reports in its details (``design``, ``setting`` or ``params``: one point, or named groups
        of points).  Empty when the claim reports none."""
        if self.point:
            return dict(self.point)
        for key in ("design", "setting", "params"):
            d = (self.details or {}).get(key)
            if _flat(d):
                return dict(d)
            if isinstance(d, dict) and d and all(_flat(v) for v in d.values()):
                return {str(k): dict(v) for k, v in d.items()}
        return {}

    def to_json(self) -> dict:
        d = asdict(self)
        d["schema"], d["design"] = SCHEMA, self.design
        d["status"] = self.status
        d["seed_paths"] = [list(p) for p in self.seed_paths]
        return d


def _flat(d) -> bool:
    """``d`` is one parameter point: a non-empty dict of real numbers."""
    return isinstance(d, dict) and bool(d) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in d.values())


def _titles(claim) -> dict:
    """The claim's title (its reference if it has none) and its LaTeX statement, for a verdict."""
    if claim is None:
        return {}
    return {"title": getattr(claim, "title", "") or claim.reference,
            "statement_tex": getattr(claim, "statement_tex", "")}


def judge(evidence: Evidence, mutate: float = 0.0, claim: "Claim | None" = None) -> Verdict:
    """The verdict of ``evidence``; evidence with an ``error`` gives an error verdict (no rows,
    not passed, and never counted as a caught mutation)."""
    if getattr(evidence, "error", ""):
        s = evidence.settings
        return Verdict(id=evidence.claim_id, passed=False, rows=[], mode=s.mode, seed=s.seed,
                       seed_paths=evidence.seed_paths, dps=s.dps, mutate=mutate, z_crit=0.0,
                       sizes=evidence.sizes, details=evidence.details, elapsed_s=evidence.elapsed_s,
                       reference=claim.reference if claim else "", statement=claim.statement if claim else "",
                       **_titles(claim), versions=dict(_versions()), error=evidence.error)
    if not evidence.comparisons:
        raise ValueError(f"{evidence.claim_id}: a claim with no comparisons checks nothing")
    zc = z_critical(statistical_rows(evidence.comparisons))
    rows = []
    for c in evidence.comparisons:
        t = c.theory * (1.0 + mutate)
        cert = getattr(c, "certified", "")
        tol = c.allowance if cert else zc * c.se + c.allowance
        diff = c.mean - t
        z = diff / c.se if c.se > 0 and not cert else None
        rows.append(
            RowVerdict(c.label, c.theory, t, c.mean, c.se, c.allowance, tol, z, abs(diff) <= tol, c.n, cert,
                       {} if cert else dict(c.at))
        )
    s = evidence.settings
    return Verdict(
        id=evidence.claim_id,
        passed=all(r.passed for r in rows),
        rows=rows,
        mode=s.mode,
        seed=s.seed,
        seed_paths=evidence.seed_paths,
        dps=s.dps,
        mutate=mutate,
        z_crit=zc,
        sizes=evidence.sizes,
        details=evidence.details,
        elapsed_s=evidence.elapsed_s,
        reference=claim.reference if claim else "",
        statement=claim.statement if claim else "",
        **_titles(claim),
        versions=dict(_versions()),
        point=dict(s.params),
    )


from numerics.core.precision import MAX_DPS  # noqa: E402  (the largest --dps, declared once)


def _versions() -> dict:
    from numerics.core.cache import versions

    return versions()


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
    ``statement_eq`` is the statement itself as an equation, printed first in the claim's LaTeX
    section (label ``claim-id:statement``): a SymPy relation built from the derivation's symbols,
    a LaTeX string (math mode; ``\\`` separates lines) where a SymPy form is impractical, a
    tuple of either (one line each), or a zero-argument callable returning one of these.
    ``point_space`` (optional) is the :class:`ParamSpace` of the points the experiment can be run
    at (``Settings.params``, ``attncheck verify ID --param k=v``); its rows, standard errors and
    allowances are then computed exactly as at the built-in design.
    ``mutants`` names the structural mutants of the claim's own derivation
    (``derivations.core.MUTANTS``); each must fail the claim.  ``outputs`` names the derivation
    steps whose scaling by ``1 + δ`` scales every non-zero theory value of the claim by
    ``1 + δ``: the ±5 % test runs through them, so allowances are recomputed.
    ``max_dps`` is the largest ``dps`` that ``evaluate`` reaches in bounded time (``attncheck
    eval`` refuses more at once); Monte Carlo outputs (with a ``*_se`` companion) keep the digits
    of their standard error whatever the dps.
    ``title`` is a short human title in words (its section heading); ``statement_tex`` the
    statement as LaTeX prose with inline math, for the document and the report (the plain
    ``statement`` stays for the terminal).
    ``uses_dps`` says whether ``experiment`` evaluates its theory values at ``Settings.dps``
    (closed forms in mpmath); ``False`` for a claim whose theory values are computed in float64
    only, where ``verify --dps`` cannot change anything and should be refused or reported as not
    applying.
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
    mutants: Sequence[str] = ()
    outputs: Sequence[str] = ()
    statement_eq: object = None
    point_space: object | None = None
    #: a claim without a ``point_space``: why it runs at its built-in design only (``verify --help``)
    design_only: str = ""
    #: non-empty: the statement as written is known to fail away from its design (where that is
    #: shown); ``explore`` reports its confirmed failures as found counterexamples, not defects
    counterexamples: str = ""
    max_dps: int = MAX_DPS
    uses_dps: bool = True
    #: ``cost(params) -> numerics.core.resources.Estimate`` (optional): memory and time of
    #: ``evaluate`` at the user's parameters, checked before it runs
    cost: Callable | None = None
    #: a short human title in words, the heading of the claim's section in the LaTeX document,
    #: the PDF and the HTML report (the id is printed under it); empty: the reference is used
    title: str = ""
    #: the statement as LaTeX prose (text with ``$...$`` inline math), printed by the LaTeX
    #: document and the HTML report; empty: the plain ``statement`` (which the terminal prints)
    statement_tex: str = ""
    #: the ids of the figures that illustrate the claim (registered like the claims: a module's
    #: ``FIGURES`` dict, built-in or a plugin's); the report shows each once, with the first
    #: claim that names it
    figures: Sequence[str] = ()
    #: claims whose theory is the same computation (the same solves, read for different
    #: outputs) name one family: the test suite runs a family's claims in one process, where the
    #: process's memo of those solves serves them all; empty: the claim alone
    shares: str = ""

    def get_equations(self) -> tuple:
        """The claim's equations, built if ``equations`` is a callable; an inconsistent
        :class:`~derivations.core.Equation` is a :class:`~numerics.registry.RegistryError`
        naming the claim, the equation and the fix."""
        from derivations.core import EquationError

        try:
            eqs = self.equations() if callable(self.equations) else self.equations
        except EquationError as e:
            raise RegistryError(f"claim {self.id}: {e}") from None
        return tuple(eqs)

    def get_statement_eq(self):
        """``statement_eq``, built if it is a callable (None if the claim has none)."""
        from derivations.core import EquationError

        eq = self.statement_eq
        try:
            return eq() if callable(eq) else eq
        except EquationError as e:
            raise RegistryError(f"claim {self.id}: {e}") from None

    def collect(self, settings: Settings) -> Evidence:
        t0 = time.perf_counter()
        with recording() as paths:
            comparisons, sizes, details = self.experiment(settings, self)
        if not settings.params:  # a certificate is of the claim's defaults, not of a user's point
            from numerics.claims.certified import certified_rows

            comparisons = list(comparisons) + certified_rows(self, settings.dps)
        return Evidence(
            claim_id=self.id,
            comparisons=comparisons,
            settings=settings,
            sizes=dict(sizes),
            details=dict(details),
            elapsed_s=time.perf_counter() - t0,
            seed_paths=sorted(paths, key=repr),
        )

    def rng(self, settings: Settings, *path):
        import numpy as np

        return np.random.default_rng(settings.seed_sequence(self.id, *path))


# --- mutation power ------------------------------------------------------------------------------
#: exceptions that mean a mutant broke the code rather than the mathematics: a claim that meets
#: one of these under a mutant has a defect, it did not "catch" the mutant
CODE_ERRORS = (TypeError, AttributeError, NameError, KeyError, IndexError, ImportError)
