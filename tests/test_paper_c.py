"""Paper C (positional vs semantic attention): derivation, solver machinery, simulator, the
reference claim against the authors' tables and the solve problem."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from derivations.paper_c import attention_erm as D


def test_derivation_steps_and_latex():
    from numerics.latex import latex

    eqs = D.equations()
    assert {"C.prox.objective", "C.prior.q", "C.out.mse", "C.channel.Vhat"} <= set(eqs)
    for eq in eqs.values():
        assert latex(eq.rhs)
    # the loss is (sigma^2/2) |S - T|_F^2: zero when the student's attention equals the teacher's
    ell = D.attention()["ell"]
    same = ell.subs({D.omega: 0, D.h1: D.s1, D.h2: D.s2})
    assert sp.simplify(same) == 0


def test_prior_updates_are_the_ridge_solution():
    """q = sigma^2 |Q|^2/d, m = 1.Q/d and theta = sigma^2 Q*.Q/d of Q = (mhat 1 + thetahat sigma^2 Q*
    + sqrt(qhat) sigma g)/(lambda + Vhat sigma^2), |Q*|^2/d = 1, g ~ N(0, I_d): the expectations."""
    pr = D.prior()
    den = D.lam + D.Vh * D.sigma**2
    # E|Q|^2/d = (mhat^2 + thetahat^2 sigma^4 + qhat sigma^2)/den^2
    assert sp.simplify(pr[D.q] - D.sigma**2 * (D.mh**2 + D.th**2 * D.sigma**4 + D.qh * D.sigma**2) / den**2) == 0
    assert sp.simplify(pr[D.theta] - D.sigma**2 * D.th * D.sigma**2 / den) == 0


def test_prox_minimiser_on_a_convex_quadratic():
    from numerics.theory.paper_c.prox2d import minimise

    a = np.linspace(-2, 2, 7)
    obj = lambda x, y, a: (x - a) ** 2 + 2 * (y + a) ** 2 + x * y  # noqa: E731
    grad = lambda x, y, a: [2 * (x - a) + y, 4 * (y + a) + x]  # noqa: E731
    hess = lambda x, y, a: [2.0, 1.0, 1.0, 4.0]  # noqa: E731
    sol = minimise(obj, grad, hess, [np.zeros((2, a.size))], (a,))
    h, _ = sol.value
    expected = np.linalg.solve([[2, 1], [1, 4]], np.stack([2 * a, -4 * a]))
    assert np.allclose(h, expected, atol=1e-9)


def test_exact_jacobian_matches_finite_differences():
    """The implicit-function Jacobian of the averaged integrands (from SymPy) against central
    differences of the averages themselves (n = 4 nodes per axis: the rule is fixed, so the
    comparison is exact up to the differencing error and the prox tolerance)."""
    from numerics.theory.paper_c import equations as E

    cmp = E.compiled()
    avg = E.Averages(cmp, 4, 0.5, 0.3)
    x = np.array([0.08, 0.05, 15.0, 0.1])
    s = avg(x)
    assert s.ok
    J = s.raw["dE"]
    for j in range(4):
        e = np.zeros(4)
        e[j] = 1e-4 * max(0.1, abs(x[j]))
        fd = (avg(x + e).raw["E"] - avg(x - e).raw["E"]) / (2 * e[j])
        assert np.allclose(J[:, j], fd, rtol=1e-3, atol=2e-6), (j, J[:, j], fd)


def test_simulator_gradient_and_baseline():
    from numerics.experiments.paper_c.simulate import risk_and_grad, run, sample

    rng = np.random.default_rng(np.random.SeedSequence([3, 1, 4]))
    d = 12
    x, y = sample(rng, 9, d, 0.5, 0.3, rng.standard_normal(d))
    Q = rng.standard_normal(d)
    _, g = risk_and_grad(Q, x, y, 0.01)
    eps = 1e-6
    fd = [(risk_and_grad(Q + eps * e, x, y, 0.01)[0] - risk_and_grad(Q - eps * e, x, y, 0.01)[0]) / (2 * eps)
          for e in np.eye(d)]
    assert np.allclose(g, fd, atol=1e-8)
    out = run(rng, 30, 0.5, n_test=200)
    assert out["semantic"]["converged"] and out["positional"]["converged"]
    assert out["positional"]["m"] > 0.1 and out["linear"]["mse"] > 0


def test_reference_claim_quick_passes(quick_evidence):
    from numerics import registry
    from numerics.claims.base import judge

    claim = registry.claims()["C.reference.theory"]
    verdict = judge(quick_evidence(claim), 0.0, claim)  # the session's one quick collection
    assert verdict.passed, verdict


@pytest.mark.slow
def test_reference_claim_power():
    import attncheck

    p = attncheck.power("C.reference.theory")
    assert all(m.killed for m in p.mutants), p
    assert all(p.scaled.values()) and p.scale_exact


def test_solve_cli_refuses_bad_branch_and_solves():
    r = subprocess.run([sys.executable, "-m", "numerics.cli", "solve", "positional-semantic", "--branch", "both"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "branch" in (r.stderr + r.stdout)
    import attncheck

    res = attncheck.solve("positional-semantic", branch="positional", alpha=1.0, log2_points=8, n_scrambles=2)
    assert res.ok and 0.2 < abs(float(res.value["m"])) < 0.3


def test_every_branch_of_the_vocabulary_has_a_start_and_is_simulated():
    from numerics.experiments.paper_c import simulate
    from numerics.papers.paper_c.vocabulary import BRANCHES
    from numerics.theory.paper_c.equations import STARTS

    assert tuple(STARTS) == BRANCHES
    assert tuple(simulate.run.__kwdefaults__["branches"]) == BRANCHES


def test_linear_baseline_is_exact_for_a_linear_teacher():
    """omega = 1: the teacher is y = A z, which the linear baseline B = A fits exactly; for
    omega < 1 the softmax part leaves an error, decreasing in omega."""
    from numerics.theory.paper_c.linear import mse_linear

    zero, err = mse_linear(0.5, 1.0, n=20)
    assert abs(zero) < 1e-14 and err < 1e-14
    vals = [mse_linear(0.5, om, n=20)[0] for om in (0.1, 0.3, 0.6)]
    assert vals[0] > vals[1] > vals[2] > 0
    assert abs(vals[1] - 0.0039428) < 1e-6  # docs/paper_c.md §5 (the authors' notebook: 0.0039809)


def test_rqmc_solve_reports_a_standard_error():
    """The randomized-QMC variant of the solve: converged, the outputs' se from the scramblings."""
    from numerics.theory.paper_c import equations as E

    sol = E.solve_rqmc("positional", 1.0, log2_points=9, n_scrambles=2, x0=(0.043, 0.25, 16.0, 0.0), n_sweeps=0)
    fp = sol.value
    assert 0.2 < abs(fp.overlaps["m"]) < 0.3 and fp.errors["mse"] > 0 and fp.errors["q"] > 0


def test_simulator_runs_one_branch_only():
    from numerics.experiments.paper_c.simulate import run

    out = run(np.random.default_rng(np.random.SeedSequence([2, 7])), 30, 0.5, n_test=200,
              branches=("positional",), linear=False)
    assert set(out) == {"positional"} and out["positional"]["converged"]


def test_sim_positional_claim_quick_passes(quick_evidence):
    from numerics import registry
    from numerics.claims.base import judge

    claim = registry.claims()["C.sim.positional"]
    verdict = judge(quick_evidence(claim), 0.0, claim)  # the session's one quick collection
    assert verdict.passed, verdict
    assert {r.label.split()[0] for r in verdict.rows} == {"m"}
    # its mutants and the ±5 % scaling: tests/test_mutation_catalogue.py (default suite)



def test_polish_keeps_the_float64_root_of_a_rule():
    """The mpmath polish (30 digits) of the 3-node tensor rule's positional root: one Newton
    step, a residual at the working precision, and the float64 root right to >= 12 digits."""
    from numerics.theory.paper_c.polish import polish

    sol = polish("positional", 1.0, 3, x0=(0.0457, 0.249, 16.7, 0.0), n_sweeps=0)
    v = sol.value
    assert sol.residual < 1e-25 and v["digits"] >= 12
    assert abs(float(v["x"][1]) - 0.2490778428506710) < 1e-12


@pytest.mark.parametrize("claim_id", ["C.sim.semantic", "C.transition"])
def test_branch_claims_quick_pass(quick_evidence, claim_id):
    """Both branches against ERM from both starts (one shared simulation); the transition's gap
    rows carry the side each initialisation's training loss is on."""
    from numerics import registry
    from numerics.claims.base import judge

    claim = registry.claims()[claim_id]
    ev = quick_evidence(claim)
    verdict = judge(ev, 0.0, claim)
    assert verdict.passed, verdict
    if claim_id == "C.transition":
        sides = [(c["theory side"], c["sim side"]) for c in ev.details["cells"] if "theory side" in c]
        assert [t for t, _ in sides] == ["positional lower", "semantic lower", "semantic lower"]
        assert [s for _, s in sides] == ["positional lower", "semantic lower", "semantic lower"]
    # its mutants and the ±5 % scaling: tests/test_mutation_catalogue.py (default suite)


def test_simulator_teacher_on_the_sphere():
    from numerics.experiments.paper_c.simulate import run

    out = run(np.random.default_rng(np.random.SeedSequence([2, 8])), 30, 0.5, n_test=200, linear=False,
              branches=("semantic",), teacher="sphere")
    assert out["semantic"]["converged"] and out["semantic"]["objective"] > 0
    with pytest.raises(ValueError, match="teacher"):
        run(np.random.default_rng(0), 30, 0.5, teacher="uniform")


def test_sim_positional_at_a_point_far_from_the_authors_omega():
    """C.sim.positional at omega = 0.5, the top of its declared domain: the design and the
    explore tests run at omega = 0.2-0.3, where a theory that ignored the point's omega would
    stay within the tolerance.  Here the claim passes, and the theory at the authors' omega
    (0.3) is further from the simulation than the row's tolerance, so a claim whose theory
    ignored the point's omega fails.  About 4 s of CPU (one alpha, 20 instances at d = 400 and
    d = 200)."""
    import attncheck
    from numerics.claims.paper_c import simulation as S

    (v,) = attncheck.verify("C.sim.positional", params={"alpha": 0.6, "omega": 0.5}, workers=1)
    assert v.passed and len(v.rows) == 1, v
    row = v.rows[0]
    assert v.sizes["omega"] == 0.5
    at_authors, _ = S.theory(0.6, S.DESIGN["quick"]["nodes"], S.SETTING["omega"])
    assert S.SETTING["omega"] == 0.3
    assert abs(row.mean - abs(float(at_authors["m"]))) > 2 * row.tolerance  # the point's omega matters here


#: the Newton tolerance of Paper C's solves (docs/paper_c.md §3: "to a Newton correction below 1e-8")
NEWTON_TOL = 1e-8
#: how closely a reported value and its direct solve agree: the same computation gives the same
#: float, and the change between two rules (n vs n + 4 nodes, two scramblings: 1e-5 to 1e-2
#: relative) is far above it
SAME = 1e-9


def _close(a, b) -> bool:
    return abs(a - b) <= SAME * max(1.0, abs(b))


def _outputs(res: dict, overlaps=("q", "m", "V", "theta"), phi="phi") -> dict:
    """A rule's solve (``equations.solve_on_rule``) as the names of the reported values."""
    return {**dict(zip(overlaps, res["x"])), **dict(zip(("qhat", "mhat", "Vhat", "thetahat"), res["hats"])),
            "mse": res["mse"], phi: res["phi"]}


def test_solve_reports_the_overlaps_and_outputs_of_the_rule_it_names():
    """``equations.solve`` reports the overlaps, conjugates, test error and Phi of one rule, the
    one it names (``n_nodes`` = n + 4 nodes per axis): each equals a direct solve on that rule
    (started, as the solve is, from the root on n nodes), and each error is the change from
    the root on n nodes.  An overlap of one rule reported next to outputs of the other shifts
    by the error estimate itself, which no statistical check sees."""
    from numerics.theory.paper_c import equations as E

    n = 4
    fp = E.solve("positional", 1.0, n=n).value
    assert fp.n_nodes == n + 4 and fp.residual <= NEWTON_TOL
    coarse = E.solve_on_rule("positional", 1.0, n).value
    fine = _outputs(E.solve_on_rule("positional", 1.0, n + 4, x0=coarse["x"], n_sweeps=0).value)
    coarse = _outputs(coarse)
    reported = {**fp.overlaps, **fp.conjugates, "mse": fp.mse, "phi": fp.phi}
    wrong = {k: (reported[k], fine[k]) for k in fine if not _close(reported[k], fine[k])}
    assert not wrong, f"reported (left) is not the solve on {n + 4} nodes per axis (right): {wrong}"
    for k in ("q", "m", "V", "theta", "mse", "phi"):
        assert _close(fp.errors[k], abs(coarse[k] - fine[k])), (k, fp.errors[k], abs(coarse[k] - fine[k]))
    assert min(abs(coarse[k] - fine[k]) / abs(fine[k]) for k in ("q", "m", "V", "mse", "phi")) > 1e3 * SAME
    values, _ = E.reported(fp)  # the claims' reported outputs (step C.out.reported)
    assert values == {"mse": fp.mse, "Phi": fp.phi, **fp.overlaps}


def test_solve_problem_reports_the_mean_over_its_rules():
    """``attncheck solve positional-semantic`` (randomized QMC): every reported overlap,
    conjugate and output is the mean over the scramblings of a direct solve on each scrambled
    rule (``equations.rqmc_rules``; each started, as the solve is, from the root of the rule
    before), and its standard error is theirs."""
    import attncheck
    from numerics.theory.paper_c import equations as E

    p = dict(alpha=1.0, log2_points=8, n_scrambles=3, qmc_seed=3)
    res = attncheck.solve("positional-semantic", branch="positional", **p)
    assert res.ok and res.residual <= NEWTON_TOL
    runs, x0 = [], None
    for rule in E.rqmc_rules("positional", 1.0, p["log2_points"], p["n_scrambles"], p["qmc_seed"]):
        r = E.solve_on_rule("positional", 1.0, rule, x0=x0, n_sweeps=30 if x0 is None else 0).value
        runs.append(_outputs(r, phi="Phi"))
        x0 = r["x"]
    for k in runs[0]:
        v = np.array([r[k] for r in runs])
        got = res.value[k]
        assert _close(float(got), v.mean()), (k, float(got), v)
        se = v.std(ddof=1) / np.sqrt(len(v))
        assert abs(float(got.error) - se) <= SAME * max(1.0, se), (k, got.error, se)
    assert abs(runs[0]["m"] - runs[1]["m"]) > 1e3 * SAME  # the scramblings differ
