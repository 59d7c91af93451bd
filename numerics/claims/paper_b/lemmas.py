"""Paper B — the derivation claims of the estimator's analysis: Lemma 4.1 (the projection
onto U), the KL bound, the rate exponent.  The operator and coercivity claims, and how every
Paper B claim gets its theory and its experiment, are in :mod:`numerics.claims.paper_b.identities`.
"""
from __future__ import annotations


import numpy as np

from derivations.core import derivation
from numerics.claims.base import Claim, Comparison, memo

#: why these claims take no parameter point (verify --param, explore)
DESIGN_ONLY = "an identity or bound checked on the design's laws and kernels (the exponent claim: a closed form, with eval); its inputs are not a point of a declared space"
from numerics.claims.paper_b._common import (PAPER, _deriv, _equations, _mean_se, _precision, _sim, _th,
                                             _theory_module)
from numerics.core.backends import chain_evaluator
from numerics.core.params import Param, ParamSpace


# ======================================================================== Lemma 4.1
BINS = ((-0.5, -0.1), (-0.1, 0.1), (0.1, 0.5), (0.5, 1.0))


def _projection_mc(settings, claim):
    """Monte Carlo over ρ-pairs, without ψ̂: ||ĝ - g*||² directly; the gap E[Var(ĝ | U)] by
    the successive-difference estimator over pairs adjacent in U (sorted), (ĝ_a - ĝ_b)²/2;
    the lemma's right side as their difference, pair by pair; bin averages of ĝ.  The
    successive-difference bias (the spread of ψ̂ over a pair's two U values) is estimated by
    the same estimator at lag 2 (a bias growing with the spacing shows as a difference)."""
    sim = _sim()
    pl = _deriv("projection_lemma")
    th = _th()
    n = settings.pick(400_000, 2_000_000)
    X = sim.UniformCube().sample(claim.rng(settings, "pairs"), n, 2, 1)[..., 0]  # rho = Law(X1, X2)
    x, y = X[:, 0], X[:, 1]
    U = x * y  # A* = 1
    g = th.numpy_function(pl.G_HAT, (pl.x, pl.y))(x, y)  # the problem's g_hat and phi* (inputs)
    phi = th.numpy_function(pl.PHI_STAR, (pl.u_,))(U)
    order = np.argsort(U, kind="stable")
    gs, es = g[order], ((g - phi) ** 2)[order]
    n4 = n - n % 4

    def pairs(lag):
        idx = np.arange(n4).reshape(-1, 2 * lag)  # blocks of 2*lag: (k, k + lag) within a block
        a, b = idx[:, :lag].ravel(), idx[:, lag:].ravel()
        half_sq = (gs[a] - gs[b]) ** 2 / 2
        return half_sq, (es[a] + es[b]) / 2 - half_sq

    gap1, proj1 = pairs(1)
    gap2, proj2 = pairs(2)
    out = {"total": _mean_se((g - phi) ** 2), "gap": _mean_se(gap1), "projected": _mean_se(proj1),
           "spacing_bias": abs(float(gap2.mean() - gap1.mean())), "bins": {}}
    for lo, hi in BINS:
        out["bins"][(lo, hi)] = _mean_se(g[(U >= lo) & (U < hi)])
    return out


def _projection_experiment(settings, claim):
    th = _th()
    ex = memo(settings, (claim.id, "mc"), lambda: _projection_mc(settings, claim))
    q = th.projection(BINS, settings.dps)
    (proj, e1), (gap, e2) = q["projected"], q["gap"]
    bias = ex["spacing_bias"]
    rows = []
    mean, se, m = ex["total"]
    rows.append(Comparison("Pythagoras: ||g-g*||^2 = ||psi-phi*||^2 + E(g-psi(U))^2", proj + gap, mean, se,
                           e1 + e2, m))
    mean, se, m = ex["projected"]
    rows.append(Comparison("lemma RHS ||psi-phi*||^2_{p_U}: quadrature vs ||g-g*||^2 - successive-difference gap",
                           proj, mean, se, e1 + bias, m))
    mean, se, m = ex["gap"]
    rows.append(Comparison("gap E(g-psi(U))^2 > 0: quadrature vs successive differences in U", gap, mean, se,
                           e2 + bias, m))
    for (lo, hi), (val, err) in q["bins"].items():
        mean, se, m = ex["bins"][(lo, hi)]
        rows.append(Comparison(f"psi = E[g|U]: bin average over U in [{lo}, {hi})", val, mean, se, err, m))
    details = {"total_exact_polynomial": q["total_exact"], "projected": proj, "gap": gap,
               "inequality_holds": q["total_exact"] >= proj, "successive_difference_spacing_bias": bias}
    return rows, {"pairs": settings.pick(400_000, 2_000_000), "d": 1, "A*": 1}, details


# ============================================================================= KL bound
KL_N, KL_SIGMA, KL_M = 4, 0.5, 10


def _kl_cases():
    co = _deriv("coercivity")
    return {"H_CROSS": co.H_CROSS, "x1*x2 (centred)": co.x1 * co.x2, "x1 (bound tight)": co.x1}


def _kl_mc(settings, claim):
    """M x the Monte Carlo mean of log p_g1(Y|X) - log p_g2(Y|X), Y ~ P_g1 (the simulator's
    Gaussian likelihood), and the bound's normalisation for H_CROSS."""
    sim = _sim()
    co = _deriv("coercivity")
    n = settings.pick(100_000, 400_000)
    g2 = lambda x, y: x[..., 0] * y[..., 0]  # the second hypothesis; only h = g1 - g2 matters
    out = {}
    for name, hexpr in _kl_cases().items():
        hf = _th().pair_function(hexpr, (co.x1, co.x2))
        rng = claim.rng(settings, "kl", name)
        X = sim.UniformCube().sample(rng, n, KL_N, 1)
        mu1 = sim.forward(lambda x, y: g2(x, y) + hf(x, y), X)
        mu2 = sim.forward(g2, X)
        Y = mu1 + KL_SIGMA * rng.standard_normal(mu1.shape)  # data from P_{g1}
        llr = sim.gaussian_log_likelihood(Y, mu1, KL_SIGMA) - sim.gaussian_log_likelihood(Y, mu2, KL_SIGMA)
        out[name] = _mean_se(KL_M * llr)  # KL of M i.i.d. samples = M x per-sample KL
        if name == "H_CROSS":
            G = hf(X[:, :, None, :], X[:, None, :, :])
            off = ~np.eye(KL_N, dtype=bool)
            # M x sum over the N(N-1) ordered pairs of one sample of h^2 / (N - 1), in units of the
            # per-token KL of a unit mean shift (the simulator's likelihood at mean 1 vs 0)
            unit = float(sim.gaussian_log_likelihood(np.zeros((1, 1)), np.zeros((1, 1)), KL_SIGMA)[0]
                         - sim.gaussian_log_likelihood(np.zeros((1, 1)), np.ones((1, 1)), KL_SIGMA)[0])
            out["normalisation"] = _mean_se(KL_M * unit * (G[:, off] ** 2).sum(axis=1) / (KL_N - 1))
    return out


def _kl_experiment(settings, claim):
    co = _deriv("coercivity")
    th = _th()
    ex = memo(settings, (claim.id, "mc"), lambda: _kl_mc(settings, claim))
    rows, ratios = [], {}
    for name, hexpr in _kl_cases().items():
        m2, c = co.pair_moments(hexpr, co.UNIFORM)
        theory, bound = th.kl_values(KL_N, KL_M, KL_SIGMA, m2, c, settings.dps)
        mean, se, m = ex[name]
        rows.append(Comparison(f"KL = (M/(2s^2)) sum_i E|R_h|^2: h={name}, N={KL_N}, M={KL_M}", theory, mean, se,
                               0.0, m, at={"N": KL_N, "M": KL_M}))
        ratios[name] = {"KL": theory, "bound": bound, "KL/bound": theory / bound}
        if name == "H_CROSS":
            mean, se, m = ex["normalisation"]
            rows.append(Comparison("bound normalisation: (M/(2s^2)) sum_i sum_j h^2/(N-1) = MN||h||^2/(2s^2)",
                                   bound, mean, se, 0.0, m))
    sizes = {"samples": settings.pick(100_000, 400_000), "N": KL_N, "M": KL_M, "sigma": KL_SIGMA, "d": 1}
    return rows, sizes, {"kl_vs_bound": ratios}


# ========================================================================= rate exponent
BETAS = (0.5, 1.0, 2.0, 7.0)
M_CHECK = 1e6  # where K* and the threshold are compared


def _minimise_bound(beta: float, M: float) -> tuple[float, float]:
    """Numeric argmin over K > 0 of the bound (compiled from its SymPy input, bounded Brent on
    log K); returns (K, min)."""
    from scipy.optimize import minimize_scalar

    obj, to_K = _rates().bound_objective(beta, M)
    res = minimize_scalar(obj, bounds=(-5.0, np.log(M) + 5.0), method="bounded",
                          options={"xatol": 1e-11, "maxiter": 2000})
    if not res.success:
        raise RuntimeError(f"bound minimisation did not converge at beta={beta}, M={M}: {res.message}")
    return float(to_K(res.x)), float(res.fun)


def _rates():
    return _theory_module("rates")


def _rate_numerics(settings):
    """The experiment: numeric minimisation of the bound over K, its log-log slope against
    log(M/log M) and log M, and the root of the threshold equation (``brent``)."""
    from numerics.core.solve import solve

    Ms = np.logspace(3, settings.pick(12, 15), settings.pick(10, 25))
    out = {}
    for beta in BETAS:
        KB = np.array([_minimise_bound(beta, M) for M in Ms])
        rd_num = solve("brent", _rates().threshold_equation(beta, M_CHECK), 1e-12, 1e12, xtol=1e-14, rtol=1e-14,
                       message="threshold equation").value
        out[beta] = {
            "slope": float(np.polyfit(np.log(Ms / np.log(Ms)), np.log(KB[:, 1]), 1)[0]),
            "naive_slope": float(np.polyfit(np.log(Ms), np.log(KB[:, 1]), 1)[0]),
            "argmin": _minimise_bound(beta, M_CHECK),
            "rd_root": float(rd_num),
        }
    return {"Ms": Ms, "by_beta": out}


def _rate_experiment(settings, claim):
    rt = _rates()
    ex = memo(settings, (claim.id, "numerics"), lambda: _rate_numerics(settings))
    Ms = ex["Ms"]
    rows, naive = [], {}
    for beta, num in ex["by_beta"].items():
        rows.append(Comparison(f"slope of min_K bound vs log(M/log M) = -2b/(2b+1), beta={beta}",
                               rt.exponent(beta, settings.dps), num["slope"], 0.0,
                               1e-6 + _precision(settings, num["slope"]), len(Ms), at={"beta": beta}))
        K_num, B_num = num["argmin"]
        Kt = rt.k_star(beta, M_CHECK, settings.dps)
        at = {"M": M_CHECK, "beta": beta}
        rows.append(Comparison(f"argmin K* = (2b M/log M)^(1/(2b+1)) at M=1e6, beta={beta}", Kt, K_num,
                               0.0, 1e-6 * K_num + _precision(settings, K_num), None, at=at))
        rows.append(Comparison(f"min_K bound = B(K*) = (1+2b)(2b M/log M)^(-2b/(2b+1)) at M=1e6, beta={beta}",
                               rt.b_star(beta, M_CHECK, settings.dps), B_num,
                               0.0, 1e-10 * B_num + _precision(settings, B_num), None, at=at))
        rows.append(Comparison(f"threshold r d = (M/log M)^(1/(2b+1)) at M=1e6, beta={beta}",
                               rt.threshold(beta, M_CHECK, settings.dps), num["rd_root"], 0.0,
                               1e-10 * num["rd_root"] + _precision(settings, num["rd_root"]), None, at=at))
        naive[beta] = num["naive_slope"]
    details = {"naive_slope_vs_log_M": naive,
               "note": "against log M (not log(M/log M)) the fitted slope is shallower: the log factor"}
    return rows, {"M_grid": [float(Ms[0]), float(Ms[-1]), len(Ms)]}, details


@derivation
def _rate_chain():
    """The rate's closed forms as one chain: L = log M, then the exponent, K*, K_M, the
    threshold and B(K*) (``derivations.paper_b.rate_exponent``)."""
    import sympy as sp

    from numerics.core.backends import Chain, Closed

    RE = _deriv("rate_exponent")
    return Chain((RE.beta, RE.M), (Closed(RE.L, sp.log(RE.M)),),
                 (("exponent", RE.exponent()), ("K_star", RE.optimal_K()), ("K_M", RE.K_M),
                  ("rd_threshold", RE.threshold()), ("B_star", RE.b_star())))


RATE_SPACE = ParamSpace((
    Param("beta", float, 0.0, None, lo_open=True, doc="Hölder smoothness beta > 0", default=2.0, typical=(0.05, 20.0)),
    Param("M", float, 1.0, None, lo_open=True, doc="number of samples M > 1", default=1e4, typical=(1.5, 1e12)),
))


# ================================================================================ claims
def _statement_rate_exponent():
    """The statement of Theorem 3.1's rate in the derivation's own symbols (K, M, beta)."""
    import sympy as sp

    RE = _deriv("rate_exponent")
    k_star = sp.Eq(sp.Symbol("K^*_M"), (2 * RE.beta * RE.M / sp.log(RE.M)) ** (1 / (2 * RE.beta + 1)))
    return (k_star, r"\min_K \Bigl(K^{-2\beta} + \frac{K \log M}{M}\Bigr) \asymp "
                    r"\Bigl(\frac{M}{\log M}\Bigr)^{-2\beta/(2\beta + 1)}, \qquad r d\, \frac{\log M}{M} "
                    r"\text{ is dominated} \iff r d \le \Bigl(\frac{M}{\log M}\Bigr)^{1/(2\beta + 1)}")


CLAIMS = [
    Claim(
        design_only=DESIGN_ONLY,
        id="B.lemma41.projection",
        statement_eq=r"\|\hat g - g^*\|_\rho^2 = \|\hat\psi - \phi^*\|_{p_U}^2 + \mathbb{E}\bigl(\hat g - \hat\psi(U)\bigr)^2 \ge \|\hat\psi - \phi^*\|_{p_U}^2, \qquad \hat\psi(u) = \mathbb{E}[\hat g \mid U = u]",
        paper=PAPER,
        reference="Paper B, Lemma 4.1; proof ours",
        title="Projection of the kernel error onto the feature U (Lemma 4.1)",
        statement_tex=(r"With $\hat\psi(u) = \mathbb{E}[\hat g \mid U = u]$: $\|\hat g - g^*\|_\rho^2 = \|\hat\psi "
                       r"- \phi^*\|_{p_U}^2 + \mathbb{E}(\hat g - \hat\psi(U))^2 \ge \|\hat\psi - "
                       r"\phi^*\|_{p_U}^2$ ($d = 1$, $A^* = 1$, tokens uniform on $[-1,1]$, $\hat g = x^2 + xy + "
                       r"y/2 + xy^2$)."),
        statement="psi_hat(u) = E[g_hat|U=u]: ||g_hat-g*||^2_rho = ||psi_hat-phi*||^2_{p_U} + E(g_hat-psi_hat(U))^2 "
                  ">= ||psi_hat-phi*||^2_{p_U} (d=1, A*=1, U[-1,1] tokens, g_hat = x^2+xy+y/2+xy^2)",
        experiment=_projection_experiment,
        equations=_equations("projection_lemma"),
        status="derived",
        allowance_note="allowance = mpmath.quad's own error estimate of the 1-D integrals (dps 20, < 1e-15), plus "
                       "for the two rows estimated by successive differences over pairs adjacent in U their "
                       "spacing bias, estimated from the sample as |lag-2 estimate - lag-1 estimate|; se = Monte "
                       "Carlo se over rho-pairs (successive-difference rows: over the disjoint pairs; bin rows: "
                       "within the bin).  The Monte Carlo never evaluates psi_hat.",
        mutants=("B.lemma41.jacobian:forgotten", "B.lemma41.density:one_sign", "B.lemma41.pythagoras:gap_dropped"),
        outputs=("B.lemma41.pythagoras", "B.lemma41.bins"),
    ),
    Claim(
        design_only=DESIGN_ONLY,
        id="B.kl.bound",
        statement_eq=r"\mathrm{KL}(P_{g_1}^M \,\|\, P_{g_2}^M) = \frac{M}{2\sigma^2} \sum_{i} \mathbb{E}|R_{g_1 - g_2}[X]_i|^2 \le \frac{M N}{2\sigma^2}\, \|g_1 - g_2\|_\rho^2",
        paper=PAPER,
        reference="Paper B, lower bound, Lemma 4.2 ingredients; ours",
        title="The KL divergence between two interaction kernels (Lemma 4.2)",
        statement_tex=(r"Under Gaussian noise, $\mathrm{KL}(P_{g_1}^M \,\|\, P_{g_2}^M) = "
                       r"\frac{M}{2\sigma^2}\sum_i \mathbb{E}|R_{g_1-g_2}[X]_i|^2 \le "
                       r"\frac{MN}{2\sigma^2}\,\|g_1-g_2\|_\rho^2$, with equality if and only if $h(x,y)$ depends "
                       r"on $x$ only."),
        statement="Gaussian noise: KL(P_g1^M || P_g2^M) = (M/(2 sigma^2)) sum_i E|R_{g1-g2}[X]_i|^2 <= "
                  "(MN/(2 sigma^2)) ||g1-g2||^2_rho, with equality iff h(x,y) depends on x only",
        experiment=_kl_experiment,
        equations=_equations("kl_divergence"),
        status="derived",
        allowance_note="none: exact SymPy values vs Monte Carlo of the log-likelihood ratio (the simulator's "
                       "Gaussian likelihood; se over samples).",
        mutants=("B.kl.gaussian:no_half", "B.kl.gaussian:sigma", "B.kl.chain:token_average",
                 "B.kl.cauchy_schwarz:N_terms"),
        outputs=("B.kl.gaussian",),
    ),
    Claim(
        design_only=DESIGN_ONLY,
        id="B.rate.exponent", figures=("B.fig1",),
        statement_eq=lambda: _statement_rate_exponent(),
        paper=PAPER,
        reference="Paper B, Theorem 3.1",
        title="The minimax rate exponent from the bias-variance trade-off (Thm 3.1)",
        statement_tex=(r"$\min_K K^{-2\beta} + K\log M/M$ is attained at $K^* = (2\beta M/\log M)^{1/(2\beta+1)}$ "
                       r"and scales as $(M/\log M)^{-2\beta/(2\beta+1)}$; the term $r d\log M/M$ is dominated if "
                       r"and only if $r d \le (M/\log M)^{1/(2\beta+1)}$."),
        statement="min_K K^{-2b} + K log M/M is attained at K* = (2b M/log M)^{1/(2b+1)} and scales as "
                  "(M/log M)^{-2b/(2b+1)}; r d log M/M is dominated iff r d <= (M/log M)^{1/(2b+1)}",
        experiment=_rate_experiment,
        equations=_equations("rate_exponent"),
        evaluate=chain_evaluator(_rate_chain, ("beta", "M")),
        param_space=RATE_SPACE,
        status="paper",
        allowance_note="deterministic numerics on the bound itself (compiled from its SymPy definition): slope "
                       "allowance 1e-6 (Brent on log K with xatol 1e-11 changes the minimum by O(1e-22) relative; "
                       "least-squares fit of 10 exact-line points in float64); K* allowance 1e-6 relative to the "
                       "numeric argmin (an argmin located from function values is only accurate to ~sqrt(eps) "
                       "~ 1e-8 relative, observed <= 6e-8 over the grid); B(K*) 1e-10 relative to the numeric minimum (the "
                       "minimum is flat in K: an argmin off by 1e-8 changes it by ~1e-16); threshold 1e-10 relative to the root "
                       "(brentq rtol); each plus 10^(1-dps) |numeric value| (the precision asked for with --dps).",
        mutants=("B.rate.stationarity:power", "B.rate.exponent:beta/(beta+1)", "B.rate.exponent:beta-1/2",
                 "B.rate.threshold:no_log"),
        outputs=("B.rate.exponent", "B.rate.K_star", "B.rate.B_star", "B.rate.threshold"),
    ),
]
