"""Claim A.fig1.trained: the theory lines of Figure 1 as trained, against the simulated protocol.

The figure ``A.fig1.trained`` (``numerics/figures/paper_a/fig1.py``) draws the test error after
the whole protocol against alpha1: attention at the q^(2) of steps 1-3 with eta_q beta = 50 and
with the paper's eta = 0.5, pooled and vectorised.  Its lines compose the Theorem-3 limits of
steps 1-3 with the step-4 equations; which curve is which model, at which eta_q and which
steps-1-3 setting, is this module's ``CURVES`` and ``STEPS``, which the figure draws from.  The
claim checks that wiring: at three alpha1 the line of every curve equals the simulated protocol
(``numerics.experiments.paper_a.protocol``, which imports no derivation) at finite d.

Theory: ``numerics.theory.paper_a.protocol.solve_protocol`` (the composition step of
``derivations.paper_a.protocol``, the step-4 equations).  se = sqrt(se_trials^2 + se_QMC^2);
allowance = the significant part of the finite-size drift from a second simulation at d/2 with
the same trials (``protocol._drift_allowance``) plus the change of the theory under refinement
of the zeta rule.  Docs: docs/paper_a_protocol.md.
"""
from __future__ import annotations

import math

from numerics.claims.base import Claim, Comparison, memo

#: why these claims take no parameter point (verify --param, explore)
DESIGN_ONLY = "it checks the curves of Figure 1 at the figure's own setting"
from numerics.claims.paper_a.protocol import _drift_allowance, _stat
from numerics.core.stats import z_critical
from numerics.theory.paper_a import models as M
from numerics.theory.paper_a.models import Model

CLAIM_ID = "A.fig1.trained"
#: the q-step scale eta_q beta (beta = 1) at which the protocol's q^(2) reproduces the paper's
#: picture (docs/conventions.md, "The q-step scale"), and the paper's eta
ETA_Q_FIG, PAPER_ETA = 50.0, 0.5
#: steps 1-3 of every attention curve (on D0)
STEPS = dict(alpha0=2.0, eta_w=0.5, eta_b=0.5, beta=1.0, loss_steps=M.LOGISTIC)
LOSS = M.LOGISTIC
#: the figure's curves: label -> (model, eta_q of steps 1-3)
CURVES = {
    rf"attention, $\eta_q\beta = {ETA_Q_FIG:g}$": (M.ATTENTION, ETA_Q_FIG),
    rf"attention, $\eta_q\beta = {PAPER_ETA:g}$": (M.ATTENTION, PAPER_ETA),
    "pooled": (M.POOLED, PAPER_ETA),
    "vectorised": (M.VECTORISED, PAPER_ETA),
}
#: sizes of the claim (and of the figure's points)
SIZES = {"quick": dict(lam=1e-2, d=200, trials=4, alphas=(0.5, 2.0, 6.0), n_test=50_000, labels="stratified",
                       log2_points=8, n_scrambles=2),
         "full": dict(lam=1e-5, d=1000, trials=8, alphas=(0.5, 1.0, 2.0, 4.0, 8.0), n_test=200_000, labels="iid",
                      log2_points=10, n_scrambles=4)}
MUTANTS = ("A.protocol.composition:readout", "A.protocol.composition:norm_squared", "A.thm3.g:sign",
           "A.thm3.omega:sqrt_L", "A.erm.prox:factor2", "A.erm.test_error:sqrt2")
OUTPUTS = ("A.erm.test_error",)


def _base():
    from numerics.claims.paper_a.after_training import BASE

    return BASE


def attention_points() -> tuple:
    """The step-3 points (alpha0, eta_q) of the attention curves, in the order of ``CURVES``."""
    return tuple((STEPS["alpha0"], eq) for model, eq in CURVES.values() if model.sees_q)


def row_key(model: Model, eta_q: float):
    """The key of a curve in the simulated protocol's output (the names of its model and loss)."""
    if model.sees_q:
        return (M.ATTENTION.name, LOSS.name, attention_points().index((STEPS["alpha0"], eta_q)))
    return (model.name, LOSS.name)


def simulate(settings, alpha1: float, d: int, trials: int, n_test: int, labels: str = "iid") -> dict:
    """The simulated protocol at ``alpha1`` (memoised: never under a mutant)."""
    def run():
        from threadpoolctl import threadpool_limits

        from numerics.experiments.paper_a.protocol import protocol_trials

        B = _base()
        with threadpool_limits(1):
            return protocol_trials(B["L"], B["R"], B["pi"], B["theta"], d, attention_points(), alpha1,
                                   settings.pick(**SIZES)["lam"], (LOSS.name,), trials,
                                   settings.seed_sequence(CLAIM_ID, "sim", f"{alpha1:g}", d),
                                   eta_w=STEPS["eta_w"], eta_b=STEPS["eta_b"], beta=STEPS["beta"],
                                   labels=labels, n_test=n_test)
    return memo(settings, (CLAIM_ID, "sim", alpha1, d, trials, n_test, labels), run)


def theory(settings, model: Model, eta_q: float, alpha1: float):
    """The figure's line of ``model`` at ``alpha1``: a step-4 Solution value (FixedPoint)."""
    from numerics.claims.paper_a.after_training import QUAD
    from numerics.theory.paper_a.protocol import solve_protocol

    cfg, B = settings.pick(**SIZES), _base()
    seed = int(settings.seed_sequence(CLAIM_ID, "qmc").generate_state(1)[0])
    _, _, res = solve_protocol(model=model, alpha1=alpha1, lam=cfg["lam"], loss=LOSS, eta_q=eta_q, L=B["L"],
                               R=B["R"], pi=B["pi"], theta=B["theta"], log2_points=cfg["log2_points"],
                               n_scrambles=cfg["n_scrambles"], seed=seed, **STEPS, **QUAD[model.name])
    return res.value


def experiment(settings, claim):
    cfg = settings.pick(**SIZES)
    d, d2 = cfg["d"], cfg["d"] // 2
    zc = z_critical(len(CURVES) * len(cfg["alphas"]))
    rows, table = [], []
    for al in cfg["alphas"]:
        sims = {n: simulate(settings, al, n, cfg["trials"], cfg["n_test"], cfg["labels"]) for n in (d, d2)}
        for label, (model, eta_q) in CURVES.items():
            fp = theory(settings, model, eta_q, al)
            key = row_key(model, eta_q)
            x, x2 = sims[d][key]["test_error"], sims[d2][key]["test_error"]
            mean, se_sim = _stat(x)
            se_qmc = float(fp.qmc_se.get("test_error", 0.0))
            allowance = _drift_allowance(x, x2, zc) + float(fp.quad_change.get("test_error", 0.0))
            name = f"{label.replace('$', '').replace(chr(92), '')} at alpha1={al:g}"
            at = {"eta_qbeta": eta_q} if model.sees_q else {}  # the curves that write it
            rows.append(Comparison(name, float(fp.metrics["test_error"]), mean, math.hypot(se_sim, se_qmc),
                                   allowance, len(x), at={**at, "alpha1": al}))
            table.append({"row": name, "theory": float(fp.metrics["test_error"]), "mean_d": mean, "se_d": se_sim,
                          "mean_d_half": _stat(x2)[0], "allowance": allowance})
    sizes = {"d": d, "d_half": d2, **{k: v for k, v in cfg.items() if k not in ("d",)},
             "steps 1-3": {**STEPS, "loss_steps": STEPS["loss_steps"].name},
             "curves (model, eta_q)": {label: (model.name, eta_q) for label, (model, eta_q) in CURVES.items()}}
    return rows, sizes, {"table": table}


def _equations():
    from numerics.claims.paper_a.protocol import _equations as protocol_equations

    return protocol_equations()


CLAIMS = [
    Claim(design_only=DESIGN_ONLY, id=CLAIM_ID, figures=("A.fig1.trained",), paper="A", reference="Paper A Fig. 1, after the whole protocol (steps 1-4)",
          statement_eq=(r"E_{\mathrm{test}}(\alpha_1) \text{ of Fig.~1 as trained: } "
                        r"E_{\mathrm{test}}^{\mathrm{step\,4}}\big(\alpha_1;\ \|q^{(2)}\|_\infty, s_q^\infty\big) "
                        r"\text{ at } \eta_q\beta \in \{50, 0.5\},\ \text{pooled, vectorised}"),
          title="Figure 1 after the whole training protocol",
          statement_tex=(r"The theory lines of Figure~1 as trained (attention at the protocol's own $q^{(2)}$ with "
                         r"$\eta_q\beta = 50$ and $0.5$, pooled, vectorised; logistic loss) equal the simulated "
                         r"protocol at three values of $\alpha_1$."),
          statement="the theory lines of Figure 1 as trained (attention at the protocol's own q^(2) with "
                    "eta_q beta = 50 and 0.5, pooled, vectorised; logistic) equal the simulated protocol at "
                    "three alpha1",
          experiment=experiment, equations=_equations, status="derived",
          allowance_note="se = sqrt(se_trials^2 + se_QMC^2); allowance = the significant part of the drift "
                         "max(0, |mean(d) - mean(d/2)| - z se_drift) (same trials; shrinks with d) plus the "
                         "change of the theory under refinement of the zeta rule",
          doc="docs/paper_a_protocol.md", mutants=MUTANTS, outputs=OUTPUTS, uses_dps=False),
]
