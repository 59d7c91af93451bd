"""Paper B — the derivation claims: forward operator, coercivity identity, conditionally
i.i.d. case, the counterexample (erratum); Lemma 4.1, the KL bound and the rate exponent are in
:mod:`numerics.claims.paper_b.lemmas`.

Theory values come from ``derivations.paper_b`` (exact SymPy, compiled by
``numerics.theory.paper_b.identities`` / ``.rates``); the experiments are Monte Carlo runs of
``numerics.experiments.paper_b.interacting_particles`` (which never sees a derived formula)
or independent float64 computations (enumeration + scipy eigh, numeric minimisation of the
bound).  Every experiment goes through the claims' memo (``numerics.claims.base.memo``), so a
structural mutant recomputes only the theory.  Docs: docs/paper_b.md, Part 1.

The derivation and theory modules are imported lazily so that ``attncheck list`` does not pay
for SymPy derivations.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from derivations.core import derivation
from numerics.claims.base import Claim, Comparison, memo

#: why these claims take no parameter point (verify --param, explore)
DESIGN_ONLY = "an identity checked on the design's token laws and kernels; its inputs are those laws, not a point of a declared space"
from numerics.core.backends import NUMPY, Evaluator, chain_evaluator
from numerics.core.params import Dep, Param, ParamSpace
from numerics.claims.paper_b._laws import (CONDITIONAL, GAUSSIAN, PERM_VALUES, PERMUTATION, SHIFT, UNIFORM, VECTOR_LAWS,
                                           TokenLaw)
from numerics.claims.paper_b._common import (PAPER, _deriv, _equations, _h, _mean_se, _precision,
                                          _rounding_allowance, _sim, _th)


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
    out["quadrature"] = {N: _forward_quadrature(sim, law, g1, g2, N) for N in QUADRATURE_N}
    return out


QUADRATURE_N = (3, 8)
QUADRATURE_NODES = (3, 4)  # per coordinate: exact for degree <= 5 and <= 7 in each token


def _forward_quadrature(sim, law, g1, g2, N: int) -> tuple[float, float]:
    """E<R_g1, R_g2>_tok by the law's tensor Gauss–Legendre rule over the N tokens, applied to
    the simulator's forward operator: (value at the larger rule, allowance).  The allowance is
    |Q(4 nodes) - Q(3 nodes)| (both exact for integrands of degree <= 5 per coordinate, so this
    measures what the rule misses) plus float64 rounding (1e-12 x sum of |weighted terms|)."""
    q, terms = [], []
    for nodes in QUADRATURE_NODES:
        X, w = law.quadrature(N, 1, nodes)
        t = w * np.mean(sim.forward(g1, X) * sim.forward(g2, X), axis=1)
        q.append(float(np.sum(t)))
        terms.append(t)
    return q[-1], abs(q[-1] - q[0]) + _rounding_allowance(*terms)


def _forward_experiment(settings, claim):
    fo = _deriv("forward_operator")
    th = _th()
    ex = memo(settings, ("B.forward.linearity", "mc"), lambda: _forward_mc(settings, claim))
    S = ex["configurations"]
    rows = [
        Comparison(f"linearity: a<R_g1,v> + b<R_g2,v> (derivation) vs <R_(a g1+b g2), v> (simulator), N={FORWARD_N}",
                   th.linearity_pairing(ex["G1"], ex["G2"], ex["v"], ex["a"], ex["b"]), ex["linearity"], 0.0,
                   ex["linearity_allowance"], S, at={"N": FORWARD_N}),
        Comparison(f"adjoint per configuration: <g,R*v>_pair (derivation) vs <R_g,v>_tok (simulator), N={FORWARD_N}",
                   th.adjoint_pairing(ex["G1"], ex["v"]), ex["token_side"], 0.0, ex["adjoint_allowance"], S,
                   at={"N": FORWARD_N}),
    ]
    for N, (mean, se, m) in ex["expectation"].items():
        rows.append(Comparison(f"E<R_g, R_c>_tok (exact adjoint formula), uniform, N={N}",
                               th.adjoint_example(N, settings.dps), mean, se, 0.0, m, at={"N": N}))
    for N, (value, allowance) in ex["quadrature"].items():
        nodes = QUADRATURE_NODES[-1]
        rows.append(Comparison(f"E<R_g, R_c>_tok (exact adjoint formula) vs {nodes}^{N}-point Gauss-Legendre rule "
                               f"on the simulator's R, N={N}", th.adjoint_example(N, settings.dps), value, 0.0,
                               allowance + _precision(settings, value), nodes ** N, at={"N": N}))
    sizes = {"samples": settings.pick(100_000, 400_000), "configurations": S, "d": 1, "a": ex["a"], "b": ex["b"]}
    return rows, sizes, {"g": str(fo.G_EXAMPLE), "c": str(fo.C_EXAMPLE)}


# ============================================================================== coercivity
def _moments(hname: str, law: TokenLaw) -> tuple:
    """Exact (m2, c) as SymPy numbers (derivation)."""
    return law.moments(getattr(_deriv("coercivity"), hname))


def _mean_R2(claim, settings, law: TokenLaw, hname: str, N: int, n: int, tag: str):
    """MC of E|R_h[X]_1|² as the per-sample token average (1/N) Σ_i R_h[X]_i² (exchangeable).

    For a permutation law that average is the same for every sample (R_h[X]_i depends on X_i
    only, and the token average visits every value once), so there the first token R_h[X]_1²
    is used, to keep a genuine Monte Carlo standard error."""
    def run():
        rng = claim.rng(settings, tag, law.name, hname, N)
        X = law.simulator(N).sample(rng, n, N, 1)
        R = _sim().forward(_h(hname), X)
        return _mean_se(R[:, 0] ** 2 if law.first_token else np.mean(R**2, axis=1))
    return memo(settings, (claim.id, tag, law.name, hname, N, n), run)


IDENTITY_CASES = (
    (UNIFORM, "H_CROSS", 3), (UNIFORM, "H_CROSS", 6), (UNIFORM, "H_MIXED", 3),
    (GAUSSIAN, "H_CROSS", 4), (GAUSSIAN, "H_MIXED", 5),
    (CONDITIONAL, "H_CROSS", 4), (CONDITIONAL, "H_MIXED", 6),
    (PERMUTATION, "H_CROSS", 4), (PERMUTATION, "H_MIXED", 4),
)

#: d > 1: (law as in the derivation, simulator law, d, h name, N)
VECTOR_CASES = (("gaussian_dim", "gaussian", 3, "H_VEC3", 5), ("uniform", "uniform", 2, "H_VEC2", 4))

#: the excess-risk row: tokens, N, h, g*, noise level (noise correlated across tokens)
RISK_CASE = (UNIFORM, "H_CROSS", 4, 0.5)


def _vector_mean_R2(claim, settings, simlaw: str, d: int, hname: str, N: int, n: int):
    def run():
        import sympy as sp

        co = _deriv("coercivity")
        xs, ys = sp.symbols(f"x1:{d + 1}", real=True), sp.symbols(f"y1:{d + 1}", real=True)
        f = NUMPY.compile(getattr(co, hname)(xs, ys), (*xs, *ys), raw=True)  # the test function (input)
        g = lambda x, y: f(*np.moveaxis(x, -1, 0), *np.moveaxis(y, -1, 0))
        law = VECTOR_LAWS[simlaw]()
        X = law.sample(claim.rng(settings, "identity-vector", simlaw, d, hname, N), n, N, d)
        return _mean_se(np.mean(_sim().forward(g, X) ** 2, axis=1))
    return memo(settings, (claim.id, "vector", simlaw, d, hname, N, n), run)


def _excess_risk_mc(claim, settings, n: int):
    """(1/N) Σ_i [(Y_i - R_g[X]_i)² - (Y_i - R_g*[X]_i)²] per sample, Y = R_g*[X] + η with
    η_i = σ (ξ_i + ζ)/√2 (zero mean given X, correlated across tokens), g = g* + h."""
    law, hname, N, sigma = RISK_CASE

    def run():
        sim = _sim()
        rng = claim.rng(settings, "risk", law.name, hname, N)
        X = law.simulator(N).sample(rng, n, N, 1)
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
            label, at = f"E|R_h|^2 = m2/(N-1) + (N-2)c/(N-1): {law}, h={hname}, N={N}", {"N": N}
        else:
            m2s, cs = co.pair_moments_vector(getattr(co, hname), vec[1], co.law_by_name(vec[0]))
            mean, se, m = _vector_mean_R2(claim, settings, law, vec[1], hname, N, n // 2)
            label = f"E|R_h|^2 = m2/(N-1) + (N-2)c/(N-1): {vec[0]}, d={vec[1]}, h={hname}, N={N}"
            at = {"d": vec[1], "N": N}
        rows.append(Comparison(label, th.identity_value(N, m2s, cs, settings.dps), mean, se, 0.0, m, at=at))
        moments[label] = {"m2": str(m2s), "c": str(cs)}
    law, hname, N, sigma = RISK_CASE
    m2s, cs = _moments(hname, law)
    mean, se, m = _excess_risk_mc(claim, settings, n)
    rows.append(Comparison(f"E_inf(g) - E_inf(g*) = E|R_h|^2 (per-token loss, correlated noise): {law}, "
                           f"h={hname}, N={N}", th.excess_risk(N, m2s, cs, settings.dps), mean, se, 0.0, m,
                           at={"N": N}))
    details = {"coefficients": [str(v) for v in co.coefficients()], "shift_c": SHIFT,
               "permutation_values": list(PERM_VALUES), "exact_moments": moments,
               "risk_case": {"law": law.name, "h": hname, "N": N, "sigma": sigma, "g*": "x y"}}
    return rows, {"samples_per_row": n, "d": 1}, details


@derivation
def _identity_chain():
    """The identity's closed forms as one chain (numpy, mpmath and arb run the same steps)."""
    from numerics.core.backends import Chain

    co = _deriv("coercivity")
    cm, cc = co.coefficients()
    return Chain((co.N, co.m2, co.c), (), (("coef_m2", cm), ("coef_cross", cc), ("E|R_h|^2", co.identity())))


IDENTITY_SPACE = ParamSpace((
    Param("N", int, 2, None, doc="tokens per sample, >= 2", default=3, typical=(2, 200)),
    Param("m2", float, 0.0, None, doc="E h(X1,X2)^2 >= 0", default=1.0, typical=(0.0, 10.0)),
    Param("c", float, Dep(("m2",), lambda v: -v["m2"], "-m2"), "m2", default=0.0,
          doc="cross moment E h(X1,X2)h(X1,X3), |c| <= m2 (Cauchy-Schwarz)"),
))


# ==================================================================== conditionally i.i.d.
CIID_TOKENS = 4  # cross moment from all ordered triples of distinct tokens of a 4-token sample


def _ciid_cross_mc(claim, settings, shift: str, hname: str, n: int):
    def run():
        law = _sim().Conditional(c=float(Fraction(shift)))
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
    for shift, at in (("1/2", {}), ("1", {"shift": 1})):  # a fraction is written as text, not as a point
        for hname in ("H_CROSS", "H_MIXED"):
            mean, se, m = _ciid_cross_mc(claim, settings, shift, hname, n)
            rows.append(Comparison(f"cross = E[m_h(X1,Z)^2] >= 0: shift={shift}, h={hname}",
                                   th.cross_ciid(getattr(co, hname), shift, settings.dps), mean, se, 0.0, m, at=at))
    # equality case: m_h = 0, so c = E[m_h²] = 0 and E|R_h|^2 = (1/(N-1)) ||h||^2
    for law, shift, N in ((UNIFORM, "0", 5), (CONDITIONAL, SHIFT, 5)):
        m2s = law.moments(co.H_NULL)[0]
        theory = th.identity_value(N, m2s, co.cross_term_ciid(co.H_NULL, sp.Rational(shift)), settings.dps)
        mean, se, m = _mean_R2(claim, settings, law, "H_NULL", N, n, "equality")
        rows.append(Comparison(f"equality case m_h = 0: E|R_h|^2 = ||h||^2/(N-1), {law}, h=x sin(pi y), N={N}",
                               theory, mean, se, 0.0, m, at={"m_h": 0, "N": N}))
    return rows, {"samples_per_row": n, "d": 1, "triples_per_sample": 24}, {
        "law": "X_j = c Z + W_j, Z, W_j ~ U[-1,1] (simulator Conditional(base=UniformCube()))"}


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
    exact = th.permutation_example(settings.dps)
    rows = []
    for key, label in (("E|R_h|^2", "N=3 example: E|R_h|^2 = 1/6"),
                       ("lemma_rhs", "N=3 example: lemma's lower bound ||h||^2/(N-1) = 1/3 > 1/6"),
                       ("cross", "N=3 example: cross moment = -1/3 < 0")):
        mean, se, m = ex[key]
        rows.append(Comparison(label, exact[key], mean, se, 0.0, m, at={"N": 3}))
    # worst ratio over urn laws: exact closed form vs float64 generalised eigenvalues
    for (N, labels), low in ex["urns"].items():
        k = len(labels)
        rows.append(Comparison(f"min ratio (k-N)/(k-2): N={N}, k={k}, labels={list(labels)}",
                               th.ratio_min(N, k, settings.dps), low, 0.0, 1e-9 + _precision(settings, low), None,
                               at={"N": N, "k": k}))
    # k = N: non-identifiable, null space of dimension N(N-2)
    for N, (low, nullity) in ex["null"].items():
        rows.append(Comparison(f"k=N={N}: dim{{h: R_h = 0 a.s.}} = N(N-2)", th.null_dimension(N, settings.dps),
                               float(nullity), 0.0, 0.0, None, at={"N": N, "R_h": 0}))
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


COUNTEREXAMPLE_SPACE = ParamSpace((
    Param("N", int, 3, None, doc="tokens per sample, >= 3", default=3, typical=(3, 60)),
    Param("k", int, "N", None, doc="number of distinct values in the urn, k >= N", default=3, typical=(3, 100)),
))


CLAIMS = [
    Claim(
        design_only=DESIGN_ONLY,
        id="B.forward.linearity",
        statement_eq=r"R_g[X]_i = \frac{1}{N - 1} \sum_{j \ne i} g(X_i, X_j) \quad \text{is linear in } g, \qquad (R^* v)(X_i, X_j) = v_i \\ \mathbb{E}\langle R_g, v\rangle = \bigl\langle g,\ \mathbb{E}[v_1 \mid X_1, X_2]\bigr\rangle_\rho",
        paper=PAPER,
        reference="Paper B, model: forward operator R_g; adjoint ours",
        title="Linearity and adjoint of the forward operator",
        statement_tex=(r"$R_g[X]_i = \frac{1}{N-1}\sum_{j \ne i} g(X_i, X_j)$ is linear in $g$; its adjoint for "
                       r"the per-token and pair inner products is $(R^* v)(X_i, X_j) = v_i$, and "
                       r"$\mathbb{E}\langle R_g, v\rangle = \langle g, \mathbb{E}[v_1 \mid X_1, X_2]\rangle_\rho$."),
        statement="R_g[X]_i = (1/(N-1)) sum_{j!=i} g(X_i,X_j) is linear in g; its adjoint for the per-token and "
                  "pair inner products is (R*v)(X_i,X_j) = v_i, and E<R_g,v> = <g, E[v_1|X_1,X_2]>_rho",
        experiment=_forward_experiment,
        equations=_equations("forward_operator"),
        status="derived",
        allowance_note="rows 1-2: the derivation's operator (linear combination) and adjoint, compiled and "
                       "evaluated on the simulator's pair tables, against the simulator's forward operator on the "
                       "same samples: allowance 1e-12 x sum|terms| (float64 rounding); rows 3-4 are Monte Carlo "
                       "against exact SymPy values (no allowance); rows 5-6: the exact value against the tensor "
                       "Gauss-Legendre rule of the uniform law (3 and 4 nodes per token, both exact for the "
                       "worked example's polynomial integrand) applied to the simulator's forward operator, "
                       "deterministic: allowance |Q4 - Q3| + 1e-12 x sum|weighted terms| + 10^(1-dps) |value| (the "
                       "precision asked for with --dps).",
        mutants=("B.forward.weight:1/N", "B.forward.operator:diagonal", "B.forward.adjoint:slot",
                 "B.forward.pair_measure:N^2", "B.forward.adjoint_kernel:second_slot"),
        outputs=("B.forward.operator", "B.forward.adjoint"),
    ),
    Claim(
        design_only=DESIGN_ONLY,
        id="B.coercivity.identity",
        statement_eq=r"\mathbb{E}|R_h[X]_1|^2 = \frac{1}{N - 1}\,\mathbb{E}\, h(X_1, X_2)^2 + \frac{N - 2}{N - 1}\,\mathbb{E}[h(X_1, X_2)\, h(X_1, X_3)] \\ \mathcal{E}_\infty(g) - \mathcal{E}_\infty(g^*) = \mathbb{E}|R_h[X]_1|^2, \qquad h = g - g^*",
        paper=PAPER,
        reference="Paper B, Lemma 3.4; identity and coefficients ours",
        title="The excess-risk identity for exchangeable tokens (Lemma 3.4)",
        statement_tex=(r"For exchangeable tokens, $\mathbb{E}|R_h[X]_1|^2 = "
                       r"\frac{1}{N-1}\,\mathbb{E}\,h(X_1,X_2)^2 + "
                       r"\frac{N-2}{N-1}\,\mathbb{E}[h(X_1,X_2)\,h(X_1,X_3)]$, and $\mathcal{E}_\infty(g) - "
                       r"\mathcal{E}_\infty(g^*) = \mathbb{E}|R_h[X]_1|^2$."),
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
        design_only=DESIGN_ONLY,
        id="B.coercivity.conditionally_iid",
        statement_eq=r"X_j = c Z + W_j: \qquad \mathbb{E}[h(X_1, X_2)\, h(X_1, X_3)] = \mathbb{E}\bigl[\mathbb{E}[h(X_1, X_2) \mid X_1, Z]^2\bigr] \ge 0 \\ \mathbb{E}|R_h[X]_1|^2 \ge \frac{1}{N - 1}\, \|h\|_\rho^2",
        paper=PAPER,
        reference="Paper B, Lemma 3.4 for i.i.d. / conditionally i.i.d. tokens; proof ours",
        title="Coercivity for conditionally i.i.d. tokens (Lemma 3.4)",
        statement_tex=(r"For $X_j = cZ + W_j$: $\mathbb{E}[h(X_1,X_2)\,h(X_1,X_3)] = "
                       r"\mathbb{E}\bigl[\mathbb{E}[h(X_1,X_2) \mid X_1, Z]^2\bigr] \ge 0$, so Lemma~3.4 holds "
                       r"with the constant $1/(N-1)$, with equality when the conditional mean vanishes."),
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
        design_only=DESIGN_ONLY,
        id="B.coercivity.counterexample",
        statement_eq=r"N = 3,\ X \text{ a permutation of } \{a, b, c\},\ h(x, y) = f(y): \qquad \mathbb{E}|R_h|^2 = \frac{1}{6} < \frac{\|h\|_\rho^2}{N - 1} = \frac{1}{3} \\ \inf_{h} \frac{\mathbb{E}|R_h|^2}{\|h\|_\rho^2} = \frac{1}{N - 1}\, \frac{k - N}{k - 2} \quad (\text{the first } N \text{ of } k \text{ exchangeable tokens})",
        paper=PAPER,
        reference="Paper B, Lemma 3.4 under A1 (erratum)",
        title="Coercivity fails under finite exchangeability (Lemma 3.4, erratum)",
        statement_tex=(r"Finite exchangeability is not enough: for $N = 3$ tokens forming a permutation of $\{a, "
                       r"b, c\}$ and $h(x,y) = f(y)$, $\mathbb{E}|R_h|^2 = 1/6 < \|h\|_\rho^2/(N-1) = 1/3$; the "
                       r"worst ratio over the first $N$ tokens of an urn of $k$ is $(k-N)/(k-2)$, which is $0$ for "
                       r"$k = N$ ($g^*$ is not identifiable: the null space has dimension $N(N-2)$)."),
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
                       "well-conditioned matrices, + 10^(1-dps) |eigenvalue ratio| for --dps); null dimensions are integer counts (allowance 0).",
        mutants=("B.counterexample.p1:k", "B.counterexample.p2:with_replacement",
                 "B.counterexample.null_dimension:no_constraints", "B.forward.weight:1/N"),
        outputs=("B.counterexample.example", "B.counterexample.ratio_min", "B.counterexample.null_dimension"),
    ),
]
