"""Automatic mutants (derivations.automutants, numerics.claims.mutate, ``attncheck mutate``):
each operator on a small expression, equivalence, the recording of steps, the sampling of a
parameter domain, the score's interval, and a planted claim whose rows cannot see one term of
its derivation: ``mutate`` reports that term's mutants as survivors."""
import json
import pathlib

import pytest
import sympy as sp
from click.testing import CliRunner

from derivations import automutants
from derivations.core import derivation, derivation_caches_restored, recording_steps, step

x, y = sp.symbols("x y", positive=True)
a1, a2 = sp.symbols("alpha1 alpha2", positive=True)
PLANTED = pathlib.Path(__file__).parent / "data" / "planted_blind_claim.py"


def _changes(op, expr, **ctx):
    return {d: new for d, new in automutants.OPERATORS[op](expr, automutants.Context("t", expr, ctx.get("earlier", {})))}


def _mutated(op, expr):
    """Every mutated expression of operator ``op`` anywhere in ``expr``."""
    return [m for site, m in automutants.generate("t", expr, operators=[op])]


def test_sign_flips_terms_exponents_and_arguments():
    assert set(_mutated("sign", x + 2 * y)) >= {-x + 2 * y, x - 2 * y}
    assert x ** -3 in _mutated("sign", x**3) and x + y in _mutated("sign", 1 / (x + y))
    assert sp.exp(x) in _mutated("sign", sp.exp(-x)) and sp.erfc(-x) in _mutated("sign", sp.erfc(x))


def test_drop_removes_each_term_and_each_factor():
    assert set(_mutated("drop", x + y + 1)) >= {y + 1, x + 1, x + y}
    assert set(_mutated("drop", 3 * x * y)) >= {x * y, 3 * y, 3 * x}


def test_factor_doubles_and_halves_each_term_and_the_step():
    got = set(_mutated("factor", x + y))
    assert {2 * x + y, x / 2 + y, 2 * x + 2 * y, (x + y) / 2} <= got


def test_constants_change_half_one_two_and_pi():
    assert x in _mutated("constant", x / 2) and 2 * x + 1 in _mutated("constant", 2 * x + 2)
    assert x + 1 in _mutated("constant", x + sp.pi) and x + 2 in _mutated("constant", x + 1)
    assert x / 2 + 1 in _mutated("constant", x / 2 + 2)  # 2 -> 1, the 1/2 kept


def test_exponents_sqrt_and_reciprocal():
    got = _mutated("exponent", x**2 + y)
    assert x**3 + y in got and x + y in got and x**2 + sp.sqrt(y) in got and x**2 + 1 / y in got
    assert x in _mutated("exponent", sp.sqrt(x)) and 1 / x in _mutated("exponent", 1 / sp.sqrt(x))


def test_swap_exchanges_symbols_of_the_same_role_only():
    got = _mutated("swap", a1**2 + a2 + x)
    assert a2**2 + a1 + x in got and a2**2 + a2 + x in got
    assert not any(m.has(x) is False for m in got) and len(got) == 3  # x has no partner
    n, d = sp.symbols("n d", positive=True, integer=True)
    assert d / n in _mutated("swap", n / d)


def test_wiring_replaces_an_earlier_step_by_a_sibling_of_the_same_shape():
    first, sibling = x**2 + y, x * y
    earlier = {"s.first": first, "s.sibling": sibling}
    got = [m for _, m in automutants.generate("s.now", sp.log(first) / y, earlier, operators=["wiring"])]
    assert got == [sp.log(sibling) / y]


def test_bounds_shift_each_limit_of_a_sum():
    k, n = sp.symbols("k n", integer=True, positive=True)
    s = sp.Sum(k**2, (k, 1, n))
    got = _mutated("bounds", s)
    assert sp.Sum(k**2, (k, 2, n)) in got and sp.Sum(k**2, (k, 1, n - 1)) in got and len(got) == 4


def test_a_user_registers_an_operator():
    @automutants.operator("test-cube")
    def cube(node, ctx):
        if isinstance(node, sp.Symbol):
            yield f"`{node}` cubed", node**3
    try:
        assert x**3 + y in _mutated("test-cube", x + y)
        assert any(s.operator == "test-cube" for s, _ in automutants.generate("t", x + y))
    finally:
        del automutants.OPERATORS["test-cube"]


def test_entries_of_tuples_and_matrices_are_mutated_in_place():
    value = (x + y, sp.Matrix([[x, 2 * y]]))
    sites = automutants.generate("t", value, operators=["factor"])
    assert {s.loc for s, _ in sites} >= {(0,), (1, 0, 0), (1, 0, 1)}
    site = next(s for s, _ in sites if s.loc == (1, 0, 1) and s.description == "the step x2")
    out = automutants.mutate_value(site, value)
    assert out[0] == x + y and out[1] == sp.Matrix([[x, 4 * y]])
    assert automutants.mutate_value(site, (x,)) == (x,)  # where the entry is not there: unchanged


def test_equivalent_mutants_are_told_apart_by_the_domain():
    assert automutants.equivalent(sp.sqrt(x**2), x)  # x > 0
    z = sp.Symbol("z")
    assert not automutants.equivalent(sp.sqrt(z**2), z)  # z real of either sign
    assert automutants.equivalent(sp.log(x * y), sp.log(x) + sp.log(y)) and not automutants.equivalent(x + y, x - y)
    assert automutants.equivalent(sp.erfc(x), 1 - sp.erf(x))


def test_equivalence_is_judged_on_the_claims_parameter_domain():
    """Where a symbol is a parameter of the claim (by name, or compact: ``m2`` for ``m_2``), its
    values come from the claim's domain; elsewhere, and where a value contradicts the symbol's
    assumptions, from the assumptions."""
    z, m2 = sp.Symbol("z"), sp.Symbol("m_2", positive=True)
    on_domain = [{"z": 0.5}, {"z": 1.25}, {"z": 2}]
    assert not automutants.equivalent(sp.sqrt(z**2), z)  # z of either sign
    assert automutants.equivalent(sp.sqrt(z**2), z, given=on_domain)  # the claim's z > 0
    assert not automutants.equivalent(sp.sqrt(z**2), z, given=[{"z": 0.5}, {"z": -1.0}, {"z": 2}])
    pts = automutants.domain_points(z + m2 + x, 3, seed=1, given=[{"z": 0.5, "m2": 3}, {"x": -1.0, "m2": 0.0}])
    assert pts[0][z] == sp.Rational(1, 2) and pts[0][m2] == 3  # exact values of the domain's points
    assert pts[1][x] > 0 and pts[1][m2] > 0  # contradicting x > 0 and m_2 > 0: drawn instead
    assert pts[1][z] != pts[0][z] and set(pts[2]) == {x, z, m2}  # no third point given: all drawn
    assert automutants.domain_points(z + x, 3, seed=1) == automutants.domain_points(z + x, 3, seed=1, given=None)


def test_mutate_draws_the_equivalence_points_from_the_claims_domain(blind, monkeypatch):
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate

    seen = []
    real = automutants.equivalent
    monkeypatch.setattr(automutants, "equivalent", lambda a, b, **kw: seen.append(kw.get("given")) or real(a, b, **kw))
    with derivation_caches_restored():
        mutate(blind, Settings(), sample=4, use_cache=False)
    space = blind.param_space
    assert len(seen) == 4 and all(g == space.sample(8, 0)[:3] for g in seen)
    assert all(1 <= p["x"] <= 3 and 0 <= p["eps"] <= 1 for p in seen[0])


def test_recording_steps_sees_the_steps_of_a_cached_derivation():
    @derivation
    def build(k):
        return step("t.rec", x + k)

    with derivation_caches_restored():
        with recording_steps() as first:
            build(1)
        with recording_steps() as again:  # a cache hit: the values recorded by its build
            build(1)
            build(2)
    assert first == {"t.rec": [x + 1]} and again == {"t.rec": [x + 1, x + 2]}



def test_a_replaying_cache_replays_steps_values_and_applied_mutants():
    """A cache of compiled or solved theory (keyed by its arguments, which name the mutants) gives
    on a hit what its build reached, recorded and applied, as a cached derivation does."""
    from derivations.core import APPLIED, Mutant, mutated, reaching, replaying_cache

    @derivation
    def build():
        return step("t.replay", x + 1)

    calls = []

    @replaying_cache(maxsize=2)
    def compiled(_mutants):
        calls.append(_mutants)
        return build() * 2

    m = Mutant("t.replay:x3", "t.replay", "x3", lambda e: 3 * e)
    with derivation_caches_restored():
        with recording_steps() as first, reaching() as seen_first:
            compiled(())
        with recording_steps() as again, reaching() as seen_again:
            compiled(())
        with mutated(m):
            before = APPLIED.get(m.name, 0)
            assert compiled((m.name,)) == 6 * (x + 1)
            compiled((m.name,))  # a hit: the mutant counts as applied again
            assert APPLIED.get(m.name, 0) == before + 2
        compiled(("other",))  # beyond maxsize: the oldest entry goes
        compiled(())
    assert calls == [(), (m.name,), ("other",), ()]
    assert first == again == {"t.replay": [x + 1]} and seen_first == seen_again == {"t.replay"}


def _compiled_theory(which: str):
    """One cached compiled theory of each kind: Paper A's fixed-point equations, its attention law,
    Paper C's reported outputs."""
    from derivations.core import active_mutants

    if which == "erm":
        from numerics.theory.paper_a import erm_equations as SE
        from numerics.theory.paper_a.models import LOGISTIC

        return SE.compiled(LOGISTIC, True)
    if which == "attention law":
        from numerics.theory.paper_a import laws

        return laws._attention_classes(4, 1)
    from numerics.theory.paper_c import equations as E

    return E._reported(active_mutants())


@pytest.mark.parametrize("which", ["erm", "attention law", "paper C"])
def test_a_warm_cache_of_compiled_theory_records_the_steps_of_a_cold_one(which):
    """What a process computed before does not change the steps a claim is seen to reach (and so
    its automatic mutants): a second call of a cached compiled theory records and reaches the
    steps the first did, in the same order (the mutants are drawn from them in that order)."""
    from derivations.core import reaching

    with recording_steps() as first, reaching() as seen_first:
        _compiled_theory(which)
    with recording_steps() as again, reaching() as seen_again:
        _compiled_theory(which)
    assert first and seen_again == seen_first
    assert list(again) == list(first) and all(len(again[k]) == len(first[k]) for k in first)  # in the same order

def test_sample_draws_seeded_points_of_the_domain():
    from numerics.core.params import Param, ParamSpace

    space = ParamSpace((Param("L", int, 2, 50, default=4), Param("s", float, 0, "L", lo_open=True, default=1.0)),
                       (lambda v: "odd" if v["L"] % 2 else None,))
    pts = space.sample(20, seed=3)
    assert len(pts) == 20 and pts == space.sample(20, seed=3) and pts != space.sample(20, seed=4)
    assert all(2 <= p["L"] <= 50 and p["L"] % 2 == 0 and 0 < p["s"] <= p["L"] for p in pts)


def test_binomial_interval():
    from numerics.core.stats import binomial_interval

    lo, hi = binomial_interval(98, 100)
    assert 0.929 < lo < 0.931 and 0.994 < hi < 0.995  # Wilson
    assert binomial_interval(0, 0) == (0.0, 1.0) and binomial_interval(10, 10)[1] == 1.0


# --- a planted blind spot -------------------------------------------------------------------------
@pytest.fixture
def blind():
    from numerics import registry

    registry.add_claims_file(str(PLANTED))
    try:
        yield registry.claims()["T.blind"]
    finally:
        registry.EXTRA_FILES.remove(str(PLANTED))
        registry.claims.cache_clear()


def test_mutate_reports_the_term_the_rows_cannot_see(blind):
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate

    with derivation_caches_restored():
        r = mutate(blind, Settings(), all_mutants=True, use_cache=False)
    assert not r.error and not r.sampled and r.generated == len(r.outcomes) > 10
    survivors = r.survivors
    assert survivors, [o.said() for o in r.outcomes]
    # every survivor changes the term eps x, and is seen where eps > 0
    assert all("epsilon*x" in o.change for o in survivors), [o.said() for o in survivors]
    dropped = [o for o in survivors if "`epsilon*x`" in o.change and "dropped" in o.change]
    assert dropped and "eps=" in dropped[0].where and dropped[0].largest > dropped[0].resolution
    assert "survived" in dropped[0].said() and "moves `f` at" in dropped[0].said()
    # the row it moves most (the rows sit at eps = 0: by nothing) and the point of the domain
    d = dropped[0]
    assert d.row.startswith("x=") and d.row_change < 1e-12 and d.point == d.where and d.point_change == d.largest
    # a change inside the step: its changed node printed apart (a whole-term change: none)
    root = next(o for o in survivors if o.change.startswith("`x` as sqrt(x)"))
    assert root.node_latex == "\\sqrt{x}" and d.node_latex == ""
    # the x^2 term is in the rows' view: its changes are killed
    assert any(o.status == "killed" and "x**2" in o.change for o in r.outcomes)
    assert 0 < r.score < 1 and r.interval is None


def test_mutate_command_json(blind):
    from numerics.cli import main

    out = CliRunner().invoke(main, ["mutate", "T.blind", "--json", "--sample", "12", "--sample-seed", "1"])
    assert out.exit_code in (0, 1), out.output
    rec = json.loads(out.output.splitlines()[-1])
    assert rec["schema"] == "attncheck.mutate/1" and rec["id"] == "T.blind" and rec["run"] == 12
    assert rec["sampled"] and sum(rec["counts"].values()) == 12 and "T.blind.f" in rec["steps"]
    assert out.exit_code == (1 if rec["counts"]["survived"] else 0)
    bad = CliRunner().invoke(main, ["mutate", "T.blind", "--sample", "0"])
    assert bad.exit_code == 2 and bad.output.strip().startswith("error: --sample must be an integer in [1, inf]")


def test_a_mutant_over_its_budget_is_stopped():
    import time

    from numerics.claims.mutate_judge import OverBudget, _budget

    t0 = time.perf_counter()
    with pytest.raises(OverBudget):
        with _budget(0.2):
            time.sleep(5)
    assert time.perf_counter() - t0 < 2
    with _budget(None):  # no limit
        time.sleep(0.01)


def test_the_unmutated_domain_is_not_charged_to_a_mutant(blind, monkeypatch):
    """The claim's theory over its domain, unmutated, is computed once before the first mutant:
    a slow domain (seconds per point) does not time out the mutant that happens to come first."""
    import time

    from numerics.claims import mutate as MU
    from numerics.claims.base import Settings
    from numerics.claims.mutate_judge import _Domain

    real = _Domain.values

    def slow(self):
        if self._base is None:
            time.sleep(3.0)
        return real(self)

    monkeypatch.setattr(_Domain, "values", slow)
    with derivation_caches_restored():
        r = MU.mutate(blind, Settings(), sample=3, budget=2.0, use_cache=False)
    assert [o.status for o in r.outcomes].count("timed out") == 0, [o.said() for o in r.outcomes]


def test_two_processes_give_the_outcomes_of_one(blind):
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate

    with derivation_caches_restored():
        one = mutate(blind, Settings(), sample=6, seed=5)
        two = mutate(blind, Settings(), sample=6, seed=5, workers=2, use_cache=False)
        again = mutate(blind, Settings(), sample=6, seed=5)  # recorded by the first run
    assert not one.cached and not two.cached and again.cached
    assert [o.status for o in again.outcomes] == [o.status for o in one.outcomes]
    assert one.sampled and [o.name for o in one.outcomes] == [o.name for o in two.outcomes]
    assert [(o.status, o.where) for o in one.outcomes] == [(o.status, o.where) for o in two.outcomes]



def test_longest_first_orders_by_the_times_of_its_kind(monkeypatch):
    """Claims with no recorded time first, in their order; then the recorded ones, longest
    first, by the times of the kind asked for (a claim's evidence, or its automatic mutants)."""
    from types import SimpleNamespace

    from numerics.claims import runner
    from numerics.claims.base import Settings

    times = {"A": 1.0, "B": 9.0, "mutate:A": 50.0, "mutate:B": 5.0, "mutate:C": 7.0}
    monkeypatch.setattr(runner.cache, "recorded_times", lambda mode: times)
    claims = [SimpleNamespace(id=i) for i in ("A", "B", "C", "D")]
    assert [c.id for c in runner.longest_first(claims, Settings())] == ["C", "D", "B", "A"]
    assert [c.id for c in runner.longest_first(claims, Settings(), prefix="mutate:")] == ["D", "A", "C", "B"]

def test_claims_spread_over_processes_give_the_outcomes_of_one(blind, monkeypatch):
    """Several claims on two processes (each claim's mutants in one process, the user's file
    loaded there too) give each claim the outcomes of one process, in the order asked, and
    record each claim's time for the next run's order (longest first)."""
    from numerics import registry
    from numerics.claims import runner
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate_all
    from numerics.core import cache

    chosen = registry.select(["T.blind", "B.kl.bound"])
    started = []
    real = runner.longest_first
    monkeypatch.setattr(runner, "longest_first", lambda *a, **k: started.append(k) or real(*a, **k))
    with derivation_caches_restored():
        one = list(mutate_all(chosen, Settings(), sample=4, seed=3, use_cache=False))
        two = list(mutate_all(chosen, Settings(), sample=4, seed=3, workers=2, use_cache=False))
    assert started == [{"prefix": "mutate:"}]  # the pool was used, and ordered by the mutants' times
    assert [r.id for r in one] == [r.id for r in two] == ["T.blind", "B.kl.bound"]
    for a, b in zip(one, two):
        assert not a.error and not b.error and a.outcomes
        assert [(o.name, o.status, o.where) for o in a.outcomes] == [(o.name, o.status, o.where) for o in b.outcomes]
        assert a.hand_written == b.hand_written and a.generated == b.generated
    times = cache.recorded_times("quick")
    assert {"mutate:T.blind", "mutate:B.kl.bound"} <= set(times)
    with derivation_caches_restored():  # recorded by the pool's parent, read back by the next run
        stored = list(mutate_all(chosen, Settings(), sample=4, seed=3, workers=2))
        again = list(mutate_all(chosen, Settings(), sample=4, seed=3, workers=2))
    assert not any(r.cached for r in stored) and all(r.cached for r in again)
    assert [[o.name for o in r.outcomes] for r in again] == [[o.name for o in r.outcomes] for r in one]

def test_verify_power_prints_the_recorded_score(blind):
    from numerics.claims.base import Settings
    from numerics.claims.mutate import mutate, recorded, summary

    assert recorded(blind, Settings(seed=7)) is None
    with derivation_caches_restored():
        r = mutate(blind, Settings(seed=7))
    again = recorded(blind, Settings(seed=7))
    assert again is not None and summary(again) == summary(r)
    n, k = len(r.outcomes), len(r.survivors)
    assert summary(r) == f"score {100 * r.score:.1f} % over all {n} of {n}, {k} survived" and 0 < k < n


def test_a_block_over_its_budget_is_stopped_in_a_thread_too():
    """A task of a dask worker runs in a thread: the budget is kept there by a timer thread."""
    import threading
    import time

    from numerics.core.tasks import OverBudget, time_budget

    seen = []

    def task():
        t0 = time.perf_counter()
        try:
            with time_budget(0.2):
                while time.perf_counter() - t0 < 5:
                    time.sleep(0.01)
        except OverBudget:
            seen.append(time.perf_counter() - t0)
        with time_budget(0.05):  # a block within its budget: nothing raised, then or later
            pass
        time.sleep(0.2)
        seen.append("after")

    t = threading.Thread(target=task)
    t.start()
    t.join(10)
    assert len(seen) == 2 and seen[0] < 2 and seen[1] == "after", seen


def test_a_dask_cluster_gives_the_outcomes_of_one_process(blind, tmp_path):
    """``mutate --scheduler local``: a claim's mutants in parts on a dask LocalCluster (a claim of
    the user's file loaded by its workers too), merged into the records of one process."""
    pytest.importorskip("distributed", reason="needs dask.distributed: pip install 'attncheck[cluster]'")
    from numerics.cli import main

    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path / "cache")}
    recs = []
    for extra in ([], ["--scheduler", "local"]):
        out = CliRunner().invoke(main, ["mutate", "B.kl.bound", "T.blind", "--json", "--sample", "10",
                                        "--sample-seed", "3", "--no-cache", *extra], env=env)
        assert out.exit_code in (0, 1), out.output
        recs.append([{k: v for k, v in json.loads(line).items() if k not in ("elapsed_s", "cached")}
                     for line in out.output.splitlines() if line.startswith("{")])
    assert len(recs[0]) == 2 and recs[0] == recs[1]
    assert [r["run"] for r in recs[0]] == [10, 10] and recs[0][1]["counts"]["survived"] > 0
    bad = CliRunner().invoke(main, ["mutate", "T.blind", "--sample", "2", "--scheduler", "127.0.0.1:1"], env=env)
    assert bad.exit_code == 2 and bad.output.strip().splitlines()[-1] == (  # after the claim's progress line
        "error: --scheduler must be 'local' or a scheduler address such as tcp://host:8786, got '127.0.0.1:1'")
