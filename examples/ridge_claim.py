"""A claim from outside the package: the asymptotic test error of ridge regression.

Run it with ``attncheck verify --claims examples/ridge_claim.py X.ridge`` (and ``--power`` to
see its mutants killed).  docs/adding-a-claim.md walks through this file.

Model.  x ~ N(0, I_d), y = x.beta + eps with ||beta||^2 = r2 and eps ~ N(0, sigma2); n samples,
gamma = d/n held fixed as d -> infinity; ridge estimator
beta_hat = (X^T X / n + lam I)^{-1} X^T y / n.  The test error E(y - x.beta_hat)^2 is
sigma2 + ||beta_hat - beta||^2 (isotropic x), and it has a deterministic limit written with
the Stieltjes transform m(-lam) of the Marchenko-Pastur law of X^T X / n.

Derivation (each step a named expression, so that a structural mutant of any one step
propagates to the claim).
1. m = m(-lam) is the positive root of   gamma lam m^2 + (1 - gamma + lam) m - 1 = 0.
2. m2 = int dmu(s) / (s + lam)^2 = -d m / d lam.
3. bias = lam^2 r2 m2            (beta_hat - beta = -lam (S + lam)^{-1} beta + noise part)
4. variance = sigma2 gamma (m - lam m2)    (= sigma2 gamma int s / (s + lam)^2 dmu)
5. test error = sigma2 + bias + variance.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from derivations.core import Equation, derivation, flip_sign, mutant, step, times
from numerics.claims.base import Claim, Comparison, memo
from numerics.core.backends import mp_eval
from numerics.core.params import Param, ParamSpace
from numerics.core.stats import mean_se

gamma, lam, r2, sigma2 = sp.symbols("gamma lambda r2 sigma2", positive=True)
m = sp.Symbol("m", positive=True)
PARAMS = (gamma, lam, r2, sigma2)
REFERENCE = "Marchenko-Pastur ridge risk (e.g. Hastie, Montanari, Rosset, Tibshirani 2022, Thm 5)"


@derivation
def ridge_risk() -> dict:
    """The steps 1-5 above."""
    stieltjes = step("X.ridge.stieltjes", gamma * lam * m**2 + (1 - gamma + lam) * m - 1)
    roots = sp.solve(stieltjes, m)
    # the positive root: at gamma = lam = 1 the equation is m^2 + m - 1 = 0, root (sqrt 5 - 1)/2
    m_of = max(roots, key=lambda e: float(e.subs({gamma: 1, lam: 1})))
    m2 = step("X.ridge.m2", -sp.diff(m_of, lam))
    bias = step("X.ridge.bias", lam**2 * r2 * m2)
    variance = step("X.ridge.variance", sigma2 * gamma * (m_of - lam * m2))
    risk = step("X.ridge.risk", sigma2 + bias + variance)
    return {"m": m_of, "m2": m2, "bias": bias, "variance": variance, "risk": risk}


# realistic errors in the derivation, each must fail the claim
mutant("X.ridge.stieltjes:sign", "X.ridge.stieltjes", "(1 + gamma + lam) m instead of (1 - gamma + lam) m",
       lambda e: e + 2 * gamma * m)
mutant("X.ridge.variance:no-gamma", "X.ridge.variance", "variance without the factor gamma = d/n",
       lambda e: e / gamma)
mutant("X.ridge.bias:lam", "X.ridge.bias", "bias lam r2 m2 instead of lam^2 r2 m2", lambda e: e / lam)
mutant("X.ridge.m2:sign", "X.ridge.m2", "m2 = +dm/dlam (sign of the derivative)", flip_sign)
mutant("X.ridge.variance:x2", "X.ridge.variance", "variance counted twice", times(2))


def equations():
    r = ridge_risk()
    return (Equation("X.ridge.risk", sp.Symbol("E_{test}"), r["risk"], REFERENCE, PARAMS,
                     "ridge test error, proportional limit d/n = gamma", status="paper"),)


SPACE = ParamSpace((
    Param("gamma", float, 0.0, None, lo_open=True, doc="d/n, > 0", default=0.5),
    Param("lam", float, 0.0, None, lo_open=True, doc="ridge penalty, > 0", default=0.5),
    Param("r2", float, 0.0, None, doc="signal energy ||beta||^2 >= 0", default=1.0),
    Param("sigma2", float, 0.0, None, doc="noise variance >= 0", default=0.25),
))

POINTS = ({"gamma": 0.5, "lam": 0.1}, {"gamma": 2.0, "lam": 0.5}, {"gamma": 1.0, "lam": 1.0})
#: the points the experiment runs at (``verify --param``; ``explore`` draws from it): n = d/gamma
#: samples at most 10 d, and the signal energy and noise of the simulation fixed
POINT_SPACE = ParamSpace((
    Param("gamma", float, 0.1, 4.0, doc="d/n, in [0.1, 4]", default=0.5),
    Param("lam", float, 0.1, 2.0, doc="ridge penalty, in [0.1, 2]", default=0.1),
), fixed=(("r2, sigma2", "the simulation's ||beta||^2 = 1 and noise variance 0.25"),))
R2, SIGMA2 = 1.0, 0.25


def theory(point: dict, dps: int = 30) -> float:
    values = {gamma: point["gamma"], lam: point["lam"], r2: point.get("r2", R2),
              sigma2: point.get("sigma2", SIGMA2)}
    return float(mp_eval(ridge_risk()["risk"], values, dps))


def simulate(rng: np.random.Generator, d: int, point: dict, trials: int) -> np.ndarray:
    """Finite-d ridge fits: the exact test error sigma2 + ||beta_hat - beta||^2 of each trial.
    Imports nothing from the derivation."""
    n = int(round(d / point["gamma"]))
    out = np.empty(trials)
    for t in range(trials):
        beta = rng.standard_normal(d)
        beta *= np.sqrt(R2) / np.linalg.norm(beta)
        X = rng.standard_normal((n, d))
        y = X @ beta + np.sqrt(SIGMA2) * rng.standard_normal(n)
        beta_hat = np.linalg.solve(X.T @ X / n + point["lam"] * np.eye(d), X.T @ y / n)
        out[t] = SIGMA2 + np.sum((beta_hat - beta) ** 2)
    return out


def experiment(settings, claim):
    d, trials = settings.pick((400, 40), (1000, 100))
    rows = []
    points = {f"gamma={settings.point['gamma']!r}, lam={settings.point['lam']!r}": settings.point} \
        if settings.point else dict(enumerate(POINTS))  # a user's point, or the design
    for key, point in points.items():
        errs = memo(settings, (claim.id, key, d, trials),
                    lambda: simulate(claim.rng(settings, "point", key), d, point, trials))
        mean, se = mean_se(errs)
        # finite-size bias of the ridge risk is O(1/d) relative; allowance 2/d of the mean
        # (the measured mean, not the theory under test)
        rows.append(Comparison(f"gamma={point['gamma']}, lam={point['lam']}", theory(point, settings.dps),
                               float(mean), float(se), allowance=2.0 * abs(float(mean)) / d, n=trials))
    return rows, {"d": d, "trials": trials}, {}


def evaluate(params: dict, dps: int) -> dict:
    values = {gamma: params["gamma"], lam: params["lam"], r2: params["r2"], sigma2: params["sigma2"]}
    r = ridge_risk()
    return {k: mp_eval(r[k], values, dps) for k in ("risk", "bias", "variance")}

def statement_eq():
    """The statement as equations in the derivation's symbols (printed first by `attncheck latex`)."""
    m_prime = sp.Symbol("m'", positive=True)
    return (sp.Eq(sp.Symbol("E_{test}"), sigma2 + lam**2 * r2 * m_prime + sigma2 * gamma * (m - lam * m_prime)),
            sp.Eq(gamma * lam * m**2 + (1 - gamma + lam) * m - 1, 0))


CLAIMS = [
    Claim(
        id="X.ridge.test_error", paper="X", reference=REFERENCE, status="paper",
        statement="ridge regression, isotropic Gaussian design: test error -> sigma2 + lam^2 r2 m'(-lam) "
                  "+ sigma2 gamma (m - lam m') with m the Marchenko-Pastur Stieltjes transform",
        statement_eq=statement_eq,
        experiment=experiment, equations=equations, evaluate=evaluate, param_space=SPACE,
        point_space=POINT_SPACE,
        allowance_note="se over trials; finite-size allowance 2/d of the simulated mean",
        mutants=("X.ridge.stieltjes:sign", "X.ridge.variance:no-gamma", "X.ridge.bias:lam",
                 "X.ridge.m2:sign", "X.ridge.variance:x2"),
        outputs=("X.ridge.risk",),
        figures=("X.ridge.curve",),  # registered below, as the built-in papers register theirs
    ),
]


def figure(path, settings, progress):
    """The test error against gamma at each lambda of the design: the limit (lines) and the
    claim's own finite-d runs at the design points (markers, ± 2 se)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    claim = CLAIMS[0]
    rows, sizes, _ = experiment(settings, claim)  # the memo: the runs verify made in this process
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for k, lam_ in enumerate(sorted({p["lam"] for p in POINTS})):
        gs = np.linspace(0.2, 3.0, 60)
        ax.plot(gs, [theory({"gamma": g, "lam": lam_}) for g in gs], color=f"C{k}", label=rf"limit, $\lambda = {lam_}$")
        for p, r in zip(POINTS, rows):
            if p["lam"] == lam_:
                ax.errorbar(p["gamma"], r.mean, yerr=2 * r.se, fmt="o", color=f"C{k}")
    ax.set_xlabel(r"$\gamma = d/n$")
    ax.set_ylabel("test error")
    ax.set_title(f"ridge regression, d = {sizes['d']}, {sizes['trials']} trials per point", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


FIGURES = {"X.ridge.curve": figure}
