"""``attncheck explore``: claims run at points drawn from their declared domains; a failing point
is confirmed at full size with a fresh seed, and a confirmed failure is shrunk and reproducible."""
import json

import pytest
from click.testing import CliRunner

import attncheck
from numerics import registry
from derivations.core import all_mutants, mutated
from numerics.cli import main
from numerics.core.params import ParameterError
from numerics.claims.paper_a.after_training import POINT_SPACES
from numerics.claims.paper_a.gradient import GRAD_SPACE
from numerics.theory.paper_a.alignment import ALIGNMENT_SPACE

SEED = 11


def test_explore_the_cheap_claims_at_a_few_points():
    """The four A.thm3 claims share one simulation per point (same points, same seed paths)."""
    found = attncheck.explore("A.thm3", examples=2, seed=SEED, shrinks=0)
    assert sorted(e.claim_id for e in found) == ["A.thm3.q2_cosine", "A.thm3.q2_norm", "A.thm3.q2_overlap",
                                                 "A.thm3.w1_alignment"]
    for e in found:
        assert e.passed, (e, [(r.params, r.verdict, r.screen["failing_rows"]) for r in e.runs])
        assert e.runs[0].params == ALIGNMENT_SPACE.defaults()  # the simplest draw: the declared defaults
        for r in e.runs:
            assert ALIGNMENT_SPACE.validate(r.params) == r.params and r.verdict in ("passed", "unconfirmed")
            assert r.screen["seed_path"][:3] == [SEED, "explore", "screen"]
            assert r.confirm is None or r.confirm["seed_path"][:3] == [SEED, "explore", "confirm"]
    points = [[r.params for r in e.runs] for e in found]
    assert all(p == points[0] for p in points)
    assert len({json.dumps(p, sort_keys=True) for p in points[0]}) == len(points[0])
    # reproducible: the same seed draws the same points (their evidence now from the cache)
    again = attncheck.explore("A.thm3.q2_cosine", examples=2, seed=SEED, shrinks=0)
    assert [r.params for r in again[0].runs] == points[0]
    assert [r.screen["seed"] for r in again[0].runs] == [r.screen["seed"] for r in found[0].runs]


def test_explore_json_records_and_the_bound():
    out = CliRunner().invoke(main, ["explore", "A.thm3.q2_cosine", "--examples", "1", "--shrinks", "0",
                                    "--seed", str(SEED), "--json"])
    assert out.exit_code == 0, out.output
    recs = [json.loads(line) for line in out.stdout.splitlines()]
    point, summary = recs
    assert point["schema"] == "attncheck.explore/1" and point["verdict"] == "passed"
    assert point["params"] == ALIGNMENT_SPACE.defaults() and point["screen"]["seed_path"][0] == SEED
    assert summary["schema"] == "attncheck.explore-summary/1" and summary["passed"]
    assert summary["family_alpha"] == 1e-3 and summary["confirm_runs_bound"] == 1


@pytest.mark.parametrize("args, text", [
    (["A.cor1.alignment_rate", "--param", "L=4"], "built-in design only"),
    (["A.thm3.q2_cosine", "--param", "nope=1"], "unknown parameter(s) nope"),
    (["A.thm3.q2_cosine", "--examples", "0"], "--examples must be an integer in [1, 1000]"),
    (["nope"], "unknown claim id"),
])
def test_bad_requests_are_one_line(args, text):
    out = CliRunner().invoke(main, ["explore", *args])
    assert out.exit_code == 2 and text in out.output and len(out.output.strip().splitlines()) == 1
    with pytest.raises(ParameterError):
        if args[1:2] == ["--param"]:
            k, v = args[2].split("=")
            attncheck.explore(args[0], examples=1, within={k: v})
        else:
            attncheck.explore(args[0], examples=int(args[2]) if len(args) > 2 else 1)


def test_help_lists_free_and_fixed_parameters():
    for cmd in ("explore", "verify"):
        out = CliRunner().invoke(main, [cmd, "--help"])
        assert out.exit_code == 0
        text = " ".join(out.output.split())
        assert "A.thm3.q2_cosine: free: L, R, pi, theta, alpha0, eta_w, eta_b, eta_q, beta; fixed: d (" in text
        assert "an integer in [1, L]" in text and "built-in design only" in text
        assert "A.cor1.alignment_rate: a Richardson limit" in text and "no reason declared" not in text
        assert "A.grad.q2: free: L, R, pi, theta, eta_w, eta_b, eta_q, beta; fixed: d (" in text
        assert "A.thm5.pool_test_error: free: alpha1, pi, lam, theta; fixed: d (" in text
        assert "A.thm4.attention_test_error: free: alpha1, pi, lam, theta, s_q; fixed: d (" in text


def test_a_mutant_is_found_confirmed_and_reproduced():
    """Under a structural mutant of Theorem 3 the first point (the defaults) fails, the confirm
    run at full size with a fresh seed rejects it too, and the printed command reproduces it."""
    with mutated(all_mutants()["A.thm3.trP:L"]):
        e, = attncheck.explore("A.thm3.q2_cosine", examples=2, seed=SEED, shrinks=2)
        assert not e.passed and e.minimal == ALIGNMENT_SPACE.defaults() and e.failing_rows
        run = e.runs[0]
        assert run.verdict == "failed" and run.confirm["mode"] == "full" and run.confirm["seed"] != run.screen["seed"]
        assert run.confirm["z"] > run.screen["z"]  # the confirm level is split over the run's confirm runs
        assert e.command.startswith(f"attncheck verify A.thm3.q2_cosine --full --seed {run.confirm['seed']} --param L=10")
        v, = attncheck.verify("A.thm3.q2_cosine", mode="full", seed=run.confirm["seed"], params=e.minimal)
        assert not v.passed


@pytest.mark.slow
def test_a_mutant_invisible_at_the_defaults_is_found_and_shrunk():
    """Dropping the self-interaction shift of Theorem 3 passes at the declared defaults (L=10, the
    paper's figure point); explore finds a failing point and shrinks it toward the defaults."""
    with mutated(all_mutants()["A.thm3.self_shift:dropped"]):
        e, = attncheck.explore("A.thm3.q2_overlap", examples=3, seed=1, shrinks=3)
    assert e.runs[0].verdict == "passed" and not e.passed
    first = next(r for r in e.runs if r.verdict == "failed")
    defaults = ALIGNMENT_SPACE.defaults()

    def away(p):
        return sum(p[k] != defaults[k] for k in defaults)

    assert any(r.stage == "shrink" for r in e.runs)
    assert away(e.minimal) <= away(first.params)


def test_the_gradient_identities_at_points_of_the_model():
    """A.grad.q2 at data sets drawn from the sparse-token model at drawn (L, R, pi, theta, rates,
    beta); a sign error of q^(2) fails at the first draw (the defaults), confirmed."""
    e, = attncheck.explore("A.grad.q2", examples=2, seed=SEED, shrinks=0)
    assert e.passed, [(r.params, r.verdict, r.screen) for r in e.runs]
    assert e.runs[0].params == GRAD_SPACE.defaults() and len(e.runs) == 2
    assert all(GRAD_SPACE.validate(r.params) == r.params and r.verdict == "passed" for r in e.runs)
    with mutated(all_mutants()["A.grad.q2:sign"]):
        bad, = attncheck.explore("A.grad.q2", examples=1, seed=SEED, shrinks=0)
    assert not bad.passed and bad.minimal == GRAD_SPACE.defaults()
    assert bad.failing_rows and all(r.startswith("q2_") for r in bad.failing_rows)


@pytest.mark.parametrize("args, text", [
    (["A.thm5.pool_test_error", "--param", "lam=0"], "parameter lam: must be a real number in [0.01, 0.1], got"),
    (["A.thm4.attention_test_error", "--param", "s_q=0.95"], "parameter s_q: must be a real number in [0.0, 0.9]"),
    (["A.thm5.pool_train_loss", "--param", "alpha1=8"], "parameter alpha1: must be a real number in [0.5, 4.0]"),
    (["A.thm5.vec_test_error", "--param", "pi=0.3"], "runs at its built-in design only"),
    (["A.grad.q2", "--param", "L=3", "--param", "R=4"], "parameter R: must be an integer in [1, L] = [1, 3]"),
])
def test_points_outside_the_valid_ranges_are_refused(args, text):
    out = CliRunner().invoke(main, ["verify", "--quick", *args])
    assert out.exit_code == 2 and text in out.output and len(out.output.strip().splitlines()) == 1, out.output


def test_the_pooled_theorem_at_points():
    """One row of A.thm5.pool_test_error at each drawn point (the quick design's d and trials)."""
    e, = attncheck.explore("A.thm5.pool_test_error", examples=2, seed=SEED, shrinks=0)
    assert e.passed, [(r.params, r.verdict, r.screen) for r in e.runs]
    assert e.runs[0].params == POINT_SPACES["pool"].defaults() and len(e.runs) == 2


@pytest.mark.slow
@pytest.mark.parametrize("claim, mutant", [("A.thm5.pool_test_error", "A.erm.eq_m:sign"),
                                           ("A.thm4.attention_test_error", "A.reduction.a:drop_zs")])
def test_a_mutant_of_the_step4_equations_is_found(claim, mutant):
    with mutated(all_mutants()[mutant]):
        e, = attncheck.explore(claim, examples=1, seed=SEED, shrinks=0)
    assert not e.passed and e.failing_rows


def test_conjecture1_as_written_has_a_counterexample_that_reproduces():
    """Paper A's Conjecture 1 stated at every theta, s_q, gamma: explore finds a point where the
    ordering fails by itself (the defaults, the paper's setting, pass), confirms it at full size,
    shrinks it toward the defaults, and the printed command fails as printed."""
    import shlex

    out = CliRunner().invoke(main, ["explore", "A.capacity.conjecture1", "--examples", "3", "--shrinks", "2",
                                    "--seed", "1"])
    assert out.exit_code == 0, out.output  # a declared counterexample is a finding, not a defect
    lines = out.stdout.splitlines()
    assert lines[0].startswith("COUNTEREXAMPLE A.capacity.conjecture1") and "confirmed at theta=" in lines[0]
    assert "Conjecture 1 " in lines[1]
    command = lines[2].split("reproduce: ", 1)[1]
    assert command.startswith("attncheck verify A.capacity.conjecture1 --full --seed ")
    assert "generate A.capacity.conjecture1 at theta=5, s_q=0.9, gamma=1: passed" in out.stderr
    again = CliRunner().invoke(main, shlex.split(command)[1:])
    assert again.exit_code == 1 and again.stdout.startswith("FAIL A.capacity.conjecture1"), again.output


def test_explore_kills_a_mutant_that_the_design_does_not():
    """Evaluating the (b) equation's integrand at the leave-one-out field instead of the
    proximal point (``A.erm.integrand_b:cavity``) moves the pooled test error by ~2e-3 at the
    design's rows (pi = 1/2 and 0.3, alpha1 = 2): the design passes under it.  Away from the
    design (alpha1 = 0.5, pi = 0.2) it fails, at the screen and at the confirm run."""
    claim = "A.thm5.pool_test_error"
    with mutated(all_mutants()["A.erm.integrand_b:cavity"]):
        v, = attncheck.verify(claim, cache=False)
        assert v.passed, [r for r in v.rows if not r.passed]
        e, = attncheck.explore(claim, examples=1, seed=SEED, shrinks=0, within={"alpha1": 0.5, "pi": 0.2})
    assert not e.passed and e.minimal["alpha1"] == 0.5 and e.minimal["pi"] == 0.2, e.runs
    assert e.runs[0].confirm["mode"] == "full" and e.failing_rows


def test_a_design_only_claim_runs_its_design_and_says_why():
    out = CliRunner().invoke(main, ["explore", "B.kl.bound", "--examples", "5"])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("PASS B.kl.bound") and "its design only (it takes no point: " in out.stdout
    assert "1 claims at their design only, 0 failed" in out.stdout


DESIGN_RUNS: list = []


def _design_claim(cid: str, mean: float, counterexamples: str = "", reason: str = "a test claim"):
    from numerics.claims.base import Claim, Comparison

    def experiment(settings, claim):
        DESIGN_RUNS.append(cid)
        off = 0.0 if settings.seed == SEED else 1.0  # the design run at another seed fails
        return [Comparison("x at its design", 1.0, mean + off, 0.01, 0.0, 100),
                Comparison("y at its design", 2.0, 2.0, 0.01, 0.0, 100)], {"n": 100}, {}

    return Claim(id=cid, paper="T", reference="a test", statement="x = 1, y = 2", experiment=experiment,
                 design_only=reason, counterexamples=counterexamples)


def test_a_design_only_exploration_is_its_verify_run():
    """What explore reports of a claim that takes no point: one run, its design, judged and seeded
    as verify judges it, with the claim's reason and declared counterexamples; a failing design
    is a failed exploration, naming its failing rows."""
    from numerics.explore import explore_claim

    from numerics.claims.base import Settings, judge

    claim = _design_claim("T.design.pass", 1.0)
    e = explore_claim(claim, examples=5, seed=SEED, mode="quick")
    v = judge(claim.collect(Settings(mode="quick", seed=SEED)))
    run, = e.runs
    assert (e.claim_id, run.claim_id, run.stage, run.params, run.verdict) == (claim.id, claim.id, "design", {},
                                                                              "passed")
    assert run.screen == {"mode": "quick", "seed": SEED, "seed_path": [SEED], "z": v.z_crit, "failing_rows": [],
                          "error": ""}
    assert (e.failing_rows, e.design_only, e.counterexamples, e.passed) == ([], "a test claim", "", True)
    bad = explore_claim(_design_claim("T.design.known", 1.5, counterexamples="known away from its design"),
                        examples=5, seed=SEED, mode="quick")
    assert bad.runs[0].verdict == "failed" and bad.failed and bad.failing_rows == ["x at its design"]
    assert bad.runs[0].screen["failing_rows"] == ["x at its design"]
    assert bad.counterexamples == "known away from its design" and bad.passed  # as declared
    assert not explore_claim(_design_claim("T.design.fail", 1.5), examples=5, seed=SEED, mode="quick").passed
    silent = explore_claim(_design_claim("T.design.silent", 1.0, reason=""), examples=5, seed=SEED, mode="quick")
    assert silent.design_only == "(no reason declared)" and silent.passed
    # the run went through the verdict cache: the same design again is not recomputed
    runs = len(DESIGN_RUNS)
    assert explore_claim(claim, examples=5, seed=SEED, mode="quick").runs == e.runs and len(DESIGN_RUNS) == runs


POINT_CLAIMS = [c for c in registry.claims().values() if c.point_space is not None]


def _explored_at(claim, examples):
    e, = attncheck.explore(claim.id, examples=examples, seed=SEED, shrinks=0)
    assert e.passed, [(r.params, r.verdict, r.screen["failing_rows"], r.confirm) for r in e.runs]
    if not claim.counterexamples:  # a statement with declared counterexamples may show one
        assert not e.failed and len(e.runs) == examples
    assert e.runs[0].params == claim.point_space.defaults()
    return e


#: explored in the slow profile only: one attention point (d = 1000, 8 trials, its RQMC law)
#: and one rate point (a slope over six M up to ~37 000, 20 seeds) each cost more than the
#: default suite's budget for exploration (B.rate.smoothness at P = 2, d = 1 and P = 5, d = 5:
#: about 2 min each on the shared test machine)
SLOW_ONLY = ("A.thm4.attention_test_error", "A.thm4.attention_train_loss", "B.rate.smoothness")
DEFAULT_CLAIMS = [c for c in POINT_CLAIMS if c.id not in SLOW_ONLY]


@pytest.mark.parametrize("claim", DEFAULT_CLAIMS, ids=[c.id for c in DEFAULT_CLAIMS])
def test_every_claim_that_takes_a_point_at_two_points(claim):
    """The default suite's exploration: two points per claim (the defaults and one draw),
    seeded (the points are the same on every run); the four A.thm3 claims share one
    simulation per point, the training-loss claims the test-error claims' ones, and the
    A.thm3, A.grad.q2 and pooled points are those of the tests above (same seed: cache hits)."""
    _explored_at(claim, 2)


@pytest.mark.slow
@pytest.mark.parametrize("claim", POINT_CLAIMS, ids=[c.id for c in POINT_CLAIMS])
def test_every_claim_that_takes_a_point_at_more_points(claim):
    """The slow profile: ten points per claim."""
    _explored_at(claim, 10)


@pytest.mark.slow
@pytest.mark.parametrize("ids, points", [("A.grad.q2", 100), ("A.thm3", 100), ("A.thm5.pool_test_error", 100)])
def test_false_alarm_rate_on_the_unmutated_claims(ids, points):
    """The false-alarm rate over >= 100 points of a family: no confirmed failure (the run-wide
    bound: P(any confirmed failure | every claim holds) <= FAMILY_ALPHA = 1e-3), and the
    screens' failure rate recorded (docs/claims.md, "False alarms", has the measured numbers)."""
    found = attncheck.explore(ids, examples=points, seed=101, shrinks=0)
    for e in found:
        screens = sum(r.verdict in ("failed", "unconfirmed") for r in e.runs)
        print(f"{e.claim_id}: {len(e.runs)} points, {screens} screen failures, "
              f"{sum(r.verdict == 'failed' for r in e.runs)} confirmed")
        assert len(e.runs) == points and not e.failed, [r.params for r in e.runs if r.verdict == "failed"]


def test_paper_c_positional_claim_at_a_point_kills_a_mutant():
    """C.sim.positional at a point of its own (alpha, omega away from the authors' setting): the
    unmutated claim passes there (test above), and a teacher field without its V* term is found
    at the first draw, confirmed at full size with a fresh seed."""
    with mutated(all_mutants()["C.field.teacher:no_vstar"]):
        e, = attncheck.explore("C.sim.positional", examples=1, seed=SEED, shrinks=0,
                               within={"alpha": 0.5, "omega": 0.2})
    assert not e.passed and e.minimal == {"alpha": 0.5, "omega": 0.2}, e.runs
    assert e.runs[0].confirm["mode"] == "full" and e.failing_rows


BUDGET_PLUGIN = '''
from numerics.claims.base import Claim, Comparison
from numerics.core.params import Param, ParamSpace

SPACE = ParamSpace((Param("x", float, 0.0, 10.0, doc="x", default=0.0),))


def _holds(settings, claim):
    return [Comparison("one", 1.0, 1.0)], {}, {}


def _fails_from_5(settings, claim):  # exact rows: fails at the screen and at the confirm run
    return [Comparison("one", 1.0, 2.0 if settings.point.get("x", 0.0) >= 5 else 1.0)], {}, {}


CLAIMS = [Claim(id="U.holds", paper="U", reference="-", statement="one is one", experiment=_holds,
                point_space=SPACE),
          Claim(id="U.fails_from_5", paper="U", reference="-", statement="one is one below 5",
                experiment=_fails_from_5, point_space=SPACE)]
'''


@pytest.fixture
def budget_claims(tmp_path):
    path = tmp_path / "budget_claims.py"
    path.write_text(BUDGET_PLUGIN)
    registry.add_claims_file(str(path))
    yield
    registry.EXTRA_FILES.remove(str(path))
    registry.claims.cache_clear()


def test_the_point_budget(budget_claims):
    """``examples`` points exactly when none fails; after the first confirmed failure at most
    ``shrinks`` new points (the draws left unused are not given to the shrinker), all of them
    while shrinking."""
    e, = attncheck.explore("U.holds", examples=7, seed=SEED, shrinks=3)
    assert e.passed and len(e.runs) == 7 and {r.stage for r in e.runs} == {"generate"}
    assert len({json.dumps(r.params) for r in e.runs}) == 7
    e, = attncheck.explore("U.fails_from_5", examples=20, seed=SEED, shrinks=3)
    first = next(i for i, r in enumerate(e.runs) if r.verdict == "failed")
    assert {r.stage for r in e.runs[:first + 1]} == {"generate"} and first < 16, e.runs
    assert len(e.runs) == first + 1 + 3 and {r.stage for r in e.runs[first + 1:]} == {"shrink"}, e.runs
    assert not e.passed and e.minimal["x"] >= 5 and e.confirm_runs_bound == 20 + 3
    e, = attncheck.explore("U.fails_from_5", examples=20, seed=SEED, shrinks=0)
    assert len(e.runs) == first + 1 and e.minimal == e.runs[first].params



def test_an_exploration_is_a_tidy_table_of_its_points():
    pytest.importorskip("pandas", reason="pip install 'attncheck[tables]'")
    from numerics.explore import Exploration, PointRun

    e = Exploration("X.toy", runs=[PointRun("X.toy", "generate", {"a": 1.0, "n": 3}, "passed", {}),
                                   PointRun("X.toy", "shrink", {"a": 0.5, "n": 2}, "error", {"error": "boom"})])
    df = e.to_pandas()
    assert list(df.columns) == ["claim", "stage", "a", "n", "verdict", "error"]
    assert df.values.tolist() == [["X.toy", "generate", 1.0, 3, "passed", None],
                                  ["X.toy", "shrink", 0.5, 2, "error", "boom"]]
    pytest.importorskip("xarray", reason="pip install 'attncheck[tables]'")
    ds = e.to_xarray()
    assert ds["a"].values.tolist() == [1.0, 0.5] and ds["a"].dims == ("point",)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(__import__("sys").modules, "xarray", None)  # not installed
        with pytest.raises(ImportError, match=r"^to_xarray\(\) needs xarray, an optional extra"):
            e.to_xarray()


def test_an_exploration_says_what_it_found_in_one_line_and_in_its_json():
    from numerics.explore import SCHEMA, SUMMARY_SCHEMA, Exploration, PointRun

    ok = PointRun("T.x", "generate", {"a": 1.0}, "passed", {"error": ""})
    bad = PointRun("T.x", "shrink", {"a": 0.5}, "failed", {"error": ""}, {"error": ""})
    err = PointRun("T.x", "generate", {"a": 2.0}, "error", {"error": "experiment of T.x failed: boom"})
    e = Exploration("T.x", runs=[ok, bad, err], minimal={"a": 0.5}, failing_rows=["r"],
                    command="attncheck verify T.x --param a=0.5", confirm_runs_bound=4)
    assert repr(e) == "Exploration('T.x', 3 points, FAILS at {'a': 0.5}, 1 ERRORS)"
    assert repr(Exploration("T.x", runs=[ok])) == "Exploration('T.x', 1 points, no confirmed failure)"
    assert repr(Exploration("T.d", runs=[ok], design_only="why")) == "Exploration('T.d', design only, passes)"
    assert repr(Exploration("T.d", runs=[bad, err], design_only="why")) == (
        "Exploration('T.d', design only, FAILS, 1 ERRORS)")
    assert bad.to_json() == {"schema": SCHEMA, "claim": "T.x", "stage": "shrink", "params": {"a": 0.5}, "verdict": "failed",
                             "error": "", "screen": {"error": ""}, "confirm": {"error": ""}}
    assert err.to_json()["error"] == "experiment of T.x failed: boom" and err.to_json()["confirm"] is None
    assert e.to_json() == {
        "schema": SUMMARY_SCHEMA, "claim": "T.x", "points": 3, "passed": False, "failed": True,
        "error": "experiment of T.x failed: boom",
        "errors": [{"params": {"a": 2.0}, "stage": "generate", "error": "experiment of T.x failed: boom"}],
        "design_only": "", "counterexamples": "", "minimal": {"a": 0.5}, "failing_rows": ["r"],
        "command": "attncheck verify T.x --param a=0.5", "family_alpha": e.family_alpha, "confirm_runs_bound": 4,
        "bound": f"P(any confirmed failure | every claim holds) <= {e.family_alpha:g} (Bonferroni over at most 4 "
                 "confirm runs x their rows)"}
