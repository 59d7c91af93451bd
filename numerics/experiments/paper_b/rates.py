"""Rate experiments of Paper B's Figure 1: test error of the ERM vs M, log-log slope.

Setup (docs/paper_b.md "Rate experiments", where every choice the paper leaves open is fixed):

* tokens i.i.d. Uniform[-1, 1]^d, N tokens per sample, Gaussian noise sigma;
* A* of rank r, ``kind="coordinate"`` (|x^T A* y| <= 1 on the cube and a law of U that is the
  same for every d), phi* a B-spline of degree P with ``phi_pieces`` equal pieces on [-1, 1]
  and coefficients Uniform[-1, 1]; one (phi*, A*) per configuration (the "problem seed"),
  fresh data per seed;
* estimator: splines of the same degree P (beta = P - 1) with spline dimension
  n_M = K_M + P = c M^{1/(2 beta + 1)}; the M grid is chosen so that n_M is an integer for every
  M (M = round((n / c)^{2 beta + 1}) for consecutive integers n), so that rounding K_M does not
  distort the slope;
* error ||g_hat - g*||^2_rho on ``n_test`` fresh token pairs (one test set per configuration,
  shared by the seeds), median over seeds, slope of log(median) on log M by least squares,
  bootstrap over seeds (resampling seeds with replacement at every M) for its standard error
  and a percentile CI;
* ``oracle=True`` fixes A = A* (the phi rate), else the full ERM (A learnt by L-BFGS on the
  sphere ||A||_F = ||A*||_F, the class bound a_bar of Theorem 3.1 taken as known), paired
  with the oracle fit on the same data so that the parametric excess is measured per seed.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from numerics.core.seeding import child, children

from numerics.experiments.paper_b.pairwise_erm import PairwiseERM, g_error
from numerics.core.params import ParameterError
from numerics.papers.paper_b.vocabulary import SEEDS  # noqa: F401  (re-exported)
from numerics.experiments.paper_b.interacting_particles import (
    InteractingParticleModel, UniformCube, bspline_link, interaction_matrix, pair_values,
)

G_PAIRS = 2_000_000  # token pairs for the rho-Gram of the basis in the oracle experiment


def m_grid(beta: float, c: float, n_values) -> list[int]:
    """M such that c M^{1/(2 beta + 1)} = n for each spline dimension n."""
    return [int(round((n / c) ** (2.0 * beta + 1.0))) for n in n_values]


@dataclass(frozen=True)
class RateSetup:
    P: int = 3
    d: int = 1
    r: int = 1
    N: int = 4
    sigma: float = 0.5
    n_values: tuple = (8, 9, 10, 12, 14, 16)
    c: float = 2.0
    seeds: int = 20
    oracle: bool = True
    phi_pieces: int = 4
    kind: str = "coordinate"
    n_test: int = 20_000
    restarts: int = 2

    @property
    def beta(self) -> int:
        return self.P - 1

    @property
    def Ms(self) -> list[int]:
        return m_grid(self.beta, self.c, self.n_values)

    def pieces(self) -> list[int]:
        return [n - self.P for n in self.n_values]

    def check(self):
        if self.P < 2:
            raise ParameterError(f"parameter P: must be an integer >= 2 (beta = P - 1 > 0), got {self.P}")
        if min(self.n_values) <= self.P:
            raise ParameterError(f"parameter n_values: every spline dimension must exceed P = {self.P}")
        SEEDS.parse(self.seeds)


@dataclass
class RateResult:
    setup: RateSetup
    Ms: list
    errors: np.ndarray          # (seeds, len(Ms))
    test_se: np.ndarray          # Monte Carlo se of each test error
    not_converged: int
    fit_seconds: float
    bias: list = field(default_factory=list)  # noise-free error at each M (sigma = 0)
    oracle_errors: np.ndarray | None = None  # learnt runs: the oracle fit on the same data
    alignment: np.ndarray | None = None  # learnt runs: |<A_hat, A*>_F| / (|A_hat|_F |A*|_F)
    errors_halves: np.ndarray | None = None  # oracle runs: errors with each half's G (2, seeds, M)

    def medians(self) -> np.ndarray:
        return np.median(self.errors, axis=0)


def make_problem(setup: RateSetup, problem_ss: np.random.SeedSequence):
    """(phi*, A*) from two independent children of ``problem_ss``: phi* does not depend on d,
    so panel (a) compares the same link across dimensions."""
    # the two children spawn(2) would give on its first call, built explicitly: spawn() is
    # stateful, and a second call on the same object silently returned a different problem
    phi_ss, a_ss = (child(problem_ss, k)
                    for k in (0, 1))
    phi = bspline_link(np.random.default_rng(phi_ss), setup.P, setup.phi_pieces)
    A = interaction_matrix(np.random.default_rng(a_ss), setup.d, setup.r, setup.kind)
    return InteractingParticleModel(UniformCube(), A, phi, setup.sigma, setup.N)


def run_rate(setup: RateSetup, seed_seq: np.random.SeedSequence, progress=None,
             with_bias: bool = True, problem: np.random.SeedSequence | None = None) -> RateResult:
    """Fit at every (seed, M); see the module docstring.  ``seed_seq`` is spawned into a
    problem stream, a test stream and one stream per seed."""
    setup.check()
    problem_ss, test_ss, bias_ss, *seed_ss = children(seed_seq, 3 + setup.seeds)
    model = make_problem(setup, problem_ss if problem is None else problem)
    x1, x2 = model.sample_pairs(np.random.default_rng(test_ss), setup.n_test)
    Ms = setup.Ms
    errors = np.empty((setup.seeds, len(Ms)))
    ses = np.empty_like(errors)
    oracle = None if setup.oracle else np.empty_like(errors)
    align = None if setup.oracle else np.empty_like(errors)
    a_star = model.A.A / np.linalg.norm(model.A.A)
    bad = 0
    t0 = time.perf_counter()
    seeds = range(setup.seeds)
    if progress is not None:
        seeds = progress(seeds, f"P={setup.P} d={setup.d}")
    for s in seeds:
        rng = np.random.default_rng(seed_ss[s])
        X_all, Y_all = model.simulate(rng, max(Ms))  # nested samples: the first M of one draw
        for k, (M, K) in enumerate(zip(Ms, setup.pieces())):
            est = PairwiseERM(setup.P, K, setup.r, restarts=setup.restarts,
                              a_bar=float(np.linalg.norm(model.A.A)))
            X, Y = X_all[:M], Y_all[:M]
            fit = est.fit_phi(X, Y, model.A) if setup.oracle else est.fit(X, Y, rng)
            bad += not fit.converged
            errors[s, k], ses[s, k] = g_error(fit, model.g_star, x1, x2)
            if not setup.oracle:  # the oracle on the same data: the paired excess
                oracle[s, k] = g_error(est.fit_phi(X, Y, model.A), model.g_star, x1, x2)[0]
                align[s, k] = abs(np.sum(fit.A.A * a_star)) / np.linalg.norm(fit.A.A)
    elapsed = time.perf_counter() - t0
    bias = []
    if with_bias:
        # noise-free oracle fit on the largest sample: the approximation (bias) part of the
        # error at each K, to show how much of the measured error is bias.
        quiet = InteractingParticleModel(model.law, model.A, model.phi, 0.0, model.N)
        Xb, Yb = quiet.simulate(np.random.default_rng(bias_ss), max(Ms))
        for K in setup.pieces():
            fit = PairwiseERM(setup.P, K, setup.r).fit_phi(Xb, Yb, model.A)
            bias.append(g_error(fit, model.g_star, x1, x2)[0])
    return RateResult(setup, Ms, errors, ses, bad, elapsed, bias, oracle, align)


@dataclass(frozen=True)
class SlopeFit:
    slope: float
    se: float
    ci: tuple
    boot: int

    def as_dict(self):
        return asdict(self)


def loglog_slope(Ms, values) -> float:
    x = np.log(np.asarray(Ms, dtype=float))
    y = np.log(np.asarray(values, dtype=float))
    x = x - x.mean()
    return float(x @ (y - y.mean()) / (x @ x))


def bootstrap_slope(Ms, errors: np.ndarray, rng: np.random.Generator, boot: int = 2000,
                    level: float = 0.95) -> SlopeFit:
    """Slope of log(median over seeds) vs log M; bootstrap over seeds (independently at each
    M column would break the nesting, so whole seeds are resampled)."""
    errors = np.asarray(errors)
    S = errors.shape[0]
    slope = loglog_slope(Ms, np.median(errors, axis=0))
    idx = rng.integers(0, S, size=(boot, S))
    med = np.median(errors[idx], axis=1)  # (boot, len(Ms))
    x = np.log(np.asarray(Ms, dtype=float))
    x = x - x.mean()
    ly = np.log(med)
    slopes = (ly - ly.mean(axis=1, keepdims=True)) @ x / (x @ x)
    a = (1 - level) / 2
    ci = (float(np.quantile(slopes, a)), float(np.quantile(slopes, 1 - a)))
    return SlopeFit(slope, float(slopes.std(ddof=1)), ci, boot)


def oracle_slope(res: RateResult, rng: np.random.Generator) -> SlopeFit:
    """``bootstrap_slope`` of an oracle run (``run_rate_oracle_rb``), with the error of the
    shared rho-Gram G added to its se: |slope with G half a - half b| / 2."""
    fit = bootstrap_slope(res.Ms, res.errors, rng)
    sa, sb = (loglog_slope(res.Ms, np.median(e, axis=0)) for e in res.errors_halves)
    return SlopeFit(fit.slope, float(np.hypot(fit.se, abs(sa - sb) / 2)), fit.ci, fit.boot)


#: the Gram route is taken when cond(Phi)^2 stays below this (then the coefficients keep at least
#: 8 correct digits: float64 Gram errors are eps cond^2 relative); otherwise the SVD of Phi
GRAM_COND2_MAX = 1e8


def _least_squares_factors(Phi: np.ndarray, F: np.ndarray):
    """The minimum-norm least-squares fit of F on Phi (ridge 0) through the right singular
    vectors: (sv, Vt, coef) with sv the kept singular values of Phi / sqrt(m), Vt their right
    singular vectors and coef = Gram^+ Phi^T F / m, Gram = Phi^T Phi / m = Vt^T diag(sv^2) Vt.

    A well-conditioned Phi goes through the eigendecomposition of its Gram matrix (one BLAS
    product of Phi with itself: about 25 times cheaper than the SVD of a tall Phi); when the Gram
    matrix's condition number passes ``GRAM_COND2_MAX`` (or Phi is rank deficient) the SVD of
    Phi / sqrt(m) is used, with the usual rank cut sv > sv_max eps max(shape)."""
    m = Phi.shape[0]
    gram = Phi.T @ Phi / m
    w, V = np.linalg.eigh(gram)
    if w[0] > 0 and w[0] * GRAM_COND2_MAX > w[-1]:
        sv, Vt = np.sqrt(w), V.T
        coef = V @ ((Vt @ (Phi.T @ F / m)) / w)
        return sv, Vt, coef
    Us, sv, Vt = np.linalg.svd(Phi / np.sqrt(m), full_matrices=False)
    keep = sv > sv[0] * np.finfo(float).eps * max(Phi.shape)
    Us, sv, Vt = Us[:, keep], sv[keep], Vt[keep]
    return sv, Vt, Vt.T @ ((Us.T @ F) / (sv * np.sqrt(m)))


def oracle_expected_error(est: PairwiseERM, X: np.ndarray, F: np.ndarray, A, sigma: float,
                          B_test: np.ndarray, g_test: np.ndarray, G=None):
    """E_eta ||g_hat - g*||^2_rho given the design X, for the oracle fit (A = A* fixed),
    with the Gaussian noise integrated out exactly (conditional Monte Carlo):

        c_hat = Gram^+ Phi^T (F + eta) / m,  Gram = Phi^T Phi / m   (m = M N rows, ridge 0),
        E err = mean_test (B_test Gram^+ Phi^T F / m - g*)^2 + sigma^2 tr(G_test Gram^+) / m,

    G_test = B_test^T B_test / n_test; B_test the basis at the test pairs' u = x1^T A* x2.
    With ``G`` (a list of rho-Gram estimates of the basis) the variance part uses each G in
    place of G_test and ``var`` is the list of the results.
    Returns (expected error, bias part, variance part) — with ``G``, the error for G[0]."""
    Phi = est.basis.averaged_design(pair_values(X, A))
    sv, Vt, coef = _least_squares_factors(Phi, F.ravel())
    m = Phi.shape[0]
    bias = float(np.mean((B_test @ coef - g_test) ** 2))
    if G is not None:  # tr(G Gram^+) = tr(V^T G V S^-2)
        var = [float(sigma**2 * np.sum(np.diag(Vt @ g @ Vt.T) / sv**2) / m) for g in G]
        return bias + var[0], bias, var
    BV = B_test @ Vt.T / sv  # (n_test, rank)
    var = float(sigma**2 * np.sum(BV**2) / B_test.shape[0] / m)
    return bias + var, bias, var


def run_rate_oracle_rb(setup: RateSetup, seed_seq: np.random.SeedSequence, progress=None,
                       problem: np.random.SeedSequence | None = None,
                       model: InteractingParticleModel | None = None) -> RateResult:
    """Oracle-A rate experiment with the noise integrated out (``oracle_expected_error``):
    errors[s, k] = E_eta[err | design of seed s at M_k].  Per-seed variability then comes from
    the token design only, which makes slopes precise enough for the +-5% mutation test.

    Test quantities.  The bias part is measured on test pairs drawn per seed (a child stream
    of the seed's), so its Monte Carlo error is inside the bootstrap over seeds.  The variance
    part sigma^2 tr(G Gram^-1)/m needs the rho-Gram G of the basis, shared by all seeds: with
    G from the 20 000 test pairs its error moved the slope by ~0.02 between test sets while the
    bootstrap se said 0.006.  G is now estimated on ``G_PAIRS`` fresh pairs in two independent
    halves; ``errors`` uses their mean and ``errors_halves`` each half, so that the claim can
    add the G-error of the slope (|slope_a - slope_b| / 2) to its se.

    ``model`` (optional) replaces the (phi*, A*) of ``make_problem``: any link phi* (a callable
    of u) with the setup's law, noise and N; ``setup`` then only needs the attributes used here
    (P, r, N, sigma, seeds, n_test, Ms, pieces(), check())."""
    setup.check()
    problem_ss, g_ss, _, *seed_ss = children(seed_seq, 3 + setup.seeds)
    if model is None:
        model = make_problem(setup, problem_ss if problem is None else problem)
    quiet = InteractingParticleModel(model.law, model.A, model.phi, 0.0, model.N)
    Ms = setup.Ms
    ests = [PairwiseERM(setup.P, K, setup.r) for K in setup.pieces()]
    g_pairs = getattr(setup, "g_pairs", G_PAIRS)
    halves = []
    for h_ss in children(g_ss, 2):  # two independent estimates of G per K
        acc = [np.zeros((e.basis.n, e.basis.n)) for e in ests]
        rng = np.random.default_rng(h_ss)
        for _ in range(g_pairs // 2 // 100_000):
            u = model.A.form(*model.sample_pairs(rng, 100_000))
            for k, e in enumerate(ests):
                B = e.basis.design(u)
                acc[k] += B.T @ B
        halves.append([a / (g_pairs // 2) for a in acc])
    G_mean = [(a + b) / 2 for a, b in zip(*halves)]
    errors = np.empty((setup.seeds, len(Ms)))
    errors_halves = np.empty((2, setup.seeds, len(Ms)))
    bias = np.empty_like(errors)
    t0 = time.perf_counter()
    seeds = range(setup.seeds)
    if progress is not None:
        seeds = progress(seeds, f"P={setup.P} d={setup.d} (oracle)")
    for s in seeds:
        X_all, F_all = quiet.simulate(np.random.default_rng(seed_ss[s]), max(Ms))
        test_ss = child(seed_ss[s], 1)
        u_test = model.A.form(*model.sample_pairs(np.random.default_rng(test_ss), setup.n_test))
        g_test = model.phi(u_test)
        for k, M in enumerate(Ms):
            errors[s, k], bias[s, k], var = oracle_expected_error(
                ests[k], X_all[:M], F_all[:M], model.A, setup.sigma, ests[k].basis.design(u_test), g_test,
                G=[G_mean[k], halves[0][k], halves[1][k]])
            errors_halves[:, s, k] = bias[s, k] + np.asarray(var[1:])
    elapsed = time.perf_counter() - t0
    return RateResult(setup, Ms, errors, np.zeros_like(errors), 0, elapsed, list(np.median(bias, axis=0)),
                      errors_halves=errors_halves)


@dataclass(frozen=True)
class Prediction:
    """Pre-asymptotic error curve E(M) = bias(K_M) + sigma^2 (V1 + V2/M) / (M N) (fixed K,
    expansion in 1/M; ``slope`` of the second-order curve, ``slope_first_order`` with V2 = 0)."""

    Ms: list
    bias: list
    V: list
    slope: float
    se: float
    slope_first_order: float = float("nan")
    bias_halves: list = field(default_factory=list)  # bias(K) of each population
    V1_halves: list = field(default_factory=list)  # V1(K) of each population

    def curve(self, sigma: float, N: int) -> np.ndarray:
        V = np.asarray(self.V, dtype=float).reshape(len(self.Ms), -1)
        Ms = np.asarray(self.Ms, dtype=float)
        V2 = V[:, 1] if V.shape[1] > 1 else 0.0
        return np.asarray(self.bias) + sigma**2 * (V[:, 0] + V2 / Ms) / (Ms * N)


def first_order_prediction(setup: RateSetup, seed_seq: np.random.SeedSequence, M_pop: int,
                           halves: int = 2, problem: np.random.SeedSequence | None = None,
                           order: int = 2, model: InteractingParticleModel | None = None) -> Prediction:
    """The pre-asymptotic slope predicted by the first-order variance of least squares with a
    fixed basis (docs/paper_b.md, "Why P = 8 ...").

    For the oracle fit, c_hat - c_K = Sigma^{-1} (1/m) Phi^T eta + o(1/sqrt m), hence
    E err = bias(K) + sigma^2 tr(G Sigma^{-1}) / (M N) + o(1/M), with G = E B(U_12) B(U_12)^T
    (the rho-Gram) and Sigma = E[R_B[X]_1 R_B[X]_1^T] = G/(N-1) + (N-2)/(N-1) C,
    C = E[E[B(U_12)|X_1] E[B(U_13)|X_1]^T].  For N = 2, Sigma = G and V = n (the spline
    dimension), so V/M is exactly c M^{-2beta/(2beta+1)}; for N > 2, V(K) grows faster than n
    (C is large on the smooth part of the basis only), which flattens the slope at finite K.

    ``order = 2`` adds the next term of the expansion of the inverse Gram matrix: with
    Gram = Sigma + Delta, Delta = (1/M) sum_m (S_m - Sigma), S_m the Gram of sample m's N rows
    divided by N, E[Gram^{-1}] = Sigma^{-1} + (1/M) Sigma^{-1} W Sigma^{-1} + O(M^-2),
    W = E[S Sigma^{-1} S] - Sigma, so E err = bias + sigma^2 (V1 + V2/M) / (M N) with
    V1 = tr(G Sigma^{-1}), V2 = tr(G Sigma^{-1} W Sigma^{-1}) (V2 > 0: small M inflates the
    error, which steepens the slope).  ``V`` then holds the pairs (V1, V2).

    Sigma, G (on the same population's token pairs) and bias(K) (the population least-squares
    fit of phi*, measured on the test pairs) are estimated on ``halves`` independent noise-free
    populations of ``M_pop`` samples (independent of the experiment's seeds); ``se`` is the
    standard error of the predicted slope over the halves.  ``model``: as in
    ``run_rate_oracle_rb``."""
    problem_ss, test_ss, *_ = children(seed_seq, 3 + setup.seeds)
    pop_ss = child(seed_seq, 10**6)
    if model is None:
        model = make_problem(setup, problem_ss if problem is None else problem)
    u_test = model.A.form(*model.sample_pairs(np.random.default_rng(test_ss), setup.n_test))
    g_test = model.phi(u_test)
    quiet = InteractingParticleModel(model.law, model.A, model.phi, 0.0, model.N)
    slopes, slopes1, biases, Vs = [], [], [], []
    for h_ss in children(pop_ss, halves):
        X, F = quiet.simulate(np.random.default_rng(h_ss), M_pop)
        Upair = pair_values(X, model.A)
        u_pairs = Upair[:, ~np.eye(setup.N, dtype=bool)].ravel()  # all (i, j), j != i: pairs ~ rho
        b_h, V_h = [], []
        for K in setup.pieces():
            est = PairwiseERM(setup.P, K, setup.r)
            Phi = est.basis.averaged_design(Upair)
            Sigma = Phi.T @ Phi / Phi.shape[0]
            Bt = est.basis.design(u_test)
            # G from the same population's token pairs as Sigma, not from the shared test set:
            # for degree 8 Sigma is nearly singular and a G from an independent sample made
            # tr(G Sigma^-1) (hence s2) vary by ~0.006 between test sets while the se over
            # halves (which shared the test set) said 0.0002
            Bp = est.basis.design(u_pairs)
            G = Bp.T @ Bp / Bp.shape[0]
            coef = est.solve_coef(Phi, F.ravel())
            b_h.append(float(np.mean((Bt @ coef - g_test) ** 2)))
            Sinv = np.linalg.inv(Sigma)
            V1 = float(np.trace(Sinv @ G))
            if order >= 2:
                # W = E[S Sigma^-1 S] - Sigma, S = Ph_m^T Ph_m / N the per-sample Gram (rank <= N):
                # S Sigma^-1 S = Ph_m^T C_m Ph_m / N^2 with C_m = Ph_m Sigma^-1 Ph_m^T (N x N), so the
                # sum over samples is one product of the stacked rows with C_m Ph_m (no n x n per sample)
                n = est.basis.n
                Ph = Phi.reshape(M_pop, setup.N, n)
                C = np.matmul(Ph @ Sinv, np.swapaxes(Ph, 1, 2))  # (M_pop, N, N)
                T = np.matmul(C, Ph).reshape(-1, n)  # rows C_m Ph_m, stacked like Phi
                W = (Phi.T @ T) / (setup.N**2 * M_pop) - Sigma
                V2 = float(np.trace(G @ Sinv @ W @ Sinv))
            else:
                V2 = 0.0
            V_h.append((V1, V2))
        V1s = np.array([v[0] for v in V_h])
        V2s = np.array([v[1] for v in V_h])
        Ms_arr = np.asarray(setup.Ms, dtype=float)
        curve = np.asarray(b_h) + setup.sigma**2 * (V1s + V2s / Ms_arr) / (Ms_arr * setup.N)
        curve1 = np.asarray(b_h) + setup.sigma**2 * V1s / (Ms_arr * setup.N)
        slopes.append(loglog_slope(setup.Ms, curve))
        slopes1.append(loglog_slope(setup.Ms, curve1))
        biases.append(b_h)
        Vs.append(V_h)
    slopes = np.asarray(slopes)
    se = float(slopes.std(ddof=1) / np.sqrt(len(slopes))) if len(slopes) > 1 else 0.0
    return Prediction(list(setup.Ms), list(np.mean(biases, axis=0)),
                      [list(v) for v in np.mean(Vs, axis=0)], float(slopes.mean()), se,
                      float(np.mean(slopes1)), [list(b) for b in biases],
                      [[v[0] for v in V_h] for V_h in Vs])
