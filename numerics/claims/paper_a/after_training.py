"""Paper A after training (step 4): Theorems 4-5, Corollary 2, attention vs linear.

Theory: the self-consistent equations of derivations.paper_a.erm_equations, solved by
numerics.theory.paper_a.erm_equations.  Experiment: finite-d ridge ERM
(numerics.experiments.simulators.sparse_token_erm), mean ± se over independent trials.  Docs:
docs/paper_a_after_training.md.

The test-error and training-loss claims of one model share one simulation (cached per
process on (model, mode, seed)), so ``verify`` of both costs one run.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import mpmath
import numpy as np

from numerics.claims.base import Claim, Comparison

STATUS = "derived"
ALLOW_NOTE = (
    "se = sqrt(se_trials^2 + se_QMC^2): the std over independent finite-d trials / sqrt(trials) "
    "and the randomized-QMC standard error of the theory (std over Sobol scramblings / sqrt(K)); "
    "allowance = solver residual + the change of the outputs when the Gauss-Hermite rule is "
    "doubled (both < 1e-8 here). The O(1/d) finite-size bias is not given an allowance: at the "
    "sizes used it is below the trial se (measured, docs §5)."
)

# Figure 1 of the paper: L = 10, R = 1, pi = 0.5, theta = 5, lambda = 1e-5, d = 1000, 8 trials.
BASE = dict(L=10, R=1, pi=0.5, theta=5.0)
ATT_Q = dict(q_norm=2.0, s_q=0.5, beta=1.0)  # a fixed query for the step-4 check


def _config(model: str, full: bool) -> dict:
    if full:
        d = 1000
        return dict(d=d, trials=8, lam=1e-5 if model != "vec" else 1e-3, loss="logistic",
                    alphas=(0.5, 1.0, 2.0, 4.0), log2_points=11, n_scrambles=8)
    d = {"attention": 1000, "pool": 1000, "vec": 250}[model]
    return dict(d=d, trials=16 if model == "pool" else 8, lam=1e-2, loss="logistic", alphas=(2.0,), log2_points=9, n_scrambles=8)


def _law(model: str, cfg: dict, seed: int):
    from numerics.theory.paper_a import erm_equations as SE

    if model == "attention":
        return SE.attention_law(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], ATT_Q["beta"],
                                ATT_Q["q_norm"], ATT_Q["s_q"], log2_points=cfg["log2_points"],
                                n_scrambles=cfg["n_scrambles"], seed=seed)
    return SE.linear_law(model, BASE["L"], BASE["R"], BASE["pi"], BASE["theta"])


@lru_cache(maxsize=8)
def _run(model: str, mode: str, seed: int):
    """Theory and simulation for one model; cached so that the test-error and the training-loss
    claims share one simulation."""
    from numerics.theory.paper_a import erm_equations as SE
    from numerics.core.seeding import seed_sequence
    from numerics.experiments.simulators.sparse_token import SparseTokenModel
    from numerics.experiments.simulators.sparse_token_erm import query_with_alignment, step4_trial

    full = mode == "full"
    cfg = _config(model, full)
    qmc_seed = int(seed_sequence(seed, "A.after_training.qmc", model).generate_state(1)[0])
    law = _law(model, cfg, qmc_seed)
    theory = []
    for al in cfg["alphas"]:
        res = SE.solve_with_error(law, al, cfg["lam"], cfg["loss"], n_gh=16 if model == "attention" else 64)  # two-atom laws: GH is free
        if not res.converged:
            raise RuntimeError(f"{model}: equations did not converge at alpha1={al}: {res.status}")
        theory.append(res)
    rng = np.random.default_rng(seed_sequence(seed, "A.after_training.sim", model))
    sim = SparseTokenModel(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], cfg["d"])
    rows = []
    for al in cfg["alphas"]:
        te, tl, gn = [], [], []
        for _ in range(cfg["trials"]):
            xi = sim.signal_direction(rng)
            q = query_with_alignment(xi, ATT_Q["q_norm"], ATT_Q["s_q"], rng) if model == "attention" else None
            r = step4_trial(sim, model, al, cfg["lam"], cfg["loss"], rng, q=q, beta=ATT_Q["beta"], xi=xi,
                            n_test=400_000, gtol=1e-9, labels="iid" if full else "stratified",
                            pooled_direct=not full)
            if not r.fit.converged:
                raise RuntimeError(f"{model}: ERM did not converge (grad {r.fit.grad_norm:.2e})")
            te.append(r.test_error)
            tl.append(r.train_loss)
            gn.append(r.fit.grad_norm)
        rows.append(dict(alpha1=al, test=np.array(te), train=np.array(tl), max_grad=max(gn)))
    return cfg, theory, rows


def _experiment(model: str, quantity: str):
    key = {"test": "test_error", "train": "train_loss"}[quantity]

    def experiment(settings, claim):
        cfg, theory, rows = _run(model, settings.mode, settings.seed)
        comps, details = [], {}
        for res, row in zip(theory, rows):
            vals = row[quantity]
            se_sim = float(np.std(vals, ddof=1) / math.sqrt(len(vals)))
            se_qmc = float(res.qmc_se.get(key, 0.0))
            allowance = float(res.residual + res.metrics.get("gh_change", 0.0))
            label = f"{key} alpha1={row['alpha1']:g}"
            comps.append(Comparison(label, float(res.metrics[key]), float(vals.mean()),
                                    math.sqrt(se_sim**2 + se_qmc**2), allowance, len(vals)))
            details[label] = {"theory": res.metrics[key], "qmc_se": se_qmc, "se_trials": se_sim,
                              "order_parameters": res.as_dict(), "max_erm_grad": row["max_grad"]}
        sizes = {k: cfg[k] for k in ("d", "trials", "lam", "loss", "alphas")}
        sizes["labels"] = "iid" if settings.full else "stratified"
        sizes["pooled_direct"] = model == "pool" and not settings.full
        sizes.update(BASE)
        if model == "attention":
            sizes.update(ATT_Q)
        return comps, sizes, details

    return experiment


def _equations():
    from derivations.paper_a import attention_reduction as AR
    from derivations.paper_a import erm_equations as EQ

    return tuple(AR.EQUATIONS) + tuple(EQ.GENERAL_EQUATIONS)


class _LazyEquations(Sequence):
    """The equations, built on first use (importing the SymPy derivations takes seconds; listing
    claims should not)."""

    def __init__(self, build):
        self._build, self._items = build, None

    def _get(self):
        if self._items is None:
            self._items = tuple(self._build())
        return self._items

    def __getitem__(self, i):
        return self._get()[i]

    def __len__(self):
        return len(self._get())

    def __bool__(self):
        return True


def _eqs():
    return _LazyEquations(_equations)


def _make(model: str, quantity: str, ref: str, statement: str) -> Claim:
    return Claim(
        id=f"A.{'thm4' if model == 'attention' else 'thm5'}.{'attention' if model == 'attention' else model}_"
           f"{'test_error' if quantity == 'test' else 'train_loss'}",
        paper="A", reference=ref, statement=statement, experiment=_experiment(model, quantity),
        equations=_eqs(), status=STATUS, allowance_note=ALLOW_NOTE,
        doc="docs/paper_a_after_training.md")


# --------------------------------------------------------------------------------------------
# Corollary 2: square loss, ridgeless: error - E_inf ~ C1 / alpha1
def _cor2_values(dps: int, L, R, pi, theta):
    from derivations.paper_a import erm_equations as EQ
    from numerics.core.backends import mp_eval

    out = {}
    vals = {EQ.theta: theta, EQ.R: R, EQ.L: L, EQ.pi_: pi}
    for eq in EQ.ridgeless_limit_equations():
        out[eq.name.split("A.cor2.")[1]] = mp_eval(eq.rhs, vals, dps, extra={"erfc": mpmath.erfc})
    return out


def _cor2_evaluate(params: dict, dps: int) -> dict:
    return _cor2_values(dps, params["L"], params["R"], params["pi"], params["theta"])


def _slope(alphas, errs, e_inf):
    x = np.log(alphas)
    yv = np.log(np.abs(np.asarray(errs) - e_inf))
    return float(np.polyfit(x, yv, 1)[0])


def _cor2_experiment(settings, claim):
    from numerics.theory.paper_a import erm_equations as SE
    from numerics.core.seeding import seed_sequence

    L, R, pi, theta = BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]
    closed = _cor2_values(settings.dps, L, R, pi, theta)
    comps, details = [], {}
    a_hi = 4000.0 if settings.full else 1000.0
    grid_hi = a_hi * np.array([0.25, 0.5, 1.0])  # upper decade
    grid_lo = grid_hi / 4
    for model, scale in (("pool", 1.0), ("vec", float(L))):
        law = SE.linear_law(model, L, R, pi, theta)
        # the vectorised model sees alpha1 / L: probe it at L times larger alpha1
        f = lambda al: SE.solve(law, scale * al, 0.0, "square").metrics["test_error"]
        # limit by Richardson from alpha and 2 alpha (error O(1/alpha^2)); a posteriori bound:
        # the change of the Richardson value when alpha is halved
        E1, E2, E4 = f(a_hi / 2), f(a_hi), f(2 * a_hi)
        rich_hi, rich_lo = 2 * E4 - E2, 2 * E2 - E1
        e_inf = float(closed[f"{model}.E_inf"])
        comps.append(Comparison(f"{model} E_inf (Richardson of solves)", e_inf, rich_hi, 0.0,
                                abs(rich_hi - rich_lo) + 1e-12, None))
        c1_num = scale * a_hi * (E2 - e_inf)  # = C1 + O(1/alpha)
        c1_num_lo = scale * (a_hi / 2) * (E1 - e_inf)
        c1_rich = 2 * c1_num - c1_num_lo
        comps.append(Comparison(f"{model} C1 (alpha (E - E_inf), extrapolated)", float(closed[f"{model}.C1"]),
                                c1_rich, 0.0, abs(c1_rich - c1_num), None))
        s_hi = _slope(grid_hi, [f(a) for a in grid_hi], e_inf)
        s_lo = _slope(grid_lo, [f(a) for a in grid_lo], e_inf)
        comps.append(Comparison(f"{model} log-log slope", -1.0, s_hi, 0.0, abs(s_hi - s_lo), None))
        details[model] = {"E_inf_closed": str(closed[f"{model}.E_inf"]), "C1_closed": str(closed[f"{model}.C1"]),
                          "richardson": rich_hi, "slope_hi": s_hi, "slope_lo": s_lo, "C1_numeric": c1_rich}
    # attention: no closed form (L-dim latent law): limit from the alpha -> infinity solve
    seed = int(seed_sequence(settings.seed, claim.id, "qmc").generate_state(1)[0])
    law = SE.attention_law(L, R, pi, theta, ATT_Q["beta"], ATT_Q["q_norm"], 0.9, log2_points=10,
                           n_scrambles=4, seed=seed)
    fa = lambda al: SE.solve(law, al, 0.0, "square").metrics["test_error"]
    e_inf_a = fa(1e12)
    s_hi = _slope(grid_hi, [fa(a) for a in grid_hi], e_inf_a)
    s_lo = _slope(grid_lo, [fa(a) for a in grid_lo], e_inf_a)
    comps.append(Comparison("attention log-log slope", -1.0, s_hi, 0.0, abs(s_hi - s_lo), None))
    details["attention"] = {"E_inf": e_inf_a, "slope_hi": s_hi, "slope_lo": s_lo, "s_q": 0.9}
    sizes = {"alpha_grid_hi": list(grid_hi), "alpha_grid_lo": list(grid_lo), **BASE}
    return comps, sizes, details


def _cor2_space():
    from numerics.core.params import L as LP, PI, R as RP, THETA, ParamSpace, r_le_l

    return ParamSpace((LP.with_default(10), RP.with_default(1), PI.with_default(0.5), THETA.with_default(5.0)),
                      (r_le_l,))


def _cor2_equations():
    from derivations.paper_a import erm_equations as EQ

    return EQ.ridgeless_limit_equations()


# --------------------------------------------------------------------------------------------
# attention vs linear: crossover in s_q of the alpha1 -> infinity errors (square, ridgeless)
def attention_limit_error(s_q: float, *, q_norm=2.0, beta=1.0, log2_points=10, n_scrambles=4, seed=0,
                          L=10, R=1, pi=0.5, theta=5.0) -> float:
    from numerics.theory.paper_a import erm_equations as SE

    law = SE.attention_law(L, R, pi, theta, beta, q_norm, s_q, log2_points=log2_points,
                           n_scrambles=n_scrambles, seed=seed)
    r = SE.solve(law, 1e12, 0.0, "square")
    if not r.converged:
        raise RuntimeError(r.status)
    return r.metrics["test_error"]


def crossover_sq(*, q_norm=2.0, beta=1.0, seed=0, **kw) -> tuple[float, float]:
    """s_q* where attention's alpha1 -> infinity error equals the linear models' (square loss,
    ridgeless), by brentq on a common-random-numbers QMC law.  Returns (s_q*, E_lin)."""
    from scipy.optimize import brentq

    L, R, pi, theta = BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]
    e_lin = float(_cor2_values(20, L, R, pi, theta)["pool.E_inf"])
    g = lambda s: attention_limit_error(s, q_norm=q_norm, beta=beta, seed=seed, **kw) - e_lin
    return brentq(g, 0.0, 1.0, xtol=1e-8), e_lin


VS_SIM = dict(alpha1=6.0, lam=1e-4, loss="square")


@lru_cache(maxsize=4)
def _vs_run(mode: str, seed: int):
    from numerics.theory.paper_a import erm_equations as SE
    from numerics.core.seeding import seed_sequence
    from numerics.experiments.simulators.sparse_token import SparseTokenModel
    from numerics.experiments.simulators.sparse_token_erm import query_with_alignment, step4_trial

    full = mode == "full"
    qseed = int(seed_sequence(seed, "A.attention_vs_linear", "qmc").generate_state(1)[0])
    s_star, e_lin = crossover_sq(seed=qseed)
    s_lo, s_hi = max(0.0, s_star - 0.35), min(1.0, s_star + 0.35)
    d = 1000 if full else 400
    trials = 8 if full else 5
    rng = np.random.default_rng(seed_sequence(seed, "A.attention_vs_linear", "sim"))
    sim = SparseTokenModel(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], d)
    out = {"s_star": s_star, "e_lin_inf": e_lin, "d": d, "trials": trials}
    for tag, s_q in (("below", s_lo), ("above", s_hi)):
        law = SE.attention_law(BASE["L"], BASE["R"], BASE["pi"], BASE["theta"], ATT_Q["beta"],
                               ATT_Q["q_norm"], s_q, log2_points=10, n_scrambles=8, seed=qseed)
        th = SE.solve_with_error(law, VS_SIM["alpha1"], VS_SIM["lam"], VS_SIM["loss"])
        diffs = []
        for _ in range(trials):
            xi = sim.signal_direction(rng)
            q = query_with_alignment(xi, ATT_Q["q_norm"], s_q, rng)
            ra = step4_trial(sim, "attention", VS_SIM["alpha1"], VS_SIM["lam"], VS_SIM["loss"], rng, q=q,
                             beta=ATT_Q["beta"], xi=xi, n_test=400_000)
            rp = step4_trial(sim, "pool", VS_SIM["alpha1"], VS_SIM["lam"], VS_SIM["loss"], rng, xi=xi,
                             n_test=400_000, pooled_direct=True)
            diffs.append(ra.test_error - rp.test_error)
        out[tag] = {"s_q": s_q, "theory_attention": th.metrics["test_error"],
                    "qmc_se": th.qmc_se.get("test_error", 0.0), "diffs": diffs}
    lin = SE.solve(SE.linear_law("pool", BASE["L"], BASE["R"], BASE["pi"], BASE["theta"]),
                   VS_SIM["alpha1"], VS_SIM["lam"], VS_SIM["loss"])
    out["theory_pool"] = lin.metrics["test_error"]
    return out


def _vs_experiment(settings, claim):
    o = _vs_run(settings.mode, settings.seed)
    comps = []
    for tag in ("below", "above"):
        r = o[tag]
        diffs = np.array(r["diffs"])
        theory = r["theory_attention"] - o["theory_pool"]
        se = math.sqrt(float(np.var(diffs, ddof=1) / len(diffs)) + r["qmc_se"] ** 2)
        comps.append(Comparison(f"E_A - E_pool at s_q={r['s_q']:.3f} ({tag} s*)", theory,
                                float(diffs.mean()), se, 0.0, len(diffs)))
    details = {"s_star": o["s_star"], "E_lin_inf": o["e_lin_inf"],
               "attention_loses_below": o["below"]["theory_attention"] > o["theory_pool"],
               "attention_wins_above": o["above"]["theory_attention"] < o["theory_pool"],
               "sim_mean_diff_below": float(np.mean(o["below"]["diffs"])),
               "sim_mean_diff_above": float(np.mean(o["above"]["diffs"]))}
    sizes = {"d": o["d"], "trials": o["trials"], **VS_SIM, **BASE, "q_norm": ATT_Q["q_norm"]}
    return comps, sizes, details


CLAIMS = [
    _make("attention", "test", "Paper A Thm 4",
          "attention at fixed q (||q||=2, s_q=0.5, beta=1): step-4 test error = self-consistent equations"),
    _make("attention", "train", "Paper A Thm 4",
          "attention at fixed q: step-4 training loss = self-consistent equations"),
    _make("pool", "test", "Paper A Thm 5", "pooled linear model: test error = self-consistent equations"),
    _make("pool", "train", "Paper A Thm 5", "pooled linear model: training loss = self-consistent equations"),
    _make("vec", "test", "Paper A Thm 5",
          "vectorised linear model: test error = pooled-type equations in dimension L d (exact reduction)"),
    _make("vec", "train", "Paper A Thm 5", "vectorised linear model: training loss = self-consistent equations"),
    Claim(id="A.cor2.ridgeless_rate", paper="A", reference="Paper A Cor 2",
          statement="square loss, lambda -> 0: test error - E_inf ~ C1/alpha1 (slope -1); pooled and "
                    "vectorised share E_inf, C1_vec = L C1_pool at Figure-1 parameters",
          experiment=_cor2_experiment, equations=_LazyEquations(_cor2_equations), evaluate=_cor2_evaluate,
          param_space=_cor2_space(), status=STATUS,
          allowance_note="deterministic rows: allowance = a-posteriori extrapolation error (change of "
                         "the Richardson estimate / fitted slope when alpha is divided by 2 or 4)",
          doc="docs/paper_a_after_training.md"),
    Claim(id="A.attention_vs_linear", paper="A", reference="Paper A Cor 2 / discussion",
          statement="attention loses to the linear baselines for s_q below the crossover s_q* and wins "
                    "above it (s_q* by root finding on the alpha1 -> infinity errors)",
          experiment=_vs_experiment, equations=_LazyEquations(_cor2_equations), status=STATUS,
          allowance_note="se = paired-trial se of E_A - E_pool plus the QMC se of the theory",
          doc="docs/paper_a_after_training.md"),
]
