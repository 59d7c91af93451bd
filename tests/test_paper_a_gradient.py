"""A.grad.q2: symbolic gradient identities, the protocol's closed forms, and the simulator's
step 1-3 arithmetic against finite differences."""
import inspect

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st

from derivations.paper_a import gradient as G
from derivations.paper_a.losses import LOGISTIC, SQUARE
from numerics.claims.paper_a import gradient as CG
from numerics.experiments.paper_a import sparse_token_training as training
from numerics.experiments.paper_a.models import loss_value
from numerics.core.seeding import children
from numerics.experiments.paper_a.sparse_token import SparseTokenModel
from numerics.papers.paper_a.vocabulary import BETA, ETA_B, ETA_W


@pytest.mark.parametrize("L", [2, 3, 4])
def test_softmax_jacobian(L):
    assert G.softmax_jacobian_check(L)


@pytest.mark.parametrize("L,d", [(3, 2), (2, 3)])
def test_explicit_gradient_equals_matrix_forms(L, d):
    assert G.explicit_gradient_check(L, d) == {"general": True, "at_zero": True}


def test_wrong_forms_are_rejected():
    X, w, q, b = G.symbols(3, 2)
    direct = G.explicit_gradient(X, w, q, b)
    s = G.softmax(G.beta * X * q)
    assert not G.is_zero(direct - G.beta * X.T * sp.diag(*s) * X * w)  # without -s s^T
    at0 = direct.subs({k: 0 for k in q})
    assert not G.is_zero(at0 - G.beta / 3 * X.T * X * w)  # without the centring


def _data(seed, n, L, d):
    rng = np.random.default_rng(seed)
    Xs = [sp.Matrix(L, d, lambda i, j: sp.Rational(int(rng.integers(-20, 21)), 7)) for _ in range(n)]
    ys = [1, -1] + [int(rng.choice([-1, 1])) for _ in range(n - 2)]
    return Xs, ys


def test_q2_derived_steps_equal_symbolic_differentiation_square():
    Xs, ys = _data(1, 4, 3, 2)
    eta = (sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(3, 4), sp.Rational(5, 4))
    a = G.q2_explicit(Xs, ys, *eta, SQUARE)
    b = G.protocol_at(Xs, ys, *eta, SQUARE)
    assert a["q1"] == sp.zeros(2, 1)  # grad_q vanishes at w = 0
    assert sp.simplify(a["w1"] - b["w1"]) == sp.zeros(2, 1)
    assert sp.simplify(a["b1"] - b["b1"]) == 0
    assert sp.simplify(a["q2"] - b["q2"]) == sp.zeros(2, 1)  # exact rationals


def test_q2_derived_steps_equal_symbolic_differentiation_logistic():
    Xs, ys = _data(2, 3, 3, 2)
    eta = (sp.Rational(1, 2), sp.Rational(1, 2), sp.Rational(1, 2), sp.Integer(1))
    a = G.q2_explicit(Xs, ys, *eta, LOGISTIC)
    b = G.protocol_at(Xs, ys, *eta, LOGISTIC)
    for k in range(2):
        assert abs(sp.N(a["q2"][k] - b["q2"][k], 40)) < sp.Float("1e-35")
        assert sp.N(b["q2"][k], 40) != 0


def test_jacobian_at_zero_is_the_centring_over_L():
    for L in (2, 3, 4):
        J0 = G.gradient(L, 2)["jacobian_at_zero"]
        assert sp.simplify(J0 - G.centring(L) / L) == sp.zeros(L, L)


@pytest.mark.parametrize("name", ["A.grad.softmax_outer:dropped", "A.grad.jacobian_at_zero:no_1_over_L",
                                  "A.grad.general:sign"])
def test_mutants_break_the_symbolic_identities(name):
    """Each structural mutant of the gradient makes the derived form differ from direct
    differentiation (so the claim's finite differences have something to reject)."""
    from derivations.core import all_mutants, mutated

    with mutated(all_mutants()[name]):
        assert G.explicit_gradient_check(3, 2) != {"general": True, "at_zero": True}
    assert G.explicit_gradient_check(3, 2) == {"general": True, "at_zero": True}


def test_equations_have_latex():
    for eq in G.equations():
        assert eq.latex()


@given(seed=st.integers(0, 10**6), loss=st.sampled_from(training.LOSSES), eta_w=ETA_W.strategy({}),
       eta_b=ETA_B.strategy({}), beta=BETA.strategy({}))
def test_simulator_steps_match_finite_differences(seed, loss, eta_w, eta_b, beta):
    """The simulator's w^(1), b^(1), q^(2) are gradient steps of the mean loss (numpy FD)."""
    model = SparseTokenModel(L=3, R=1, pi=0.5, theta=2.0, d=4)
    n0, eta_q = 6, 0.7
    res = training.run_two_steps(model, n0, loss, eta_w=eta_w, eta_b=eta_b, eta_q=eta_q, beta=beta,
                                 seed=np.random.SeedSequence(seed))
    _, data_seed = children(np.random.SeedSequence(seed), 2)
    X, y, _ = next(model.iter_batches(np.random.default_rng(data_seed), n0, res.xi))

    def mean_loss(w, q, b):
        s = np.exp(beta * X @ q)
        s /= s.sum(axis=1, keepdims=True)
        yhat = np.einsum("nl,nld,d->n", s, X, w) + b
        return loss_value(loss, yhat, y).mean()

    def fd(f, x, h=1e-6):
        return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])

    zero = np.zeros(4)
    w1 = -eta_w * fd(lambda w: mean_loss(w, zero, 0.0), zero)
    b1 = -eta_b * fd(lambda b: mean_loss(zero, zero, b[0]), np.zeros(1))[0]
    q2 = -eta_q * fd(lambda q: mean_loss(w1, q, b1), zero)
    np.testing.assert_allclose(res.w1, w1, rtol=1e-6, atol=1e-9)
    assert res.b1 == pytest.approx(b1, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(res.q2, q2, rtol=1e-5, atol=1e-9)


def test_claim_fd_helpers():
    """The claim's mpmath finite differences recover a known gradient to their error bound."""
    with mpmath.workdps(40):
        f = lambda z: mpmath.sin(z[0]) * mpmath.exp(z[1])
        g, err = CG.fd_grad(f, [mpmath.mpf("0.3"), mpmath.mpf("-0.2")])
        a0, a1 = mpmath.mpf("0.3"), mpmath.mpf("-0.2")
        exact = [mpmath.cos(a0) * mpmath.exp(a1), mpmath.sin(a0) * mpmath.exp(a1)]
        for a, b, e in zip(g, exact, err):
            assert abs(a - b) <= e


def test_stratified_labels_exact_count():
    model = SparseTokenModel(L=4, R=2, pi=0.3, theta=1.0, d=5)
    rng = np.random.default_rng(0)
    ys = np.concatenate([y for _, y, _ in training.stratified_batches(model, rng, 101, np.eye(5)[0], batch_bytes=8 * 4 * 5 * 7)])
    assert len(ys) == 101 and (ys > 0).sum() == round(0.3 * 101)


def test_simulator_does_not_import_derivations():
    src = inspect.getsource(training)
    assert "import derivations" not in src and "from derivations" not in src


def test_simulator_rejects_bad_input():
    model = SparseTokenModel(L=3, R=1, pi=0.5, theta=1.0, d=4)
    kw = dict(eta_w=1, eta_b=1, eta_q=1, beta=1, seed=np.random.SeedSequence(0))
    with pytest.raises(ValueError):
        training.run_two_steps(model, 5, "hinge", **kw)
    with pytest.raises(ValueError):
        training.run_two_steps(model, 0, "square", **kw)
    with pytest.raises(ValueError):
        training.run_two_steps(model, 5, "square", labels="sorted", **kw)
