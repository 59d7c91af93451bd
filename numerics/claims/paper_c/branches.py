"""``C.sim.semantic`` and ``C.transition``: both branches of Result 4.2 against finite-d ERM
from both initialisations, on the same data.

Theory: ``numerics.theory.paper_c.equations.solve`` on each branch (every value from
``derivations.paper_c.attention_erm``; tensor Gauss-Hermite with n and n + 4 nodes per axis,
the change is the quadrature error).  The training loss is -Phi (the authors' sign), the
minimised objective per dimension, (1/d)[sum_i |yhat_i - y_i|^2/(2d) + (lambda/2)|Q|^2].

Experiment: ``numerics.experiments.paper_c.simulate.run`` (L-BFGS from the semantic start
Q = Q* and the positional start Q = 0.25 * 1 on the same training set; numpy and scipy only),
over independent instances seeded by their path.  The teacher is drawn on the sphere
|Q*|^2 = d (``teacher="sphere"``): the same d -> inf limit as Q* ~ N(0, I_d), without the
O(d^-1/2) fluctuation of |Q*|^2/d that otherwise dominates the spread of theta and of the
objective.  One simulation serves both claims (and ``C.baseline``): the memo key is shared.

The alphas are the authors' empirics grid points 1.005, 1.5025 and 2.0, on both sides of the
transition (the tables put it between 1.25 and 1.357).

Finite size (Richardson): every cell is also simulated at d/2 with as many instances.  With a
bias c/d + O(d^-2), the extrapolant 2 mean(d) - mean(d/2) removes the c/d term; it is what a
row compares, with se = sqrt(4 se_d^2 + se_{d/2}^2) from the instances.  The measured bias at d,
mean(d) - extrapolant = mean(d/2) - mean(d), is recorded per row (it shrinks as 1/d); the
residual O(d^-2) bias of the extrapolant is not bounded separately (a third size would).
Tolerance of a row: z * se (Bonferroni z over the rows) plus the theory's quadrature error
(n vs n + 4 nodes per axis) as allowance; never the value judged.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from derivations.core import _ACTIVE, replaying_cache
from derivations.paper_c import attention_erm as D
from numerics.claims.base import Claim, Comparison, memo, z_critical
from numerics.core.tasks import map_tasks
from numerics.experiments.paper_c.simulate import run
from numerics.theory.paper_c import equations as E

from numerics.claims.paper_c.reference import SETTING  # noqa: E402  (the setting of the authors' tables, declared once)
SIM_KEY = "C.sim.branches"
#: the authors' empirics grid points (their d = 1000 runs exist there; C.empirics)
ALPHAS = (1.005, 1.5025, 2.0)
#: the alphas of the transition rows: one below and two above the crossing of the two -Phi
TRANSITION_ALPHAS = ALPHAS
SIM_TOL = 1e-7  # L-BFGS gradient tolerance (as C.sim.positional)
DESIGN = {
    "quick": dict(d=400, trials=12, nodes=6),
    "full": dict(d=800, trials=40, nodes=8),
}
ALLOWANCE_NOTE = (
    "the row compares the Richardson extrapolant 2 mean(d) - mean(d/2) (same alpha, same number of "
    "instances; removes the O(1/d) bias, residual O(1/d^2)) with se sqrt(4 se_d^2 + se_{d/2}^2) "
    "(Bonferroni z); allowance: the theory's quadrature error (n vs n+4 Gauss-Hermite nodes per axis)"
)


def _trial(task) -> dict:
    """One instance, both initialisations and the linear baseline on the same data."""
    d, alpha, seed = task
    r = run(np.random.default_rng(seed), d, alpha, linear=True, tol=SIM_TOL, teacher="sphere", **SETTING)
    sem, pos = r["semantic"], r["positional"]
    return {
        "semantic theta": sem["theta"], "semantic |m|": abs(sem["m"]), "semantic mse": sem["mse"],
        "semantic q": sem["q"], "semantic Phi": -sem["objective"],
        "positional |m|": abs(pos["m"]), "positional mse": pos["mse"], "positional q": pos["q"],
        "positional Phi": -pos["objective"],
        # the training loss of the semantic minimum minus that of the positional one (paired)
        "loss gap": sem["objective"] - pos["objective"],
        "linear mse": r["linear"]["mse"],
        # attention's best test error minus the baseline's (paired), attention taken at the
        # initialisation with the lower training loss (the global minimum the theory describes)
        "attention - linear": (sem["mse"] if sem["objective"] < pos["objective"] else pos["mse"]) - r["linear"]["mse"],
        "converged": float(sem["converged"] and pos["converged"]),
    }


def _simulate(settings) -> dict:
    des = settings.pick(**DESIGN)
    out = {}
    for d in (des["d"], des["d"] // 2):
        for a in ALPHAS:
            tasks = [(d, a, settings.seed_sequence(SIM_KEY, "sim", d, f"{a:g}", t)) for t in range(des["trials"])]
            runs = map_tasks(_trial, tasks, f"ERM from both starts, d={d}, alpha={a:g}")
            out[(d, a)] = {k: np.array([r[k] for r in runs]) for k in runs[0]}
    return out


def simulate(settings) -> dict:
    """{(d, alpha): {quantity: array over instances}} at d and d/2 (memoised: one collection
    for every claim that reads it, never recomputed under a mutant)."""
    return memo(settings, (SIM_KEY, "sim"), lambda: _simulate(settings))


def _solver_key():
    """The active mutants that change the solve (the reporting step does not)."""
    return tuple(m.name for m in _ACTIVE.get() if m.step != "C.out.reported")


@replaying_cache(maxsize=64)
def _solve(branch: str, alpha: float, n: int, _key):
    """The fixed point with n nodes per axis; on the positional branch with n + 2 where the n-node
    Newton solve does not converge (alpha = 2 with n = 6, docs/paper_c.md §6.1).  Raises (the
    claim errors) if no solve converges."""
    sol = E.solve(branch, alpha, n=n, throw=branch != "positional", **SETTING)
    return sol.value if sol.ok else E.solve(branch, alpha, n=n + 2, **SETTING).value


def theory(branch: str, alpha: float, n: int):
    """(values, quadrature errors) of the reported outputs of ``branch`` at ``alpha``."""
    return E.reported(_solve(branch, float(alpha), int(n), _solver_key()))


def sizes(settings) -> dict:
    des = settings.pick(**DESIGN)
    return {"d": des["d"], "d/2": des["d"] // 2, "instances": des["trials"], "teacher": "|Q*|^2 = d",
            "nodes per axis": f"{des['nodes']} (error estimate from {des['nodes'] + 4})", **SETTING}


def row(label, th, x, x2, extra=0.0, at=None):
    """A Comparison of ``th`` with the Richardson extrapolant of the instances ``x`` at d and
    ``x2`` at d/2 (module docstring) with the theory's error ``extra`` as allowance, at the point
    ``at`` its label writes; and its table entry."""
    m1, m2 = float(x.mean()), float(x2.mean())
    se1, se2 = (float(v.std(ddof=1) / math.sqrt(len(v))) for v in (x, x2))
    mean, se = 2 * m1 - m2, math.hypot(2 * se1, se2)
    entry = {"row": label, "theory": th, "mean_d": m1, "se_d": se1, "mean_d_half": m2, "se_d_half": se2,
             "bias_at_d": m1 - mean, "extrapolated": mean, "se": se, "theory_error": extra}
    return Comparison(label, th, mean, se, extra, len(x) + len(x2), at=at), entry


def _cells(settings, cells):
    """Rows for ``cells`` = [(alpha, quantity, theory value, theory error)]."""
    des = settings.pick(**DESIGN)
    sims = simulate(settings)
    d, d2 = des["d"], des["d"] // 2
    rows, table = [], []
    for a, key, th, err in cells:
        c, entry = row(f"{key} alpha={a:g} d={d}", th, sims[(d, a)][key], sims[(d2, a)][key], err,
                       {"alpha": a, "d": d})
        entry["converged"] = float(sims[(d, a)]["converged"].mean())
        rows.append(c)
        table.append(entry)
    return rows, table


SEMANTIC_ROWS = {"theta": "theta", "Phi": "Phi", "mse": "mse"}


def semantic_experiment(settings, claim):
    n = settings.pick(**DESIGN)["nodes"]
    cells = []
    for a in ALPHAS:
        val, err = theory("semantic", a, n)
        cells += [(a, f"semantic {k}", val[k], err[k]) for k in SEMANTIC_ROWS]
    rows, table = _cells(settings, cells)
    return rows, sizes(settings), {"cells": table}


def transition_experiment(settings, claim):
    n = settings.pick(**DESIGN)["nodes"]
    cells = []
    for a in TRANSITION_ALPHAS:
        sem, esem = theory("semantic", a, n)
        pos, epos = theory("positional", a, n)
        # each branch's Phi, and the training loss -Phi of the semantic minimum minus the
        # positional one's (the gap, paired on the same data)
        cells += [(a, "semantic Phi", sem["Phi"], esem["Phi"]), (a, "positional Phi", pos["Phi"], epos["Phi"]),
                  (a, "loss gap", pos["Phi"] - sem["Phi"], esem["Phi"] + epos["Phi"])]
    rows, table = _cells(settings, cells)
    gaps = [e for e in table if e["row"].startswith("loss gap")]
    zc = z_critical(len(gaps))
    for entry in gaps:
        # the side: the sign of the paired gap at d, resolved when it is beyond z se_d and the
        # gap at d/2 has the same sign (a sign needs no bias correction when both sizes give it)
        entry["theory side"] = "semantic lower" if entry["theory"] < 0 else "positional lower"
        md, mh = entry["mean_d"], entry["mean_d_half"]
        entry["sim side"] = ("unresolved" if abs(md) <= zc * entry["se_d"] or md * mh <= 0
                             else "semantic lower" if md < 0 else "positional lower")
    return rows, sizes(settings), {"cells": table}


def _claim(**kw) -> Claim:
    """A claim of this module: Paper C's derivation, its reported outputs scaled by --power; both
    solve the two branches at the same points (one family: the solves of one serve the other)."""
    return Claim(**{"paper": "C", "status": "paper", "equations": lambda: tuple(D.equations().values()),
                    "outputs": ("C.out.reported",), "uses_dps": False, "shares": "C.branches", **kw})


CLAIMS = [
    _claim(
        id="C.sim.semantic",
        title="The semantic solution against trained attention at finite d (Result 4.2)",
        design_only="its Richardson extrapolation uses the design's d and d/2, at the authors' empirics "
                    "alphas 1.005, 1.5025 and 2",
        statement_tex=(r"At $\sigma = 0.5$, $\lambda = 0.01$, $\omega = 0.3$ the semantic ($m = 0$) solution of the "
                       r"self-consistent equations gives the overlap $\theta = \sigma^2 Q^{*\top} Q/d$, the "
                       r"training loss $-\Phi$ and the test error of the empirical risk minimiser reached from the "
                       r"semantic initialisation $Q = Q^{*}$ at finite $d$, at $\alpha = 1.005$, $1.5025$ and $2$."),
        reference="Paper C Result 4.2 (semantic fixed point) vs ERM from the semantic initialisation; "
                  "docs/paper_c.md §8",
        statement="at sigma=0.5, lambda=0.01, omega=0.3 the semantic (m = 0) solution of the self-consistent "
                  "equations gives theta = sigma^2 Q*.Q/d, the training loss -Phi and the test error of the "
                  "empirical risk minimiser reached from Q = Q* at finite d (alpha = 1.005, 1.5025, 2)",
        statement_eq=lambda: sp.Eq(D.theta, D.prior()[D.theta]),
        experiment=semantic_experiment,
        allowance_note=ALLOWANCE_NOTE,
        mutants=("C.prior.theta:no_rho", "C.prior.q:drop_theta", "C.field.teacher:no_vstar",
                 "C.channel.qhat:factor2"),
    ),
    _claim(
        id="C.transition", figures=("C.phase",),
        title="Which initialisation reaches the lower training loss, on each side of the transition",
        design_only="it compares the two branches at the authors' empirics alphas 1.005, 1.5025 and 2, on "
                    "both sides of the crossing of the two training losses",
        statement_tex=(r"Each branch's $\Phi$ is the minimised objective per dimension (with the sign of "
                       r"$-$) reached from its initialisation, and the difference of the training losses $\Phi_{\mathrm{pos}} - \Phi_{\mathrm{sem}}$ of the "
                       r"semantic and the positional solutions is the paired difference of the minimised objectives "
                       r"reached from the semantic and the positional initialisations on the same data: positive "
                       r"(positional lower) at $\alpha = 1.005$, negative (semantic lower) at $\alpha = 1.5025$ and $2$."),
        reference="Paper C Result 4.2 (the first-order transition) vs ERM from both initialisations; "
                  "docs/paper_c.md §8",
        statement="each branch's Phi is minus the objective per dimension reached from its start, and the "
                  "training-loss gap Phi_pos - Phi_sem of the two solutions is the paired difference of the "
                  "objectives reached from the semantic and the positional starts on the same data: positional "
                  "lower at alpha = 1.005, semantic lower at alpha = 1.5025 and 2",
        statement_eq=lambda: sp.Eq(D.PHI, D.outputs()["phi_rest"] - D.alpha * sp.Symbol(r"\mathbb{E}\mathcal{M}")),
        experiment=transition_experiment,
        allowance_note=ALLOWANCE_NOTE + "; the theory error is the sum of both branches' Phi errors",
        # C.channel.qhat:factor2 is not declared: with the positional solve at n + 2 its values pass
        mutants=("C.out.phi_rest:sign_trace", "C.prior.theta:no_rho"),
    ),
]
