"""Paper A's loss and model objects, and the model facts that are derivation steps: the class
law (weights and shift), the protocol composition and the sampled-token counts of the softmax
oracle.  Theory-only and small: the claims check the values against simulations."""
import sympy as sp
import pytest

from derivations.core import MUTANTS, mutated
from derivations.paper_a import erm_equations as EQ
from derivations.paper_a import gradient as G
from derivations.paper_a import losses as LS
from derivations.paper_a import models as DM
from numerics.core.params import ParameterError
from numerics.experiments.paper_a import models as XM
from numerics.theory.paper_a import models as M


def test_each_loss_is_defined_once_and_read_by_every_derivation():
    y, h = sp.symbols("y h", real=True)
    for lo in LS.LOSSES:
        # the step-4 equations and the gradient derivation use the same object
        assert sp.simplify(EQ.loss(lo)["ell"] - lo.ell(h, y)) == 0
        with pytest.raises(TypeError, match="losses.by_name turns a name into one"):
            EQ.loss(lo.name)  # names are parsed at the door, not inside the derivation
        assert sp.simplify(G.loss_derivative(lo, y) - lo.derivative(G.yhat, y, elementary=True)) == 0
        # the elementary form is the same function
        assert sp.simplify((lo.ell(h, y, elementary=True) - lo.ell(h, y).rewrite(sp.exp))) == 0
    assert LS.SQUARE.polynomial and not LS.LOGISTIC.polynomial
    w, s = sp.symbols("omega s", positive=True)
    assert sp.simplify(LS.SQUARE.prox(w, s, y) - (w + s * y) / (1 + s)) == 0
    assert LS.LOGISTIC.prox(w, s, y) is None


def test_one_vocabulary_for_names_objects_and_the_simulators_enums():
    assert M.LOSS_NAMES == tuple(m.value for m in XM.Loss)
    assert M.MODEL_NAMES == tuple(m.value for m in XM.Model)
    for mo in M.MODELS:
        assert M.model(mo.name) is mo and M.model(XM.Model.of(mo.name)) is mo
        assert XM.Model.of(mo).needs_query == mo.sees_q
        for alias in mo.aliases:
            assert M.model(alias) is mo and XM.Model.of(alias).value == mo.name
    for lo in M.LOSSES:
        assert M.loss(lo.name) is lo and M.loss(XM.Loss.of(lo.name)) is lo
    with pytest.raises(ParameterError, match="parameter model: must be one of attention, pool, vec"):
        M.model("lstm")
    with pytest.raises(ParameterError, match="parameter loss"):
        M.loss("hinge")
    with pytest.raises(ValueError, match="must be one of"):
        XM.Loss.of("hinge")


def test_models_carry_their_latent_law_and_dimension():
    assert DM.VECTORISED.dim() == EQ.L and DM.POOLED.dim() == 1 and DM.ATTENTION.dim() == 1
    law = DM.ATTENTION.latent_law(3, 1)
    assert len(law["points"]) == 3 and len(law["z"]) == 3
    assert [w for w, _ in law["classes"]] == [EQ.pi_, 1 - EQ.pi_]


def _attention_error(pi):
    from numerics.theory.paper_a import erm_equations as erm_theory

    law = erm_theory.attention_law(10, 1, pi, 5.0, 1.0, 2.0, 0.5, log2_points=7, n_scrambles=2, seed=3)
    return erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC, quad_tol=1e-5, x_quad_tol=1e-2).value.metrics["test_error"]


@pytest.mark.parametrize("name", ["A.law.class_weights:exchanged", "A.law.class_shift:exchanged"])
def test_the_class_law_is_a_step_that_shows_away_from_one_half(name):
    true_sym, true_asym = _attention_error(0.5), _attention_error(0.3)
    with mutated(MUTANTS[name]):
        mut_sym, mut_asym = _attention_error(0.5), _attention_error(0.3)
    if name.startswith("A.law.class_weights"):  # at pi = 1/2 the exchange cannot show (same points)
        assert abs(mut_sym - true_sym) < 1e-9 * true_sym
    assert abs(mut_asym - true_asym) > 0.05 * true_asym


def test_exchanging_the_classes_is_a_symmetry_of_the_linear_laws():
    from numerics.theory.paper_a import erm_equations as erm_theory

    law = erm_theory.linear_law(M.POOLED, 10, 1, 0.3, 5.0)
    true = erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC).value.metrics["test_error"]
    with mutated(MUTANTS["A.law.class_weights:exchanged"]):
        law = erm_theory.linear_law(M.POOLED, 10, 1, 0.3, 5.0)
        assert list(law.weight) == [0.7, 0.3]
        mut = erm_theory.solve(law, 2.0, 1e-2, M.LOGISTIC).value.metrics["test_error"]
    assert mut == pytest.approx(true, rel=1e-9)


def test_the_protocol_composition_is_read_from_its_step():
    from numerics.theory.paper_a.protocol import step4_query

    lim = {"q2_norm": 0.5, "q2_cosine": 0.8, "w1_norm": 0.1, "w1_cosine": 0.3}
    assert step4_query(lim) == (0.5, 0.8)
    with mutated(MUTANTS["A.protocol.composition:readout"]):
        assert step4_query(lim) == (0.1, 0.3)
    with mutated(MUTANTS["A.protocol.composition:norm_squared"]):
        assert step4_query(lim) == pytest.approx((0.25, 0.8))


def test_the_sampled_token_counts_are_read_from_their_step():
    from numerics.theory.paper_a.representation import sampled_tokens

    assert sampled_tokens(10, 3) == ((9, 0), (9, 2))
    with mutated(MUTANTS["A.thm2.sampled_tokens:all_signal"]):
        assert sampled_tokens(10, 3) == ((9, 0), (9, 3))
    with mutated(MUTANTS["A.thm2.sampled_tokens:unshifted"]):
        assert sampled_tokens(10, 3) == ((9, 0), (9, 0))


def test_a_linear_model_carries_its_latent_law_and_attention_has_none():
    """The linear law's mu, sigma^2 and dimension factor are the model's own (one object per
    model, no table by name): a model with another mu gives that mu to the steps."""
    from dataclasses import replace

    from derivations.paper_a import models as DM

    for mo in DM.LINEAR:
        law = EQ.linear_law(mo)
        assert (law["mu"], law["sigma2"], law["dim"]) == (mo.mu, mo.sigma2, mo.dim_factor)
    other = replace(DM.POOLED, mu=2 * DM.POOLED.mu)
    assert EQ.linear_law(other)["mu"] == 2 * DM.POOLED.mu
    with pytest.raises(ValueError, match="a linear model"):
        EQ.linear_law(DM.ATTENTION)
