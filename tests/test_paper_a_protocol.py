"""The whole-protocol pieces: the finite-d driver (numerics/experiments/paper_a/protocol.py) and
the composed theory (numerics/theory/paper_a/protocol.py).  The numbers are checked by the
claim A.protocol.end_to_end; these tests pin the plumbing."""
import numpy as np

from numerics.experiments.paper_a.protocol import protocol_trial, protocol_trials
from numerics.experiments.paper_a.sparse_token import SparseTokenModel
from numerics.experiments.paper_a.sparse_token_training import run_two_steps
from numerics.theory.paper_a import models as M


def test_run_two_steps_uses_the_given_signal_direction_and_keeps_its_default():
    model = SparseTokenModel(4, 1, 0.5, 3.0, 20)
    ss = np.random.SeedSequence(3)
    xi = model.signal_direction(np.random.default_rng(9))
    given = run_two_steps(model, 30, "square", eta_w=1.0, eta_b=1.0, eta_q=1.0, beta=1.0, seed=ss, xi=xi)
    assert np.array_equal(given.xi, xi)
    a = run_two_steps(model, 30, "square", eta_w=1.0, eta_b=1.0, eta_q=1.0, beta=1.0, seed=ss)
    b = run_two_steps(model, 30, "square", eta_w=1.0, eta_b=1.0, eta_q=1.0, beta=1.0, seed=ss)
    assert np.array_equal(a.q2, b.q2) and not np.array_equal(a.xi, xi)


def test_protocol_trial_rows_and_determinism():
    model = SparseTokenModel(4, 1, 0.5, 3.0, 24)
    pts = ((1.0, 1.0), (0.5, 20.0))
    kw = dict(eta_w=0.5, eta_b=0.5, beta=1.0, n_test=2000, labels="stratified")
    r1 = protocol_trial(model, pts, 2.0, 1e-2, ("logistic", "square"), seed=np.random.SeedSequence(1), **kw)
    r2 = protocol_trial(model, pts, 2.0, 1e-2, ("logistic", "square"), seed=np.random.SeedSequence(1), **kw)
    assert r1 == r2
    keys = {("attention", k, i) for k in ("logistic", "square") for i in range(2)}
    keys |= {(m, k) for m in ("pool", "vec") for k in ("logistic", "square")}
    assert set(r1) == keys
    for key, row in r1.items():
        assert 0.0 <= row["test_error"] <= 1.0 and row["train_loss"] >= 0.0
        if key[0] == "attention":
            assert row["q2_norm"] > 0 and -1.0 <= row["q2_cosine"] <= 1.0
    out = protocol_trials(4, 1, 0.5, 3.0, 24, pts, 2.0, 1e-2, ("square",), 2, np.random.SeedSequence(2), **kw)
    assert out[("pool", "square")]["test_error"].shape == (2,)


def test_solve_protocol_linear_models_are_the_linear_law_and_attention_uses_the_limits():
    from numerics.theory.paper_a import erm_equations as erm_theory
    from numerics.theory.paper_a.alignment import alignment_limits
    from numerics.theory.paper_a.protocol import solve_protocol

    qn, sq, res = solve_protocol(model=M.POOLED, alpha0=1.0, alpha1=2.0, lam=1e-2, loss=M.SQUARE)
    ref = erm_theory.solve_with_error(erm_theory.linear_law(M.POOLED, 10, 1, 0.5, 5.0), 2.0, 1e-2, M.SQUARE).value
    assert qn is None and abs(res.value.metrics["test_error"] - ref.metrics["test_error"]) < 1e-12
    qn, sq, _ = solve_protocol(model=M.ATTENTION, alpha0=2.0, alpha1=2.0, lam=1e-2, loss=M.SQUARE,
                               loss_steps=M.SQUARE, eta_q=3.0, log2_points=6, n_scrambles=2)
    lim = alignment_limits(M.SQUARE, L=10, R=1, pi=0.5, theta=5.0, alpha0=2.0, eta_w=0.5, eta_b=0.5, eta_q=3.0,
                           beta=1.0, dps=20)
    assert abs(qn - float(lim["q2_norm"])) < 1e-12 and abs(sq - float(lim["q2_cosine"])) < 1e-12
