"""The claims of the spiked-covariance paper (registered by its ``PAPER``, ``paper.py``).

* ``S.bbp.outlier``  above the threshold (ell > sqrt gamma) the top eigenvalue of the sample
  covariance converges to (1 + ell)(1 + gamma/ell), outside the bulk;
* ``S.bbp.overlap``  its eigenvector keeps a squared overlap (1 - gamma/ell^2)/(1 + gamma/ell)
  with the spike;
* ``S.mp.edge``      below the threshold the top eigenvalue sticks to the bulk edge
  (1 + sqrt gamma)^2.

Every theory value comes from ``derivation`` through ``theory``; the experiment is
``simulator`` (numpy only).  The design runs at gamma < 1 and gamma > 1: at gamma = 1 the
companion convention (gamma <-> n/p) and the exponent of sqrt(gamma) cannot be told apart.

Sizes: d = min(p, n) (p/n = gamma), the side of the matrix each trial diagonalises.
Tolerance of a row: z se + allowance.  se is the standard error of the trial mean at d.  The
allowance is the finite-size bias estimated by the experiment itself (Richardson): the same
statistic is also simulated at d/2, and for a bias c d^-a the bias at d is
|mean(d/2) - mean(d)| / (2^a - 1).  a = 1 for the outlier and its overlap (smooth statistics of
an isolated eigenvalue: Gaussian fluctuations of order d^-1/2 and an O(1/d) bias), a = 2/3 for
the edge (Tracy-Widom scale d^-2/3).  The allowance shrinks with d and never looks at the
theory value it judges.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from threadpoolctl import threadpool_limits

from numerics.claims.base import Claim, Comparison, memo
from numerics.core.params import Param, ParamSpace
from numerics.core.stats import mean_se

from . import derivation as D
from . import theory
from .simulator import spiked_top


def sizes(settings) -> tuple[int, int]:
    """(d, trials) at d = min(p, n); the run at d/2 has 2 x trials."""
    return settings.pick((200, 60), (600, 100))


#: finite-size exponents a of the bias c d^-a (module docstring)
RATE = {"top": 1.0, "overlap": 1.0, "edge": 2.0 / 3.0}
#: the built-in design: gamma on both sides of 1, ell well above / below sqrt(gamma)
SPIKED_POINTS = ({"gamma": 0.5, "ell": 2.0}, {"gamma": 2.0, "ell": 3.0}, {"gamma": 0.25, "ell": 1.5})
BULK_POINTS = ({"gamma": 0.5, "ell": 0.2}, {"gamma": 2.0, "ell": 0.4}, {"gamma": 0.25, "ell": 0.0})


def _label(point: dict) -> str:
    return f"gamma={point['gamma']:g}, ell={point['ell']:g}"


def _runs(settings, point: dict) -> tuple:
    """The simulation at d and at d/2 (memoised, shared by the claims that read it; seeded by
    the path ("S.spiked", point, size))."""
    d, trials = sizes(settings)
    label = _label(point)

    def simulate(size: int, reps: int) -> dict:
        rng = np.random.default_rng(settings.seed_sequence("S.spiked", label, size))
        with threadpool_limits(1):  # small matrices: one BLAS thread is the fastest
            return spiked_top(rng, size, point["gamma"], point["ell"], reps)

    return tuple(memo(settings, ("S.spiked", label, size, reps), lambda size=size, reps=reps: simulate(size, reps))
                 for size, reps in ((d, trials), (d // 2, 2 * trials)))


def _row(settings, claim_id: str, key: str, point: dict, stat: str, rate: str) -> tuple:
    big, half = _runs(settings, point)
    mean, se = mean_se(big[stat])
    mean_half, _ = mean_se(half[stat])
    allowance = abs(float(mean_half) - float(mean)) / (2.0 ** RATE[rate] - 1.0)
    th = float(theory.value(claim_id, key, point, settings.dps))
    return Comparison(_label(point), th, float(mean), float(se), allowance=allowance,
                      n=len(big[stat])), (big["p"], big["n"])


def _experiment(claim_id: str, key: str, stat: str, rate: str, design: tuple):
    def experiment(settings, claim):
        points = (settings.point,) if settings.point else design
        rows, shapes = [], []
        for point in points:
            row, shape = _row(settings, claim_id, key, point, stat, rate)
            rows.append(row)
            shapes.append(shape)
        d, trials = sizes(settings)
        return rows, {"d": d, "trials": trials, "(p, n)": shapes}, {}
    return experiment


# --- parameters: declared once, the threshold from the derivation --------------------------------
def _threshold(values: dict) -> float:
    return float(theory.value("S.bbp.outlier", "threshold", values, 20))


def _above(values: dict) -> str | None:
    t = _threshold(values)
    if not values["ell"] > t:
        return (f"parameter ell: must be a real number in ({t:.6g}, inf) (above the threshold "
                f"ell_c at gamma={values['gamma']:g}), got {values['ell']!r}")
    return None


def _below(values: dict) -> str | None:
    t = _threshold(values)
    if not values["ell"] < t:
        return (f"parameter ell: must be a real number in [0, {t:.6g}) (below the threshold "
                f"ell_c at gamma={values['gamma']:g}), got {values['ell']!r}")
    return None


#: the domain the experiment runs at: p/n in [0.05, 20] (the matrices are d x d/gamma or
#: d gamma x d, at most 20 d on a side) and a spike of at most 1000 (the eigenvalues stay
#: within float64's comfortable range); ``explore`` draws from exactly this
GAMMA = Param("gamma", float, 0.05, 20.0, doc="aspect ratio p/n, in [0.05, 20]", default=0.5)
SPIKED = ParamSpace((GAMMA, Param("ell", float, 0.0, 1e3, lo_open=True, doc="spike strength, above the threshold",
                                  default=2.0)), (_above,), source="the first point of the design")
BULK = ParamSpace((GAMMA, Param("ell", float, 0.0, 1e3, doc="spike strength, below the threshold", default=0.2)),
                  (_below,), source="the first point of the design")
EDGE_SPACE = ParamSpace((GAMMA,), source="the first point of the design")

NOTE = ("se over trials at d = min(p, n); finite-size allowance |mean(d/2) - mean(d)| / (2^a - 1), "
        "the bias c d^-a estimated by the experiment at d and d/2 (a = {a})")


CLAIMS = [
    Claim(
        id="S.bbp.outlier", paper="S", reference=D.REFERENCE, status="paper",
        title="The top sample eigenvalue above the BBP threshold",
        statement_tex=(r"Spiked covariance $I + \ell vv^\top$, $p/n \to \gamma$: for $\ell > \sqrt{\gamma}$ the "
                       r"top sample eigenvalue tends to $(1+\ell)(1+\gamma/\ell)$, outside the bulk."),
        statement="spiked covariance I + ell v v^T, p/n -> gamma: for ell > sqrt(gamma) the top sample "
                  "eigenvalue -> (1 + ell)(1 + gamma/ell), outside the bulk",
        statement_eq=lambda: sp.Eq(D.LAMBDA_1, D.spike()["outlier"]),
        experiment=_experiment("S.bbp.outlier", "top_eigenvalue", "top", "top", SPIKED_POINTS),
        equations=lambda: D.equations("S.bbp.threshold", "S.bbp.outlier", "S.bbp.edge_at_threshold"),
        evaluate=theory.evaluator("S.bbp.outlier"), param_space=SPIKED,
        point_space=SPIKED, allowance_note=NOTE.format(a="1"),
        mutants=("S.mp.cauchy:companion", "S.mp.cauchy:quadratic-x2", "S.bbp.secular:first-order"),
        outputs=("S.bbp.outlier",), figures=("S.bbp.curve",),
    ),
    Claim(
        id="S.bbp.overlap", paper="S", reference=D.REFERENCE, status="paper",
        title="Overlap of the top sample eigenvector with the spike",
        statement_tex=(r"Spiked covariance: for $\ell > \sqrt{\gamma}$ the top sample eigenvector has squared "
                       r"overlap $(1-\gamma/\ell^2)/(1+\gamma/\ell)$ with the spike."),
        statement="spiked covariance: for ell > sqrt(gamma) the top sample eigenvector has squared overlap "
                  "(1 - gamma/ell^2)/(1 + gamma/ell) with the spike",
        statement_eq=lambda: sp.Eq(D.OVERLAP, D.spike()["overlap"]),
        experiment=_experiment("S.bbp.overlap", "overlap", "overlap", "overlap", SPIKED_POINTS),
        equations=lambda: D.equations("S.bbp.threshold", "S.bbp.overlap"),
        evaluate=theory.evaluator("S.bbp.overlap"), param_space=SPIKED,
        point_space=SPIKED, allowance_note=NOTE.format(a="1"),
        mutants=("S.mp.cauchy:companion", "S.bbp.resolvent_sq:sign", "S.bbp.overlap_den:unwhitened",
                 "S.bbp.overlap_num:no-prefactor", "S.bbp.secular:first-order"),
        outputs=("S.bbp.overlap",),
    ),
    Claim(
        id="S.mp.edge", paper="S", reference=D.REFERENCE, status="paper",
        title="Below the threshold the top eigenvalue stays at the Marchenko-Pastur edge",
        statement_tex=(r"Spiked covariance: for $\ell < \sqrt{\gamma}$ the top sample eigenvalue tends to the "
                       r"Marchenko--Pastur edge $(1+\sqrt{\gamma})^2$."),
        statement="spiked covariance: for ell < sqrt(gamma) the top sample eigenvalue -> the Marchenko-Pastur "
                  "edge (1 + sqrt(gamma))^2",
        statement_eq=lambda: sp.Eq(D.LAMBDA_1, D.bulk()["edge"]),
        experiment=_experiment("S.mp.edge", "edge", "top", "edge", BULK_POINTS),
        equations=lambda: D.equations("S.mp.edge", "S.bbp.threshold", "S.bbp.edge_at_threshold"),
        evaluate=theory.evaluator("S.mp.edge"), param_space=EDGE_SPACE,
        point_space=BULK, allowance_note=NOTE.format(a="2/3"),
        mutants=("S.mp.cauchy:companion", "S.mp.edge:exponent", "S.mp.edge:lower-root",
                 "S.mp.cauchy:quadratic-x2"),
        outputs=("S.mp.edge",), figures=("S.bbp.curve",),
    ),
]


#: the aspect ratio gamma = p/n of the figure (it has a design point on each side of the threshold)
CURVE_GAMMA = 0.5


def curve(path, settings, progress):
    """The top sample eigenvalue against the spike ell at gamma = 1/2: its limit (the bulk edge
    below the threshold sqrt(gamma), the outlier above it) and the claims' own finite-d runs at
    the design points of that gamma (markers, +- 2 se; the memo: the runs verify made)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    threshold = float(theory.value("S.bbp.outlier", "threshold", {"gamma": CURVE_GAMMA, "ell": 1.0}))
    edge = float(theory.value("S.mp.edge", "edge", {"gamma": CURVE_GAMMA, "ell": 0.0}))
    ells = np.linspace(0.02, 3.0, 80)
    limit = [edge if ell <= threshold else
             float(theory.value("S.bbp.outlier", "top_eigenvalue", {"gamma": CURVE_GAMMA, "ell": ell})) for ell in ells]
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    ax.plot(ells, limit, color="C0", label="limit")
    ax.axvline(threshold, color="0.6", ls=":", label=r"threshold $\sqrt{\gamma}$")
    for k, point in enumerate(p for p in SPIKED_POINTS + BULK_POINTS if p["gamma"] == CURVE_GAMMA):
        mean, se = mean_se(_runs(settings, point)[0]["top"])
        ax.errorbar(point["ell"], float(mean), yerr=2 * float(se), fmt="o", color="C1",
                    label="simulation, ± 2 se" if k == 0 else None)
    d, trials = sizes(settings)
    ax.set_xlabel(r"spike $\ell$")
    ax.set_ylabel("top eigenvalue")
    ax.set_title(rf"$\gamma = {CURVE_GAMMA:g}$, d = {d}, {trials} trials per point", fontsize=9)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


FIGURES = {"S.bbp.curve": curve}
