"""Verdict cache and process pool: the same records whatever the route."""
import json

import pytest
from click.testing import CliRunner

from numerics.cli import main
from numerics import registry
from numerics.core import cache

CHEAP = ["B.coercivity.counterexample", "B.kl.bound"]
TIMING = ("elapsed_s", "cached")


def _records(args, env):
    res = CliRunner().invoke(main, ["verify", *CHEAP, "--json", *args], env=env)
    assert res.exit_code == 0, res.output
    recs = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    return recs


def _strip(recs):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in recs]


def test_workers_and_cache_give_identical_records(tmp_path):
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    one = _records(["--no-cache"], env)
    two = _records(["--no-cache", "--workers", "2"], env)
    assert _strip(one) == _strip(two)
    cold = _records([], env)
    warm = _records([], env)
    assert [r["cached"] for r in cold] == [False, False] and [r["cached"] for r in warm] == [True, True]
    assert _strip(cold) == _strip(warm) == _strip(one)
    assert cache.info()["entries"] >= 0


def test_a_derivation_change_reruns_exactly_the_claims_that_use_it():
    claims = registry.claims()
    uses = {cid: cache.dependencies(c.experiment.__module__) for cid, c in claims.items()}
    coercivity = {cid for cid, deps in uses.items() if "derivations.paper_b.coercivity" in deps}
    assert "B.coercivity.identity" in coercivity
    assert not any(cid.startswith("A.") for cid in coercivity)
    capacity = {cid for cid, deps in uses.items() if "derivations.paper_a.capacity" in deps}
    assert "A.capacity.ordering" in capacity and not any(cid.startswith("B.") for cid in capacity)


def test_cache_commands(tmp_path):
    env = {"ATTNCHECK_CACHE_DIR": str(tmp_path)}
    _records([], env)
    r = CliRunner().invoke(main, ["cache", "info", "--json"], env=env)
    assert r.exit_code == 0 and json.loads(r.output)["entries"] == len(CHEAP)
    r = CliRunner().invoke(main, ["cache", "clear"], env=env)
    assert r.exit_code == 0 and "removed 2" in r.output


SHARING_PLUGIN = '''
import os
import time

from numerics.claims.base import Claim, Comparison, memo


def _shared(settings):
    def compute():
        with open(os.environ["SHARED_MEMO_LOG"], "a") as fh:  # one line per computation
            fh.write(f"{os.getpid()}\\n")
        time.sleep(1.0)  # long enough for the other process to ask for it meanwhile
        return 2.0
    return memo(settings, ("Z.shared", "experiment"), compute)


def _entered():
    with open(os.environ["SHARED_MEMO_LOG"] + ".entered", "a") as fh:  # one line per attempt
        fh.write(f"{os.getpid()}\\n")


def _a(settings, claim):
    _entered()
    return [Comparison("a", 2.0, _shared(settings))], {}, {}


def _b(settings, claim):
    _entered()
    return [Comparison("b", 2.0, _shared(settings))], {}, {}


CLAIMS = [Claim(id="Z.a", paper="Z", reference="-", statement="reads the shared experiment", experiment=_a),
          Claim(id="Z.b", paper="Z", reference="-", statement="reads it too", experiment=_b)]
'''


def test_a_pool_computes_an_experiment_that_two_claims_read_once(tmp_path, monkeypatch):
    from numerics.claims.base import Settings
    from numerics.claims.runner import collect_all, pool_size

    path = tmp_path / "sharing_claims.py"
    path.write_text(SHARING_PLUGIN)
    log = tmp_path / "computed.log"
    monkeypatch.setenv("SHARED_MEMO_LOG", str(log))
    registry.add_claims_file(str(path))
    try:
        claims = [registry.claims()[i] for i in ("Z.a", "Z.b")]
        runs = list(collect_all(claims, Settings(), workers=2, use_cache=False))
    finally:
        registry.EXTRA_FILES.remove(str(path))
        registry.claims.cache_clear()
    assert [ev.comparisons[0].mean for _, ev, _ in runs] == [2.0, 2.0]
    entered = (tmp_path / "computed.log.entered").read_text().split()
    assert len(set(entered)) == 2  # both processes asked for the experiment ...
    assert len(log.read_text().split()) == 1  # ... and one computed it
    # the default: one process per CPU for two claims or more, one process for a single claim
    monkeypatch.setattr("numerics.core.cluster.available_workers", lambda: 2)
    assert (pool_size(None, 1), pool_size(None, 5), pool_size(3, 1)) == (1, 2, 3)


def _rows_claim(cid, rows):
    from numerics.claims.base import Claim

    return Claim(id=cid, paper="T", reference="a test", statement="a = 1", experiment=lambda settings, claim: (
        rows, {"n": 100}, {}), design_only="a test claim")


def test_a_verdict_in_one_line_and_in_a_notebook(monkeypatch):
    """The verdict's repr: its id, word, rows, the largest |z| of the statistical rows (an exact
    row has none), the mode, the seed and a --mutate scaling; the notebook's HTML from the
    presentation layer when it is registered, else the text repr."""
    from numerics.claims.base import Comparison, Settings, Verdict, judge

    rows = [Comparison("a", 1.0, 1.04, 0.01, 0.0, 100), Comparison("b", 2.0, 1.99, 0.02, 0.0, 100),
            Comparison("exact", 3.0, 3.0)]
    ev = _rows_claim("T.repr", rows).collect(Settings(mode="quick", seed=7))
    assert repr(judge(ev)) == "Verdict('T.repr', FAIL, 3 rows, max|z|=4.00, quick, seed 7)"
    assert repr(judge(ev, 0.04)) == "Verdict('T.repr', FAIL, 3 rows, max|z|=4.50, quick, seed 7, mutate=+0.04)"
    exact = _rows_claim("T.exact", [Comparison("exact", 3.0, 3.0)]).collect(Settings(mode="full", seed=8))
    assert repr(judge(exact)) == "Verdict('T.exact', PASS, 1 rows, full, seed 8)"
    monkeypatch.setattr(Verdict, "html_renderer", None)
    assert judge(exact)._repr_html_() is None
    monkeypatch.setattr(Verdict, "html_renderer", lambda v: f"<p>{v.id}</p>")
    assert judge(exact)._repr_html_() == "<p>T.exact</p>"


def test_the_evidence_of_a_claim_that_raised_says_where():
    """No rows; the side, the claim and the exception in one line; the file, line and function
    that raised; a claim of the project's own packages or of a plugin."""
    import fractions

    from numerics import registry
    from numerics.claims.base import Settings
    from numerics.claims.runner import built_in, error_evidence

    def boom():
        raise ZeroDivisionError("at x = 0")

    def calls():
        boom()

    def divides():
        return fractions.Fraction(1, 0)

    try:
        calls()
    except ZeroDivisionError as e:
        exc = e
    line = boom.__code__.co_firstlineno + 1
    assert error_evidence("T.raises", Settings(), exc).details["raised_at"] == f"{__file__}:{line} in boom"  # innermost
    try:
        divides()
    except ZeroDivisionError as e:
        exc = e
    where = error_evidence("T.raises", Settings(), exc).details["raised_at"]
    assert where.startswith(f"{fractions.__file__}:") and where.endswith(" in __new__")  # a library's frame
    try:
        boom()
    except ZeroDivisionError as e:
        exc = e
    settings = Settings(mode="quick", seed=3)
    ev = error_evidence("T.raises", settings, exc)
    assert (ev.claim_id, ev.comparisons, ev.settings, ev.elapsed_s) == ("T.raises", [], settings, 0.0)
    assert ev.details == {"side": "claim", "raised_at": f"{__file__}:{boom.__code__.co_firstlineno + 1} in boom"}
    assert ev.error == "claim code of T.raises failed: ZeroDivisionError: at x = 0"
    assert error_evidence("T.raises", settings, ValueError("never raised"), elapsed_s=2.5).details["raised_at"] == ""
    assert error_evidence("T.raises", settings, exc, elapsed_s=2.5).elapsed_s == 2.5
    assert built_in(registry.claim("B.kl.bound")) and not built_in(_rows_claim("T.plugin", []))


def test_the_memo_names_the_side_of_what_raised_inside_it():
    """An experiment computed through the memo that raises is the experiment's, unless theory
    code inside it raised: the memo names the side on the exception it re-raises."""
    from numerics.claims.base import Settings, memo, raised_in
    from numerics.core import backends

    settings = Settings(mode="quick", seed=5)

    def theory_fails():
        return backends.to_mpf(object())  # raises in theory code (numerics.core.backends)

    def experiment_fails():
        raise FloatingPointError("the simulation overflowed")

    for compute, side in ((theory_fails, "theory"), (experiment_fails, "experiment")):
        with pytest.raises((TypeError, ValueError, FloatingPointError)) as err:
            memo(settings, ("T.memo_side", side), compute)
        assert err.value.side == side and raised_in(err.value) == side


def test_the_memo_keeps_a_side_already_named_and_names_none_it_cannot_set():
    """A side the exception already carries is kept (an inner memo named it); an exception that
    refuses the attribute (a read-only property, a __setattr__ that raises TypeError) is
    re-raised as it is, never replaced by an error of the naming."""
    from numerics.claims.base import _name_side

    for side in ("theory", "experiment", "claim"):
        named = ValueError("inner")
        named.side = side
        _name_side(named)
        assert named.side == side

    class ReadOnly(Exception):
        side = property(lambda self: None)

    class Refuses(Exception):
        def __setattr__(self, name, value):
            raise TypeError("no attributes")

    for exc in (ReadOnly("x"), Refuses("y")):
        _name_side(exc)
        assert getattr(exc, "side", None) is None


def test_an_error_text_is_one_line_cut_at_400_characters():
    from numerics.claims.runner import error_text

    text, side = error_text("T.long", ValueError("first\nsecond"))
    assert text.endswith("ValueError: first second") and "\n" not in text
    exact = "x" * (400 - len("ValueError: "))
    assert error_text("T.long", ValueError(exact))[0].endswith(f"ValueError: {exact}")  # 400: kept whole
    longer = error_text("T.long", ValueError(exact + "y"))[0]
    assert longer.endswith("ValueError: " + exact[:-1] + "…")  # 401: cut to 399 and an ellipsis


def test_a_claim_built_in_by_its_experiment_s_module():
    """attncheck's own claims are those whose experiment lives in its packages; an experiment
    without a module (a callable object) is a plugin's."""
    import types

    from numerics.claims.runner import built_in

    claim = _rows_claim("T.plugin", [])
    for module in (None, "numerics.claims.paper_a.x", "derivations.y", "spiked_covariance.claims"):
        fn = types.SimpleNamespace(__module__=module) if module else types.SimpleNamespace()
        assert built_in(types.SimpleNamespace(id=claim.id, experiment=fn)) == (module is not None and
                                                                               module.split(".")[0] in ("numerics", "derivations")), module


def test_a_claims_generator_is_seeded_by_its_id_and_path():
    from numerics.claims.base import Settings

    claim, settings = _rows_claim("T.seeded", []), Settings(mode="quick", seed=7)
    draw = lambda *path: claim.rng(settings, *path).integers(0, 2**62, 4).tolist()  # noqa: E731
    assert draw("a", 1) == draw("a", 1) and draw("a", 1) != draw("a", 2) != draw("b", 1) != draw()
    assert draw("a", 1) != _rows_claim("T.other", []).rng(settings, "a", 1).integers(0, 2**62, 4).tolist()


def test_the_certifiable_claims_are_read_from_the_claim_index():
    """The index on disk answers ``certifiable`` without importing the claims: each claim's flag
    by its id, claims without a flag left to the claims themselves."""
    from numerics.theory.certify import _read_index, evaluator

    known = _read_index(registry)
    index = registry.claim_index()
    assert known == {r["id"]: r["certifiable"] for r in index if "certifiable" in r} and len(known) == len(index)
    assert known["A.thm3.q2_cosine"] is True and known["A.capacity.ordering"] is False
    assert all(known[cid] == (evaluator(c) is not None) for cid, c in registry.claims().items())
