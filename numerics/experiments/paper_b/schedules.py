"""Rate experiments under explicit schedules (K_M, M): the oracle-A slope for any link phi*.

Two uses (docs/paper_b.md, "B.rate.holder_edge" and "B.rate.schedule_not_exponent"):

* a link at the edge of the Hölder class (the claim passes a compiled lacunary phi*): the bias
  is active at every K, so the slope under K_M ∝ M^{1/(2β+1)} is the balance's, and other
  schedules are slower;
* a spline link inside the estimator's space (the knots of phi* on the estimator's grid): the
  bias is zero, and the slope follows the schedule's variance term.

Everything reuses the oracle machinery of ``numerics.experiments.paper_b.rates`` (noise integrated out given the
design, pre-asymptotic prediction from the estimator's Gram matrices, bootstrap over seeds);
this module only fixes explicit (K, M) grids and takes the link as an argument.  It never
imports ``derivations``: the claim compiles phi* and passes it in.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numerics.core.params import ParameterError
from numerics.core.seeding import child, children
from numerics.experiments.paper_b.pairwise_erm import PairwiseERM
from numerics.experiments.paper_b.rates import (
    SEEDS, Prediction, RateResult, SlopeFit, first_order_prediction, loglog_slope, oracle_slope,
    run_rate_oracle_rb,
)
from numerics.experiments.paper_b.interacting_particles import (
    InteractingParticleModel, UniformCube, interaction_matrix, pair_values,
)


@dataclass(frozen=True)
class ScheduleSetup:
    """An oracle rate experiment on an explicit grid: K_values[k] pieces at M_values[k]."""

    P: int  # degree of the estimator's pieces
    K_values: tuple
    M_values: tuple
    d: int = 1
    r: int = 1
    N: int = 4
    sigma: float = 0.5
    seeds: int = 20
    n_test: int = 20_000
    g_pairs: int = 400_000  # token pairs for the rho-Gram of the basis (two halves)
    label: str = ""

    @property
    def Ms(self) -> list[int]:
        return [int(m) for m in self.M_values]

    def pieces(self) -> list[int]:
        return [int(k) for k in self.K_values]

    @property
    def n_values(self) -> list[int]:
        return [k + self.P for k in self.pieces()]

    def check(self):
        if len(self.K_values) != len(self.M_values) or len(self.M_values) < 2:
            raise ParameterError("parameters K_values, M_values: need two or more (K, M) pairs of equal length")
        if min(self.K_values) < 1 or min(self.M_values) < 2:
            raise ParameterError("parameters K_values, M_values: need K >= 1 and M >= 2")
        SEEDS.parse(self.seeds)


def link_model(phi, d: int, N: int, sigma: float, a_ss: np.random.SeedSequence) -> InteractingParticleModel:
    """i.i.d. Uniform[-1, 1]^d tokens, the rank-1 coordinate A* (|x^T A* y| <= 1, the law of U
    the same for every d), the link ``phi`` (a numpy callable of u)."""
    A = interaction_matrix(np.random.default_rng(a_ss), d, 1, "coordinate")
    return InteractingParticleModel(UniformCube(), A, phi, sigma, N)


@dataclass
class ScheduleRun:
    setup: ScheduleSetup
    result: RateResult
    fit: SlopeFit  # slope of the median error, bootstrap over seeds (+ the G-error)
    prediction: Prediction  # pre-asymptotic curve of 4 independent noise-free populations

    def ideal_slope(self) -> float:
        """Slope of bias(K_M) + sigma^2 kappa K_M / (M N), kappa = V1 / K at the largest K, per
        population (mean over populations): the predicted curve with the variance replaced by
        its asymptotic form kappa K / M and the measured bias kept.  ``prediction.slope`` minus
        this is the pre-asymptotic correction of the variance term alone (V1 not linear in K,
        the second-order term V2 / M)."""
        K = np.asarray(self.setup.pieces(), dtype=float)
        Ms = np.asarray(self.setup.Ms, dtype=float)
        out = []
        for b, V1 in zip(self.prediction.bias_halves, self.prediction.V1_halves):
            kappa = V1[-1] / K[-1]
            curve = np.asarray(b) + self.setup.sigma**2 * kappa * K / (Ms * self.setup.N)
            out.append(loglog_slope(Ms, curve))
        return float(np.mean(out))

    def leading_slope(self) -> float:
        """Slope of n_M / M on the grid (n = K + P): the variance term's leading order."""
        return loglog_slope(self.setup.Ms, np.asarray(self.setup.n_values, dtype=float) / np.asarray(self.setup.Ms))

    def summary(self) -> dict:
        res, pred = self.result, self.prediction
        med = res.medians()
        return {
            "schedule": self.setup.label, "K": self.setup.pieces(), "M": self.setup.Ms,
            "median_error": [float(v) for v in med],
            "bias_share": [float(bv / m) for bv, m in zip(res.bias, med)],
            "slope": self.fit.slope, "slope_se": self.fit.se, "slope_ci95": list(self.fit.ci),
            "prediction": {"slope_second_order": pred.slope, "slope_first_order": pred.slope_first_order,
                           "se": pred.se, "bias_population": list(pred.bias), "V1_V2": pred.V},
            "seeds": self.setup.seeds, "sigma": self.setup.sigma, "N": self.setup.N, "d": self.setup.d,
            "seconds": round(res.fit_seconds, 2),
        }


def run_schedule(setup: ScheduleSetup, seed_seq: np.random.SeedSequence, model: InteractingParticleModel,
                 M_pop: int, halves: int = 4) -> ScheduleRun:
    """The oracle experiment (``run_rate_oracle_rb``) and its pre-asymptotic prediction
    (``first_order_prediction``, ``halves`` noise-free populations of ``M_pop`` samples) on
    the setup's grid, for ``model``'s link.  The setup's d, N and sigma are the model's (the
    summary reports them)."""
    if (setup.d, setup.N, setup.sigma) != (model.d, model.N, model.sigma):
        raise ValueError(f"run_schedule: the setup's (d, N, sigma) = {(setup.d, setup.N, setup.sigma)} "
                         f"are not the model's {(model.d, model.N, model.sigma)}")
    res = run_rate_oracle_rb(setup, seed_seq, model=model)
    pred = first_order_prediction(setup, seed_seq, M_pop=M_pop, halves=halves, model=model)
    fit = oracle_slope(res, np.random.default_rng(child(seed_seq, "bootstrap")))
    return ScheduleRun(setup, res, fit, pred)


@dataclass(frozen=True)
class BiasSlope:
    """Slope of log bias(K) on log K over independent noise-free populations."""

    K: list
    bias: list  # (populations, len(K))
    slope: float  # mean over populations of the least-squares slope
    se: float  # se over populations
    drift: float  # |first local slope - last local slope| of the mean curve (0 for two K)

    def as_dict(self) -> dict:
        return {"K": self.K, "bias_mean": [float(v) for v in np.mean(self.bias, axis=0)],
                "slope": self.slope, "se": self.se, "drift_first_vs_last_local_slope": self.drift}


def bias_slope(model: InteractingParticleModel, s: int, K_values, M_pop: int, seed_seq: np.random.SeedSequence,
               populations: int = 4, n_test: int = 40_000) -> BiasSlope:
    """The approximation part alone: the noise-free oracle least-squares fit of ``model``'s link
    with degree-s pieces at each K, on ``populations`` independent populations of ``M_pop``
    samples, each with its own ``n_test`` test pairs (a test set shared by the populations
    would hide its Monte Carlo error from the se).  ``drift`` is the change of the local slope
    along the K grid: a theory-free estimate of how far the curve is from a power law."""
    quiet = InteractingParticleModel(model.law, model.A, model.phi, 0.0, model.N)
    K = [int(k) for k in K_values]
    out = np.empty((populations, len(K)))
    for p, h_ss in enumerate(children(seed_seq, populations)):
        X, F = quiet.simulate(np.random.default_rng(child(h_ss, 0)), M_pop)
        u = model.A.form(*model.sample_pairs(np.random.default_rng(child(h_ss, 1)), n_test))
        g = model.phi(u)
        Up = pair_values(X, model.A)
        for k, Kk in enumerate(K):
            est = PairwiseERM(s, Kk)
            coef = est.solve_coef(est.basis.averaged_design(Up), F.ravel())
            out[p, k] = float(np.mean((est.basis.design(u) @ coef - g) ** 2))
    per = np.array([loglog_slope(K, b) for b in out])
    mean = np.mean(out, axis=0)
    local = np.diff(np.log(mean)) / np.diff(np.log(np.asarray(K, dtype=float)))
    return BiasSlope(K, out.tolist(), float(per.mean()), float(per.std(ddof=1) / np.sqrt(populations)),
                     float(abs(local[0] - local[-1])))
