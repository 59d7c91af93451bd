"""Claims A.thm3.* (Theorem 3: alignment after step 3) and A.cor1.alignment_rate (Cor. 1).

Theory: ``numerics.theory.paper_a.alignment`` (the compiled steps of derivations/paper_a/
alignment.py and alignment_rate.py).

A.thm3 experiment: ``numerics.experiments.paper_a.sparse_token_training`` (steps 1-3 at finite
d, which never sees the formulas), averaged over independent trials, at three parameter points:
a balanced ten-token point where the rows resolve a 5 % error, a four-token point at small
alpha0 where the self-interaction shift of the step-2 prediction changes <q^(2), xi>, |q^(2)|
and cos(q^(2), xi) by 5-70 % (at eta_q beta = 1/8 and beta != 1), and the same four tokens at
eta_w = 1/4 (eta_w^2 != eta_w), which judges only the norms and cosines.  One simulation serves
the four claims (``memo``); each claim judges its own rows.  Finite-size allowance: the limits
hold as d -> inf; at finite d the mean is biased by O(1/d).  Every cell is also simulated at
d/2 with the same number of trials; mean(d/2) - mean(d) estimates the c/d bias at d, and the
allowance of a row is the statistically significant part of that drift,
max(0, |drift| - z se_drift) (ALLOWANCE_NOTE), computed from the two simulations alone.

A.cor1 experiment: ``numerics.experiments.paper_a.two_step_population``, the d -> inf limit of the
protocol computed sample by sample by Monte Carlo from the model's ingredients (no derivation),
at a doubling grid of large alpha0, extrapolated to alpha0 = inf by Richardson elimination of
alpha0 (1 - |cos|).
"""
from __future__ import annotations

import math

import numpy as np

from derivations.core import derivation
from derivations.paper_a import alignment as A
from derivations.paper_a import alignment_rate
from numerics.claims.base import Claim, Comparison, memo, z_critical
from numerics.core.tasks import map_tasks
from numerics.experiments.paper_a.sparse_token import SparseTokenModel
from numerics.experiments.paper_a.sparse_token_training import run_two_steps
from numerics.experiments.paper_a.two_step_population import alignment_curves
from numerics.theory.paper_a.alignment import (ALIGNMENT_SPACE, LOSSES, RATE_EVALUATOR, RATE_SPACE,
                                               alignment_limits, limits_evaluator, rate_constants)
from numerics.theory.paper_a.models import Loss

PAPER = dict(L=10, R=3, pi=0.2, theta=6.0, eta_w=0.5, eta_b=0.5, eta_q=0.5, beta=1.0)
# quick: nearly balanced classes, theta = 4 and label-stratified D0 -- with a rare class
# (pi = 0.2) and i.i.d. labels the fluctuation of the class count makes <q, xi> and |q| too
# noisy to reject a 5% error in a few seconds (per-trial sd ~9% at n0 = 800 vs ~2%
# stratified); pi != 1/2 so that E[g] and hence b^(1) are not zero
QUICK = dict(L=10, R=3, pi=0.4, theta=4.0, eta_w=0.5, eta_b=0.5, eta_q=0.5, beta=1.0)
# four tokens, eta_w = eta_b = 1, alpha0 = 1, 2: the self-interaction shift eta_w g(y)/(alpha0 L)
# is a large part of the step-2 prediction (square loss: dropping it moves cos(q^(2), xi) by +22 %
# at alpha0 = 1, <q^(2), xi> by +73 %); n0 <= 2 d and L = 4, so 40 trials cost a few seconds.
# eta_q beta = 1/8, not 1: q^(2) is proportional to eta_q beta, so the simulation is the same up
# to that scale, and a derivation that confuses beta with beta^2, or eta_q with 1/eta_q, shows
SHIFT = dict(L=4, R=1, pi=0.5, theta=3.0, eta_w=1.0, eta_b=1.0, eta_q=0.5, beta=0.25)
# the same four tokens at eta_w = 1/4, alpha0 = 1: where eta_w^2 differs from eta_w and 1/eta_w
# (1 at the point above); only the rows of these quantities are judged there
SMALL_ETA_W = dict(SHIFT, eta_w=0.25)
SMALL_ETA_W_QUANTITIES = ("w1_cosine", "w1_norm", "q2_norm", "q2_cosine")
DESIGN = {
    "quick": (dict(name="L=10", named=("L",), params=QUICK, d=400, alphas=(3.0, 6.0), trials=10,
                   labels="stratified"),
              dict(name="L=4", named=("L",), params=SHIFT, d=400, alphas=(1.0, 2.0), trials=40, labels="stratified"),
              dict(name="L=4, eta_w=0.25", named=("L", "eta_w"), params=SMALL_ETA_W, d=400, alphas=(1.0,),
                   trials=40, labels="stratified", quantities=SMALL_ETA_W_QUANTITIES)),
    "full": (dict(name="paper", named=(), params=PAPER, d=1000, alphas=(0.5, 1.0, 2.0, 4.0, 8.0), trials=10,
                  labels="iid"),
             dict(name="L=4", named=("L",), params=SHIFT, d=1000, alphas=(1.0, 2.0), trials=40, labels="iid"),
             dict(name="L=4, eta_w=0.25", named=("L", "eta_w"), params=SMALL_ETA_W, d=1000, alphas=(1.0,),
                  trials=40, labels="iid", quantities=SMALL_ETA_W_QUANTITIES)),
}
#: each point's ``name`` writes the parameters ``named`` (name=value): the rows' point


def design(settings) -> tuple:
    """The points the claims run at: the built-in design, or the user's point
    (``Settings.params``, validated by ALIGNMENT_SPACE) at the design's d, trials and labels."""
    point = settings.point
    if not point:
        return settings.pick(**DESIGN)
    base = settings.pick(**DESIGN)[0]
    params = {k: v for k, v in point.items() if k != "alpha0"}
    return (dict(base, name="point", named=(), params=params, alphas=(point["alpha0"],)),)


SIM_KEY = "A.thm3"  # seed path shared by the four claims (one experiment)

ALLOWANCE_NOTE = (
    "significant part of the measured finite-size drift, max(0, |mean(d) - mean(d/2)| - z se_drift) "
    "(same alpha0, same number of trials, z the row's Bonferroni quantile): an estimate of the "
    "O(1/d) bias at d (if bias = c/d then mean(d/2) - mean(d) = c/d), shrinking as 1/d; zero when "
    "the drift is within noise"
)


def _simulate(settings) -> dict:
    out = {}
    for ip, des in enumerate(design(settings)):
        p = des["params"]
        for d in (des["d"], des["d"] // 2):
            model = SparseTokenModel(p["L"], p["R"], p["pi"], p["theta"], d)
            for ia, a0 in enumerate(des["alphas"]):
                n0 = int(round(a0 * d))
                tasks = [(model, n0, p, des["labels"], settings.seed_sequence(SIM_KEY, "sim", ip, d, ia, t))
                         for t in range(des["trials"])]
                runs = map_tasks(_trial, tasks, f"steps 1-3, d={d}, alpha0={a0:g}")
                out[(ip, d, a0)] = {
                    loss.name: {k: np.array([r[loss.name][k] for r in runs]) for k in runs[0][loss.name]}
                    for loss in LOSSES
                }
    return out


def _trial(task) -> dict:
    """One trial of steps 1-3 (its seed is its path: the same for any number of workers)."""
    model, n0, p, labels, seed = task
    r = run_two_steps(model, n0, LOSSES, eta_w=p["eta_w"], eta_b=p["eta_b"], eta_q=p["eta_q"],
                      beta=p["beta"], seed=seed, labels=labels)
    return {loss.name: dict(r[loss].summary) for loss in LOSSES}


def simulate(settings) -> dict:
    """{(point index, d, alpha0): {loss name: {quantity: np.array over trials}}} for d and d/2 of
    every point of the design (memoised: shared by the four claims, never recomputed under a
    mutant)."""
    return memo(settings, (SIM_KEY, "sim"), lambda: _simulate(settings))


@derivation(maxsize=512)
def _limits_cached(loss: Loss, items: tuple, dps: int) -> dict:
    return alignment_limits(loss, **dict(items), dps=dps)


def limits(loss: Loss, params: dict, dps: int) -> dict:
    """Theorem-3 limits of the active derivation (cached per active mutant set by
    ``derivations.core.derivation``)."""
    return _limits_cached(loss, tuple(sorted(params.items())), dps)


def _rows(settings, pick):
    """Comparison rows for the (loss, alpha0, quantity) chosen by ``pick`` at every point."""
    sims = simulate(settings)
    picked = [(ip, des, cell) for ip, des in enumerate(design(settings)) for cell in pick(des)]
    zc = z_critical(len(picked))
    rows, table = [], []
    for ip, des, (loss, a0, qty) in picked:
        d, d2 = des["d"], des["d"] // 2
        x = sims[(ip, d, a0)][loss.name][qty]
        x2 = sims[(ip, d2, a0)][loss.name][qty]
        t = float(limits(loss, dict(des["params"], alpha0=a0), settings.dps)[qty])
        mean, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))
        se2 = float(x2.std(ddof=1) / math.sqrt(len(x2)))
        drift = abs(mean - float(x2.mean()))
        allowance = max(0.0, drift - zc * math.hypot(se, se2))  # the significant part of the drift
        at = {**{k: des["params"][k] for k in des["named"]}, "a0": a0}
        rows.append(Comparison(f"{qty}[{loss}, {des['name']}, a0={a0:g}]", t, mean, se, allowance, len(x), at=at))
        table.append({"point": des["name"], "loss": loss.name, "alpha0": a0, "quantity": qty, "theory": t,
                      "mean_d": mean, "se_d": se, "mean_d_half": float(x2.mean()), "se_d_half": se2,
                      "drift": drift, "allowance": allowance})
    sizes = {"points": [{"name": des["name"], "d": des["d"], "d_half": des["d"] // 2, "trials": des["trials"],
                         "alphas": list(des["alphas"]), "n0": [int(round(a * des["d"])) for a in des["alphas"]]}
                        for des in design(settings)]}
    details = {"params": {des["name"]: des["params"] for des in design(settings)},
               "quantities": {des["name"]: list(des["quantities"]) for des in design(settings) if "quantities" in des},
               "labels": {des["name"]: des["labels"] for des in design(settings)},
               "seed_path": [settings.seed, SIM_KEY, "sim", "point", "d", "alpha_index", "trial"],
               "table": table, "losses": [loss.name for loss in LOSSES]}
    return rows, sizes, details


def _experiment(pick):
    def experiment(settings, claim):
        return _rows(settings, pick)
    return experiment


def _judged(des, cells) -> list:
    """The cells of a design point whose quantity it judges (a point with ``quantities`` judges
    only those)."""
    keep = des.get("quantities")
    return [c for c in cells if keep is None or c[2] in keep]


def _pick(qty, losses=LOSSES):
    return lambda des: _judged(des, [(loss, a0, qty) for loss in losses for a0 in des["alphas"]])


def _pick_w1(des):
    # the simulated cos(w1, xi) is the same for both losses (w1 scales with g = y/2 or y), |w1|
    # differs by 2; each loss's theory is its own entry of the derivation, so both are judged
    return _judged(des, [(loss, a0, "w1_cosine") for loss in LOSSES for a0 in des["alphas"]]
                   + [(loss, a0, "w1_norm") for loss in LOSSES for a0 in des["alphas"]])


def _evaluate(keys):
    """The claim's closed forms: one Theorem-3 chain under any context (mpmath for ``eval``,
    arb balls for ``--certify`` and the certified row)."""
    return limits_evaluator(keys)


def _equations():
    return [eq for loss in LOSSES for eq in A.equations(loss)]


_COMMON = dict(paper="A", status="derived", allowance_note=ALLOWANCE_NOTE, param_space=ALIGNMENT_SPACE,
               point_space=ALIGNMENT_SPACE, doc="docs/paper_a_alignment.md")


# --- Corollary 1 --------------------------------------------------------------------------
# quick: the paper's point, where the readout-noise term of C is small (theta = 6), and a six-token
# point at theta = 3, where that term is a large part of C (eta_w = 1/2: not 1, so that a power of
# eta_w shows)
RATE_POINTS = {
    "quick": (PAPER, dict(QUICK, L=6, R=2, theta=3.0, eta_w=0.5)),
    "full": (PAPER, QUICK, dict(PAPER, pi=0.5, eta_b=0.0), dict(QUICK, L=6, R=2, theta=3.0, eta_w=1.0)),
}
# the population curves 1 - |cos| at alpha0 = 50 * 2^k: with common random numbers and the
# symmetrised draws they are analytic in 1/alpha0, so repeated Richardson elimination of
# alpha0 (1 - |cos|) converges geometrically
RATE_ALPHAS = (50.0, 100.0, 200.0, 400.0, 800.0)
RATE_MC = {"quick": dict(n=4000, batches=10), "full": dict(n=20000, batches=20)}
RATE_KEY = "A.cor1.alignment_rate"


def _richardson(alphas, values):
    """Extrapolate f(alpha) = C + a/alpha + b/alpha^2 + ... to alpha = inf on a doubling grid;
    returns (estimate, error estimate = change made by the last elimination)."""
    table = [list(values)]
    for k in range(1, len(values)):
        prev = table[-1]
        table.append([(2**k * prev[i + 1] - prev[i]) / (2**k - 1) for i in range(len(prev) - 1)])
    return table[-1][-1], abs(table[-1][-1] - table[-2][-1])


def _extrapolated(curve) -> float:
    return _richardson(RATE_ALPHAS, [a * v for a, v in zip(RATE_ALPHAS, curve)])


def population_rates(settings, ip: int, p: dict, loss: Loss) -> dict:
    """The experiment of one (point, loss): Richardson limits of alpha0 (1 - |cos|) of the
    population curves, with the jackknife se of the q estimate (memoised: no theory in it)."""
    def compute():
        model = SparseTokenModel(p["L"], p["R"], p["pi"], p["theta"], d=1)  # d is not used
        curves = alignment_curves(model, loss, RATE_ALPHAS, eta_w=p["eta_w"], eta_b=p["eta_b"],
                                  seed=settings.seed_sequence(RATE_KEY, "population", ip, loss.name),
                                  **settings.pick(**RATE_MC))
        cq, eq_ = _extrapolated(curves["q"])
        jack = np.array([_extrapolated(c)[0] for c in curves["q_jackknife"]])
        b = len(jack)
        se = float(np.sqrt((b - 1) / b * np.sum((jack - jack.mean()) ** 2)))
        cw, ew = _extrapolated(curves["w"])
        return {"C": float(cq), "C_err": float(eq_), "C_se": se, "C_w": float(cw), "C_w_err": float(ew),
                "alpha0_times_1_minus_s": [float(a * v) for a, v in zip(RATE_ALPHAS, curves["q"])]}
    return memo(settings, (RATE_KEY, "population", ip, loss.name), compute)


def rate_experiment(settings, claim):
    rows, table = [], []
    dps = settings.dps
    for ip, p in enumerate(settings.pick(**RATE_POINTS)):
        for loss in LOSSES:
            rc = rate_constants(loss, **p, dps=dps)
            pop = population_rates(settings, ip, p, loss)
            # allowance: Richardson error estimate + a float64 rounding floor of the estimate
            rows.append(Comparison(f"C[{loss}, point {ip}]", float(rc["C"]), pop["C"], pop["C_se"],
                                   pop["C_err"] + 1e-12 * abs(pop["C"]), settings.pick(**RATE_MC)["batches"]))
            if loss is LOSSES[0]:  # C_w does not depend on the loss: one row
                rows.append(Comparison(f"C_w[point {ip}]", float(rc["C_w"]), pop["C_w"], 0.0,
                                       pop["C_w_err"] + 1e-12 * abs(pop["C_w"])))
            table.append({"point": p, "loss": loss.name, "C": float(rc["C"]), "C_w": float(rc["C_w"]), **pop})
    return rows, {"alphas": list(RATE_ALPHAS), **settings.pick(**RATE_MC)}, {"table": table}


_rate_evaluate = RATE_EVALUATOR


def _statement_q2_cosine():
    """cos(q^(2), xi) -> s_q: the limit does not depend on eta_q or beta."""
    import sympy as sp

    s_q = sp.Symbol("s_q", real=True)
    return (sp.Eq(sp.Symbol(r"\lim \cos(q^{(2)},\xi)"), s_q),
            r"s_q = \frac{\langle q, \xi\rangle}{\|q\|} \quad (\text{independent of } \eta_q \text{ and } \beta)")


CLAIMS = [
    Claim(
        id="A.thm3.w1_alignment", figures=("A.thm3.fig",),
        statement_eq=r"\cos(w^{(1)}, \xi) \to \frac{\omega}{\sqrt{\omega^2 + \eta_w^2\,\mathbb{E}[g^2]/(\alpha_0 L)}}, \qquad \|w^{(1)}\| \to \sqrt{\omega^2 + \frac{\eta_w^2\,\mathbb{E}[g^2]}{\alpha_0 L}}",
        reference="Paper A Thm 3 (readout after steps 1-2)",
        title="Alignment and norm of the readout after steps 1-2 (Thm 3)",
        statement_tex=(r"$\cos(w^{(1)}, \xi) \to \omega/\sqrt{\omega^2 + \eta_w^2\,\mathbb{E}[g^2]/(\alpha_0 L)}$ "
                       r"and $\|w^{(1)}\| \to \sqrt{\omega^2 + \eta_w^2\,\mathbb{E}[g^2]/(\alpha_0 L)}$."),
        statement="cos(w^(1), xi) -> omega/sqrt(omega^2 + eta_w^2 E[g^2]/(alpha0 L)), |w^(1)| -> sqrt(omega^2 + eta_w^2 E[g^2]/(alpha0 L))",
        experiment=_experiment(_pick_w1),
        equations=_equations,
        evaluate=_evaluate(("w1_cosine", "w1_norm")),
        mutants=("A.thm3.g:sign", "A.thm3.omega:sqrt_L", "A.thm3.wn2:x2", "A.thm3.wn2:L_squared"),
        outputs=("A.thm3.w1_cosine", "A.thm3.w1_norm"),
        **_COMMON,
    ),
    Claim(
        id="A.thm3.q2_overlap", figures=("A.thm3.fig",),
        statement_eq=r"\langle q^{(2)}, \xi\rangle \to -\frac{\eta_q \beta}{L}\, K \omega, \qquad K = \theta^2 r \pi_{+} h_{+} + (L - 1)\,\mathbb{E}[h]",
        reference="Paper A Thm 3",
        title="Overlap of the trained query with the signal (Thm 3)",
        statement_tex=(r"$\langle q^{(2)}, \xi\rangle \to -(\eta_q\beta/L)\,K\omega$ with $K = \theta^2 "
                       r"r\pi_{+}h_{+} + (L-1)\,\mathbb{E}[h]$ (the self-interaction shift included)."),
        statement="<q^(2), xi> -> -(eta_q beta / L) K omega, K = theta^2 r pi h_+ + (L-1) E[h] (self-interaction shift included)",
        experiment=_experiment(_pick("q2_overlap")),
        equations=_equations,
        evaluate=_evaluate(("q2_overlap",)),
        mutants=("A.thm3.self_shift:dropped", "A.thm3.g:sign", "A.thm3.b1:sign", "A.thm3.trP:L",
                 "A.thm3.vPv:uncentred"),
        outputs=("A.thm3.q2_overlap",),
        **_COMMON,
    ),
    Claim(
        id="A.thm3.q2_norm", figures=("A.thm3.fig",),
        statement_eq=r"\|q^{(2)}\| \to \frac{\eta_q \beta}{L} \sqrt{K^2 \omega^2 + m^2\,\mathbb{E}[h]^2 \|w_n\|^2 + \frac{\theta^2 r \pi_{+} h_{2,+} \omega^2 + m\,\mathbb{E}[h^2]\, \|w\|^2}{\alpha_0}}",
        reference="Paper A Thm 3",
        title="Norm of the trained query (Thm 3)",
        statement_tex=(r"$\|q^{(2)}\| \to \frac{\eta_q\beta}{L}\sqrt{K^2\omega^2 + m^2\,\mathbb{E}[h]^2\|w_n\|^2 + "
                       r"(\theta^2 r\pi_{+}h_{2,+}\omega^2 + m\,\mathbb{E}[h^2]\,\|w\|^2)/\alpha_0}$."),
        statement="|q^(2)| -> (eta_q beta/L) sqrt(K^2 omega^2 + m^2 E[h]^2 |w_n|^2 + (theta^2 r pi h2_+ omega^2 + m E[h^2] |w|^2)/alpha0)",
        experiment=_experiment(_pick("q2_norm")),
        equations=_equations,
        evaluate=_evaluate(("q2_norm",)),
        mutants=("A.thm3.self_shift:dropped", "A.thm3.wn2:x2", "A.thm3.s2:x2", "A.thm3.trP:L",
                 "A.thm3.fluctuation:alpha0_squared"),
        outputs=("A.thm3.q2_norm",),
        **_COMMON,
    ),
    Claim(
        id="A.thm3.q2_cosine", figures=("A.thm3.fig",),
        statement_eq=lambda: _statement_q2_cosine(),
        reference="Paper A Thm 3 / Fig. (cos(q^(2), xi) vs alpha0)",
        title="Alignment of the trained query with the signal (Thm 3)",
        statement_tex=(r"$\cos(q^{(2)}, \xi) \to s_q = \langle q, \xi\rangle/\|q\|$, independent of $\eta_q$ and "
                       r"$\beta$."),
        statement="cos(q^(2), xi) -> s_q = <q,xi>/|q| (independent of eta_q and beta)",
        experiment=_experiment(_pick("q2_cosine")),
        equations=_equations,
        evaluate=_evaluate(("q2_cosine",)),
        mutants=("A.thm3.self_shift:dropped", "A.thm3.wn2:x2", "A.thm3.trP:L", "A.thm3.vPv:uncentred",
                 "A.thm3.fluctuation:alpha0_squared"),
        outputs=("A.thm3.q2_cosine",),
        **_COMMON,
    ),
    Claim(
        id="A.cor1.alignment_rate",
        design_only="a Richardson limit in 1/alpha0 over the design's grid of alpha0 at each of its points; a point "
                    "of the space has no alpha0 grid",
        statement_eq=r"|s_q| = 1 - \frac{C}{\alpha_0} + O(\alpha_0^{-2}), \qquad C = \frac{1}{2K^2}\Bigl(m\,\mathbb{E}[h^2] + r\theta^2 \pi_{+} h_{2,+} + \frac{m^2\,\mathbb{E}[h]^2\,\mathbb{E}[g^2]\, L}{\theta^2 R^2 \pi_{+}^2 g_+^2}\Bigr) \\ |s_w| = 1 - \frac{C_w}{\alpha_0} + O(\alpha_0^{-2}), \qquad C_w = \frac{\mathbb{E}[g^2]\, L}{2\theta^2 R^2 \pi_{+}^2 g_+^2}",
        paper="A",
        reference="Paper A Cor. 1",
        title="Rate at which the query and the readout align with the signal (Cor. 1)",
        statement_tex=(r"$|s_q| = 1 - C/\alpha_0 + O(\alpha_0^{-2})$ with $C = \bigl(m\,\mathbb{E}[h^2] + "
                       r"r\theta^2\pi_{+}h_{2,+} + "
                       r"m^2\,\mathbb{E}[h]^2\,\mathbb{E}[g^2]\,L/(\theta^2R^2\pi_{+}^2g_{+}^2)\bigr)/(2K^2)$ "
                       r"(with $h$ at $\alpha_0 = \infty$); $|s_w| = 1 - C_w/\alpha_0$ with $C_w = "
                       r"\mathbb{E}[g^2]\,L/(2\theta^2R^2\pi_{+}^2g_{+}^2)$."),
        statement="|s_q| = 1 - C/alpha0 + O(alpha0^-2) with C = [m E[h^2] + r theta^2 pi h2_+ + m^2 E[h]^2 E[g^2] L/(theta^2 R^2 pi^2 g_+^2)]/(2K^2) (h at alpha0 = inf); |s_w| = 1 - C_w/alpha0, C_w = E[g^2] L/(2 theta^2 R^2 pi^2 g_+^2)",
        experiment=rate_experiment,
        equations=lambda: [eq for loss in LOSSES for eq in alignment_rate.equations(loss)],
        evaluate=_rate_evaluate,
        param_space=RATE_SPACE,
        status="derived",
        mutants=("A.cor1.cosine_power:squared", "A.cor1.wn_term:dropped", "A.cor1.C_w:no_L", "A.thm3.wn2:x2",
                 "A.thm3.trP:L", "A.thm3.vPv:uncentred", "A.thm3.b1:sign"),
        outputs=("A.cor1.C", "A.cor1.C_w"),
        allowance_note="se: delete-one-batch jackknife of the population Monte Carlo; allowance: the "
                       "Richardson error estimate of alpha0 (1 - |cos|) at alpha0 = 50..800 (change made "
                       "by the last elimination) + a 1e-12 relative float64 floor",
        doc="docs/paper_a_alignment.md",
    ),
]
