"""Paper B — the derivation claims: forward operator, coercivity identity, conditionally
i.i.d. case, the counterexample (erratum), Lemma 4.1, the KL bound, the rate exponent.

Theory values come from ``derivations.paper_b`` (exact SymPy, compiled by
``numerics.theory.paper_b.identities`` / ``.rates``); the experiments are Monte Carlo runs of
``numerics.experiments.simulators.interacting_particles`` (which never sees a derived formula)
or independent float64 computations (enumeration + scipy eigh, numeric minimisation of the
bound).  Every experiment goes through the claims' memo (``numerics.claims.base.memo``), so a
structural mutant recomputes only the theory.  Docs: docs/paper_b.md, Part 1.

The derivation and theory modules are imported lazily so that ``attncheck list`` does not pay
for SymPy derivations.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from importlib import import_module

import numpy as np

from derivations.core import derivation
from numerics.claims.base import Claim, Comparison, memo
from numerics.core.backends import Evaluator, chain_evaluator
from numerics.core.params import Param, ParamSpace
from numerics.core.stats import mean_se

PAPER = "B"


def _sim():
    return import_module("numerics.experiments.simulators.interacting_particles")


def _deriv(name: str):
    return import_module(f"derivations.paper_b.{name}")


def _th():
    return import_module("numerics.theory.paper_b.identities")


def _equations(module: str):
    """A zero-argument callable returning the equations of a derivation module (imported on
    first use; see Claim.get_equations)."""
    return lambda: _deriv(module).equations()


def _mean_se(values: np.ndarray) -> tuple[float, float, int]:
    v = np.asarray(values, dtype=float).ravel()
    m, se = mean_se(v)
    return float(m), float(se), int(v.size)


def _rounding_allowance(*terms: np.ndarray) -> float:
    """Float64 rounding bound for a sum of products evaluated two ways: 1e-12 times the sum
    of absolute values of the terms (>> N eps per term, << any 5% mutation)."""
    return 1e-12 * float(sum(np.abs(t).sum() for t in terms))


def _h(name: str):
    """A test function of ``coercivity`` as a vectorised pair function (d = 1)."""
    co = _deriv("coercivity")
    return _th().pair_function(getattr(co, name), (co.x1, co.x2))


# ================================================================================ forward
FORWARD_N = 5  # tokens of the per-configuration rows


def _forward_mc(settings, claim):
    """The experiment: simulator forward operator on one set of configurations, and
    E<R_g, R_c>_tok by Monte Carlo for N = 3, 8."""
    sim = _sim()
    fo = _deriv("forward_operator")
    g1, g2 = (_th().pair_function(e) for e in (fo.G_EXAMPLE, fo.C_EXAMPLE))
    n = settings.pick(100_000, 400_000)
    a, b = 0.7, -1.3
    law = sim.UniformCube()
    rng = claim.rng(settings, "configuration")
    X = law.sample(rng, 20_000, FORWARD_N, 1)
    v = rng.standard_normal((X.shape[0], FORWARD_N))  # an arbitrary output-space vector
    Rg1, Rg2 = sim.forward(g1, X), sim.forward(g2, X)
    Rcomb = sim.forward(lambda x, y: a * g1(x, y) + b * g2(x, y), X)
    G1 = g1(X[:, :, None, :], X[:, None, :, :])  # pair tables G[m, i, j]
    G2 = g2(X[:, :, None, :], X[:, None, :, :])
    off = ~np.eye(FORWARD_N, dtype=bool)
    out = {
        "a": a, "b": b, "G1": G1, "G2": G2, "v": v, "configurations": X.shape[0],
        "linearity": float(np.sum(Rcomb * v)),
        "linearity_allowance": _rounding_allowance(a * Rg1 * v, b * Rg2 * v),
        "token_side": float(np.sum(Rg1 * v) / FORWARD_N),  # <R_g, v>_tok summed over samples
        "adjoint_allowance": _rounding_allowance(G1[:, off] * np.repeat(v, FORWARD_N - 1, 1)),
        "expectation": {},
    }
    for N in (3, 8):
        Xn = law.sample(claim.rng(settings, "expectation", N), n, N, 1)
        out["expectation"][N] = _mean_se(np.mean(sim.forward(g1, Xn) * sim.forward(g2, Xn), axis=1))
    return out


def _forward_experiment(settings, claim):
    fo = _deriv("forward_operator")
    th = _th()
    ex = memo(settings, ("B.forward.linearity", "mc"), lambda: _forward_mc(settings, claim))
    S = ex["configurations"]
    rows = [
        Comparison(f"linearity: a<R_g1,v> + b<R_g2,v> (derivation) vs <R_(a g1+b g2), v> (simulator), N={FORWARD_N}",
                   th.linearity_pairing(ex["G1"], ex["G2"], ex["v"], ex["a"], ex["b"]), ex["linearity"], 0.0,
                   ex["linearity_allowance"], S),
        Comparison(f"adjoint per configuration: <g,R*v>_pair (derivation) vs <R_g,v>_tok (simulator), N={FORWARD_N}",
                   th.adjoint_pairing(ex["G1"], ex["v"]), ex["token_side"], 0.0, ex["adjoint_allowance"], S),
    ]
    for N, (mean, se, m) in ex["expectation"].items():
        rows.append(Comparison(f"E<R_g, R_c>_tok (exact adjoint formula), uniform, N={N}", th.adjoint_example(N),
                               mean, se, 0.0, m))
    sizes = {"samples": settings.pick(100_000, 400_000), "configurations": S, "d": 1, "a": ex["a"], "b": ex["b"]}
    return rows, sizes, {"g": str(fo.G_EXAMPLE), "c": str(fo.C_EXAMPLE)}


# ============================================================================== coercivity
SHIFT = "1/2"  # weight c of the shared component of the conditional law (simulator's ``c``)
PERM_VALUES = ("-1", "-1/3", "1/2", "1")  # the permutation law of the identity claim (N = 4)


def _moments(hname: str, law: str) -> tuple:
    """Exact (m2, c) as SymPy numbers (derivation)."""
    import sympy as sp

    co = _deriv("coercivity")
    h = getattr(co, hname)
    if law == "permutation":
        return co.pair_moments_finite(h, tuple(sp.Rational(v) for v in PERM_VALUES))
    return co.pair_moments(h, law, sp.Rational(SHIFT))


def _make_law(law: str, N: int):
    sim = _sim()
    if law == "uniform":
        return sim.UniformCube()
    if law == "gaussian":
        return sim.Gaussian(variance="unit")
    if law == "conditional":
        return sim.Conditional(c=float(Fraction(SHIFT)), base="uniform")
    if law == "permutation":
        vals = np.array([float(Fraction(v)) for v in PERM_VALUES])
        if N != len(vals):
            raise ValueError("the permutation law of this claim has N = 4")
        return sim.Permutation(vals)
    raise ValueError(law)


def _mean_R2(claim, settings, law: str, hname: str, N: int, n: int, tag: str):
    """MC of E|R_h[X]_1|² as the per-sample token average (1/N) Σ_i R_h[X]_i² (exchangeable).

    For a permutation law that average is the same for every sample (R_h[X]_i depends on X_i
    only, and the token average visits every value once), so there the first token R_h[X]_1²
    is used, to keep a genuine Monte Carlo standard error."""
    def run():
        rng = claim.rng(settings, tag, law, hname, N)
        X = _make_law(law, N).sample(rng, n, N, 1)
        R = _sim().forward(_h(hname), X)
        return _mean_se(R[:, 0] ** 2 if law == "permutation" else np.mean(R**2, axis=1))
    return memo(settings, (claim.id, tag, law, hname, N, n), run)


IDENTITY_CASES = (
    ("uniform", "H_CROSS", 3), ("uniform", "H_CROSS", 6), ("uniform", "H_MIXED", 3),
    ("gaussian", "H_CROSS", 4), ("gaussian", "H_MIXED", 5),
    ("conditional", "H_CROSS", 4), ("conditional", "H_MIXED", 6),
    ("permutation", "H_CROSS", 4), ("permutation", "H_MIXED", 4),
)

#: d > 1: (law as in the derivation, simulator law, d, h name, N)
VECTOR_CASES = (("gaussian_dim", "gaussian", 3, "H_VEC3", 5), ("uniform", "uniform", 2, "H_VEC2", 4))

#: the excess-risk row: tokens, N, h, g*, noise level (noise correlated across tokens)
RISK_CASE = ("uniform", "H_CROSS", 4, 0.5)


def _vector_mean_R2(claim, settings, simlaw: str, d: int, hname: str, N: int, n: int):
    def run():
        import sympy as sp

        co = _deriv("coercivity")
        xs, ys = sp.symbols(f"x1:{d + 1}", real=True), sp.symbols(f"y1:{d + 1}", real=True)
        f = sp.lambdify((xs, ys), getattr(co, hname)(xs, ys), "numpy")  # the test function (input)
        g = lambda x, y: f(np.moveaxis(x, -1, 0), np.moveaxis(y, -1, 0))
        law = _sim().Gaussian() if simlaw == "gaussian" else _sim().UniformCube()
        X = law.sample(claim.rng(settings, "identity-vector", simlaw, d, hname, N), n, N, d)
        return _mean_se(np.mean(_sim().forward(g, X) ** 2, axis=1))
    return memo(settings, (claim.id, "vector", simlaw, d, hname, N, n), run)


def _excess_risk_mc(claim, settings, n: int):
    """(1/N) Σ_i [(Y_i - R_g[X]_i)² - (Y_i - R_g*[X]_i)²] per sample, Y = R_g*[X] + η with
    η_i = σ (ξ_i + ζ)/√2 (zero mean given X, correlated across tokens), g = g* + h."""
    law, hname, N, sigma = RISK_CASE

    def run():
        sim = _sim()
        rng = claim.rng(settings, "risk", law, hname, N)
        X = _make_law(law, N).sample(rng, n, N, 1)
        g_star = lambda x, y: x[..., 0] * y[..., 0]
        h = _h(hname)
        R_star = sim.forward(g_star, X)
        R_g = sim.forward(lambda x, y: g_star(x, y) + h(x, y), X)
        eta = sigma * (rng.standard_normal(R_star.shape) + rng.standard_normal((n, 1))) / np.sqrt(2.0)
        Y = R_star + eta
        return _mean_se(np.mean((Y - R_g) ** 2 - (Y - R_star) ** 2, axis=1))
    return memo(settings, (claim.id, "risk", n), run)


def _identity_experiment(settings, claim):
    co = _deriv("coercivity")
    th = _th()
    n = settings.pick(100_000, 400_000)
    rows, moments = [], {}
    cases = [(law, hname, N, None) for law, hname, N in IDENTITY_CASES] + [
        (simlaw, hname, N, (law, d)) for law, simlaw, d, hname, N in VECTOR_CASES]
    for law, hname, N, vec in cases:
        if vec is None:
            m2s, cs = _moments(hname, law)
            mean, se, m = _mean_R2(claim, settings, law, hname, N, n, "identity")
            label = f"E|R_h|^2 = m2/(N-1) + (N-2)c/(N-1): {law}, h={hname}, N={N}"
        else:
            m2s, cs = co.pair_moments_vector(getattr(co, hname), vec[1], vec[0])
            mean, se, m = _vector_mean_R2(claim, settings, law, vec[1], hname, N, n // 2)
            label = f"E|R_h|^2 = m2/(N-1) + (N-2)c/(N-1): {vec[0]}, d={vec[1]}, h={hname}, N={N}"
        rows.append(Comparison(label, th.identity_value(N, m2s, cs), mean, se, 0.0, m))
        moments[label] = {"m2": str(m2s), "c": str(cs)}
    law, hname, N, sigma = RISK_CASE
    m2s, cs = _moments(hname, law)
    mean, se, m = _excess_risk_mc(claim, settings, n)
    rows.append(Comparison(f"E_inf(g) - E_inf(g*) = E|R_h|^2 (per-token loss, correlated noise): {law}, "
                           f"h={hname}, N={N}", th.excess_risk(N, m2s, cs), mean, se, 0.0, m))
    details = {"coefficients": [str(v) for v in co.coefficients()], "shift_c": SHIFT,
               "permutation_values": list(PERM_VALUES), "exact_moments": moments,
               "risk_case": {"law": law, "h": hname, "N": N, "sigma": sigma, "g*": "x y"}}
    return rows, {"samples_per_row": n, "d": 1}, details


@derivation
def _identity_chain():
    """The identity's closed forms as one chain (numpy, mpmath and arb run the same steps)."""
    from numerics.core.backends import Chain

    co = _deriv("coercivity")
    cm, cc = co.coefficients()
    return Chain((co.N, co.m2, co.c), (), (("coef_m2", cm), ("coef_cross", cc), ("E|R_h|^2", co.identity())))


def _c_within_m2(values):
    if "c" in values and "m2" in values and abs(values["c"]) > values["m2"]:
        return f"parameter c: must satisfy |c| <= m2 = {values['m2']} (Cauchy-Schwarz), got {values['c']}"
    return None


IDENTITY_SPACE = ParamSpace((
    Param("N", int, 2, None, doc="tokens per sample, >= 2", default=3),
    Param("m2", float, 0.0, None, doc="E h(X1,X2)^2 >= 0", default=1.0),
    Param("c", float, None, None, doc="cross moment E h(X1,X2)h(X1,X3), |c| <= m2", default=0.0),
), (_c_within_m2,))


# ==================================================================== conditionally i.i.d.
CIID_TOKENS = 4  # cross moment from all ordered triples of distinct tokens of a 4-token sample


def _ciid_cross_mc(claim, settings, shift: str, hname: str, n: int):
    def run():
        law = _sim().Conditional(c=float(Fraction(shift)), base="uniform")
        triples = list(itertools.permutations(range(CIID_TOKENS), 3))
        ti, tj, tk = (np.array(v) for v in zip(*triples))
        X = law.sample(claim.rng(settings, "cross", shift, hname), n, CIID_TOKENS, 1)[..., 0]
        f = _h(hname)
        hv = lambda p, q: f(X[:, p][..., None], X[:, q][..., None])
        return _mean_se(np.mean(hv(ti, tj) * hv(ti, tk), axis=1))
    return memo(settings, (claim.id, "cross", shift, hname, n), run)


def _ciid_experiment(settings, claim):
    import sympy as sp

    co = _deriv("coercivity")
    th = _th()
    n = settings.pick(100_000, 400_000)
    rows = []
    for shift in ("1/2", "1"):
        for hname in ("H_CROSS", "H_MIXED"):
            mean, se, m = _ciid_cross_mc(claim, settings, shift, hname, n)
            rows.append(Comparison(f"cross = E[m_h(X1,Z)^2] >= 0: shift={shift}, h={hname}",
                                   th.cross_ciid(getattr(co, hname), shift), mean, se, 0.0, m))
    # equality case: m_h = 0, so c = E[m_h²] = 0 and E|R_h|^2 = (1/(N-1)) ||h||^2
    for law, shift, N in (("uniform", "0", 5), ("conditional", SHIFT, 5)):
        m2s = co.pair_moments(co.H_NULL, law, sp.Rational(SHIFT))[0]
        theory = th.identity_value(N, m2s, co.cross_term_ciid(co.H_NULL, sp.Rational(shift)))
        mean, se, m = _mean_R2(claim, settings, law, "H_NULL", N, n, "equality")
        rows.append(Comparison(f"equality case m_h = 0: E|R_h|^2 = ||h||^2/(N-1), {law}, h=x sin(pi y), N={N}",
                               theory, mean, se, 0.0, m))
    return rows, {"samples_per_row": n, "d": 1, "triples_per_sample": 24}, {
        "law": "X_j = c Z + W_j, Z, W_j ~ U[-1,1] (simulator Conditional(base='uniform'))"}


# ========================================================================= counterexample
def _urn_forms(N: int, labels) -> tuple[np.ndarray, np.ndarray]:
    """Float64 (A, B) of Q(h) = E|R_h[X]_1|^2, P(h) = E h(X1,X2)^2 by enumeration (numpy;
    independent of the exact SymPy code in derivations)."""
    seqs = [tuple(labels[b] for b in balls) for balls in itertools.permutations(range(len(labels)), N)]
    pairs = sorted({(s[0], s[1]) for s in seqs})
    idx = {p: t for t, p in enumerate(pairs)}
    E = np.zeros((len(seqs), len(pairs)))
    first = np.zeros(len(seqs), dtype=int)
    for r, s in enumerate(seqs):
        for t in range(1, N):
            E[r, idx[(s[0], s[t])]] += 1.0 / (N - 1)
        first[r] = idx[(s[0], s[1])]
    A = E.T @ E / len(seqs)
    B = np.bincount(first, minlength=len(pairs)) / len(seqs)
    return A, B


def _urn_min_ratio(N: int, labels) -> tuple[float, int]:
    from scipy.linalg import eigh

    A, B = _urn_forms(N, labels)
    lam = eigh(A, np.diag(B), eigvals_only=True) * (N - 1)
    return float(lam.min()), int(np.sum(lam < 1e-9 * max(1.0, lam.max())))


def _urn_cases(settings):
    cases = [(3, list(range(4))), (3, list(range(5))), (4, list(range(5))), (4, list(range(6))),
             (5, list(range(6))), (4, [0, 0, 1, 1, 2]), (3, [0, 0, 0, 1])]
    return cases + settings.pick([], [(5, list(range(7))), (5, [0, 0, 1, 1, 2, 3])])


def _counterexample_mc(settings, claim):
    """The N = 3 example simulated, and the float64 eigenvalues of the urn laws."""
    sim = _sim()
    n = settings.pick(50_000, 200_000)
    f = np.array([1.0, -1.0, 0.0])
    law = sim.Permutation(np.array([0.0, 1.0, 2.0]))  # values a, b, c = 0, 1, 2
    X = law.sample(claim.rng(settings, "example"), n, 3, 1)
    h = lambda x, y: f[np.rint(y[..., 0]).astype(int)] + 0.0 * x[..., 0]
    R = sim.forward(h, X)
    F = f[np.rint(X[..., 0]).astype(int)]
    out = {
        # R_h[X]_1^2 of the first token (the token average is exactly 1/6 in every sample)
        "E|R_h|^2": _mean_se(R[:, 0] ** 2),
        "lemma_rhs": _mean_se(F[:, 1] ** 2 / (3 - 1)),  # the lemma's (1/(N-1)) h(X1, X2)^2
        "cross": _mean_se(F[:, 1] * F[:, 2]),
        "token_average_spread": float(np.ptp(np.mean(R**2, axis=1))),
        "urns": {}, "null": {},
    }
    for N, labels in _urn_cases(settings):
        out["urns"][(N, tuple(labels))] = _urn_min_ratio(N, labels)[0]
    for N in (3, 4, 5):
        out["null"][N] = _urn_min_ratio(N, list(range(N)))
    return out


def _counterexample_experiment(settings, claim):
    th = _th()
    ex = memo(settings, (claim.id, "mc"), lambda: _counterexample_mc(settings, claim))
    exact = th.permutation_example()
    rows = []
    for key, label in (("E|R_h|^2", "N=3 example: E|R_h|^2 = 1/6"),
                       ("lemma_rhs", "N=3 example: lemma's lower bound ||h||^2/(N-1) = 1/3 > 1/6"),
                       ("cross", "N=3 example: cross moment = -1/3 < 0")):
        mean, se, m = ex[key]
        rows.append(Comparison(label, exact[key], mean, se, 0.0, m))
    # worst ratio over urn laws: exact closed form vs float64 generalised eigenvalues
    for (N, labels), low in ex["urns"].items():
        k = len(labels)
        rows.append(Comparison(f"min ratio (k-N)/(k-2): N={N}, k={k}, labels={list(labels)}", th.ratio_min(N, k),
                               low, 0.0, 1e-9, None))
    # k = N: non-identifiable, null space of dimension N(N-2)
    for N, (low, nullity) in ex["null"].items():
        rows.append(Comparison(f"k=N={N}: dim{{h: R_h = 0 a.s.}} = N(N-2)", th.null_dimension(N), float(nullity),
                               0.0, 0.0, None))
    eigen = {f"N={N}, labels={list(lab)}": v for (N, lab), v in ex["urns"].items()}
    eigen.update({f"N={N}, k=N": v[0] for N, v in ex["null"].items()})
    return rows, {"example_samples": settings.pick(50_000, 200_000)}, {
        "eigen_min_ratios": eigen, "example_exact": exact, "example_token_average_spread": ex["token_average_spread"]}


@derivation
def _counterexample_chain(with_null: bool):
    """The counterexample's closed forms as a chain: the minimal ratio, the lemma's constant
    ratio/(N - 1) and, for k = N (a random permutation), the null dimension (0 otherwise)."""
    import sympy as sp

    from numerics.core.backends import Chain

    ce = _deriv("counterexample")
    ratio = ce.ratio_min()
    null = ce.null_dimension() if with_null else sp.Integer(0)
    return Chain((ce.N, ce.k), (), (("min_ratio", ratio), ("lemma_constant", ratio / (ce.N - 1)),
                                    ("null_dimension", null)))


def _counterexample(ctx, params):
    return _counterexample_chain(params["k"] == params["N"]).run(ctx, [params["N"], params["k"]])


def _k_ge_n(values):
    if "k" in values and "N" in values and values["k"] < values["N"]:
        return f"parameter k: must be an integer >= N = {values['N']}, got {values['k']}"
    return None


COUNTEREXAMPLE_SPACE = ParamSpace((
    Param("N", int, 3, None, doc="tokens per sample, >= 3", default=3),
    Param("k", int, 3, None, doc="number of distinct values in the urn, k >= N", default=3),
), (_k_ge_n,))


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
    q = th.projection(BINS)
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
        m2, c = co.pair_moments(hexpr, "uniform")
        theory, bound = th.kl_values(KL_N, KL_M, KL_SIGMA, m2, c)
        mean, se, m = ex[name]
        rows.append(Comparison(f"KL = (M/(2s^2)) sum_i E|R_h|^2: h={name}, N={KL_N}, M={KL_M}", theory, mean, se,
                               0.0, m))
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
    return import_module("numerics.theory.paper_b.rates")


def _rate_numerics(settings):
    """The experiment: numeric minimisation of the bound over K, its log-log slope against
    log(M/log M) and log M, and the brentq root of the threshold equation."""
    from scipy.optimize import brentq

    Ms = np.logspace(3, settings.pick(12, 15), settings.pick(10, 25))
    out = {}
    for beta in BETAS:
        KB = np.array([_minimise_bound(beta, M) for M in Ms])
        rd_num = brentq(_rates().threshold_equation(beta, M_CHECK), 1e-12, 1e12, xtol=1e-14, rtol=1e-14)
        out[beta] = {
            "slope": float(np.polyfit(np.log(Ms / np.log(Ms)), np.log(KB[:, 1]), 1)[0]),
            "naive_slope": float(np.polyfit(np.log(Ms), np.log(KB[:, 1]), 1)[0]),
            "K_argmin": _minimise_bound(beta, M_CHECK)[0],
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
                               rt.exponent(beta), num["slope"], 0.0, 1e-6, len(Ms)))
        Kt = rt.k_star(beta, M_CHECK)
        rows.append(Comparison(f"argmin K* = (2b M/log M)^(1/(2b+1)) at M=1e6, beta={beta}", Kt, num["K_argmin"],
                               0.0, 1e-6 * num["K_argmin"], None))
        rows.append(Comparison(f"threshold r d = (M/log M)^(1/(2b+1)) at M=1e6, beta={beta}",
                               rt.threshold(beta, M_CHECK), num["rd_root"], 0.0, 1e-10 * num["rd_root"], None))
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

    RE = import_module("derivations.paper_b.rate_exponent")
    return Chain((RE.beta, RE.M), (Closed(RE.L, sp.log(RE.M)),),
                 (("exponent", RE.exponent()), ("K_star", RE.optimal_K()), ("K_M", RE.K_M),
                  ("rd_threshold", RE.threshold()), ("B_star", RE.b_star())))


RATE_SPACE = ParamSpace((
    Param("beta", float, 0.0, None, lo_open=True, doc="Hölder smoothness beta > 0", default=2.0),
    Param("M", float, 1.0, None, lo_open=True, doc="number of samples M > 1", default=1e4),
))


# ================================================================================ claims
def _statement_rate_exponent():
    """The statement of Theorem 3.1's rate in the derivation's own symbols (K, M, beta)."""
    import sympy as sp

    RE = import_module("derivations.paper_b.rate_exponent")
    k_star = sp.Eq(sp.Symbol("K^*_M"), (2 * RE.beta * RE.M / sp.log(RE.M)) ** (1 / (2 * RE.beta + 1)))
    return (k_star, r"\min_K \Bigl(K^{-2\beta} + \frac{K \log M}{M}\Bigr) \asymp "
                    r"\Bigl(\frac{M}{\log M}\Bigr)^{-2\beta/(2\beta + 1)}, \qquad r d\, \frac{\log M}{M} "
                    r"\text{ is dominated} \iff r d \le \Bigl(\frac{M}{\log M}\Bigr)^{1/(2\beta + 1)}")


CLAIMS = [
    Claim(
        id="B.forward.linearity",
        statement_eq=r"R_g[X]_i = \frac{1}{N - 1} \sum_{j \ne i} g(X_i, X_j) \quad \text{is linear in } g, \qquad (R^* v)(X_i, X_j) = v_i \\ \mathbb{E}\langle R_g, v\rangle = \bigl\langle g,\ \mathbb{E}[v_1 \mid X_1, X_2]\bigr\rangle_\rho",
        paper=PAPER,
        reference="Paper B, model: forward operator R_g; adjoint ours",
        statement="R_g[X]_i = (1/(N-1)) sum_{j!=i} g(X_i,X_j) is linear in g; its adjoint for the per-token and "
                  "pair inner products is (R*v)(X_i,X_j) = v_i, and E<R_g,v> = <g, E[v_1|X_1,X_2]>_rho",
        experiment=_forward_experiment,
        equations=_equations("forward_operator"),
        status="derived",
        allowance_note="rows 1-2: the derivation's operator (linear combination) and adjoint, compiled and "
                       "evaluated on the simulator's pair tables, against the simulator's forward operator on the "
                       "same samples: allowance 1e-12 x sum|terms| (float64 rounding); rows 3-4 are Monte Carlo "
                       "against exact SymPy values (no allowance).",
        mutants=("B.forward.weight:1/N", "B.forward.operator:diagonal", "B.forward.adjoint:slot",
                 "B.forward.pair_measure:N^2"),
        outputs=("B.forward.operator", "B.forward.adjoint"),
    ),
    Claim(
        id="B.coercivity.identity",
        statement_eq=r"\mathbb{E}|R_h[X]_1|^2 = \frac{1}{N - 1}\,\mathbb{E}\, h(X_1, X_2)^2 + \frac{N - 2}{N - 1}\,\mathbb{E}[h(X_1, X_2)\, h(X_1, X_3)] \\ \mathcal{E}_\infty(g) - \mathcal{E}_\infty(g^*) = \mathbb{E}|R_h[X]_1|^2, \qquad h = g - g^*",
        paper=PAPER,
        reference="Paper B, Lemma 3.4; identity and coefficients ours",
        statement="exchangeable tokens: E|R_h[X]_1|^2 = (1/(N-1)) E h(X1,X2)^2 + ((N-2)/(N-1)) E[h(X1,X2)h(X1,X3)], "
                  "and E_inf(g) - E_inf(g*) = E|R_h[X]_1|^2",
        experiment=_identity_experiment,
        equations=_equations("coercivity"),
        evaluate=chain_evaluator(_identity_chain, ("N", "m2", "c")),
        param_space=IDENTITY_SPACE,
        status="derived",
        allowance_note="none: the pair moments are exact (SymPy moments / enumeration); se is the Monte Carlo se "
                       "of the per-sample token average of R_h^2 (of the per-sample excess loss for the risk row).",
        mutants=("B.coercivity.off_diagonal:diagonal_kept", "B.coercivity.identity:cross_dropped",
                 "B.forward.weight:1/N", "B.coercivity.loss_normalisation:summed"),
        outputs=("B.coercivity.identity",),
    ),
    Claim(
        id="B.coercivity.conditionally_iid",
        statement_eq=r"X_j = c Z + W_j: \qquad \mathbb{E}[h(X_1, X_2)\, h(X_1, X_3)] = \mathbb{E}\bigl[\mathbb{E}[h(X_1, X_2) \mid X_1, Z]^2\bigr] \ge 0 \\ \mathbb{E}|R_h[X]_1|^2 \ge \frac{1}{N - 1}\, \|h\|_\rho^2",
        paper=PAPER,
        reference="Paper B, Lemma 3.4 for i.i.d. / conditionally i.i.d. tokens; proof ours",
        statement="X_j = cZ + W_j: E[h(X1,X2)h(X1,X3)] = E[(E[h(X1,X2)|X1,Z])^2] >= 0, so Lemma 3.4 holds with "
                  "1/(N-1), with equality when the conditional mean vanishes",
        experiment=_ciid_experiment,
        equations=_equations("coercivity"),
        status="derived",
        allowance_note="none: exact SymPy values vs Monte Carlo with its own se.",
        mutants=("B.coercivity.conditional_mean:density", "B.coercivity.cross_ciid:given_Z_only"),
        outputs=("B.coercivity.cross_value", "B.coercivity.identity"),
    ),
    Claim(
        id="B.coercivity.counterexample",
        statement_eq=r"N = 3,\ X \text{ a permutation of } \{a, b, c\},\ h(x, y) = f(y): \qquad \mathbb{E}|R_h|^2 = \frac{1}{6} < \frac{\|h\|_\rho^2}{N - 1} = \frac{1}{3} \\ \inf_{h} \frac{\mathbb{E}|R_h|^2}{\|h\|_\rho^2} = \frac{1}{N - 1}\, \frac{k - N}{k - 2} \quad (\text{the first } N \text{ of } k \text{ exchangeable tokens})",
        paper=PAPER,
        reference="Paper B, Lemma 3.4 under A1 (erratum)",
        statement="finite exchangeability is not enough: N=3 permutation of {a,b,c}, h=f(y): E|R_h|^2 = 1/6 < "
                  "||h||^2/(N-1) = 1/3; worst ratio over first-N-of-k urns is (k-N)/(k-2), 0 for k = N "
                  "(g* not identifiable, null space of dimension N(N-2))",
        experiment=_counterexample_experiment,
        equations=_equations("counterexample"),
        evaluate=Evaluator(_counterexample, name="counterexample"),
        param_space=COUNTEREXAMPLE_SPACE,
        status="erratum",
        allowance_note="N = 3 example: Monte Carlo of the first token's R_h^2 and of the pair moments (no "
                       "allowance); worst ratios: exact closed form vs scipy eigh "
                       "(allowance 1e-9, far above the eigh backward error ~1e-15 x condition of these small "
                       "well-conditioned matrices); null dimensions are integer counts (allowance 0).",
        mutants=("B.counterexample.p1:k", "B.counterexample.p2:with_replacement",
                 "B.counterexample.null_dimension:no_constraints", "B.forward.weight:1/N"),
        outputs=("B.counterexample.example", "B.counterexample.ratio_min", "B.counterexample.null_dimension"),
    ),
    Claim(
        id="B.lemma41.projection",
        statement_eq=r"\|\hat g - g^*\|_\rho^2 = \|\hat\psi - \phi^*\|_{p_U}^2 + \mathbb{E}\bigl(\hat g - \hat\psi(U)\bigr)^2 \ge \|\hat\psi - \phi^*\|_{p_U}^2, \qquad \hat\psi(u) = \mathbb{E}[\hat g \mid U = u]",
        paper=PAPER,
        reference="Paper B, Lemma 4.1; proof ours",
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
        id="B.kl.bound",
        statement_eq=r"\mathrm{KL}(P_{g_1}^M \,\|\, P_{g_2}^M) = \frac{M}{2\sigma^2} \sum_{i} \mathbb{E}|R_{g_1 - g_2}[X]_i|^2 \le \frac{M N}{2\sigma^2}\, \|g_1 - g_2\|_\rho^2",
        paper=PAPER,
        reference="Paper B, lower bound, Lemma 4.2 ingredients; ours",
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
        id="B.rate.exponent",
        statement_eq=lambda: _statement_rate_exponent(),
        paper=PAPER,
        reference="Paper B, Theorem 3.1",
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
                       "~ 1e-8 relative, observed <= 6e-8 over the grid); threshold 1e-10 relative to the root "
                       "(brentq rtol).",
        mutants=("B.rate.stationarity:power", "B.rate.exponent:beta/(beta+1)", "B.rate.exponent:beta-1/2",
                 "B.rate.threshold:no_log"),
        outputs=("B.rate.exponent", "B.rate.K_star", "B.rate.threshold"),
    ),
]
